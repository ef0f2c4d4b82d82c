// Per-ISA element-wise loops, compiled once per instruction set by aicore_add_isa_sources with
// AICORE_ISA_NAMESPACE naming the variant; engine.cc picks one at run time. The loops are plain
// C++ that the compiler vectorizes for the variant's target; half and bfloat16 are widened to
// float in chunks that stay in L1, computed, and narrowed with round-to-nearest-even.
//
// Exp: x = n*ln2 + r with n = rint(x*log2e) and |r| <= ln2/2 (Cody-Waite: n*ln2 in two parts
// subtracted with fused multiply-adds); e^r by a degree-6 minimax polynomial (relative error below
// 3.1e-9, about 0.03 ulp); then p * 2^n with one rounding: AVX-512's scalef, elsewhere two exact
// power-of-two factors. Every step is one IEEE operation (fma included: std::fma on the portable
// path), so the ISAs agree bit for bit.
// Ln: x = m*2^e with m in [sqrt(1/2), sqrt(2)]; ln m = 2*atanh(s), s = (m-1)/(m+1), |s| <= 0.172,
// by its odd series to s^11 (truncation below 1e-10), summed as f - (f*s - s*q) with f = m - 1.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aicore/core/dtype.h"
#include "aicore/kernel/vector/engine.h"

#if AICORE_ISA >= 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace aicore::kernel::engine::AICORE_ISA_NAMESPACE {

namespace {

constexpr size_t kChunk = 512;  // elements widened at a time for half/bfloat16 (2 KiB of float)

// Fused multiply-add with one rounding on every ISA. On the portable x86-64 build std::fma is a
// libm call (exact, slower); the AVX2 and AVX-512 builds vectorize it to vfmadd.
inline float Fma(float a, float b, float c) { return std::fma(a, b, c); }

// Exp constants (see the file comment).
constexpr float kExpMax = 88.75f;   // above ln(FLT_MAX) = 88.72: n = 128, p * 2^n rounds to inf
constexpr float kExpMin = -104.0f;  // below ln(2^-150) = -103.97: n = -150, p * 2^n rounds to 0
constexpr float kLog2e = 1.44269504088896341f;
// ln 2 in two parts; the high part has 15 significant bits, so n * kLn2Hi is exact for |n| < 2^9
// and x - n * kLn2Hi is exact (Sterbenz).
constexpr float kLn2Hi = 0.693145751953125f;
constexpr float kLn2Lo = 1.42860682030941723212e-6f;
constexpr float kRoundInt = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
// e^r ~ 1 + r + c2 r^2 + ... + c6 r^6 on |r| <= ln2/2 + 1e-4, minimax in relative error (Remez).
constexpr float kExpC2 = 0x1.fffffcp-2f;
constexpr float kExpC3 = 0x1.555492p-3f;
constexpr float kExpC4 = 0x1.5558f2p-5f;
constexpr float kExpC5 = 0x1.123a00p-7f;
constexpr float kExpC6 = 0x1.6a2404p-10f;

// Returns p * 2^n rounded once, for p in [0.5, 2] and integral n in [-150, 128]: 2^n is split
// into two normal factors, so p times the first is exact and only the second product rounds.
inline float ScaleByPow2(float p, float n) {
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t n1 = ni >> 1;
  const int32_t n2 = ni - n1;
  return p * std::bit_cast<float>((n1 + 127) << 23) * std::bit_cast<float>((n2 + 127) << 23);
}

inline float ExpF(float x) {
  // The clamps turn NaN into kExpMax (no undefined int conversion); NaN is restored at the end.
  float xc = x < kExpMax ? x : kExpMax;
  xc = xc > kExpMin ? xc : kExpMin;
  const float n = Fma(xc, kLog2e, kRoundInt) - kRoundInt;
  float r = Fma(n, -kLn2Hi, xc);
  r = Fma(n, -kLn2Lo, r);
  float p = Fma(kExpC6, r, kExpC5);
  p = Fma(p, r, kExpC4);
  p = Fma(p, r, kExpC3);
  p = Fma(p, r, kExpC2);
  p = Fma(p, r, 1.0f);
  p = Fma(p, r, 1.0f);
  const float y = ScaleByPow2(p, n);
  return x != x ? x : y;
}

#if AICORE_ISA == 2
// ExpF on 16 lanes, operation for operation (min/max return their second operand on NaN, as the
// clamps above do; scalef rounds p * 2^n once, as ScaleByPow2 does).
inline __m512 ExpV(__m512 x) {
  // maskz forms: see Widen.
  __m512 xc = _mm512_maskz_min_ps(0xffff, x, _mm512_set1_ps(kExpMax));
  xc = _mm512_maskz_max_ps(0xffff, xc, _mm512_set1_ps(kExpMin));
  const __m512 round = _mm512_set1_ps(kRoundInt);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(xc, _mm512_set1_ps(kLog2e), round), round);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2Hi), xc);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2Lo), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kExpC6), r, _mm512_set1_ps(kExpC5));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpC4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpC3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpC2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512 y = _mm512_maskz_scalef_ps(0xffff, p, n);
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}
#endif

