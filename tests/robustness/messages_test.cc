// Error messages that named the wrong sizes, the wrong line or no file, and a legal software
// SyncAll over fewer cores than blockDim that was reported as a deadlock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;
using ::testing::Not;

aicore::Status RunMsg(std::function<void()> body, uint32_t blocks = 1) {
  return aicore::RunKernel("messages", blocks, aicore::LaunchOptions{}, std::move(body));
}

std::string At(int line) { return "(at messages_test.cc:" + std::to_string(line) + ")"; }

TEST(CountFormMessageTest, NamesOnlyTheOperandsTheCallHas) {
  auto st = RunMsg([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    Duplicate(buf.Get<float>(), 1.0f, 300);  // dst only
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(),
              HasSubstr("Duplicate: count 300 is outside [0, 256] (dst holds 256 elements)"));
  EXPECT_THAT(st.message(), Not(HasSubstr("25600")));

  st = RunMsg([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 1024);
    pipe.InitBuffer(b, 512);
    Adds(a.Get<float>(), b.Get<float>(), 1.0f, 200);  // dst and src0
  });
  EXPECT_THAT(st.message(), HasSubstr("count 200 is outside [0, 128] (dst holds 256, src0 128 "
                                      "elements)"));

  st = RunMsg([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 1024);
    pipe.InitBuffer(b, 512);
    pipe.InitBuffer(c, 256);
    Add(a.Get<float>(), b.Get<float>(), c.Get<float>(), 100);
  });
  EXPECT_THAT(st.message(), HasSubstr("count 100 is outside [0, 64] (dst holds 256, src0 128, "
                                      "src1 64 elements)"));
}

TEST(CallSiteTest, LocalTensorSubscriptNamesTheCallersLine) {
  int line = 0;
  auto st = RunMsg([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    auto t = buf.Get<float>();
    line = __LINE__ + 1;
    auto u = t[65];
    (void)u;
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("LocalTensor::operator[]: offset 65 is past the tensor's "
                                      "64 elements " + At(line)));
}

TEST(CallSiteTest, GlobalTensorSubscriptAndCallNameTheCallersLine) {
  std::vector<float> host(8);
  int line = 0;
  auto st = RunMsg([&] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(host.data(), 8);
    line = __LINE__ + 1;
    auto h = g[9];
    (void)h;
  });
  EXPECT_THAT(st.message(), HasSubstr("GlobalTensor::operator[]: GlobalTensor: offset 9 but the "
                                      "tensor holds 8 elements (32 bytes) " + At(line)));
  st = RunMsg([&] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(host.data(), 8);
    line = __LINE__ + 1;
    g(8) = 1.0f;
  });
  EXPECT_THAT(st.message(), HasSubstr("GlobalTensor::operator(): " ));
  EXPECT_THAT(st.message(), HasSubstr(At(line)));
}

TEST(DeadlockMessageTest, NamesTheFileAndLineOfTheWait) {
  int line = 0;
  auto st = RunMsg(
      [&] {
        if (GetBlockIdx() == 0) {
          line = __LINE__ + 1;
          SyncAll();
        }
        // block 1 ends without SyncAll: block 0 waits forever
      },
      2);
  ASSERT_FALSE(st.ok());
  // Block 1 finishing without SyncAll leaves block 0 waiting: a deadlock, with file and line.
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("SyncAll at messages_test.cc:" + std::to_string(line) +
                                      ": 1 of 2 cores arrived"));
}

// Runs a software SyncAll over the first `used` of `blocks` blocks; each participant writes its
// flag before the barrier and checks the others' after it.
aicore::Status SoftwareSyncAll(uint32_t blocks, int32_t used, std::vector<int32_t>* flags) {
  std::vector<int32_t> ws(blocks * 8);
  return RunMsg(
      [&, used] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> ub;
        pipe.InitBuffer(ub, blocks * 32);
        GlobalTensor<int32_t> gm;
        gm.SetGlobalBuffer(ws.data(), ws.size());
        const int64_t me = GetBlockIdx();
        if (me >= used) return;  // the blocks beyond usedCores do not take part
        (*flags)[me] = 1;
        SyncAll(gm, ub.Get<int32_t>(), used);
        for (int32_t k = 0; k < used; ++k) EXPECT_EQ((*flags)[k], 1) << "block " << me;
      },
      blocks);
}

TEST(SoftwareSyncAllTest, UsedCoresBelowBlockDimSynchronisesOnlyThoseCores) {
  std::vector<int32_t> flags(8);
  auto st = SoftwareSyncAll(8, 3, &flags);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(flags[2], 1);
  EXPECT_EQ(flags[3], 0);
}

TEST(SoftwareSyncAllTest, UsedCoresZeroMeansEveryCore) {
  std::vector<int32_t> flags(4);
  auto st = SoftwareSyncAll(4, 4, &flags);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<int32_t> ws(4 * 8);
  st = RunMsg(
      [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> ub;
        pipe.InitBuffer(ub, 4 * 32);
        GlobalTensor<int32_t> gm;
        gm.SetGlobalBuffer(ws.data(), ws.size());
        SyncAll(gm, ub.Get<int32_t>());
      },
      4);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(SoftwareSyncAllTest, UsedCoresAboveBlockDimIsAnError) {
  std::vector<int32_t> ws(64);
  auto st = RunMsg(
      [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> ub;
        pipe.InitBuffer(ub, 256);
        GlobalTensor<int32_t> gm;
        gm.SetGlobalBuffer(ws.data(), ws.size());
        SyncAll(gm, ub.Get<int32_t>(), 5);
      },
      2);
  EXPECT_EQ(st.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("SyncAll: usedCores 5 is outside [0, 2]"));
}

TEST(SoftwareSyncAllTest, UbWorkspaceTooSmallIsAnError) {
  std::vector<int32_t> ws(64);
  auto st = RunMsg(
      [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> ub;
        pipe.InitBuffer(ub, 32);
        GlobalTensor<int32_t> gm;
        gm.SetGlobalBuffer(ws.data(), ws.size());
        SyncAll(gm, ub.Get<int32_t>());
      },
      2);
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("SyncAll: ubWorkspace holds 32 B; 2 cores need 64 B"));
}

}  // namespace
