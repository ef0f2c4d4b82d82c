// Mmad micro-kernels for one instruction set (compiled once per ISA, see aicore_add_isa_sources):
// - portable: plain loops over the l0_layout.h indices, every dtype;
// - AVX2: fp32 register-blocked 6 x 16 tiles (12 ymm accumulators); fp16/bf16 widened to fp32;
// - AVX-512: fp32 8 x 48 tiles (24 zmm accumulators), A broadcast per row, B rows loaded from the
//   k-major L0B fractals; fp16 widened to fp32 scratch panels, then the fp32 kernel; bf16 with AMX
//   TDPBF16PS on whole fractals where the CPU allows it (Note [AMX bf16]), else widened the same
//   way or with VDPBF16PS on k-pairs (See Note [bf16 kernel choice]); int8 with VPDPBUSD
//   (AVX512_VNNI) on k-quads.
// Each tile keeps its C block in registers over the whole k of the call, reading L0A/L0B/L0C in
// place, and touches C once (load or init, then store). int8 uses the portable loop on hosts
// without AVX512_VNNI. The accumulation order is fixed, see Note [Mmad accumulation order].
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "aicore/core/cpu.h"
#include "aicore/core/dtype.h"
#include "aicore/core/env.h"
#include "aicore/core/log.h"
#include "aicore/kernel/cube/l0_layout.h"
#include "aicore/kernel/cube/mmad_kernels.h"
#include "aicore/kernel/cube/scratch.h"
#if AICORE_ISA >= 2
#include "aicore/kernel/cube/tile_asm.h"
#endif

#if AICORE_ISA >= 1
#include <immintrin.h>
#endif

namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE {

namespace {

namespace l0 = AscendC::detail::l0;

constexpr size_t kCFrac = 256;  // elements of one 16 x 16 L0C fractal

size_t CIndex(uint32_t m, uint32_t n, uint32_t m1_count) {
  return ((size_t{n / 16} * m1_count + m / 16) * 16 + m % 16) * 16 + n % 16;
}

// --- Portable: the documented order on every dtype ----------------------------------------

template <typename S, typename Acc>
void MmadScalar(const MmadJob& j) {
  const S* a = static_cast<const S*>(j.a);
  const S* b = static_cast<const S*>(j.b);
  Acc* c = static_cast<Acc*>(j.c);
  const Acc* bias = static_cast<const Acc*>(j.bias);
  for (uint32_t n = 0; n < j.n; ++n) {
    for (uint32_t m = 0; m < j.m; ++m) {
      const size_t ci = CIndex(m, n, j.m1);
      Acc acc = j.init == MmadInit::kZero ? Acc{0} : j.init == MmadInit::kBias ? bias[n] : c[ci];
      for (uint32_t k = 0; k < j.k; ++k) {
        const S av = a[l0::AIndex<S>(m, k, j.a_k1)];
        const S bv = b[l0::BIndex<S>(k, n, j.n1)];
        if constexpr (std::is_same_v<Acc, float>) {
          acc = std::fma(static_cast<float>(av), static_cast<float>(bv), acc);
        } else {
          acc += static_cast<int32_t>(av) * static_cast<int32_t>(bv);
        }
      }
      c[ci] = acc;
    }
  }
}

void MmadPortable(const MmadJob& j) {
  switch (j.type) {
    case MmadType::kF32:
      MmadScalar<float, float>(j);
      break;
    case MmadType::kF16:
      MmadScalar<half, float>(j);
      break;
    case MmadType::kBF16:
      MmadScalar<bfloat16, float>(j);
      break;
    case MmadType::kI8:
      MmadScalar<int8_t, int32_t>(j);
      break;
  }
}

#if AICORE_ISA >= 1

[[maybe_unused]] float Widen(half h) { return static_cast<float>(h); }
[[maybe_unused]] float Widen(bfloat16 h) { return static_cast<float>(h); }

#if AICORE_ISA == 1
// Widens 8 consecutive fp16 (F16C) or bf16 (a shift) values to fp32.
[[maybe_unused]] __m256 Widen8(const half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
[[maybe_unused]] __m256 Widen8(const bfloat16* p) {
  const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(raw), 16));
}
#endif

// Widens the 16-bit operands of `j` into fp32 L0 layouts (K0 = 8): A with 2*K1 fractals per
// fractal row, B with 2*K1 fractal rows. Returns the job rewritten to use them.
template <typename S>
MmadJob WidenToF32(const MmadJob& j) {
  const uint32_t k1_16 = (j.k + 15) / 16;  // 16-bit fractals along k that hold data
  const uint32_t a_k1 = 2 * k1_16;
  float* a32 = ScratchFloats(ScratchSlot::kMmadA, size_t{j.m1} * a_k1 * 128);
  float* b32 = ScratchFloats(ScratchSlot::kMmadB, size_t{2 * k1_16} * j.n1 * 128);
  const S* a = static_cast<const S*>(j.a);
  const S* b = static_cast<const S*>(j.b);
  for (uint32_t m1 = 0; m1 < j.m1; ++m1) {
    for (uint32_t k1 = 0; k1 < k1_16; ++k1) {
      const S* src = a + (size_t{m1} * j.a_k1 + k1) * 256;
      float* lo = a32 + (size_t{m1} * a_k1 + 2 * k1) * 128;
      float* hi = lo + 128;
      for (uint32_t m0 = 0; m0 < 16; ++m0) {
        const S* row = src + m0 * 16;
#if AICORE_ISA >= 2
        // The maskz forms: the unmasked ones trip GCC 12's -Wmaybe-uninitialized in its header.
        const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
        __m512 v;
        if constexpr (std::is_same_v<S, half>) {
          v = _mm512_maskz_cvtph_ps(0xFFFF, raw);
        } else {
          v = _mm512_castsi512_ps(
              _mm512_maskz_slli_epi32(0xFFFF, _mm512_maskz_cvtepu16_epi32(0xFFFF, raw), 16));
        }
        // Lanes 0-7 to the low k-fractal, lanes 8-15 to the high one (hi - 8 + 8 = row start).
        _mm512_mask_storeu_ps(lo + m0 * 8, 0x00FF, v);
        _mm512_mask_storeu_ps(hi + m0 * 8 - 8, 0xFF00, v);
#else
        _mm256_storeu_ps(lo + m0 * 8, Widen8(row));
        _mm256_storeu_ps(hi + m0 * 8, Widen8(row + 8));
#endif
      }
    }
  }
  for (uint32_t k1 = 0; k1 < k1_16; ++k1) {
    for (uint32_t n1 = 0; n1 < j.n1; ++n1) {
      const S* src = b + (size_t{k1} * j.n1 + n1) * 256;
      for (uint32_t k0 = 0; k0 < 16; ++k0) {
        float* dst = b32 + (size_t{2 * k1 + k0 / 8} * j.n1 + n1) * 128 + (k0 % 8) * 16;
        if constexpr (l0::BOrderOf<S>() == l0::BOrder::kKMajor) {
          const S* row = src + k0 * 16;
#if AICORE_ISA >= 2
          _mm512_storeu_ps(dst,
                           _mm512_maskz_cvtph_ps(
                               0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row))));
#else
          _mm256_storeu_ps(dst, Widen8(row));
          _mm256_storeu_ps(dst + 8, Widen8(row + 8));
#endif
        } else {
#if AICORE_ISA >= 2
          // A k-pair row holds (b[k][n], b[k+1][n]) per 32-bit lane: k even is the low half
          // shifted up, k odd the high half masked.
          if (k0 % 2 == 0) {
            const __m512i pairs = _mm512_loadu_si512(src + (k0 / 2) * 32);
            _mm512_storeu_ps(dst, _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, pairs, 16)));
            _mm512_storeu_ps(dst + 16, _mm512_castsi512_ps(_mm512_and_si512(
                                           pairs, _mm512_set1_epi32(int32_t(0xFFFF0000u)))));
          }
#else
          for (uint32_t n0 = 0; n0 < 16; ++n0) dst[n0] = Widen(src[l0::BInFractal<S>(k0, n0)]);
#endif
        }
      }
    }
  }
  MmadJob w = j;
  w.type = MmadType::kF32;
  w.a = a32;
  w.b = b32;
  w.a_k1 = a_k1;
  w.b_k1 = 2 * k1_16;
  return w;
}

