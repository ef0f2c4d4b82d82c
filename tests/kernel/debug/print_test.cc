// Kernel output: printf lines carry the core prefix and never mix mid-line across blocks (Note
// [Kernel output lines]), half arguments print, DumpTensor's layouts, KERNEL_LOG's prefix.
#include "aicore/kernel/debug/print.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

// Runs the launch with stdout captured and returns what it printed.
std::string Captured(uint32_t blocks, std::function<void()> body, aicore::Status* status) {
  ::testing::internal::CaptureStdout();
  *status = aicore::RunKernel("print_test", blocks, aicore::LaunchOptions{}, std::move(body));
  std::fflush(stdout);
  return ::testing::internal::GetCapturedStdout();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(PrintfTest, LinesBuiltFromManyCallsStayWholeAcrossBlocks) {
  aicore::sim::SetWorkerThreads(4);
  aicore::Status st;
  constexpr uint32_t kBlocks = 8;
  const std::string out = Captured(kBlocks, [] {
    for (int i = 0; i < 20; ++i) {
      printf("b%ld", GetBlockIdx());
      printf(" i=%d", i);
      if (i % 5 == 0) SyncAll();  // switch fibers mid-line
      AscendC::PRINTF(" end\n");
    }
  }, &st);
  aicore::sim::SetWorkerThreads(0);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto lines = Lines(out);
  ASSERT_EQ(lines.size(), kBlocks * 20u);
  for (const auto& line : lines) {
    long b = -1, b2 = -1;
    int i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "[AIV Block %ld/8] b%ld i=%d end", &b, &b2, &i), 3)
        << line;
    EXPECT_EQ(b, b2) << line;
  }
}

TEST(PrintfTest, HalfArgumentsAndPercentAndUnfinishedLastLine) {
  aicore::Status st;
  const std::string out = Captured(1, [] {
    printf("h=%f f=%.1f 100%%\n", half(1.5f), 2.25f);
    AscendC::printf("no newline");  // unqualified, a call without arguments is C's printf
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, "[AIV Block 0/1] h=1.500000 f=2.2 100%\n[AIV Block 0/1] no newline\n");
}

TEST(DumpTensorTest, PlainAndShapedLayouts) {
  aicore::Status st;
  const std::string out = Captured(1, [] {
    LocalMemAllocator<Hardware::UB> ub;
    auto t = ub.Alloc<float, 8>();
    for (int i = 0; i < 8; ++i) t.SetValue(i, static_cast<float>(i));
    auto ints = ub.Alloc<int32_t, 8>();
    for (int i = 0; i < 8; ++i) ints.SetValue(i, -i);
    DumpTensor(t, 5, 4);
    const uint32_t shape23[] = {2, 3};
    DumpTensor(ints, 7, 8, ShapeInfo(2, shape23));  // shape smaller than dumpSize
    const uint32_t shape33[] = {3, 3};
    DumpTensor(t, 9, 8, ShapeInfo(2, shape33));  // data is not enough
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto lines = Lines(out);
  const std::vector<std::string> want = {
      "[AIV Block 0/1] DumpTensor: desc=5, addr=0, data_type=float32, position=UB, dump_size=4",
      "[AIV Block 0/1] [0.000000, 1.000000, 2.000000, 3.000000]",
      "[AIV Block 0/1] DumpTensor: desc=7, addr=32, data_type=int32, position=UB, dump_size=8",
      "[AIV Block 0/1] shape is [2, 3], dumpSize is 8, dumpSize is greater than shapeSize.",
      "[AIV Block 0/1] [[0,-1,-2],",
      "[AIV Block 0/1] [-3,-4,-5]]",
      "[AIV Block 0/1] DumpTensor: desc=9, addr=0, data_type=float32, position=UB, dump_size=8",
      "[AIV Block 0/1] shape is [3, 3], dumpSize is 8, data is not enough.",
      "[AIV Block 0/1] [[0.000000,1.000000,2.000000],",
      "[AIV Block 0/1] [3.000000,4.000000,5.000000],",
      "[AIV Block 0/1] [6.000000,7.000000,-]]",
  };
  EXPECT_EQ(lines, want) << out;
}

TEST(DumpTensorTest, GlobalTensorAndHalf) {
  std::vector<half> gm = {half(0.5f), half(-2.0f)};
  aicore::Status st;
  const std::string out = Captured(1, [&] {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    DumpTensor(g, 1, 8);  // only 2 elements exist
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_THAT(out, HasSubstr("data_type=float16, position=GM, dump_size=8\n"));
  EXPECT_THAT(out, HasSubstr("[0.500000, -2.000000]\n"));
}

TEST(KernelLogTest, PrefixNamesLevelBlockCoreFileAndFunction) {
  aicore::Status st;
  const std::string out = Captured(2, [] {
    if (GetBlockIdx() == 1) KERNEL_LOG(KERNEL_ERROR, "value %d too big", 42);
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_THAT(out, HasSubstr("[ERROR][Block_1][AIV_0][print_test.cc:"));
  EXPECT_THAT(out, HasSubstr("][operator()]["));
  EXPECT_THAT(out, HasSubstr("] value 42 too big\n"));
}

}  // namespace
