// CPU-debug compatibility state: the launch options the kernel mode (kernel/sys.cc) selects, and
// the tiling key.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "tikicpulib.h"

namespace AscendC {

namespace {
std::atomic<uint64_t> g_tiling_key{0};
}  // namespace

uint64_t GetTilingKey() { return g_tiling_key.load(); }

namespace detail {

aicore::LaunchOptions IcpuOptions() {
  aicore::LaunchOptions o;
  switch (GetKernelMode()) {
    case KernelMode::MIX_MODE: o.mode = aicore::KernelMode::kMix; break;
    case KernelMode::AIC_MODE: o.mode = aicore::KernelMode::kAic; break;
    case KernelMode::AIV_MODE: o.mode = aicore::KernelMode::kAiv; break;
    case KernelMode::MIX_AIC_1_1: o.mode = aicore::KernelMode::kMix1To1; break;
  }
  o.tiling.key = GetTilingKey();
  return o;
}

void IcpuCheck(const aicore::Status& status, const char* func, uint32_t block_dim,
               const char* file, int line) {
  if (status.ok()) return;
  std::cout.flush();
  std::fflush(stdout);
  std::fprintf(stderr, "[aicore error] ICPU_RUN_KF(%s, %u) at %s:%d failed: %s\n", func, block_dim,
               file, line, status.ToString().c_str());
  std::fflush(nullptr);
  std::exit(EXIT_FAILURE);
}

void SetTilingKey(uint64_t key) { g_tiling_key = key; }

}  // namespace detail
}  // namespace AscendC

aicore::LaunchOptions aicore::DefaultLaunchOptions() { return AscendC::detail::IcpuOptions(); }