#endif  // AICORE_ISA >= 1

#if AICORE_ISA == 1

// --- AVX2: fp32 tiles of MR rows x 16 columns (two ymm per row) -----------------------------

constexpr int kMrAvx2 = 6;

template <int MR>
void TileF32Avx2(const float* a, const float* b, size_t b_k1_stride, float* c, uint32_t k,
                 MmadInit init, const float* bias, uint32_t bias_valid) {
  __m256 acc[MR][2];
  if (init == MmadInit::kAccumulate) {
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = _mm256_loadu_ps(c + r * 16);
      acc[r][1] = _mm256_loadu_ps(c + r * 16 + 8);
    }
  } else {
    alignas(32) float row[16] = {};
    if (init == MmadInit::kBias) {
      for (uint32_t i = 0; i < 16 && i < bias_valid; ++i) row[i] = bias[i];
    }
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = _mm256_load_ps(row);
      acc[r][1] = _mm256_load_ps(row + 8);
    }
  }
  auto step = [&](const float* ap, const float* bp) {
    const __m256 b0 = _mm256_loadu_ps(bp);
    const __m256 b1 = _mm256_loadu_ps(bp + 8);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const __m256 av = _mm256_broadcast_ss(ap + r * 8);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  };
  uint32_t kk = 0;
  for (; kk + 8 <= k; kk += 8, a += 128, b += b_k1_stride) {
#pragma GCC unroll 8
    for (int u = 0; u < 8; ++u) step(a + u, b + u * 16);
  }
  for (uint32_t u = 0; kk + u < k; ++u) step(a + u, b + u * 16);
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_ps(c + r * 16, acc[r][0]);
    _mm256_storeu_ps(c + r * 16 + 8, acc[r][1]);
  }
}

using TileAvx2Fn = void (*)(const float*, const float*, size_t, float*, uint32_t, MmadInit,
                            const float*, uint32_t);
constexpr TileAvx2Fn kTilesAvx2[kMrAvx2] = {TileF32Avx2<1>, TileF32Avx2<2>, TileF32Avx2<3>,
                                            TileF32Avx2<4>, TileF32Avx2<5>, TileF32Avx2<6>};

