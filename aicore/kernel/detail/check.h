// Private helpers shared by the kernel API: the current core, error raising with the caller's
// source location, and funnel issue.
#pragma once

#include <source_location>

#include "aicore/sim/core.h"
#include "aicore/sim/funnel.h"

namespace AscendC::detail {

using SrcLoc = std::source_location;
using aicore::StatusCode;

inline aicore::sim::Core& Core() { return aicore::sim::CurrentCore(); }

// Raises a kernel error naming the kernel, core, API and call site.
template <typename... Args>
[[noreturn]] inline void Fail(StatusCode code, const char* api, const SrcLoc& loc,
                              const Args&... args) {
  aicore::sim::KernelFail(code, api, loc, args...);
}

// An element offset that remembers where it was written. operator[] takes exactly one argument
// before C++23, so it cannot default a std::source_location; converting the index to this type
// evaluates the constructor's default argument at the caller's expression instead.
template <typename I>
struct IndexAt {
  IndexAt(I v, SrcLoc l = SrcLoc::current()) : value(v), loc(l) {}  // NOLINT: implicit on purpose
  I value;
  SrcLoc loc;
};

// Returns the serial of the current core, 0 outside a kernel (See LocalTensor::CheckLive).
inline uint32_t CurrentCoreSerial() {
  const aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull();
  return core != nullptr ? core->serial() : 0;
}

// Raises the error of a LocalTensor used on a core other than the one that made it.
[[noreturn]] void FailForeignTensor(const char* api, const SrcLoc& loc);

// Raises the error of a UB tensor used on an AIC by an API other than Fixpipe: on a
// fixpipe_to_ub chip the AIC's UB tensors address its AIV's UB (Note [L0C to UB]).
[[noreturn]] void FailAicUbTensor(const char* api, const char* role, const SrcLoc& loc);

// Returns true when a tensor in buffer `b` may not be used by a non-Fixpipe API on this core: a
// UB tensor on a core without UB.
inline bool AicUbTensor(aicore::arch::Buffer b) {
  return b == aicore::arch::Buffer::kUb && !Core().HasBuffer(aicore::arch::Buffer::kUb);
}

// Builds the funnel record of a scalar (PIPE_S) access to one element at `p`.
aicore::sim::Instr ScalarInstr(aicore::sim::Core& core, const char* api, bool write,
                               const void* p, uint32_t bytes, aicore::DType dt, const SrcLoc& loc);

}  // namespace AscendC::detail

// Hands an instruction record to the core's observers. `build` is an expression of type Instr;
// it is evaluated only when an observer is attached. See Note [Funnel cost].
#define AICORE_ISSUE(core, build)              \
  do {                                         \
    ++(core).work;                             \
    if ((core).observed()) [[unlikely]] {      \
      (core).Notify(build);                    \
    }                                          \
  } while (0)
