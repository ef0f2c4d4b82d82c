// aclnn_softmax_layernorm: a host program written for CANN's single-operator API, built
// unchanged against aicore. It runs aclnnSoftmax on a (rows, cols) fp32 tensor and then
// aclnnLayerNorm over its last dim (with mean and rstd outputs) on one stream, in the two-phase
// style (aclnnXxxGetWorkspaceSize, then aclnnXxx), and checks both against double precision.
// Usage: aclnn_softmax_layernorm [rows cols] (default 257 1000); prints the host time of each op
// and the host cost of one 1-element softmax call.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_softmax.h"

#define CHECK_ACL(expr)                                                                         \
  do {                                                                                          \
    const auto _ret = (expr);                                                                   \
    if (_ret != 0) {                                                                            \
      std::printf("%s failed: %d (%s)\n", #expr, static_cast<int>(_ret), aclGetRecentErrMsg()); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// Creates an ND tensor over device memory with row-major strides.
static aclTensor* CreateTensor(const std::vector<int64_t>& shape, void* device) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                         shape.data(), shape.size(), device);
}

int main(int argc, char** argv) {
  const int64_t rows = argc > 2 ? std::atoll(argv[1]) : 257;
  const int64_t cols = argc > 2 ? std::atoll(argv[2]) : 1000;
  const size_t bytes = rows * cols * sizeof(float);
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  std::vector<float> host(rows * cols);
  for (size_t i = 0; i < host.size(); ++i) host[i] = std::sin(0.01f * i) * 4.0f;
  void *x = nullptr, *p = nullptr, *y = nullptr, *mean = nullptr, *rstd = nullptr;
  CHECK_ACL(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&mean, rows * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&rstd, rows * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(x, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensor* tx = CreateTensor({rows, cols}, x);
  aclTensor* tp = CreateTensor({rows, cols}, p);
  aclTensor* ty = CreateTensor({rows, cols}, y);
  aclTensor* tmean = CreateTensor({rows, 1}, mean);
  aclTensor* trstd = CreateTensor({rows, 1}, rstd);
  const int64_t normalized[] = {cols};
  aclIntArray* normalized_shape = aclCreateIntArray(normalized, 1);

  // Softmax over the last dim.
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(aclnnSoftmaxGetWorkspaceSize(tx, -1, tp, &workspace_size, &executor));
  void* workspace = nullptr;
  if (workspace_size > 0) {
    CHECK_ACL(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  CHECK_ACL(aclnnSoftmax(workspace, workspace_size, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  const auto t1 = std::chrono::steady_clock::now();
  // LayerNorm of the softmax output (no weight or bias), queued behind it on the same stream.
  uint64_t ln_workspace_size = 0;
  CHECK_ACL(aclnnLayerNormGetWorkspaceSize(tp, normalized_shape, nullptr, nullptr, 1e-5, ty, tmean,
                                           trstd, &ln_workspace_size, &executor));
  void* ln_workspace = nullptr;
  if (ln_workspace_size > 0) {
    CHECK_ACL(aclrtMalloc(&ln_workspace, ln_workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  CHECK_ACL(aclnnLayerNorm(ln_workspace, ln_workspace_size, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  const auto t2 = std::chrono::steady_clock::now();

  std::vector<float> out(rows * cols), out_mean(rows);
  CHECK_ACL(aclrtMemcpy(out.data(), bytes, y, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK_ACL(aclrtMemcpy(out_mean.data(), rows * 4, mean, rows * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  int bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = host.data() + r * cols;
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    std::vector<double> sm(cols);
    double mu = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mu += (sm[c] = std::exp(xr[c] - m) / s);
    mu /= cols;
    for (int64_t c = 0; c < cols; ++c) var += (sm[c] - mu) * (sm[c] - mu);
    const double rs = 1 / std::sqrt(var / cols + 1e-5);
    if (std::fabs(out_mean[r] - mu) > 1e-6) ++bad;
    for (int64_t c = 0; c < cols; ++c) {
      if (std::fabs(out[r * cols + c] - (sm[c] - mu) * rs) > 2e-3) ++bad;
    }
  }
  const double ms_softmax = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double ms_ln = std::chrono::duration<double, std::milli>(t2 - t1).count();
  std::printf(
      "aclnn_softmax_layernorm: %lld x %lld, workspace %llu + %llu bytes, check=%s, "
      "host time softmax %.3f ms (%.2f GB/s), layer_norm %.3f ms (%.2f GB/s)\n",
      static_cast<long long>(rows), static_cast<long long>(cols),
      static_cast<unsigned long long>(workspace_size),
      static_cast<unsigned long long>(ln_workspace_size), bad == 0 ? "pass" : "FAIL", ms_softmax,
      2.0 * bytes / (ms_softmax * 1e6), ms_ln, 2.0 * bytes / (ms_ln * 1e6));

  // What a framework pays per op: phase 1 + phase 2 + synchronize for a 1-element softmax.
  const int64_t one[] = {1};
  aclTensor* t1x = aclCreateTensor(one, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, one, 1, x);
  aclTensor* t1y = aclCreateTensor(one, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, one, 1, p);
  const int kCalls = 200;
  const auto o0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) {
    uint64_t ws1 = 0;
    CHECK_ACL(aclnnSoftmaxGetWorkspaceSize(t1x, 0, t1y, &ws1, &executor));
    CHECK_ACL(aclnnSoftmax(nullptr, 0, executor, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
  }
  const auto o1 = std::chrono::steady_clock::now();
  std::printf("aclnn overhead: %.1f us per 1-element softmax (phase 1 + phase 2 + sync)\n",
              std::chrono::duration<double, std::micro>(o1 - o0).count() / kCalls);
  aclDestroyTensor(t1x);
  aclDestroyTensor(t1y);
  aclDestroyTensor(tx);
  aclDestroyTensor(tp);
  aclDestroyTensor(ty);
  aclDestroyTensor(tmean);
  aclDestroyTensor(trstd);
  aclDestroyIntArray(normalized_shape);
  for (void* d : {x, p, y, mean, rstd, workspace, ln_workspace}) {
    if (d != nullptr) aclrtFree(d);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return bad == 0 ? 0 : 1;
}
