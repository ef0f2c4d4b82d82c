// Scalar reference for Fixpipe (L0C -> GM/L1): element by element from the layouts and the
// quantisation bit map written down in aicore/kernel/cube/fixpipe.h (Note [Fixpipe layouts],
// Note [Fixpipe quantisation]).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace aicore::ref {

// Quantisation modes in QuantMode_t order.
enum class RefQuant {
  kNoQuant,
  kF322F16,
  kF322BF16,
  kDeqF16,
  kVDeqF16,
  kQF322B8,
  kVQF322B8,
  kReq8,
  kVReq8
};

struct FixpipeRefParams {
  uint32_t n_size = 0, m_size = 0, src_stride = 0, dst_stride = 0;
  RefQuant quant = RefQuant::kNoQuant;
  uint64_t deq_scalar = 0;
  uint32_t nd_num = 1, src_nd_stride = 0, dst_nd_stride = 0;
  bool relu = false;
  bool nz2nd = true;
  bool channel_split = false;
};

// Converts one L0C value with parameter word `q` (ignored by the casts).
template <typename D, typename S>
D FixpipeElemRef(S x, RefQuant mode, uint64_t q, bool relu) {
  if (mode == RefQuant::kNoQuant || mode == RefQuant::kF322F16 || mode == RefQuant::kF322BF16) {
    if (relu && x < S{0}) x = S{0};
    return static_cast<D>(x);
  }
  uint32_t scale_bits = static_cast<uint32_t>(q & 0xFFFFFFFFu);
  scale_bits &= ~uint32_t{0x1FFF};  // 10 mantissa bits survive
  float scale;
  std::memcpy(&scale, &scale_bits, 4);
  const int n = static_cast<int>((q >> 32) & 15) + 1;
  const bool mcb = (q >> 36) & 1;
  int offset = static_cast<int>((q >> 37) & 511);
  if (offset >= 256) offset -= 512;
  const bool is_signed = (q >> 46) & 1;
  float v;
  if constexpr (std::is_integral_v<S>) {
    if (mcb) {
      int32_t shifted = x >> n;
      shifted = std::max<int32_t>(-32768, std::min<int32_t>(32767, shifted));
      v = static_cast<float>(shifted);
    } else {
      v = static_cast<float>(x);
    }
  } else {
    v = x;
  }
  const float m = v >= 0 ? scale : (relu ? 0.0f : scale);
  if (mode == RefQuant::kDeqF16 || mode == RefQuant::kVDeqF16) return static_cast<D>(v * m);
  float y = std::nearbyint(v * m + static_cast<float>(offset));
  if (std::isnan(y)) y = 0;
  if (is_signed) return static_cast<D>(static_cast<int8_t>(std::clamp(y, -128.0f, 127.0f)));
  return static_cast<D>(static_cast<uint8_t>(std::clamp(y, 0.0f, 255.0f)));
}

// Applies a Fixpipe to a copy of `dst` (elements of D) from `l0c` (elements of S) and returns
// it. `quant` holds one word per column for the V* modes.
template <typename D, typename S>
std::vector<D> FixpipeRef(std::vector<D> dst, const std::vector<S>& l0c, const FixpipeRefParams& p,
                          const std::vector<uint64_t>& quant = {}) {
  const bool vector_mode = p.quant == RefQuant::kVDeqF16 || p.quant == RefQuant::kVQF322B8 ||
                           p.quant == RefQuant::kVReq8;
  const uint32_t nd = p.nz2nd ? p.nd_num : 1;
  for (uint32_t i = 0; i < nd; ++i) {
    for (uint32_t m = 0; m < p.m_size; ++m) {
      for (uint32_t n = 0; n < p.n_size; ++n) {
        const size_t s = size_t{i} * p.src_nd_stride * 256 + size_t{n / 16} * p.src_stride * 16 +
                         size_t{m} * 16 + n % 16;
        const D y =
            FixpipeElemRef<D, S>(l0c[s], p.quant, vector_mode ? quant[n] : p.deq_scalar, p.relu);
        size_t d;
        if (p.nz2nd) {
          d = size_t{i} * p.dst_nd_stride + size_t{m} * p.dst_stride + n;
        } else {
          const size_t c0 = sizeof(D) == 4 ? (p.channel_split ? 8 : 16) : 32 / sizeof(D);
          d = (size_t{n / c0} * p.dst_stride * 32) / sizeof(D) + size_t{m} * c0 + n % c0;
        }
        dst[d] = y;
      }
    }
  }
  return dst;
}

}  // namespace aicore::ref
