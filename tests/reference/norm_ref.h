// Double-precision references for LayerNorm and RmsNorm over rows of k values (first `valid`
// real), two-pass statistics.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace aicore::ref {

struct RowNorm {
  std::vector<double> y;                 // [m, k] (valid columns)
  std::vector<double> mean, var, rstd;   // one per row (mean/var: LayerNorm only)
};

// gamma/beta may be empty (treated as 1 and 0).
inline RowNorm LayerNormRows(const std::vector<double>& x, const std::vector<double>& gamma,
                             const std::vector<double>& beta, uint32_t m, uint32_t k,
                             uint32_t valid, double eps) {
  RowNorm r{std::vector<double>(x.size()), std::vector<double>(m), std::vector<double>(m),
            std::vector<double>(m)};
  for (uint32_t i = 0; i < m; ++i) {
    double s = 0;
    for (uint32_t j = 0; j < valid; ++j) s += x[i * k + j];
    const double mean = s / valid;
    double v = 0;
    for (uint32_t j = 0; j < valid; ++j) v += (x[i * k + j] - mean) * (x[i * k + j] - mean);
    v /= valid;
    const double rstd = 1.0 / std::sqrt(v + eps);
    for (uint32_t j = 0; j < valid; ++j) {
      r.y[i * k + j] = (x[i * k + j] - mean) * rstd * (gamma.empty() ? 1.0 : gamma[j]) +
                       (beta.empty() ? 0.0 : beta[j]);
    }
    r.mean[i] = mean;
    r.var[i] = v;
    r.rstd[i] = rstd;
  }
  return r;
}

inline RowNorm RmsNormRows(const std::vector<double>& x, const std::vector<double>& gamma,
                           uint32_t m, uint32_t k, uint32_t valid, double eps) {
  RowNorm r{std::vector<double>(x.size()), {}, {}, std::vector<double>(m)};
  for (uint32_t i = 0; i < m; ++i) {
    double s = 0;
    for (uint32_t j = 0; j < valid; ++j) s += x[i * k + j] * x[i * k + j];
    const double rstd = 1.0 / std::sqrt(s / valid + eps);
    for (uint32_t j = 0; j < valid; ++j) r.y[i * k + j] = x[i * k + j] * rstd * gamma[j];
    r.rstd[i] = rstd;
  }
  return r;
}

}  // namespace aicore::ref
