// Scalar references for DataCopyPad, byte by byte from the layout in data_copy_pad.h's
// Note [DataCopyPad layout].
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace aicore::ref {

inline uint64_t RoundUp32(uint64_t x) { return (x + 31) / 32 * 32; }

// GM -> UB into a copy of `ub` (elements of T). `gm` holds the whole source.
template <typename T>
std::vector<T> PadGmToUb(std::vector<T> ub, const std::vector<T>& gm, uint32_t count,
                         uint32_t len_bytes, uint32_t src_gap_bytes, uint32_t dst_gap_blocks,
                         bool is_pad, uint32_t left, uint32_t right, T pad) {
  const uint64_t row = RoundUp32(left * sizeof(T) + len_bytes + right * sizeof(T));
  const uint64_t n = len_bytes / sizeof(T);
  for (uint32_t b = 0; b < count; ++b) {
    const uint64_t ub0 = b * (row + dst_gap_blocks * 32ull) / sizeof(T);
    const uint64_t gm0 = b * uint64_t{len_bytes + src_gap_bytes} / sizeof(T);
    const T fill = is_pad ? pad : gm[gm0];
    for (uint64_t e = 0; e < row / sizeof(T); ++e) {
      const bool data = e >= left && e < left + n;
      ub[ub0 + e] = data ? gm[gm0 + e - left] : fill;
    }
  }
  return ub;
}

// UB -> GM into a copy of `gm`.
template <typename T>
std::vector<T> PadUbToGm(std::vector<T> gm, const std::vector<T>& ub, uint32_t count,
                         uint32_t len_bytes, uint32_t src_gap_blocks, uint32_t dst_gap_bytes) {
  const uint64_t n = len_bytes / sizeof(T);
  for (uint32_t b = 0; b < count; ++b) {
    const uint64_t ub0 = b * (RoundUp32(len_bytes) + src_gap_blocks * 32ull) / sizeof(T);
    const uint64_t gm0 = b * uint64_t{len_bytes + dst_gap_bytes} / sizeof(T);
    for (uint64_t e = 0; e < n; ++e) gm[gm0 + e] = ub[ub0 + e];
  }
  return gm;
}

}  // namespace aicore::ref
