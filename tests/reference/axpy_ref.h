// Scalar reference for Axpy: dst = src * scalar + dst, computed in double and rounded to the
// destination type.
#pragma once

#include <vector>

namespace aicore::ref {

template <typename T, typename U>
T AxpyOne(T dst, U src, float scalar) {
  return static_cast<T>(static_cast<float>(static_cast<double>(static_cast<float>(src)) * scalar +
                                           static_cast<float>(dst)));
}

}  // namespace aicore::ref
