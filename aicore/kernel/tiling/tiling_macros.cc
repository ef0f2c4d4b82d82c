// Kernel-side tiling: the launch's key and data, and the kernel-type check.
#include "aicore/kernel/tiling/tiling_macros.h"

#include <cstring>

#include "aicore/kernel/detail/check.h"
#include "aicore/sim/scheduler.h"

namespace AscendC::detail {

namespace {

// Fails when [src + offset, + bytes) leaves the launch's tiling data (when the launch told us
// where its tiling data lies).
void CheckTilingRange(const void* src, size_t offset, size_t bytes, const char* api,
                      const char* type, const std::source_location& loc) {
  if (src == nullptr) {
    Fail(StatusCode::kInvalidArgument, api, loc, "the tiling argument of ", type,
         " is a null pointer (did the launch pass tiling data?)");
  }
  const aicore::sim::LaunchTiling& t = Core().tiling;
  if (t.data == nullptr) return;
  const auto* base = static_cast<const uint8_t*>(t.data);
  const auto* p = static_cast<const uint8_t*>(src) + offset;
  if (p < base || p > base + t.bytes) return;  // not the launch's tiling buffer: unchecked
  if (static_cast<uint64_t>(p - base) + bytes > t.bytes) {
    Fail(StatusCode::kOutOfRange, api, loc, type, " reads bytes [", p - base, ", ",
         static_cast<uint64_t>(p - base) + bytes, ") of the tiling data, but the tiling "
         "function wrote only ", t.bytes, " bytes (does the kernel's struct match the host's?)");
  }
}

}  // namespace

uint64_t LaunchTilingKey() { return Core().tiling.key; }

void LoadTilingData(void* dst, size_t bytes, const void* src, size_t offset, const char* api,
                    const char* type, const std::source_location& loc) {
  CheckTilingRange(src, offset, bytes, api, type, loc);
  std::memcpy(dst, static_cast<const uint8_t*>(src) + offset, bytes);
}

const void* CheckTilingPointer(const void* src, size_t bytes, const char* api, const char* type,
                               const std::source_location& loc) {
  CheckTilingRange(src, 0, bytes, api, type, loc);
  return src;
}

void CheckKernelTaskType(int type, const char* type_name, bool key_matches,
                         const std::source_location& loc) {
  if (!key_matches) return;
  aicore::sim::Core& core = Core();
  using aicore::sim::CoreType;
  if (core.id().type == CoreType::kCoupled) return;  // one core kind runs everything
  const int64_t aic = aicore::sim::LaunchCoreCount(CoreType::kAic);
  const int64_t aiv = aicore::sim::LaunchCoreCount(CoreType::kAiv);
  bool ok = true;
  const char* wants = "";
  switch (type) {
    case KERNEL_TYPE_AIV_ONLY:
    case KERNEL_TYPE_MIX_AIV_1_0:
      ok = aic == 0;
      wants = "AIV cores only (aicore::KernelMode::kAiv)";
      break;
    case KERNEL_TYPE_AIC_ONLY:
    case KERNEL_TYPE_MIX_AIC_1_0:
      ok = aiv == 0;
      wants = "AIC cores only (aicore::KernelMode::kAic)";
      break;
    case KERNEL_TYPE_MIX_AIC_1_1:
    case KERNEL_TYPE_MIX_AIC_1_2:
      ok = aic > 0 && aiv > 0;
      wants = "AIC and AIV cores (aicore::KernelMode::kMix)";
      break;
    default:
      Fail(StatusCode::kInvalidArgument, "KERNEL_TASK_TYPE", loc, "unknown kernel type ", type);
  }
  if (!ok) {
    Fail(StatusCode::kFailedPrecondition, "KERNEL_TASK_TYPE", loc, "the kernel declares ",
         type_name, ", which needs ", wants, ", but the launch runs ", aic, " AIC and ", aiv,
         " AIV cores");
  }
}

}  // namespace AscendC::detail
