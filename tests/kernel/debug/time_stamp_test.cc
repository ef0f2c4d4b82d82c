// PrintTimeStamp / asc_time_stamp with CANN's switch -DASCENDC_TIME_STAMP_ON: one line per call with
// the core prefix, the descId and a system cycle count that does not go backwards.
#define ASCENDC_TIME_STAMP_ON 1

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"

namespace {

TEST(PrintTimeStampTest, PrintsTheDocumentedLineWithTheCorePrefix) {
  ::testing::internal::CaptureStdout();
  const aicore::Status st = aicore::RunKernel("stamp", 2, aicore::LaunchOptions{}, [] {
    AscendC::PrintTimeStamp(65577);
    asc_time_stamp(70000);
  });
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::istringstream in(out);
  int lines = 0;
  std::vector<long long> first(2, -1);
  for (std::string line; std::getline(in, line); ++lines) {
    long block = -1;
    unsigned id = 0;
    long long cycle = -1;
    ASSERT_EQ(std::sscanf(line.c_str(),
                          "[AIV Block %ld/2] descId is %u, rsv is 0, timeStamp is %lld, pcPtr is "
                          "0, entry is 0.",
                          &block, &id, &cycle),
              3)
        << line;
    ASSERT_TRUE(block == 0 || block == 1) << line;
    ASSERT_GE(cycle, 0) << line;
    if (id == 65577u) {
      first[block] = cycle;
    } else {
      EXPECT_EQ(id, 70000u) << line;
      EXPECT_GE(cycle, first[block]) << line;  // the block's second stamp is not earlier
    }
  }
  EXPECT_EQ(lines, 4) << out;
}

TEST(PrintTimeStampTest, OutsideAKernelFails) {
  EXPECT_THROW(AscendC::PrintTimeStamp(1), aicore::Error);
}

}  // namespace
