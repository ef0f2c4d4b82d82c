// Scalar references for the vector APIs: per-element semantics of every engine op, Cast with each
// RoundMode, Compare/Select, and the level-0 addressing (masks, counter mode, block and repeat
// strides). Plain loops on double, written from the documented semantics, for tests to compare
// against.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "aicore/core/dtype.h"
#include "aicore/kernel/vector/engine.h"

namespace aicore::ref {

using kernel::engine::VecOp;

// ---- element values ----

template <typename T>
constexpr bool kIsFloat =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float>;

template <typename T>
double ToD(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// Rounds `d` to T to nearest even. For + - * / sqrt of T inputs, rounding the double result
// first to float and then to a 16-bit type gives the correctly rounded result (each step keeps
// at least 2p+2 bits).
template <typename T>
T FromD(double d) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(d);
  } else {
    return T(static_cast<float>(d));
  }
}

// Wraps an exact integer result to T (two's complement).
template <typename T>
T Wrap(int64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<uint64_t>(v)));
}

template <typename T>
uint64_t BitsOf(T v) {
  if constexpr (sizeof(T) == 2)
    return std::bit_cast<uint16_t>(v);
  else if constexpr (sizeof(T) == 4)
    return std::bit_cast<uint32_t>(v);
  else if constexpr (sizeof(T) == 1)
    return std::bit_cast<uint8_t>(v);
  else
    return std::bit_cast<uint64_t>(v);
}

template <typename T>
bool IsNan(T v) {
  if constexpr (kIsFloat<T>)
    return ToD(v) != ToD(v);
  else
    return false;
}

// Returns the distance in units in the last place between two floating values of T (0 when
// both are NaN; a large number when exactly one is).
template <typename T>
int64_t UlpDiff(T a, T b) {
  if (IsNan(a) || IsNan(b)) return IsNan(a) && IsNan(b) ? 0 : std::numeric_limits<int64_t>::max();
  constexpr int kBits = sizeof(T) * 8;
  auto ordered = [](uint64_t bits) {
    const uint64_t sign = uint64_t{1} << (kBits - 1);
    const int64_t mag = static_cast<int64_t>(bits & (sign - 1));
    return (bits & sign) ? -mag : mag;
  };
  const int64_t d = ordered(BitsOf(a)) - ordered(BitsOf(b));
  return d < 0 ? -d : d;
}

// True when a and b are the same value bit for bit, or both NaN.
template <typename T>
bool SameValue(T a, T b) {
  if (IsNan(a) || IsNan(b)) return IsNan(a) && IsNan(b);
  return BitsOf(a) == BitsOf(b);
}

// ---- element-wise ops ----

