// Per-ISA element-wise loops, compiled once per instruction set by aicore_add_isa_sources with
// AICORE_ISA_NAMESPACE naming the variant; engine.cc picks one at run time. The loops are plain
// C++ that the compiler vectorizes for the variant's target; half and bfloat16 are widened to
// float in chunks that stay in L1, computed, and narrowed with round-to-nearest-even.
//
// Exp: x = n*ln2 + r with |r| <= ln2/2; e^r by its Taylor series to degree 7 (truncation error
// below 6e-9 relative), scaled by 2^n through the exponent bits.
// Ln: x = m*2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2*atanh(s), s = (m-1)/(m+1), |s| <= 0.172,
// by its odd series to s^9 (error below 4e-10).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aicore/core/dtype.h"
#include "aicore/kernel/vector/engine.h"

#if AICORE_ISA >= 1
#include <immintrin.h>
#endif

namespace aicore::kernel::engine::AICORE_ISA_NAMESPACE {

namespace {

constexpr size_t kChunk = 512;  // elements widened at a time for half/bfloat16 (2 KiB of float)

inline float ExpF(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693145751953125f;
  const float kLn2Lo = 1.42860682030941723212e-6f;
  const float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  float xc = x < -87.5f ? -87.5f : (x > 88.75f ? 88.75f : x);
  float t = xc * kLog2e + kRound;
  float n = t - kRound;
  float r = xc - n * kLn2Hi - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n split in two factors so n = 128 (x near 88.7) and n = -126 stay representable.
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni >> 1;
  int32_t n2 = ni - n1;
  float s1 = std::bit_cast<float>((n1 + 127) << 23);
  float s2 = std::bit_cast<float>((n2 + 127) << 23);
  float y = p * s1 * s2;
  y = x > 88.7228394f ? std::numeric_limits<float>::infinity() : y;
  y = x < -103.972f ? 0.0f : y;
  return x != x ? x : y;
}

inline float LnF(float x) {
  uint32_t bits = std::bit_cast<uint32_t>(x);
  // Scale subnormals into the normal range first.
  const bool sub = x < 1.17549435e-38f;
  float xs = sub ? x * 16777216.0f : x;
  bits = std::bit_cast<uint32_t>(xs);
  int32_t e = static_cast<int32_t>((bits >> 23) & 0xff) - 127;
  float m = std::bit_cast<float>((bits & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e = big ? e + 1 : e;
  float ef = static_cast<float>(e) - (sub ? 24.0f : 0.0f);
  float s = (m - 1.0f) / (m + 1.0f);
  float s2 = s * s;
  float q = 1.0f / 9.0f;
  q = q * s2 + 1.0f / 7.0f;
  q = q * s2 + 1.0f / 5.0f;
  q = q * s2 + 1.0f / 3.0f;
  q = q * s2 + 1.0f;
  float y = ef * 0.693147180559945309f + 2.0f * s * q;
  y = x == 0.0f ? -std::numeric_limits<float>::infinity() : y;
  y = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : y;
  y = x == std::numeric_limits<float>::infinity() ? x : y;
  return x != x ? x : y;
}

// Float semantics of each op; integer semantics below.
inline float ApplyF(VecOp op, float a, float b, float s, float d) {
  switch (op) {
    case VecOp::kAdd: return a + b;
    case VecOp::kSub: return a - b;
    case VecOp::kMul: return a * b;
    case VecOp::kDiv: return a / b;
    case VecOp::kMax: return a > b ? a : b;
    case VecOp::kMin: return a < b ? a : b;
    case VecOp::kAddRelu: { float r = a + b; return r > 0.0f ? r : 0.0f; }
    case VecOp::kSubRelu: { float r = a - b; return r > 0.0f ? r : 0.0f; }
    case VecOp::kAdds: return a + s;
    case VecOp::kMuls: return a * s;
    case VecOp::kMaxs: return a > s ? a : s;
    case VecOp::kMins: return a < s ? a : s;
    case VecOp::kSubs: return a - s;
    case VecOp::kDivs: return a / s;
    case VecOp::kLeakyRelu: return a >= 0.0f ? a : a * s;
    case VecOp::kExp: return ExpF(a);
    case VecOp::kLn: return LnF(a);
    case VecOp::kAbs: return std::fabs(a);
    case VecOp::kSqrt: return std::sqrt(a);
    case VecOp::kRsqrt: return 1.0f / std::sqrt(a);
    case VecOp::kReciprocal: return 1.0f / a;
    case VecOp::kRelu: return a > 0.0f ? a : 0.0f;
    case VecOp::kNeg: return -a;
    case VecOp::kCopy: return a;
    case VecOp::kDuplicate: return s;
    case VecOp::kAxpy: return d + a * s;
    default: return 0.0f;
  }
}

// One loop per op so each vectorizes on its own (a switch inside the loop would not).
template <VecOp op>
void LoopF(float* dst, const float* a, const float* b, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = ApplyF(op, a ? a[i] : 0.0f, b ? b[i] : 0.0f, s, op == VecOp::kAxpy ? dst[i] : 0.0f);
  }
}

// The same loop with every operand present, so the compiler sees no branches on null pointers.
template <VecOp op>
void LoopF3(float* __restrict dst, const float* a, const float* b, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = ApplyF(op, a[i], b[i], s, 0.0f);
}
template <VecOp op>
void LoopF2(float* dst, const float* a, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = ApplyF(op, a[i], 0.0f, s, op == VecOp::kAxpy ? dst[i] : 0.0f);
}
template <VecOp op>
void LoopF0(float* dst, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = ApplyF(op, 0.0f, 0.0f, s, 0.0f);
}

enum class Arity { kBinary, kScalar, kUnary, kFill, kAxpy };

constexpr Arity ArityOf(VecOp op) {
  if (op <= VecOp::kSubRelu) return Arity::kBinary;
  if (op <= VecOp::kShiftRight) return Arity::kScalar;
  if (op <= VecOp::kCopy) return Arity::kUnary;
  if (op == VecOp::kDuplicate) return Arity::kFill;
  return Arity::kAxpy;
}

template <VecOp op>
void RunFloat(float* dst, const float* a, const float* b, float s, size_t n) {
  constexpr Arity ar = ArityOf(op);
  if constexpr (ar == Arity::kBinary) {
    if (dst == a || dst == b) {
      LoopF<op>(dst, a, b, s, n);
    } else {
      LoopF3<op>(dst, a, b, s, n);
    }
  } else if constexpr (ar == Arity::kFill) {
    LoopF0<op>(dst, s, n);
  } else {
    LoopF2<op>(dst, a, s, n);
  }
}

// Widening loads and narrowing stores for 16-bit floats.
inline void Widen(float* dst, const half* src, size_t n) {
#if AICORE_ISA == 2
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = float(src[i]);
#elif AICORE_ISA == 1
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = float(src[i]);
#else
  for (size_t i = 0; i < n; ++i) dst[i] = float(src[i]);
#endif
}
inline void Narrow(half* dst, const float* src, size_t n) {
#if AICORE_ISA == 2
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = half(src[i]);
#elif AICORE_ISA == 1
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = half(src[i]);
#else
  for (size_t i = 0; i < n; ++i) dst[i] = half(src[i]);
#endif
}
inline void Widen(float* dst, const bfloat16* src, size_t n) {
  const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
  uint32_t* d = reinterpret_cast<uint32_t*>(dst);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<uint32_t>(s[i]) << 16;
}
inline void Narrow(bfloat16* dst, const float* src, size_t n) {
  const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
  uint16_t* d = reinterpret_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = s[i];
    uint16_t r = static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
    d[i] = (x & 0x7fffffffu) > 0x7f800000u ? static_cast<uint16_t>((x >> 16) | 0x40u) : r;
  }
}

template <VecOp op, typename T16>
void Run16(T16* dst, const T16* a, const T16* b, float s, size_t n) {
  alignas(64) float fa[kChunk], fb[kChunk], fd[kChunk];
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t m = n - off < kChunk ? n - off : kChunk;
    if (a) Widen(fa, a + off, m);
    if (b) Widen(fb, b + off, m);
    if constexpr (ArityOf(op) == Arity::kAxpy) {
      Widen(fd, dst + off, m);
    }
    RunFloat<op>(fd, a ? fa : nullptr, b ? fb : nullptr, s, m);
    Narrow(dst + off, fd, m);
  }
}

template <typename I>
I ApplyI(VecOp op, I a, I b, int64_t s) {
  using U = std::make_unsigned_t<I>;
  switch (op) {
    case VecOp::kAdd: return static_cast<I>(static_cast<U>(a) + static_cast<U>(b));
    case VecOp::kSub: return static_cast<I>(static_cast<U>(a) - static_cast<U>(b));
    case VecOp::kMul: return static_cast<I>(static_cast<U>(a) * static_cast<U>(b));
    case VecOp::kDiv: return b == 0 ? I(0) : (std::is_signed_v<I> && b == I(-1) ? static_cast<I>(U(0) - static_cast<U>(a)) : static_cast<I>(a / b));
    case VecOp::kMax: return a > b ? a : b;
    case VecOp::kMin: return a < b ? a : b;
    case VecOp::kAnd: return static_cast<I>(a & b);
    case VecOp::kOr: return static_cast<I>(a | b);
    case VecOp::kAddRelu: { I r = static_cast<I>(static_cast<U>(a) + static_cast<U>(b)); return r > 0 ? r : I(0); }
    case VecOp::kSubRelu: { I r = static_cast<I>(static_cast<U>(a) - static_cast<U>(b)); return r > 0 ? r : I(0); }
    case VecOp::kAdds: return static_cast<I>(static_cast<U>(a) + static_cast<U>(static_cast<I>(s)));
    case VecOp::kMuls: return static_cast<I>(static_cast<U>(a) * static_cast<U>(static_cast<I>(s)));
    case VecOp::kSubs: return static_cast<I>(static_cast<U>(a) - static_cast<U>(static_cast<I>(s)));
    case VecOp::kMaxs: return a > static_cast<I>(s) ? a : static_cast<I>(s);
    case VecOp::kMins: return a < static_cast<I>(s) ? a : static_cast<I>(s);
    case VecOp::kDivs: { I d = static_cast<I>(s); return d == 0 ? I(0) : static_cast<I>(a / d); }
    case VecOp::kLeakyRelu: return a >= 0 ? a : static_cast<I>(a * static_cast<I>(s));
    case VecOp::kShiftLeft: return static_cast<I>(static_cast<U>(a) << (s & (sizeof(I) * 8 - 1)));
    case VecOp::kShiftRight: return static_cast<I>(a >> (s & (sizeof(I) * 8 - 1)));
    case VecOp::kAbs: return a < 0 ? static_cast<I>(U(0) - static_cast<U>(a)) : a;
    case VecOp::kRelu: return a > 0 ? a : I(0);
    case VecOp::kNot: return static_cast<I>(~a);
    case VecOp::kNeg: return static_cast<I>(U(0) - static_cast<U>(a));
    case VecOp::kCopy: return a;
    case VecOp::kDuplicate: return static_cast<I>(s);
    default: return I(0);
  }
}

template <VecOp op, typename I>
void RunInt(I* dst, const I* a, const I* b, int64_t s, size_t n) {
  constexpr Arity ar = ArityOf(op);
  if constexpr (ar == Arity::kBinary) {
    for (size_t i = 0; i < n; ++i) dst[i] = ApplyI<I>(op, a[i], b[i], s);
  } else if constexpr (ar == Arity::kFill) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<I>(s);
  } else if constexpr (ar == Arity::kAxpy) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<I>(dst[i] + a[i] * static_cast<I>(s));
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = ApplyI<I>(op, a[i], I(0), s);
  }
}

