// The watched GM regions (Note [GM copies]): a write over a watched region's lines makes its copy
// stale, a write beside them (before, after, between two lines) does not and leaves the other
// copies alone; launch begin/end, SyncAll and IBWait end every copy, a cross-core flag wait none.
#include "aicore/sim/gm_copies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using aicore::sim::GmRegion;
using aicore::sim::NoteGmWrite;
using aicore::sim::WatchGmRegion;
using aicore::sim::WatchedGmRegions;

alignas(64) uint8_t g_mem[4096];

GmRegion Bytes(uint64_t at, uint64_t bytes) { return {g_mem + at, 1, bytes, 0}; }

TEST(GmCopiesTest, OnlyAWriteOverAWatchedRangeMakesItStale) {
  aicore::sim::InvalidateGmCopies();
  std::atomic<bool> stale{false};
  WatchGmRegion(Bytes(100, 100), &stale);  // [100, 200)
  NoteGmWrite(g_mem + 200, 50);  // just after
  NoteGmWrite(g_mem + 50, 50);   // just before
  NoteGmWrite(g_mem + 150, 0);   // nothing
  EXPECT_FALSE(stale.load());
  NoteGmWrite(g_mem + 199, 1);  // the last watched byte
  EXPECT_TRUE(stale.load());
  // The region is forgotten with its copy.
  EXPECT_EQ(WatchedGmRegions(), 0u);
}

// Three blocks of 4 lines of 16 bytes at a pitch of 64 (the columns [0, 16), [16, 32) and
// [32, 48) of a (4, 64)-byte matrix): each write ends exactly the blocks whose lines it touches.
TEST(GmCopiesTest, AWriteEndsOnlyTheRegionsWhoseLinesItOverlaps) {
  aicore::sim::InvalidateGmCopies();
  std::atomic<bool> stale[3] = {false, false, false};
  for (int i = 0; i < 3; ++i) WatchGmRegion({g_mem + 1000 + 16 * i, 4, 16, 64}, &stale[i]);
  NoteGmWrite(g_mem + 1000 + 48, 16);       // row 0, columns [48, 64): between lines
  NoteGmWrite(g_mem + 1000 + 3 * 64 + 48, 100);  // after the last line of every block
  NoteGmWrite(g_mem + 900, 100);           // before the first
  EXPECT_FALSE(stale[0] || stale[1] || stale[2]);
  EXPECT_EQ(WatchedGmRegions(), 3u);
  NoteGmWrite(g_mem + 1000 + 2 * 64 + 20, 4);  // row 2 of block 1
  EXPECT_FALSE(stale[0]);
  EXPECT_TRUE(stale[1]);
  EXPECT_FALSE(stale[2]);
  NoteGmWrite(g_mem + 1000 + 64 + 60, 8);  // from row 1's gap into row 2's first bytes: block 0
  EXPECT_TRUE(stale[0]);
  EXPECT_FALSE(stale[2]);
  NoteGmWrite(g_mem + 1000 + 40, 200);  // over whole rows
  EXPECT_TRUE(stale[2]);
  EXPECT_EQ(WatchedGmRegions(), 0u);
}

// The same blocks, written by strided writes (a DataCopy of several rows): the lines count, not
// the span from the first to the last.
TEST(GmCopiesTest, AStridedWriteEndsOnlyTheRegionsItsLinesOverlap) {
  aicore::sim::InvalidateGmCopies();
  std::atomic<bool> stale[3] = {false, false, false};
  for (int i = 0; i < 3; ++i) WatchGmRegion({g_mem + 1000 + 16 * i, 4, 16, 64}, &stale[i]);
  NoteGmWrite(GmRegion{g_mem + 1000 + 48, 4, 16, 64});  // columns [48, 64) of every row
  NoteGmWrite(GmRegion{g_mem + 1000 + 40, 4, 8, 0});    // pitch 0: one line, block 2 only
  EXPECT_FALSE(stale[0] || stale[1]);
  EXPECT_TRUE(stale[2]);
  NoteGmWrite(GmRegion{g_mem + 1000 + 3 * 64 + 4, 2, 4, 64});  // row 3 of block 0, then after
  EXPECT_TRUE(stale[0]);
  EXPECT_FALSE(stale[1]);
  NoteGmWrite(GmRegion{g_mem + 1000 - 64 + 20, 2, 4, 64});  // before row 0, then in block 1
  EXPECT_TRUE(stale[1]);
}