void MmadF32(const MmadJob& j) {
  const float* A = static_cast<const float*>(j.a);
  const float* B = static_cast<const float*>(j.b);
  float* C = static_cast<float*>(j.c);
  const float* bias = static_cast<const float*>(j.bias);
  const size_t b_k1_stride = size_t{j.n1} * 128;
  for (uint32_t n1 = 0; n1 < j.n1; ++n1) {
    for (uint32_t m1 = 0; m1 < j.m1; ++m1) {
      for (uint32_t m0 = 0; m0 < 16; m0 += kMrAvx2) {
        const uint32_t m = m1 * 16 + m0;
        if (m >= j.m) break;
        const uint32_t rows = std::min<uint32_t>({kMrAvx2, 16 - m0, j.m - m});
        kTilesAvx2[rows - 1](A + size_t{m1} * j.a_k1 * 128 + m0 * 8, B + size_t{n1} * 128,
                             b_k1_stride, C + (size_t{n1} * j.m1 + m1) * kCFrac + m0 * 16, j.k,
                             j.init, bias ? bias + n1 * 16 : nullptr, j.n - n1 * 16);
      }
    }
  }
}

const char* F32Name() { return "avx2-fma 6x16"; }

#endif  // AICORE_ISA == 1

#if AICORE_ISA >= 2

// --- AVX-512: fp32 tiles of MR rows x NJ*16 columns -----------------------------------------

constexpr int kMr = 8;

// Initial accumulators of a tile: zero, C, or the bias row (lanes past `bias_valid` are 0).
template <int MR, int NJ>
inline void InitAcc(__m512 (&acc)[MR][NJ], const float* c, size_t c_j_stride, MmadInit init,
                    const float* bias, uint32_t bias_valid) {
  if (init == MmadInit::kAccumulate) {
    for (int r = 0; r < MR; ++r)
      for (int jj = 0; jj < NJ; ++jj) acc[r][jj] = _mm512_loadu_ps(c + jj * c_j_stride + r * 16);
    return;
  }
  for (int jj = 0; jj < NJ; ++jj) {
    __m512 v = _mm512_setzero_ps();
    if (init == MmadInit::kBias && bias_valid > uint32_t(jj * 16)) {
      const uint32_t left = bias_valid - jj * 16;
      const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      v = _mm512_maskz_loadu_ps(mask, bias + jj * 16);
    }
    for (int r = 0; r < MR; ++r) acc[r][jj] = v;
  }
}

template <int MR, int NJ>
inline void StoreAcc(const __m512 (&acc)[MR][NJ], float* c, size_t c_j_stride) {
  for (int r = 0; r < MR; ++r)
    for (int jj = 0; jj < NJ; ++jj) _mm512_storeu_ps(c + jj * c_j_stride + r * 16, acc[r][jj]);
}

// The 8-row tile in assembly (Note [Assembly tiles]). L0 layouts: A(row r, step u) at
// a + 4u + 32r bytes within a Zz fractal, B(step u, vector v) at b + 64u + 512v within a row of
// k-major Zn fractals; 8 steps per fractal, then a += 512 B and b += b_k1_stride floats. C row r,
// vector v at c + 64r + v * c_j_stride floats (Nz). The bias row is masked to bias_valid (k1..k3).
#define AICORE_MM_CV0 "(%[c])"
#define AICORE_MM_CV1 "(%[c],%[cj])"
#define AICORE_MM_CV2 "(%[c],%[cj],2)"
#define AICORE_MM_LDC(v, r, z) "vmovups 64*" #r AICORE_MM_CV##v ", %%zmm" #z "\n\t"
#define AICORE_MM_STC(v, r, z) "vmovups %%zmm" #z ", 64*" #r AICORE_MM_CV##v "\n\t"
#define AICORE_MM_LDB(u, v, z) "vmovups 64*" #u "+512*" #v "(%[bp]), %%zmm" #z "\n\t"
#define AICORE_MM_BC(u, r) "vbroadcastss 4*" #u "+32*" #r "(%[ap]), %%zmm28\n\t"
#define AICORE_MM_STEP(NJ, u) AICORE_TA_STEP##NJ(AICORE_MM_LDB, AICORE_MM_BC, u)
#define AICORE_MM_TILE(NJ)                                                                    \
  AICORE_TA_LOAD_MASKS AICORE_TA_INIT(NJ, AICORE_MM_LDC)                                 \
  "testq %[steps], %[steps]\n\t"                                                              \
  "jz 6f\n\t"                                                                                 \
  "1:\n\t" AICORE_MM_STEP(NJ, 0) AICORE_MM_STEP(NJ, 1) AICORE_MM_STEP(NJ, 2)                  \
  AICORE_MM_STEP(NJ, 3) AICORE_MM_STEP(NJ, 4) AICORE_MM_STEP(NJ, 5) AICORE_MM_STEP(NJ, 6)     \
  AICORE_MM_STEP(NJ, 7)                                                                       \
  "addq $512, %[ap]\n\t"                                                                      \
  "addq %[bk1], %[bp]\n\t"                                                                    \
  "decq %[steps]\n\t"                                                                         \
  "jnz 1b\n\t"                                                                                \
  "6:\n\t"                                                                                    \
  "testq %[rem], %[rem]\n\t"                                                                  \
  "jz 7f\n\t"                                                                                 \
  "2:\n\t" AICORE_MM_STEP(NJ, 0)                                                              \
  "addq $4, %[ap]\n\t"                                                                        \
  "addq $64, %[bp]\n\t"                                                                       \
  "decq %[rem]\n\t"                                                                           \
  "jnz 2b\n\t"                                                                                \
  "7:\n\t" AICORE_TA_EACH##NJ(AICORE_MM_STC)

