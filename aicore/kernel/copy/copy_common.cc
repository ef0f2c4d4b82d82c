// Funnel records of copies.
#include "aicore/kernel/copy/copy_common.h"

#include <algorithm>
#include <mutex>

namespace AscendC::detail {

aicore::sim::Instr CopyInstr(aicore::sim::Core& core, const char* api, aicore::sim::Pipe pipe,
                             aicore::DType dt, const void* dst, uint64_t dst_span,
                             const void* src, uint64_t src_span, uint64_t bytes,
                             const aicore::sim::Stride& dst_stride,
                             const aicore::sim::Stride& src_stride, const SrcLoc& loc) {
  aicore::sim::Instr in;
  in.kind = aicore::sim::InstrKind::kCopy;
  in.pipe = pipe;
  in.api = api;
  in.dtype = dt;
  in.dst = core.Locate(dst, dst_span);
  in.src[0] = core.Locate(src, src_span);
  in.src_count = 1;
  in.dst_stride = dst_stride;
  in.src_stride[0] = src_stride;
  in.elements = bytes / std::max<size_t>(1, aicore::DTypeSize(dt));
  in.loc = loc;
  return in;
}

namespace {

std::mutex g_atomic_mu;  // GM accumulation from all cores is serialised, as one L2 would

template <typename T>
void Accumulate(T* dst, const T* src, uint64_t n, int mode) {
  for (uint64_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(dst[i]);
    const float b = static_cast<float>(src[i]);
    if constexpr (std::is_integral_v<T>) {
      if (mode == 1) dst[i] = static_cast<T>(dst[i] + src[i]);
      else if (mode == 2) dst[i] = std::max(dst[i], src[i]);
      else dst[i] = std::min(dst[i], src[i]);
    } else {
      dst[i] = static_cast<T>(mode == 1 ? a + b : (mode == 2 ? std::max(a, b) : std::min(a, b)));
    }
  }
}

}  // namespace

void AtomicCopyBlocks(aicore::sim::Core& core, uint8_t* dst, uint64_t dst_pitch,
                      const uint8_t* src, uint64_t src_pitch, uint32_t count, uint64_t len,
                      aicore::DType dt) {
  if (core.atomic_mode == 0) {
    CopyBlocks(dst, dst_pitch, src, src_pitch, count, len);
    return;
  }
  std::lock_guard<std::mutex> lock(g_atomic_mu);
  for (uint32_t b = 0; b < count; ++b) {
    uint8_t* d = dst + b * dst_pitch;
    const uint8_t* s = src + b * src_pitch;
    switch (dt) {
      case aicore::DType::kF32:
        Accumulate(reinterpret_cast<float*>(d), reinterpret_cast<const float*>(s), len / 4, core.atomic_mode);
        break;
      case aicore::DType::kF16:
        Accumulate(reinterpret_cast<aicore::half*>(d), reinterpret_cast<const aicore::half*>(s), len / 2, core.atomic_mode);
        break;
      case aicore::DType::kBF16:
        Accumulate(reinterpret_cast<aicore::bfloat16*>(d), reinterpret_cast<const aicore::bfloat16*>(s), len / 2, core.atomic_mode);
        break;
      case aicore::DType::kI32:
        Accumulate(reinterpret_cast<int32_t*>(d), reinterpret_cast<const int32_t*>(s), len / 4, core.atomic_mode);
        break;
      case aicore::DType::kI16:
        Accumulate(reinterpret_cast<int16_t*>(d), reinterpret_cast<const int16_t*>(s), len / 2, core.atomic_mode);
        break;
      case aicore::DType::kI8:
        Accumulate(reinterpret_cast<int8_t*>(d), reinterpret_cast<const int8_t*>(s), len, core.atomic_mode);
        break;
      default:
        Fail(aicore::StatusCode::kInvalidArgument, "DataCopy", std::source_location::current(),
                   "atomic accumulation is not defined for ", aicore::DTypeName(dt));
    }
  }
}

}  // namespace AscendC::detail
