// Double-precision reference of the matmul with a fused epilogue (aicore/ops/matmul/
// matmul_epilogue.h): out = act(alpha * a @ b + beta * bias) + residual over dense row-major
// data, with a per-element bound on the error of an fp32 evaluation. Obviously correct, not fast.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/reference/matmul_ref.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ref {

enum class EpilogueAct { kNone, kRelu, kGeluErf, kGeluTanh, kSilu };

inline double EpilogueActRef(EpilogueAct act, double x) {
  switch (act) {
    case EpilogueAct::kRelu:
      return x > 0 ? x : 0;
    case EpilogueAct::kGeluErf:
      return GeluErfRef(x);
    case EpilogueAct::kGeluTanh:
      return GeluTanhRef(x);
    case EpilogueAct::kSilu:
      return SiluRef(x);
    default:
      return x;
  }
}

// Returns dense row-major `v` of `shape` broadcast (NumPy rules) to `to`.
inline std::vector<double> BroadcastRef(const std::vector<double>& v, std::vector<int64_t> shape,
                                        const std::vector<int64_t>& to) {
  shape.insert(shape.begin(), to.size() - shape.size(), 1);
  std::vector<int64_t> stride(shape.size(), 0);
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    stride[i] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  int64_t n = 1;
  for (int64_t d : to) n *= d;
  std::vector<double> out(n);
  std::vector<int64_t> idx(to.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < to.size(); ++d) off += idx[d] * stride[d];
    out[i] = v[off];
    for (size_t d = to.size(); d-- > 0;) {
      if (++idx[d] < to[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

struct MatmulEpilogueRefResult {
  std::vector<int64_t> shape;  // (batch.., M, N)
  std::vector<double> out;
  // Per element: how far an fp32 evaluation may be off (before out's own rounding): the
  // accumulation bound of MatmulTolerance scaled by |alpha| and carried through the activation
  // (|act'| <= 1.13 for every act here), the roundings of the scaling and the adds, and the
  // activation's own error (a few ulps of fp32 relative to |x| + |act(x)|).
  std::vector<double> tol;
};

// a (batch.., M, K) and b (batch.., K, N) dense with broadcasting batch dims (both rank >= 2);
// bias and residual dense over the result's shape (already broadcast), or empty when absent.
inline MatmulEpilogueRefResult MatmulEpilogueRef(
    const std::vector<double>& a, const std::vector<int64_t>& as, const std::vector<double>& b,
    const std::vector<int64_t>& bs, const std::vector<double>& bias,
    const std::vector<double>& residual, double alpha, double beta, EpilogueAct act) {
  MatmulEpilogueRefResult r;
  std::vector<double> abs;
  const std::vector<double> c = MatmulTorchRef(a, as, b, bs, &r.shape, &abs);
  const size_t k = static_cast<size_t>(as.back());
  const double u = std::ldexp(1.0, -24);
  r.out.resize(c.size());
  r.tol.resize(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    const double scaled = alpha * c[i];
    const double added = bias.empty() ? 0 : beta * bias[i];
    const double pre = scaled + added;
    const double y = EpilogueActRef(act, pre);
    const double res = residual.empty() ? 0 : residual[i];
    r.out[i] = y + res;
    const double pre_err = std::fabs(alpha) * MatmulTolerance(k, abs[i]) +
                           4 * u * (std::fabs(scaled) + std::fabs(added));
    r.tol[i] = 1.13 * pre_err + 16 * u * (std::fabs(pre) + std::fabs(y)) +
               2 * u * (std::fabs(r.out[i]) + std::fabs(res)) + 1e-30;
  }
  return r;
}

}  // namespace aicore::ref
