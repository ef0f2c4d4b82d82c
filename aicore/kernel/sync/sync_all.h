// Synchronisation across cores: SyncAll (hardware and software forms).
#pragma once

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/sim/scheduler.h"

namespace AscendC {

// Waits until every AIV of the launch (isAIVOnly) or every core has reached a SyncAll.
template <bool isAIVOnly = true>
void SyncAll(detail::SrcLoc loc = detail::SrcLoc::current()) {
  auto& core = detail::Core();
  core.Flush(aicore::sim::Pipe::kAll);  // every GM write of this core lands before the barrier
  AICORE_ISSUE(core, ([&] {
                 aicore::sim::Instr in;
                 in.kind = aicore::sim::InstrKind::kSyncAll;
                 in.api = "SyncAll";
                 in.pipe = aicore::sim::Pipe::kAll;
                 in.loc = loc;
                 return in;
               }()));
  aicore::sim::SyncAllCores(isAIVOnly, loc);
}

// The software SyncAll: GM and UB workspaces as documented (gmWorkspace >= blocks * 32 B, zeroed);
// here the workspaces are only checked, and the barrier is the scheduler's.
template <bool isAIVOnly = true>
void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
             const int32_t usedCores = 0, detail::SrcLoc loc = detail::SrcLoc::current()) {
  (void)ubWorkspace;
  const int64_t cores = usedCores > 0 ? usedCores : detail::Core().id().block_num;
  if (gmWorkspace.bounded() && gmWorkspace.GetSize() * sizeof(int32_t) < uint64_t(cores) * 32) {
    detail::Fail(aicore::StatusCode::kOutOfRange, "SyncAll", loc, "gmWorkspace holds ",
                 gmWorkspace.GetSize() * sizeof(int32_t), " B; ", cores, " cores need ",
                 cores * 32, " B");
  }
  SyncAll<isAIVOnly>(loc);
}

}  // namespace AscendC
