// GM memory safety without a size (Note [GM extents]): a GlobalTensor set up on a GmAlloc or
// device pointer without a size is bounded by the allocation, a freed block is reported at use,
// GmAlloc rejects sizes it cannot round, and memcheck names the allocation an access hits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/gm_registry.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

aicore::Status RunOne(std::function<void()> body) {
  return aicore::RunKernel("gm_extent", 1, aicore::LaunchOptions{}, std::move(body));
}

// Copies `count` floats from UB to `gm` (a GlobalTensor set up without a size on `p`).
aicore::Status CopyOut(void* p, uint32_t count) {
  return RunOne([=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, count * sizeof(float));
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(static_cast<__gm__ float*>(p));
    auto ub = buf.Get<float>();
    Duplicate(ub, 1.0f, count);
    PipeBarrier<PIPE_ALL>();
    DataCopy(gm, ub, count);
  });
}

TEST(GmAllocTest, SizeMaxIsAnErrorNotASmallBlock) {
  try {
    void* p = aicore::GmAlloc(SIZE_MAX);
    aicore::GmFree(p);
    FAIL() << "GmAlloc(SIZE_MAX) returned a block";
  } catch (const aicore::Error& e) {
    EXPECT_EQ(e.status().code(), aicore::StatusCode::kResourceExhausted);
    EXPECT_THAT(e.status().message(), HasSubstr("GmAlloc of 18446744073709551615 bytes: larger "
                                                "than the host can address"));
  }
  EXPECT_THROW(aicore::GmAlloc(SIZE_MAX - 4096), aicore::Error);
  EXPECT_THROW(aicore::GmAlloc(SIZE_MAX / 2 + 1), aicore::Error);
}

TEST(GmAllocTest, RegistersTheRequestedSize) {
  void* p = aicore::GmAlloc(1000);
  auto b = aicore::sim::FindGmBlock(static_cast<char*>(p) + 999);
  EXPECT_EQ(b.state, aicore::sim::GmBlockState::kLive);
  EXPECT_EQ(b.base, p);
  EXPECT_EQ(b.bytes, 1000u);
  EXPECT_EQ(aicore::sim::FindGmBlock(static_cast<char*>(p) + 1000).state,
            aicore::sim::GmBlockState::kUnknown);
  aicore::GmFree(p);
  EXPECT_EQ(aicore::sim::FindGmBlock(p).state, aicore::sim::GmBlockState::kFreed);
  EXPECT_THROW(aicore::GmFree(p), aicore::Error);  // double free
}

TEST(GmExtentTest, UnsizedTensorOnGmAllocIsBoundedByTheBlock) {
  void* p = aicore::GmAlloc(256 * sizeof(float));
  EXPECT_TRUE(CopyOut(p, 256).ok());
  auto st = CopyOut(p, 512);  // writes 1 KiB past a 1 KiB block: heap corruption before
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("DataCopy: dst GlobalTensor: the copy reaches byte 2048 "
                                      "but the tensor was set up without a size and its GmAlloc "
                                      "block of 1024 B at"));
  EXPECT_THAT(st.message(), HasSubstr("holds only 1024 B from its start (256 elements)"));
  aicore::GmFree(p);
}