template <int NJ>
void TileF32Asm(const float* a, const float* b, size_t b_k1_stride, float* c, size_t c_j_stride,
                uint32_t k, MmadInit init, const float* bias, uint32_t bias_valid) {
  uint64_t steps = k / 8, rem = k % 8;
  const uint64_t mode = init == MmadInit::kZero ? 0 : init == MmadInit::kBias ? 1 : 2;
  auto mask = [&](uint32_t v) -> uint64_t {
    const uint32_t left = bias_valid > v * 16 ? bias_valid - v * 16 : 0;
    return left >= 16 ? 0xFFFF : (1u << left) - 1;
  };
  uint64_t masks = mask(0) | mask(1) << 16 | mask(2) << 32;
  const int64_t bk1 = static_cast<int64_t>(b_k1_stride * sizeof(float));
  const int64_t cj = static_cast<int64_t>(c_j_stride * sizeof(float));
#define AICORE_MM_OPERANDS                                                                  \
  : [ap] "+r"(a), [bp] "+r"(b), [steps] "+r"(steps), [rem] "+r"(rem), [masks] "+r"(masks)   \
  : [c] "r"(c), [cj] "r"(cj), [mode] "r"(mode), [bias] "r"(bias), [bk1] "r"(bk1)            \
  : AICORE_TA_CLOBBERS
  if constexpr (NJ == 3) {
    asm volatile(AICORE_MM_TILE(3) AICORE_MM_OPERANDS);
  } else if constexpr (NJ == 2) {
    asm volatile(AICORE_MM_TILE(2) AICORE_MM_OPERANDS);
  } else {
    asm volatile(AICORE_MM_TILE(1) AICORE_MM_OPERANDS);
  }
#undef AICORE_MM_OPERANDS
}

// a: A(row 0 of the tile, k = 0) in a Zz fp32 fractal (rows 8 floats apart, next k-fractal 128
// floats on); b: B(k = 0, first column) in a k-major Zn fp32 fractal (next k 16 floats on, next
// column fractal 128, next k-fractal b_k1_stride); c: C(row 0, first column), next column
// fractal c_j_stride floats on. Full 8-row tiles run in assembly, the same bits.
template <int MR, int NJ>
void TileF32(const float* a, const float* b, size_t b_k1_stride, float* c, size_t c_j_stride,
             uint32_t k, MmadInit init, const float* bias, uint32_t bias_valid) {
  if constexpr (MR == 8) {
    TileF32Asm<NJ>(a, b, b_k1_stride, c, c_j_stride, k, init, bias, bias_valid);
    return;
  }
  __m512 acc[MR][NJ];
  InitAcc<MR, NJ>(acc, c, c_j_stride, init, bias, bias_valid);
  auto step = [&](const float* ap, const float* bp) __attribute__((always_inline)) {
    __m512 bv[NJ];
#pragma GCC unroll 4
    for (int jj = 0; jj < NJ; ++jj) bv[jj] = _mm512_loadu_ps(bp + jj * 128);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * 8]);
#pragma GCC unroll 4
      for (int jj = 0; jj < NJ; ++jj) acc[r][jj] = _mm512_fmadd_ps(av, bv[jj], acc[r][jj]);
    }
  };
  uint32_t kk = 0;
  for (; kk + 8 <= k; kk += 8, a += 128, b += b_k1_stride) {
#pragma GCC unroll 8
    for (int u = 0; u < 8; ++u) step(a + u, b + u * 16);
  }
  for (uint32_t u = 0; kk + u < k; ++u) step(a + u, b + u * 16);
  StoreAcc<MR, NJ>(acc, c, c_j_stride);
}

using TileFn = void (*)(const float*, const float*, size_t, float*, size_t, uint32_t, MmadInit,
                        const float*, uint32_t);

template <int NJ>
constexpr TileFn kTilesRow[kMr] = {TileF32<1, NJ>, TileF32<2, NJ>, TileF32<3, NJ>, TileF32<4, NJ>,
                                   TileF32<5, NJ>, TileF32<6, NJ>, TileF32<7, NJ>, TileF32<8, NJ>};

// Splits n1 fractal columns into groups of 3 (2 + 2 instead of a lone 1 when possible).
template <typename Fn>
void ForEachColumnGroup(uint32_t n1, Fn&& fn) {
  uint32_t start = 0;
  while (start < n1) {
    const uint32_t left = n1 - start;
    const uint32_t nj = left >= 5 || left == 3 ? 3 : left == 4 ? 2 : left;
    fn(start, nj);
    start += nj;
  }
}

// Runs an Mmad job through register tiles: fractal columns in groups of up to 3 (row1/row2/row3
// hold the tile of each width, indexed by rows - 1), rows in steps of kMr. kK0 is the elements per
// fractal row of the In type (a fractal is 16 x kK0); C and the bias are Acc.
template <typename In, typename Acc, uint32_t kK0, typename Tile>
void RunTiles(const MmadJob& j, const Tile* row1, const Tile* row2, const Tile* row3) {
  constexpr size_t kFrac = 16 * kK0;
  const auto* A = static_cast<const In*>(j.a);
  const auto* B = static_cast<const In*>(j.b);
  auto* C = static_cast<Acc*>(j.c);
  const auto* bias = static_cast<const Acc*>(j.bias);
  const size_t b_k1_stride = size_t{j.n1} * kFrac;
  const size_t c_j_stride = size_t{j.m1} * kCFrac;
  ForEachColumnGroup(j.n1, [&](uint32_t n1, uint32_t nj) {
    const Tile* tiles = nj == 3 ? row3 : nj == 2 ? row2 : row1;
    for (uint32_t m1 = 0; m1 < j.m1; ++m1) {
      for (uint32_t m0 = 0; m0 < 16; m0 += kMr) {
        const uint32_t m = m1 * 16 + m0;
        if (m >= j.m) break;
        const uint32_t rows = std::min<uint32_t>(kMr, j.m - m);
        tiles[rows - 1](A + size_t{m1} * j.a_k1 * kFrac + m0 * kK0, B + size_t{n1} * kFrac,
                        b_k1_stride, C + (size_t{n1} * j.m1 + m1) * kCFrac + m0 * 16, c_j_stride,
                        j.k, j.init, bias ? bias + n1 * 16 : nullptr, j.n - n1 * 16);
      }
    }
  });
}

