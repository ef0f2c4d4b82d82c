// The vector compute engine: contiguous element-wise loops over UB data, compiled once per
// instruction set (portable, AVX2, AVX-512) and chosen at run time (AICORE_ISA can lower the
// choice). The AscendC API templates validate arguments and split strided/masked calls into
// contiguous runs; this layer only computes. Semantics per element, for every dtype listed:
//
//   half, bfloat16: computed in float and rounded to nearest even on store (exact for + - * /
//                   sqrt; Exp/Ln within 2 ulp of float before rounding).
//   float:          IEEE single; Exp/Ln within 2 ulp.
//   int16/int32:    two's-complement wrap-around for + - *; Div truncates toward zero and a zero
//                   divisor yields 0; shifts are logical for unsigned, arithmetic for signed.
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
// floating types).
bool VecOpSupports(VecOp op, DType dt);

// A scalar operand, held as double for floating types and int64 for integer types.
struct Scalar {
  double f = 0;
  int64_t i = 0;
};

// Applies `op` to `n` contiguous elements of type `dt`. Pointers may alias only exactly
// (dst == src). Unused sources may be null.
void Elementwise(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s,
                 size_t n);

// Returns the ISA the engine dispatches to ("portable", "avx2", "avx512").
const char* EngineIsa();

}  // namespace aicore::kernel::engine