TEST(GmCopiesTest, OverlappingRegionsEachGoStale) {
  aicore::sim::InvalidateGmCopies();
  std::atomic<bool> a{false}, b{false}, c{false};
  WatchGmRegion(Bytes(0, 10), &a);
  WatchGmRegion(Bytes(20, 10), &b);
  WatchGmRegion(Bytes(5, 20), &c);  // joins both in the union: [0, 30)
  NoteGmWrite(g_mem + 30, 100);
  NoteGmWrite(g_mem + 1000, 100);
  EXPECT_FALSE(a || b || c);
  NoteGmWrite(g_mem + 12, 1);  // c only
  EXPECT_FALSE(a || b);
  EXPECT_TRUE(c);
  NoteGmWrite(g_mem + 12, 1);  // nothing watches it now
  NoteGmWrite(g_mem + 9, 12);  // a and b
  EXPECT_TRUE(a && b);
}

TEST(GmCopiesTest, LaunchesAndPhaseBarriersEndEveryCopyFlagWaitsNone) {
  aicore::sim::InvalidateGmCopies();
  std::atomic<bool> before{false};
  WatchGmRegion(Bytes(0, 64), &before);
  std::atomic<bool> flag_wait{false}, sync_all{false}, ib_wait{false}, at_end{false};
  bool stale_after_flag = true, stale_after_sync = false, stale_after_ib = false;
  alignas(64) static int32_t ib_gm[64];
  std::fill(ib_gm, ib_gm + 64, 0);  // IBSet leaves its flag set
  aicore::LaunchOptions mix;
  mix.mode = aicore::KernelMode::kMix;
  const aicore::Status st = aicore::RunKernel("gm_copies", 1, mix, [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      WatchGmRegion(Bytes(100, 64), &flag_wait);
      CrossCoreSetFlag<2, PIPE_FIX>(1);
      CrossCoreWaitFlag<2, PIPE_FIX>(2);
      stale_after_flag = flag_wait.load();
      WatchGmRegion(Bytes(200, 64), &sync_all);
    }
    if ASCEND_IS_AIV {
      CrossCoreWaitFlag<2, PIPE_MTE2>(1);
      CrossCoreSetFlag<2, PIPE_MTE2>(2);
    }
    SyncAll<false>();
    if ASCEND_IS_AIC {
      stale_after_sync = sync_all.load();
      WatchGmRegion(Bytes(300, 64), &ib_wait);
      CrossCoreSetFlag<2, PIPE_FIX>(3);  // watched before the IBWait below
    }
    if ASCEND_IS_AIV {
      CrossCoreWaitFlag<2, PIPE_MTE2>(3);
      TPipe pipe;
      TBuf<QuePosition::VECCALC> buf;
      pipe.InitBuffer(buf, 32);
      LocalTensor<int32_t> ub = buf.Get<int32_t>();
      GlobalTensor<int32_t> gm;
      gm.SetGlobalBuffer(ib_gm, 64);
      if (GetBlockIdx() == 0) {
        IBWait<false>(gm, ub, 1, 0);
        stale_after_ib = ib_wait.load();
        WatchGmRegion(Bytes(400, 64), &at_end);
      } else {
        IBSet<false>(gm, ub, 1, 0);
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(before.load());  // launch begin
  EXPECT_FALSE(stale_after_flag);
  EXPECT_TRUE(stale_after_sync);
  EXPECT_TRUE(stale_after_ib);
  EXPECT_TRUE(at_end.load());  // launch end
  EXPECT_EQ(WatchedGmRegions(), 0u);
}

TEST(GmCopiesTest, GlobalTensorScalarStoresAreNoted) {
  aicore::sim::InvalidateGmCopies();
  alignas(64) static float gm[64] = {};
  std::atomic<bool> set_value{false}, ref{false}, spared{false};
  bool spared_in_launch = true;
  const aicore::Status st = aicore::RunKernel("gm_copies_scalar", 1, aicore::LaunchOptions{}, [&] {
    AscendC::GlobalTensor<float> t;
    t.SetGlobalBuffer(gm, 64);
    WatchGmRegion({gm, 1, 16 * sizeof(float), 0}, &set_value);  // elements [0, 16)
    WatchGmRegion({gm + 16, 1, 16 * sizeof(float), 0}, &ref);   // [16, 32)
    WatchGmRegion({gm + 32, 1, 16 * sizeof(float), 0}, &spared);
    t.SetValue(3, 1.0f);
    t(20) = 2.0f;
    (void)t.GetValue(40);  // a load ends nothing
    spared_in_launch = spared.load();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(set_value.load());
  EXPECT_TRUE(ref.load());
  EXPECT_FALSE(spared_in_launch);
  EXPECT_EQ(gm[3], 1.0f);
  EXPECT_EQ(gm[20], 2.0f);
}

int g_hook_runs = 0;
void CountHook() { ++g_hook_runs; }

TEST(GmCopiesTest, LaunchEndHooksRunAfterEveryLaunch) {
  static const bool registered = (aicore::sim::AddLaunchEndHook(CountHook), true);  // once
  (void)registered;
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
