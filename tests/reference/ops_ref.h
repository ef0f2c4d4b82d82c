// Double-precision references of the operator library (aicore/ops): elementwise activations and
// the row reductions, over dense row-major data. Obviously correct, not fast.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace aicore::ref {

inline double SiluRef(double x) { return x / (1.0 + std::exp(-x)); }
inline double GeluTanhRef(double x) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}
inline double GeluErfRef(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// Softmax (or log-softmax) of each of `rows` rows of `cols` values.
inline std::vector<double> SoftmaxRowsRef(const std::vector<double>& x, int64_t rows, int64_t cols,
                                          bool log) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    double m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) {
      y[r * cols + c] = log ? xr[c] - m - std::log(s) : std::exp(xr[c] - m) / s;
    }
  }
  return y;
}

// Layer norm of each row; `weight`/`bias` empty: ones/zeros. Fills mean and rstd per row (biased
// variance).
inline std::vector<double> LayerNormRowsRef(const std::vector<double>& x, int64_t rows,
                                            int64_t cols, const std::vector<double>& weight,
                                            const std::vector<double>& bias, double eps,
                                            std::vector<double>* mean, std::vector<double>* rstd) {
  std::vector<double> y(x.size());
  mean->assign(rows, 0);
  rstd->assign(rows, 0);
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    double m = 0;
    for (int64_t c = 0; c < cols; ++c) m += xr[c];
    m /= cols;
    double v = 0;
    for (int64_t c = 0; c < cols; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= cols;
    const double rs = 1.0 / std::sqrt(v + eps);
    (*mean)[r] = m;
    (*rstd)[r] = rs;
    for (int64_t c = 0; c < cols; ++c) {
      double o = (xr[c] - m) * rs;
      if (!weight.empty()) o *= weight[c];
      if (!bias.empty()) o += bias[c];
      y[r * cols + c] = o;
    }
  }
  return y;
}

// RMS norm of each row; fills rstd per row.
inline std::vector<double> RmsNormRowsRef(const std::vector<double>& x, int64_t rows, int64_t cols,
                                          const std::vector<double>& gamma, double eps,
                                          std::vector<double>* rstd) {
  std::vector<double> y(x.size());
  rstd->assign(rows, 0);
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += xr[c] * xr[c];
    const double rs = 1.0 / std::sqrt(s / cols + eps);
    (*rstd)[r] = rs;
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = xr[c] * rs * gamma[c];
  }
  return y;
}

}  // namespace aicore::ref
