// The packed GEMM of Note [Packed GEMM] (packed_gemm.h). Compiled once per ISA like every
// *_isa.cc file; only the AVX-512 variant has a body (the dispatcher never calls the others).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "aicore/core/cpu.h"
#include "aicore/core/dtype.h"
#include "aicore/kernel/cube/mmad_kernels.h"
#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"
#include "aicore/kernel/lib/matmul/host_gemm/panel_cache.h"
#include "aicore/kernel/cube/scratch.h"
#include "aicore/kernel/cube/tile_asm.h"

#if AICORE_ISA >= 2
#include <immintrin.h>

#include <cstring>

namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE {

namespace {

constexpr uint32_t kMr = 8;         // rows of a register tile (A broadcasts)
constexpr uint32_t kNj = 3;         // zmm columns of a register tile
constexpr uint32_t kNr = 16 * kNj;  // columns of a register tile
// Cache blocks: a kKc x kNr B panel (24 KiB) is reused from L1 by every A panel of the
// kMc x kKc A block (96 KiB, L2). See Note [Packed GEMM] for how they were chosen.
constexpr uint32_t kKc = 128;
constexpr uint32_t kMc = 192;
constexpr uint32_t kNc = 3072;

__mmask16 Mask16(uint32_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

// Loads 8 consecutive elements as floats.
inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 Load8(const half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline __m256 Load8(const bfloat16* p) {  // bf16 is the top half of a float: exact
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
// Loads the first `mask` bits' worth of 16 consecutive elements as floats (the rest 0).
inline __m512 Load16(const float* p, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, p); }
inline __m512 Load16(const half* p, __mmask16 mask) {
  // The maskz form: the unmasked one trips GCC 12's -Wmaybe-uninitialized in its header.
  return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_maskz_loadu_epi16(mask, p));
}
inline __m512 Load16(const bfloat16* p, __mmask16 mask) {
  // The maskz forms, as above.
  const __m512i w = _mm512_maskz_cvtepu16_epi32(0xFFFF, _mm256_maskz_loadu_epi16(mask, p));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, w, 16));
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
// (r = i, c = p) and a k-major B panel slice of 8 columns is (r = j, c = p). With 8 rows,
// cs == 1 and `next` set (the 8 rows packed after these, same strides), it prefetches `next`
// into L1 at the pace it reads src, so the next call does not start on misses.
template <typename S>
void PackColumns8(const S* src, int64_t rs, int64_t cs, uint32_t rows, uint32_t cols,
                  float* dst, size_t dst_stride, const S* next = nullptr) {
  uint32_t c = 0;
  if (rows == 8 && cs == 1) {
    for (; c + 8 <= cols; c += 8) {
      if (next != nullptr) {  // 4 rows per 8 columns: each line of the 8 rows once (fp32)
        const uint32_t r0 = c / 8 % 2 * 4;
        for (uint32_t i = r0; i < r0 + 4; ++i)
          _mm_prefetch(reinterpret_cast<const char*>(next + i * rs + c), _MM_HINT_T0);
      }
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
    const S* src = a + (ic + i) * j.a_rs + pc * j.a_cs;
    PackColumns8(src, j.a_rs, j.a_cs, rows, kc, dst + size_t{i} * kc, kMr,
                 i + 2 * kMr <= mc ? src + kMr * j.a_rs : nullptr);
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

uint32_t PanelCols(uint32_t rest);

// Packs the whole block B(pc .. pc+kc, jc .. jc+nc) of a row-major B (b_cs == 1) into its
// panels (as PackBPanel packs each, panels cut by PanelCols) row by row: each GM row segment is
// read once, front to back, with the row kAhead rows on prefetched into L1.
template <typename S>
void PackBBlockRows(const GemmJob& j, const S* b, uint32_t pc, uint32_t kc, uint32_t jc,
                    uint32_t nc, float* dst) {
  constexpr uint32_t kAhead = 6;
  const S* src = b + pc * j.b_rs + jc;
  const uint32_t row_bytes = nc * uint32_t{sizeof(S)};
  for (uint32_t p = 0; p < kc; ++p) {
    if (p + kAhead < kc) {
      const char* ahead = reinterpret_cast<const char*>(src + (p + kAhead) * j.b_rs);
      for (uint32_t o = 0; o < row_bytes; o += 64) _mm_prefetch(ahead + o, _MM_HINT_T0);
      _mm_prefetch(ahead + row_bytes - 1, _MM_HINT_T0);
    }
    const S* row = src + p * j.b_rs;
    float* d = dst + size_t{p} * kNr;
    for (uint32_t jr = 0; jr < nc; d += size_t{kc} * kNr) {
      const uint32_t cols = PanelCols(nc - jr);
      for (uint32_t v = 0; v < kNj; ++v) {
        const uint32_t left = cols > v * 16 ? cols - v * 16 : 0;
        _mm512_store_ps(d + v * 16, Load16(row + jr + v * 16, Mask16(left)));
      }
      jr += cols;
    }
  }
}

// The values are Tile8's mode operand.
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
// The tiles of 1..7 rows (the last rows of a block); 8 rows run as Tile8.
constexpr TileFn kTiles[kMr - 1] = {Tile<1>, Tile<2>, Tile<3>, Tile<4>, Tile<5>, Tile<6>, Tile<7>};


// --- The 8-row tiles in assembly (Note [Assembly tiles]) ---------------------------------
// Packed layouts: A(row r, step u) at ap + 32u + 4r bytes, B(step u, vector v) at
// bp + 192u + 64v; C row r at c + r * ldc, its last vector masked to `cols` (k1..k3).
#define AICORE_PG_ROW0 "(%[c])"
#define AICORE_PG_ROW1 "(%[c],%[ldc])"
#define AICORE_PG_ROW2 "(%[c],%[ldc],2)"
#define AICORE_PG_ROW3 "(%[c],%[ldc3])"
#define AICORE_PG_ROW4 "(%[c4])"
#define AICORE_PG_ROW5 "(%[c4],%[ldc])"
#define AICORE_PG_ROW6 "(%[c4],%[ldc],2)"
#define AICORE_PG_ROW7 "(%[c4],%[ldc3])"
#define AICORE_PG_LDC(v, r, z) \
  "vmovups 64*" #v AICORE_PG_ROW##r ", %%zmm" #z AICORE_TA_MASK##v "%{z%}\n\t"
#define AICORE_PG_STC(v, r, z) "vmovups %%zmm" #z ", 64*" #v AICORE_PG_ROW##r AICORE_TA_MASK##v "\n\t"
#define AICORE_PG_LDB(u, v, z) "vmovaps 192*" #u "+64*" #v "(%[bp]), %%zmm" #z "\n\t"
#define AICORE_PG_BC(u, r) "vbroadcastss 32*" #u "+4*" #r "(%[ap]), %%zmm28\n\t"
#define AICORE_PG_STEP(NJ, u) AICORE_TA_STEP##NJ(AICORE_PG_LDB, AICORE_PG_BC, u)

// Prefetches of one 4-step iteration into L2: the next B data (4 lines at pf, advanced by
// pf_stride) and the next tile's A panel (2 lines at ap + a_next; into L2 rather than L1, where
// it would evict the B panel the tile is reading: measured a little faster).
#define AICORE_PG_PREFETCH                                                                     \
  "prefetcht1 (%[pf])\n\t"                                                                    \
  "prefetcht1 64(%[pf])\n\t"                                                                  \
  "prefetcht1 128(%[pf])\n\t"                                                                 \
  "prefetcht1 191(%[pf])\n\t"                                                                 \
  "addq %[pf_stride], %[pf]\n\t"                                                              \
  "prefetcht1 (%[ap],%[a_next])\n\t"                                                          \
  "prefetcht1 64(%[ap],%[a_next])\n\t"
// Prefetches the NJ lines of the next tile's C row r (r < 4) at cn into L1.
#define AICORE_PG_CPF_ROW(v, r, z) "prefetcht0 64*" #v AICORE_PG_CPF_ROW##r "\n\t"
#define AICORE_PG_CPF_ROW0 "(%[cn])"
#define AICORE_PG_CPF_ROW1 "(%[cn],%[ldc])"
#define AICORE_PG_CPF_ROW2 "(%[cn],%[ldc],2)"
#define AICORE_PG_CPF_ROW3 "(%[cn],%[ldc3])"
// Prefetches 4 rows of the next C tile (NJ lines each) at cn.
#define AICORE_PG_CPF4_3                                                                       \
  AICORE_PG_CPF_ROW(0, 0, 0) AICORE_PG_CPF_ROW(1, 0, 0) AICORE_PG_CPF_ROW(2, 0, 0)             \
  AICORE_PG_CPF_ROW(0, 1, 0) AICORE_PG_CPF_ROW(1, 1, 0) AICORE_PG_CPF_ROW(2, 1, 0)             \
  AICORE_PG_CPF_ROW(0, 2, 0) AICORE_PG_CPF_ROW(1, 2, 0) AICORE_PG_CPF_ROW(2, 2, 0)             \
  AICORE_PG_CPF_ROW(0, 3, 0) AICORE_PG_CPF_ROW(1, 3, 0) AICORE_PG_CPF_ROW(2, 3, 0)
#define AICORE_PG_CPF4_2                                                                       \
  AICORE_PG_CPF_ROW(0, 0, 0) AICORE_PG_CPF_ROW(1, 0, 0) AICORE_PG_CPF_ROW(0, 1, 0)             \
  AICORE_PG_CPF_ROW(1, 1, 0) AICORE_PG_CPF_ROW(0, 2, 0) AICORE_PG_CPF_ROW(1, 2, 0)             \
  AICORE_PG_CPF_ROW(0, 3, 0) AICORE_PG_CPF_ROW(1, 3, 0)
#define AICORE_PG_CPF4_1                                                                       \
  AICORE_PG_CPF_ROW(0, 0, 0) AICORE_PG_CPF_ROW(0, 1, 0) AICORE_PG_CPF_ROW(0, 2, 0)             \
  AICORE_PG_CPF_ROW(0, 3, 0)
#define AICORE_PG_STEPS4(NJ)                                                                   \
  AICORE_PG_STEP(NJ, 0) AICORE_PG_STEP(NJ, 1) AICORE_PG_STEP(NJ, 2) AICORE_PG_STEP(NJ, 3)
#define AICORE_PG_ADVANCE4                                                                     \
  "addq $128, %[ap]\n\t"                                                                      \
  "addq $768, %[bp]\n\t"

// The whole tile. %[ctl] holds the 3 column masks (bits 0..47), the init mode (bits 48..55: 0
// zero, 1 bias, 2 load C) and the k steps past the last multiple of 4 (bits 56..63). Then
// `steps` x 4 k steps, the first two iterations also prefetching the next tile's C rows (at cn)
// into L1, every iteration the next B data and A panel (AICORE_PG_PREFETCH); the remaining k
// steps; the stores.
#define AICORE_PG_TILE(NJ)                                                                     \
  "kmovw %k[ctl], %%k1\n\t"                                                                   \
  "shrq $16, %[ctl]\n\t"                                                                      \
  "kmovw %k[ctl], %%k2\n\t"                                                                   \
  "shrq $16, %[ctl]\n\t"                                                                      \
  "kmovw %k[ctl], %%k3\n\t"                                                                   \
  "shrq $16, %[ctl]\n\t"                                                                      \
  "cmpb $2, %b[ctl]\n\t"                                                                      \
  "je 3f\n\t"                                                                                 \
  "cmpb $1, %b[ctl]\n\t"                                                                      \
  "je 4f\n\t" AICORE_TA_EACH##NJ(AICORE_TA_ZERO) "jmp 5f\n\t"                                 \
  "4:\n\t" AICORE_TA_VEC##NJ(AICORE_TA_BIAS) AICORE_TA_EACH##NJ(AICORE_TA_COPY) "jmp 5f\n\t"  \
  "3:\n\t" AICORE_TA_EACH##NJ(AICORE_PG_LDC) "5:\n\t"                                         \
  "shrq $8, %[ctl]\n\t"                                                                       \
  "cmpq $2, %[steps]\n\t"                                                                     \
  "jb 8f\n\t"                                                                                 \
  AICORE_PG_STEPS4(NJ) AICORE_PG_CPF4_##NJ AICORE_PG_PREFETCH AICORE_PG_ADVANCE4              \
  "leaq (%[cn],%[ldc],4), %[cn]\n\t"                                                          \
  AICORE_PG_STEPS4(NJ) AICORE_PG_CPF4_##NJ AICORE_PG_PREFETCH AICORE_PG_ADVANCE4              \
  "subq $2, %[steps]\n\t"                                                                     \
  "8:\n\t"                                                                                    \
  "testq %[steps], %[steps]\n\t"                                                              \
  "jz 6f\n\t"                                                                                 \
  "1:\n\t" AICORE_PG_STEPS4(NJ) AICORE_PG_PREFETCH AICORE_PG_ADVANCE4                         \
  "decq %[steps]\n\t"                                                                         \
  "jnz 1b\n\t"                                                                                \
  "6:\n\t"                                                                                    \
  "testq %[ctl], %[ctl]\n\t"                                                                  \
  "jz 7f\n\t"                                                                                 \
  "2:\n\t" AICORE_PG_STEP(NJ, 0)                                                              \
  "addq $32, %[ap]\n\t"                                                                       \
  "addq $192, %[bp]\n\t"                                                                      \
  "decq %[ctl]\n\t"                                                                           \
  "jnz 2b\n\t"                                                                                \
  "7:\n\t" AICORE_TA_EACH##NJ(AICORE_PG_STC)

// An 8-row tile of `cols` (1..48) columns in assembly (NJ = ceil(cols / 16) vectors per row);
// the same bits as Tile<MR> would give. While it runs it prefetches what the tiles after it
// need: the next tile's C rows (c_next) into L1, its A panel (a_next) into L2, and, every 4 k
// steps, one 192-byte row at pf into L2, advancing pf by pf_stride (the caller points it at the GM
// rows of the B panel packed next, or at the next packed panel), so those L2/L3/DRAM reads
// overlap this tile's FMAs.
void Tile8(uint32_t kc, const float* ap, const float* bp, float* c, int64_t ldc, Init init,
           const float* bias, uint32_t cols, const char* pf, int64_t pf_stride,
           const float* a_next, const float* c_next) {
  const int64_t a_next_bytes =
      reinterpret_cast<const char*>(a_next) - reinterpret_cast<const char*>(ap);
  uint64_t steps = kc / 4;
  const int64_t ldc_bytes = ldc * 4;
  uint64_t ctl = uint64_t{Mask16(cols)} | uint64_t{Mask16(cols > 16 ? cols - 16 : 0)} << 16 |
                 uint64_t{Mask16(cols > 32 ? cols - 32 : 0)} << 32 |
                 uint64_t{static_cast<uint8_t>(init)} << 48 | uint64_t{kc % 4} << 56;
  const char* cn = reinterpret_cast<const char*>(c_next);
#define AICORE_PG_OPERANDS                                                                     \
  : [ap] "+r"(ap), [bp] "+r"(bp), [steps] "+r"(steps), [ctl] "+r"(ctl), [pf] "+r"(pf),         \
    [cn] "+r"(cn)                                                                              \
  : [c] "r"(c), [c4] "r"(c + 4 * ldc), [ldc] "r"(ldc_bytes), [ldc3] "r"(3 * ldc_bytes),        \
    [bias] "r"(bias), [pf_stride] "r"(pf_stride), [a_next] "r"(a_next_bytes)                   \
  : AICORE_TA_CLOBBERS
  if (cols > 32) {
    asm volatile(AICORE_PG_TILE(3) AICORE_PG_OPERANDS);
  } else if (cols > 16) {
    asm volatile(AICORE_PG_TILE(2) AICORE_PG_OPERANDS);
  } else {
    asm volatile(AICORE_PG_TILE(1) AICORE_PG_OPERANDS);
  }
#undef AICORE_PG_OPERANDS
}

// The columns of the B panel that starts `rest` columns before the end of a B block: kNr, except
// that the last 49..64 columns are split into two panels of 2-vector tiles (32 and 17..32 columns)
// rather than a 48-column panel and a 1-vector tile of 1..16 (which runs at about 0.7 of the
// 3-vector tile's rate against 0.93 for the 2-vector one). The panel count stays
// ceil(nc / kNr).
uint32_t PanelCols(uint32_t rest) {
  return rest > kNr && rest <= kNr + 16 ? 32 : std::min(kNr, rest);
}

// The packed block of `j`'s A (operand 0: rows x cols from element `src`) or B (operand 1) in
// `floats` floats: from the launch's panel cache when the job caches that operand (Note [Packed
// panel cache]; `key` holds the type and element size), else `scratch`, to pack into.
PanelRef OperandBlock(const GemmJob& j, PanelKey key, uint8_t operand, const void* src,
                      uint32_t rows, uint32_t cols, size_t floats, float* scratch) {
  key.operand = operand;
  key.src = src;
  key.rows = rows;
  key.cols = cols;
  key.rs = operand == 0 ? j.a_rs : j.b_rs;
  key.cs = operand == 0 ? j.a_cs : j.b_cs;
  const bool cached = operand == 0 ? j.cache_a : j.cache_b;
  return cached ? AcquirePanel(key, floats, scratch) : PanelRef(scratch, true, nullptr);
}

template <typename S>
void Gemm(const GemmJob& j) {
  const auto* a = static_cast<const S*>(j.a);
  const auto* b = static_cast<const S*>(j.b);
  const uint32_t nc_max = (std::min(kNc, j.n) + kNr - 1) / kNr * kNr;
  const uint32_t kc_max = std::min(kKc, j.k);
  float* bscratch = ScratchFloats(ScratchSlot::kGemmB, size_t{kc_max} * nc_max);
  float* ascratch =
      ScratchFloats(ScratchSlot::kGemmA, size_t{kc_max} * (std::min(kMc, j.m) + kMr));
  // The blocks of A and B come from the launch's panel cache when another block packed them
  // (Note [Packed panel cache]); the key holds everything the packed bits depend on.
  PanelKey key;
  key.type = static_cast<uint8_t>(j.type);
  key.elem_bytes = sizeof(S);
  for (uint32_t jc = 0; jc < j.n; jc += kNc) {
    const uint32_t nc = std::min(kNc, j.n - jc);
    for (uint32_t pc = 0; pc < j.k; pc += kKc) {
      const uint32_t kc = std::min(kKc, j.k - pc);
      const Init init = pc > 0 ? Init::kLoad : j.bias != nullptr ? Init::kBias : Init::kZero;
      PanelRef bref = OperandBlock(j, key, 1, b + pc * j.b_rs + jc * j.b_cs, kc, nc,
                                   size_t{kc} * ((nc + kNr - 1) / kNr * kNr), bscratch);
      float* const bpack = bref.data();
      // A B block other blocks wait for (row-major B) is packed whole, row by row, and published
      // at once; any other is packed panel by panel as the first A block reaches it.
      const bool pack_b_whole = bref.must_pack() && j.cache_b && j.b_cs == 1;
      if (pack_b_whole) {
        PackBBlockRows(j, b, pc, kc, jc, nc, bpack);
        bref.Publish();
      }
      for (uint32_t ic = 0; ic < j.m; ic += kMc) {
        const uint32_t mc = std::min(kMc, j.m - ic);
        const PanelRef aref = OperandBlock(j, key, 0, a + ic * j.a_rs + pc * j.a_cs, mc, kc,
                                           size_t{kc} * ((mc + kMr - 1) / kMr * kMr), ascratch);
        if (aref.must_pack()) PackA(j, a, ic, mc, pc, kc, aref.data());
        const float* const apack = aref.data();
        // The first A block packs each B panel just before its tiles (L1/L2-hot), unless the
        // B block came packed from the cache.
        const bool pack_b = ic == 0 && bref.must_pack() && !pack_b_whole;
        // Panel q covers columns [jr, jr + cols) and is stored at bpack + q * kc * kNr.
        uint32_t q = 0;
        for (uint32_t jr = 0; jr < nc; jr += PanelCols(nc - jr), ++q) {
          float* bp = bpack + size_t{q} * kc * kNr;
          const uint32_t cols = PanelCols(nc - jr);
          const bool last = jr + cols == nc;
          if (pack_b) PackBPanel(j, b, pc, kc, jc + jr, cols, bp);
          const float* bias = j.bias != nullptr ? j.bias + jc + jr : nullptr;
          // The tiles prefetch the B data needed next into L2: while the first A block packs B,
          // the GM rows of the next B panel (row-major B: a row per 4 k steps); otherwise the
          // next packed panel (3 lines per 4 k steps), or nothing for the last panel.
          const char* pf = reinterpret_cast<const char*>(bp);
          int64_t pf_stride = 0;
          if (pack_b) {
            if (j.b_cs == 1 && !last) {
              pf = reinterpret_cast<const char*>(b + pc * j.b_rs + jc + jr + cols);
              pf_stride = j.b_rs * int64_t{sizeof(S)};
            }
          } else if (!last) {
            pf = reinterpret_cast<const char*>(bp + size_t{kNr} * kc);
            pf_stride = int64_t{kNr} * 4;
          }
          uint32_t pf_rows = pf_stride != 0 ? kc : 0;  // rows of the next panel not prefetched
          for (uint32_t ir = 0; ir < mc; ir += kMr) {
            const uint32_t rows = std::min(kMr, mc - ir);
            float* c = j.c + (ic + ir) * j.ldc + jc + jr;
            const float* a_next = apack + size_t{ir + kMr < mc ? ir + kMr : 0} * kc;
            // The C tile after this one: below it, or the first of the next panel.
            const float* c_next = ir + kMr < mc ? c + kMr * j.ldc
                                  : !last ? j.c + ic * j.ldc + jc + jr + cols : c;
            if (rows == kMr) {
              Tile8(kc, apack + size_t{ir} * kc, bp, c, j.ldc, init, bias, cols, pf,
                    pf_rows > 0 ? pf_stride : 0, a_next, c_next);
              const uint32_t done = std::min(pf_rows, kc / 4);
              pf += pf_stride * done;
              pf_rows -= done;
            } else {
              kTiles[rows - 1](kc, apack + size_t{ir} * kc, bp, c, j.ldc, init, bias, cols);
            }
          }
        }
        if (pack_b) bref.Publish();  // every B panel of this block is packed now
      }
    }
  }
}

// --- bf16 on AMX (Note [Packed GEMM bf16]) ------------------------------------------------------

// Cache blocks of the AMX kernel: a kAmxKc-deep block of B, packed kAmxNc columns at a time, is
// reused by every kAmxMc-row block of A; a 32-column B panel (32 KiB at kAmxKc 512) stays in L1
// while the 16-row A tiles of the A block (256 KiB) stream from L2.
constexpr uint32_t kAmxKc = 512;  // a multiple of 32 (the k of one TDPBF16PS)
constexpr uint32_t kAmxMc = 256;
constexpr uint32_t kAmxNc = 1024;
constexpr uint32_t kAmxTileElems = 512;  // bf16 of one packed 16 x 32 A or 16 x (16 x 2) B tile

// Bits 0..n-1 of a 32-bit mask.
inline __mmask32 Mask32(uint32_t n) { return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1; }

// Packs A(ic .. ic+mc, pc .. pc+kc) as 16-row groups of ceil(kc / 32) A tiles: tile (g, s) at
// dst + (g * ksteps + s) * 512, row r holding A(ic + 16g + r, pc + 32s + q) at q = 0..31; rows
// past mc and k past kc are zero.
// The index vector that interleaves the low 16 elements of two vectors of 16-bit elements
// (_mm512_permutex2var_epi16): x0, y0, x1, y1, ..., x15, y15.
__m512i PairInterleave() {
  alignas(64) uint16_t order[32];
  for (uint32_t n = 0; n < 16; ++n) order[2 * n] = uint16_t(n), order[2 * n + 1] = uint16_t(32 + n);
  return _mm512_load_si512(order);
}

void PackAAmx(const GemmJob& j, const uint16_t* a, uint32_t ic, uint32_t mc, uint32_t pc,
              uint32_t kc, uint16_t* dst) {
  const uint32_t ksteps = (kc + 31) / 32;
  const uint32_t groups = (mc + 15) / 16;
  if (j.a_rs == 1 && j.a_cs != 1) {
    // Rows contiguous for each k (a transposed A): the k-pair of 16 rows is interleaved from two
    // k rows and scattered as one 32-bit word into each tile row.
    const __m512i interleave = PairInterleave();
    const __m512i row_bytes = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(64));
    for (uint32_t g = 0; g < groups; ++g) {
      const __mmask16 rows = Mask16(mc - g * 16);
      for (uint32_t s = 0; s < ksteps; ++s) {
        uint16_t* tile = dst + (size_t{g} * ksteps + s) * kAmxTileElems;
        for (uint32_t q = 0; q < 16; ++q) {
          const uint32_t p0 = s * 32 + 2 * q;  // inside the block
          const uint16_t* src = a + (pc + p0) * j.a_cs + ic + g * 16;
          const __m512i lo = _mm512_maskz_loadu_epi16(p0 < kc ? rows : 0, src);
          const __m512i hi = _mm512_maskz_loadu_epi16(p0 + 1 < kc ? rows : 0, src + j.a_cs);
          _mm512_i32scatter_epi32(tile + 2 * q, row_bytes,
                                  _mm512_permutex2var_epi16(lo, interleave, hi), 1);
        }
      }
    }
    return;
  }
  for (uint32_t g = 0; g < groups; ++g) {
    for (uint32_t r = 0; r < 16; ++r) {
      const uint32_t i = g * 16 + r;
      const uint16_t* src = a + (ic + i) * j.a_rs + pc * j.a_cs;
      for (uint32_t s = 0; s < ksteps; ++s) {
        uint16_t* d = dst + (size_t{g} * ksteps + s) * kAmxTileElems + r * 32;
        const uint32_t kl = i < mc ? std::min(32u, kc - s * 32) : 0;
        if (j.a_cs == 1) {
          _mm512_storeu_si512(d, _mm512_maskz_loadu_epi16(Mask32(kl), src + s * 32));
        } else {
          for (uint32_t q = 0; q < 32; ++q) d[q] = q < kl ? src[(s * 32 + q) * j.a_cs] : 0;
        }
      }
    }
  }
}

// Packs B(pc .. pc+kc, jc .. jc+nc) as 32-column panels of ceil(kc / 32) steps of two B tiles:
// tile t of step s of panel q at dst + ((q * ksteps + s) * 2 + t) * 512, its row r holding the
// k-pair (pc + 32s + 2r, +1) of the 16 columns jc + 32q + 16t + n as elements 2n, 2n + 1 (the
// order TDPBF16PS reads); columns past nc and k past kc are zero.
void PackBAmx(const GemmJob& j, const uint16_t* b, uint32_t pc, uint32_t kc, uint32_t jc,
              uint32_t nc, uint16_t* dst) {
  const uint32_t ksteps = (kc + 31) / 32;
  const __m512i interleave = PairInterleave();
  // A B whose columns are contiguous in k gathers each k-pair row of a tile from its 16 columns
  // (byte offsets n * b_cs * 2 as int32, when they fit).
  const bool gather_cols = j.b_rs == 1 && j.b_cs < (int64_t{1} << 25);
  const __m512i col_bytes = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(gather_cols ? static_cast<int32_t>(j.b_cs * 2) : 0));
  for (uint32_t q = 0; q * 32 < nc; ++q) {
    for (uint32_t s = 0; s < ksteps; ++s) {
      for (uint32_t t = 0; t < 2; ++t) {
        uint16_t* tile = dst + ((size_t{q} * ksteps + s) * 2 + t) * kAmxTileElems;
        const uint32_t j0 = q * 32 + t * 16;
        const uint32_t cols = j0 < nc ? std::min(16u, nc - j0) : 0;
        for (uint32_t r = 0; r < 16; ++r) {
          const uint32_t p0 = s * 32 + 2 * r;  // inside the block
          uint16_t* d = tile + r * 32;
          if (j.b_cs == 1) {
            const uint16_t* row = b + (pc + p0) * j.b_rs + jc + j0;
            // The two rows' 16 columns as the low halves of two vectors, interleaved.
            const __m512i lo = _mm512_maskz_loadu_epi16(p0 < kc ? Mask16(cols) : 0, row);
            const __m512i hi =
                _mm512_maskz_loadu_epi16(p0 + 1 < kc ? Mask16(cols) : 0, row + j.b_rs);
            _mm512_storeu_si512(d, _mm512_permutex2var_epi16(lo, interleave, hi));
          } else if (gather_cols && p0 + 1 < kc) {
            // Columns contiguous in k (a transposed B): the pair is one 32-bit word of each.
            const uint16_t* pair = b + (jc + j0) * j.b_cs + pc + p0;
            _mm512_storeu_si512(d, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(),
                                                               Mask16(cols), col_bytes, pair, 1));
          } else {
            for (uint32_t e = 0; e < 32; ++e) {
              const uint32_t n = e / 2, p = p0 + e % 2;
              d[e] = n < cols && p < kc ? b[(pc + p) * j.b_rs + (jc + j0 + n) * j.b_cs] : 0;
            }
          }
        }
      }
    }
  }
}

// Where one C tile of a 2 x 2 block is read from (ld, or zeroed when ld is null) and stored to.
struct AmxC {
  const float* ld = nullptr;
  float* st = nullptr;
  int64_t ld_stride = 64, st_stride = 64;  // bytes
};

// One block of up to 2 x 2 C tiles (TM, TN: two tiles down, across) over `ksteps` 32-k steps:
// A tiles at a0 (rows 0..15) and a1 (16..31), 512 elements per step; B steps of 1024 elements at
// bp. The tile configuration of ConfigureAmxTiles must be loaded.
template <bool TM, bool TN>
__attribute__((target("amx-tile,amx-bf16"))) void AmxBlock(uint32_t ksteps, const uint16_t* a0,
                                                            const uint16_t* a1,
                                                            const uint16_t* bp, const AmxC* c) {
#define AICORE_PG_AMX_INIT(t)                          \
  if (c[t].ld != nullptr) {                           \
    _tile_loadd(t, c[t].ld, c[t].ld_stride);          \
  } else {                                            \
    _tile_zero(t);                                    \
  }
  AICORE_PG_AMX_INIT(0)
  if constexpr (TN) {
    AICORE_PG_AMX_INIT(1)
  }
  if constexpr (TM) {
    AICORE_PG_AMX_INIT(2)
  }
  if constexpr (TM && TN) {
    AICORE_PG_AMX_INIT(3)
  }
#undef AICORE_PG_AMX_INIT
  for (uint32_t s = 0; s < ksteps; ++s) {
    _tile_loadd(4, a0 + size_t{s} * kAmxTileElems, 64);
    _tile_loadd(6, bp + size_t{s} * 2 * kAmxTileElems, 64);
    _tile_dpbf16ps(0, 4, 6);
    if constexpr (TN) {
      _tile_loadd(7, bp + (size_t{s} * 2 + 1) * kAmxTileElems, 64);
      _tile_dpbf16ps(1, 4, 7);
    }
    if constexpr (TM) {
      _tile_loadd(5, a1 + size_t{s} * kAmxTileElems, 64);
      _tile_dpbf16ps(2, 5, 6);
      if constexpr (TN) _tile_dpbf16ps(3, 5, 7);
    }
  }
  _tile_stored(0, c[0].st, c[0].st_stride);
  if constexpr (TN) _tile_stored(1, c[1].st, c[1].st_stride);
  if constexpr (TM) _tile_stored(2, c[2].st, c[2].st_stride);
  if constexpr (TM && TN) _tile_stored(3, c[3].st, c[3].st_stride);
}

// tmm0-3: 16 x 16 fp32 C tiles; tmm4-5: 16 x 32 bf16 A tiles; tmm6-7: 16 k-pair rows x 16 columns.
__attribute__((target("amx-tile"))) void ConfigureAmxTiles() {
  AmxTileConfig cfg;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.colsb[t] = 64;
  // GCC 12 does not see that ldtilecfg reads cfg and drops the stores above without this.
  asm volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
}
__attribute__((target("amx-tile"))) void ReleaseAmxTiles() { _tile_release(); }

// The C tiles of one mc x nc block of C for one k block (Note [Packed GEMM bf16]).
void AmxTiles(const GemmJob& j, uint32_t ic, uint32_t mc, uint32_t jc, uint32_t nc, uint32_t kc,
              Init init, const uint16_t* apack, const uint16_t* bpack) {
  const uint32_t ksteps = (kc + 31) / 32;
  alignas(64) float bias_tile[2][256];
  alignas(64) float stage[4][256];
  const int64_t ldc_bytes = j.ldc * int64_t{sizeof(float)};
  for (uint32_t jr = 0; jr < nc; jr += 32) {
    const uint32_t cols = std::min(32u, nc - jr);
    if (init == Init::kBias) {
      for (uint32_t t = 0; t < 2; ++t) {
        for (uint32_t n = 0; n < 16; ++n) {
          const uint32_t col = t * 16 + n;
          const float v = col < cols ? j.bias[jc + jr + col] : 0.0f;
          for (uint32_t r = 0; r < 16; ++r) bias_tile[t][r * 16 + n] = v;
        }
      }
    }
    const uint16_t* bp = bpack + size_t{jr / 32} * ksteps * 2 * kAmxTileElems;
    for (uint32_t ir = 0; ir < mc; ir += 32) {
      const uint32_t rows = std::min(32u, mc - ir);
      const bool tm = rows > 16, tn = cols > 16;
      AmxC c[4];
      bool staged[4] = {};
      for (uint32_t t = 0; t < 4; ++t) {
        const uint32_t mi = t / 2, nj = t % 2;
        if ((mi == 1 && !tm) || (nj == 1 && !tn)) continue;
        const uint32_t rt = std::min(16u, rows - mi * 16), ct = std::min(16u, cols - nj * 16);
        float* dst = j.c + (ic + ir + mi * 16) * j.ldc + jc + jr + nj * 16;
        if (rt == 16 && ct == 16) {
          c[t].st = dst;
          c[t].st_stride = ldc_bytes;
          if (init == Init::kLoad) {
            c[t].ld = dst;
            c[t].ld_stride = ldc_bytes;
          } else if (init == Init::kBias) {
            c[t].ld = bias_tile[nj];
          }
          continue;
        }
        // A partial tile goes through a 16 x 16 stage: its initial values in, its result out.
        staged[t] = true;
        float* sg = stage[t];
        for (uint32_t r = 0; r < 16; ++r) {
          for (uint32_t n = 0; n < 16; ++n) {
            float v = 0.0f;
            if (r < rt && n < ct) {
              v = init == Init::kLoad   ? dst[r * j.ldc + n]
                  : init == Init::kBias ? bias_tile[nj][n]
                                        : 0.0f;
            }
            sg[r * 16 + n] = v;
          }
        }
        c[t].ld = sg;
        c[t].st = sg;
      }
      const uint16_t* a0 = apack + size_t{ir / 16} * ksteps * kAmxTileElems;
      const uint16_t* a1 = a0 + size_t{ksteps} * kAmxTileElems;
      if (tm && tn) {
        AmxBlock<true, true>(ksteps, a0, a1, bp, c);
      } else if (tm) {
        AmxBlock<true, false>(ksteps, a0, a1, bp, c);
      } else if (tn) {
        AmxBlock<false, true>(ksteps, a0, a1, bp, c);
      } else {
        AmxBlock<false, false>(ksteps, a0, a1, bp, c);
      }
      for (uint32_t t = 0; t < 4; ++t) {
        if (!staged[t]) continue;
        const uint32_t mi = t / 2, nj = t % 2;
        const uint32_t rt = std::min(16u, rows - mi * 16), ct = std::min(16u, cols - nj * 16);
        float* dst = j.c + (ic + ir + mi * 16) * j.ldc + jc + jr + nj * 16;
        for (uint32_t r = 0; r < rt; ++r) std::memcpy(dst + r * j.ldc, stage[t] + r * 16, ct * 4);
      }
    }
  }
}

void GemmBf16Amx(const GemmJob& j) {
  const auto* a = static_cast<const uint16_t*>(j.a);
  const auto* b = static_cast<const uint16_t*>(j.b);
  const uint32_t ksteps_max = (std::min(kAmxKc, j.k) + 31) / 32;
  const uint32_t panels_max = (std::min(kAmxNc, j.n) + 31) / 32;
  const uint32_t groups_max = (std::min(kAmxMc, j.m) + 15) / 16;
  // Packed blocks in bf16 elements; the scratch and the panel cache count floats (2 elements).
  auto b_elems = [](uint32_t ksteps, uint32_t panels) {
    return size_t{panels} * ksteps * 2 * kAmxTileElems;
  };
  auto a_elems = [](uint32_t ksteps, uint32_t groups) {
    return size_t{groups} * ksteps * kAmxTileElems;
  };
  auto* bscratch = reinterpret_cast<uint16_t*>(
      ScratchFloats(ScratchSlot::kGemmB, b_elems(ksteps_max, panels_max) / 2));
  auto* ascratch = reinterpret_cast<uint16_t*>(
      ScratchFloats(ScratchSlot::kGemmA, a_elems(ksteps_max, groups_max) / 2));
  PanelKey key;
  key.type = 0x80 | static_cast<uint8_t>(GemmIn::kBf16);  // the AMX layouts
  key.elem_bytes = 2;
  for (uint32_t jc = 0; jc < j.n; jc += kAmxNc) {
    const uint32_t nc = std::min(kAmxNc, j.n - jc);
    for (uint32_t pc = 0; pc < j.k; pc += kAmxKc) {
      const uint32_t kc = std::min(kAmxKc, j.k - pc);
      const uint32_t ksteps = (kc + 31) / 32;
      const Init init = pc > 0 ? Init::kLoad : j.bias != nullptr ? Init::kBias : Init::kZero;
      PanelRef bref = OperandBlock(j, key, 1, b + pc * j.b_rs + jc * j.b_cs, kc, nc,
                                   b_elems(ksteps, (nc + 31) / 32) / 2,
                                   reinterpret_cast<float*>(bscratch));
      auto* bpack = reinterpret_cast<uint16_t*>(bref.data());
      if (bref.must_pack()) {
        PackBAmx(j, b, pc, kc, jc, nc, bpack);
        bref.Publish();
      }
      for (uint32_t ic = 0; ic < j.m; ic += kAmxMc) {
        const uint32_t mc = std::min(kAmxMc, j.m - ic);
        PanelRef aref = OperandBlock(j, key, 0, a + ic * j.a_rs + pc * j.a_cs, mc, kc,
                                     a_elems(ksteps, (mc + 15) / 16) / 2,
                                     reinterpret_cast<float*>(ascratch));
        auto* apack = reinterpret_cast<uint16_t*>(aref.data());
        if (aref.must_pack()) {
          PackAAmx(j, a, ic, mc, pc, kc, apack);
          aref.Publish();
        }
        ConfigureAmxTiles();  // released before the next AcquirePanel (Note [Packed GEMM bf16])
        AmxTiles(j, ic, mc, jc, nc, kc, init, apack, bpack);
        ReleaseAmxTiles();
      }
    }
  }
}

}  // namespace

void PackedGemm(const GemmJob& job) {
  if (job.type == GemmIn::kF16)
    Gemm<half>(job);
  else if (job.type == GemmIn::kBf16)
    Gemm<bfloat16>(job);
  else
    Gemm<float>(job);
}

void PackedGemmBf16Amx(const GemmJob& job) { GemmBf16Amx(job); }

}  // namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE

#endif  // AICORE_ISA >= 2
