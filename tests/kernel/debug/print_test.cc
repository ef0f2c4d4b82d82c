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
#include "aicore/runtime/gm.h"
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

std::string CapturedOn(aicore::KernelMode mode, std::function<void()> body,
                       aicore::Status* status) {
  aicore::LaunchOptions options;
  options.mode = mode;
  ::testing::internal::CaptureStdout();
  *status = aicore::RunKernel("print_test", 1, options, std::move(body));
  std::fflush(stdout);
  return ::testing::internal::GetCapturedStdout();
}

// asc_dump_gm prints like DumpTensor on GM; a GmAlloc block bounds what it reads.
TEST(AscDumpTest, GmDumpIsBoundedByTheAllocation) {
  auto* x = static_cast<float*>(aicore::GmAlloc(4 * sizeof(float)));
  for (int i = 0; i < 4; ++i) x[i] = 1.5f * static_cast<float>(i);
  aicore::Status st;
  const std::string out = Captured(1, [&] { asc_dump_gm<float>(x, 7, 16); }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_THAT(out, HasSubstr("[AIV Block 0/1] DumpTensor: desc=7, addr="));
  EXPECT_THAT(out, HasSubstr("data_type=float32, position=GM, dump_size=16\n"));
  EXPECT_THAT(out, HasSubstr("[0.000000, 1.500000, 3.000000, 4.500000]\n"));
  st = aicore::RunKernel("print_test", 1, aicore::LaunchOptions{},
                         [] { asc_dump_gm<float>(nullptr, 1, 4); });
  EXPECT_EQ(st.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("asc_dump_gm: the GM address is nullptr"));
  aicore::GmFree(x);
}

// The local forms take GetPhyAddr() cast to a pointer, as kernels write them.
TEST(AscDumpTest, LocalDumpsReadTheCoresBufferAtTheTensorsOffset) {
  aicore::Status st;
  std::string out = Captured(1, [] {
    LocalMemAllocator<Hardware::UB> ub;
    auto pad = ub.Alloc<int32_t, 8>();
    auto t = ub.Alloc<int32_t, 8>();
    for (int i = 0; i < 8; ++i) pad.SetValue(i, 0);
    for (int i = 0; i < 8; ++i) t.SetValue(i, 10 + i);
    asc_dump_ubuf<int32_t>((__ubuf__ int32_t*)t.GetPhyAddr(), 3, 4);
    asc_dump_ubuf<int32_t>(t[6].data(), 4, 2);  // a host address inside UB works too
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_THAT(out, HasSubstr("DumpTensor: desc=3, addr=32, data_type=int32, position=UB, "
                             "dump_size=4\n[AIV Block 0/1] [10, 11, 12, 13]\n"));
  EXPECT_THAT(out, HasSubstr("desc=4, addr=56, data_type=int32, position=UB, dump_size=2\n"
                             "[AIV Block 0/1] [16, 17]\n"));
  if (!aicore::arch::DefaultChip().split()) return;
  out = CapturedOn(aicore::KernelMode::kAic, [] {
    LocalMemAllocator<Hardware::L1> l1;
    auto a = l1.Alloc<half, 16>();
    for (int i = 0; i < 16; ++i) a.SetValue(i, half(static_cast<float>(i)));
    asc_dump_l1buf<half>((__cbuf__ half*)a.GetPhyAddr(), 5, 3);
    LocalMemAllocator<Hardware::L0C> l0c;
    auto c = l0c.Alloc<float, 8>();
    for (int i = 0; i < 8; ++i) c.SetValue(i, -1.0f * static_cast<float>(i));
    asc_dump_cbuf<float>((__cc__ float*)c.GetPhyAddr(), 6, 2);
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_THAT(out, HasSubstr("desc=5, addr=0, data_type=float16, position=L1, dump_size=3\n"
                             "[AIC Block 0/1] [0.000000, 1.000000, 2.000000]\n"));
  EXPECT_THAT(out, HasSubstr("desc=6, addr=0, data_type=float32, position=L0C, dump_size=2\n"
                             "[AIC Block 0/1] [-0.000000, -1.000000]\n"));
}

TEST(AscDumpTest, WrongBufferOrAddressFailsNamingTheApi) {
  if (!aicore::arch::DefaultChip().split()) GTEST_SKIP() << "coupled chip: every core has L1";
  aicore::Status st = aicore::RunKernel("print_test", 1, aicore::LaunchOptions{}, [] {
    asc_dump_l1buf<half>((__cbuf__ half*)nullptr, 1, 4);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("asc_dump_l1buf: AIV 0 has no L1"));
  int host = 0;
  st = aicore::RunKernel("print_test", 1, aicore::LaunchOptions{}, [&] {
    asc_dump_ubuf<int>(&host, 1, 1);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("nor a byte offset into it"));
}

// Without -DASCENDC_TIME_STAMP_ON, PrintTimeStamp does nothing (time_stamp_test.cc has it on).
TEST(PrintTimeStampTest, OffByDefault) {
  aicore::Status st;
  const std::string out = Captured(1, [] {
    PrintTimeStamp(65577);
    asc_time_stamp(65578);
  }, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, "");
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