inline float LnF(float x) {
  // Scale subnormals into the normal range first.
  const bool sub = x < 1.17549435e-38f;
  const float xs = sub ? x * 16777216.0f : x;
  const uint32_t bits = std::bit_cast<uint32_t>(xs);
  int32_t e = static_cast<int32_t>((bits >> 23) & 0xff) - 127;
  float m = std::bit_cast<float>((bits & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool big = m > 1.41421356f;
  m = big ? m * 0.5f : m;  // [sqrt(1/2), sqrt(2)]
  e = big ? e + 1 : e;
  const float ef = static_cast<float>(e) - (sub ? 24.0f : 0.0f);
  const float f = m - 1.0f;        // exact: m is within a factor 2 of 1
  const float s = f / (2.0f + f);  // |s| <= 0.172
  const float z = s * s;
  // ln m = 2 atanh(s) = 2s + s*q with q = 2z/3 + 2z^2/5 + ... + 2z^5/11; writing 2s = f - f*s
  // keeps the rounding errors in the small correction term, not in the leading f.
  float q = 2.0f / 11.0f;
  q = q * z + 2.0f / 9.0f;
  q = q * z + 2.0f / 7.0f;
  q = q * z + 2.0f / 5.0f;
  q = q * z + 2.0f / 3.0f;
  q = q * z;
  const float ln_m = f - (f * s - s * q);
  // ln 2 in two parts; the high part has 9 trailing zero bits, so ef * kLn2Hi is exact.
  const float kLn2Hi = 0.693145751953125f;
  const float kLn2Lo = 1.42860682030941723212e-6f;
  float y = ef * kLn2Hi + (ln_m + ef * kLn2Lo);
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
  for (size_t i = 0; i < n; ++i) {
    dst[i] = ApplyF(op, a[i], 0.0f, s, op == VecOp::kAxpy ? dst[i] : 0.0f);
  }
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

#if AICORE_ISA == 2
// Exp on AVX-512: ExpV on 16 lanes at a time, the tail with masked loads and stores.
void ExpLoop(float* dst, const float* src, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, ExpV(_mm512_loadu_ps(src + i)));
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, m, ExpV(_mm512_maskz_loadu_ps(m, src + i)));
  }
}
#endif

// Kept out of line: inlined into the large Elementwise switch, GCC stopped inlining ExpF/LnF
// into the float loops and ran them scalar (9 ns/element for Exp instead of under 1).
template <VecOp op>
[[gnu::noinline]] void RunFloat(float* dst, const float* a, const float* b, float s,
                             size_t n) {
  constexpr Arity ar = ArityOf(op);
#if AICORE_ISA == 2
  if constexpr (op == VecOp::kExp) {
    ExpLoop(dst, a, n);
    return;
  }
#endif
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
    // The maskz forms: the unmasked ones trip GCC 12's -Wmaybe-uninitialized in its own header.
    _mm512_storeu_ps(dst + i, _mm512_maskz_cvtph_ps(0xffff, h));
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
    __m256i h =
        _mm512_maskz_cvtps_ph(0xffff, _mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
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
// bit_cast, not pointer casts: the float arrays must not be accessed through uint32_t lvalues.
inline void Widen(float* dst, const bfloat16* src, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    dst[i] = std::bit_cast<float>(static_cast<uint32_t>(src[i].bits) << 16);
  }
}
inline void Narrow(bfloat16* dst, const float* src, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t x = std::bit_cast<uint32_t>(src[i]);
    const uint16_t r = static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
    dst[i].bits =
        (x & 0x7fffffffu) > 0x7f800000u ? static_cast<uint16_t>((x >> 16) | 0x40u) : r;
  }
}

#if AICORE_ISA == 2
// Binary and tensor-scalar arithmetic and Exp on half fused into one pass per 16 lanes (widen,
// operate, narrow with RNE) instead of three passes through float chunks; the arithmetic is the
// same, so the results are bit-identical to the chunked path and the other ISAs.
template <VecOp op>
inline constexpr bool kFusedHalf =
    op == VecOp::kAdd || op == VecOp::kSub || op == VecOp::kMul || op == VecOp::kDiv ||
    op == VecOp::kMax || op == VecOp::kMin || op == VecOp::kAdds || op == VecOp::kSubs ||
    op == VecOp::kMuls || op == VecOp::kDivs || op == VecOp::kMaxs || op == VecOp::kMins ||
    op == VecOp::kExp;

template <VecOp op>
inline __m512 ApplyV(__m512 a, __m512 b) {
  // max/min return the second operand on NaN or equal zeros, as ApplyF's a > b ? a : b does.
  if constexpr (op == VecOp::kAdd || op == VecOp::kAdds) return _mm512_add_ps(a, b);
  else if constexpr (op == VecOp::kSub || op == VecOp::kSubs) return _mm512_sub_ps(a, b);
  else if constexpr (op == VecOp::kMul || op == VecOp::kMuls) return _mm512_mul_ps(a, b);
  else if constexpr (op == VecOp::kDiv || op == VecOp::kDivs) return _mm512_div_ps(a, b);
  // maskz forms: see Widen.
  else if constexpr (op == VecOp::kMax || op == VecOp::kMaxs)
    return _mm512_maskz_max_ps(0xffff, a, b);
  else if constexpr (op == VecOp::kMin || op == VecOp::kMins)
    return _mm512_maskz_min_ps(0xffff, a, b);
  else return ExpV(a);
}

