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

namespace {

aicore::KernelMode ToLaunchMode(KernelMode mode) {
  switch (mode) {
    case KernelMode::MIX_MODE: return aicore::KernelMode::kMix;
    case KernelMode::AIC_MODE: return aicore::KernelMode::kAic;
    case KernelMode::AIV_MODE: return aicore::KernelMode::kAiv;
    case KernelMode::MIX_AIC_1_1: return aicore::KernelMode::kMix1To1;
  }
  return aicore::KernelMode::kMix;
}

const char* ModeSource(KernelMode mode) {
  switch (mode) {
    case KernelMode::MIX_MODE: return "AscendC::SetKernelMode(KernelMode::MIX_MODE)";
    case KernelMode::AIC_MODE: return "AscendC::SetKernelMode(KernelMode::AIC_MODE)";
    case KernelMode::AIV_MODE: return "AscendC::SetKernelMode(KernelMode::AIV_MODE)";
    case KernelMode::MIX_AIC_1_1: return "AscendC::SetKernelMode(KernelMode::MIX_AIC_1_1)";
  }
  return "AscendC::SetKernelMode";
}

}  // namespace

aicore::LaunchOptions IcpuOptions() {
  aicore::LaunchOptions o;
  if (KernelModeWasSet()) {
    o.mode = ToLaunchMode(GetKernelMode());
    o.launch_type = ModeSource(GetKernelMode());
  } else {
    // CANN's documented default for ICPU_RUN_KF. A vector kernel's body then runs on the AICs
    // too, where its UB work fails with this hint in the message.
    o.mode = aicore::KernelMode::kMix;
    o.launch_type =
        "ICPU_RUN_KF's default MIX_MODE, as CANN's; a vector-only kernel needs "
        "AscendC::SetKernelMode(KernelMode::AIV_MODE) before ICPU_RUN_KF";
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

aicore::LaunchOptions aicore::DefaultLaunchOptions() {
  if (AscendC::detail::KernelModeWasSet()) return AscendC::detail::IcpuOptions();
  // CANN's compiler gives these launches the type it infers from the kernel's instructions; a
  // host call site cannot, so they run AIV only unless SetKernelMode chose a mode.
  aicore::LaunchOptions o;
  o.tiling.key = AscendC::GetTilingKey();
  return o;
}