// Returns op(a, b) for binary ops, op(a, s) for tensor-scalar ops, op(a) for unary ops, s for
// Duplicate and d + a*s for Axpy (d is the old dst value).
template <typename T>
T Apply(VecOp op, T a, T b, T s, T d = T{}) {
  if constexpr (kIsFloat<T>) {
    const double x = ToD(a), y = ToD(b), c = ToD(s);
    const T zero = FromD<T>(0.0);
    switch (op) {
      case VecOp::kAdd:
        return FromD<T>(x + y);
      case VecOp::kSub:
        return FromD<T>(x - y);
      case VecOp::kMul:
        return FromD<T>(x * y);
      case VecOp::kDiv:
        return FromD<T>(x / y);
      case VecOp::kMax:
        return x > y ? a : b;
      case VecOp::kMin:
        return x < y ? a : b;
      case VecOp::kAddRelu: {
        T r = FromD<T>(x + y);
        return ToD(r) > 0 ? r : zero;
      }
      case VecOp::kSubRelu: {
        T r = FromD<T>(x - y);
        return ToD(r) > 0 ? r : zero;
      }
      case VecOp::kAdds:
        return FromD<T>(x + c);
      case VecOp::kMuls:
        return FromD<T>(x * c);
      case VecOp::kMaxs:
        return x > c ? a : s;
      case VecOp::kMins:
        return x < c ? a : s;
      case VecOp::kSubs:
        return FromD<T>(x - c);
      case VecOp::kDivs:
        return FromD<T>(x / c);
      case VecOp::kLeakyRelu:
        return x >= 0 ? a : FromD<T>(x * c);
      case VecOp::kExp:
        return FromD<T>(std::exp(x));
      case VecOp::kLn:
        return FromD<T>(std::log(x));
      case VecOp::kAbs:
        return FromD<T>(std::fabs(x));
      case VecOp::kSqrt:
        return FromD<T>(std::sqrt(x));
      case VecOp::kRsqrt:
        return FromD<T>(1.0 / std::sqrt(x));
      case VecOp::kReciprocal:
        return FromD<T>(1.0 / x);
      case VecOp::kRelu:
        return x > 0 ? a : zero;
      case VecOp::kNeg:
        return FromD<T>(-x);
      case VecOp::kCopy:
        return a;
      case VecOp::kDuplicate:
        return s;
      // Axpy multiplies and adds in float, rounding each step, then rounds to T.
      case VecOp::kAxpy: {
        const float prod = static_cast<float>(x * c);
        return FromD<T>(static_cast<float>(ToD(d) + static_cast<double>(prod)));
      }
      default:
        return zero;
    }
  } else {
    const int64_t x = a, y = b, c = s;
    constexpr int kBits = sizeof(T) * 8;
    switch (op) {
      case VecOp::kAdd:
        return Wrap<T>(x + y);
      case VecOp::kSub:
        return Wrap<T>(x - y);
      case VecOp::kMul:
        return Wrap<T>(static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)));
      case VecOp::kDiv:
        return y == 0 ? T(0) : Wrap<T>(x / y);
      case VecOp::kMax:
        return x > y ? a : b;
      case VecOp::kMin:
        return x < y ? a : b;
      case VecOp::kAnd:
        return static_cast<T>(a & b);
      case VecOp::kOr:
        return static_cast<T>(a | b);
      case VecOp::kAddRelu: {
        T r = Wrap<T>(x + y);
        return r > 0 ? r : T(0);
      }
      case VecOp::kSubRelu: {
        T r = Wrap<T>(x - y);
        return r > 0 ? r : T(0);
      }
      case VecOp::kAdds:
        return Wrap<T>(x + c);
      case VecOp::kMuls:
        return Wrap<T>(static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(c)));
      case VecOp::kMaxs:
        return x > c ? a : s;
      case VecOp::kMins:
        return x < c ? a : s;
      case VecOp::kSubs:
        return Wrap<T>(x - c);
      case VecOp::kDivs:
        return c == 0 ? T(0) : Wrap<T>(x / c);
      // Shift counts in [0, bits): left shifts drop high bits; right shifts are arithmetic for
      // signed types (floor division by 2^c) and logical for unsigned ones.
      case VecOp::kShiftLeft:
        return Wrap<T>(static_cast<int64_t>(static_cast<uint64_t>(x) << c));
      case VecOp::kShiftRight: {
        if (c >= kBits) return T(0);
        if constexpr (std::is_signed_v<T>) {
          const int64_t p = int64_t{1} << c;
          return static_cast<T>(x >= 0 ? x / p : -((-x + p - 1) / p));
        } else {
          return static_cast<T>(static_cast<uint64_t>(x) >> c);
        }
      }
      case VecOp::kAbs:
        return Wrap<T>(x < 0 ? -x : x);
      case VecOp::kRelu:
        return x > 0 ? a : T(0);
      case VecOp::kNot:
        return static_cast<T>(~a);
      case VecOp::kNeg:
        return Wrap<T>(-x);
      case VecOp::kCopy:
        return a;
      case VecOp::kDuplicate:
        return s;
      case VecOp::kAxpy:
        return Wrap<T>(static_cast<int64_t>(static_cast<uint64_t>(int64_t{d}) +
                                            static_cast<uint64_t>(x) * static_cast<uint64_t>(c)));
      default:
        return T(0);
    }
  }
}

// The largest error the engine may have for `op` on T, in ulps of T (0: correctly rounded).
template <typename T>
int64_t UlpBound(VecOp op) {
  if constexpr (!kIsFloat<T>) {
    return 0;
  } else {
    switch (op) {
      case VecOp::kExp:
      case VecOp::kLn:
        return std::is_same_v<T, float> ? 2 : 1;
      case VecOp::kRsqrt:
        return 1;
      default:
        return 0;
    }
  }
}

// ---- level-0 addressing ----

// One operand of a level-0 call: element size and strides in 32-byte blocks.
struct Level0Operand {
  uint32_t esize = 2;
  uint32_t blk_stride = 1;
  uint32_t rep_stride = 8;
};

// Byte offset of element e of repeat r: (r*repStride + floor(e*es/32)*blkStride)*32 + e*es % 32.
inline uint64_t Level0Offset(const Level0Operand& op, uint64_t r, uint64_t e) {
  const uint64_t byte = e * op.esize;
  return (r * op.rep_stride + byte / 32 * op.blk_stride) * 32 + byte % 32;
}

