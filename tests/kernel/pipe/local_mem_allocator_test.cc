// LocalMemAllocator and static LocalTensors: a static-Tensor add kernel on many blocks against a
// scalar sum, the bump pointer's exact advance and default positions, the CPU-mode checks, one
// allocator per buffer, and mixing with TPipe reported instead of aliasing.
#include "aicore/kernel/pipe/local_mem_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

aicore::Status RunStatic(uint32_t blocks, std::function<void()> body,
                   aicore::KernelMode mode = aicore::KernelMode::kAiv) {
  aicore::LaunchOptions o;
  o.mode = mode;
  return aicore::RunKernel("static_test", blocks, o, std::move(body));
}

constexpr uint32_t kTile = 256;  // elements per block

// The static-Tensor style: InitSocState, allocator tensors, explicit flags, raw block_idx.
void AddStatic(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  InitSocState();
  GlobalTensor<float> gx, gy, gz;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + block_idx * kTile, kTile);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + block_idx * kTile, kTile);
  gz.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + block_idx * kTile, kTile);
  LocalMemAllocator<Hardware::UB> ub_allocator;
  LocalTensor<float> ub_x = ub_allocator.Alloc<float, kTile>();  // (kTile)
  LocalTensor<float> ub_y = ub_allocator.Alloc<float>(kTile);    // (kTile)
  LocalTensor<float> ub_z = ub_allocator.Alloc<TPosition::VECOUT, float, kTile>();
  DataCopy(ub_x, gx, kTile);
  DataCopy(ub_y, gy, kTile);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Add(ub_z, ub_x, ub_y, kTile);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(gz, ub_z, kTile);
  PipeBarrier<PIPE_ALL>();
}

TEST(LocalMemAllocatorTest, StaticAddKernelMatchesScalarSumOnManyBlocks) {
  constexpr uint32_t kBlocks = 12;  // more blocks than worker threads
  std::vector<float> x(kBlocks * kTile), y(x.size()), z(x.size(), -1.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 97) * 0.5f;
    y[i] = 3.0f - static_cast<float>(i % 13);
  }
  auto st = aicore::LaunchSync("add_static", AddStatic, kBlocks, aicore::LaunchOptions{},
                               x.data(), y.data(), z.data());
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(z[i], x[i] + y[i]) << "element " << i;
}

TEST(LocalMemAllocatorTest, AdvancesByExactlyTheTileAndUsesDefaultPositions) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<> ub;  // Hardware::UB by default
    EXPECT_EQ(ub.GetCurAddr(), 0u);
    auto a = ub.Alloc<half, 48>();  // 96 B
    EXPECT_EQ(ub.GetCurAddr(), 96u);
    auto b = ub.Alloc<TPosition::VECIN, int32_t>(8);  // 32 B at 96
    EXPECT_EQ(ub.GetCurAddr(), 128u);
    EXPECT_EQ(a.GetPosition(), TPosition::VECCALC);
    EXPECT_EQ(b.GetPosition(), TPosition::VECIN);
    EXPECT_EQ(a.GetSize(), 48u);
    EXPECT_EQ(a.GetPhyAddr(), 0u);
    EXPECT_EQ(b.GetPhyAddr(), 96u);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(LocalMemAllocatorTest, CubeBuffersOnTheAic) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<Hardware::L1> l1;
    LocalMemAllocator<Hardware::L0A> l0a;
    LocalMemAllocator<Hardware::L0B> l0b;
    LocalMemAllocator<Hardware::L0C> l0c;
    LocalMemAllocator<Hardware::BIAS> bt;
    EXPECT_EQ(l1.Alloc<half>(1024).GetPosition(), TPosition::A1);
    EXPECT_EQ((l1.Alloc<TPosition::B1, half>(1024).GetPhyAddr()), 2048u);
    EXPECT_EQ((l0a.Alloc<TPosition::A2, half>(256).GetPosition()), TPosition::A2);
    EXPECT_EQ((l0b.Alloc<half, 256>().GetPosition()), TPosition::B2);
    EXPECT_EQ(l0c.Alloc<float>(256).GetPosition(), TPosition::CO1);
    EXPECT_EQ(bt.Alloc<float>(64).GetPosition(), TPosition::C2);
  }, aicore::KernelMode::kAic);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(LocalMemAllocatorTest, SizeNotAMultipleOf32BytesIsAnError) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<Hardware::UB> ub;
    ub.Alloc<half>(10);  // 20 B
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("10 elements are 20 bytes, not a multiple of 32"));
  EXPECT_THAT(st.message(), HasSubstr("local_mem_allocator_test.cc:"));
}

