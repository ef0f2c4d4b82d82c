// matmul_epilogue: a transformer MLP step, y = gelu(x @ w^T + bias) + x_res, as one fused mix
// kernel through aicore's own aclnn-style entry point (aclnnop/aclnn_matmul_epilogue.h, an
// aicore extension): AscendC's Matmul on the AICs, bias + GELU + residual on the AIVs, each
// block of the product handed over through a GM workspace with cross-core flags. w is stored
// (n, k) and passed as the transposed view (k, n) with strides (1, k), as torch_npu passes
// x @ w.t(): no copy. The same result through the C++ API (aicore::ops::MatmulEpilogue) with the
// tanh GELU is checked too; both against double precision.
// Usage: matmul_epilogue [m k n] (default 96 200 136).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_matmul_epilogue.h"
#include "aicore/ops/ops.h"

#define CHECK_ACL(expr)                                                                         \
  do {                                                                                          \
    const auto _ret = (expr);                                                                   \
    if (_ret != 0) {                                                                            \
      std::printf("%s failed: %d (%s)\n", #expr, static_cast<int>(_ret), aclGetRecentErrMsg()); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// An ND fp32 tensor over `device` with the given strides (elements); storage is the 1-D extent.
static aclTensor* Tensor(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                         int64_t storage, void* device) {
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                         &storage, 1, device);
}

// Counts elements of `got` (m, n) off the double reference gelu(x w^T + bias) + res.
static int CountBad(const std::vector<float>& got, const std::vector<float>& x,
                    const std::vector<float>& w, const std::vector<float>& bias,
                    const std::vector<float>& res, int64_t m, int64_t k, int64_t n,
                    bool tanh_form) {
  int bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias[j], mag = std::fabs(bias[j]);
      for (int64_t p = 0; p < k; ++p) {
        acc += double{x[i * k + p]} * w[j * k + p];
        mag += std::fabs(double{x[i * k + p]} * w[j * k + p]);
      }
      const double g =
          tanh_form ? 0.5 * acc *
                          (1 + std::tanh(std::sqrt(2 / M_PI) * (acc + 0.044715 * acc * acc * acc)))
                    : 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0)));
      const double want = g + res[i * n + j];
      const double tol = (k + 8) * 1.2e-7 * (mag + std::fabs(want)) + 1e-6;
      if (std::fabs(got[i * n + j] - want) > tol && bad++ < 3) {
        std::printf("  y[%lld][%lld] = %.7g, want %.7g\n", (long long)i, (long long)j,
                    got[i * n + j], want);
      }
    }
  }
  return bad;
}

int main(int argc, char** argv) {
  const int64_t m = argc > 3 ? std::atoll(argv[1]) : 96, k = argc > 3 ? std::atoll(argv[2]) : 200;
  const int64_t n = argc > 3 ? std::atoll(argv[3]) : 136;
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  std::vector<float> hx(m * k), hw(n * k), hb(n), hr(m * n), hy(m * n);
  for (size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<float>(std::sin(0.37 * i));
  for (size_t i = 0; i < hw.size(); ++i) hw[i] = static_cast<float>(std::cos(0.11 * i) * 0.2);
  for (int64_t j = 0; j < n; ++j) hb[j] = 0.01f * static_cast<float>(j % 17) - 0.08f;
  for (size_t i = 0; i < hr.size(); ++i) hr[i] = static_cast<float>(std::sin(0.05 * i));
  void *dx, *dw, *db, *dr, *dy;
  for (auto [p, bytes] : {std::pair<void**, size_t>{&dx, hx.size() * 4},
                          {&dw, hw.size() * 4},
                          {&db, hb.size() * 4},
                          {&dr, hr.size() * 4},
                          {&dy, hy.size() * 4}}) {
    CHECK_ACL(aclrtMalloc(p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  CHECK_ACL(aclrtMemcpy(dx, hx.size() * 4, hx.data(), hx.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(dw, hw.size() * 4, hw.data(), hw.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(db, hb.size() * 4, hb.data(), hb.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(dr, hr.size() * 4, hr.data(), hr.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensor* tx = Tensor({m, k}, {k, 1}, m * k, dx);
  aclTensor* twt = Tensor({k, n}, {1, k}, n * k, dw);  // the transposed view of w (n, k)
  aclTensor* tb = Tensor({n}, {1}, n, db);
  aclTensor* tr = Tensor({m, n}, {n, 1}, m * n, dr);
  aclTensor* ty = Tensor({m, n}, {n, 1}, m * n, dy);

  // Phase 1: check, plan, workspace size; phase 2: the fused kernel on the stream.
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnAicoreMatmulEpilogueGetWorkspaceSize(
      tx, twt, tb, tr, 1.0, 1.0, ACLNN_AICORE_ACTIVATION_GELU_ERF, ty, &ws_size, &executor));
  void* ws = nullptr;
  if (ws_size > 0) CHECK_ACL(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclnnAicoreMatmulEpilogue(ws, ws_size, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  CHECK_ACL(aclrtMemcpy(hy.data(), hy.size() * 4, dy, hy.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  const int bad_aclnn = CountBad(hy, hx, hw, hb, hr, m, k, n, false);
  std::printf(
      "aclnnAicoreMatmulEpilogue gelu_erf(x @ w^T + bias) + res, %lldx%lldx%lld: "
      "workspace %llu bytes, check=%s\n",
      (long long)m, (long long)k, (long long)n, (unsigned long long)ws_size,
      bad_aclnn == 0 ? "pass" : "FAIL");
  if (ws != nullptr) aclrtFree(ws);

  // The C++ API on the same device buffers: TensorRef views, the tanh form of GELU.
  using aicore::DType;
  using aicore::ops::DenseRef;
  aicore::ops::TensorRef w_t = DenseRef(dw, DType::kF32, {k, n});
  w_t.strides = {1, k};
  const aicore::ops::TensorRef bias = DenseRef(db, DType::kF32, {n});
  const aicore::ops::TensorRef res = DenseRef(dr, DType::kF32, {m, n});
  const aicore::Status s = aicore::ops::MatmulEpilogue(
      DenseRef(dx, DType::kF32, {m, k}), w_t, &bias, &res, 1.0, 1.0,
      aicore::ops::Activation::kGeluTanh, DenseRef(dy, DType::kF32, {m, n}), stream);
  if (!s.ok()) {
    std::printf("aicore::ops::MatmulEpilogue failed: %s\n", s.ToString().c_str());
    return 1;
  }
  CHECK_ACL(aclrtSynchronizeStream(stream));
  CHECK_ACL(aclrtMemcpy(hy.data(), hy.size() * 4, dy, hy.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  const int bad_cpp = CountBad(hy, hx, hw, hb, hr, m, k, n, true);
  std::printf("aicore::ops::MatmulEpilogue gelu_tanh: check=%s\n", bad_cpp == 0 ? "pass" : "FAIL");

  for (aclTensor* t : {tx, twt, tb, tr, ty}) aclDestroyTensor(t);
  for (void* p : {dx, dw, db, dr, dy}) aclrtFree(p);
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  return bad_aclnn == 0 && bad_cpp == 0 ? 0 : 1;
}
