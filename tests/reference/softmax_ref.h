// Double-precision references for the SoftMax family over the rows of an [m, k] array whose
// first `valid` columns take part.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace aicore::ref {

struct RowSoftMax {
  std::vector<double> max, sum;  // one per row; sum = sum of exp(x - max)
  std::vector<double> exp;       // exp(x - max), [m, k] (valid columns)
};

inline RowSoftMax SoftMaxRows(const std::vector<double>& x, uint32_t m, uint32_t k,
                              uint32_t valid) {
  RowSoftMax r{std::vector<double>(m), std::vector<double>(m), std::vector<double>(x.size())};
  for (uint32_t i = 0; i < m; ++i) {
    double mx = -INFINITY;
    for (uint32_t j = 0; j < valid; ++j) mx = std::max(mx, x[i * k + j]);
    double s = 0;
    for (uint32_t j = 0; j < valid; ++j) s += (r.exp[i * k + j] = std::exp(x[i * k + j] - mx));
    r.max[i] = mx;
    r.sum[i] = s;
  }
  return r;
}

}  // namespace aicore::ref