void MmadF32(const MmadJob& j) {
  RunTiles<float, float, 8>(j, kTilesRow<1>, kTilesRow<2>, kTilesRow<3>);
}

const char* F32Name() { return "avx512-fma 8x48"; }

// --- AVX-512 BF16: VDPBF16PS on k-pairs -----------------------------------------------------

bool CpuHasBf16Dot() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") != 0;
  }();
  return has;
}

// Returns lane 0 (the reduce intrinsics trip GCC 12's -Wuninitialized in its own header).
float Lane0(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  return lanes[0];
}

// Peak loops for the bf16 choice: 24 independent accumulators, `steps` rounds.
float FmaPeakLoop(int64_t steps) {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-6f);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  for (int i = 1; i < 24; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
  return Lane0(acc[0]);
}

__attribute__((target("avx512bf16"))) float DotPeakLoop(int64_t steps) {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f803f80);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, x);
  }
  for (int i = 1; i < 24; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
  return Lane0(acc[0]);
}

// Returns the shortest of 7 timings of loop(steps), in seconds.
double BestSeconds(float (*loop)(int64_t)) {
  volatile int64_t steps = 4096;
  volatile float sink = 0;
  double best = 1e30;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    sink = sink + loop(steps);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// AICORE_MMAD_BF16 (auto, dot, fma, amx) and AICORE_MMAD_INT8 (auto, vnni, amx), read once.
const std::string& MmadBf16Env() {
  static const std::string v = env::Choice("AICORE_MMAD_BF16", {"auto", "dot", "fma", "amx"}, "auto");
  return v;
}
const std::string& MmadInt8Env() {
  static const std::string v = env::Choice("AICORE_MMAD_INT8", {"auto", "vnni", "amx"}, "auto");
  return v;
}

// See Note [bf16 kernel choice].
bool PreferBf16Dot() {
  static const bool prefer = [] {
    if (!CpuHasBf16Dot()) return false;
    if (MmadBf16Env() == "dot") return true;
    if (MmadBf16Env() == "fma") return false;
    const double fma_gflops = 32.0 * 24 * 4096 / BestSeconds(FmaPeakLoop) * 1e-9;
    const double dot_gflops = 64.0 * 24 * 4096 / BestSeconds(DotPeakLoop) * 1e-9;
    const bool dot = dot_gflops >= 1.25 * fma_gflops;
    AICORE_LOG(kInfo) << "Mmad bf16: VDPBF16PS peak " << dot_gflops << " GFLOP/s, fp32 FMA peak "
                      << fma_gflops << " GFLOP/s: using " << (dot ? "VDPBF16PS" : "fp32 FMA");
    return dot;
  }();
  return prefer;
}

bool UseBf16Dot(const MmadJob& j) {
  switch (j.bf16_path) {
    case Bf16Path::kDot:
      return CpuHasBf16Dot();
    case Bf16Path::kWiden:
      return false;
    case Bf16Path::kAuto:
    case Bf16Path::kAmx:  // where AMX does not apply: the faster of the other two
      break;
  }
  return PreferBf16Dot();
}

// As TileF32 for bf16: a is A(row 0, k = 0) in a Zz bf16 fractal (rows 16 apart, next
// k-fractal 256 on); b is B(k = 0, first column) in a k-pair-major Zn fractal (pair rows 32
// apart, next column fractal 256, next k-fractal b_k1_stride). An odd k ends with a half pair
// whose missing element is zeroed in both operands (padding is never read as data).
// One k-pair step of a bf16 tile; `keep` masks each 32-bit pair (0x0000FFFF drops k+1).
template <int MR, int NJ>
__attribute__((target("avx512bf16"), always_inline)) inline void Bf16Step(__m512 (&acc)[MR][NJ],
                                                                          const uint16_t* ap,
                                                                          const uint16_t* bp,
                                                                          uint32_t keep) {
  __m512i bv[NJ];
#pragma GCC unroll 4
  for (int jj = 0; jj < NJ; ++jj) {
    bv[jj] = _mm512_loadu_si512(bp + jj * 256);
    if (keep != 0xFFFFFFFFu) bv[jj] = _mm512_and_si512(bv[jj], _mm512_set1_epi32(keep));
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    uint32_t pair;
    std::memcpy(&pair, ap + r * 16, 4);
    const __m512i av = _mm512_set1_epi32(pair & keep);
#pragma GCC unroll 4
    for (int jj = 0; jj < NJ; ++jj) {
      acc[r][jj] = _mm512_dpbf16_ps(acc[r][jj], (__m512bh)av, (__m512bh)bv[jj]);
    }
  }
}

// As TileF32 for bf16: a is A(row 0, k = 0) in a Zz bf16 fractal (rows 16 apart, next
// k-fractal 256 on); b is B(k = 0, first column) in a k-pair-major Zn fractal (pair rows 32
// apart, next column fractal 256, next k-fractal b_k1_stride). An odd k ends with a half pair
// whose missing element is zeroed in both operands (padding is never read as data).
template <int MR, int NJ>
__attribute__((target("avx512bf16"))) void TileBf16(const uint16_t* a, const uint16_t* b,
                                                    size_t b_k1_stride, float* c, size_t c_j_stride,
                                                    uint32_t k, MmadInit init, const float* bias,
                                                    uint32_t bias_valid) {
  __m512 acc[MR][NJ];
  InitAcc<MR, NJ>(acc, c, c_j_stride, init, bias, bias_valid);
  uint32_t kk = 0;
  for (; kk + 16 <= k; kk += 16, a += 256, b += b_k1_stride) {
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) Bf16Step<MR, NJ>(acc, a + 2 * p, b + p * 32, 0xFFFFFFFFu);
  }
  uint32_t p = 0;
  for (; kk + 2 * p + 2 <= k; ++p) Bf16Step<MR, NJ>(acc, a + 2 * p, b + p * 32, 0xFFFFFFFFu);
  if (kk + 2 * p < k) Bf16Step<MR, NJ>(acc, a + 2 * p, b + p * 32, 0x0000FFFFu);
  StoreAcc<MR, NJ>(acc, c, c_j_stride);
}

