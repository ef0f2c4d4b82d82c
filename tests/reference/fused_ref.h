// Scalar references of the compound vector ops (fused.h): the documented formulas in double.
#pragma once

#include <algorithm>
#include <cmath>

namespace aicore::ref {

enum class Fused { kMulAddDst, kFusedMulAdd, kMulAddRelu, kAbsSub, kPrelu };

// Returns the documented result for sources a, b and the old dst value d.
inline double FusedResult(Fused k, double a, double b, double d) {
  switch (k) {
    case Fused::kMulAddDst:
      return a * b + d;  // dst = src0 * src1 + dst
    case Fused::kFusedMulAdd:
      return a * d + b;  // dst = src0 * dst + src1
    case Fused::kMulAddRelu:
      return std::max(0.0, a * d + b);
    case Fused::kAbsSub:
      return std::fabs(a - b);  // dst = |src0 - src1|
    case Fused::kPrelu:
      return a >= 0 ? a : a * b;  // dst = src0 >= 0 ? src0 : src0 * src1
  }
  return d;
}

}  // namespace aicore::ref