// Which elements run: a 128-bit mask in normal mode (only the low 64 bits count for 32-bit
// types), or a total element count in counter mode.
struct Level0Mask {
  bool counter = false;
  uint64_t lo = ~0ull, hi = ~0ull;
  uint64_t count = 0;
};
inline Level0Mask BitMask(uint64_t hi, uint64_t lo) { return {false, lo, hi, 0}; }
// The first `len` elements of each repeat.
inline Level0Mask ContinuousMask(uint32_t len) {
  Level0Mask m;
  m.lo = len >= 64 ? ~0ull : (uint64_t{1} << len) - 1;
  m.hi = len <= 64 ? 0 : (len >= 128 ? ~0ull : (uint64_t{1} << (len - 64)) - 1);
  return m;
}
inline Level0Mask CounterMask(uint64_t count) { return {true, 0, 0, count}; }

// Number of repeats that run: `repeat` in normal mode, ceil(count / per_repeat) in counter mode.
inline uint32_t Level0Repeats(const Level0Mask& m, uint32_t per_repeat, uint32_t repeat) {
  return m.counter ? static_cast<uint32_t>((m.count + per_repeat - 1) / per_repeat) : repeat;
}

inline bool Level0Active(const Level0Mask& m, uint32_t per_repeat, uint32_t r, uint32_t e) {
  if (m.counter) return uint64_t{r} * per_repeat + e < m.count;
  if (e >= per_repeat) return false;
  return e < 64 ? ((m.lo >> e) & 1) != 0 : (per_repeat > 64 && ((m.hi >> (e - 64)) & 1) != 0);
}

// Calls fn(r, e) for every active element in execution order.
template <typename Fn>
void Level0ForEach(const Level0Mask& m, uint32_t per_repeat, uint32_t repeat, Fn&& fn) {
  const uint32_t reps = Level0Repeats(m, per_repeat, repeat);
  for (uint32_t r = 0; r < reps; ++r) {
    for (uint32_t e = 0; e < per_repeat; ++e) {
      if (Level0Active(m, per_repeat, r, e)) fn(r, e);
    }
  }
}

// Bytes an operand must hold for the call (one past the farthest element touched).
inline uint64_t Level0Extent(const Level0Operand& op, const Level0Mask& m, uint32_t per_repeat,
                             uint32_t repeat) {
  uint64_t end = 0;
  Level0ForEach(m, per_repeat, repeat, [&](uint32_t r, uint32_t e) {
    end = std::max(end, Level0Offset(op, r, e) + op.esize);
  });
  return end;
}

// ---- Cast ----

// Rounding modes in AscendC::RoundMode order.
enum class Rm { kNone, kRint, kFloor, kCeil, kRound, kTrunc, kOdd };

namespace internal {

// All non-NaN values of a 16-bit float type in increasing order, with their bits.
template <typename T>
const std::vector<std::pair<double, uint16_t>>& SortedValues() {
  static const std::vector<std::pair<double, uint16_t>> values = [] {
    std::vector<std::pair<double, uint16_t>> v;
    for (uint32_t b = 0; b < 65536; ++b) {
      const double d = ToD(T::FromBits(static_cast<uint16_t>(b)));
      if (d == d && !(d == 0 && (b & 0x8000u))) v.push_back({d, static_cast<uint16_t>(b)});
    }
    std::sort(v.begin(), v.end());
    return v;
  }();
  return values;
}

// Picks lo or hi (lo < x < hi, given as values with bits) by mode. `overflow` replaces an
// infinite neighbour's value when measuring distance.
inline int PickNeighbour(double x, double lo, uint64_t lo_bits, double hi, uint64_t hi_bits,
                         Rm mode, double overflow) {
  auto finite = [&](double v) { return std::isinf(v) ? std::copysign(overflow, v) : v; };
  const double dl = x - finite(lo), dh = finite(hi) - x;
  switch (mode) {
    case Rm::kFloor:
      return 0;
    case Rm::kCeil:
      return 1;
    case Rm::kTrunc:
      return x > 0 ? 0 : 1;
    case Rm::kOdd:
      return (lo_bits & 1) ? 0 : 1;
    case Rm::kRound:
      return dl < dh ? 0 : (dh < dl ? 1 : (x > 0 ? 1 : 0));
    default:  // nearest, ties to the even bit pattern (infinity counts as even)
      return dl < dh ? 0 : (dh < dl ? 1 : ((lo_bits & 1) ? 1 : 0));
  }
  (void)hi_bits;
}

}  // namespace internal

