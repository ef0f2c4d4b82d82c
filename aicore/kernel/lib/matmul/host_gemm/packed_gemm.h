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
// tiling cuts the problem. The blocking is the usual CPU BLAS one (loops jc > pc > ic > jr > ir):
// a kc x nc block of B is packed into 48-column panels (k-major), an mc x kc block of A into
// 8-row panels (k-major), and an 8 x 48 register tile (24 zmm accumulators) runs over kc with
// one B panel held in L1 while the A panels stream from L2. Only an AVX-512 kernel exists;
// other ISAs use the Mmad path.

enum class GemmIn : uint8_t { kF32, kF16 };

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

namespace isa_avx512 {
void PackedGemm(const GemmJob& job);
}

}  // namespace aicore::kernel::cube
