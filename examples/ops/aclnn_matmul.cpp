// aclnn_matmul: a host program written for CANN's single-operator API, built unchanged against
// aicore. It multiplies a batch of fp16 matrices by one weight matrix passed as a transposed view
// (the way torch_npu hands over x @ w.t(): no copy) with aclnnMatmul, then runs aclnnAddmm
// (out = beta * bias + alpha * a @ b) in fp32, and checks both against double precision.
// Usage: aclnn_matmul [batch m k n] (default 3 77 130 45).
#include "aclnnop/aclnn_matmul.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_addmm.h"

#define CHECK_ACL(expr)                                                                         \
  do {                                                                                          \
    const auto _ret = (expr);                                                                   \
    if (_ret != 0) {                                                                            \
      std::printf("%s failed: %d (%s)\n", #expr, static_cast<int>(_ret), aclGetRecentErrMsg()); \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// An ND tensor over `device` with the given strides (elements); storage is the 1-D extent, as
// torch_npu passes it.
static aclTensor* Tensor(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                         aclDataType dt, int64_t storage, void* device) {
  return aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, ACL_FORMAT_ND, &storage,
                         1, device);
}

// Runs phase 1 and phase 2 of an aclnn op whose phase 1 has been bound into `prepare`.
template <typename Prepare, typename Run>
static int Launch(Prepare prepare, Run run, aclrtStream stream) {
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_ACL(prepare(&ws_size, &executor));
  void* ws = nullptr;
  if (ws_size > 0) CHECK_ACL(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(run(ws, ws_size, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  if (ws != nullptr) aclrtFree(ws);
  std::printf("  workspace %llu bytes\n", static_cast<unsigned long long>(ws_size));
  return 0;
}

int main(int argc, char** argv) {
  const int64_t b = argc > 4 ? std::atoll(argv[1]) : 3, m = argc > 4 ? std::atoll(argv[2]) : 77;
  const int64_t k = argc > 4 ? std::atoll(argv[3]) : 130, n = argc > 4 ? std::atoll(argv[4]) : 45;
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  // x (b, m, k) fp16; w stored (n, k), used as w^T (k, n) with strides (1, k); y (b, m, n) fp16.
  std::vector<aclFloat16> hx(b * m * k), hw(n * k), hy(b * m * n);
  std::vector<double> x(hx.size()), w(hw.size());
  for (size_t i = 0; i < hx.size(); ++i) {
    hx[i] = aclFloatToFloat16(static_cast<float>(std::sin(0.1 * i)));
    x[i] = aclFloat16ToFloat(hx[i]);
  }
  for (size_t i = 0; i < hw.size(); ++i) {
    hw[i] = aclFloatToFloat16(static_cast<float>(std::cos(0.07 * i)));
    w[i] = aclFloat16ToFloat(hw[i]);
  }
  void *dx, *dw, *dy;
  CHECK_ACL(aclrtMalloc(&dx, hx.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dw, hw.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dy, hy.size() * 2, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(dx, hx.size() * 2, hx.data(), hx.size() * 2, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(dw, hw.size() * 2, hw.data(), hw.size() * 2, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensor* tx = Tensor({b, m, k}, {m * k, k, 1}, ACL_FLOAT16, b * m * k, dx);
  aclTensor* twt = Tensor({k, n}, {1, k}, ACL_FLOAT16, n * k, dw);  // the transposed view
  aclTensor* ty = Tensor({b, m, n}, {m * n, n, 1}, ACL_FLOAT16, b * m * n, dy);
  std::printf("aclnnMatmul (%lld, %lld, %lld) @ w^T (%lld, %lld):\n", (long long)b, (long long)m,
              (long long)k, (long long)k, (long long)n);
  if (Launch([&](uint64_t* ws,
                 aclOpExecutor** e) { return aclnnMatmulGetWorkspaceSize(tx, twt, ty, 1, ws, e); },
             aclnnMatmul, stream) != 0) {
    return 1;
  }
  CHECK_ACL(aclrtMemcpy(hy.data(), hy.size() * 2, dy, hy.size() * 2, ACL_MEMCPY_DEVICE_TO_HOST));
  int bad = 0;
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double want = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          want += x[(bi * m + i) * k + p] * w[j * k + p];
          mag += std::fabs(x[(bi * m + i) * k + p] * w[j * k + p]);
        }
        const double got = aclFloat16ToFloat(hy[(bi * m + i) * n + j]);
        if (std::fabs(got - want) > 1e-3 * std::fabs(want) + 1e-5 * mag && bad++ < 3) {
          std::printf("  y(%lld, %lld, %lld) = %g, want %g\n", (long long)bi, (long long)i,
                      (long long)j, got, want);
        }
      }
    }
  }

  // Addmm in fp32: out (m, n) = 0.5 * bias (n) + 2 * a (m, k) @ c (k, n).
  std::vector<float> ha(m * k), hc(k * n), hbias(n), hout(m * n);
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = static_cast<float>(std::sin(0.3 * i));
  for (size_t i = 0; i < hc.size(); ++i) hc[i] = static_cast<float>(std::cos(0.2 * i));
  for (size_t j = 0; j < hbias.size(); ++j) hbias[j] = static_cast<float>(j) - 3.0f;
  void *da, *dc, *dbias, *dout;
  CHECK_ACL(aclrtMalloc(&da, ha.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dc, hc.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dbias, hbias.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&dout, hout.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(da, ha.size() * 4, ha.data(), ha.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(dc, hc.size() * 4, hc.data(), hc.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(dbias, hbias.size() * 4, hbias.data(), hbias.size() * 4,
                        ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensor* ta = Tensor({m, k}, {k, 1}, ACL_FLOAT, m * k, da);
  aclTensor* tc = Tensor({k, n}, {n, 1}, ACL_FLOAT, k * n, dc);
  aclTensor* tbias = Tensor({n}, {1}, ACL_FLOAT, n, dbias);
  aclTensor* tout = Tensor({m, n}, {n, 1}, ACL_FLOAT, m * n, dout);
  float beta = 0.5f, alpha = 2.0f;
  aclScalar* sbeta = aclCreateScalar(&beta, ACL_FLOAT);
  aclScalar* salpha = aclCreateScalar(&alpha, ACL_FLOAT);
  std::printf("aclnnAddmm (%lld, %lld) @ (%lld, %lld) + bias (%lld):\n", (long long)m, (long long)k,
              (long long)k, (long long)n, (long long)n);
  if (Launch(
          [&](uint64_t* ws, aclOpExecutor** e) {
            return aclnnAddmmGetWorkspaceSize(tbias, ta, tc, sbeta, salpha, tout, 0, ws, e);
          },
          aclnnAddmm, stream) != 0) {
    return 1;
  }
  CHECK_ACL(
      aclrtMemcpy(hout.data(), hout.size() * 4, dout, hout.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = beta * hbias[j], mag = std::fabs(want);
      for (int64_t p = 0; p < k; ++p) {
        want += alpha * double(ha[i * k + p]) * hc[p * n + j];
        mag += std::fabs(alpha * double(ha[i * k + p]) * hc[p * n + j]);
      }
      if (std::fabs(hout[i * n + j] - want) > 1e-5 * mag + 1e-6 && bad++ < 6) {
        std::printf("  out(%lld, %lld) = %g, want %g\n", (long long)i, (long long)j,
                    hout[i * n + j], want);
      }
    }
  }

  for (aclTensor* t : {tx, twt, ty, ta, tc, tbias, tout}) aclDestroyTensor(t);
  aclDestroyScalar(sbeta);
  aclDestroyScalar(salpha);
  for (void* p : {dx, dw, dy, da, dc, dbias, dout}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("aclnn_matmul: %s\n", bad == 0 ? "pass" : "FAIL");
  return bad == 0 ? 0 : 1;
}
