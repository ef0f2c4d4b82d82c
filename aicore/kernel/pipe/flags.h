// Synchronisation inside one core: SetFlag/WaitFlag on (HardEvent, event id) pairs, PipeBarrier,
// and TQueSync. The core executes in program order, so these change no results; they are
// validated (ID range, pairing) and recorded in the funnel, where the timing model and the
// sanitizer use them as dependency edges.
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/types.h"

namespace AscendC::detail {
void PipeBarrierImpl(pipe_t p, const SrcLoc& loc);
}  // namespace AscendC::detail

// The pipe_barrier(PIPE_x) intrinsic: PipeBarrier<PIPE_x>() under its compiler name.
inline void pipe_barrier(pipe_t p,
                         AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::detail::PipeBarrierImpl(p, loc);
}

namespace AscendC {

namespace detail {

struct EventPipes {
  aicore::sim::Pipe src;
  aicore::sim::Pipe dst;
};

// Returns the source and destination pipes of `e` (SetFlag runs on src, WaitFlag stalls dst).
constexpr EventPipes PipesOf(HardEvent e) {
  using P = aicore::sim::Pipe;
  switch (e) {
    case HardEvent::MTE2_MTE1: return {P::kMte2, P::kMte1};
    case HardEvent::MTE1_MTE2: return {P::kMte1, P::kMte2};
    case HardEvent::MTE1_M: return {P::kMte1, P::kM};
    case HardEvent::M_MTE1: return {P::kM, P::kMte1};
    case HardEvent::MTE2_V: return {P::kMte2, P::kV};
    case HardEvent::V_MTE2: return {P::kV, P::kMte2};
    case HardEvent::MTE3_V: return {P::kMte3, P::kV};
    case HardEvent::V_MTE3: return {P::kV, P::kMte3};
    case HardEvent::M_V: return {P::kM, P::kV};
    case HardEvent::V_M: return {P::kV, P::kM};
    case HardEvent::V_V: return {P::kV, P::kV};
    case HardEvent::MTE3_MTE1: return {P::kMte3, P::kMte1};
    case HardEvent::MTE1_MTE3: return {P::kMte1, P::kMte3};
    case HardEvent::MTE1_V: return {P::kMte1, P::kV};
    case HardEvent::MTE2_M: return {P::kMte2, P::kM};
    case HardEvent::M_MTE2: return {P::kM, P::kMte2};
    case HardEvent::V_MTE1: return {P::kV, P::kMte1};
    case HardEvent::M_FIX: return {P::kM, P::kFix};
    case HardEvent::FIX_M: return {P::kFix, P::kM};
    case HardEvent::MTE3_MTE2: return {P::kMte3, P::kMte2};
    case HardEvent::MTE2_MTE3: return {P::kMte2, P::kMte3};
    case HardEvent::S_V: return {P::kS, P::kV};
    case HardEvent::V_S: return {P::kV, P::kS};
    case HardEvent::S_MTE2: return {P::kS, P::kMte2};
    case HardEvent::MTE2_S: return {P::kMte2, P::kS};
    case HardEvent::S_MTE3: return {P::kS, P::kMte3};
    case HardEvent::MTE3_S: return {P::kMte3, P::kS};
    case HardEvent::MTE2_FIX: return {P::kMte2, P::kFix};
    case HardEvent::FIX_MTE2: return {P::kFix, P::kMte2};
    case HardEvent::FIX_S: return {P::kFix, P::kS};
    case HardEvent::M_S: return {P::kM, P::kS};
    case HardEvent::FIX_MTE3: return {P::kFix, P::kMte3};
    case HardEvent::MTE1_FIX: return {P::kMte1, P::kFix};
    case HardEvent::FIX_MTE1: return {P::kFix, P::kMte1};
    case HardEvent::FIX_FIX: return {P::kFix, P::kFix};
    case HardEvent::M_MTE3: return {P::kM, P::kMte3};
    case HardEvent::MTE3_M: return {P::kMte3, P::kM};
    case HardEvent::MAX: break;
  }
  return {P::kS, P::kS};
}

// Returns "MTE2_V" etc.
const char* HardEventName(HardEvent e);
// Returns the funnel's pipe for an AscendC pipe_t.
aicore::sim::Pipe ToSimPipe(pipe_t p);

void SetFlagImpl(HardEvent e, int32_t id, const SrcLoc& loc);
void WaitFlagImpl(HardEvent e, int32_t id, const SrcLoc& loc);
void PipeBarrierImpl(pipe_t p, const SrcLoc& loc);

}  // namespace detail

// Sets flag (e, eventID) once the source pipe's earlier instructions finish.
template <HardEvent e>
void SetFlag(int32_t eventID, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SetFlagImpl(e, eventID, loc);
}
// Stalls the destination pipe until flag (e, eventID) is set, then clears it.
template <HardEvent e>
void WaitFlag(int32_t eventID, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::WaitFlagImpl(e, eventID, loc);
}
// Later instructions on pipe `p` wait for all earlier ones on it (PIPE_ALL: on every pipe).
template <pipe_t p>
void PipeBarrier(detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::PipeBarrierImpl(p, loc);
}
// The older spelling of PipeBarrier.
template <pipe_t p>
void pipe_barrier(detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::PipeBarrierImpl(p, loc);
}
// The untemplated pipe_barrier(PIPE_x) is the compiler intrinsic, in the global namespace below.
using ::pipe_barrier;

// SetFlag/WaitFlag between two fixed pipes.
template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  void SetFlag(int32_t eventID, detail::SrcLoc loc = detail::SrcLoc::current());
  void WaitFlag(int32_t eventID, detail::SrcLoc loc = detail::SrcLoc::current());
};

namespace detail {
HardEvent EventBetween(pipe_t src, pipe_t dst, const SrcLoc& loc);
}

template <pipe_t src, pipe_t dst>
void TQueSync<src, dst>::SetFlag(int32_t eventID, detail::SrcLoc loc) {
  detail::SetFlagImpl(detail::EventBetween(src, dst, loc), eventID, loc);
}
template <pipe_t src, pipe_t dst>
void TQueSync<src, dst>::WaitFlag(int32_t eventID, detail::SrcLoc loc) {
  detail::WaitFlagImpl(detail::EventBetween(src, dst, loc), eventID, loc);
}

}  // namespace AscendC

// The bisheng intrinsics older kernels call directly (global namespace): set_flag/wait_flag
// between two pipes (the HardEvent connecting them) and pipe_barrier(PIPE_x).
inline void set_flag(pipe_t src, pipe_t dst, int32_t eventID,
                     AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::detail::SetFlagImpl(AscendC::detail::EventBetween(src, dst, loc), eventID, loc);
}
inline void wait_flag(pipe_t src, pipe_t dst, int32_t eventID,
                      AscendC::detail::SrcLoc loc = AscendC::detail::SrcLoc::current()) {
  AscendC::detail::WaitFlagImpl(AscendC::detail::EventBetween(src, dst, loc), eventID, loc);
}
