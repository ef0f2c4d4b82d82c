// LoadData's fractal moves: each destination fractal is first expressed in the documented layout
// (the source fractal, or its transpose), then stored in the destination's intra-fractal order
// (l0_layout.h). The common cases are plain 512-byte copies.
#include "aicore/kernel/cube/load_data.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace AscendC::detail {

namespace {

using l0::BOrder;
using l0::kFractalBytes;

// The permutations every L0B store reduces to, with SSE2 (the x86-64 baseline) where available.

// out[c * kRows + r] = in[r * 8 + c] for 32-bit units: a kRows x 8 -> 8 x kRows transpose
// (kRows = 16 or 8).
template <int kRows>
void Transpose32x8(uint32_t* out, const uint32_t* in) {
#if defined(__SSE2__)
  for (int rb = 0; rb < kRows; rb += 4) {
    for (int cb = 0; cb < 8; cb += 4) {
      __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(in + (rb + 0) * 8 + cb));
      __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(in + (rb + 1) * 8 + cb));
      __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(in + (rb + 2) * 8 + cb));
      __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(in + (rb + 3) * 8 + cb));
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(reinterpret_cast<float*>(out + (cb + 0) * kRows + rb), r0);
      _mm_storeu_ps(reinterpret_cast<float*>(out + (cb + 1) * kRows + rb), r1);
      _mm_storeu_ps(reinterpret_cast<float*>(out + (cb + 2) * kRows + rb), r2);
      _mm_storeu_ps(reinterpret_cast<float*>(out + (cb + 3) * kRows + rb), r3);
    }
  }
#else
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < 8; ++c) out[c * kRows + r] = in[r * 8 + c];
#endif
}

// out[c * 16 + r] = in[r * 16 + c] for 16-bit units: a 16 x 16 transpose.
void Transpose16x16x16(uint16_t* out, const uint16_t* in) {
#if defined(__SSE2__)
  for (int rb = 0; rb < 16; rb += 8) {
    for (int cb = 0; cb < 16; cb += 8) {
      __m128i a[8];
      for (int i = 0; i < 8; ++i) {
        a[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + (rb + i) * 16 + cb));
      }
      const __m128i t0 = _mm_unpacklo_epi16(a[0], a[1]), t1 = _mm_unpackhi_epi16(a[0], a[1]);
      const __m128i t2 = _mm_unpacklo_epi16(a[2], a[3]), t3 = _mm_unpackhi_epi16(a[2], a[3]);
      const __m128i t4 = _mm_unpacklo_epi16(a[4], a[5]), t5 = _mm_unpackhi_epi16(a[4], a[5]);
      const __m128i t6 = _mm_unpacklo_epi16(a[6], a[7]), t7 = _mm_unpackhi_epi16(a[6], a[7]);
      const __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
      const __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
      const __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
      const __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
      const __m128i cols[8] = {_mm_unpacklo_epi64(u0, u4), _mm_unpackhi_epi64(u0, u4),
                               _mm_unpacklo_epi64(u1, u5), _mm_unpackhi_epi64(u1, u5),
                               _mm_unpacklo_epi64(u2, u6), _mm_unpackhi_epi64(u2, u6),
                               _mm_unpacklo_epi64(u3, u7), _mm_unpackhi_epi64(u3, u7)};
      for (int i = 0; i < 8; ++i) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (cb + i) * 16 + rb), cols[i]);
      }
    }
  }
#else
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) out[c * 16 + r] = in[r * 16 + c];
#endif
}

// out[(k / 2) * 32 + n * 2 + k % 2] = in[k * 16 + n] for 16-bit units: k-major rows to k-pairs.
void InterleavePairs(uint16_t* out, const uint16_t* in) {
#if defined(__SSE2__)
  for (int k = 0; k < 16; k += 2) {
    const auto* r0 = reinterpret_cast<const __m128i*>(in + k * 16);
    const auto* r1 = reinterpret_cast<const __m128i*>(in + (k + 1) * 16);
    const __m128i lo0 = _mm_loadu_si128(r0), hi0 = _mm_loadu_si128(r0 + 1);
    const __m128i lo1 = _mm_loadu_si128(r1), hi1 = _mm_loadu_si128(r1 + 1);
    auto* o = reinterpret_cast<__m128i*>(out + (k / 2) * 32);
    _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(lo0, lo1));
    _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(lo0, lo1));
    _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(hi0, hi1));
    _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(hi0, hi1));
  }
