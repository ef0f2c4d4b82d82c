// The packed GEMM of Note [Packed GEMM] (packed_gemm.h). Compiled once per ISA like every
// *_isa.cc file; only the AVX-512 variant has a body (the dispatcher never calls the others).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "aicore/core/dtype.h"
#include "aicore/kernel/cube/packed_gemm.h"

#if AICORE_ISA >= 2
#include <immintrin.h>

namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE {

namespace {

constexpr uint32_t kMr = 8;         // rows of a register tile (A broadcasts)
constexpr uint32_t kNj = 3;         // zmm columns of a register tile
constexpr uint32_t kNr = 16 * kNj;  // columns of a register tile
// Cache blocks: a kKc x kNr B panel (36 KiB) stays in L1 over the A panels of the kMc x kKc
// A block (180 KiB, L2); the kKc x kNc B block (2.25 MiB) is read from L2/L3 once per A block.
#ifndef GEMM_KC  // tuning builds set these
#define GEMM_KC 256
#define GEMM_MC 240
#define GEMM_NC 3072
#endif
constexpr uint32_t kKc = GEMM_KC;
constexpr uint32_t kMc = GEMM_MC;
constexpr uint32_t kNc = GEMM_NC;

// A 64-byte aligned per-thread float buffer (a GEMM never yields mid-way, so the fiber keeps
// its thread).
float* Buffer(int which, size_t floats) {
  struct Buf {
    std::unique_ptr<float[]> p;
    size_t cap = 0;
  };
  thread_local Buf bufs[2];
  Buf& b = bufs[which];
  if (b.cap < floats + 16) {
    b.p.reset(new float[floats + 16]);
    b.cap = floats + 16;
  }
  const auto addr = reinterpret_cast<uintptr_t>(b.p.get());
  return reinterpret_cast<float*>((addr + 63) & ~uintptr_t{63});
}

__mmask16 Mask16(uint32_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

// Loads 8 consecutive elements as floats.
inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 Load8(const half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
// Loads the first `mask` bits' worth of 16 consecutive elements as floats (the rest 0).
inline __m512 Load16(const float* p, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, p); }
inline __m512 Load16(const half* p, __mmask16 mask) {
  return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, p));
}

// Transposes the 8 x 8 block in r (r[i] = row i) in place (r[j] = column j).
inline void Transpose8x8(__m256 (&r)[8]) {
  __m256 t[8], s[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int h = 0; h < 8; h += 4) {
    s[h + 0] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x20);
    r[j + 4] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x31);
  }
}

// Copies the rows x cols block at src (element (r, c) at src[r * rs + c * cs]) to dst as `cols`
// groups of 8 floats: dst[c * 8 + r] = src(r, c), rows 8 and up zero. So a k-major A panel is
// (r = i, c = p) and a k-major B panel slice of 8 columns is (r = j, c = p).
template <typename S>
void PackColumns8(const S* src, int64_t rs, int64_t cs, uint32_t rows, uint32_t cols,
                  float* dst, size_t dst_stride) {
  uint32_t c = 0;
  if (rows == 8 && cs == 1) {
    for (; c + 8 <= cols; c += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i) r[i] = Load8(src + i * rs + c);
      Transpose8x8(r);
      for (int j = 0; j < 8; ++j) _mm256_storeu_ps(dst + (c + j) * dst_stride, r[j]);
    }
  } else if (rows == 8 && rs == 1) {
    for (; c < cols; ++c) _mm256_storeu_ps(dst + c * dst_stride, Load8(src + c * cs));
  }
  for (; c < cols; ++c) {
    float* d = dst + c * dst_stride;
    for (uint32_t r = 0; r < 8; ++r) d[r] = r < rows ? static_cast<float>(src[r * rs + c * cs]) : 0.f;
  }
}

// Packs A(ic .. ic+mc, pc .. pc+kc) into kMr-row panels: panel q holds dst[q*kc*8 + p*8 + r].
template <typename S>
void PackA(const GemmJob& j, const S* a, uint32_t ic, uint32_t mc, uint32_t pc, uint32_t kc,
           float* dst) {
  for (uint32_t i = 0; i < mc; i += kMr) {
    const uint32_t rows = std::min(kMr, mc - i);
    PackColumns8(a + (ic + i) * j.a_rs + pc * j.a_cs, j.a_rs, j.a_cs, rows, kc,
                 dst + size_t{i} * kc, kMr);
  }
}

// Packs the B panel B(pc .. pc+kc, j0 .. j0+cols), cols <= kNr, as dst[p*48 + c], columns past
// cols zero.
template <typename S>
void PackBPanel(const GemmJob& j, const S* b, uint32_t pc, uint32_t kc, uint32_t j0, uint32_t cols,
                float* dst) {
  const S* src = b + pc * j.b_rs + j0 * j.b_cs;
  if (j.b_cs == 1) {
    for (uint32_t p = 0; p < kc; ++p) {
      for (uint32_t v = 0; v < kNj; ++v) {
        const uint32_t left = cols > v * 16 ? cols - v * 16 : 0;
        _mm512_store_ps(dst + p * kNr + v * 16, Load16(src + p * j.b_rs + v * 16, Mask16(left)));
      }
    }
    return;
  }
  // Columns are contiguous in k: 8-column slices, each written as (p, 8 columns).
  for (uint32_t c = 0; c < kNr; c += 8) {
    const uint32_t n8 = cols > c ? std::min(8u, cols - c) : 0;
    PackColumns8(src + c * j.b_cs, j.b_cs, j.b_rs, n8, kc, dst + c, kNr);
  }
}

// The GM bytes a B panel is packed from: `rows` runs of `span` bytes, `stride` bytes apart.
struct SourceRuns {
  const char* first = nullptr;
  int64_t stride = 0;
  uint32_t rows = 0;
  uint32_t span = 0;
};

template <typename S>
SourceRuns PanelSource(const GemmJob& j, const S* b, uint32_t pc, uint32_t kc, uint32_t j0,
                       uint32_t cols) {
  const char* first = reinterpret_cast<const char*>(b + pc * j.b_rs + j0 * j.b_cs);
  if (j.b_cs == 1)
    return {first, j.b_rs * int64_t{sizeof(S)}, kc, static_cast<uint32_t>(cols * sizeof(S))};
  return {first, j.b_cs * int64_t{sizeof(S)}, cols, static_cast<uint32_t>(kc * sizeof(S))};
}

// Prefetches runs [r0, r1) of `src` into L2.
void PrefetchRuns(const SourceRuns& src, uint32_t r0, uint32_t r1) {
  for (uint32_t r = r0; r < std::min(r1, src.rows); ++r) {
    const char* run = src.first + r * src.stride;
    for (uint32_t off = 0; off < src.span + 63; off += 64) _mm_prefetch(run + off, _MM_HINT_T1);
  }
}

// The values are FullTile's mode operand.
enum class Init : uint8_t { kZero = 0, kBias = 1, kLoad = 2 };

