// AscendC's type utilities for kernels: Conditional (std::conditional as a struct with `type`).
#pragma once

#include <type_traits>

namespace AscendC {

// Conditional<B, T, F>::type is T when B holds, else F.
template <bool B, typename T, typename F>
struct Conditional {
  using type = std::conditional_t<B, T, F>;
};

}  // namespace AscendC
