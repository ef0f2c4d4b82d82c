// Double-precision references for attention: the forward out = softmax(mask(scale * Q K^T)) V
// with the softmax row max and sum, and its analytic gradients, over BNSD arrays with GQA (K/V
// head n / (Nq / Nkv) serves query head n). A fully masked row has out 0, max -inf, sum 0 and
// zero gradients.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace aicore::ref {

struct AttentionProblem {
  int64_t b = 1, nq = 1, nkv = 1, sq = 1, skv = 1, d = 1, dv = 1;
  double scale = 1;
  // The sparse mode and its window (used when has_mask): 0 explicit mask and pre/next tokens
  // counted from the top-left diagonal, 1 mask only, 2 j <= i, 3 j <= i + skv - sq, 4 the band
  // pre/next around the bottom-right diagonal.
  bool has_mask = false;
  int sparse_mode = 0;
  int64_t pre = 2147483647, next = 2147483647;
  std::vector<uint8_t> mask;  // modes 0/1: (mb, mn, sq, skv), 1 = masked out
  int64_t mb = 1, mn = 1;

  bool Visible(int64_t bi, int64_t n, int64_t i, int64_t j) const {
    if (!has_mask) return true;
    switch (sparse_mode) {
      case 2:
        return j <= i;
      case 3:
        return j - i <= skv - sq;
      case 4: {
        const int64_t diag = i + skv - sq;  // the bottom-right diagonal through row i
        return j <= diag + next && j >= diag - pre;
      }
      default:
        break;
    }
    const int64_t mi = ((mb == 1 ? 0 : bi) * mn + (mn == 1 ? 0 : n)) * sq * skv + i * skv + j;
    if (mask[mi] != 0) return false;
    if (sparse_mode == 1) return true;
    return j - i <= next && i - j <= pre;
  }
};

struct AttentionForward {
  std::vector<double> out;       // (b, nq, sq, dv)
  std::vector<double> max, sum;  // (b, nq, sq): of scale * q.k over the visible columns
};

inline AttentionForward AttentionForwardRef(const AttentionProblem& p, const std::vector<double>& q,
                                            const std::vector<double>& k,
                                            const std::vector<double>& v) {
  AttentionForward f;
  f.out.assign(p.b * p.nq * p.sq * p.dv, 0.0);
  f.max.assign(p.b * p.nq * p.sq, -std::numeric_limits<double>::infinity());
  f.sum.assign(p.b * p.nq * p.sq, 0.0);
  const int64_t g = p.nq / p.nkv;
  std::vector<double> s(p.skv);
  for (int64_t bi = 0; bi < p.b; ++bi) {
    for (int64_t n = 0; n < p.nq; ++n) {
      const int64_t nk = n / g;
      for (int64_t i = 0; i < p.sq; ++i) {
        const int64_t row = (bi * p.nq + n) * p.sq + i;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < p.skv; ++j) {
          if (!p.Visible(bi, n, i, j)) continue;
          double acc = 0;
          for (int64_t x = 0; x < p.d; ++x) {
            acc += q[row * p.d + x] * k[((bi * p.nkv + nk) * p.skv + j) * p.d + x];
          }
          s[j] = acc * p.scale;
          mx = std::max(mx, s[j]);
        }
        if (std::isinf(mx)) continue;  // fully masked
        double sum = 0;
        for (int64_t j = 0; j < p.skv; ++j) {
          if (p.Visible(bi, n, i, j)) sum += std::exp(s[j] - mx);
        }
        for (int64_t j = 0; j < p.skv; ++j) {
          if (!p.Visible(bi, n, i, j)) continue;
          const double pj = std::exp(s[j] - mx) / sum;
          for (int64_t x = 0; x < p.dv; ++x) {
            f.out[row * p.dv + x] += pj * v[((bi * p.nkv + nk) * p.skv + j) * p.dv + x];
          }
        }
        f.max[row] = mx;
        f.sum[row] = sum;
      }
    }
  }
  return f;
}

