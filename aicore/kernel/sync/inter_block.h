// IBSet/IBWait: one block tells another, through a flag in a GM workspace, that its earlier GM
// writes are done (inter-block synchronisation for data shared between blocks).
//
// As documented, flag (blockIdx, eventID) is the 32-byte slot eventID * cores + blockIdx of the
// zero-initialised workspace (cores = GetBlockNum() of an AIV-only launch, twice that in a mix
// launch); IBSet writes 1 into it and IBWait waits until it reads 1. Here the waiting block
// yields to the scheduler, so a wait nobody satisfies is reported as a deadlock.
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"

namespace AscendC {

namespace detail {
void InterBlockSync(bool set, bool aiv_only, int32_t* gm, uint64_t gm_elements, bool bounded,
                    bool ub_valid, uint64_t ub_bytes, int32_t block_idx, int32_t event_id,
                    const SrcLoc& loc);
}  // namespace detail

// Sets flag (blockIdx, eventID) after this core's earlier GM writes have landed.
template <bool isAIVOnly = true>
void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
           int32_t blockIdx, int32_t eventID, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::InterBlockSync(true, isAIVOnly, gmWorkspace.data(), gmWorkspace.GetSize(),
                         gmWorkspace.bounded(), ubWorkspace.valid(), ubWorkspace.bytes(), blockIdx,
                         eventID, loc);
}
// Waits until flag (blockIdx, eventID) is set (by an IBSet with the same arguments).
template <bool isAIVOnly = true>
void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
            int32_t blockIdx, int32_t eventID, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::InterBlockSync(false, isAIVOnly, gmWorkspace.data(), gmWorkspace.GetSize(),
                         gmWorkspace.bounded(), ubWorkspace.valid(), ubWorkspace.bytes(), blockIdx,
                         eventID, loc);
}

}  // namespace AscendC