TEST(LocalMemAllocatorTest, RunningPastTheBufferIsAnError) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<Hardware::UB> ub;
    ub.Alloc<float>(40 * 1024);  // 160 KB
    ub.Alloc<float>(16 * 1024);  // 64 KB more: past 192 KB
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
  EXPECT_THAT(st.message(), HasSubstr("65536 bytes at address 163840 run past the end of UB "
                                      "(196608 bytes on ascend910b1)"));
}

TEST(LocalMemAllocatorTest, ZeroTileIsAnError) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<Hardware::UB> ub;
    ub.Alloc<float>(0);
  });
  EXPECT_THAT(st.message(), HasSubstr("tileSize is 0"));
}

TEST(LocalMemAllocatorTest, StaticTensorAddressMustBeAligned) {
  auto st = RunStatic(1, [] { LocalTensor<float> t(TPosition::VECCALC, 16, 8); });
  EXPECT_THAT(st.message(), HasSubstr("address 16 in UB is not a multiple of 32 bytes"));
}

TEST(LocalMemAllocatorTest, PositionOfAnotherBufferIsAnError) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<Hardware::L0A> l0a;
    l0a.Alloc<TPosition::B2, half>(256);
  }, aicore::KernelMode::kAic);
  EXPECT_THAT(st.message(), HasSubstr("position B2 lives in L0B, not in this allocator's L0A"));
}

TEST(LocalMemAllocatorTest, OneAllocatorPerBufferAtATime) {
  auto st = RunStatic(1, [] {
    {
      LocalMemAllocator<Hardware::UB> first;
      first.Alloc<float>(8);
    }
    LocalMemAllocator<Hardware::UB> again;  // the first one is gone: fine
    LocalMemAllocator<Hardware::UB> second;
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("another LocalMemAllocator for UB is still live"));
}

TEST(LocalMemAllocatorTest, AllocatorAfterTPipeOnTheSameBufferIsAnError) {
  auto st = RunStatic(1, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    LocalMemAllocator<Hardware::UB> ub;
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("the TPipe already holds 1024 bytes of UB"));
}

TEST(LocalMemAllocatorTest, TPipeAfterAllocatorOnTheSameBufferIsAnError) {
  auto st = RunStatic(1, [] {
    LocalMemAllocator<Hardware::UB> ub;
    ub.Alloc<float>(64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("InitBuffer: position VECCALC lives in UB, which a live "
                                      "LocalMemAllocator hands out"));
}

TEST(LocalMemAllocatorTest, TPipeOnAnotherBufferIsFine) {
  auto st = RunStatic(1, [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    LocalMemAllocator<Hardware::L0A> l0a;
    EXPECT_EQ(l0a.Alloc<half>(256).GetPhyAddr(), 0u);
  }, aicore::KernelMode::kAic);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(LocalMemAllocatorTest, UbAllocatorOnTheAicIsAnError) {
  auto st = RunStatic(1, [] { LocalMemAllocator<Hardware::UB> ub; }, aicore::KernelMode::kAic);
  EXPECT_THAT(st.message(), HasSubstr("AIC 0 has no UB"));
}

// Note [UB queues on the AIC]: a mix kernel's body runs on the AIC too; its UB InitBuffer calls
// are accepted there, and only using such a queue on the AIC fails.
TEST(TPipeOnAicTest, UbQueueInitBufferIsToleratedAndUseIsRefused) {
  auto st = RunStatic(1, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(q, 2, 4096);
    pipe.InitBuffer(buf, 1024);
    if (ASCEND_IS_AIC) q.AllocTensor<float>();
  }, aicore::KernelMode::kMix);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("AIC 0: AllocTensor: the VECIN queue was given UB on AIC 0, "
                                      "which has no UB"));
}

TEST(TPipeOnAicTest, UbTBufUseOnTheAicIsRefused) {
  auto st = RunStatic(1, [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    buf.Get<float>();
  }, aicore::KernelMode::kAic);
  EXPECT_THAT(st.message(), HasSubstr("the TBuf was given UB on AIC 0, which has no UB"));
}

TEST(TPipeOnAicTest, UbCapacityIsStillChecked) {
  auto st = RunStatic(1, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256 * 1024);
  }, aicore::KernelMode::kAic);
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
}

TEST(TBufTest, FreeTensorChecksOwnership) {
  auto st = RunStatic(1, [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    auto t = a.Get<float>();
    a.FreeTensor(t);
    b.FreeTensor(t);
  });
  EXPECT_THAT(st.message(), HasSubstr("TBuf::FreeTensor: the tensor does not belong to this TBuf"));
}

}  // namespace
