// Double-precision references of the element-wise activations as the AscendC docs define them.
#pragma once

#include <algorithm>
#include <cmath>

namespace aicore::ref {

inline double Gelu(double x) {
  return x / (1 + std::exp(-1.5957691216 * (x + 0.044715 * x * x * x)));
}
inline double FasterGelu(double x) { return x / (1 + std::exp(-1.702 * x)); }
inline double FasterGeluV2(double x) {
  const double sign = x > 0 ? 1 : (x < 0 ? -1 : 0);
  const double t = std::min(std::fabs(0.7071 * x), 1.769) - 1.769;
  return x * (sign * (-0.1444 * t * t + 0.5) + 0.5);
}
inline double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
inline double Swish(double x, double beta) { return x / (1 + std::exp(-beta * x)); }

}  // namespace aicore::ref
