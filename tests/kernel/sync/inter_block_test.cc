// IBSet/IBWait: the waiting block sees the setter's GM writes whichever runs first, the flag lands
// in the documented GM slot, a wait nobody satisfies is a deadlock, and bad arguments are errors.
#include "aicore/kernel/sync/inter_block.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

class InterBlockTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { aicore::sim::SetWorkerThreads(GetParam()); }
  void TearDown() override { aicore::sim::SetWorkerThreads(0); }
};

// Block `setter` writes data then IBSet; the other block IBWaits and reads it. With one worker
// and setter = 1, block 0 must really wait (it runs first).
TEST_P(InterBlockTest, WaiterSeesTheSettersWrites) {
  for (int setter : {0, 1}) {
    std::vector<int32_t> sync(2 * 8 * 2, 0);  // 2 blocks x 2 events x 32 B
    std::vector<float> data(8, 0.0f);
    float read = -1.0f;
    auto st = aicore::RunKernel("ib", 2, aicore::LaunchOptions{}, [&] {
      TPipe pipe;
      TQue<TPosition::VECIN, 1> q;
      pipe.InitBuffer(q, 1, 32);
      GlobalTensor<int32_t> gm_sync;
      gm_sync.SetGlobalBuffer(sync.data(), sync.size());
      auto ub = q.AllocTensor<int32_t>();
      if (GetBlockIdx() == setter) {
        data[3] = 42.0f;
        IBSet(gm_sync, ub, 0, 1);
      } else {
        IBWait(gm_sync, ub, 0, 1);
        read = data[3];
      }
      q.FreeTensor(ub);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(read, 42.0f) << "setter " << setter;
    EXPECT_EQ(sync[(1 * 2 + 0) * 8], 1);  // slot eventID * cores + blockIdx
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, InterBlockTest, ::testing::Values(1, 2));

TEST(InterBlockErrors, WaitWithoutSetIsADeadlock) {
  std::vector<int32_t> sync(64, 0);
  auto st = aicore::RunKernel("ib", 2, aicore::LaunchOptions{}, [&] {
    LocalMemAllocator<Hardware::UB> ub;
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(sync.data(), sync.size());
    if (GetBlockIdx() == 1) IBWait(g, ub.Alloc<int32_t>(8), 1, 0);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("IBWait for blockIdx 1 eventID 0"));
}

TEST(InterBlockErrors, WorkspaceTooSmallAndBlockIdxOutOfRange) {
  std::vector<int32_t> sync(16, 0);  // 64 B: slots 0 and 1 only
  auto small = aicore::RunKernel("ib", 2, aicore::LaunchOptions{}, [&] {
    LocalMemAllocator<Hardware::UB> ub;
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(sync.data(), sync.size());
    IBSet(g, ub.Alloc<int32_t>(8), 0, 1);  // slot 2
  });
  EXPECT_THAT(small.message(), HasSubstr("gmWorkspace holds 64 B; flag (blockIdx 0, eventID 1) "
                                         "needs 96 B"));
  auto range = aicore::RunKernel("ib", 2, aicore::LaunchOptions{}, [&] {
    LocalMemAllocator<Hardware::UB> ub;
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(sync.data(), sync.size());
    IBSet(g, ub.Alloc<int32_t>(8), 2, 0);
  });
  EXPECT_THAT(range.message(), HasSubstr("blockIdx must be in [0, 1]"));
}

}  // namespace