inline __m512 LoadHalf(const half* p) {
  return _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// + - * / on half run natively (VADDPH ...) where the CPU has AVX512-FP16: one IEEE operation in
// half equals the same operation in float rounded to half (24 >= 2*11 + 2 bits, so the double
// rounding is innocuous), so the values are those of the widening path. NaNs: with one NaN
// operand every path returns it quieted (invalid operations give the default NaN 0xfe00 both
// ways); with two, the vector widening paths return the second operand's for + and * and the
// first's for - and / (the operand order GCC happens to give the instructions; engine_test checks
// it), and VADDPH's choice depends on the same accident, so ApplyPh selects that NaN explicitly.
// Max and Min stay on the widening path: VMAXPH would return a signalling NaN operand unquieted.
template <VecOp op>
inline constexpr bool kNativeHalf =
    op == VecOp::kAdd || op == VecOp::kSub || op == VecOp::kMul || op == VecOp::kDiv ||
    op == VecOp::kAdds || op == VecOp::kSubs || op == VecOp::kMuls || op == VecOp::kDivs;

// CPUID leaf 7 subleaf 0, EDX bit 23 (Intel SDM vol. 2A, CPUID): AVX512-FP16. Read directly
// because clang before 17 rejects __builtin_cpu_supports("avx512fp16"); the OS saves the ZMM
// state, or the AVX-512 path would not have been chosen.
bool HasAvx512Fp16() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && ((edx >> 23) & 1) != 0;
  }();
  return has;
}

// Returns op(a, b) on 32 halves, with the NaN rule above.
template <VecOp op>
[[gnu::target("avx512fp16")]] inline __m512i ApplyPh(__m512i a, __m512i b) {
  const __m512h x = _mm512_castsi512_ph(a), y = _mm512_castsi512_ph(b);
  __m512h r;
  if constexpr (op == VecOp::kAdd || op == VecOp::kAdds) r = _mm512_add_ph(x, y);
  else if constexpr (op == VecOp::kSub || op == VecOp::kSubs) r = _mm512_sub_ph(x, y);
  else if constexpr (op == VecOp::kMul || op == VecOp::kMuls) r = _mm512_mul_ph(x, y);
  else r = _mm512_div_ph(x, y);
  constexpr bool kSecondWins =
      op == VecOp::kAdd || op == VecOp::kAdds || op == VecOp::kMul || op == VecOp::kMuls;
  const __m512h w = kSecondWins ? y : x;
  const __mmask32 nan = _mm512_cmp_ph_mask(w, w, _CMP_UNORD_Q);
  const __m512i quiet = _mm512_or_si512(_mm512_castph_si512(w), _mm512_set1_epi16(0x0200));
  return _mm512_mask_mov_epi16(_mm512_castph_si512(r), nan, quiet);
}

// Applies a kNativeHalf op to n halves, 32 lanes at a time and the tail masked. `s` is a half
// value (RunTyped rounds the scalar to half first), so its conversion back is exact.
template <VecOp op>
[[gnu::target("avx512fp16")]] void RunHalfNative(half* dst, const half* a, const half* b, float s,
                                                 size_t n) {
  constexpr bool kBinary = ArityOf(op) == Arity::kBinary;
  const __m512i sv = _mm512_set1_epi16(static_cast<short>(half(s).bits));
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i y = kBinary ? _mm512_loadu_si512(b + i) : sv;
    _mm512_storeu_si512(dst + i, ApplyPh<op>(_mm512_loadu_si512(a + i), y));
  }
  if (i < n) {
    const auto m = static_cast<__mmask32>((uint32_t{1} << (n - i)) - 1);
    const __m512i y = kBinary ? _mm512_maskz_loadu_epi16(m, b + i) : sv;
    _mm512_mask_storeu_epi16(dst + i, m, ApplyPh<op>(_mm512_maskz_loadu_epi16(m, a + i), y));
  }
}
#endif

template <VecOp op, typename T16>
void Run16(T16* dst, const T16* a, const T16* b, float s, size_t n) {
#if AICORE_ISA == 2
  if constexpr (std::is_same_v<T16, half> && kNativeHalf<op>) {
    if (HasAvx512Fp16()) {
      RunHalfNative<op>(dst, a, b, s, n);
      return;
    }
  }
  if constexpr (std::is_same_v<T16, half> && kFusedHalf<op>) {
    const __m512 sv = _mm512_set1_ps(s);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m512 y = ArityOf(op) == Arity::kBinary ? LoadHalf(b + i) : sv;
      const __m512 r = ApplyV<op>(LoadHalf(a + i), y);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                          _mm512_maskz_cvtps_ph(0xffff, r, _MM_FROUND_TO_NEAREST_INT));
    }
    dst += i;
    a += i;
    if (b) b += i;
    n -= i;  // the tail goes through the chunked path below
  }