struct AttentionGrads {
  std::vector<double> dq, dk, dv;  // shaped as q, k, v
};

// The gradients of sum(out * dout) with respect to q, k and v. With `magnitude`, also each
// gradient element's sum of absolute terms, the scale a rounding of the terms' factors perturbs
// it by: dv sum_i P |dout|, dq sum_j |dS'| |k|, dk sum_i |dS'| |q|, where dS' = P (|dP - D| +
// sum |dout| |out|) scale also covers an error in out (D = rowsum(dout * out)).
inline AttentionGrads AttentionBackwardRef(const AttentionProblem& p, const std::vector<double>& q,
                                           const std::vector<double>& k,
                                           const std::vector<double>& v,
                                           const std::vector<double>& dout,
                                           AttentionGrads* magnitude = nullptr) {
  AttentionGrads gr, mag;
  gr.dq.assign(q.size(), 0.0);
  gr.dk.assign(k.size(), 0.0);
  gr.dv.assign(v.size(), 0.0);
  mag = gr;
  const AttentionForward f = AttentionForwardRef(p, q, k, v);
  const int64_t g = p.nq / p.nkv;
  std::vector<double> prob(p.skv), dp(p.skv);
  for (int64_t bi = 0; bi < p.b; ++bi) {
    for (int64_t n = 0; n < p.nq; ++n) {
      const int64_t nk = n / g;
      for (int64_t i = 0; i < p.sq; ++i) {
        const int64_t row = (bi * p.nq + n) * p.sq + i;
        if (std::isinf(f.max[row])) continue;
        double dsum = 0, dsum_abs = 0;  // rowsum(dout * out), rowsum(|dout| |out|)
        for (int64_t x = 0; x < p.dv; ++x) {
          dsum += dout[row * p.dv + x] * f.out[row * p.dv + x];
          dsum_abs += std::fabs(dout[row * p.dv + x] * f.out[row * p.dv + x]);
        }
        for (int64_t j = 0; j < p.skv; ++j) {
          prob[j] = 0;
          if (!p.Visible(bi, n, i, j)) continue;
          const int64_t kr = (bi * p.nkv + nk) * p.skv + j;
          double acc = 0, dacc = 0;
          for (int64_t x = 0; x < p.d; ++x) acc += q[row * p.d + x] * k[kr * p.d + x];
          for (int64_t x = 0; x < p.dv; ++x) dacc += dout[row * p.dv + x] * v[kr * p.dv + x];
          prob[j] = std::exp(acc * p.scale - f.max[row]) / f.sum[row];
          dp[j] = dacc;
        }
        for (int64_t j = 0; j < p.skv; ++j) {
          if (prob[j] == 0) continue;
          const int64_t kr = (bi * p.nkv + nk) * p.skv + j;
          const double ds = prob[j] * (dp[j] - dsum) * p.scale;
          const double ds_abs = prob[j] * (std::fabs(dp[j] - dsum) + dsum_abs) * std::fabs(p.scale);
          for (int64_t x = 0; x < p.dv; ++x) {
            gr.dv[kr * p.dv + x] += prob[j] * dout[row * p.dv + x];
            mag.dv[kr * p.dv + x] += prob[j] * std::fabs(dout[row * p.dv + x]);
          }
          for (int64_t x = 0; x < p.d; ++x) {
            gr.dq[row * p.d + x] += ds * k[kr * p.d + x];
            gr.dk[kr * p.d + x] += ds * q[row * p.d + x];
            mag.dq[row * p.d + x] += ds_abs * std::fabs(k[kr * p.d + x]);
            mag.dk[kr * p.d + x] += ds_abs * std::fabs(q[row * p.d + x]);
          }
        }
      }
    }
  }
  if (magnitude != nullptr) *magnitude = mag;
  return gr;
}

}  // namespace aicore::ref
