// A cache-blocked, packed GEMM straight from GM operands: the engine of the Matmul API's fused
// path (Note [Matmul fused path] in matmul.h). It computes what the L1 -> L0 -> Mmad -> Fixpipe
// path computes, in the same per-element order, without the fractal copies in between.
#pragma once

#include <cstdint>

namespace aicore::kernel::cube {

// Note [Packed GEMM]
// C(i, j) = init(j) + sum_p A(i, p) * B(p, j), for i < m, j < n, p < k, with init 0 or bias[j],
// evaluated exactly as Note [Mmad accumulation order] prescribes: acc = init, then for
// p = 0, 1, ..., k-1 acc = fma(A(i, p), B(p, j), acc) in fp32; fp16 inputs are widened to fp32
// first (exact). Splitting k into cache blocks stores acc to C between blocks and reloads it,
// which changes no bit; so the result equals the Mmad path's (bit for bit) however the Matmul
// tiling cuts the problem.
//
// The register tile is 8 rows x 48 columns: 24 zmm accumulators, 3 zmm of B loaded per k step
// and one A element broadcast per row (11 loads for 24 FMAs: 12 cycles on SPR's 2 FMA ports,
// 4..6 on its load ports). On the Sapphire-Rapids-class VM (176 GFLOP/s measured FMA
// peak, 1 thread) it runs at 0.92..0.97 of the peak with its data in L1/L2 (a 6 x 64 or
// 12 x 32 shape has the same or a worse load-to-FMA ratio). The tiles of a B panel narrower than
// 48 columns use 2 or 1 zmm per row (about 0.93 and 0.7 of the 3-vector rate), so the last 49..64
// columns of a block are cut 32 + 17..32 rather than 48 + 1..16.
//
// The blocking is the usual CPU BLAS one (loops jc > pc > ic > jr > ir): a kc x nc block of B
// is packed into 48-column panels (k-major), an mc x kc block of A into 8-row panels (k-major),
// and the tile runs over kc with one B panel (kc x 48 floats, 24 KiB at kc 128, half of L1d)
// while the A panels (4 KiB) stream from the L2-resident A block: kc 128, mc 192 (A block
// 96 KiB), nc 3072. Measured through aclnnMatmul on one thread against oneDNN's sgemm, variants
// alternating in one process with their order rotated (the second of two back-to-back runs on the
// same buffers gains 2..3 points, 10 on two threads): mc 192 (one A block per k block for the
// 176-row shares of 1024^3 on 24 blocks, instead of two), the A prefetch and the whole-block B
// packing below, together, +2..3 points at 1024^3 over kc 256, mc 128 (not separated: each alone
// is within the noise); then kc 128 against 256 +4..5 points at 128 x 4096 x 4096 (one and two
// threads) and within the noise at 1024^3; kc 512 3 points below 256 there. A likely reason:
// those B rows are 16 KiB apart, so the rows of one B panel fall on few L2 sets (huge pages), and
// a longer panel evicts its own prefetched rows before the packing reads them.
// Inside its k loop the tile prefetches what the tiles after it need, so no tile starts on a miss:
// the next C tile into L1, and into L2 the next A panel and the next B panel (the GM rows it is
// packed from, in the first A block, else the packed panel). That was worth 0.78 -> 0.85 of
// oneDNN's sgemm at 1024^3 (a burst of C prefetches between tiles stalled on the fill buffers). The
// A packing prefetches the next 8 rows as it packs 8. A row-major B block that other blocks share
// (GemmJob::cache_b) is packed whole before its tiles, row by row (each GM row segment read once, a
// few rows prefetched ahead), and published at once; an unshared one is packed panel by panel just
// before the panel's tiles (at 128 x 4096 x 4096 the whole-block packing measured slower there: its
// GM reads no longer overlap the tiles).
// Only an AVX-512 kernel exists; other ISAs use the Mmad path. bf16 inputs: Note [Packed GEMM
// bf16].

// Note [Packed GEMM bf16]
// bf16 inputs take one of two kernels, chosen per job by PackedGemmBf16Amx():
// - AMX (TDPBF16PS), when the CPU has AMX-TILE and AMX-BF16, Linux grants the process the tile
//   state (arch_prctl ARCH_REQ_XCOMP_PERM), AICORE_MMAD_BF16 is auto or amx (the variable the
//   cube's Mmad follows, Note [bf16 kernel choice]) and SetPackedGemmBf16Amx has not turned it
//   off. A is packed into 16-row x 32-k tiles, B into 16-column tiles of 16 k-pair rows, both
//   zero-padded (rows of A past m, k past the end); a 2 x 2 block of 16 x 16 fp32 C tiles stays in
//   tmm0-3 over a k block of up to kAmxKc, k in increasing order, 32 per instruction. Products of
//   bf16 are exact in fp32 and accumulate in fp32, summed by pairs as TDPBF16PS sums them (bf16
//   denormal inputs read as zero): the result differs from the fma chain of Note [Mmad
//   accumulation order] within its tolerance, (K+2) * 2^-24 * (|C0| + sum|a*b|), the bound the
//   cube's own AMX and VDPBF16PS kernels keep. The tile state is configured after the panel cache
//   is asked for the block (which may block the thread, never switch its fiber) and released
//   before the next ask and before returning, so no fiber switch sees live tiles.
// - otherwise widened to fp32 (exact) and run through the fp32 kernel above: the fma chain, bit
//   for bit (the cube's widened bf16 kernel gives the same bits).

enum class GemmIn : uint8_t { kF32, kF16, kBf16 };

struct GemmJob {
  GemmIn type = GemmIn::kF32;
  uint32_t m = 0, n = 0, k = 0;
  const void* a = nullptr;  // A(i, p) at a[i * a_rs + p * a_cs] (elements of `type`)
  int64_t a_rs = 0, a_cs = 1;
  const void* b = nullptr;  // B(p, j) at b[p * b_rs + j * b_cs]
  int64_t b_rs = 0, b_cs = 1;
  float* c = nullptr;  // C(i, j) at c[i * ldc + j], overwritten
  int64_t ldc = 0;
  const float* bias = nullptr;  // n values added first, or nullptr
  // Whether other blocks of the launch are expected to read the same A rows (B columns): their
  // packed blocks then go through the panel cache (Note [Packed panel cache]); otherwise they are
  // packed into this thread's scratch, which stays in cache from one block to the next.
  bool cache_a = false, cache_b = false;
};

// Returns true when the active ISA (ActiveIsa(), AICORE_ISA) has a packed GEMM kernel.
bool PackedGemmAvailable();
// Runs `job`; call only when PackedGemmAvailable().
void RunPackedGemm(const GemmJob& job);

// Returns true when bf16 jobs run on the AMX kernel (Note [Packed GEMM bf16]): the CPU and OS
// allow it, AICORE_MMAD_BF16 is auto or amx, and SetPackedGemmBf16Amx(false) was not called.
bool PackedGemmBf16Amx();
// Allows (the default) or forbids the AMX bf16 kernel for later jobs (tests, benchmarks); when
// forbidden, bf16 is widened to fp32.
void SetPackedGemmBf16Amx(bool allowed);

namespace isa_avx512 {
void PackedGemm(const GemmJob& job);
// Runs a bf16 `job` on the AMX kernel; call only when AmxReady(AmxOp::kBf16) (core/cpu.h).
void PackedGemmBf16Amx(const GemmJob& job);
}

}  // namespace aicore::kernel::cube
