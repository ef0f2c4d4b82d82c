// The GM registry's epochs (Note [GM epochs]): a view pinned before a free sees the block live
// with the extent it had, also after the memory was registered again; a view pinned after the
// free sees it freed; the present is unaffected; superseded history lasts as long as the pins.
#include "aicore/sim/gm_registry.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using aicore::sim::FindGmBlock;
using aicore::sim::GmBlockState;
using aicore::sim::GmEpochPin;
using aicore::sim::GmEpochView;
using aicore::sim::GmViewEpoch;
using aicore::sim::kGmEpochNow;
using aicore::sim::RegisterGmBlock;
using aicore::sim::UnregisterGmBlock;

// Stand-in allocations: the registry only compares addresses.
alignas(64) uint8_t g_arena[8][4096];

TEST(GmRegistryTest, AViewPinnedBeforeAFreeSeesTheBlockLive) {
  uint8_t* p = g_arena[0];
  RegisterGmBlock(p, 1024, "aclrtMalloc");
  const GmEpochPin pin;
  ASSERT_TRUE(UnregisterGmBlock(p));
  EXPECT_EQ(FindGmBlock(p + 10).state, GmBlockState::kFreed);  // the present
  {
    const GmEpochView view(pin.epoch());
    const auto b = FindGmBlock(p + 10);
    EXPECT_EQ(b.state, GmBlockState::kLive);
    EXPECT_EQ(b.base, p);
    EXPECT_EQ(b.bytes, 1024u);
    EXPECT_EQ(FindGmBlock(p + 1024).state, GmBlockState::kUnknown);
  }
  EXPECT_EQ(FindGmBlock(p).state, GmBlockState::kFreed);
}

TEST(GmRegistryTest, AViewPinnedAfterAFreeSeesTheBlockFreed) {
  uint8_t* p = g_arena[1];
  RegisterGmBlock(p, 512, "GmAlloc");
  ASSERT_TRUE(UnregisterGmBlock(p));
  const GmEpochPin pin;
  const GmEpochView view(pin.epoch());
  const auto b = FindGmBlock(p);
  EXPECT_EQ(b.state, GmBlockState::kFreed);
  EXPECT_EQ(b.bytes, 512u);
}

TEST(GmRegistryTest, ReuseAfterThePinKeepsTheExtentThePinSaw) {
  uint8_t* p = g_arena[2];
  RegisterGmBlock(p, 1024, "aclrtMalloc");
  const GmEpochPin pin;
  ASSERT_TRUE(UnregisterGmBlock(p));
  RegisterGmBlock(p, 600, "aclrtMalloc");  // the caching allocator hands the block out again
  EXPECT_EQ(FindGmBlock(p).bytes, 600u);
  {
    const GmEpochView view(pin.epoch());
    const auto b = FindGmBlock(p + 700);
    EXPECT_EQ(b.state, GmBlockState::kLive);
    EXPECT_EQ(b.bytes, 1024u);
  }
  // A view pinned after the reuse sees the new allocation.
  const GmEpochPin later;
  const GmEpochView view(later.epoch());
  EXPECT_EQ(FindGmBlock(p).bytes, 600u);
  EXPECT_EQ(FindGmBlock(p + 700).state, GmBlockState::kUnknown);
  ASSERT_TRUE(UnregisterGmBlock(p));
}

TEST(GmRegistryTest, ReuseOfABlockFreedBeforeThePinIsStillAUseAfterFreeForThePin) {
  uint8_t* p = g_arena[3];
  RegisterGmBlock(p, 256, "aclrtMalloc");
  ASSERT_TRUE(UnregisterGmBlock(p));
  const GmEpochPin pin;
  RegisterGmBlock(p, 256, "aclrtMalloc");
  EXPECT_EQ(FindGmBlock(p).state, GmBlockState::kLive);
  {
    const GmEpochView view(pin.epoch());
    EXPECT_EQ(FindGmBlock(p).state, GmBlockState::kFreed);
  }
  ASSERT_TRUE(UnregisterGmBlock(p));
}

TEST(GmRegistryTest, HistoryLastsAsLongAsThePins) {
  uint8_t* p = g_arena[4];
  RegisterGmBlock(p, 2048, "aclrtMalloc");
  uint64_t epoch;
  {
    const GmEpochPin pin;
    epoch = pin.epoch();
    ASSERT_TRUE(UnregisterGmBlock(p));
    RegisterGmBlock(p, 64, "aclrtMalloc");
    const GmEpochView view(epoch);
    EXPECT_EQ(FindGmBlock(p + 1000).bytes, 2048u);
  }
  // No launch holds the epoch any more: the superseded record is gone, the present answers.
  const GmEpochView view(epoch);
  EXPECT_EQ(FindGmBlock(p + 1000).state, GmBlockState::kUnknown);
  EXPECT_EQ(FindGmBlock(p).bytes, 64u);
  ASSERT_TRUE(UnregisterGmBlock(p));
}

TEST(GmRegistryTest, ForgettingTheRangeDropsItsHistory) {
  uint8_t* p = g_arena[5];
  RegisterGmBlock(p, 1024, "aclrtMalloc");
  const GmEpochPin pin;
  ASSERT_TRUE(UnregisterGmBlock(p));
  RegisterGmBlock(p, 128, "aclrtMalloc");
  ASSERT_TRUE(UnregisterGmBlock(p));
  aicore::sim::ForgetGmRange(p, 4096);  // the segment went back to the host
  const GmEpochView view(pin.epoch());
  EXPECT_EQ(FindGmBlock(p).state, GmBlockState::kUnknown);
  EXPECT_EQ(FindGmBlock(p + 500).state, GmBlockState::kUnknown);
}

TEST(GmRegistryTest, ViewsNestAndRestore) {
  EXPECT_EQ(GmViewEpoch(), kGmEpochNow);
  {
    const GmEpochView outer(7);
    EXPECT_EQ(GmViewEpoch(), 7u);
    {
      const GmEpochView inner(kGmEpochNow);
      EXPECT_EQ(GmViewEpoch(), kGmEpochNow);
    }
    EXPECT_EQ(GmViewEpoch(), 7u);
  }
  EXPECT_EQ(GmViewEpoch(), kGmEpochNow);
}

}  // namespace
