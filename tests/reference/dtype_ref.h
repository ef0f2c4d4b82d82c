// Scalar references for half and bfloat16 rounding: the nearest representable value found by
// search over the format's finite values, ties to the even encoding. Slow and obviously correct.
#pragma once

#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>

namespace aicore::ref {

// Returns the exact value of binary16 bits `h` as a double.
inline double HalfValue(uint16_t h) {
  const int sign = (h >> 15) ? -1 : 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? std::numeric_limits<double>::quiet_NaN()
                               : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

// Returns the binary16 bits nearest to `f` (ties to even); values at or above the midpoint between
// the largest finite half (65504) and 65536 become infinity.
inline uint16_t FloatToHalfRef(float f) {
  if (std::isnan(f)) return 0x7e00;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;
  // Binary search the largest positive finite encoding whose value is <= a.
  uint16_t lo = 0, hi = 0x7bff;
  while (lo < hi) {
    uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (HalfValue(mid) <= a) lo = mid; else hi = static_cast<uint16_t>(mid - 1);
  }
  uint16_t best = lo;
  if (HalfValue(lo) != a) {
    const uint16_t up = static_cast<uint16_t>(lo + 1);
    const double dl = a - HalfValue(lo), du = HalfValue(up) - a;
    if (du < dl || (du == dl && (up & 1) == 0)) best = up;
  }
  return sign | best;
}

// Returns the bfloat16 bits nearest to `f` (ties to even), computed in double.
inline uint16_t FloatToBfloat16Ref(float f) {
  if (std::isnan(f)) return 0x7fc0;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint32_t down = bits & 0xffff0000u;
  const uint32_t up = down + 0x10000u;
  float fd, fu;
  std::memcpy(&fd, &down, 4);
  std::memcpy(&fu, &up, 4);
  // Past the largest finite value the next encoding is infinity; it rounds as if it were 2^128.
  const double vu = std::isinf(fu) ? std::copysign(std::ldexp(1.0, 128), double(f)) : double(fu);
  const double dd = std::fabs(double(f) - double(fd)), du = std::fabs(vu - double(f));
  if (du < dd || (du == dd && ((up >> 16) & 1) == 0)) return static_cast<uint16_t>(up >> 16);
  return static_cast<uint16_t>(down >> 16);
}

}  // namespace aicore::ref
