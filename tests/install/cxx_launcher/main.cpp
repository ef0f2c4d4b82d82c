// Host program of the launcher test: launches who_runs<<<3, 0, stream>>> and checks that every
// group ran one AIC and one AIV. Prints "who_runs: check=pass|FAIL".
#include <cstdio>

#include "acl/acl.h"
#include "kernel.h"

int main() {
  constexpr int kGroups = 3;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  void* out = nullptr;
  aclrtMalloc(&out, 2 * kGroups * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemset(out, 2 * kGroups * sizeof(int32_t), 0xff, 2 * kGroups * sizeof(int32_t));
  who_runs<<<kGroups, 0, stream>>>(static_cast<uint8_t*>(out));
  int bad = aclrtSynchronizeStream(stream) == ACL_SUCCESS ? 0 : 1;
  int32_t host[2 * kGroups];
  aclrtMemcpy(host, sizeof(host), out, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST);
  for (int g = 0; g < kGroups; ++g) bad += host[2 * g] != g || host[2 * g + 1] != 1 ? 1 : 0;
  aclrtFree(out);
  aclrtDestroyStream(stream);
  aclFinalize();
  std::printf("who_runs: check=%s\n", bad == 0 ? "pass" : "FAIL");
  return bad == 0 ? 0 : 1;
}