#endif
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
  // Unsigned arithmetic wraps; types narrower than int are widened first so the promotion to
  // int cannot overflow (65535 * 65535 would).
  using U = std::conditional_t<(sizeof(I) < sizeof(int)), unsigned, std::make_unsigned_t<I>>;
  switch (op) {
    case VecOp::kAdd: return static_cast<I>(static_cast<U>(a) + static_cast<U>(b));
    case VecOp::kSub: return static_cast<I>(static_cast<U>(a) - static_cast<U>(b));
    case VecOp::kMul: return static_cast<I>(static_cast<U>(a) * static_cast<U>(b));
    case VecOp::kDiv:
      if (b == 0) return I(0);
      if (std::is_signed_v<I> && b == I(-1)) return static_cast<I>(U(0) - static_cast<U>(a));
      return static_cast<I>(a / b);
    case VecOp::kMax: return a > b ? a : b;
    case VecOp::kMin: return a < b ? a : b;
    case VecOp::kAnd: return static_cast<I>(a & b);
    case VecOp::kOr: return static_cast<I>(a | b);
    case VecOp::kAddRelu: {
      const I r = static_cast<I>(static_cast<U>(a) + static_cast<U>(b));
      return r > 0 ? r : I(0);
    }
    case VecOp::kSubRelu: {
      const I r = static_cast<I>(static_cast<U>(a) - static_cast<U>(b));
      return r > 0 ? r : I(0);
    }
    case VecOp::kAdds: return static_cast<I>(static_cast<U>(a) + static_cast<U>(static_cast<I>(s)));
    case VecOp::kMuls: return static_cast<I>(static_cast<U>(a) * static_cast<U>(static_cast<I>(s)));
    case VecOp::kSubs: return static_cast<I>(static_cast<U>(a) - static_cast<U>(static_cast<I>(s)));
    case VecOp::kMaxs: return a > static_cast<I>(s) ? a : static_cast<I>(s);
    case VecOp::kMins: return a < static_cast<I>(s) ? a : static_cast<I>(s);
    case VecOp::kDivs: {
      const I d = static_cast<I>(s);
      if (d == 0) return I(0);
      if (std::is_signed_v<I> && d == I(-1)) return static_cast<I>(U(0) - static_cast<U>(a));
      return static_cast<I>(a / d);
    }
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
    using U = std::conditional_t<(sizeof(I) < sizeof(int)), unsigned, std::make_unsigned_t<I>>;
    const U us = static_cast<U>(static_cast<I>(s));
    for (size_t i = 0; i < n; ++i) {
      dst[i] = static_cast<I>(static_cast<U>(dst[i]) + static_cast<U>(a[i]) * us);
    }
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

// ---- Cast ----
// Common pairs run as branch-free loops the compiler vectorizes (half/bfloat16 <-> float with
// round-to-nearest-even, float -> int32 in every integral mode, int32 -> float); the rest go
// through a per-element path on double, which holds every source value exactly:
//   integer destination: round to an integral value by the mode, saturate, NaN -> 0;
//   floating destination: the nearest value (RNE) and its neighbour on the other side of the
//   exact value bracket it; the mode picks one of the two.

// Floating formats of a destination, as bit patterns ordered by value.
template <typename F> struct FloatFormat;
template <> struct FloatFormat<float> {
  using Bits = uint32_t;
  static constexpr Bits kSign = 0x80000000u;
  static constexpr double kOverflow = 340282366920938463463374607431768211456.0;  // 2^128
  static float Nearest(double v) { return static_cast<float>(v); }
  static Bits ToBits(float f) { return std::bit_cast<Bits>(f); }
  static float FromBits(Bits b) { return std::bit_cast<float>(b); }
};
template <> struct FloatFormat<half> {
  using Bits = uint16_t;
  static constexpr Bits kSign = 0x8000u;
  static constexpr double kOverflow = 65536.0;  // 2^16: where the next binade would start
  // Exact for every value a half can be converted from here: float sources, and integers below
  // 2^24 (larger integers overflow half anyway).
  static half Nearest(double v) { return half(static_cast<float>(v)); }
  static Bits ToBits(half h) { return h.bits; }
  static half FromBits(Bits b) { return half::FromBits(b); }
};
template <> struct FloatFormat<bfloat16> {
  using Bits = uint16_t;
  static constexpr Bits kSign = 0x8000u;
  static constexpr double kOverflow = 340282366920938463463374607431768211456.0;  // 2^128
  static bfloat16 Nearest(double v) { return bfloat16(static_cast<float>(v)); }
  static Bits ToBits(bfloat16 h) { return h.bits; }
  static bfloat16 FromBits(Bits b) { return bfloat16::FromBits(b); }
};

// The next representable value above (up) or below (down) bits `b` of a non-NaN value.
template <typename Bits>
Bits StepBits(Bits b, Bits sign, bool up) {
  const bool neg = (b & sign) != 0;
  const Bits mag = static_cast<Bits>(b & ~sign);
  if (mag == 0) return up ? Bits(1) : static_cast<Bits>(sign | 1u);
  return (neg != up) ? static_cast<Bits>(b + 1) : static_cast<Bits>(b - 1);
}

template <typename F>
double ValueOf(F f, double overflow) {
  const double d = static_cast<double>(static_cast<float>(f));
  if (d == std::numeric_limits<double>::infinity()) return overflow;
  if (d == -std::numeric_limits<double>::infinity()) return -overflow;
  return d;
}

template <typename F>
F RoundToFormat(double v, Round r) {
  using Fmt = FloatFormat<F>;
  const F nearest = Fmt::Nearest(v);
  const double back = static_cast<double>(static_cast<float>(nearest));
  if (back == v || v != v || r == Round::kNone || r == Round::kRint) return nearest;
  const auto nb = Fmt::ToBits(nearest);
  const bool nearest_above = back > v;
  const F lo = nearest_above ? Fmt::FromBits(StepBits(nb, Fmt::kSign, false)) : nearest;
  const F hi = nearest_above ? nearest : Fmt::FromBits(StepBits(nb, Fmt::kSign, true));
  switch (r) {
    case Round::kFloor: return lo;
    case Round::kCeil: return hi;
    case Round::kTrunc: return v > 0 ? lo : hi;
    case Round::kOdd: return (Fmt::ToBits(lo) & 1u) ? lo : hi;
    case Round::kRound: {
      const double dl = v - ValueOf(lo, Fmt::kOverflow);
      const double dh = ValueOf(hi, Fmt::kOverflow) - v;
      if (dl != dh) return dl < dh ? lo : hi;
      return v > 0 ? hi : lo;
    }
    default: return nearest;
  }
}

// Rounds `v` to an integral value by mode (kNone and kOdd as kRint). Branch-free per mode when
// inlined into a loop with a constant `r`.
template <Round r, typename T>
inline T RoundIntegral(T v) {
  if constexpr (r == Round::kFloor) return std::floor(v);
  else if constexpr (r == Round::kCeil) return std::ceil(v);
  else if constexpr (r == Round::kTrunc) return std::trunc(v);
  else if constexpr (r == Round::kRound) {
    // x - trunc(x) is exact, so the comparison with 1/2 decides ties exactly.
    const T t = std::trunc(v);
    const T frac = v - t;
    return frac >= T(0.5) ? t + T(1) : (frac <= T(-0.5) ? t - T(1) : t);
  } else {
    return std::nearbyint(v);
  }
}

template <typename I, typename T>
inline I SaturateIntegral(T v) {
  constexpr T kMin = static_cast<T>(std::numeric_limits<I>::min());
  // The largest T below 2^(bits-1): max() itself may round up to 2^(bits-1) in float.
  constexpr T kLimit = -kMin;  // 2^(bits-1) for signed, exact in T
  constexpr T kUMax = static_cast<T>(std::numeric_limits<I>::max()) + T(1);
  if constexpr (std::is_signed_v<I>) {
    const T c = v < kMin ? kMin : (v < kLimit ? v : kMin);
    I out = static_cast<I>(c);
    out = v >= kLimit ? std::numeric_limits<I>::max() : out;
    return v != v ? I(0) : out;
  } else {
    const T c = v < T(0) ? T(0) : (v < kUMax ? v : T(0));
    I out = static_cast<I>(c);
    out = v >= kUMax ? std::numeric_limits<I>::max() : out;
    return v != v ? I(0) : out;
  }
}

template <Round r>
void FloatToInt32(int32_t* dst, const float* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = SaturateIntegral<int32_t>(RoundIntegral<r>(src[i]));
}

void Int32ToFloat(float* dst, const int32_t* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// The per-element path for the pairs without a dedicated loop.
template <Round r, typename D, typename S>
void CastGeneric(D* dst, const S* src, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double v = ToDouble(src[i]);
    if constexpr (std::is_integral_v<D>) {
      if constexpr (std::is_integral_v<S>) {
        dst[i] = v < static_cast<double>(std::numeric_limits<D>::min())
                     ? std::numeric_limits<D>::min()
                     : (v > static_cast<double>(std::numeric_limits<D>::max())
                            ? std::numeric_limits<D>::max()
                            : static_cast<D>(src[i]));
      } else {
        dst[i] = SaturateIntegral<D>(RoundIntegral<r>(v));
      }
    } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, float>) {
      // NaNs come out quiet on every ISA (vector rounding instructions quiet signalling NaNs,
      // the portable path might not).
      const float x = src[i];
      const float quiet = std::bit_cast<float>(std::bit_cast<uint32_t>(x) | 0x00400000u);
      dst[i] = r == Round::kNone ? x : (x != x ? quiet : RoundIntegral<r>(x));
    } else {
      dst[i] = RoundToFormat<D>(v, r);
    }
  }
}