using TileBf16Fn = void (*)(const uint16_t*, const uint16_t*, size_t, float*, size_t, uint32_t,
                            MmadInit, const float*, uint32_t);

template <int NJ>
constexpr TileBf16Fn kTilesBf16Row[kMr] = {TileBf16<1, NJ>, TileBf16<2, NJ>, TileBf16<3, NJ>,
                                           TileBf16<4, NJ>, TileBf16<5, NJ>, TileBf16<6, NJ>,
                                           TileBf16<7, NJ>, TileBf16<8, NJ>};

void MmadBf16Dot(const MmadJob& j) {
  RunTiles<uint16_t, float, 16>(j, kTilesBf16Row<1>, kTilesBf16Row<2>,
                                 kTilesBf16Row<3>);
}

// --- AMX: bf16 (TDPBF16PS) and int8 (TDPBSSD) on whole fractals ------------------------------

// Note [AMX bf16]
// The fractals are AMX tiles as they are: an L0A bf16 (int8) fractal is a 16 x 16 (16 x 32) A
// tile with rows 32 B apart, an L0B k-pair (k-quad) fractal is a B tile of 8 pair (quad) rows
// 64 B apart in the order TDPBF16PS (TDPBSSD) reads, and an L0C fractal is a 16 x 16 fp32 (int32)
// C tile with rows 64 B apart. One instruction does 16 x 16 x 16 (x 32 for int8) multiply-adds.
// The kernel blocks 2 x 2 C tiles (tmm0-3) over A tiles tmm4-5 and B tiles tmm6-7, keeps them in
// tile registers over all of k, and releases the tiles before returning (a Mmad never yields
// mid-way, so fibers never see live tile state). Used only when m is a multiple of 16 and k of
// K0 (no padding inside tiles), else the AVX-512 kernels run. TDPBF16PS sums k-pairs like
// VDPBF16PS (the Note [Mmad accumulation order] tolerance applies); TDPBSSD is exact.

