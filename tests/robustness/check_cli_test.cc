// `aicore check` exit statuses in every path (docs/errors.md): 0 clean, 1 defects found (kernel
// launch errors are defects, on the ICPU_RUN_KF and the ACL path alike), 2 usage, otherwise the
// program's own status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/robustness/subprocess.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

robustness::ChildResult Check(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {AICORE_CLI_PATH, "check"};
  argv.insert(argv.end(), args.begin(), args.end());
  return robustness::RunProgram(argv);
}

TEST(CheckCli, CleanProgramExits0) {
  const auto r = Check({CHECK_HELPER_PATH, "clean"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no defects found"));
}

TEST(CheckCli, KernelErrorInIcpuRunKfIsADefect) {
  const auto r = Check({CHECK_HELPER_PATH, "icpu_fail"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("fail_at_known_line"), HasSubstr("GetValue"),
                           HasSubstr("1 failed launch"), HasSubstr("defects found in")));
  EXPECT_THAT(r.err, Not(HasSubstr("killed by signal")));
  EXPECT_THAT(r.out, HasSubstr("check_helper icpu_fail"));  // stdout survived
}

TEST(CheckCli, KernelErrorOnTheAclPathIsADefect) {
  const auto r = Check({CHECK_HELPER_PATH, "acl_fail"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("fail_at_known_line"), HasSubstr("GetValue"),
                           HasSubstr("1 failed launch"), Not(HasSubstr("no defects found"))));
}

TEST(CheckCli, SanitizerDefectExits1) {
  const auto r = Check({"--tool=memcheck", CHECK_HELPER_PATH, "leak"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("GM leak"));
}

TEST(CheckCli, GmOverrunThroughAnUnsizedTensorIsADefect) {
  const auto r = Check({CHECK_HELPER_PATH, "gm_overrun"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("fill_unsized"), HasSubstr("SetValue"),
                           HasSubstr("set up without a size"), HasSubstr("GmAlloc block of 256 B"),
                           HasSubstr("1 failed launch"), HasSubstr("defects found in")));
}

TEST(CheckCli, UseOfABlockFreedBeforeTheLaunchIsADefect) {
  const auto r = Check({CHECK_HELPER_PATH, "gm_use_after_free"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("fill_unsized"), HasSubstr("use after free"),
                           HasSubstr("1 failed launch"), HasSubstr("defects found in")));
}

TEST(CheckCli, StreamOrderedFreeIsClean) {
  const auto r = Check({CHECK_HELPER_PATH, "stream_ordered_free"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no defects found"));
  EXPECT_THAT(r.err, Not(HasSubstr("use after free")));
}

TEST(CheckCli, ProgramsOwnStatusPassesThrough) {
  const auto r = Check({CHECK_HELPER_PATH, "exit:3"});
  ASSERT_TRUE(r.exited) << r.err;
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("exited with status 3"));
}

TEST(CheckCli, UsageErrorsExit2) {
  EXPECT_EQ(Check({}).code, 2);
  EXPECT_EQ(Check({"--tool=bogus", CHECK_HELPER_PATH, "clean"}).code, 2);
  EXPECT_EQ(Check({"--frobnicate", CHECK_HELPER_PATH, "clean"}).code, 2);
}

}  // namespace