template <typename D, typename S>
void CastGenericAnyMode(Round r, D* dst, const S* src, size_t n) {
  switch (r) {
    case Round::kNone: CastGeneric<Round::kNone>(dst, src, n); return;
    case Round::kRint: CastGeneric<Round::kRint>(dst, src, n); return;
    case Round::kFloor: CastGeneric<Round::kFloor>(dst, src, n); return;
    case Round::kCeil: CastGeneric<Round::kCeil>(dst, src, n); return;
    case Round::kRound: CastGeneric<Round::kRound>(dst, src, n); return;
    case Round::kTrunc: CastGeneric<Round::kTrunc>(dst, src, n); return;
    case Round::kOdd: CastGeneric<Round::kOdd>(dst, src, n); return;
  }
}

void CastFloatToInt32(Round r, int32_t* dst, const float* src, size_t n) {
  switch (r) {
    case Round::kFloor: FloatToInt32<Round::kFloor>(dst, src, n); return;
    case Round::kCeil: FloatToInt32<Round::kCeil>(dst, src, n); return;
    case Round::kRound: FloatToInt32<Round::kRound>(dst, src, n); return;
    case Round::kTrunc: FloatToInt32<Round::kTrunc>(dst, src, n); return;
    default: FloatToInt32<Round::kRint>(dst, src, n); return;
  }
}

// half/bfloat16 -> int32: widen a chunk to float (exact), then the float loop.
template <typename T16>
void Cast16ToInt32(Round r, int32_t* dst, const T16* src, size_t n) {
  alignas(64) float f[kChunk];
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t m = n - off < kChunk ? n - off : kChunk;
    Widen(f, src + off, m);
    CastFloatToInt32(r, dst + off, f, m);
  }
}

}  // namespace

// Every VecOp but kCount, for the switches that turn a run-time op into a template argument.
#define AICORE_VEC_OPS(X)                                                                   \
  X(kAdd) X(kSub) X(kMul) X(kDiv) X(kMax) X(kMin) X(kAnd) X(kOr) X(kAddRelu) X(kSubRelu)    \
  X(kAdds) X(kMuls) X(kMaxs) X(kMins) X(kSubs) X(kDivs) X(kLeakyRelu) X(kShiftLeft)         \
  X(kShiftRight) X(kExp) X(kLn) X(kAbs) X(kSqrt) X(kRsqrt) X(kReciprocal) X(kRelu) X(kNot)  \
  X(kNeg) X(kCopy) X(kDuplicate) X(kAxpy)

void Elementwise(VecOp op, DType dt, void* dst, const void* a, const void* b, Scalar s,
                 size_t n) {
  switch (op) {
#define AICORE_OP_CASE(O) \
  case VecOp::O:          \
    RunTyped<VecOp::O>(dt, dst, a, b, s, n); \
    return;
    AICORE_VEC_OPS(AICORE_OP_CASE)
#undef AICORE_OP_CASE
    case VecOp::kCount:
      return;
  }
}

