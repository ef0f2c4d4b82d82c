// bias_gelu_residual: a fused operator a user builds from the library's ElementwisePipeline by
// writing only its compute hook: y = gelu_tanh(x + bias) + residual, with bias broadcast over the
// rows. Tiling from the UB budget, double buffering, the split over cores with tails, dtype
// conversion and the bias broadcast come from the pattern (aicore/ops/elementwise/elementwise.h).
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aicore/ops/elementwise/elementwise.h"

using AscendC::LocalTensor;

// src = {x, bias, residual}; tmp[0] scratch; all fp32 in UB.
struct BiasGeluResidual {
  static constexpr int kInputs = 3;
  static constexpr int kTemps = 1;
  static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
                      const LocalTensor<float>* tmp, uint32_t n, const float*) {
    const LocalTensor<float>& h = tmp[0];
    AscendC::Add(dst, src[0], src[1], n);                       // h = x + bias, kept in dst
    AscendC::Mul(h, dst, dst, n);                               // gelu(h) = h / (1 + exp(-2u)),
    AscendC::Muls(h, h, -2.0f * 0.7978845608f * 0.044715f, n);  // u = c (h + 0.044715 h^3)
    AscendC::Adds(h, h, -2.0f * 0.7978845608f, n);
    AscendC::Mul(h, h, dst, n);
    AscendC::Exp(h, h, n);
    AscendC::Adds(h, h, 1.0f, n);
    AscendC::Div(dst, dst, h, n);
    AscendC::Add(dst, dst, src[2], n);  // + residual
  }
};

int main() {
  const int64_t rows = 333, cols = 771;
  void *x, *bias, *res, *y;
  aclrtMalloc(&x, rows * cols * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&bias, cols * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&res, rows * cols * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, rows * cols * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  auto *fx = static_cast<float*>(x), *fb = static_cast<float*>(bias);
  auto *fr = static_cast<float*>(res), *fy = static_cast<float*>(y);
  for (int64_t i = 0; i < rows * cols; ++i) {
    fx[i] = std::sin(0.37f * i) * 3;
    fr[i] = std::cos(0.11f * i);
  }
  for (int64_t c = 0; c < cols; ++c) fb[c] = 0.001f * c - 0.4f;
  using aicore::DType;
  using aicore::ops::DenseRef;
  const aicore::Status s = aicore::ops::RunElementwise<BiasGeluResidual>(
      "bias_gelu_residual",
      {DenseRef(x, DType::kF32, {rows, cols}), DenseRef(bias, DType::kF32, {cols}),
       DenseRef(res, DType::kF32, {rows, cols})},
      DenseRef(y, DType::kF32, {rows, cols}));
  if (!s.ok() || aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
    std::printf("bias_gelu_residual failed: %s %s\n", s.ToString().c_str(), aclGetRecentErrMsg());
    return 1;
  }
  int bad = 0;
  for (int64_t i = 0; i < rows * cols; ++i) {
    const double h = double{fx[i]} + fb[i % cols];
    const double g = 0.5 * h * (1 + std::tanh(std::sqrt(2 / M_PI) * (h + 0.044715 * h * h * h)));
    if (std::fabs(fy[i] - (g + fr[i])) > 1e-5 * (1 + std::fabs(g))) ++bad;
  }
  std::printf("bias_gelu_residual: %lld x %lld check=%s\n", static_cast<long long>(rows),
              static_cast<long long>(cols), bad == 0 ? "pass" : "FAIL");
  for (void* p : {x, bias, res, y}) aclrtFree(p);
  return bad == 0 ? 0 : 1;
}
