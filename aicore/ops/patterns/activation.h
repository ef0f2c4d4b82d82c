// The activations the operator patterns apply in UB, each once: identity, ReLU, GELU (erf and
// tanh forms) and SiLU, as hooks with a common shape so the elementwise operators and the matmul
// epilogue (matmul_epilogue.h) compute the same function the same way.
//
// An activation hook provides:
//   static constexpr int kTemps;       // fp32 scratch tiles Apply uses
//   static constexpr bool kIdentity;   // true: Apply is never called (the value passes through)
//   static void Apply(const LocalTensor<float>& dst, const LocalTensor<float>& x,
//                     const LocalTensor<float>* tmp, uint32_t n);
// Apply writes act(x) to dst for n fp32 elements; dst must not alias x or a tmp tile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel_operator.h"

namespace aicore::ops::patterns {

enum class Activation { kNone, kRelu, kGeluErf, kGeluTanh, kSilu };

// Returns "none", "relu", "gelu_erf", "gelu_tanh" or "silu".
inline const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kGeluErf:
      return "gelu_erf";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
  }
  return "unknown";
}

struct IdentityAct {
  static constexpr int kTemps = 0;
  static constexpr bool kIdentity = true;
  static void Apply(const AscendC::LocalTensor<float>&, const AscendC::LocalTensor<float>&,
                    const AscendC::LocalTensor<float>*, uint32_t) {}
};

// max(x, 0).
struct ReluAct {
  static constexpr int kTemps = 0;
  static constexpr bool kIdentity = false;
  static void Apply(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& x,
                    const AscendC::LocalTensor<float>*, uint32_t n) {
    AscendC::Relu(dst, x, n);
  }
};

// x * sigmoid(x) = x / (1 + exp(-x)).
struct SiluAct {
  static constexpr int kTemps = 0;
  static constexpr bool kIdentity = false;
  static void Apply(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& x,
                    const AscendC::LocalTensor<float>*, uint32_t n) {
    AscendC::Muls(dst, x, -1.0f, n);
    AscendC::Exp(dst, dst, n);
    AscendC::Adds(dst, dst, 1.0f, n);
    AscendC::Div(dst, x, dst, n);
  }
};

// 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3). For x -> -inf
// exp overflows to inf and the quotient is -0, the limit.
struct GeluTanhAct {
  static constexpr int kTemps = 1;
  static constexpr bool kIdentity = false;
  static void Apply(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& x,
                    const AscendC::LocalTensor<float>* tmp, uint32_t n) {
    constexpr float kC = 0.7978845608028654f;  // sqrt(2 / pi)
    const AscendC::LocalTensor<float>& t = tmp[0];
    AscendC::Mul(t, x, x, n);
    AscendC::Muls(t, t, -2.0f * kC * 0.044715f, n);
    AscendC::Adds(t, t, -2.0f * kC, n);
    AscendC::Mul(t, t, x, n);  // -2u
    AscendC::Exp(t, t, n);
    AscendC::Adds(t, t, 1.0f, n);
    AscendC::Div(dst, x, t, n);
  }
};

// 0.5 x (1 + erf(x / sqrt(2))) = 0.5 (x + |x| - |x| erfc(a)), a = |x| / sqrt(2): no cancellation
// for negative x (x + |x| is exactly 0 there). erfc(a) = t exp(-a^2 + P(t)), t = 1 / (1 + a/2),
// the Chebyshev fit of Numerical Recipes' erfcc (relative error < 1.2e-7 for a >= 0).
struct GeluErfAct {
  static constexpr int kTemps = 3;
  static constexpr bool kIdentity = false;
  static void Apply(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& x,
                    const AscendC::LocalTensor<float>* tmp, uint32_t n) {
    static constexpr float kP[] = {0.17087277f,  -0.82215223f, 1.48851587f,
                                   -1.13520398f, 0.27886807f,  -0.18628806f,
                                   0.09678418f,  0.37409196f,  1.00002368f};
    const AscendC::LocalTensor<float>& a = tmp[0];
    const AscendC::LocalTensor<float>& t = tmp[1];
    const AscendC::LocalTensor<float>& p = tmp[2];
    AscendC::Abs(a, x, n);
    AscendC::Muls(a, a, 0.7071067811865476f, n);
    AscendC::Muls(t, a, 0.5f, n);
    AscendC::Adds(t, t, 1.0f, n);
    AscendC::Reciprocal(t, t, n);
    AscendC::Muls(p, t, kP[0], n);
    for (size_t i = 1; i < sizeof(kP) / sizeof(kP[0]); ++i) {
      AscendC::Adds(p, p, kP[i], n);
      AscendC::Mul(p, p, t, n);
    }
    AscendC::Adds(p, p, -1.26551223f, n);
    AscendC::Mul(dst, a, a, n);
    AscendC::Sub(p, p, dst, n);
    AscendC::Exp(p, p, n);
    AscendC::Mul(p, p, t, n);                     // erfc(a)
    AscendC::Muls(a, a, 1.4142135623730951f, n);  // |x|
    AscendC::Mul(p, p, a, n);
    AscendC::Add(dst, x, a, n);
    AscendC::Sub(dst, dst, p, n);
    AscendC::Muls(dst, dst, 0.5f, n);
  }
};

}  // namespace aicore::ops::patterns
