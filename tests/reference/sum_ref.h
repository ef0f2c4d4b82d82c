// Double-precision references of Sum/Mean over the first n values of each row of `inner`.
#pragma once

#include <cstdint>
#include <vector>

namespace aicore::ref {

inline std::vector<double> RowSums(const std::vector<double>& x, uint32_t outter, uint32_t inner,
                                   uint32_t n) {
  std::vector<double> s(outter, 0.0);
  for (uint32_t i = 0; i < outter; ++i)
    for (uint32_t j = 0; j < n; ++j) s[i] += x[i * inner + j];
  return s;
}

}  // namespace aicore::ref