// kInt8: TDPBSSD (int8 x int8 -> int32, exact) on 16 x 32 A tiles and 8 quad-row B tiles, the
// int8 fractals as they are; otherwise TDPBF16PS on bf16 fractals.
template <bool kInt8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"))) void MmadAmx(const MmadJob& j) {
  AmxTileConfig cfg;
  for (int t = 0; t < 4; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;  // C: 16 x 16 fp32
  for (int t = 4; t < 6; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 32;  // A: 16 x 16 bf16
  for (int t = 6; t < 8; ++t) cfg.rows[t] = 8, cfg.colsb[t] = 64;   // B: 8 pair rows x 16
  _tile_loadconfig(&cfg);
  const auto* A = static_cast<const uint8_t*>(j.a);
  const auto* B = static_cast<const uint8_t*>(j.b);
  auto* C = static_cast<uint8_t*>(j.c);
  const auto* bias = static_cast<const uint32_t*>(j.bias);  // float or int32 bits
  const uint32_t k1_count = j.k / (kInt8 ? 32 : 16);
  alignas(64) uint32_t bias_tile[2][256];
  auto a_frac = [&](uint32_t m1, uint32_t k1) { return A + (size_t{m1} * j.a_k1 + k1) * 512; };
  auto b_frac = [&](uint32_t k1, uint32_t n1) { return B + (size_t{k1} * j.n1 + n1) * 512; };
  auto c_frac = [&](uint32_t m1, uint32_t n1) { return C + (size_t{n1} * j.m1 + m1) * 1024; };
  for (uint32_t n1 = 0; n1 < j.n1; n1 += 2) {
    const bool two_n = n1 + 1 < j.n1;
    if (j.init == MmadInit::kBias) {
      for (uint32_t jj = 0; jj < 2; ++jj) {
        for (uint32_t n0 = 0; n0 < 16; ++n0) {
          const uint32_t n = (n1 + jj) * 16 + n0;
          const uint32_t v = n < j.n ? bias[n] : 0u;  // 0u is 0.0f and int32 0
          for (uint32_t m0 = 0; m0 < 16; ++m0) bias_tile[jj][m0 * 16 + n0] = v;
        }
      }
      asm volatile("" ::: "memory");
    }
    for (uint32_t m1 = 0; m1 < j.m1; m1 += 2) {
      const bool two_m = m1 + 1 < j.m1;
      // Initial C tiles: tmm0 (m1, n1), tmm1 (m1, n1+1), tmm2 (m1+1, n1), tmm3 (m1+1, n1+1).
#define AICORE_AMX_INIT(t, mi, nj)                \
  if (j.init == MmadInit::kZero) {                \
    _tile_zero(t);                                \
  } else if (j.init == MmadInit::kAccumulate) {   \
    _tile_loadd(t, c_frac(m1 + mi, n1 + nj), 64); \
  } else {                                        \
    _tile_loadd(t, bias_tile[nj], 64);            \
  }
      AICORE_AMX_INIT(0, 0, 0)
      if (two_n) {
        AICORE_AMX_INIT(1, 0, 1)
      }
      if (two_m) {
        AICORE_AMX_INIT(2, 1, 0)
      }
      if (two_m && two_n) {
        AICORE_AMX_INIT(3, 1, 1)
      }
#undef AICORE_AMX_INIT
      for (uint32_t k1 = 0; k1 < k1_count; ++k1) {
#define AICORE_AMX_DP(c, a, b) \
  if constexpr (kInt8) {       \
    _tile_dpbssd(c, a, b);     \
  } else {                     \
    _tile_dpbf16ps(c, a, b);   \
  }
        _tile_loadd(4, a_frac(m1, k1), 32);
        _tile_loadd(6, b_frac(k1, n1), 64);
        AICORE_AMX_DP(0, 4, 6)
        if (two_n) {
          _tile_loadd(7, b_frac(k1, n1 + 1), 64);
          AICORE_AMX_DP(1, 4, 7)
        }
        if (two_m) {
          _tile_loadd(5, a_frac(m1 + 1, k1), 32);
          AICORE_AMX_DP(2, 5, 6)
          if (two_n) {
            AICORE_AMX_DP(3, 5, 7)
          }
        }
#undef AICORE_AMX_DP
      }
      _tile_stored(0, c_frac(m1, n1), 64);
      if (two_n) _tile_stored(1, c_frac(m1, n1 + 1), 64);
      if (two_m) _tile_stored(2, c_frac(m1 + 1, n1), 64);
      if (two_m && two_n) _tile_stored(3, c_frac(m1 + 1, n1 + 1), 64);
    }
  }
  _tile_release();
}

// Returns true when `j` may use AMX whatever its shape: bf16 under kAuto/kAmx (and no other
// AICORE_MMAD_BF16 choice), int8 unless AICORE_MMAD_INT8=vnni; the CPU and OS must allow it.
bool AmxAllowed(const MmadJob& j) {
  if (j.type == MmadType::kI8) {
    return MmadInt8Env() != "vnni" && AmxReady(AmxOp::kInt8);
  }
  if (j.bf16_path != Bf16Path::kAuto && j.bf16_path != Bf16Path::kAmx) return false;
  if (j.bf16_path == Bf16Path::kAuto) {
    if (MmadBf16Env() != "auto" && MmadBf16Env() != "amx") return false;
  }
  return AmxReady(AmxOp::kBf16);
}

// AMX runs shapes without padding inside tiles: m a multiple of 16, k of K0 (16 bf16, 32 int8).
bool UseAmx(const MmadJob& j) {
  const uint32_t k0 = j.type == MmadType::kI8 ? 32 : 16;
  return j.k != 0 && j.k % k0 == 0 && j.m % 16 == 0 && AmxAllowed(j);
}

// --- AVX-512 VNNI: int8 with VPDPBUSD on k-quads -------------------------------------------

bool CpuHasVnni() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") != 0;
  }();
  return has;
}

// One k-quad step of an int8 tile. VPDPBUSD multiplies unsigned by signed bytes, so A is biased
// to a + 128 (xor 0x80) and 128 * sum(b) is collected in `bsum` to subtract at the end: exact in
// int32. `keep` masks the bytes of a partial last quad (padding becomes 0 in both operands).
template <int MR, int NJ>
__attribute__((target("avx512vnni"), always_inline)) inline void I8Step(__m512i (&acc)[MR][NJ],
                                                                        __m512i (&bsum)[NJ],
                                                                        const int8_t* ap,
                                                                        const int8_t* bp,
                                                                        uint32_t keep) {
  __m512i bv[NJ];
  const __m512i bias128 = _mm512_set1_epi32(int32_t(0x80808080u & keep));
#pragma GCC unroll 4
  for (int jj = 0; jj < NJ; ++jj) {
    bv[jj] = _mm512_loadu_si512(bp + jj * 512);
    if (keep != 0xFFFFFFFFu) bv[jj] = _mm512_and_si512(bv[jj], _mm512_set1_epi32(int32_t(keep)));
    bsum[jj] = _mm512_dpbusd_epi32(bsum[jj], bias128, bv[jj]);
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    uint32_t quad;
    std::memcpy(&quad, ap + r * 32, 4);
    const __m512i av = _mm512_set1_epi32(int32_t((quad ^ 0x80808080u) & keep));
#pragma GCC unroll 4
    for (int jj = 0; jj < NJ; ++jj) acc[r][jj] = _mm512_dpbusd_epi32(acc[r][jj], av, bv[jj]);
  }
}

