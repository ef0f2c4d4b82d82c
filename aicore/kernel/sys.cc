// Scalar helpers with host implementations.
#include "aicore/kernel/sys.h"

#include <chrono>

namespace AscendC {

int64_t GetSystemCycle() {
  const double mhz = detail::Core().chip().clock_mhz;
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now().time_since_epoch())
                .count();
  return static_cast<int64_t>(static_cast<double>(ns) * mhz / 1000.0);
}

void Trap(detail::SrcLoc loc) {
  detail::Fail(aicore::StatusCode::kFailedPrecondition, "Trap", loc, "the kernel called Trap()");
}

}  // namespace AscendC
