// The kernel-error contract at the host program (docs/errors.md): a kernel error inside
// ICPU_RUN_KF prints its report to stderr once, keeps what the program printed to a redirected
// stdout, and ends the program with exit status 1 - never an uncaught exception (terminate, 134);
// a kernel error on the ACL path (ACLRT_LAUNCH_KERNEL, aicore::Launch) is printed to stderr once,
// when it happens, and returned as ACL_ERROR_RT_AICORE_EXCEPTION by the next synchronize.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "tests/robustness/kernels.h"
#include "tests/robustness/subprocess.h"
#include "tikicpulib.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using robustness::fail_at_known_line;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string FailSite() { return "kernels.h:" + std::to_string(robustness::kFailLine); }

TEST(IcpuRunKf, KernelErrorPrintsOnceKeepsStdoutAndExitsWithStatus1) {
  if (robustness::InChild()) {
    std::printf("printed before the launch\n");  // buffered: stdout is a file
    auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(16 * sizeof(float)));
    AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
    ICPU_RUN_KF(robustness::fail_at_known_line, 4, x, 16u);
    std::printf("after the launch: must not be reached\n");
    return;
  }
  const auto r = robustness::RerunThisTest();
  ASSERT_TRUE(r.exited) << "killed by signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("printed before the launch"));
  EXPECT_THAT(r.out, Not(HasSubstr("must not be reached")));
  EXPECT_THAT(r.err, AllOf(HasSubstr("ICPU_RUN_KF"), HasSubstr("fail_at_known_line"),
                           HasSubstr("AIV "), HasSubstr("GetValue"), HasSubstr(FailSite()),
                           HasSubstr("error_contract_test.cc:")));
  EXPECT_THAT(r.err, Not(HasSubstr("terminate called")));
  EXPECT_EQ(Count(r.err, "GetValue:"), 1u) << r.err;
}

TEST(IcpuRunKf, CleanLaunchReturnsNormally) {
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
  std::memset(x, 0, 64 * sizeof(int32_t));
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);  // a vector kernel, as CANN requires
  ICPU_RUN_KF(robustness::increment, 4, x, 64u);
  EXPECT_EQ(reinterpret_cast<int32_t*>(x)[63], 1);
  AscendC::GmFree(x);
}

TEST(AclPath, KernelErrorIsPrintedOnceWhenItHappensAndReturnedAtSynchronize) {
  if (robustness::InChild()) {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    void* x = nullptr;
    aclrtMalloc(&x, 16 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    const uint32_t launched = ACLRT_LAUNCH_KERNEL(fail_at_known_line)(
        2, stream, x, 16u);
    const aclError synced = aclrtSynchronizeStream(stream);
    std::printf("launch=%u sync=%d\n", launched, static_cast<int>(synced));
    std::printf("recent=%s\n", aclGetRecentErrMsg());
    aclrtFree(x);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    std::fflush(nullptr);
    _exit(0);
  }
  const auto r = robustness::RerunThisTest();
  ASSERT_TRUE(r.exited) << "killed by signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.code, 0);  // the program ignores the codes, as the samples do; it is not killed
  EXPECT_THAT(r.out, HasSubstr("launch=0 sync=" +
                               std::to_string(ACL_ERROR_RT_AICORE_EXCEPTION)));
  EXPECT_THAT(r.out, AllOf(HasSubstr("recent=aclrtSynchronizeStream"),
                           HasSubstr("fail_at_known_line")));
  EXPECT_THAT(r.err, AllOf(HasSubstr("fail_at_known_line"), HasSubstr("AIV "),
                           HasSubstr("GetValue"), HasSubstr(FailSite()), HasSubstr("stream ")));
  EXPECT_EQ(Count(r.err, "GetValue:"), 1u) << r.err;
}

TEST(AclPath, RejectedLaunchIsPrintedOnce) {
  if (robustness::InChild()) {
    void* x = nullptr;
    aclrtMalloc(&x, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    const uint32_t code = ACLRT_LAUNCH_KERNEL(fail_at_known_line)(0, nullptr, x, 16u);
    std::printf("code=%u\n", code);
    std::fflush(nullptr);
    _exit(0);
  }
  const auto r = robustness::RerunThisTest();
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_THAT(r.out, HasSubstr("code=" + std::to_string(ACL_ERROR_INVALID_PARAM)));
  EXPECT_THAT(r.err, AllOf(HasSubstr("ACLRT_LAUNCH_KERNEL"), HasSubstr("fail_at_known_line"),
                           HasSubstr("blockDim 0")));
  EXPECT_EQ(Count(r.err, "blockDim 0"), 1u) << r.err;
}

}  // namespace