// As TileF32 for int8 -> int32: a is A(row 0, k = 0) in a Zz int8 fractal (rows 32 bytes apart,
// next k-fractal 512 on); b is B(k = 0, first column) in a k-quad-major Zn fractal (quad rows 64
// bytes apart, next column fractal 512, next k-fractal b_k1_stride); c and bias are int32.
template <int MR, int NJ>
__attribute__((target("avx512vnni"))) void TileI8(const int8_t* a, const int8_t* b,
                                                  size_t b_k1_stride, int32_t* c, size_t c_j_stride,
                                                  uint32_t k, MmadInit init, const int32_t* bias,
                                                  uint32_t bias_valid) {
  __m512 init_acc[MR][NJ];
  InitAcc<MR, NJ>(init_acc, reinterpret_cast<const float*>(c), c_j_stride, init,
                  reinterpret_cast<const float*>(bias), bias_valid);
  __m512i acc[MR][NJ];
  __m512i bsum[NJ];
  for (int jj = 0; jj < NJ; ++jj) {
    bsum[jj] = _mm512_setzero_si512();
    for (int r = 0; r < MR; ++r) acc[r][jj] = _mm512_castps_si512(init_acc[r][jj]);
  }
  uint32_t kk = 0;
  for (; kk + 32 <= k; kk += 32, a += 512, b += b_k1_stride) {
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) I8Step<MR, NJ>(acc, bsum, a + 4 * q, b + q * 64, 0xFFFFFFFFu);
  }
  uint32_t q = 0;
  for (; kk + 4 * q + 4 <= k; ++q) I8Step<MR, NJ>(acc, bsum, a + 4 * q, b + q * 64, 0xFFFFFFFFu);
  if (kk + 4 * q < k) {
    const uint32_t bytes = k - kk - 4 * q;  // 1, 2 or 3
    I8Step<MR, NJ>(acc, bsum, a + 4 * q, b + q * 64, (1u << (8 * bytes)) - 1);
  }
  __m512 out[MR][NJ];
  for (int r = 0; r < MR; ++r)
    for (int jj = 0; jj < NJ; ++jj)
      out[r][jj] = _mm512_castsi512_ps(_mm512_sub_epi32(acc[r][jj], bsum[jj]));
  StoreAcc<MR, NJ>(out, reinterpret_cast<float*>(c), c_j_stride);
}

using TileI8Fn = void (*)(const int8_t*, const int8_t*, size_t, int32_t*, size_t, uint32_t,
                          MmadInit, const int32_t*, uint32_t);

template <int NJ>
constexpr TileI8Fn kTilesI8Row[kMr] = {TileI8<1, NJ>, TileI8<2, NJ>, TileI8<3, NJ>, TileI8<4, NJ>,
                                       TileI8<5, NJ>, TileI8<6, NJ>, TileI8<7, NJ>, TileI8<8, NJ>};

void MmadI8Vnni(const MmadJob& j) {
  RunTiles<int8_t, int32_t, 32>(j, kTilesI8Row<1>, kTilesI8Row<2>, kTilesI8Row<3>);
}

#endif  // AICORE_ISA >= 2

}  // namespace

void Mmad(const MmadJob& j) {
  if (j.m == 0 || j.n == 0) return;
#if AICORE_ISA >= 1
  switch (j.type) {
    case MmadType::kF32:
      MmadF32(j);
      return;
    case MmadType::kF16:
      MmadF32(WidenToF32<half>(j));
      return;
    case MmadType::kBF16:
#if AICORE_ISA >= 2
      if (UseAmx(j)) {
        MmadAmx<false>(j);
        return;
      }
      if (UseBf16Dot(j)) {
        MmadBf16Dot(j);
        return;
      }
#endif
      MmadF32(WidenToF32<bfloat16>(j));
      return;
    case MmadType::kI8:
#if AICORE_ISA >= 2
      if (UseAmx(j)) {
        MmadAmx<true>(j);
        return;
      }
      if (CpuHasVnni()) {
        MmadI8Vnni(j);
        return;
      }
#endif
      break;
  }
#endif
  MmadPortable(j);
}

const char* MmadKernelName(const MmadJob& j) {
#if AICORE_ISA >= 1
  switch (j.type) {
    case MmadType::kF32:
      return F32Name();
#if AICORE_ISA >= 2
    case MmadType::kBF16:
      if (AmxAllowed(j)) {
        return UseBf16Dot(j) ? "amx-bf16 2x2 tiles (m or k not a multiple of 16: avx512-bf16dot)"
                             : "amx-bf16 2x2 tiles (m or k not a multiple of 16: avx512-fma "
                               "widened)";
      }
      if (UseBf16Dot(j)) return "avx512-bf16dot 8x48";
      return "avx512-fma 8x48 (bf16 widened to fp32)";
    case MmadType::kF16:
      return "avx512-fma 8x48 (fp16 widened to fp32)";
#else
    case MmadType::kBF16:
      return "avx2-fma 6x16 (bf16 widened to fp32)";
    case MmadType::kF16:
      return "avx2-fma 6x16 (fp16 widened to fp32)";
#endif
    case MmadType::kI8:
#if AICORE_ISA >= 2
      if (AmxAllowed(j)) {
        return CpuHasVnni() ? "amx-int8 2x2 tiles (m % 16 or k % 32 not 0: avx512-vnni)"
                            : "amx-int8 2x2 tiles (m % 16 or k % 32 not 0: portable)";
      }
      if (CpuHasVnni()) return "avx512-vnni 8x48";
#endif
      return "portable int8";
  }
#endif
  (void)j;
  return "portable";
}

}  // namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE
