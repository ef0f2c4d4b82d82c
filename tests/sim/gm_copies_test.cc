// The GM copies' generation (Note [GM copies]): a write over a watched range advances it, a write
// beside one does not; watched ranges merge; launch begin/end, SyncAll and cross-core waits
// advance it.
#include "aicore/sim/gm_copies.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using aicore::sim::GmCopyGeneration;
using aicore::sim::NoteGmWrite;
using aicore::sim::WatchGmRange;

alignas(64) uint8_t g_mem[4096];

TEST(GmCopiesTest, OnlyAWriteOverAWatchedRangeAdvancesTheGeneration) {
  aicore::sim::InvalidateGmCopies();
  const uint64_t g = WatchGmRange(g_mem + 100, 100);  // [100, 200)
  EXPECT_EQ(g, GmCopyGeneration());
  NoteGmWrite(g_mem + 200, 50);  // just after
  NoteGmWrite(g_mem + 50, 50);   // just before
  NoteGmWrite(g_mem + 300, 0);
  EXPECT_EQ(GmCopyGeneration(), g);
  NoteGmWrite(g_mem + 199, 1);  // the last watched byte
  EXPECT_GT(GmCopyGeneration(), g);
  // The range is forgotten with its generation.
  const uint64_t g2 = GmCopyGeneration();
  NoteGmWrite(g_mem + 150, 10);
  EXPECT_EQ(GmCopyGeneration(), g2);
}

TEST(GmCopiesTest, WatchedRangesMerge) {
  aicore::sim::InvalidateGmCopies();
  WatchGmRange(g_mem + 0, 10);
  WatchGmRange(g_mem + 20, 10);
  const uint64_t g = WatchGmRange(g_mem + 10, 10);  // joins both: [0, 30)
  NoteGmWrite(g_mem + 30, 100);
  NoteGmWrite(g_mem + 1000, 100);
  EXPECT_EQ(GmCopyGeneration(), g);
  NoteGmWrite(g_mem + 15, 1);
  EXPECT_GT(GmCopyGeneration(), g);
}

TEST(GmCopiesTest, LaunchesAndSynchronisationAdvanceTheGeneration) {
  const uint64_t before = GmCopyGeneration();
  uint64_t in_launch = 0, after_sync = 0;
  const aicore::Status st = aicore::RunKernel("gm_copies", 2, aicore::LaunchOptions{}, [&] {
    if (AscendC::GetBlockIdx() == 0) in_launch = GmCopyGeneration();
    AscendC::SyncAll();
    if (AscendC::GetBlockIdx() == 0) after_sync = GmCopyGeneration();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT(in_launch, before);       // launch begin
  EXPECT_GT(after_sync, in_launch);   // SyncAll
  EXPECT_GT(GmCopyGeneration(), after_sync);  // launch end
}

int g_hook_runs = 0;
void CountHook() { ++g_hook_runs; }

TEST(GmCopiesTest, LaunchEndHooksRunAfterEveryLaunch) {
  aicore::sim::AddLaunchEndHook(CountHook);
  const int before = g_hook_runs;
  ASSERT_TRUE(aicore::RunKernel("gm_copies_hook", 3, aicore::LaunchOptions{}, [] {}).ok());
  EXPECT_EQ(g_hook_runs, before + 1);
  const aicore::Status failed =
      aicore::RunKernel("gm_copies_hook", 1, aicore::LaunchOptions{}, [] {
        AscendC::detail::Fail(aicore::StatusCode::kInternal, "Test", AscendC::detail::SrcLoc::current(),
                              "deliberate");
      });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(g_hook_runs, before + 2);
}

}  // namespace
