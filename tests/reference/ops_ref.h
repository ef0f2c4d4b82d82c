// Double-precision references of the operator library (aicore/ops): elementwise activations and
// the row reductions, over dense row-major data. Obviously correct, not fast.
#pragma once

#include <algorithm>
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

// torch.matmul of dense row-major `a` (shape `as`) and `b` (shape `bs`): a 1-D a is (1, K) and a
// 1-D b is (K, 1), the added dims dropped from the result; batch dims broadcast. Returns the
// result (dense, shape `*out_shape`) and, per element, sum_k |a * b| (the rounding bound of
// MatmulTolerance) in `*abs`.
inline std::vector<double> MatmulTorchRef(const std::vector<double>& a, std::vector<int64_t> as,
                                          const std::vector<double>& b, std::vector<int64_t> bs,
                                          std::vector<int64_t>* out_shape,
                                          std::vector<double>* abs) {
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const size_t rank = std::max(as.size(), bs.size());
  std::vector<int64_t> batch(rank - 2, 1), ab(rank - 2, 1), bb(rank - 2, 1);
  for (size_t i = 0; i + 2 < as.size(); ++i) ab[rank - as.size() + i] = as[i];
  for (size_t i = 0; i + 2 < bs.size(); ++i) bb[rank - bs.size() + i] = bs[i];
  int64_t nb = 1;
  for (size_t i = 0; i < batch.size(); ++i) nb *= (batch[i] = ab[i] == 1 ? bb[i] : ab[i]);
  *out_shape = batch;
  if (!a_vec) out_shape->push_back(m);
  if (!b_vec) out_shape->push_back(n);
  std::vector<double> c(nb * m * n, 0.0);
  abs->assign(c.size(), 0.0);
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t oa = 0, ob = 0;  // batch offsets in matrices, with broadcasting
    for (size_t d = 0; d < batch.size(); ++d) {
      oa = oa * ab[d] + (ab[d] == 1 ? 0 : idx[d]);
      ob = ob * bb[d] + (bb[d] == 1 ? 0 : idx[d]);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double prod = a[(oa * m + i) * k + p] * b[(ob * k + p) * n + j];
          acc += prod;
          mag += std::fabs(prod);
        }
        c[(bi * m + i) * n + j] = acc;
        (*abs)[(bi * m + i) * n + j] = mag;
      }
    }
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return c;
}

// The gradient of softmax along rows: dx = y * (g - sum_row(g * y)).
inline std::vector<double> SoftmaxBackwardRowsRef(const std::vector<double>& g,
                                                  const std::vector<double>& y, int64_t rows,
                                                  int64_t cols) {
  std::vector<double> dx(g.size());
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += g[r * cols + c] * y[r * cols + c];
    for (int64_t c = 0; c < cols; ++c) {
      dx[r * cols + c] = y[r * cols + c] * (g[r * cols + c] - s);
    }
  }
  return dx;
}

// The gradients of layer norm over rows (y = xhat * w + b, xhat = (x - mean) * rstd) for the
// upstream gradient `g`: dx = rstd * (g w - mean_row(g w) - xhat * mean_row(g w xhat)),
// dw = sum_rows(g xhat), db = sum_rows(g). `weight` empty: ones. `mean`/`rstd` per row as the
// forward computed them.
inline void LayerNormBackwardRowsRef(const std::vector<double>& g, const std::vector<double>& x,
                                     const std::vector<double>& mean,
                                     const std::vector<double>& rstd,
                                     const std::vector<double>& weight, int64_t rows, int64_t cols,
                                     std::vector<double>* dx, std::vector<double>* dw,
                                     std::vector<double>* db) {
  dx->assign(x.size(), 0);
  dw->assign(cols, 0);
  db->assign(cols, 0);
  for (int64_t r = 0; r < rows; ++r) {
    double s1 = 0, s2 = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double xh = (x[r * cols + c] - mean[r]) * rstd[r];
      const double gw = g[r * cols + c] * (weight.empty() ? 1.0 : weight[c]);
      s1 += gw;
      s2 += gw * xh;
      (*dw)[c] += g[r * cols + c] * xh;
      (*db)[c] += g[r * cols + c];
    }
    for (int64_t c = 0; c < cols; ++c) {
      const double xh = (x[r * cols + c] - mean[r]) * rstd[r];
      const double gw = g[r * cols + c] * (weight.empty() ? 1.0 : weight[c]);
      (*dx)[r * cols + c] = rstd[r] * (gw - s1 / cols - xh * s2 / cols);
    }
  }
}

}  // namespace aicore::ref
