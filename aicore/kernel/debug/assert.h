// Kernel assertions: assert(expr[, fmt, args...]), ASSERT(expr), ASCENDC_ASSERT(expr, action)
// and Trap().
//
// Note [Kernel assert]
// AscendC's kernel assert takes an optional printf-style message, which the C macro from
// <cassert> cannot. This header includes <cassert> and then redefines `assert` as a variadic
// macro: with one argument it behaves as the standard one outside a kernel (message on stderr,
// abort), and inside a kernel a failure ends the launch with a kernel error naming the kernel,
// core, expression, message and file:line instead of aborting the process. NDEBUG turns it off,
// as both CANN and the C library do. Including <cassert> or <assert.h> again after
// kernel_operator.h brings the one-argument C macro back (the C header redefines it on every
// inclusion); the message form then no longer compiles.
#pragma once

#include <cassert>
#include <string>

#include "aicore/kernel/debug/print.h"
#include "aicore/kernel/detail/check.h"

namespace AscendC {

// Stops the kernel with an error at this point (on the NPU it halts the core).
void Trap(detail::SrcLoc loc = detail::SrcLoc::current());

namespace detail {

// Reports a failed assertion: a kernel error inside a kernel, else stderr and abort().
[[noreturn]] void AssertFail(const char* expr, const char* file, int line, const char* func,
                             const std::string& message);

inline std::string AssertMessage() { return {}; }
template <typename... Args>
std::string AssertMessage(const char* fmt, Args&&... args) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
  return FormatV(fmt, PrintArg(args)...);
#pragma GCC diagnostic pop
}

}  // namespace detail
}  // namespace AscendC

#undef assert
#ifdef NDEBUG
#define assert(...) ((void)0)
#else
// See Note [Kernel assert].
#define assert(expr, ...)                                                                    \
  ((expr) ? (void)0                                                                          \
          : ::AscendC::detail::AssertFail(#expr, __FILE__, __LINE__, __func__,               \
                                          ::AscendC::detail::AssertMessage(__VA_ARGS__)))
#endif

// ASSERT(expr): the kernel assert without a message (CANN: assert on the CPU, empty on the NPU).
// Under NDEBUG it expands to nothing at all, as on the NPU, so the samples that write
// `x = y ASSERT(...);` (relying on the empty expansion) compile in release builds.
#ifdef NDEBUG
#define ASSERT(expr)
#else
#define ASSERT(expr) assert(expr)
#endif

// ascendc_assert(expr[, fmt, args...]): the documented other name of the message assert
// (utils/debug/asc_assert.h).
#define ascendc_assert(...) assert(__VA_ARGS__)

// ASCENDC_ASSERT(expr, { action; }): runs the action (typically a KERNEL_LOG) and fails the kernel
// when expr is false. Active in every aicore build, as in CANN's CPU mode.
#define ASCENDC_ASSERT(expr, ...)                                                            \
  do {                                                                                       \
    if (!(expr)) {                                                                           \
      __VA_ARGS__;                                                                           \
      ::AscendC::detail::AssertFail(#expr, __FILE__, __LINE__, __func__, std::string());     \
    }                                                                                        \
  } while (0)
