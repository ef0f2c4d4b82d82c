// Scalar reference for matrix multiplication: C = init + A x B as a plain triple loop in double
// (int64 for integers), with the per-element sum of |a*b| that bounds the rounding error of an
// fp32 accumulation (see MatmulTolerance).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace aicore::ref {

struct MatmulRefResult {
  std::vector<double> c;    // (M, N) row-major
  std::vector<double> abs;  // (M, N): |init| + sum_k |a(m,k) * b(k,n)|
};

// Returns C(M, N) = init + A(M, K) x B(K, N) for row-major A (pitch k) and B (pitch n). `init` is
// an (M, N) row-major matrix, or nullptr for zero; `bias` (N values, or nullptr) is added to
// every row. Integer inputs are summed exactly (the result is exact in double for |C| < 2^53).
template <typename S>
MatmulRefResult MatmulRef(const std::vector<S>& a, const std::vector<S>& b, size_t m, size_t n,
                          size_t k, const double* init = nullptr, const double* bias = nullptr) {
  MatmulRefResult r;
  r.c.assign(m * n, 0.0);
  r.abs.assign(m * n, 0.0);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double acc = 0, mag = 0;
      if (init != nullptr) acc += init[i * n + j];
      if (bias != nullptr) acc += bias[j];
      mag = std::fabs(acc);
      if constexpr (std::is_integral_v<S>) {
        int64_t sum = 0;
        for (size_t p = 0; p < k; ++p) {
          sum += int64_t{a[i * k + p]} * int64_t{b[p * n + j]};
        }
        acc += static_cast<double>(sum);
      } else {
        for (size_t p = 0; p < k; ++p) {
          const double prod = static_cast<double>(static_cast<float>(a[i * k + p])) *
                              static_cast<double>(static_cast<float>(b[p * n + j]));
          acc += prod;
          mag += std::fabs(prod);
        }
      }
      r.c[i * n + j] = acc;
      r.abs[i * n + j] = mag;
    }
  }
  return r;
}

// Returns the largest error an fp32 accumulation of k products (each exact or rounded once) plus
// one initial value may have: (k + 2) * 2^-24 * (|init| + sum |a*b|), plus the smallest normal
// float for results that flush. This is the standard bound gamma_(k+1) ~ (k+1)u of a recursive
// sum with unit roundoff u = 2^-24, with one more u for a rounded product (fp32 inputs).
inline double MatmulTolerance(size_t k, double abs_sum) {
  return static_cast<double>(k + 2) * std::ldexp(1.0, -24) * abs_sum + 1.2e-38;
}

}  // namespace aicore::ref
