// Deadlock reports and the software SyncAll: each waiting block's line names its call site as
// file:line; SyncAll(gm, ub, usedCores) synchronises only usedCores cores (not a deadlock when
// the other blocks never arrive) and refuses a usedCores above the launch's AIVs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr uint32_t kBlocks = 4;

// Runs `body` on kBlocks AIV blocks with a zeroed GM workspace and a UB workspace for SyncAll.
aicore::Status RunWithWorkspaces(
    const std::function<void(AscendC::GlobalTensor<int32_t>&, AscendC::LocalTensor<int32_t>&)>&
        body) {
  auto* ws = static_cast<int32_t*>(aicore::GmAlloc(2 * kBlocks * 32));  // room for 2x usedCores
  const aicore::Status s = aicore::RunKernel("sync_kernel", kBlocks, aicore::LaunchOptions{}, [&] {
    AscendC::GlobalTensor<int32_t> gm;
    gm.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(ws), 2 * kBlocks * 8);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kBlocks * 32);
    AscendC::LocalTensor<int32_t> ub = buf.Get<int32_t>();
    body(gm, ub);
  });
  aicore::GmFree(ws);
  return s;
}

TEST(SoftwareSyncAll, UsedCoresBelowBlockDimSynchronisesOnlyThoseCores) {
  std::atomic<int> passed{0};
  const aicore::Status s = RunWithWorkspaces([&](auto& gm, auto& ub) {
    if (AscendC::GetBlockIdx() < 2) {
      AscendC::SyncAll(gm, ub, 2);
      ++passed;
    }
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(passed.load(), 2);
}

TEST(SoftwareSyncAll, UsedCoresAboveTheLaunchsAivsIsAnError) {
  const aicore::Status s = RunWithWorkspaces([&](auto& gm, auto& ub) {
    AscendC::SyncAll(gm, ub, static_cast<int32_t>(kBlocks + 1));
  });
  EXPECT_EQ(s.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("SyncAll"), HasSubstr("usedCores 5 is outside [0, 4]"),
                                 HasSubstr("deadlock_messages_test.cc:")));
}

TEST(DeadlockReport, EachWaitNamesItsFileAndLine) {
  const int line = __LINE__ + 3;
  const aicore::Status s = RunWithWorkspaces([&](auto&, auto&) {
    if (AscendC::GetBlockIdx() != 0) {
      AscendC::SyncAll();
    }
  });
  EXPECT_EQ(s.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("deadlock in kernel sync_kernel"),
                    HasSubstr("SyncAll at deadlock_messages_test.cc:" + std::to_string(line)),
                    HasSubstr("3 of 4 cores arrived")));
}

}  // namespace
