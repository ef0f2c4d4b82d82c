// Compatibility with CANN's CPU debug mode host programs: AscendC::GmAlloc/GmFree,
// AscendC::SetKernelMode, ICPU_RUN_KF and ICPU_SET_TILING_KEY. ICPU_RUN_KF throws aicore::Error
// with the kernel's message when a block fails.
#pragma once

#include <cstdint>

#include "aicore/kernel/sys.h"
#include "aicore/kernel/types.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"

namespace AscendC {

inline void* GmAlloc(size_t size) { return aicore::GmAlloc(size); }
inline void GmFree(void* ptr) { aicore::GmFree(ptr); }

// SetKernelMode/GetKernelMode live in aicore/kernel/sys.h (reachable from kernel_operator.h).

namespace detail {
// Returns the launch options ICPU_RUN_KF uses (from SetKernelMode).
aicore::LaunchOptions IcpuOptions();
// Throws aicore::Error unless `status` is ok.
void IcpuCheck(const aicore::Status& status);
void SetTilingKey(uint64_t key);
}  // namespace detail

// Returns the tiling key set by ICPU_SET_TILING_KEY (TILING_KEY_IS compares against it).
uint64_t GetTilingKey();

}  // namespace AscendC

// Runs kernel `func` on `blockDim` blocks with the given arguments and waits for it.
#define ICPU_RUN_KF(func, blockDim, ...)                                                    \
  ::AscendC::detail::IcpuCheck(::aicore::LaunchSync(#func, func, (blockDim),              \
                                                    ::AscendC::detail::IcpuOptions(),      \
                                                    __VA_ARGS__))

#define ICPU_SET_TILING_KEY(key) ::AscendC::detail::SetTilingKey(key)
#define TILING_KEY_IS(key) (::AscendC::GetTilingKey() == (key))
