// Helpers for the high-level API tests: conversions between host vectors and doubles.
#pragma once

#include <cstdint>
#include <vector>

#include "tests/kernel/vector/ub_test_util.h"

namespace aicore::testing {

template <typename T>
std::vector<double> ToDouble(const std::vector<T>& v) {
  std::vector<double> d(v.size());
  for (size_t i = 0; i < v.size(); ++i) d[i] = static_cast<double>(static_cast<float>(v[i]));
  return d;
}

template <typename T>
std::vector<T> FromDouble(const std::vector<double>& v) {
  std::vector<T> t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = static_cast<T>(static_cast<float>(v[i]));
  return t;
}

// Returns n values uniform in [lo, hi], rounded to T.
template <typename T>
std::vector<T> Uniform(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(static_cast<float>(d(rng)));
  return v;
}

// Relative tolerance of one rounding to T after float computation.
template <typename T>
constexpr double Tol() {
  return sizeof(T) == 2 ? 4e-3 : 2e-5;
}

}  // namespace aicore::testing
