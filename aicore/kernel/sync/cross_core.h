// CrossCoreSetFlag / CrossCoreWaitFlag: flag counters between the cores of a split chip (AIC and
// AIV). See Note [Cross-core flags].
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/types.h"

namespace AscendC {

namespace detail {
void CrossCoreSet(uint8_t mode, pipe_t pipe, uint16_t flag_id, const SrcLoc& loc);
void CrossCoreWait(uint8_t mode, pipe_t pipe, uint16_t flag_id, const SrcLoc& loc);
}  // namespace detail

// Note [Cross-core flags]
// Each core holds one counter per flag id (0..15), starting at 0. CrossCoreWaitFlag blocks while
// the caller's counter is 0, then takes one. CrossCoreSetFlag adds to other cores' counters by
// mode:
//   0: when every core of the caller's type (all AICs, or all AIVs) has set the flag, each of them
//      gets +1 (a barrier among cores of one type);
//   1: when both AIVs of the caller's AI Core (mix group) have set it, each gets +1;
//   2: an AIC set gives each AIV of its group +1; once every AIV of the group has set it, the
//      group's AIC gets +1.
// "Every core has set" counts per core: one increment takes one set from each participant, so
// an AIV that sets a mode-2 flag twice before its partner sets it once gives the AIC one
// increment, not two (its second set waits for the partner's next one). The CrossCoreSetFlag
// page (CANN 8.0, Atlas A2) says the Cube core's counter grows by 1 "once both Vector cores have
// run CrossCoreSetFlag", and the 950's mode 4 exists to let either AIV alone release the AIC.
// A counter holds at most 15: a set that would make it 16 is an error (hardware would hang). A
// wait no core can satisfy is reported by the scheduler's deadlock detection. The funnel records
// one set per target counter, with Instr::repeat = how many sets make one increment, so the
// timing model can pair each wait with the sets that released it.

// Adds to the flag counters of the cores `modeId` selects (see Note [Cross-core flags]).
template <uint8_t modeId, pipe_t pipe>
void CrossCoreSetFlag(uint16_t flagId, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CrossCoreSet(modeId, pipe, flagId, loc);
}

// Blocks until this core's counter of `flagId` is non-zero, then decrements it. The template
// arguments default so the older untemplated spelling CrossCoreWaitFlag(id) compiles.
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
void CrossCoreWaitFlag(uint16_t flagId, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CrossCoreWait(modeId, pipe, flagId, loc);
}

}  // namespace AscendC