#else
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 16; ++n) out[(k / 2) * 32 + n * 2 + k % 2] = in[k * 16 + n];
#endif
}

// Stores one fractal given in the documented layout (`doc`) into `dst` of kind `kind`. For L0B
// the documented order is Zn (n0 * K0 + k0); see Note [L0 intra-fractal order]. Every L0B order
// is a transpose: of 32-bit units (fp32; bf16 k-pairs; int8 k-quads) or of 16-bit units.
template <typename E>
void StoreDocumented(uint8_t* dst, const E* doc, LoadDst kind, BOrder order) {
  if (kind != LoadDst::kL0B) {
    std::memcpy(dst, doc, kFractalBytes);
    return;
  }
  if (sizeof(E) == 2 && order == BOrder::kKMajor) {
    Transpose16x16x16(reinterpret_cast<uint16_t*>(dst), reinterpret_cast<const uint16_t*>(doc));
  } else {
    Transpose32x8<16>(reinterpret_cast<uint32_t*>(dst), reinterpret_cast<const uint32_t*>(doc));
  }
}

// Writes the documented-layout fractals of one transposed square starting at `src` into doc[0]
// (and doc[1] for two-fractal squares). See LoadDataWithTranspose's contract.
template <typename E>
void TransposeSquare(const E* src, E (*doc)[kFractalBytes / sizeof(E)]) {
  if constexpr (sizeof(E) == 2) {
    Transpose16x16x16(reinterpret_cast<uint16_t*>(doc[0]), reinterpret_cast<const uint16_t*>(src));
  } else if constexpr (sizeof(E) == 4) {
    // S (16 x 16) = [F0 | F1], F raw 16 x 8; G_j (16 x 8) = columns 8j..8j+7 of S^T: rows
    // 8b..8b+7 of G_j are the transpose of rows 8j..8j+7 of F_b.
    for (uint32_t j = 0; j < 2; ++j) {
      for (uint32_t b = 0; b < 2; ++b) {
        Transpose32x8<8>(reinterpret_cast<uint32_t*>(doc[j]) + b * 64,
                        reinterpret_cast<const uint32_t*>(src) + b * 128 + j * 64);
      }
    }
  } else {
    // S (32 x 32) = [F0; F1], F raw 16 x 32; G_j (16 x 32) = rows 16j..16j+15 of S^T.
    for (uint32_t k = 0; k < 32; ++k) {
      for (uint32_t n = 0; n < 32; ++n) doc[n / 16][(n % 16) * 32 + k] = src[k * 32 + n];
    }
  }
}

// LoadDataWithTranspose of a 32- or 8-bit square straight into L0B's order (the two transposes,
// the documented one and the k-major one, cancel into row moves).
template <typename E>
void TransposeSquareIntoL0b(uint8_t* d, const uint8_t* s, uint64_t frac_step) {
  if constexpr (sizeof(E) == 4) {
    // Fractal j, k-row kk (16 floats) = [row 8j+kk of F0 | row 8j+kk of F1].
    for (uint32_t j = 0; j < 2; ++j) {
      uint8_t* out = d + j * frac_step;
      for (uint32_t kk = 0; kk < 8; ++kk) {
        std::memcpy(out + kk * 64, s + (8 * j + kk) * 32, 32);
        std::memcpy(out + kk * 64 + 32, s + kFractalBytes + (8 * j + kk) * 32, 32);
      }
    }
  } else {
    // S = [F0; F1] is 32 rows k of 32 bytes n. Fractal j, quad row q: for n0 in 0..15 the bytes
    // S[4q..4q+3][16j + n0].
    for (uint32_t j = 0; j < 2; ++j) {
      uint8_t* out = d + j * frac_step;
      for (uint32_t q = 0; q < 8; ++q) {
        const uint8_t* r = s + 4 * q * 32 + 16 * j;
#if defined(__SSE2__)
        const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r));
        const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 32));
        const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 64));
        const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 96));
        const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
        const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
        auto* o = reinterpret_cast<__m128i*>(out + q * 64);
        _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(lo01, lo23));
        _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(lo01, lo23));
        _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(hi01, hi23));
        _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(hi01, hi23));
