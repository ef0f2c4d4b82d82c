// Which core the kernel runs on: GetBlockIdx and friends, ASCEND_IS_AIV/ASCEND_IS_AIC, and scalar
// helpers kernels use.
#pragma once

#include <cstdint>
#include <cstdio>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/types.h"

namespace AscendC {

// Returns this core's logical block index in [0, GetBlockNum()).
inline int64_t GetBlockIdx() { return detail::Core().id().block_idx; }
// Returns the number of logical blocks of this core's type in the launch.
inline int64_t GetBlockNum() { return detail::Core().id().block_num; }
// Returns the AIV's index within its mix group (0 or 1); 0 elsewhere.
inline int64_t GetSubBlockIdx() { return detail::Core().id().sub_block_idx; }
inline int64_t GetSubBlockNum() { return detail::Core().id().sub_block_num; }
// Returns AIVs per AIC in the launch (2 for mix kernels on split chips, else 1).
inline int64_t GetTaskRatio() { return detail::Core().id().sub_block_num; }

// Returns a cycle count (host TSC-free: a monotonic nanosecond clock scaled to the chip clock).
int64_t GetSystemCycle();

// Ceil of a / b for positive b.
template <typename T>
constexpr T CeilDivision(T a, T b) {
  return (a + b - 1) / b;
}
template <typename T>
constexpr T DivCeil(T a, T b) {
  return (a + b - 1) / b;
}
template <typename T>
constexpr T AlignUp(T a, T b) {
  return (a + b - 1) / b * b;
}

// Kernel printf: prints with the core's name as prefix.
template <typename... Args>
void printf(const char* fmt, Args... args) {
  std::printf(fmt, args...);
}

// Stops the kernel with an error at this point (AscendC Trap).
void Trap(detail::SrcLoc loc = detail::SrcLoc::current());

namespace detail {
inline bool IsAiv() { return Core().id().type != aicore::sim::CoreType::kAic; }
inline bool IsAic() { return Core().id().type != aicore::sim::CoreType::kAiv; }
inline CoreType CoreTypeNow() { return IsAiv() ? AIV : AIC; }
}  // namespace detail

}  // namespace AscendC

#define ASCEND_IS_AIV (::AscendC::detail::IsAiv())
#define ASCEND_IS_AIC (::AscendC::detail::IsAic())
#define ASCEND_IS_NOT_AIV (!::AscendC::detail::IsAiv())
#define ASCEND_IS_NOT_AIC (!::AscendC::detail::IsAic())
#define g_coreType (::AscendC::detail::CoreTypeNow())