namespace {

// ElementwiseRows for one op: the op and type are resolved once for all the runs.
template <VecOp op>
void RunRows(DType dt, uint8_t* dst, const uint8_t* a, const uint8_t* b, Scalar s, size_t n,
             size_t rows, const uint64_t* pitch, unsigned block_sources) {
#if AICORE_ISA == 2
  // float + - * / max min on 16 lanes, a repeated block broadcast into both halves of a vector
  // (it is loaded before the run's first store; maskz forms: see Widen); ApplyV is ApplyF
  // operation for operation.
  constexpr bool kVectorBinary = op == VecOp::kAdd || op == VecOp::kSub || op == VecOp::kMul ||
                                 op == VecOp::kDiv || op == VecOp::kMax || op == VecOp::kMin;
  if constexpr (kVectorBinary) {
    if (dt == DType::kF32 && a != nullptr && b != nullptr) {
      const auto tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
      for (size_t r = 0; r < rows; ++r) {
        const auto* x = reinterpret_cast<const float*>(a + r * pitch[1]);
        const auto* y = reinterpret_cast<const float*>(b + r * pitch[2]);
        auto* d = reinterpret_cast<float*>(dst + r * pitch[0]);
        const bool xb = (block_sources & 2u) != 0, yb = (block_sources & 4u) != 0;
        auto spread = [](const float* p) {
          return _mm512_maskz_broadcast_f32x8(0xffff, _mm256_loadu_ps(p));
        };
        const __m512 xv = xb ? spread(x) : _mm512_setzero_ps();
        const __m512 yv = yb ? spread(y) : _mm512_setzero_ps();
        size_t i = 0;
        for (; i + 16 <= n; i += 16) {
          const __m512 u = xb ? xv : _mm512_loadu_ps(x + i);
          const __m512 v = yb ? yv : _mm512_loadu_ps(y + i);
          _mm512_storeu_ps(d + i, ApplyV<op>(u, v));
        }
        if (i < n) {
          const __m512 u = xb ? xv : _mm512_maskz_loadu_ps(tail, x + i);
          const __m512 v = yb ? yv : _mm512_maskz_loadu_ps(tail, y + i);
          _mm512_mask_storeu_ps(d + i, tail, ApplyV<op>(u, v));
        }
      }
      return;
    }
  }
#endif
  alignas(64) uint8_t copies[2][256];
  const size_t bytes = n * DTypeSize(dt);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* src[2] = {a != nullptr ? a + r * pitch[1] : nullptr,
                             b != nullptr ? b + r * pitch[2] : nullptr};
    for (int k = 0; k < 2; ++k) {
      if (src[k] == nullptr || (block_sources & (2u << k)) == 0) continue;
      for (size_t o = 0; o < bytes; o += 32) std::memcpy(copies[k] + o, src[k], 32);
      src[k] = copies[k];
    }
    RunTyped<op>(dt, dst + r * pitch[0], src[0], src[1], s, n);
  }
}

}  // namespace

void ElementwiseRows(VecOp op, DType dt, void* dst, const void* a, const void* b, Scalar s,
                     size_t n, size_t rows, const uint64_t pitch[3], unsigned block_sources) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  switch (op) {
#define AICORE_OP_CASE(O)                                                      \
  case VecOp::O:                                                               \
    RunRows<VecOp::O>(dt, d, pa, pb, s, n, rows, pitch, block_sources);        \
    return;
    AICORE_VEC_OPS(AICORE_OP_CASE)
#undef AICORE_OP_CASE
    case VecOp::kCount:
      return;
  }
}

namespace {

constexpr size_t kRepeatFloats = 64;  // one 256-byte repeat

// The pairwise tree of one repeat of 64 floats (see ReduceSumF32 in engine.h).
inline float TreeSum64(const float* src, size_t n) {
  float v[kRepeatFloats];
  for (size_t e = 0; e < kRepeatFloats; ++e) v[e] = e < n ? src[e] : 0.0f;
  for (size_t w = kRepeatFloats / 2; w >= 1; w /= 2) {
    for (size_t i = 0; i < w; ++i) v[i] = v[2 * i] + v[2 * i + 1];
  }
  return v[0];
}

// The first of the non-NaN extremes, element by element.
float ExtremeScalar(bool max, const float* src, size_t n) {
  float best = src[0];
  bool have = best == best;
  for (size_t i = 1; i < n; ++i) {
    const float x = src[i];
    if (x != x) continue;
    if (!have || (max ? x > best : x < best)) {
      best = x;
      have = true;
    }
  }
  return best;
}

#if AICORE_ISA == 2
// The adjacent-pair sums of the 32 lanes of (a, b), in order: lane i = (a|b)[2i] + (a|b)[2i+1].
inline __m512 PairSums(__m512 a, __m512 b) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                         30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29,
                                        31);
  return _mm512_add_ps(_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b));
}

// TreeSum64 of a whole repeat on 16 lanes: the same additions in the same tree (lanes past the
// live ones carry duplicates that are never read).
inline float TreeSum64V(const float* src) {
  const __m512 p0 = PairSums(_mm512_loadu_ps(src), _mm512_loadu_ps(src + 16));
  const __m512 p1 = PairSums(_mm512_loadu_ps(src + 32), _mm512_loadu_ps(src + 48));
  __m512 q = PairSums(p0, p1);  // 16 sums of 4
  q = PairSums(q, q);           // 8 sums of 8
  q = PairSums(q, q);           // 4
  q = PairSums(q, q);           // 2
  q = PairSums(q, q);           // 1
  return _mm512_cvtss_f32(q);
}