// One register tile: C(MR rows, `cols` <= 48 columns) = init + A panel * B panel over kc.
template <uint32_t MR>
void Tile(uint32_t kc, const float* ap, const float* bp, float* c, int64_t ldc, Init init,
          const float* bias, uint32_t cols) {
  __mmask16 mask[kNj];
  for (uint32_t v = 0; v < kNj; ++v) mask[v] = Mask16(cols > v * 16 ? cols - v * 16 : 0);
  __m512 acc[MR][kNj];
  if (init == Init::kLoad) {
    for (uint32_t r = 0; r < MR; ++r)
      for (uint32_t v = 0; v < kNj; ++v)
        acc[r][v] = _mm512_maskz_loadu_ps(mask[v], c + r * ldc + v * 16);
  } else {
    for (uint32_t v = 0; v < kNj; ++v) {
      const __m512 b0 = init == Init::kBias ? _mm512_maskz_loadu_ps(mask[v], bias + v * 16)
                                            : _mm512_setzero_ps();
      for (uint32_t r = 0; r < MR; ++r) acc[r][v] = b0;
    }
  }
  // Pointer walks (no 32-bit index arithmetic in the loop: it would take FMA ports).
  auto step = [&](const float* a_k, const float* b_k) __attribute__((always_inline)) {
    __m512 bv[kNj];
    for (uint32_t v = 0; v < kNj; ++v) bv[v] = _mm512_load_ps(b_k + v * 16);
#pragma GCC unroll 8
    for (uint32_t r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(a_k[r]);
      for (uint32_t v = 0; v < kNj; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  };
  const float* const a_end = ap + size_t{kc} * kMr;
  for (; ap + 4 * kMr <= a_end; ap += 4 * kMr, bp += 4 * kNr) {
    step(ap, bp);
    step(ap + kMr, bp + kNr);
    step(ap + 2 * kMr, bp + 2 * kNr);
    step(ap + 3 * kMr, bp + 3 * kNr);
  }
  for (; ap < a_end; ap += kMr, bp += kNr) step(ap, bp);
  for (uint32_t r = 0; r < MR; ++r)
    for (uint32_t v = 0; v < kNj; ++v) _mm512_mask_storeu_ps(c + r * ldc + v * 16, mask[v], acc[r][v]);
}

using TileFn = void (*)(uint32_t, const float*, const float*, float*, int64_t, Init, const float*,
                        uint32_t);
constexpr TileFn kTiles[kMr] = {Tile<1>, Tile<2>, Tile<3>, Tile<4>,
                                Tile<5>, Tile<6>, Tile<7>, Tile<8>};


// The full 8 x 48 tile (every row and column inside C), the one nearly all the time goes to:
// the Tile<8> computation in assembly, accumulators in zmm0..23, B in zmm29..31, the broadcast A
// in zmm28, 4 k steps per loop iteration. GCC 12 compiles the intrinsic loop with accumulator
// moves and 32-bit index arithmetic that take FMA ports (about 120 against 145 GFLOP/s here).
// Same fma per element in the same order, so the same bits.
void FullTile(uint32_t kc, const float* ap, const float* bp, float* c, int64_t ldc, Init init,
              const float* bias) {
  uint64_t steps = kc / 4, rem = kc % 4;
  const int64_t ldc_bytes = ldc * 4;
  asm volatile(
      "cmpq $2, %[mode]\n\t"
      "je 3f\n\t"
      "cmpq $1, %[mode]\n\t"
      "je 4f\n\t"
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
      "vpxord %%zmm2, %%zmm2, %%zmm2\n\t"
      "vpxord %%zmm3, %%zmm3, %%zmm3\n\t"
      "vpxord %%zmm4, %%zmm4, %%zmm4\n\t"
      "vpxord %%zmm5, %%zmm5, %%zmm5\n\t"
      "vpxord %%zmm6, %%zmm6, %%zmm6\n\t"
      "vpxord %%zmm7, %%zmm7, %%zmm7\n\t"
      "vpxord %%zmm8, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
      "vpxord %%zmm10, %%zmm10, %%zmm10\n\t"
      "vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
      "vpxord %%zmm12, %%zmm12, %%zmm12\n\t"
      "vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
      "vpxord %%zmm14, %%zmm14, %%zmm14\n\t"
      "vpxord %%zmm15, %%zmm15, %%zmm15\n\t"
      "vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
      "vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
      "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
      "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
      "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
      "vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
      "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
      "jmp 5f\n\t"
      "4:\n\t"
      "vmovups 0(%[bias]), %%zmm0\n\t"
      "vmovups 64(%[bias]), %%zmm1\n\t"
      "vmovups 128(%[bias]), %%zmm2\n\t"
      "vmovaps %%zmm0, %%zmm3\n\t"
      "vmovaps %%zmm1, %%zmm4\n\t"
      "vmovaps %%zmm2, %%zmm5\n\t"
      "vmovaps %%zmm0, %%zmm6\n\t"
      "vmovaps %%zmm1, %%zmm7\n\t"
      "vmovaps %%zmm2, %%zmm8\n\t"
      "vmovaps %%zmm0, %%zmm9\n\t"
      "vmovaps %%zmm1, %%zmm10\n\t"
      "vmovaps %%zmm2, %%zmm11\n\t"
      "vmovaps %%zmm0, %%zmm12\n\t"
      "vmovaps %%zmm1, %%zmm13\n\t"
      "vmovaps %%zmm2, %%zmm14\n\t"
      "vmovaps %%zmm0, %%zmm15\n\t"
      "vmovaps %%zmm1, %%zmm16\n\t"
      "vmovaps %%zmm2, %%zmm17\n\t"
      "vmovaps %%zmm0, %%zmm18\n\t"
      "vmovaps %%zmm1, %%zmm19\n\t"
      "vmovaps %%zmm2, %%zmm20\n\t"
      "vmovaps %%zmm0, %%zmm21\n\t"
      "vmovaps %%zmm1, %%zmm22\n\t"
      "vmovaps %%zmm2, %%zmm23\n\t"
      "jmp 5f\n\t"
      "3:\n\t"
      "vmovups 0(%[c]), %%zmm0\n\t"
      "vmovups 64(%[c]), %%zmm1\n\t"
      "vmovups 128(%[c]), %%zmm2\n\t"
      "vmovups 0(%[c],%[ldc]), %%zmm3\n\t"
      "vmovups 64(%[c],%[ldc]), %%zmm4\n\t"
      "vmovups 128(%[c],%[ldc]), %%zmm5\n\t"
      "vmovups 0(%[c],%[ldc],2), %%zmm6\n\t"
      "vmovups 64(%[c],%[ldc],2), %%zmm7\n\t"
      "vmovups 128(%[c],%[ldc],2), %%zmm8\n\t"
      "vmovups 0(%[c],%[ldc3]), %%zmm9\n\t"
      "vmovups 64(%[c],%[ldc3]), %%zmm10\n\t"
      "vmovups 128(%[c],%[ldc3]), %%zmm11\n\t"
      "vmovups 0(%[c4]), %%zmm12\n\t"
      "vmovups 64(%[c4]), %%zmm13\n\t"
      "vmovups 128(%[c4]), %%zmm14\n\t"
      "vmovups 0(%[c4],%[ldc]), %%zmm15\n\t"
      "vmovups 64(%[c4],%[ldc]), %%zmm16\n\t"
      "vmovups 128(%[c4],%[ldc]), %%zmm17\n\t"
      "vmovups 0(%[c4],%[ldc],2), %%zmm18\n\t"
      "vmovups 64(%[c4],%[ldc],2), %%zmm19\n\t"
      "vmovups 128(%[c4],%[ldc],2), %%zmm20\n\t"
      "vmovups 0(%[c4],%[ldc3]), %%zmm21\n\t"
      "vmovups 64(%[c4],%[ldc3]), %%zmm22\n\t"
      "vmovups 128(%[c4],%[ldc3]), %%zmm23\n\t"
      "5:\n\t"
      "testq %[steps], %[steps]\n\t"
      "jz 6f\n\t"
      "1:\n\t"
      "vmovaps 0(%[bp]), %%zmm29\n\t"
      "vmovaps 64(%[bp]), %%zmm30\n\t"
      "vmovaps 128(%[bp]), %%zmm31\n\t"
      "vbroadcastss 0(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm0\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm1\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm2\n\t"
      "vbroadcastss 4(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm3\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm4\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm5\n\t"
      "vbroadcastss 8(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm6\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm7\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm8\n\t"
      "vbroadcastss 12(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm9\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm10\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm11\n\t"
      "vbroadcastss 16(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm12\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm13\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm14\n\t"
      "vbroadcastss 20(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm15\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm16\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm17\n\t"
      "vbroadcastss 24(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm18\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm19\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm20\n\t"
      "vbroadcastss 28(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm21\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm22\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm23\n\t"
      "vmovaps 192(%[bp]), %%zmm29\n\t"
      "vmovaps 256(%[bp]), %%zmm30\n\t"
      "vmovaps 320(%[bp]), %%zmm31\n\t"
      "vbroadcastss 32(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm0\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm1\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm2\n\t"
      "vbroadcastss 36(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm3\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm4\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm5\n\t"
      "vbroadcastss 40(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm6\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm7\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm8\n\t"
      "vbroadcastss 44(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm9\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm10\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm11\n\t"
      "vbroadcastss 48(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm12\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm13\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm14\n\t"
      "vbroadcastss 52(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm15\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm16\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm17\n\t"
      "vbroadcastss 56(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm18\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm19\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm20\n\t"
      "vbroadcastss 60(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm21\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm22\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm23\n\t"
      "vmovaps 384(%[bp]), %%zmm29\n\t"
      "vmovaps 448(%[bp]), %%zmm30\n\t"
      "vmovaps 512(%[bp]), %%zmm31\n\t"
      "vbroadcastss 64(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm0\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm1\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm2\n\t"
      "vbroadcastss 68(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm3\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm4\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm5\n\t"
      "vbroadcastss 72(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm6\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm7\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm8\n\t"
      "vbroadcastss 76(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm9\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm10\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm11\n\t"
      "vbroadcastss 80(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm12\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm13\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm14\n\t"
      "vbroadcastss 84(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm15\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm16\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm17\n\t"
      "vbroadcastss 88(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm18\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm19\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm20\n\t"
      "vbroadcastss 92(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm21\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm22\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm23\n\t"
      "vmovaps 576(%[bp]), %%zmm29\n\t"
      "vmovaps 640(%[bp]), %%zmm30\n\t"
      "vmovaps 704(%[bp]), %%zmm31\n\t"
      "vbroadcastss 96(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm0\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm1\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm2\n\t"
      "vbroadcastss 100(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm3\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm4\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm5\n\t"
      "vbroadcastss 104(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm6\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm7\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm8\n\t"
      "vbroadcastss 108(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm9\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm10\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm11\n\t"
      "vbroadcastss 112(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm12\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm13\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm14\n\t"
      "vbroadcastss 116(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm15\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm16\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm17\n\t"
      "vbroadcastss 120(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm18\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm19\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm20\n\t"
      "vbroadcastss 124(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm21\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm22\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm23\n\t"
      "addq $128, %[ap]\n\t"
      "addq $768, %[bp]\n\t"
      "decq %[steps]\n\t"
      "jnz 1b\n\t"
      "6:\n\t"
      "testq %[rem], %[rem]\n\t"
      "jz 7f\n\t"
      "2:\n\t"
      "vmovaps 0(%[bp]), %%zmm29\n\t"
      "vmovaps 64(%[bp]), %%zmm30\n\t"
      "vmovaps 128(%[bp]), %%zmm31\n\t"
      "vbroadcastss 0(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm0\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm1\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm2\n\t"
      "vbroadcastss 4(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm3\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm4\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm5\n\t"
      "vbroadcastss 8(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm6\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm7\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm8\n\t"
      "vbroadcastss 12(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm9\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm10\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm11\n\t"
      "vbroadcastss 16(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm12\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm13\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm14\n\t"
      "vbroadcastss 20(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm15\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm16\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm17\n\t"
      "vbroadcastss 24(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm18\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm19\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm20\n\t"
      "vbroadcastss 28(%[ap]), %%zmm28\n\t"
      "vfmadd231ps %%zmm29, %%zmm28, %%zmm21\n\t"
      "vfmadd231ps %%zmm30, %%zmm28, %%zmm22\n\t"
      "vfmadd231ps %%zmm31, %%zmm28, %%zmm23\n\t"
      "addq $32, %[ap]\n\t"
      "addq $192, %[bp]\n\t"
      "decq %[rem]\n\t"
      "jnz 2b\n\t"
      "7:\n\t"
      "vmovups %%zmm0, 0(%[c])\n\t"
      "vmovups %%zmm1, 64(%[c])\n\t"
      "vmovups %%zmm2, 128(%[c])\n\t"
      "vmovups %%zmm3, 0(%[c],%[ldc])\n\t"
      "vmovups %%zmm4, 64(%[c],%[ldc])\n\t"
      "vmovups %%zmm5, 128(%[c],%[ldc])\n\t"
      "vmovups %%zmm6, 0(%[c],%[ldc],2)\n\t"
      "vmovups %%zmm7, 64(%[c],%[ldc],2)\n\t"
      "vmovups %%zmm8, 128(%[c],%[ldc],2)\n\t"
      "vmovups %%zmm9, 0(%[c],%[ldc3])\n\t"
      "vmovups %%zmm10, 64(%[c],%[ldc3])\n\t"
      "vmovups %%zmm11, 128(%[c],%[ldc3])\n\t"
      "vmovups %%zmm12, 0(%[c4])\n\t"
      "vmovups %%zmm13, 64(%[c4])\n\t"
      "vmovups %%zmm14, 128(%[c4])\n\t"
      "vmovups %%zmm15, 0(%[c4],%[ldc])\n\t"
      "vmovups %%zmm16, 64(%[c4],%[ldc])\n\t"
      "vmovups %%zmm17, 128(%[c4],%[ldc])\n\t"
      "vmovups %%zmm18, 0(%[c4],%[ldc],2)\n\t"
      "vmovups %%zmm19, 64(%[c4],%[ldc],2)\n\t"
      "vmovups %%zmm20, 128(%[c4],%[ldc],2)\n\t"
      "vmovups %%zmm21, 0(%[c4],%[ldc3])\n\t"
      "vmovups %%zmm22, 64(%[c4],%[ldc3])\n\t"
      "vmovups %%zmm23, 128(%[c4],%[ldc3])\n\t"
      : [ap] "+r"(ap), [bp] "+r"(bp), [steps] "+r"(steps), [rem] "+r"(rem)
      : [c] "r"(c), [c4] "r"(c + 4 * ldc), [ldc] "r"(ldc_bytes), [ldc3] "r"(3 * ldc_bytes),
        [mode] "r"(static_cast<uint64_t>(init)), [bias] "r"(bias)
      : "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9", "zmm10", "zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "zmm16", "zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "zmm22", "zmm23", "zmm24", "zmm25", "zmm26", "zmm27", "zmm28", "zmm29", "zmm30", "zmm31", "cc", "memory");
}

template <typename S>
void Gemm(const GemmJob& j) {
  const auto* a = static_cast<const S*>(j.a);
  const auto* b = static_cast<const S*>(j.b);
  const uint32_t nc_max = (std::min(kNc, j.n) + kNr - 1) / kNr * kNr;
  const uint32_t kc_max = std::min(kKc, j.k);
  float* bpack = Buffer(0, size_t{kc_max} * nc_max);
  float* apack = Buffer(1, size_t{kc_max} * (std::min(kMc, j.m) + kMr));
  for (uint32_t jc = 0; jc < j.n; jc += kNc) {
    const uint32_t nc = std::min(kNc, j.n - jc);
    for (uint32_t pc = 0; pc < j.k; pc += kKc) {
      const uint32_t kc = std::min(kKc, j.k - pc);
      const Init init = pc > 0 ? Init::kLoad : j.bias != nullptr ? Init::kBias : Init::kZero;
      for (uint32_t ic = 0; ic < j.m; ic += kMc) {
        const uint32_t mc = std::min(kMc, j.m - ic);
        const uint32_t tiles = (mc + kMr - 1) / kMr;
        PackA(j, a, ic, mc, pc, kc, apack);
        for (uint32_t jr = 0; jr < nc; jr += kNr) {
          float* bp = bpack + size_t{jr} * kc;
          const uint32_t cols = std::min(kNr, nc - jr);
          // The first A block packs each B panel just before its tiles, and meanwhile
          // prefetches the source of the next panel, so the GM reads overlap the FMAs.
          SourceRuns next;
          if (ic == 0) {
            PackBPanel(j, b, pc, kc, jc + jr, cols, bp);
            if (jr + kNr < nc) {
              next = PanelSource(j, b, pc, kc, jc + jr + kNr, std::min(kNr, nc - jr - kNr));
            }
          }
          const uint32_t runs_per_tile = (next.rows + tiles - 1) / tiles;
          const float* bias = j.bias != nullptr ? j.bias + jc + jr : nullptr;
          for (uint32_t t = 0, ir = 0; ir < mc; ++t, ir += kMr) {
            PrefetchRuns(next, t * runs_per_tile, (t + 1) * runs_per_tile);
            const uint32_t rows = std::min(kMr, mc - ir);
            float* c = j.c + (ic + ir) * j.ldc + jc + jr;
            if (rows == kMr && cols == kNr)
              FullTile(kc, apack + size_t{ir} * kc, bp, c, j.ldc, init, bias);
            else
              kTiles[rows - 1](kc, apack + size_t{ir} * kc, bp, c, j.ldc, init, bias, cols);
          }
        }
      }
    }
  }
}

}  // namespace

void PackedGemm(const GemmJob& job) {
  if (job.type == GemmIn::kF16)
    Gemm<half>(job);
  else
    Gemm<float>(job);
}

}  // namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE

#endif  // AICORE_ISA >= 2