template <VecOp op>
void RunTyped(DType dt, void* dst, const void* a, const void* b, Scalar s, size_t n) {
  switch (dt) {
    case DType::kF32:
      RunFloat<op>(static_cast<float*>(dst), static_cast<const float*>(a),
                   static_cast<const float*>(b), static_cast<float>(s.f), n);
      return;
    case DType::kF16:
      Run16<op>(static_cast<half*>(dst), static_cast<const half*>(a),
                static_cast<const half*>(b), static_cast<float>(half(static_cast<float>(s.f))), n);
      return;
    case DType::kBF16:
      Run16<op>(static_cast<bfloat16*>(dst), static_cast<const bfloat16*>(a),
                static_cast<const bfloat16*>(b),
                static_cast<float>(bfloat16(static_cast<float>(s.f))), n);
      return;
#define AICORE_INT_CASE(D, T)                                                           \
  case DType::D:                                                                        \
    RunInt<op, T>(static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b), \
                  s.i, n);                                                              \
    return;
      AICORE_INT_CASE(kI8, int8_t)
      AICORE_INT_CASE(kU8, uint8_t)
      AICORE_INT_CASE(kI16, int16_t)
      AICORE_INT_CASE(kU16, uint16_t)
      AICORE_INT_CASE(kI32, int32_t)
      AICORE_INT_CASE(kU32, uint32_t)
      AICORE_INT_CASE(kI64, int64_t)
      AICORE_INT_CASE(kU64, uint64_t)
#undef AICORE_INT_CASE
    default:
      return;
  }
}

}  // namespace

