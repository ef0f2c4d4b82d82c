// The packed GEMM of Note [Packed GEMM] (packed_gemm.h). Compiled once per ISA like every
// *_isa.cc file; only the AVX-512 variant has a body (the dispatcher never calls the others).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "aicore/core/dtype.h"
#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"
#include "aicore/kernel/lib/matmul/host_gemm/panel_cache.h"
#include "aicore/kernel/cube/scratch.h"
#include "aicore/kernel/cube/tile_asm.h"

#if AICORE_ISA >= 2
#include <immintrin.h>

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
// Loads the first `mask` bits' worth of 16 consecutive elements as floats (the rest 0).
inline __m512 Load16(const float* p, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, p); }
inline __m512 Load16(const half* p, __mmask16 mask) {
  // The maskz form: the unmasked one trips GCC 12's -Wmaybe-uninitialized in its header.
  return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_maskz_loadu_epi16(mask, p));
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
      key.operand = 1;
      key.src = b + pc * j.b_rs + jc * j.b_cs;
      key.rows = kc;
      key.cols = nc;
      key.rs = j.b_rs;
      key.cs = j.b_cs;
      PanelRef bref = j.cache_b ? AcquirePanel(key, size_t{kc} * ((nc + kNr - 1) / kNr * kNr),
                                               bscratch)
                                : PanelRef(bscratch, true, nullptr);
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
        key.operand = 0;
        key.src = a + ic * j.a_rs + pc * j.a_cs;
        key.rows = mc;
        key.cols = kc;
        key.rs = j.a_rs;
        key.cs = j.a_cs;
        const PanelRef aref =
            j.cache_a ? AcquirePanel(key, size_t{kc} * ((mc + kMr - 1) / kMr * kMr), ascratch)
                      : PanelRef(ascratch, true, nullptr);
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

}  // namespace

void PackedGemm(const GemmJob& job) {
  if (job.type == GemmIn::kF16)
    Gemm<half>(job);
  else
    Gemm<float>(job);
}

}  // namespace aicore::kernel::cube::AICORE_ISA_NAMESPACE

#endif  // AICORE_ISA >= 2