#else
        for (uint32_t n0 = 0; n0 < 16; ++n0)
          for (uint32_t i = 0; i < 4; ++i) out[q * 64 + n0 * 4 + i] = r[i * 32 + n0];
#endif
      }
    }
  }
}

template <typename E>
void LoadTyped(uint8_t* dst, const uint8_t* src, const LoadJob& job) {
  constexpr uint32_t kElems = kFractalBytes / sizeof(E);
  // The ifTranspose of a 16-bit fractal into k-major L0B is the source as it is.
  const bool plain = !job.transpose || (sizeof(E) == 2 && job.dst_kind == LoadDst::kL0B &&
                                        job.b_order == BOrder::kKMajor);
  alignas(64) E doc[2][kElems];
  const bool copy = plain && (job.transpose || job.dst_kind != LoadDst::kL0B);
  if (copy && job.src_step == kFractalBytes && job.dst_step == kFractalBytes) {
    std::memcpy(dst, src + job.src_first, uint64_t{job.repeat} * kFractalBytes);
    return;
  }
  for (uint32_t i = 0; i < job.repeat; ++i) {
    const uint8_t* s = src + job.src_first + static_cast<int64_t>(i) * job.src_step;
    uint8_t* d = dst + i * job.dst_step;
    if (plain) {
      if (copy) {
        std::memcpy(d, s, kFractalBytes);
      } else {
        StoreDocumented(d, reinterpret_cast<const E*>(s), job.dst_kind, job.b_order);
      }
      continue;
    }
    if (job.dst_kind == LoadDst::kL0B && sizeof(E) != 2) {
      TransposeSquareIntoL0b<E>(d, s, job.dst_frac_step);
      continue;
    }
    if constexpr (sizeof(E) == 2) {
      if (job.dst_kind == LoadDst::kL0B && job.b_order == BOrder::kKPairs) {
        // The documented Zn fractal (n0 * 16 + k0) is the source's transpose and the source
        // itself is k-major (k0 * 16 + n0): the pairs come from the source directly.
        InterleavePairs(reinterpret_cast<uint16_t*>(d), reinterpret_cast<const uint16_t*>(s));
        continue;
      }
    }
    TransposeSquare(reinterpret_cast<const E*>(s), doc);
    for (uint32_t f = 0; f < job.fracs_per_repeat; ++f) {
      StoreDocumented(d + f * job.dst_frac_step, doc[f], job.dst_kind, job.b_order);
    }
  }
}

}  // namespace

void PlanLoad(LoadJob& job, const char* api, uint32_t start, uint32_t src_stride, uint32_t dst_gap,
              uint32_t dst_frac_gap, uint8_t addr_mode, const SrcLoc& loc) {
  if (addr_mode > 1) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "addrMode ", int{addr_mode},
         " is not 0 (ascending) or 1 (descending)");
  }
  const int64_t square = int64_t{job.fracs_per_repeat} * kFractalBytes;
  const int64_t first = int64_t{start} * square;
  const int64_t step = (addr_mode == 1 ? -1 : 1) * int64_t{src_stride} * square;
  const int64_t last = first + int64_t{job.repeat - 1} * step;
  if (last < 0) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "addrMode 1 (descending) from startIndex ", start,
         " with srcStride ", src_stride, " and repeatTimes ", job.repeat, " reaches source unit ",
         last / square, ", before the tensor's start");
  }
  job.src_first = first;
  job.src_step = step;
  job.src_lo = static_cast<uint64_t>(std::min(first, last));
  job.src_hi = static_cast<uint64_t>(std::max(first, last) + square);
  job.dst_step = uint64_t{1 + dst_gap} * kFractalBytes;
  job.dst_frac_step = uint64_t{1 + dst_frac_gap} * kFractalBytes;
  job.dst_hi = uint64_t{job.repeat - 1} * job.dst_step +
               uint64_t{job.fracs_per_repeat - 1} * job.dst_frac_step + kFractalBytes;
}

void LoadFractals(uint8_t* dst, const uint8_t* src, const LoadJob& job) {
  switch (job.esize) {
    case 1:
      LoadTyped<uint8_t>(dst, src, job);
      break;
    case 2:
      LoadTyped<uint16_t>(dst, src, job);
      break;
    default:
      LoadTyped<uint32_t>(dst, src, job);
      break;
  }
}

}  // namespace AscendC::detail