void Elementwise(VecOp op, DType dt, void* dst, const void* a, const void* b, Scalar s,
                 size_t n) {
  switch (op) {
#define AICORE_OP_CASE(O) \
  case VecOp::O:          \
    RunTyped<VecOp::O>(dt, dst, a, b, s, n); \
    return;
    AICORE_OP_CASE(kAdd) AICORE_OP_CASE(kSub) AICORE_OP_CASE(kMul) AICORE_OP_CASE(kDiv)
    AICORE_OP_CASE(kMax) AICORE_OP_CASE(kMin) AICORE_OP_CASE(kAnd) AICORE_OP_CASE(kOr)
    AICORE_OP_CASE(kAddRelu) AICORE_OP_CASE(kSubRelu)
    AICORE_OP_CASE(kAdds) AICORE_OP_CASE(kMuls) AICORE_OP_CASE(kMaxs) AICORE_OP_CASE(kMins)
    AICORE_OP_CASE(kSubs) AICORE_OP_CASE(kDivs) AICORE_OP_CASE(kLeakyRelu)
    AICORE_OP_CASE(kShiftLeft) AICORE_OP_CASE(kShiftRight)
    AICORE_OP_CASE(kExp) AICORE_OP_CASE(kLn) AICORE_OP_CASE(kAbs) AICORE_OP_CASE(kSqrt)
    AICORE_OP_CASE(kRsqrt) AICORE_OP_CASE(kReciprocal) AICORE_OP_CASE(kRelu)
    AICORE_OP_CASE(kNot) AICORE_OP_CASE(kNeg) AICORE_OP_CASE(kCopy)
    AICORE_OP_CASE(kDuplicate) AICORE_OP_CASE(kAxpy)
#undef AICORE_OP_CASE
    case VecOp::kCount:
      return;
  }
}

}  // namespace aicore::kernel::engine::AICORE_ISA_NAMESPACE
