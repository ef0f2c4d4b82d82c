// A host program for the `aicore check` exit-status tests (check_cli_test.cc). argv[1] picks what
// it does: clean (a correct ICPU_RUN_KF launch), icpu_fail (a kernel error inside ICPU_RUN_KF),
// acl_fail (a kernel error on the ACL path whose codes the program ignores, as samples do),
// exit:N (a clean run that returns N), leak (a GmAlloc block never freed), gm_overrun (a write
// past a GmAlloc block through a GlobalTensor set up without a size), gm_use_after_free (a launch
// on a block freed before it), stream_ordered_free (aclrtFree right after enqueuing the kernel
// that uses the memory, before synchronising: legal, see Note [GM epochs]).
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
  if (mode == "gm_overrun" || mode == "gm_use_after_free") {
    auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
    if (mode == "gm_use_after_free") AscendC::GmFree(x);
    ICPU_RUN_KF(robustness::fill_unsized, 2, x, mode == "gm_overrun" ? 80u : 64u);
    if (mode == "gm_overrun") AscendC::GmFree(x);
    return 0;
  }
  if (mode == "stream_ordered_free") {
    aclInit(nullptr);
    aclrtSetDevice(0);
    // The default stream, the allocations' own: each free lets the next aclrtMalloc reuse the
    // block for the next launch, as PyTorch's caching allocator does.
    for (int i = 0; i < 8; ++i) {
      void* x = nullptr;
      aclrtMalloc(&x, (256 - 16 * i) * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST);
      ACLRT_LAUNCH_KERNEL(robustness::fill_unsized)(2, nullptr, x, 256u - 16 * i);
      aclrtFree(x);  // stream-ordered: the kernel may not have run yet
    }
    const int failures = aclrtSynchronizeStream(nullptr) != ACL_SUCCESS;
    aclrtResetDevice(0);
    aclFinalize();
    return failures;
  }
  std::fprintf(stderr, "check_helper: unknown mode '%s'\n", mode.c_str());
  return 2;
}