// TreeSum64 of 16 whole repeats at once: each repeat is reduced to 16 sums of 4 on its own,
// then the later levels pack several repeats into one vector (2 repeats of 8 sums, 4 of 4, 8 of
// 2), so no lane is wasted; lane r of the result is repeat r's sum, bit-identical to TreeSum64.
inline __m512 TreeSum64x16V(const float* src) {
  __m512 v[16];
  for (int r = 0; r < 16; ++r) {
    const float* p = src + 64 * r;
    v[r] = PairSums(PairSums(_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16)),
                    PairSums(_mm512_loadu_ps(p + 32), _mm512_loadu_ps(p + 48)));
  }
  for (int w = 8; w >= 1; w /= 2) {
    for (int k = 0; k < w; ++k) v[k] = PairSums(v[2 * k], v[2 * k + 1]);
  }
  return v[0];
}
#endif

}  // namespace

float ReduceSumF32(const float* src, size_t n) {
  float total = 0.0f;
  size_t i = 0;
#if AICORE_ISA == 2
  for (; i + 16 * kRepeatFloats <= n; i += 16 * kRepeatFloats) {
    alignas(64) float sums[16];
    _mm512_store_ps(sums, TreeSum64x16V(src + i));
    for (float v : sums) total += v;  // the repeat sums in order
  }
  for (; i + kRepeatFloats <= n; i += kRepeatFloats) total += TreeSum64V(src + i);
#endif
  for (; i < n; i += kRepeatFloats) total += TreeSum64(src + i, std::min(kRepeatFloats, n - i));
  return total;
}

float ReduceExtremeF32(bool max, const float* src, size_t n) {
#if AICORE_ISA == 2
  // The non-NaN extreme on 16 lanes: max/min return their second operand (the accumulator) when
  // the first is NaN, so NaNs are skipped. An extreme that is not unique by its bits (a zero, of
  // either sign) or that may stand for "no value" (an infinity of the starting sign) is found
  // again element by element.
  if (n >= 64) {
    const float start = max ? -std::numeric_limits<float>::infinity()
                            : std::numeric_limits<float>::infinity();
    // The maskz forms and a reduce through memory: GCC 12's unmasked max/min and its reduce
    // intrinsics pass _mm512_undefined_ps() (a self-initialised placeholder) to the builtins,
    // which its -Wmaybe-uninitialized reports in its own header (GCC PR 105593).
    // max/min(x, acc) keeps acc where x is NaN, as the unmasked forms do.
    const auto pick = [max](__m512 x, __m512 acc) {
      return max ? _mm512_maskz_max_ps(0xFFFF, x, acc) : _mm512_maskz_min_ps(0xFFFF, x, acc);
    };
    __m512 acc[4];
    for (__m512& a : acc) a = _mm512_set1_ps(start);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
      for (int k = 0; k < 4; ++k) acc[k] = pick(_mm512_loadu_ps(src + i + 16 * k), acc[k]);
    }
    for (; i + 16 <= n; i += 16) acc[0] = pick(_mm512_loadu_ps(src + i), acc[0]);
    if (i < n) {  // the lanes past the end read as `start`
      const auto t = static_cast<__mmask16>((1u << (n - i)) - 1);
      acc[0] = pick(_mm512_mask_loadu_ps(_mm512_set1_ps(start), t, src + i), acc[0]);
    }
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, pick(pick(acc[0], acc[1]), pick(acc[2], acc[3])));
    float v = lanes[0];  // no lane is NaN: each started at `start` and kept it over NaN inputs
    for (int k = 1; k < 16; ++k) v = max ? std::max(v, lanes[k]) : std::min(v, lanes[k]);
    if (v != 0.0f && v != start) return v;
  }
#endif
  return ExtremeScalar(max, src, n);
}

namespace {

constexpr size_t kBlockFloats = 8;  // one 32-byte DataBlock

#if AICORE_ISA != 2
// The 8 block results of one repeat, element by element (the definition in engine.h).
void BlockReduceRepeat(BlockReduceOp op, float* out, const float* src) {
  for (size_t k = 0; k < kRepeatFloats / kBlockFloats; ++k) {
    const float* b = src + k * kBlockFloats;
    if (op == BlockReduceOp::kSum) {
      float v[kBlockFloats];
      for (size_t e = 0; e < kBlockFloats; ++e) v[e] = b[e];
      for (size_t w = kBlockFloats / 2; w >= 1; w /= 2) {
        for (size_t i = 0; i < w; ++i) v[i] = v[2 * i] + v[2 * i + 1];
      }
      out[k] = v[0];
    } else {
      out[k] = ExtremeScalar(op == BlockReduceOp::kMax, b, kBlockFloats);
    }
  }
}
#endif

#if AICORE_ISA == 2
// The adjacent-pair extremes of the 32 lanes of (a, b), in order (no NaN lanes: see below).
inline __m512 PairExtremes(bool max, __m512 a, __m512 b) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                         30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29,
                                        31);
  const __m512 x = _mm512_permutex2var_ps(a, even, b), y = _mm512_permutex2var_ps(a, odd, b);
  return max ? _mm512_maskz_max_ps(0xffff, x, y) : _mm512_maskz_min_ps(0xffff, x, y);
}
#endif

}  // namespace

