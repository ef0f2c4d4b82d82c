// Synchronisation across cores: SyncAll (hardware and software forms).
#pragma once

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/sim/scheduler.h"

namespace AscendC {

namespace detail {

// The barrier both SyncAll forms use: flushes the core's pipes, issues the SyncAll instruction
// and waits for `participants` cores (0: all AIVs, or all cores unless isAIVOnly).
template <bool isAIVOnly>
void SyncAllBarrier(SrcLoc loc, int64_t participants) {
  auto& core = Core();
  core.Flush(aicore::sim::Pipe::kAll);  // every GM write of this core lands before the barrier
  AICORE_ISSUE(core, ([&] {
                 aicore::sim::Instr in;
                 in.kind = aicore::sim::InstrKind::kSyncAll;
                 in.api = "SyncAll";
                 in.pipe = aicore::sim::Pipe::kAll;
                 in.event_id = isAIVOnly ? 1 : 0;  // 1: only the AIVs of a mix launch meet
                 in.loc = loc;
                 return in;
               }()));
  aicore::sim::SyncAllCores(isAIVOnly, loc, participants);
}

}  // namespace detail

// Waits until every AIV of the launch (isAIVOnly) or every core has reached a SyncAll.
template <bool isAIVOnly = true>
void SyncAll(detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SyncAllBarrier<isAIVOnly>(loc, 0);
}

// The software SyncAll: GM and UB workspaces as documented (each >= cores * 32 B, gmWorkspace
// zeroed); here the workspaces are only checked, and the barrier is the scheduler's. `usedCores`
// 0 synchronises every core; n in [1, blockDim] synchronises the first n cores to arrive (the
// blocks that call it), the others do not take part.
template <bool isAIVOnly = true>
void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
             const int32_t usedCores = 0, detail::SrcLoc loc = detail::SrcLoc::current()) {
  auto& core = detail::Core();
  const int64_t all = core.id().block_num;
  if (usedCores < 0 || usedCores > all) {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "SyncAll", loc, "usedCores ", usedCores,
                 " is outside [0, ", all, "] (0 = every core; at most the launch's blockDim ",
                 all, ")");
  }
  const int64_t cores = usedCores > 0 ? usedCores : all;
  if (gmWorkspace.bounded() && gmWorkspace.extent_bytes() < uint64_t(cores) * 32) {
    detail::Fail(aicore::StatusCode::kOutOfRange, "SyncAll", loc, "gmWorkspace holds ",
                 gmWorkspace.extent_bytes(), " B; ", cores, " cores need ", cores * 32, " B");
  }
  ubWorkspace.CheckLive("SyncAll", loc);
  if (ubWorkspace.bytes() < uint64_t(cores) * 32) {
    detail::Fail(aicore::StatusCode::kOutOfRange, "SyncAll", loc, "ubWorkspace holds ",
                 ubWorkspace.bytes(), " B; ", cores, " cores need ", cores * 32, " B");
  }
  detail::SyncAllBarrier<isAIVOnly>(loc, usedCores);
}

}  // namespace AscendC
