// Scalar references for data-placement vector APIs: Gather, CreateVecIndex and Brcb.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace aicore::ref {

// dst[i] = src[(base + offsets[i]) / sizeof(T)].
template <typename T>
std::vector<T> Gather(const std::vector<T>& src, const std::vector<uint32_t>& offsets,
                      uint32_t base, size_t count) {
  std::vector<T> dst(count);
  for (size_t i = 0; i < count; ++i) dst[i] = src[(base + offsets[i]) / sizeof(T)];
  return dst;
}

// dst[i] = first + i, in double, rounded once to T.
template <typename T>
std::vector<T> VecIndex(double first, size_t count) {
  std::vector<T> dst(count);
  for (size_t i = 0; i < count; ++i) dst[i] = static_cast<T>(static_cast<float>(first + i));
  return dst;
}

// Brcb into a copy of `dst`: DataBlock (r * rep + j * blk) filled with src[8r + j].
template <typename T>
std::vector<T> Brcb(std::vector<T> dst, const std::vector<T>& src, uint32_t repeats, uint32_t blk,
                    uint32_t rep) {
  const size_t per_block = 32 / sizeof(T);
  for (uint32_t r = 0; r < repeats; ++r) {
    for (uint32_t j = 0; j < 8; ++j) {
      const size_t block = size_t{r} * rep + size_t{j} * blk;
      for (size_t e = 0; e < per_block; ++e) dst[block * per_block + e] = src[8 * r + j];
    }
  }
  return dst;
}

}  // namespace aicore::ref
