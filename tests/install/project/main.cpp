// Host program of the install test: runs scale_custom through ICPU_RUN_KF and through the ACL
// runtime (ACLRT_LAUNCH_KERNEL on a stream), checks both against a scalar loop, and prints
// "scale_custom: ... check=pass|FAIL ...".
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "scale_custom.h"
#include "tikicpulib.h"

namespace {

constexpr uint32_t kBlocks = 4;
constexpr uint32_t kLength = kBlocks * 8 * SCALE_TILE;
constexpr float kAlpha = 1.5f;
constexpr float kBeta = -2.0f;

int CountMismatches(const float* x, const float* y) {
  int bad = 0;
  for (uint32_t i = 0; i < kLength; ++i) {
    if (y[i] != x[i] * kAlpha + kBeta) ++bad;
  }
  return bad;
}

}  // namespace

#define CHECK_ACL(expr)                                                                      \
  do {                                                                                       \
    const aclError check_acl_ret = (expr);                                                   \
    if (check_acl_ret != ACL_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s failed (%d): %s\n", #expr, check_acl_ret, aclGetRecentErrMsg()); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main() {
  const size_t bytes = kLength * sizeof(float);
  // CPU-debug flow.
  auto* x = static_cast<float*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<float*>(AscendC::GmAlloc(bytes));
  for (uint32_t i = 0; i < kLength; ++i) x[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
  ICPU_RUN_KF(scale_custom, kBlocks, x, y, kAlpha, kBeta, kLength);
  int bad = CountMismatches(x, y);

  // ACL flow.
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  void* xDevice = nullptr;
  void* yDevice = nullptr;
  CHECK_ACL(aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(xDevice, bytes, x, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_ACL(ACLRT_LAUNCH_KERNEL(scale_custom)(kBlocks, stream, xDevice, yDevice, kAlpha, kBeta,
                                              kLength));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<float> yHost(kLength);
  CHECK_ACL(aclrtMemcpy(yHost.data(), bytes, yDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  bad += CountMismatches(x, yHost.data());
  CHECK_ACL(aclrtFree(xDevice));
  CHECK_ACL(aclrtFree(yDevice));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  AscendC::GmFree(x);
  AscendC::GmFree(y);

  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("scale_custom: blocks=%u elements=%u check=%s host_time=%.3f ms "
              "bandwidth=%.2f GB/s\n",
              kBlocks, kLength, bad == 0 ? "pass" : "FAIL", ms, 2.0 * bytes / (ms * 1e6));
  return bad == 0 ? 0 : 1;
}
