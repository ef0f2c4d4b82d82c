// GetSystemCycle, InitSocState and the CPU-mode kernel mode.
#include "aicore/kernel/sys.h"

#include <atomic>
#include <chrono>

namespace AscendC {

int64_t GetSystemCycle() {
  const double mhz = detail::Core().chip().clock_mhz;
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now().time_since_epoch())
                .count();
  return static_cast<int64_t>(static_cast<double>(ns) * mhz / 1000.0);
}

void InitSocState() {
  auto& core = detail::Core();
  core.atomic_mode = 0;
  core.mask_counter_mode = false;
  core.vector_mask = {~0ull, ~0ull};
}

namespace {
// -1: SetKernelMode was never called (GetKernelMode reports CANN's default, MIX_MODE).
std::atomic<int> g_kernel_mode{-1};
}  // namespace

void SetKernelMode(KernelMode mode) {
  if (mode != KernelMode::MIX_MODE && mode != KernelMode::AIC_MODE &&
      mode != KernelMode::AIV_MODE && mode != KernelMode::MIX_AIC_1_1) {
    throw aicore::Error(aicore::Status(
        aicore::StatusCode::kInvalidArgument,
        aicore::StrCat("SetKernelMode: ", static_cast<int>(mode),
                       " is not a KernelMode (MIX_MODE=0, AIC_MODE, AIV_MODE, MIX_AIC_1_1)")));
  }
  g_kernel_mode = static_cast<int>(mode);
}

KernelMode GetKernelMode() {
  const int mode = g_kernel_mode.load();
  return mode < 0 ? KernelMode::MIX_MODE : static_cast<KernelMode>(mode);
}

namespace detail {
bool KernelModeWasSet() { return g_kernel_mode.load() >= 0; }
void ResetKernelMode() { g_kernel_mode = -1; }
}  // namespace detail

}  // namespace AscendC
