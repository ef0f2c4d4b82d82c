// The vector compute engine: contiguous element-wise loops over UB data, compiled once per
// instruction set (portable, AVX2, AVX-512) and chosen at run time (AICORE_ISA can lower the
// choice). The AscendC API templates validate arguments and split strided/masked calls into
// contiguous runs; this layer only computes. Semantics per element, for every dtype listed:
//
//   half, bfloat16: computed in float and rounded to nearest even on store (exact for + - * /
//                   sqrt; Exp within 1 ulp, Ln within 2 ulp of float before rounding).
//   float:          IEEE single; Exp within 1 ulp (checked on every float input), Ln within
//                   2 ulp, Rsqrt within 1 ulp (1/sqrt, rounded twice); Reciprocal and the rest
//                   correctly rounded.
//   integer types:  two's-complement wrap-around for + - * (INT_MIN / -1 wraps too); Div
//                   truncates toward zero and a zero divisor yields 0; shift counts are taken
//                   modulo the bit width; right shifts are logical for unsigned, arithmetic for
//                   signed.
// Every ISA variant gives bit-identical results (the variants are built without FMA contraction;
// tests/kernel/vector/engine_test.cc compares them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "aicore/core/dtype.h"

namespace aicore::kernel::engine {

enum class VecOp : uint16_t {
  // dst = f(src0, src1)
  kAdd, kSub, kMul, kDiv, kMax, kMin, kAnd, kOr, kAddRelu, kSubRelu,
  // dst = f(src0, scalar)
  kAdds, kMuls, kMaxs, kMins, kSubs, kDivs, kLeakyRelu, kShiftLeft, kShiftRight,
  // dst = f(src0)
  kExp, kLn, kAbs, kSqrt, kRsqrt, kReciprocal, kRelu, kNot, kNeg, kCopy,
  // dst = scalar
  kDuplicate,
  // dst = dst + src0 * scalar (dst may have a wider type: see Axpy)
  kAxpy,
  kCount,
};

// Returns the AscendC API name of `op` ("Add", "Exp", ...).
const char* VecOpName(VecOp op);
// Returns true when `op` is defined for `dt` (e.g. And only for integer types, Exp only for
// floating types). Inline: every vector API call checks it.
constexpr bool VecOpSupports(VecOp op, DType dt) {
  const bool is_float = dt == DType::kF16 || dt == DType::kBF16 || dt == DType::kF32;
  switch (op) {
    case VecOp::kAnd: case VecOp::kOr: case VecOp::kNot:
    case VecOp::kShiftLeft: case VecOp::kShiftRight:
      return !is_float && dt != DType::kUnknown;
    case VecOp::kExp: case VecOp::kLn: case VecOp::kSqrt: case VecOp::kRsqrt:
    case VecOp::kReciprocal: case VecOp::kLeakyRelu:
      return is_float;
    case VecOp::kCount:
      return false;
    default:
      return dt != DType::kUnknown;
  }
}

// A scalar operand, held as double for floating types and int64 for integer types.
struct Scalar {
  double f = 0;
  int64_t i = 0;
};

// Applies `op` to `n` contiguous elements of type `dt`. Pointers may alias only exactly
// (dst == src). Unused sources may be null.
void Elementwise(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s,
                 size_t n);

// Applies `op` to `rows` runs of `n` elements of type `dt`, one run after the other: run r writes
// dst + r * pitch[0] bytes and reads src0 + r * pitch[1] and src1 + r * pitch[2]. A source whose
// bit is set in `block_sources` (bit 1: src0, bit 2: src1) is the one 32-byte DataBlock at that
// address repeated along the run (then n * DTypeSize(dt) <= 256); it is read before the run
// writes, so it may overlap dst. Otherwise as `rows` Elementwise calls (a source may alias its
// run's dst only exactly). Unused sources may be null.
void ElementwiseRows(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s,
                     size_t n, size_t rows, const uint64_t pitch[3], unsigned block_sources);

// Rounding of a conversion; the order matches AscendC::RoundMode.
//   kNone:  kRint when the conversion loses precision, exact otherwise.
//   kRint:  to nearest, ties to even.      kFloor: toward -inf.     kCeil: toward +inf.
//   kRound: to nearest, ties away from 0.  kTrunc: toward zero.
//   kOdd:   to the neighbour whose last mantissa bit is 1 when inexact (float -> half/bfloat16).
enum class Round : uint8_t { kNone, kRint, kFloor, kCeil, kRound, kTrunc, kOdd };

// Returns the AscendC name of `r` ("CAST_RINT", ...).
const char* RoundName(Round r);
// Returns true when converting `src` elements to `dst` elements with `r` is defined (see Cast).
bool CastSupports(DType dst, DType src, Round r);

// Converts `n` contiguous elements of type `src_dt` to `dst_dt` with rounding `r`. Defined for
// the pairs CastSupports accepts:
//   float  <- half, bfloat16 (exact), int32, int16, float (float->float rounds to an integral
//             value; kNone copies)
//   half   <- float, int32, int16, int8, uint8     bfloat16 <- float
//   int32  <- float, half, bfloat16, int16          int16 <- float, half, int32
//   int8   <- half                                  uint8 <- half
// Results that do not fit a floating destination follow IEEE overflow for the mode (kRint/kRound
// give inf, kTrunc and kOdd the largest finite value, kFloor/kCeil depend on the sign); integer
// destinations saturate to their range and NaN converts to 0. dst and src must not overlap.
void Cast(DType dst_dt, DType src_dt, Round r, void* dst, const void* src, size_t n);

// Count-form reductions of `n` > 0 contiguous floats, as Note [Reduce semantics]
// (aicore/kernel/vector/reduce.h) defines them; every ISA gives the same bits.
//   ReduceSumF32:     a binary tree of adjacent pairs inside each 64-element repeat (a short last
//                     repeat padded with zeros), then the repeat sums added in order.
//   ReduceExtremeF32: the largest (max) or smallest value that is not NaN; NaN when all are; of
//                     equal values the first (only +0 and -0 tell them apart).
float ReduceSumF32(const float* src, size_t n);
float ReduceExtremeF32(bool max, const float* src, size_t n);

// BlockReduceMax/Min/Sum over `repeats` whole repeats of 64 floats: each 32-byte DataBlock of 8
// floats gives one float, as Note [Reduce semantics] (aicore/kernel/vector/reduce.h) defines it:
// a sum is the pairwise tree of the block ((x0+x1)+(x2+x3))+((x4+x5)+(x6+x7)); an extreme is the
// first of the block's largest (smallest) non-NaN elements, or its first element when all are
// NaN. Repeat r is read from src + r * src_pitch bytes and its 8 results are written to
// dst + r * dst_pitch bytes; the repeats run in order, each read before it is written, so dst may
// overlap a later repeat's source. Every ISA gives the same bits.
enum class BlockReduceOp : uint8_t { kMax, kMin, kSum };
void BlockReduceF32(BlockReduceOp op, float* dst, size_t dst_pitch, const float* src,
                    size_t src_pitch, size_t repeats);

// Returns the ISA the engine dispatches to ("portable", "avx2", "avx512").
const char* EngineIsa();

}  // namespace aicore::kernel::engine
