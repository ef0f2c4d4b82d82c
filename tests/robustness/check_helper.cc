// A host program for the `aicore check` exit-status tests (check_cli_test.cc). argv[1] picks what
// it does: clean (a correct ICPU_RUN_KF launch), icpu_fail (a kernel error inside ICPU_RUN_KF),
// acl_fail (a kernel error on the ACL path whose codes the program ignores, as samples do),
// exit:N (a clean run that returns N), leak (a GmAlloc block never freed).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "tests/robustness/kernels.h"
#include "tikicpulib.h"

using robustness::fail_at_known_line;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  std::printf("check_helper %s\n", mode.c_str());
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);  // vector kernels, as CANN requires
  if (mode == "clean" || mode.rfind("exit:", 0) == 0 || mode == "leak") {
    auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
    std::memset(x, 0, 64 * sizeof(int32_t));
    ICPU_RUN_KF(robustness::increment, 2, x, 64u);
    if (mode != "leak") AscendC::GmFree(x);
    return mode.rfind("exit:", 0) == 0 ? std::atoi(mode.c_str() + 5) : 0;
  }
  if (mode == "icpu_fail") {
    auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(16 * sizeof(float)));
    ICPU_RUN_KF(robustness::fail_at_known_line, 2, x, 16u);
    AscendC::GmFree(x);
    return 0;
  }
  if (mode == "acl_fail") {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    void* x = nullptr;
    aclrtMalloc(&x, 16 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    ACLRT_LAUNCH_KERNEL(fail_at_known_line)(2, stream, x, 16u);
    aclrtSynchronizeStream(stream);
    aclrtFree(x);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
  }
  std::fprintf(stderr, "check_helper: unknown mode '%s'\n", mode.c_str());
  return 2;
}
