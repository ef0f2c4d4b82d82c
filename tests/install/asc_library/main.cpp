// Host program of the separate-compile test: calls the launch function of the .asc library on a
// stream and checks y = 3 x. Prints "scale: check=pass|FAIL".
#include <cstdio>
#include <vector>

#include "acl/acl.h"

void run_scale_custom(float* x, float* y, float alpha, uint32_t blocks, aclrtStream stream);

int main() {
  constexpr uint32_t kBlocks = 4, kTotal = kBlocks * 1024;
  const size_t bytes = kTotal * sizeof(float);
  std::vector<float> x(kTotal), y(kTotal);
  for (uint32_t i = 0; i < kTotal; ++i) x[i] = static_cast<float>(i % 31) - 15.0f;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  float *xd = nullptr, *yd = nullptr;
  aclrtMalloc((void**)&xd, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&yd, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(xd, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  run_scale_custom(xd, yd, 3.0f, kBlocks, stream);
  int bad = aclrtSynchronizeStream(stream) == ACL_SUCCESS ? 0 : 1;
  aclrtMemcpy(y.data(), bytes, yd, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  for (uint32_t i = 0; i < kTotal; ++i) bad += y[i] != 3.0f * x[i] ? 1 : 0;
  aclrtFree(xd);
  aclrtFree(yd);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("scale: check=%s\n", bad == 0 ? "pass" : "FAIL");
  return bad == 0 ? 0 : 1;
}
