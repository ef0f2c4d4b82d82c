// Every AICORE_* variable goes through aicore::env: a value that is not accepted gives one warning
// naming the variable, the value and what is accepted, and the documented default is used;
// unknown AICORE_* names are reported too. Variables read once per process are checked out of
// process (a death-test child that sets the variable, reads it and exits 0 on the right outcome).
#include "aicore/core/env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "aicore/core/cpu.h"
#include "aicore/core/log.h"
#include "aicore/kernel/lib/matmul/matmul.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/memory/device_memory.h"
#include "aicore/sim/scheduler.h"

namespace aicore {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

class EnvTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
  void TearDown() override { unsetenv("AICORE_TEST_INT"); }
};

TEST_F(EnvTest, IntParsesClampsAndFallsBack) {
  unsetenv("AICORE_TEST_INT");
  EXPECT_EQ(env::Int("AICORE_TEST_INT", 5, 1, 10), 5);
  setenv("AICORE_TEST_INT", "7", 1);
  EXPECT_EQ(env::Int("AICORE_TEST_INT", 5, 1, 10), 7);
  setenv("AICORE_TEST_INT", "0x8", 1);
  EXPECT_EQ(env::Int("AICORE_TEST_INT", 5, 1, 10), 8);
  for (const char* above : {"11", "99999999999999999999999", "0xffffffffffffffffff"}) {
    setenv("AICORE_TEST_INT", above, 1);
    EXPECT_EQ(env::Int("AICORE_TEST_INT", 5, 1, 10), 10) << above;
  }
  for (const char* bad : {"0", "-1", "-99999999999999999999", "abc", "7x", " 7", "", "+", "0x"}) {
    setenv("AICORE_TEST_INT", bad, 1);
    EXPECT_EQ(env::Int("AICORE_TEST_INT", 5, 1, 10), 5) << bad;
  }
}

TEST_F(EnvTest, ChoiceAndBool) {
  setenv("AICORE_TEST_INT", "b", 1);
  EXPECT_EQ(env::Choice("AICORE_TEST_INT", {"a", "b"}, "a"), "b");
  setenv("AICORE_TEST_INT", "B", 1);
  EXPECT_EQ(env::Choice("AICORE_TEST_INT", {"a", "b"}, "a"), "a");
  for (const char* t : {"1", "true", "ON", "Yes"}) {
    setenv("AICORE_TEST_INT", t, 1);
    EXPECT_TRUE(env::Bool("AICORE_TEST_INT", false)) << t;
  }
  for (const char* f : {"0", "False", "off", "no"}) {
    setenv("AICORE_TEST_INT", f, 1);
    EXPECT_FALSE(env::Bool("AICORE_TEST_INT", true)) << f;
  }
  setenv("AICORE_TEST_INT", "maybe", 1);
  EXPECT_TRUE(env::Bool("AICORE_TEST_INT", true));
}