// Rounds the exact value x to the 16-bit float type T by mode.
template <typename T>
T RoundTo16(double x, Rm mode) {
  if (x != x) return T(std::numeric_limits<float>::quiet_NaN());
  const auto& v = internal::SortedValues<T>();
  auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(x, uint16_t{0}));
  if (it != v.end() && it->first == x) {
    if (x == 0 && std::signbit(x)) return T::FromBits(static_cast<uint16_t>(it->second | 0x8000u));
    return T::FromBits(it->second);
  }
  // x lies strictly between two values (the table ends with +-inf, so both exist).
  const auto hi = *it;
  const auto lo = *(it - 1);
  const double overflow = std::is_same_v<T, half> ? 65536.0 : std::ldexp(1.0, 128);
  const int pick =
      internal::PickNeighbour(x, lo.first, lo.second, hi.first, hi.second, mode, overflow);
  uint16_t bits = pick == 0 ? lo.second : hi.second;
  // A result of zero keeps the sign of x.
  if ((bits & 0x7fffu) == 0 && x < 0) bits = 0x8000u;
  return T::FromBits(bits);
}

// Rounds the exact value x (an integer below 2^31 in magnitude, or a float) to float by mode.
inline float RoundToFloat(double x, Rm mode) {
  if (x != x || std::isinf(x)) return static_cast<float>(x);
  // Find the two floats around x with integer arithmetic on the scaled significand.
  int exp = 0;
  const double m = std::frexp(std::fabs(x), &exp);  // |x| = m * 2^exp, m in [0.5, 1)
  const double scaled = std::ldexp(m, 24);          // 24 significant bits
  const double low_mag = std::ldexp(std::floor(scaled), exp - 24);
  if (low_mag == std::fabs(x)) return static_cast<float>(x);
  const double high_mag = std::ldexp(std::floor(scaled) + 1, exp - 24);
  const double lo = x > 0 ? low_mag : -high_mag;
  const double hi = x > 0 ? high_mag : -low_mag;
  const uint64_t lo_bits = std::bit_cast<uint32_t>(static_cast<float>(lo));
  const uint64_t hi_bits = std::bit_cast<uint32_t>(static_cast<float>(hi));
  const int pick = internal::PickNeighbour(x, lo, lo_bits, hi, hi_bits, mode, std::ldexp(1.0, 128));
  return static_cast<float>(pick == 0 ? lo : hi);
}

// Rounds x to an integral value by mode (kNone and kOdd as nearest-even).
inline double RoundIntegral(double x, Rm mode) {
  const double f = std::floor(x);
  const double frac = x - f;
  switch (mode) {
    case Rm::kFloor:
      return f;
    case Rm::kCeil:
      return frac > 0 ? f + 1 : f;
    case Rm::kTrunc:
      return x < 0 && frac > 0 ? f + 1 : f;
    case Rm::kRound:
      if (frac == 0.5) return x > 0 ? f + 1 : f;
      return frac > 0.5 ? f + 1 : f;
    default:
      if (frac == 0.5) return std::fmod(f, 2.0) == 0 ? f : f + 1;
      return frac > 0.5 ? f + 1 : f;
  }
}

// Converts one element as Cast(dst<D>, src<S>, mode) documents: integer destinations saturate
// (NaN -> 0); float -> float rounds to an integral value (kNone copies).
template <typename D, typename S>
D CastOne(S v, Rm mode) {
  const double x = ToD(v);
  if constexpr (std::is_integral_v<D>) {
    if (x != x) return D(0);
    const double r = std::is_integral_v<S> ? x : RoundIntegral(x, mode);
    if (r <= static_cast<double>(std::numeric_limits<D>::min()))
      return std::numeric_limits<D>::min();
    if (r >= static_cast<double>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    return static_cast<D>(r);
  } else if constexpr (std::is_same_v<D, float>) {
    if constexpr (std::is_same_v<S, float>) {
      if (mode == Rm::kNone || x != x || std::isinf(x)) return v;
      const double r = RoundIntegral(x, mode);
      return static_cast<float>(r == 0 ? std::copysign(0.0, x) : r);
    } else {
      return RoundToFloat(x, mode);
    }
  } else {
    return RoundTo16<D>(x, mode);
  }
}

// ---- Compare / Select ----

// Returns a (mode) b with mode in AscendC::CMPMODE order: LT, GT, EQ, LE, GE, NE.
template <typename T>
bool CompareOne(T a, T b, int mode) {
  const double x = ToD(a), y = ToD(b);
  switch (mode) {
    case 0:
      return x < y;
    case 1:
      return x > y;
    case 2:
      return x == y;
    case 3:
      return x <= y;
    case 4:
      return x >= y;
    default:
      return x != y;
  }
}

// Bit i of a bit array stored LSB first in bytes.
inline bool BitAt(const uint8_t* bits, uint64_t i) { return (bits[i / 8] >> (i % 8)) & 1u; }

}  // namespace aicore::ref
