// Scalar references for the reduction APIs: plain loops over float copies of the inputs, with
// the strided level-0 addressing spelled out element by element.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace aicore::ref {

struct Extreme {
  float value = 0.0f;
  uint32_t index = 0;
};

// The first maximum (is_max) or minimum of x[0, n).
inline Extreme FirstExtreme(const std::vector<float>& x, size_t n, bool is_max) {
  Extreme r{x[0], 0};
  for (size_t i = 1; i < n; ++i) {
    if (is_max ? x[i] > r.value : x[i] < r.value) r = {x[i], static_cast<uint32_t>(i)};
  }
  return r;
}

inline double Sum(const std::vector<float>& x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

inline double AbsSum(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += std::fabs(v);
  return s;
}

// A level-0 source: element e of repeat r of `esize`-byte elements lives at element offset
// ((r * rep + (e * esize / 32) * blk) * 32 + (e * esize) % 32) / esize.
inline size_t Level0Index(uint32_t r, uint32_t e, uint32_t esize, uint32_t blk, uint32_t rep) {
  const size_t byte = (size_t{r} * rep + size_t{e} * esize / 32 * blk) * 32 + (e * esize) % 32;
  return byte / esize;
}

// Bit e of a two-word mask.
inline bool MaskBit(const uint64_t mask[2], uint32_t e) { return (mask[e / 64] >> (e % 64)) & 1; }

// Per repeat of a level-0 source: the active values in order and their positions in the repeat.
struct RepeatValues {
  std::vector<float> values;
  std::vector<uint32_t> positions;
};
inline std::vector<RepeatValues> Level0Values(const std::vector<float>& src, uint32_t esize,
                                              const uint64_t mask[2], uint32_t repeats,
                                              uint32_t blk, uint32_t rep) {
  const uint32_t per = 256 / esize;
  std::vector<RepeatValues> out(repeats);
  for (uint32_t r = 0; r < repeats; ++r) {
    for (uint32_t e = 0; e < per; ++e) {
      if (!MaskBit(mask, e)) continue;
      out[r].values.push_back(src[Level0Index(r, e, esize, blk, rep)]);
      out[r].positions.push_back(e);
    }
  }
  return out;
}

}  // namespace aicore::ref