TEST_F(EnvTest, WarningsNameVariableValueAndWhatIsAccepted) {
  EXPECT_EXIT(
      {
        setenv("AICORE_TEST_INT", "abc", 1);
        std::_Exit(env::Int("AICORE_TEST_INT", 5, 1, 10) == 5 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "\\[aicore warn\\] AICORE_TEST_INT=abc: not an integer \\(accepted: an integer in \\[1, "
      "10\\]\\); using the default 5");
}

TEST_F(EnvTest, DeviceMemoryMbRejectsNegativeZeroAndJunk) {
  unsetenv("AICORE_DEVICE_MEMORY_MB");
  const size_t fallback = memory::DefaultDeviceCapacity();
  for (const char* bad : {"-1", "0", "abc", "12MB"}) {
    setenv("AICORE_DEVICE_MEMORY_MB", bad, 1);
    EXPECT_EQ(memory::DefaultDeviceCapacity(), fallback) << bad;  // not 16 EiB
  }
  setenv("AICORE_DEVICE_MEMORY_MB", "18446744073709551615", 1);
  EXPECT_EQ(memory::DefaultDeviceCapacity(), (size_t{1} << 24) * kMiB);  // clamped to 16 TiB
  setenv("AICORE_DEVICE_MEMORY_MB", "64", 1);
  EXPECT_EQ(memory::DefaultDeviceCapacity(), 64 * kMiB);
  unsetenv("AICORE_DEVICE_MEMORY_MB");
  EXPECT_EXIT(
      {
        setenv("AICORE_DEVICE_MEMORY_MB", "-1", 1);
        (void)memory::DefaultDeviceCapacity();
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "AICORE_DEVICE_MEMORY_MB=-1: below the minimum 1 \\(accepted: an integer in \\[1, "
      "16777216\\]\\); using the default [0-9]+");
}

TEST_F(EnvTest, LogLevelVerboseWarns) {
  EXPECT_EXIT(
      {
        setenv("AICORE_LOG_LEVEL", "verbose", 1);
        std::_Exit(CurrentLogLevel() == LogLevel::kWarn ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "AICORE_LOG_LEVEL=verbose: not one of error, warn, info, debug; using warn");
  EXPECT_EXIT(
      {
        setenv("AICORE_LOG_LEVEL", "debug", 1);
        std::_Exit(CurrentLogLevel() == LogLevel::kDebug ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(EnvTest, DifferentialSeedMustBeAnInteger) {
  EXPECT_EXIT(
      {
        setenv("AICORE_DIFFERENTIAL", "x", 1);
        sim::LaunchSpec spec;
        spec.kernel_name = "noop";
        spec.body = [] {};
        std::_Exit(sim::RunKernel(spec).ok() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "AICORE_DIFFERENTIAL=x: not an integer \\(accepted: an integer in \\[0, "
      "9223372036854775807\\]\\); using the default 0");
}

TEST_F(EnvTest, IsaMatmulDeviceCountAndUnknownNames) {
  EXPECT_EXIT(
      {
        setenv("AICORE_ISA", "sse", 1);
        std::_Exit(ActiveIsa() == DetectedIsa() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "AICORE_ISA=sse: not one of portable, avx2, avx512; using ");
  EXPECT_EXIT(
      {
        setenv("AICORE_MATMUL_FUSED", "maybe", 1);
        std::_Exit(AscendC::detail::MatmulFusedPathEnabled() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "AICORE_MATMUL_FUSED=maybe: not a boolean");
  EXPECT_EXIT(
      {
        setenv("AICORE_DEVICE_COUNT", "0", 1);
        std::_Exit(rt::GetDeviceCount() == 8 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "AICORE_DEVICE_COUNT=0: below the minimum 1");
}

TEST_F(EnvTest, UnknownAicoreNamesAreReportedAtStartup) {
  // The scan runs at the first read, during static initialisation, so the variable must be in the
  // environment the process starts with: run this binary again with AICORE_THREADS misspelt.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  const std::string command = std::string("AICORE_THREAD=4 ") + self +
                              " --gtest_filter=EnvTest.ChoiceAndBool 2>&1";
  FILE* p = popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t got; (got = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, got);
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_THAT(out, ::testing::HasSubstr("[aicore warn] AICORE_THREAD is not an aicore variable "
                                        "and is ignored (known: AICORE_ALLOC_CONF, "));
}

TEST_F(EnvTest, EveryVariableTheLibraryReadsIsKnown) {
  // KnownVariables() is the table docs/environment.md documents.
  std::vector<std::string> known;
  for (const char* k : env::KnownVariables()) known.emplace_back(k);
  for (const char* v : {"AICORE_ALLOC_CONF", "AICORE_CHECK", "AICORE_CHIP", "AICORE_DEVICE_COUNT",
                        "AICORE_DEVICE_MEMORY_MB", "AICORE_DIFFERENTIAL", "AICORE_ISA",
                        "AICORE_LOG_LEVEL", "AICORE_MATMUL_FUSED", "AICORE_MMAD_BF16",
                        "AICORE_MMAD_INT8", "AICORE_PROFILE", "AICORE_STACK_KB",
                        "AICORE_THREADS"}) {
    EXPECT_THAT(known, ::testing::Contains(std::string(v)));
  }
}

}  // namespace
}  // namespace aicore
