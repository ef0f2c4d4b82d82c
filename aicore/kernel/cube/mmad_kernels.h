// The compute behind Mmad: one job description and the per-ISA entry points (mmad_isa.cc,
// compiled once per instruction set) with the run-time choice among them (mmad.cc).
// See Note [Mmad accumulation order].
#pragma once

#include <cstdint>

namespace aicore::kernel::cube {

// Note [Mmad accumulation order]
// Every output C(m, n) is computed as: acc = initial value (0, the bias b[n], or C itself); then
// for k = 0, 1, ..., K-1 in increasing order acc = fma(A(m, k), B(k, n), acc) in fp32 with one
// rounding per step (int8: exact int32 sums). fp16 and bf16 inputs are widened to fp32 first;
// their products are exact in fp32, so fma and multiply-then-add agree. The portable, AVX2 and
// AVX-512 kernels follow this order, so fp32, fp16, bf16 and int8 results are bit-identical on
// every ISA. The one exception is the VDPBF16PS bf16 kernel (See Note [bf16 kernel choice]): it
// adds the pair (k+1, k) per instruction (odd element first) and treats bf16 denormals as zero,
// so its results differ from the portable order within the usual summation error bound,
// |err| <= (K+2) * 2^-24 * (|C0| + sum|a*b|) (the tolerance the tests use for every float path).
// Padding is ignored: k beyond K is never read (fractals hold K0-aligned k), rows m >= M of C are
// not written, and the padded columns n in [N, N1*16) of the last C fractal column hold A*B of
// whatever the padding of B holds (Fixpipe never reads them).

enum class MmadType : uint8_t { kF32, kF16, kBF16, kI8 };
enum class MmadInit : uint8_t { kZero, kAccumulate, kBias };
// How the AVX-512 kernels multiply bf16: AMX tiles, VDPBF16PS on k-pairs, or widened to fp32
// FMA. kAuto uses AMX when available, else the faster of the other two on this CPU (See Note
// [bf16 kernel choice]).
enum class Bf16Path : uint8_t { kAuto, kDot, kWiden, kAmx };

// Note [bf16 kernel choice]
// VDPBF16PS does 64 FLOP per instruction against FMA's 32, but its throughput differs between
// CPUs: on the Sapphire Rapids class VM this was written on it issues every other cycle (the same
// FLOP rate as fp32 FMA, measured 104 vs 206 GFLOP/s), on Zen 4/5 it matches FMA's rate (twice
// the FLOPs). bf16 widens to fp32 exactly, so the fp32 FMA kernel is a valid bf16 kernel. kAuto
// times both instructions once per process (a few 100 us) and uses VDPBF16PS only when its peak
// is at least 1.25x the FMA peak; AICORE_MMAD_BF16=dot or =fma forces one. The two paths round
// differently (Note [Mmad accumulation order]), so the choice is logged once. Before both, kAuto
// uses AMX TDPBF16PS (Note [AMX bf16] in mmad_isa.cc) when the CPU has AMX-BF16, Linux grants
// the tile state, and m and k are multiples of 16; AICORE_MMAD_BF16=amx|dot|fma overrides.

// The 64-byte AMX tile configuration LDTILECFG loads (palette 1: rows and bytes per row of
// tmm0-15), for the AMX kernels of the Mmad and the host GEMM.
struct alignas(64) AmxTileConfig {
  uint8_t palette_id = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

struct MmadJob {
  MmadType type = MmadType::kF32;
  MmadInit init = MmadInit::kZero;
  uint32_t m = 0, n = 0, k = 0;
  uint32_t m1 = 0;             // fractal rows of A and C: ceil(m / 16)
  uint32_t n1 = 0;             // fractal columns of B and C: ceil(n / 16)
  uint32_t a_k1 = 0;           // fractals per fractal row of A (K1, or more with kDirectionAlign)
  uint32_t b_k1 = 0;           // fractal rows of B: ceil(k / K0)
  const void* a = nullptr;     // L0A, Zz (l0_layout.h)
  const void* b = nullptr;     // L0B, Zn (l0_layout.h)
  void* c = nullptr;           // L0C, Nz 16 x 16 fractals of float (int32 for int8)
  const void* bias = nullptr;  // n floats (int32 for int8) when init == kBias
  Bf16Path bf16_path = Bf16Path::kAuto;  // AVX-512 only; kDot needs AVX512_BF16
};

// Runs `job` on the active ISA (ActiveIsa(), AICORE_ISA).
void RunMmad(const MmadJob& job);
// Returns the kernel family RunMmad uses for `type` on this host, e.g. "avx512-fma 8x48",
// "avx512-bf16dot 8x48", "portable".
const char* MmadKernelName(MmadType type);

#define AICORE_DECLARE_MMAD_ISA(ns)               \
  namespace ns {                                  \
  void Mmad(const MmadJob& job);                  \
  const char* MmadKernelName(const MmadJob& job); \
  }
AICORE_DECLARE_MMAD_ISA(isa_portable)
#if defined(__x86_64__)
AICORE_DECLARE_MMAD_ISA(isa_avx2)
AICORE_DECLARE_MMAD_ISA(isa_avx512)
#endif
#undef AICORE_DECLARE_MMAD_ISA

}  // namespace aicore::kernel::cube
