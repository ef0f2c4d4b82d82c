// Which core the kernel runs on: GetBlockIdx and friends, block_idx/block_num, ASCEND_IS_AIV and
// ASCEND_IS_AIC; InitSocState; the CPU-mode kernel mode (SetKernelMode).
#pragma once

#include <cstdint>
#include <cstdio>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/types.h"
#include "aicore/kernel/utils/scalar.h"

// The built-in variables block_idx and block_num (raw AI Core numbering, one value per running
// block) are declared in aicore/sim/core.h; see Note [Built-in block variables].

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

// Resets the core state an earlier kernel may leave behind, as AscendC's InitSocState does at the
// entry of a static-Tensor kernel (TPipe does it otherwise): GM atomic accumulation off
// (SetAtomicNone), vector mask mode normal and the vector mask all ones. Each aicore launch starts
// from fresh cores, so this matters only after the kernel itself changed that state.
void InitSocState();

// Sets how ICPU_RUN_KF maps a launch's blocks to cores: MIX_MODE = groups of 1 AIC + 2 AIV,
// AIC_MODE, AIV_MODE, MIX_AIC_1_1 = groups of 1 AIC + 1 AIV. Without a call the mode is MIX_MODE,
// CANN's documented default, so a vector kernel launched by ICPU_RUN_KF calls
// SetKernelMode(KernelMode::AIV_MODE) first, as CANN's samples do. Once called, the mode also
// applies to ACLRT_LAUNCH_KERNEL and aicore::Launch without options (which otherwise run AIV only;
// see docs/cpu-debug-compat.md). Host code only. Throws aicore::Error(kInvalidArgument) for a
// value outside the enum.
void SetKernelMode(KernelMode mode);
// Returns the mode SetKernelMode set, MIX_MODE when it was never called.
KernelMode GetKernelMode();

namespace detail {
// True once SetKernelMode was called in this process (and not reset since).
bool KernelModeWasSet();
// Forgets SetKernelMode's mode: the state of a fresh process (for tests).
void ResetKernelMode();
}  // namespace detail

namespace detail {
// ASCEND_IS_AIV / ASCEND_IS_AIC; a false answer is remembered on the core (Core::guard_false).
inline bool IsAiv() {
  auto& core = Core();
  const bool aiv = core.id().type != aicore::sim::CoreType::kAic;
  if (!aiv) core.guard_false = true;
  return aiv;
}
inline bool IsAic() {
  auto& core = Core();
  const bool aic = core.id().type != aicore::sim::CoreType::kAiv;
  if (!aic) core.guard_false = true;
  return aic;
}
inline CoreType CoreTypeNow() { return IsAiv() ? AIV : AIC; }
}  // namespace detail

}  // namespace AscendC

#define ASCEND_IS_AIV (::AscendC::detail::IsAiv())
#define ASCEND_IS_AIC (::AscendC::detail::IsAic())
#define ASCEND_IS_NOT_AIV (!::AscendC::detail::IsAiv())
#define ASCEND_IS_NOT_AIC (!::AscendC::detail::IsAic())
#define g_coreType (::AscendC::detail::CoreTypeNow())
