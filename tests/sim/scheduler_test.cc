// The block scheduler: every block runs once with the right identity, blockDim beyond the host's
// cores with SyncAll, errors carry kernel/core/API/line, deadlocks are reported instead of hanging.
#include "aicore/sim/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace aicore::sim {
namespace {

using ::testing::HasSubstr;

Status Launch(const std::string& name, uint32_t blocks, std::function<void()> body,
           KernelMode mode = KernelMode::kAiv, const arch::Chip* chip = nullptr) {
  LaunchSpec spec;
  spec.kernel_name = name;
  spec.block_dim = blocks;
  spec.mode = mode;
  spec.chip = chip;
  spec.body = std::move(body);
  return RunKernel(spec);
}

class SchedulerTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { SetWorkerThreads(GetParam()); }
  void TearDown() override { SetWorkerThreads(0); }
};

TEST_P(SchedulerTest, EveryBlockRunsOnceWithItsIndex) {
  for (uint32_t n : {1u, 2u, 3u, 48u, 1000u}) {
    std::mutex mu;
    std::multiset<int64_t> seen;
    Status st = Launch("ids", n, [&] {
      Core& c = CurrentCore();
      EXPECT_EQ(c.id().block_num, n);
      EXPECT_EQ(c.id().type, CoreType::kAiv);
      EXPECT_TRUE(c.HasBuffer(arch::Buffer::kUb));
      EXPECT_FALSE(c.HasBuffer(arch::Buffer::kL1));
      std::lock_guard<std::mutex> lk(mu);
      seen.insert(c.id().block_idx);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(seen.size(), n);
    for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
  }
}

TEST_P(SchedulerTest, SyncAllSeparatesPhasesAcrossMoreBlocksThanThreads) {
  constexpr int kBlocks = 48;
  std::vector<int> phase1(kBlocks, 0);
  std::atomic<int> violations{0};
  Status st = Launch("syncall", kBlocks, [&] {
    const auto i = CurrentCore().id().block_idx;
    phase1[i] = 1;
    SyncAllCores(true, std::source_location::current());
    for (int v : phase1) violations += v != 1;
    SyncAllCores(true, std::source_location::current());
    phase1[i] = 2;
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(violations.load(), 0);
}

TEST_P(SchedulerTest, ErrorNamesKernelCoreApiAndLine) {
  Status st = Launch("bad_kernel", 8, [&] {
    if (CurrentCore().id().block_idx == 5) {
      KernelFail(StatusCode::kOutOfRange, "DataCopy", std::source_location::current(),
                 "offset 99 is past 64 elements");
    }
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("bad_kernel AIV 5: DataCopy: offset 99 is past 64"));
  EXPECT_THAT(st.message(), HasSubstr("scheduler_test.cc:"));
}

TEST_P(SchedulerTest, DeadlockIsReportedWithEachBlocksWait) {
  // Block 0 skips the SyncAll the others wait in: on hardware this hangs.
  Status st = Launch("deadlock", 6, [&] {
    if (CurrentCore().id().block_idx != 0) SyncAllCores(true, std::source_location::current());
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("deadlock in kernel deadlock: all 5 live blocks wait"));
  EXPECT_THAT(st.message(), HasSubstr("AIV 3: SyncAll at scheduler_test.cc:"));
  EXPECT_THAT(st.message(), HasSubstr("5 of 6 cores arrived"));
}

TEST_P(SchedulerTest, AnErrorWhileOthersWaitReportsTheErrorNotTheDeadlock) {
  Status st = Launch("abort", 16, [&] {
    if (CurrentCore().id().block_idx == 3) {
      KernelFail(StatusCode::kInvalidArgument, "Add", std::source_location::current(), "boom");
    }
    SyncAllCores(true, std::source_location::current());
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("AIV 3: Add: boom"));
}

// Regression: a block that reaches a wait after the launch started aborting (and after the other
// worker left) is cancelled at once; it used to suspend and wait forever for a new epoch.
TEST(SchedulerAbortTest, ABlockWaitingAfterTheAbortIsCancelledNotLeftWaiting) {
  SetWorkerThreads(2);
  for (int round = 0; round < 5; ++round) {
    Status st = Launch("late_wait", 2, [&] {
      if (CurrentCore().id().block_idx == 0) {
        KernelFail(StatusCode::kInvalidArgument, "Add", std::source_location::current(), "boom");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      SyncAllCores(true, std::source_location::current());
    });
    ASSERT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
    EXPECT_THAT(st.message(), HasSubstr("AIV 0: Add: boom"));
  }
  SetWorkerThreads(0);
}

TEST_P(SchedulerTest, BlockUntilWaitsForAnotherBlocksSignal) {
  Status st = Launch("counter", 4, [&] {
    const auto i = CurrentCore().id().block_idx;
    if (i == 0) {
      BlockUntil([](LaunchShared& s) { return s.counters[1] == 3; },
                 [](LaunchShared&) { return std::string("waiting for 3 signals"); });
    } else {
      WithSchedulerLock([](LaunchShared& s) { ++s.counters[1]; });
    }
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_P(SchedulerTest, MixModeMakesGroupsOfOneAicAndTwoAivs) {
  std::mutex mu;
  std::vector<CoreIdentity> ids;
  Status st = Launch("mix", 3, [&] {
    std::lock_guard<std::mutex> lk(mu);
    ids.push_back(CurrentCore().id());
  }, KernelMode::kMix);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(ids.size(), 9u);
  std::set<int64_t> aiv_idx, aic_idx;
  for (const auto& id : ids) {
    if (id.type == CoreType::kAiv) {
      aiv_idx.insert(id.block_idx);
      EXPECT_EQ(id.block_idx, id.group_idx * 2 + id.sub_block_idx);
      EXPECT_EQ(id.sub_block_num, 2);
    } else {
      aic_idx.insert(id.block_idx);
    }
  }
  EXPECT_EQ(aiv_idx, (std::set<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(aic_idx, (std::set<int64_t>{0, 1, 2}));
}

INSTANTIATE_TEST_SUITE_P(Threads, SchedulerTest, ::testing::Values(1, 2, 3));

TEST(SchedulerLimitsTest, RejectsBlockDimOutsideRange) {
  Status zero = Launch("k", 0, [] {});
  EXPECT_EQ(zero.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.message(), HasSubstr("blockDim 0 is outside [1, 65535]"));
  Status big = Launch("k", 65536, [] {});
  EXPECT_THAT(big.message(), HasSubstr("blockDim 65536 is outside [1, 65535]"));
}

TEST(SchedulerLimitsTest, KernelsCannotLaunchKernels) {
  Status inner;
  Status st = Launch("outer", 1, [&] { inner = Launch("inner", 1, [] {}); });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(inner.code(), StatusCode::kFailedPrecondition);
}

TEST(SchedulerLimitsTest, CoupledChipRunsOneCoreTypeWithAllBuffers) {
  arch::Chip chip = arch::LoadChip("ascend310p");
  Status st = Launch("coupled", 2, [&] {
    Core& c = CurrentCore();
    EXPECT_EQ(c.id().type, CoreType::kCoupled);
    EXPECT_TRUE(c.HasBuffer(arch::Buffer::kUb));
    EXPECT_TRUE(c.HasBuffer(arch::Buffer::kL1));
    EXPECT_EQ(c.LocalSize(arch::Buffer::kUb), 262144u);
  }, KernelMode::kAiv, &chip);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

}  // namespace
}  // namespace aicore::sim
