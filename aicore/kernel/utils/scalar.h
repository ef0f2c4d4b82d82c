// Scalar integer helpers kernels and tiling code use: CeilDivision (documented), and the DivCeil,
// Ceil and AlignUp names the public samples call.
#pragma once

#include <cstdint>
#include <type_traits>

namespace AscendC {

// Returns num1 / num2 rounded up, for positive num1 and num2; 0 when num2 is 0 (as documented).
constexpr int32_t CeilDivision(int32_t num1, int32_t num2) {
  return num2 == 0 ? 0 : (num1 + num2 - 1) / num2;
}

// Returns a / b rounded up, in the common type of a and b, for a >= 0 and b > 0; 0 when b is 0.
template <typename T, typename U>
  requires std::is_integral_v<T> && std::is_integral_v<U>
constexpr std::common_type_t<T, U> DivCeil(T a, U b) {
  using R = std::common_type_t<T, U>;
  return b == 0 ? R{0} : static_cast<R>((static_cast<R>(a) + static_cast<R>(b) - 1) /
                                        static_cast<R>(b));
}

// Returns a / b rounded up (the matmul samples' spelling of DivCeil). Overloads with the vector
// Ceil of the math library by arity.
template <typename T, typename U>
  requires std::is_integral_v<T> && std::is_integral_v<U>
constexpr std::common_type_t<T, U> Ceil(T a, U b) {
  return DivCeil(a, b);
}

// Returns a rounded up to a multiple of b, for a >= 0 and b > 0; 0 when b is 0.
template <typename T, typename U>
  requires std::is_integral_v<T> && std::is_integral_v<U>
constexpr std::common_type_t<T, U> AlignUp(T a, U b) {
  return DivCeil(a, b) * static_cast<std::common_type_t<T, U>>(b);
}

}  // namespace AscendC
