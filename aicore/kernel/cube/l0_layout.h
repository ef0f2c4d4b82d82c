// The element order inside the 512-byte fractals of L0A (A2) and L0B (B2): which element of a
// fractal lives at which position. Fractal placement follows the documented Zz/Zn formats; only
// LoadData and Mmad read or write L0A/L0B contents, through the functions here.
// See Note [L0 intra-fractal order].
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "aicore/core/dtype.h"

namespace AscendC::detail::l0 {

// Note [L0 intra-fractal order]
// Placement of fractals is exactly as documented (ascendc-reference.md §3.3): L0A holds A(M, K) as
// Zz, fractal (m1, k1) at index m1 * K1 + k1; L0B holds B(K, N) as Zn, fractal (k1, n1) at index
// k1 * N1 + n1; every fractal is 512 B (16 x K0 elements, K0 = 32 B / sizeof(T)). So byte ranges
// at 512-B granularity, buffer sizes and the sanitizer's accounting are the hardware's.
// Inside a fractal the order is ours, chosen for the CPU micro-kernels (aicore/kernel/cube/
// mmad_isa.cc), which keep a block of C in registers as rows of 16 n-values (one zmm of fp32)
// and walk k:
// - L0A: the documented order, row-major 16 x K0: (m0, k0) at m0 * K0 + k0. The kernels
//   broadcast one A element (fp32, fp16 after conversion) or one k-pair (bf16, the 32-bit operand
//   of VDPBF16PS) or k-quad (int8) per row and k step; row-major keeps those pairs and quads
//   contiguous, so no reorder is needed.
// - L0B, fp32/int32/fp16/int16 and other non-bf16 types of 2 or 4 bytes: k-major,
//   (k0, n0) at k0 * 16 + n0. The 16 n-values of one k are one contiguous 64-B (fp32) or 32-B
//   (fp16, widened with VCVTPH2PS) vector load. The documented order is n-major (n0 * K0 + k0),
//   which would need a gather per k.
// - L0B, bf16: k-pair-major, (k0, n0) at (k0 / 2) * 32 + n0 * 2 + k0 % 2: one 64-B load gives the
//   16 (b[k][n], b[k+1][n]) pairs VDPBF16PS multiplies with a broadcast (a[m][k], a[m][k+1]);
//   the whole fractal is also an AMX TDPBF16PS B tile (8 rows of 64 B).
// - L0B, 1-byte types: k-quad-major, (k0, n0) at (k0 / 4) * 64 + n0 * 4 + k0 % 4, the operand
//   order of VPDPBUSD-style 4-way dot products and of an AMX TDPBSSD B tile.
// Consequences: LoadData into L0B permutes each fractal (a plain 512-B copy when the documented
// source is already k-major, i.e. the ifTranspose case for 16-bit types); data written to L0B by
// any other means is not supported. L0C is not affected: it stays documented Nz.

inline constexpr uint32_t kFractalBytes = 512;
inline constexpr uint32_t kFractalRows = 16;  // M0 = N0

template <typename T>
inline constexpr uint32_t kK0 = 32 / sizeof(T);

enum class BOrder : uint8_t { kKMajor, kKPairs, kKQuads };

// Returns the intra-fractal order of L0B for element type T.
template <typename T>
constexpr BOrder BOrderOf() {
  if constexpr (sizeof(T) == 1)
    return BOrder::kKQuads;
  else if constexpr (std::is_same_v<std::remove_cv_t<T>, aicore::bfloat16>)
    return BOrder::kKPairs;
  else
    return BOrder::kKMajor;
}

// Returns the position (in elements) of A element (m0, k0) inside an L0A fractal.
template <typename T>
constexpr uint32_t AInFractal(uint32_t m0, uint32_t k0) {
  return m0 * kK0<T> + k0;
}

// Returns the position (in elements) of B element (k0, n0) inside an L0B fractal.
template <typename T>
constexpr uint32_t BInFractal(uint32_t k0, uint32_t n0) {
  constexpr BOrder order = BOrderOf<T>();
  if constexpr (order == BOrder::kKPairs)
    return (k0 / 2) * 32 + n0 * 2 + k0 % 2;
  else if constexpr (order == BOrder::kKQuads)
    return (k0 / 4) * 64 + n0 * 4 + k0 % 4;
  else
    return k0 * 16 + n0;
}

// Returns the element index of logical A(m, k) in an L0A tensor holding Zz fractals with
// `k1_count` fractals per row of fractals (K1).
template <typename T>
constexpr size_t AIndex(uint32_t m, uint32_t k, uint32_t k1_count) {
  const size_t frac = size_t{m / kFractalRows} * k1_count + k / kK0<T>;
  return frac * (kFractalBytes / sizeof(T)) + AInFractal<T>(m % kFractalRows, k % kK0<T>);
}

// Returns the element index of logical B(k, n) in an L0B tensor holding Zn fractals with
// `n1_count` fractals per row of fractals (N1).
template <typename T>
constexpr size_t BIndex(uint32_t k, uint32_t n, uint32_t n1_count) {
  const size_t frac = size_t{k / kK0<T>} * n1_count + n / kFractalRows;
  return frac * (kFractalBytes / sizeof(T)) + BInFractal<T>(k % kK0<T>, n % kFractalRows);
}

}  // namespace AscendC::detail::l0
