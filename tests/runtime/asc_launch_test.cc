// Tests of the <<<>>> entry aicore-asc rewrites launches into (aicore::detail::AscLaunch): the
// kernel type's core layout (mix 1:1 included), asynchronous launch on a stream, and errors that
// name the kernel and the declared type.
#include <atomic>

#include "aicore/runtime/launch.h"
#include "aicore/runtime/stream.h"
#include "gtest/gtest.h"
#include "kernel_operator.h"

namespace {

std::atomic<int> g_aic{0};
std::atomic<int> g_aiv{0};
std::atomic<int> g_sub_num{0};

void CountCores(int* unused) {
  (void)unused;
  // One instruction on every core: a launch whose cores all find their core-type guard false and
  // issue nothing is refused (aicore::detail::CheckGuardedAway), and host atomics are no work.
  AscendC::PipeBarrier<PIPE_ALL>();
  if (ASCEND_IS_AIC) {
    ++g_aic;
  } else {
    ++g_aiv;
    g_sub_num = static_cast<int>(AscendC::GetSubBlockNum());
  }
}

void UbOnAic(int* unused) {
  (void)unused;
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 1024);  // tolerated on the AIC, as in CANN; the use is the error
  AscendC::LocalTensor<float> t = q.AllocTensor<float>();
  q.FreeTensor(t);
}

aicore::Status LaunchAndSync(aicore::KernelMode mode, const char* type, void (*k)(int*),
                             int64_t blocks) {
  aicore::AscKernelInfo info{"asc_test_kernel", mode, type, 2201};
  aicore::detail::AscLaunch(k, info, blocks, 0, nullptr)(nullptr);
  return aicore::rt::StreamSynchronize(nullptr);
}

TEST(AscLaunch, KernelTypesSetTheCores) {
  struct Case {
    aicore::KernelMode mode;
    int aic, aiv, sub_num;
  } cases[] = {{aicore::KernelMode::kAiv, 0, 3, 1},
               {aicore::KernelMode::kAic, 3, 0, 0},
               {aicore::KernelMode::kMix, 3, 6, 2},
               {aicore::KernelMode::kMix1To1, 3, 3, 1}};
  for (const Case& c : cases) {
    g_aic = g_aiv = g_sub_num = 0;
    ASSERT_TRUE(LaunchAndSync(c.mode, "test", CountCores, 3).ok());
    EXPECT_EQ(g_aic.load(), c.aic) << aicore::sim::KernelModeName(c.mode);
    EXPECT_EQ(g_aiv.load(), c.aiv) << aicore::sim::KernelModeName(c.mode);
    EXPECT_EQ(g_sub_num.load(), c.sub_num) << aicore::sim::KernelModeName(c.mode);
  }
}

TEST(AscLaunch, WrongCoreTypeNamesTheDeclaredType) {
  const aicore::Status st = LaunchAndSync(aicore::KernelMode::kAic, "__cube__", UbOnAic, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("asc_test_kernel AIC"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("AllocTensor"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("(kernel type: AIC only, from __cube__)"), std::string::npos)
      << st.message();
}

TEST(AscLaunch, BadNumBlocksIsRefusedAtOnce) {
  g_aiv = 0;
  testing::internal::CaptureStderr();
  aicore::AscKernelInfo info{"asc_test_kernel", aicore::KernelMode::kAiv, "__vector__", 2201};
  aicore::detail::AscLaunch(CountCores, info, 70000, 0, nullptr)(nullptr);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(aicore::rt::StreamSynchronize(nullptr).ok());
  EXPECT_EQ(g_aiv.load(), 0);
  EXPECT_NE(err.find("asc_test_kernel<<<>>> launch refused"), std::string::npos) << err;
  EXPECT_NE(err.find("numBlocks 70000 is outside [1, 65535]"), std::string::npos) << err;
}

}  // namespace
