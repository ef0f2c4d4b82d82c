// CrossCoreSetFlag / CrossCoreWaitFlag: the three modes order cores as documented, counters
// saturate with an error, a wait nobody satisfies is a reported deadlock, coupled chips refuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"

namespace {

using ::testing::HasSubstr;
using namespace AscendC;

aicore::Status RunMix(uint32_t groups, std::function<void()> body) {
  aicore::LaunchOptions o;
  o.mode = aicore::KernelMode::kMix;
  return aicore::RunKernel("cross", groups, o, std::move(body));
}

class CrossCoreTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { aicore::sim::SetWorkerThreads(GetParam()); }
  void TearDown() override { aicore::sim::SetWorkerThreads(0); }
};

// Mode 2, AIC -> AIV: each AIV sees what its AIC wrote before the set; AIV -> AIC: the AIC
// proceeds only after both AIVs of its group set.
TEST_P(CrossCoreTest, Mode2PairsTheAicWithItsTwoAivs) {
  constexpr uint32_t kGroups = 5;
  std::vector<int> produced(kGroups, 0);
  std::vector<std::atomic<int>> consumed(kGroups);
  std::vector<int> aic_saw(kGroups, -1);
  auto st = RunMix(kGroups, [&] {
    const int64_t g = GetBlockIdx() / (ASCEND_IS_AIC ? 1 : 2);
    if (ASCEND_IS_AIC) {
      produced[g] = 100 + static_cast<int>(g);
      CrossCoreSetFlag<2, PIPE_FIX>(3);
      CrossCoreWaitFlag<2, PIPE_S>(4);
      aic_saw[g] = consumed[g].load();
    } else {
      CrossCoreWaitFlag(3);  // the older untemplated spelling
      EXPECT_EQ(produced[g], 100 + g);
      consumed[g].fetch_add(1);
      CrossCoreSetFlag<2, PIPE_MTE3>(4);
    }
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t g = 0; g < kGroups; ++g) EXPECT_EQ(aic_saw[g], 2) << "group " << g;
}

// Mode 0 among AIVs: nobody passes the wait until every AIV has set the flag.
TEST_P(CrossCoreTest, Mode0IsABarrierAmongCoresOfOneType) {
  constexpr uint32_t kBlocks = 12;
  std::atomic<int> arrived{0};
  std::vector<int> seen(kBlocks, -1);
  auto st = aicore::RunKernel("mode0", kBlocks, {}, [&] {
    arrived.fetch_add(1);
    CrossCoreSetFlag<0, PIPE_MTE3>(1);
    CrossCoreWaitFlag<0, PIPE_MTE3>(1);
    seen[GetBlockIdx()] = arrived.load();
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t b = 0; b < kBlocks; ++b) EXPECT_EQ(seen[b], static_cast<int>(kBlocks)) << b;
}

// Mode 1: the two AIVs of one AI Core wait for each other, not for other groups.
TEST_P(CrossCoreTest, Mode1SynchronisesTheAivsOfOneGroup) {
  constexpr uint32_t kGroups = 4;
  std::vector<std::atomic<int>> arrived(kGroups);
  std::vector<int> seen(2 * kGroups, -1);
  auto st = RunMix(kGroups, [&] {
    if (ASCEND_IS_AIC) return;
    const int64_t g = GetBlockIdx() / 2;
    arrived[g].fetch_add(1);
    CrossCoreSetFlag<1, PIPE_MTE3>(2);
    CrossCoreWaitFlag<1, PIPE_MTE3>(2);
    seen[GetBlockIdx()] = arrived[g].load();
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t b = 0; b < 2 * kGroups; ++b) EXPECT_EQ(seen[b], 2) << "AIV " << b;
}

// One increment takes one set of every participant (Note [Cross-core flags]): two mode-2 sets of
// one AIV do not release the AIC while its partner has set nothing, and the AIC's second wait
// needs the partner's second set.
TEST_P(CrossCoreTest, Mode2CountsTheSetsOfEachAiv) {
  auto lone = RunMix(1, [&] {
    if (ASCEND_IS_AIC) CrossCoreWaitFlag<2, PIPE_S>(4);
    if (ASCEND_IS_AIV && GetSubBlockIdx() == 0) {
      CrossCoreSetFlag<2, PIPE_MTE3>(4);
      CrossCoreSetFlag<2, PIPE_MTE3>(4);
    }
  });
  EXPECT_EQ(lone.code(), aicore::StatusCode::kDeadlock) << lone.message();
  EXPECT_THAT(lone.message(), HasSubstr("CrossCoreWaitFlag(4)"));

  std::atomic<int> passed{0};
  auto uneven = RunMix(1, [&] {
    if (ASCEND_IS_AIC) {
      CrossCoreWaitFlag<2, PIPE_S>(4);
      passed.fetch_add(1);
      CrossCoreWaitFlag<2, PIPE_S>(4);  // AIV 1 set once: this wait is never satisfied
      passed.fetch_add(1);
      return;
    }
    CrossCoreSetFlag<2, PIPE_MTE3>(4);
    if (GetSubBlockIdx() == 0) CrossCoreSetFlag<2, PIPE_MTE3>(4);
  });
  EXPECT_EQ(uneven.code(), aicore::StatusCode::kDeadlock) << uneven.message();
  EXPECT_EQ(passed.load(), 1);

  auto even = RunMix(2, [&] {
    if (ASCEND_IS_AIC) {
      for (int i = 0; i < 3; ++i) CrossCoreWaitFlag<2, PIPE_S>(4);
      return;
    }
    for (int i = 0; i < 3; ++i) CrossCoreSetFlag<2, PIPE_MTE3>(4);
  });
  EXPECT_TRUE(even.ok()) << even.message();
}

// The same per-core counting in mode 1: two sets of one AIV do not pass its own wait.
TEST_P(CrossCoreTest, Mode1CountsTheSetsOfEachAiv) {
  auto st = RunMix(1, [&] {
    if (ASCEND_IS_AIC || GetSubBlockIdx() != 0) return;
    CrossCoreSetFlag<1, PIPE_MTE3>(2);
    CrossCoreSetFlag<1, PIPE_MTE3>(2);
    CrossCoreWaitFlag<1, PIPE_MTE3>(2);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock) << st.message();
}

TEST_P(CrossCoreTest, AWaitNoCoreSatisfiesIsAReportedDeadlock) {
  auto st = RunMix(2, [&] {
    if (ASCEND_IS_AIC) CrossCoreWaitFlag<2, PIPE_S>(5);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("CrossCoreWaitFlag(5)"));
  EXPECT_THAT(st.message(), HasSubstr("AIC 1"));
}

TEST_P(CrossCoreTest, SixteenUnconsumedSetsAreAnError) {
  auto st = RunMix(1, [&] {
    if (ASCEND_IS_AIC) {
      for (int i = 0; i < 16; ++i) CrossCoreSetFlag<2, PIPE_FIX>(0);
    }
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
  EXPECT_THAT(st.message(), HasSubstr("already holds 15 unconsumed sets"));
  EXPECT_THAT(st.message(), HasSubstr("CrossCoreSetFlag"));
}

TEST_P(CrossCoreTest, BadArgumentsAreNamed) {
  auto flag = RunMix(1, [&] { CrossCoreSetFlag<2, PIPE_FIX>(16); });
  EXPECT_EQ(flag.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(flag.message(), HasSubstr("flagId 16 is outside [0, 15]"));

  auto mode2_aiv_only = aicore::RunKernel("aiv_only", 2, {}, [&] {
    CrossCoreSetFlag<2, PIPE_MTE3>(1);
  });
  EXPECT_EQ(mode2_aiv_only.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(mode2_aiv_only.message(), HasSubstr("KernelMode::kMix"));

  auto mode1_aic = RunMix(1, [&] {
    if (ASCEND_IS_AIC) CrossCoreSetFlag<1, PIPE_FIX>(1);
  });
  EXPECT_THAT(mode1_aic.message(), HasSubstr("called on an AIC"));

  static const aicore::arch::Chip coupled = aicore::arch::LoadChip("ascend310p");
  aicore::LaunchOptions o;
  o.chip = &coupled;
  auto st = aicore::RunKernel("coupled", 1, o, [&] { CrossCoreSetFlag<0, PIPE_MTE3>(1); });
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("not a split chip"));
}

INSTANTIATE_TEST_SUITE_P(Threads, CrossCoreTest, ::testing::Values(1, 2, 3));

}  // namespace
