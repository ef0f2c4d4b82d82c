// Double-precision references for LayerNorm, its gradients (LayerNormGrad, LayerNormGradBeta)
// and RmsNorm over rows of k values (first `valid` real), two-pass statistics.
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

struct RowNormGrad {
  std::vector<double> pd_x;           // [m, k] (valid columns)
  std::vector<double> res_for_gamma;  // [m, k] (valid columns)
};

// The documented LayerNormGrad formula with the given per-row mean and variance (H = valid):
// pd_x = dy*g*rstd + (2/H)*pd_var*(x-mean) + pd_mean/H,
// pd_var = -0.5*rstd^3*sum(dy*g*(x-mean)), pd_mean = -rstd*sum(dy*g) - (2/H)*pd_var*sum(x-mean).
inline RowNormGrad LayerNormGradRows(const std::vector<double>& dy, const std::vector<double>& x,
                                     const std::vector<double>& var,
                                     const std::vector<double>& mean,
                                     const std::vector<double>& gamma, uint32_t m, uint32_t k,
                                     uint32_t valid, double eps) {
  RowNormGrad r{std::vector<double>(x.size()), std::vector<double>(x.size())};
  const double h = valid;
  for (uint32_t i = 0; i < m; ++i) {
    const double rstd = 1.0 / std::sqrt(var[i] + eps);
    double s_px = 0, s_p = 0, s_x2 = 0;
    for (uint32_t j = 0; j < valid; ++j) {
      const double pdxl = dy[i * k + j] * gamma[j];
      const double x2 = x[i * k + j] - mean[i];
      s_px += pdxl * x2;
      s_p += pdxl;
      s_x2 += x2;
    }
    const double pd_var = -0.5 * rstd * rstd * rstd * s_px;
    const double pd_mean = -rstd * s_p + pd_var / h * (-2.0 * s_x2);
    for (uint32_t j = 0; j < valid; ++j) {
      const double x2 = x[i * k + j] - mean[i];
      r.pd_x[i * k + j] =
          dy[i * k + j] * gamma[j] * rstd + pd_var * 2.0 / h * x2 + pd_mean / h;
      r.res_for_gamma[i * k + j] = x2 * rstd;
    }
  }
  return r;
}

struct ColSums {
  std::vector<double> pd_gamma, pd_beta;  // [k]
};

// LayerNormGradBeta: column sums over m rows of dy * resForGamma and of dy.
inline ColSums LayerNormGradBetaCols(const std::vector<double>& dy,
                                     const std::vector<double>& res_for_gamma, uint32_t m,
                                     uint32_t k) {
  ColSums c{std::vector<double>(k), std::vector<double>(k)};
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < k; ++j) {
      c.pd_gamma[j] += dy[i * k + j] * res_for_gamma[i * k + j];
      c.pd_beta[j] += dy[i * k + j];
    }
  }
  return c;
}

}  // namespace aicore::ref