void BlockReduceF32(BlockReduceOp op, float* dst, size_t dst_pitch, const float* src,
                    size_t src_pitch, size_t repeats) {
  for (size_t r = 0; r < repeats; ++r) {
    const float* in = reinterpret_cast<const float*>(reinterpret_cast<const uint8_t*>(src) +
                                                     r * src_pitch);
    float* out = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(dst) + r * dst_pitch);
#if AICORE_ISA == 2
    const __m512 a0 = _mm512_loadu_ps(in), a1 = _mm512_loadu_ps(in + 16);
    const __m512 a2 = _mm512_loadu_ps(in + 32), a3 = _mm512_loadu_ps(in + 48);
    if (op == BlockReduceOp::kSum) {
      // The block's tree: pairs, then pairs of pairs, then the two halves (as TreeSum64V).
      const __m512 q = PairSums(PairSums(a0, a1), PairSums(a2, a3));  // 16 sums of 4
      // Lanes 0..7 by a masked store: GCC 12 warns (its PR 105593) on _mm512_castps512_ps256.
      _mm512_mask_storeu_ps(out, 0xff, PairSums(q, q));
      continue;
    }
    // NaNs read as the identity (-inf for max), then a tree of max/min. The result is the
    // block's value unless it is a zero (whose sign the first occurrence decides) or the
    // identity (all NaN, or all the identity): those blocks are redone element by element.
    const bool max = op == BlockReduceOp::kMax;
    const __m512 id = _mm512_set1_ps(max ? -std::numeric_limits<float>::infinity()
                                         : std::numeric_limits<float>::infinity());
    auto clean = [&id](__m512 x) {
      return _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), id);
    };
    const __m512 q = PairExtremes(max, PairExtremes(max, clean(a0), clean(a1)),
                                  PairExtremes(max, clean(a2), clean(a3)));
    const __m512 m = PairExtremes(max, q, q);  // lanes 0..7: the 8 blocks
    const __mmask16 redo = static_cast<__mmask16>(
        (_mm512_cmp_ps_mask(m, _mm512_setzero_ps(), _CMP_EQ_OQ) |
         _mm512_cmp_ps_mask(m, id, _CMP_EQ_OQ)) & 0xff);
    alignas(32) float res[kBlockFloats];
    _mm512_mask_storeu_ps(res, 0xff, m);
    for (unsigned bits = redo; bits != 0; bits &= bits - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(bits));
      res[k] = ExtremeScalar(max, in + k * kBlockFloats, kBlockFloats);
    }
    std::memcpy(out, res, sizeof(res));
#else
    float res[kRepeatFloats / kBlockFloats];
    BlockReduceRepeat(op, res, in);
    std::memcpy(out, res, sizeof(res));
#endif
  }
}

void Cast(DType dst_dt, DType src_dt, Round r, void* dst, const void* src, size_t n) {
  const bool nearest = r == Round::kNone || r == Round::kRint;
  // Fast paths.
  if (dst_dt == DType::kF32 && src_dt == DType::kF16) {
    Widen(static_cast<float*>(dst), static_cast<const half*>(src), n);
    return;
  }
  if (dst_dt == DType::kF32 && src_dt == DType::kBF16) {
    Widen(static_cast<float*>(dst), static_cast<const bfloat16*>(src), n);
    return;
  }
  if (dst_dt == DType::kF16 && src_dt == DType::kF32 && nearest) {
    Narrow(static_cast<half*>(dst), static_cast<const float*>(src), n);
    return;
  }
  if (dst_dt == DType::kBF16 && src_dt == DType::kF32 && nearest) {
    Narrow(static_cast<bfloat16*>(dst), static_cast<const float*>(src), n);
    return;
  }
  if (dst_dt == DType::kI32 && src_dt == DType::kF32) {
    CastFloatToInt32(r, static_cast<int32_t*>(dst), static_cast<const float*>(src), n);
    return;
  }
  if (dst_dt == DType::kI32 && src_dt == DType::kF16) {
    Cast16ToInt32(r, static_cast<int32_t*>(dst), static_cast<const half*>(src), n);
    return;
  }
  if (dst_dt == DType::kI32 && src_dt == DType::kBF16) {
    Cast16ToInt32(r, static_cast<int32_t*>(dst), static_cast<const bfloat16*>(src), n);
    return;
  }
  if (dst_dt == DType::kF32 && src_dt == DType::kI32 && nearest) {
    Int32ToFloat(static_cast<float*>(dst), static_cast<const int32_t*>(src), n);
    return;
  }
#define AICORE_CAST_PAIR(DD, D, SD, S)                                                     \
  if (dst_dt == DType::DD && src_dt == DType::SD) {                                       \
    CastGenericAnyMode<D, S>(r, static_cast<D*>(dst), static_cast<const S*>(src), n);    \
    return;                                                                               \
  }
  AICORE_CAST_PAIR(kF32, float, kI32, int32_t)
  AICORE_CAST_PAIR(kF32, float, kI16, int16_t)
  AICORE_CAST_PAIR(kF32, float, kF32, float)
  AICORE_CAST_PAIR(kF16, half, kF32, float)
  AICORE_CAST_PAIR(kF16, half, kI32, int32_t)
  AICORE_CAST_PAIR(kF16, half, kI16, int16_t)
  AICORE_CAST_PAIR(kF16, half, kI8, int8_t)
  AICORE_CAST_PAIR(kF16, half, kU8, uint8_t)
  AICORE_CAST_PAIR(kBF16, bfloat16, kF32, float)
  AICORE_CAST_PAIR(kI32, int32_t, kI16, int16_t)
  AICORE_CAST_PAIR(kI16, int16_t, kF32, float)
  AICORE_CAST_PAIR(kI16, int16_t, kF16, half)
  AICORE_CAST_PAIR(kI16, int16_t, kI32, int32_t)
  AICORE_CAST_PAIR(kI8, int8_t, kF16, half)
  AICORE_CAST_PAIR(kU8, uint8_t, kF16, half)
#undef AICORE_CAST_PAIR
}

}  // namespace aicore::kernel::engine::AICORE_ISA_NAMESPACE