TEST(GmExtentTest, UnsizedTensorInsideTheBlockKeepsTheRest) {
  void* p = aicore::GmAlloc(4096);
  auto st = RunOne([=] {
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(static_cast<__gm__ float*>(p) + 1000);  // 96 B left
    EXPECT_EQ(gm.GetSize(), 0u);  // as in AscendC: no size was given
    EXPECT_EQ(gm.extent(), 24u);
    gm.SetValue(23, 1.0f);
    gm.SetValue(24, 1.0f);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("SetValue: GlobalTensor: offset 24 but the tensor was set "
                                      "up without a size"));
  aicore::GmFree(p);
}

TEST(GmExtentTest, SizedTensorLargerThanItsBlockIsBoundedByTheBlock) {
  void* p = aicore::GmAlloc(64);
  auto st = RunOne([=] {
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(static_cast<__gm__ float*>(p), 1024);
    EXPECT_EQ(gm.GetSize(), 1024u);
    gm.GetValue(16);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("the tensor's 1024 elements (4096 B) run past the end of "
                                      "its GmAlloc block of 64 B"));
  aicore::GmFree(p);
}

TEST(GmExtentTest, BlockFreedBeforeTheLaunchIsAUseAfterFree) {
  void* p = aicore::GmAlloc(1024);
  aicore::GmFree(p);
  auto st = RunOne([=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(static_cast<__gm__ float*>(p));
    DataCopy(buf.Get<float>(), gm, 256);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("DataCopy: src GlobalTensor: its buffer"));
  EXPECT_THAT(st.message(), HasSubstr("lies in its GmAlloc block of 1024 B at"));
  EXPECT_THAT(st.message(), HasSubstr("which was freed before the tensor was set up (use after "
                                      "free)"));
}

TEST(GmExtentTest, DeviceAllocationBoundsAnUnsizedTensorAndItsFreeIsReported) {
  void* p = aicore::rt::DeviceMalloc(1000, nullptr);
  EXPECT_TRUE(CopyOut(p, 248).ok());  // 992 B
  auto st = CopyOut(p, 256);          // 1024 B > 1000 B asked for
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("its aclrtMalloc block of 1000 B"));
  aicore::rt::DeviceFree(p);
  st = CopyOut(p, 8);
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("use after free"));
}

TEST(GmExtentTest, HostMemoryNobodyRegisteredStaysUnchecked) {
  std::vector<float> host(512);
  EXPECT_TRUE(CopyOut(host.data(), 512).ok());
}

GlobalTensor<float> g_kept_gm;  // set up by one launch, used by the next: the misuse under test

TEST(GmExtentTest, MemcheckReportsUseOfABlockFreedAfterTheTensorWasSetUp) {
  void* p = aicore::GmAlloc(256 * sizeof(float));
  ASSERT_TRUE(RunOne([=] { g_kept_gm.SetGlobalBuffer(static_cast<__gm__ float*>(p)); }).ok());
  aicore::GmFree(p);  // the tensor still believes its 1 KiB extent
  aicore::check::SanitizerOptions so;
  so.tools = aicore::check::kMemcheck;
  aicore::check::Sanitizer sanitizer(so);
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    DataCopy(buf.Get<float>(), g_kept_gm, 256);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();  // the fast path checks at SetGlobalBuffer only
  const auto reports = sanitizer.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kind, aicore::check::DefectKind::kGmUseAfterFree);
  const std::string text = reports[0].ToString();
  EXPECT_THAT(text, HasSubstr("memcheck: GM use after free on GM"));
  EXPECT_THAT(text, HasSubstr("block AIV 0: MTE2 DataCopy (gm_extent_test.cc:"));
  EXPECT_THAT(text, HasSubstr("the access lies in its GmAlloc block of 1024 B at"));
  g_kept_gm = GlobalTensor<float>();
}

TEST(GmExtentTest, MemcheckReportsAnOverrunOfAReusedDeviceBlockThroughAStaleExtent) {
  void* p = aicore::rt::DeviceMalloc(1024, nullptr);
  ASSERT_TRUE(RunOne([=] { g_kept_gm.SetGlobalBuffer(static_cast<__gm__ float*>(p)); }).ok());
  aicore::rt::DeviceFree(p);
  void* q = aicore::rt::DeviceMalloc(600, nullptr);  // the cached 1 KiB block, asked for 600 B
  if (q != p) GTEST_SKIP() << "the allocator did not reuse the block";
  aicore::check::SanitizerOptions so;
  so.tools = aicore::check::kMemcheck;
  aicore::check::Sanitizer sanitizer(so);
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    DataCopy(buf.Get<float>(), g_kept_gm, 256);  // the stale 1 KiB extent lets it through
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  const auto reports = sanitizer.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kind, aicore::check::DefectKind::kGmOutOfBounds);
  EXPECT_THAT(reports[0].ToString(), HasSubstr("memcheck: GM out of bounds on GM"));
  EXPECT_THAT(reports[0].ToString(), HasSubstr("the access starts in its aclrtMalloc block of "
                                               "600 B at"));
  EXPECT_EQ(reports[0].end - reports[0].begin, 424u);
  aicore::rt::DeviceFree(q);
  g_kept_gm = GlobalTensor<float>();
}

}  // namespace
