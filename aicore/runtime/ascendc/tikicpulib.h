// Compatibility with CANN's CPU debug mode host programs: AscendC::GmAlloc/GmFree,
// AscendC::SetKernelMode, ICPU_RUN_KF and ICPU_SET_TILING_KEY. When a kernel launched by
// ICPU_RUN_KF fails, the report goes to stderr, stdout is flushed and the program exits with
// status 1, as a CANN CPU-mode program ends when a core fails (docs/errors.md); it never throws.
#pragma once

#include <cstdint>

#include "aicore/kernel/ascendc/securec.h"  // memcpy_s, memset_s, as CANN host programs expect
#include "aicore/kernel/sys.h"
#include "aicore/kernel/tiling/tiling_macros.h"
#include "aicore/kernel/types.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"

namespace AscendC {

inline void* GmAlloc(size_t size) { return aicore::GmAlloc(size); }
inline void GmFree(void* ptr) { aicore::GmFree(ptr); }

// SetKernelMode/GetKernelMode live in aicore/kernel/sys.h (reachable from kernel_operator.h).

namespace detail {
// Returns the launch options ICPU_RUN_KF uses: the mode SetKernelMode set, else MIX_MODE (CANN's
// documented default), named in errors as the launch's kernel type; the ICPU_SET_TILING_KEY key.
aicore::LaunchOptions IcpuOptions();
// Returns when `status` is ok. Otherwise prints "ICPU_RUN_KF(<func>, <blockDim>) at <file:line>
// failed" and the kernel's report to stderr, flushes every stdio stream and std::cout, and exits
// the process with status 1 (std::exit: atexit handlers run, so `aicore check` still prints its
// summary and counts the failed launch).
void IcpuCheck(const aicore::Status& status, const char* func, uint32_t block_dim,
               const char* file, int line);
void SetTilingKey(uint64_t key);
}  // namespace detail

// Returns the tiling key set by ICPU_SET_TILING_KEY: the key every later launch that gives no
// LaunchOptions (ICPU_RUN_KF, ACLRT_LAUNCH_KERNEL, aicore::Launch) hands its kernel, captured when
// it is enqueued. Kernels read their own launch's key with TILING_KEY_VAR / TILING_KEY_IS.
uint64_t GetTilingKey();

}  // namespace AscendC

// Runs kernel `func` on `blockDim` blocks with the given arguments and waits for it.
#define ICPU_RUN_KF(func, blockDim, ...)                                                    \
  ::AscendC::detail::IcpuCheck(::aicore::LaunchSync(#func, func, (blockDim),              \
                                                    ::AscendC::detail::IcpuOptions(),      \
                                                    __VA_ARGS__),                          \
                               #func, (blockDim), __FILE__, __LINE__)

#define ICPU_SET_TILING_KEY(key) ::AscendC::detail::SetTilingKey(key)
