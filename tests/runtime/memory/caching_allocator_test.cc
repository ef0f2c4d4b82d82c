// Tests of the caching allocator's rules: size classes and pools, best fit, split and merge, the
// oversize rules, deferred frees across streams, each rung of the out-of-memory ladder, stats and
// expandable segments. Every test ends with CheckInvariants.
#include "aicore/runtime/memory/caching_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace aicore::memory {
namespace {

using ::testing::HasSubstr;

constexpr size_t kKiB = size_t{1} << 10;
constexpr size_t kMiB = size_t{1} << 20;

AllocatorConfig Config(const std::string& text) {
  AllocatorConfig c;
  Status s = ParseAllocatorConfig(text, &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

int64_t Cur(const StatArray& a, int type = kAggregate) { return a[type].current; }

#define EXPECT_INVARIANTS(alloc)                     \
  do {                                               \
    Status status_ = (alloc).CheckInvariants();      \
    EXPECT_TRUE(status_.ok()) << status_.ToString(); \
  } while (0)

// ---- size classes ------------------------------------------------------------------------------

struct SizeCase {
  size_t request;
  size_t block;     // BlockSize after Malloc
  bool small;       // pool
  size_t reserved;  // segment size
};

TEST(CachingAllocatorTest, BlockSizeAndPoolPerRequestSize) {
  const SizeCase cases[] = {
      {1, 512, true, 2 * kMiB},
      {511, 512, true, 2 * kMiB},
      {512, 512, true, 2 * kMiB},
      {513, 1024, true, 2 * kMiB},
      {100 * kKiB + 1, 100 * kKiB + 512, true, 2 * kMiB},
      {kMiB, kMiB, true, 2 * kMiB},
      {kMiB + 1, kMiB + 512, false, 20 * kMiB},
      {5 * kMiB, 5 * kMiB, false, 20 * kMiB},
      {10 * kMiB - 512, 10 * kMiB - 512, false, 20 * kMiB},
      {10 * kMiB, 10 * kMiB, false, 10 * kMiB},
      // 12 MiB segment, 1 MiB - 512 left over: not > 1 MiB, so the block is not split.
      {11 * kMiB + 1, 12 * kMiB, false, 12 * kMiB},
      // 14 MiB segment, exactly 1 MiB left: still not split.
      {13 * kMiB, 14 * kMiB, false, 14 * kMiB},
      // 14 MiB segment, 2 MiB - 512 left: split.
      {12 * kMiB + 1, 12 * kMiB + 512, false, 14 * kMiB},
      {19 * kMiB + 1, 20 * kMiB, false, 20 * kMiB},
      {100 * kMiB + 3, 100 * kMiB + 512, false, 102 * kMiB},
  };
  for (const SizeCase& c : cases) {
    SCOPED_TRACE(c.request);
    CachingAllocator alloc(0, 1024 * kMiB);
    void* p = alloc.Malloc(c.request);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
    std::memset(p, 0xab, c.request);  // the whole request is usable
    EXPECT_EQ(alloc.BlockSize(p), c.block);
    DeviceStats s = alloc.GetStats();
    EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(c.reserved));
    EXPECT_EQ(Cur(s.reserved_bytes, c.small ? kSmallPool : kLargePool),
              static_cast<int64_t>(c.reserved));
    EXPECT_EQ(Cur(s.segment, c.small ? kSmallPool : kLargePool), 1);
    EXPECT_EQ(Cur(s.requested_bytes), static_cast<int64_t>(c.request));
    EXPECT_INVARIANTS(alloc);
    alloc.Free(p);
    EXPECT_INVARIANTS(alloc);
  }
}

TEST(CachingAllocatorTest, ZeroSizeReturnsNullAndNullFreeIsIgnored) {
  CachingAllocator alloc(0, 64 * kMiB);
  EXPECT_EQ(alloc.Malloc(0), nullptr);
  alloc.Free(nullptr);
  EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), 0);
}

TEST(CachingAllocatorTest, RoundSizeWithPowerOfTwoDivisions) {
  AllocatorConfig plain;
  EXPECT_EQ(RoundSize(1, plain), 512u);
  EXPECT_EQ(RoundSize(3000, plain), 3072u);
  EXPECT_EQ(RoundSize(kMiB + 1, plain), kMiB + 512);
  AllocatorConfig four = Config("roundup_power2_divisions:4");
  EXPECT_EQ(RoundSize(kMiB + 1, four), kMiB + 256 * kKiB);
  EXPECT_EQ(RoundSize(5 * kMiB, four), 5 * kMiB);
  EXPECT_EQ(RoundSize(5 * kMiB + 1, four), 6 * kMiB);
  EXPECT_EQ(RoundSize(64 * kMiB, four), 64 * kMiB);
  EXPECT_EQ(RoundSize(65 * kMiB, four), 80 * kMiB);
  EXPECT_EQ(RoundSize(1500, four), 1536u);  // not above 512 * 4: plain rounding
  EXPECT_EQ(RoundSize(3000, four), 3072u);
  AllocatorConfig list = Config("roundup_power2_divisions:[2:1,4:2,>:8]");
  EXPECT_EQ(RoundSize(kMiB + 1, list), kMiB + 512);  // interval 1 MiB: 1 division
  EXPECT_EQ(RoundSize(5 * kMiB, list), 6 * kMiB);    // interval 4 MiB: 2 divisions
  EXPECT_EQ(RoundSize(9 * kMiB, list), 9 * kMiB);    // interval 8 MiB: 8 divisions
  EXPECT_EQ(RoundSize(9 * kMiB + 1, list), 10 * kMiB);
}

TEST(CachingAllocatorTest, SegmentSizes) {
  EXPECT_EQ(SegmentSizeFor(512), 2 * kMiB);
  EXPECT_EQ(SegmentSizeFor(kMiB), 2 * kMiB);
  EXPECT_EQ(SegmentSizeFor(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(SegmentSizeFor(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(SegmentSizeFor(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(SegmentSizeFor(10 * kMiB + 512), 12 * kMiB);
}

// ---- split, merge, best fit ------------------------------------------------------------------

TEST(CachingAllocatorTest, SmallBlocksAreCarvedContiguouslyAndMergeBack) {
  CachingAllocator alloc(0, 64 * kMiB);
  char* a = static_cast<char*>(alloc.Malloc(1000));
  char* b = static_cast<char*>(alloc.Malloc(1000));
  char* c = static_cast<char*>(alloc.Malloc(1000));
  EXPECT_EQ(b, a + 1024);
  EXPECT_EQ(c, b + 1024);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(Cur(s.segment), 1);
  EXPECT_EQ(Cur(s.inactive_split), 1);  // the rest of the 2 MiB segment
  EXPECT_EQ(Cur(s.inactive_split_bytes), static_cast<int64_t>(2 * kMiB - 3 * 1024));

  alloc.Free(b);  // between two live blocks: a new inactive split block
  s = alloc.GetStats();
  EXPECT_EQ(Cur(s.inactive_split), 2);
  EXPECT_EQ(Cur(s.inactive_split_bytes), static_cast<int64_t>(2 * kMiB - 2 * 1024));
  EXPECT_INVARIANTS(alloc);

  alloc.Free(a);  // merges with b
  s = alloc.GetStats();
  EXPECT_EQ(Cur(s.inactive_split), 2);
  EXPECT_EQ(Cur(s.inactive_split_bytes), static_cast<int64_t>(2 * kMiB - 1024));
  EXPECT_INVARIANTS(alloc);

  alloc.Free(c);  // merges a+b, c and the rest: one unsplit segment again
  s = alloc.GetStats();
  EXPECT_EQ(Cur(s.inactive_split), 0);
  EXPECT_EQ(Cur(s.inactive_split_bytes), 0);
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(2 * kMiB));
  EXPECT_INVARIANTS(alloc);

  // The whole segment is one block now: a 1 MiB request gets its start.
  void* big = alloc.Malloc(kMiB);
  EXPECT_EQ(big, a);
  alloc.Free(big);
}

TEST(CachingAllocatorTest, BestFitPicksTheSmallestCachedBlock) {
  CachingAllocator alloc(0, 64 * kMiB);
  void* a = alloc.Malloc(8 * kKiB);
  void* sep1 = alloc.Malloc(512);
  void* b = alloc.Malloc(4 * kKiB);
  void* sep2 = alloc.Malloc(512);
  alloc.Free(a);
  alloc.Free(b);
  // Free blocks: 8 KiB (a), 4 KiB (b), and the tail of the segment.
  EXPECT_EQ(alloc.Malloc(3 * kKiB), b);
  EXPECT_EQ(alloc.Malloc(6 * kKiB), a);
  EXPECT_EQ(alloc.GetStats().num_device_alloc, 1);
  EXPECT_INVARIANTS(alloc);
  alloc.Free(sep1);
  alloc.Free(sep2);
}

TEST(CachingAllocatorTest, LargePoolSplitsOnlyWhenMoreThanOneMiBRemains) {
  CachingAllocator alloc(0, 256 * kMiB);
  char* a = static_cast<char*>(alloc.Malloc(9 * kMiB));  // 20 MiB segment, 11 MiB rest
  EXPECT_EQ(alloc.BlockSize(a), 9 * kMiB);
  char* b = static_cast<char*>(alloc.Malloc(10 * kMiB, 0));
  // The 11 MiB rest is the best fit for 10 MiB but would leave exactly 1 MiB: not split. A 10 MiB
  // request would normally get its own segment, but the cache serves it first.
  EXPECT_EQ(b, a + 9 * kMiB);
  EXPECT_EQ(alloc.BlockSize(b), 11 * kMiB);
  EXPECT_EQ(alloc.GetStats().num_device_alloc, 1);
  EXPECT_INVARIANTS(alloc);
  alloc.Free(a);
  alloc.Free(b);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, BlocksAreNotSharedAcrossStreams) {
  CachingAllocator alloc(0, 64 * kMiB);
  void* a = alloc.Malloc(1000, /*stream=*/0);
  void* b = alloc.Malloc(1000, /*stream=*/7);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(Cur(s.segment), 2);  // one small segment per stream
  alloc.Free(a);
  // Stream 7 does not take stream 0's cached block.
  void* c = alloc.Malloc(1000, 7);
  EXPECT_NE(c, a);
  EXPECT_EQ(alloc.GetStats().num_device_alloc, 2);
  alloc.Free(b);
  alloc.Free(c);
  EXPECT_INVARIANTS(alloc);
}

// ---- max_split_size and oversize rules ---------------------------------------------------------

TEST(CachingAllocatorTest, OversizeBlocksAreNeitherSplitNorGivenToSmallerRequests) {
  CachingAllocator alloc(0, 1024 * kMiB, Config("max_split_size_mb:40"));
  void* big = alloc.Malloc(50 * kMiB);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.oversize_allocations.current, 1);
  EXPECT_EQ(s.oversize_segments.current, 1);
  EXPECT_EQ(s.max_split_size, static_cast<int64_t>(40 * kMiB));
  alloc.Free(big);
  EXPECT_EQ(alloc.GetStats().oversize_allocations.current, 0);
  // 45 MiB >= max_split and 50 < 45 + 20: takes the cached block whole.
  void* p = alloc.Malloc(45 * kMiB);
  EXPECT_EQ(p, big);
  EXPECT_EQ(alloc.BlockSize(p), 50 * kMiB);
  alloc.Free(p);
  // 30 MiB < max_split: never takes an oversize block.
  void* q = alloc.Malloc(30 * kMiB);
  EXPECT_NE(q, big);
  EXPECT_EQ(alloc.GetStats().num_device_alloc, 2);
  alloc.Free(q);
  // 41 MiB >= max_split and 50 < 41 + 20: reused too.
  void* r = alloc.Malloc(41 * kMiB);
  EXPECT_EQ(r, big);
  alloc.Free(r);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, OversizeRequestSkipsMuchLargerCachedBlocks) {
  CachingAllocator alloc(0, 1024 * kMiB, Config("max_split_size_mb:40"));
  void* big = alloc.Malloc(100 * kMiB);
  alloc.Free(big);
  void* p = alloc.Malloc(50 * kMiB);  // 100 >= 50 + 20: needs a new segment
  EXPECT_NE(p, big);
  EXPECT_EQ(alloc.BlockSize(p), 50 * kMiB);
  alloc.Free(p);
  AllocatorConfig wide = Config("max_split_size_mb:40,max_non_split_rounding_mb:60");
  CachingAllocator alloc2(0, 1024 * kMiB, wide);
  void* big2 = alloc2.Malloc(100 * kMiB);
  alloc2.Free(big2);
  EXPECT_EQ(alloc2.Malloc(50 * kMiB), big2);  // 100 < 50 + 60
  EXPECT_INVARIANTS(alloc);
  EXPECT_INVARIANTS(alloc2);
}

// ---- deferred frees across streams -------------------------------------------------------------

TEST(CachingAllocatorTest, FreeWaitsForRecordedStreams) {
  CachingAllocator alloc(0, 64 * kMiB);
  StreamSequenceTracker streams;
  alloc.SetCompletionSource(&streams);
  void* p = alloc.Malloc(4 * kMiB, /*stream=*/0);
  alloc.RecordStream(p, 1);
  const uint64_t task = streams.Submit(1);  // work on stream 1 still reads p
  alloc.Free(p);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(Cur(s.allocated_bytes), 0);
  EXPECT_EQ(Cur(s.active_bytes), static_cast<int64_t>(4 * kMiB));
  MemorySnapshot snap = alloc.Snapshot();
  ASSERT_EQ(snap.segments.size(), 1u);
  EXPECT_STREQ(snap.segments[0].blocks[0].state, "active_pending_free");
  EXPECT_INVARIANTS(alloc);

  // While the stream runs, the block is not reused.
  void* q = alloc.Malloc(4 * kMiB, 0);
  EXPECT_NE(q, p);
  alloc.Free(q);

  streams.Retire(1, task);
  void* r = alloc.Malloc(512, 0);  // polls the markers; p goes back to the cache
  s = alloc.GetStats();
  EXPECT_EQ(Cur(s.active_bytes), 512);
  alloc.Free(r);
  void* again = alloc.Malloc(4 * kMiB, 0);
  EXPECT_EQ(again, p);
  alloc.Free(again);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, RecordingTheAllocationStreamIsANoOp) {
  CachingAllocator alloc(0, 64 * kMiB);
  StreamSequenceTracker streams;
  alloc.SetCompletionSource(&streams);
  void* p = alloc.Malloc(4 * kMiB, 3);
  streams.Submit(3);
  alloc.RecordStream(p, 3);
  alloc.Free(p);
  EXPECT_EQ(Cur(alloc.GetStats().active_bytes), 0);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, WithoutCompletionSourceFreesAreImmediate) {
  CachingAllocator alloc(0, 64 * kMiB);
  void* p = alloc.Malloc(4 * kMiB, 0);
  alloc.RecordStream(p, 1);
  alloc.Free(p);
  EXPECT_EQ(Cur(alloc.GetStats().active_bytes), 0);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, EmptyCacheWaitsForPendingFrees) {
  CachingAllocator alloc(0, 64 * kMiB);
  StreamSequenceTracker streams;
  alloc.SetCompletionSource(&streams);
  void* p = alloc.Malloc(4 * kMiB, 0);
  alloc.RecordStream(p, 1);
  alloc.RecordStream(p, 2);
  const uint64_t t1 = streams.Submit(1);
  const uint64_t t2 = streams.Submit(2);
  alloc.Free(p);
  std::thread worker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    streams.Retire(1, t1);
    streams.Retire(2, t2);
  });
  alloc.EmptyCache();
  worker.join();
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(Cur(s.reserved_bytes), 0);
  EXPECT_EQ(Cur(s.active_bytes), 0);
  EXPECT_EQ(s.num_sync_all_streams, 1);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, PendingBlockDoesNotMergeUntilComplete) {
  CachingAllocator alloc(0, 64 * kMiB);
  StreamSequenceTracker streams;
  alloc.SetCompletionSource(&streams);
  void* a = alloc.Malloc(1024, 0);
  void* b = alloc.Malloc(1024, 0);
  alloc.RecordStream(a, 5);
  const uint64_t t = streams.Submit(5);
  alloc.Free(a);
  alloc.Free(b);  // b merges with the tail but not with the pending a
  EXPECT_EQ(Cur(alloc.GetStats().inactive_split), 1);
  EXPECT_INVARIANTS(alloc);
  streams.Retire(5, t);
  alloc.EmptyCache();
  EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), 0);
  EXPECT_INVARIANTS(alloc);
}

// ---- the out-of-memory ladder ------------------------------------------------------------------

TEST(CachingAllocatorTest, LadderCacheHitNeedsNoDeviceAllocation) {
  CachingAllocator alloc(0, 64 * kMiB);
  void* p = alloc.Malloc(30 * kMiB);
  alloc.Free(p);
  EXPECT_EQ(alloc.Malloc(30 * kMiB), p);
  EXPECT_EQ(alloc.GetStats().num_device_alloc, 1);
}

TEST(CachingAllocatorTest, LadderFreeMemoryCallbackRunsBeforeGrowing) {
  CachingAllocator alloc(0, 40 * kMiB);
  void* held = alloc.Malloc(30 * kMiB);
  int calls = 0;
  alloc.AddFreeMemoryCallback([&] {
    ++calls;
    if (held == nullptr) return false;
    alloc.Free(held);  // the lock is recursive: callbacks may free
    held = nullptr;
    return true;
  });
  void* p = alloc.Malloc(30 * kMiB);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(alloc.GetStats().num_device_alloc, 1);
  alloc.Free(p);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, LadderGarbageCollectionFreesOldCachedBlocks) {
  CachingAllocator alloc(0, 100 * kMiB, Config("garbage_collection_threshold:0.5"));
  void* a = alloc.Malloc(30 * kMiB);
  void* b = alloc.Malloc(30 * kMiB);
  alloc.Free(a);
  alloc.Free(b);
  EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), static_cast<int64_t>(60 * kMiB));
  // Another stream misses the cache; reserved (60) exceeds 0.5 x 100 MiB, so GC frees the aged
  // blocks before the new segment is made, without a retry.
  void* c = alloc.Malloc(12 * kMiB, 1);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.num_device_free, 2);
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(12 * kMiB));
  EXPECT_EQ(s.num_alloc_retries, 0);
  alloc.Free(c);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, LadderGarbageCollectionFreesOlderBlocksFirst) {
  CachingAllocator alloc(0, 100 * kMiB, Config("garbage_collection_threshold:0.5"));
  void* a = alloc.Malloc(30 * kMiB);
  void* b = alloc.Malloc(12 * kMiB);
  void* c = alloc.Malloc(2 * kMiB);  // keeps a split 20 MiB segment alive
  alloc.Free(a);                     // cached early: it ages with every large-pool search
  for (int i = 0; i < 10; ++i) alloc.Free(alloc.Malloc(2 * kMiB));
  alloc.Free(b);                         // cached late: young
  void* d = alloc.Malloc(14 * kMiB, 1);  // miss; 62 MiB reserved > 50 MiB: GC frees a only
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.num_device_free, 1);
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>((12 + 20 + 14) * kMiB));
  EXPECT_EQ(alloc.Malloc(12 * kMiB), b);  // the young block is still cached
  alloc.Free(b);
  alloc.Free(c);
  alloc.Free(d);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, LadderGarbageCollectionIdleBelowThreshold) {
  CachingAllocator alloc(0, 100 * kMiB, Config("garbage_collection_threshold:0.8"));
  void* a = alloc.Malloc(30 * kMiB);
  alloc.Free(a);
  void* c = alloc.Malloc(12 * kMiB, 1);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.num_device_free, 0);
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(42 * kMiB));
  alloc.Free(c);
}

TEST(CachingAllocatorTest, LadderGarbageCollectionUsesTheMemoryFraction) {
  CachingAllocator alloc(0, 200 * kMiB, Config("garbage_collection_threshold:0.5"));
  alloc.SetMemoryFraction(0.5);  // allowed 100 MiB, GC above 50 MiB
  void* a = alloc.Malloc(30 * kMiB);
  void* b = alloc.Malloc(30 * kMiB);
  alloc.Free(a);
  alloc.Free(b);
  void* c = alloc.Malloc(12 * kMiB, 1);
  EXPECT_EQ(alloc.GetStats().num_device_free, 2);
  alloc.Free(c);
}

TEST(CachingAllocatorTest, LadderReleasesCachedOversizeBlocksFirst) {
  CachingAllocator alloc(0, 64 * kMiB, Config("max_split_size_mb:24"));
  void* a = alloc.Malloc(30 * kMiB);
  void* b = alloc.Malloc(26 * kMiB);
  alloc.Free(a);
  alloc.Free(b);
  // 40 MiB does not fit next to the 56 MiB cached; both oversize blocks (largest first) are freed
  // and the allocation succeeds without the full-cache retry.
  void* c = alloc.Malloc(40 * kMiB);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.num_device_free, 2);
  EXPECT_EQ(s.num_alloc_retries, 0);
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(40 * kMiB));
  alloc.Free(c);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, LadderReleasesAllUnsplitCachedBlocksAndRetries) {
  CachingAllocator alloc(0, 64 * kMiB);
  void* a = alloc.Malloc(40 * kMiB, 0);
  alloc.Free(a);
  void* b = alloc.Malloc(30 * kMiB, 1);  // other stream: cache miss, 40 + 30 > 64
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.num_alloc_retries, 1);
  EXPECT_EQ(s.num_device_free, 1);
  EXPECT_EQ(s.num_ooms, 0);
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(30 * kMiB));
  alloc.Free(b);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, LadderEndsInOutOfMemoryWithPyTorchFields) {
  CachingAllocator alloc(3, 64 * kMiB);
  void* small = alloc.Malloc(2 * kMiB);  // a 20 MiB segment, split: cannot be released
  try {
    alloc.Malloc(50 * kMiB);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kResourceExhausted);
    const std::string msg = e.what();
    EXPECT_THAT(msg, HasSubstr("Tried to allocate 50.00 MiB"));
    EXPECT_THAT(msg, HasSubstr("Device 3 has a total capacity of 64.00 MiB"));
    EXPECT_THAT(msg, HasSubstr("of which 44.00 MiB is free"));
    EXPECT_THAT(msg, HasSubstr("2.00 MiB is allocated by the caching allocator"));
    EXPECT_THAT(msg, HasSubstr("18.00 MiB is reserved by the caching allocator but unallocated"));
    EXPECT_THAT(msg, HasSubstr("expandable_segments:True"));
  }
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(s.num_alloc_retries, 1);
  // The allocator still works after an OOM.
  void* p = alloc.Malloc(40 * kMiB);
  alloc.Free(p);
  alloc.Free(small);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, OutOfMemoryMentionsTheFractionLimit) {
  CachingAllocator alloc(0, 64 * kMiB);
  alloc.SetMemoryFraction(0.25);
  EXPECT_THROW(alloc.Malloc(20 * kMiB), OutOfMemoryError);
  try {
    alloc.Malloc(20 * kMiB);
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("memory fraction 0.25"));
  }
  void* p = alloc.Malloc(12 * kMiB);  // 12 MiB segment fits in 16 MiB
  alloc.Free(p);
  EXPECT_THROW(alloc.SetMemoryFraction(1.5), Error);
  EXPECT_THROW(alloc.SetMemoryFraction(0), Error);
}

TEST(CachingAllocatorTest, HugeRequestIsOutOfMemory) {
  CachingAllocator alloc(0, 64 * kMiB);
  EXPECT_THROW(alloc.Malloc(~size_t{0}), OutOfMemoryError);
  EXPECT_THROW(alloc.Malloc(size_t{1} << 40), OutOfMemoryError);
  EXPECT_EQ(alloc.GetStats().num_ooms, 2);
}

TEST(CachingAllocatorTest, CapacityCanGrowAfterOutOfMemory) {
  CachingAllocator alloc(0, 16 * kMiB);
  EXPECT_THROW(alloc.Malloc(20 * kMiB), OutOfMemoryError);
  alloc.SetCapacity(32 * kMiB);
  void* p = alloc.Malloc(20 * kMiB);
  alloc.Free(p);
}

// ---- errors -----------------------------------------------------------------------------------

TEST(CachingAllocatorTest, ForeignAndDoubleFreeAreReported) {
  CachingAllocator alloc(0, 64 * kMiB);
  int local = 0;
  try {
    alloc.Free(&local);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("not a live block of the caching allocator of device 0"));
  }
  void* p = alloc.Malloc(100);
  alloc.Free(p);
  EXPECT_THROW(alloc.Free(p), Error);
  EXPECT_THROW(alloc.RecordStream(p, 1), Error);
  EXPECT_THROW(alloc.BlockSize(p), Error);
  char* q = static_cast<char*>(alloc.Malloc(1024));
  EXPECT_THROW(alloc.Free(q + 512), Error);  // interior pointer
  alloc.Free(q);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, ContainsRangeAcceptsInteriorRangesOfLiveBlocks) {
  for (const char* config : {"", "expandable_segments:True"}) {
    SCOPED_TRACE(config);
    CachingAllocator alloc(0, 64 * kMiB, Config(config));
    char* a = static_cast<char*>(alloc.Malloc(1000));
    char* b = static_cast<char*>(alloc.Malloc(3 * kMiB));
    EXPECT_TRUE(alloc.ContainsRange(a, 0));
    EXPECT_TRUE(alloc.ContainsRange(a + 10, 1014));  // up to the end of the 1024 B block
    EXPECT_FALSE(alloc.ContainsRange(a + 10, 1015));
    EXPECT_TRUE(alloc.ContainsRange(b + kMiB, 2 * kMiB));
    EXPECT_FALSE(alloc.ContainsRange(b + 3 * kMiB, 1));  // the free rest of the segment
    int local = 0;
    EXPECT_FALSE(alloc.ContainsRange(&local, 1));
    alloc.Free(a);
    EXPECT_FALSE(alloc.ContainsRange(a, 1));
    alloc.Free(b);
  }
}

// ---- stats -------------------------------------------------------------------------------------

TEST(CachingAllocatorTest, StatsAfterAScriptedSequence) {
  CachingAllocator alloc(0, 256 * kMiB);
  void* a = alloc.Malloc(1000);
  void* b = alloc.Malloc(3000);
  void* c = alloc.Malloc(5 * kMiB);
  alloc.Free(a);
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(s.allocation[kAggregate].current, 2);
  EXPECT_EQ(s.allocation[kAggregate].allocated, 3);
  EXPECT_EQ(s.allocation[kAggregate].freed, 1);
  EXPECT_EQ(s.allocation[kSmallPool].current, 1);
  EXPECT_EQ(s.allocation[kLargePool].current, 1);
  EXPECT_EQ(s.allocated_bytes[kAggregate].current, static_cast<int64_t>(3072 + 5 * kMiB));
  EXPECT_EQ(s.allocated_bytes[kAggregate].peak, static_cast<int64_t>(4096 + 5 * kMiB));
  EXPECT_EQ(s.allocated_bytes[kSmallPool].allocated, 4096);
  EXPECT_EQ(s.allocated_bytes[kSmallPool].freed, 1024);
  EXPECT_EQ(s.requested_bytes[kAggregate].current, static_cast<int64_t>(3000 + 5 * kMiB));
  EXPECT_EQ(s.reserved_bytes[kAggregate].current, static_cast<int64_t>(22 * kMiB));
  EXPECT_EQ(s.reserved_bytes[kSmallPool].current, static_cast<int64_t>(2 * kMiB));
  EXPECT_EQ(s.segment[kAggregate].current, 2);
  EXPECT_EQ(s.active[kAggregate].current, 2);
  // Small pool: a (free), b, rest; large pool: c, rest.
  EXPECT_EQ(s.inactive_split[kSmallPool].current, 2);
  EXPECT_EQ(s.inactive_split_bytes[kSmallPool].current, static_cast<int64_t>(2 * kMiB - 3072));
  EXPECT_EQ(s.inactive_split[kLargePool].current, 1);
  EXPECT_EQ(s.inactive_split_bytes[kLargePool].current, static_cast<int64_t>(15 * kMiB));
  EXPECT_EQ(s.num_device_alloc, 2);

  alloc.Free(b);
  alloc.Free(c);
  alloc.EmptyCache();
  s = alloc.GetStats();
  EXPECT_EQ(s.reserved_bytes[kAggregate].current, 0);
  EXPECT_EQ(s.reserved_bytes[kAggregate].peak, static_cast<int64_t>(22 * kMiB));
  EXPECT_EQ(s.reserved_bytes[kAggregate].freed, static_cast<int64_t>(22 * kMiB));
  EXPECT_EQ(s.num_device_free, 2);
  EXPECT_EQ(s.inactive_split[kAggregate].current, 0);
  EXPECT_EQ(s.inactive_split[kAggregate].allocated, s.inactive_split[kAggregate].freed);

  alloc.ResetPeakStats();
  EXPECT_EQ(alloc.GetStats().allocated_bytes[kAggregate].peak, 0);
  alloc.ResetAccumulatedStats();
  s = alloc.GetStats();
  EXPECT_EQ(s.allocation[kAggregate].allocated, 0);
  EXPECT_EQ(s.num_device_alloc, 0);

  bool found = false;
  for (const auto& [key, value] : s.Flatten()) {
    if (key == "allocated_bytes.all.peak") found = true;
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(s.Flatten().size(), 9u * 3 * 4 + 2 * 4 + 6);
}

// ---- expandable segments -----------------------------------------------------------------------

TEST(CachingAllocatorTest, ExpandableSegmentsGrowInPlaceAndRelease) {
  CachingAllocator alloc(0, 256 * kMiB, Config("expandable_segments:True"));
  char* a = static_cast<char*>(alloc.Malloc(5 * kMiB));
  DeviceStats s = alloc.GetStats();
  EXPECT_EQ(Cur(s.reserved_bytes), static_cast<int64_t>(6 * kMiB));  // three 2 MiB pages
  EXPECT_EQ(alloc.BlockSize(a), 5 * kMiB);
  char* b = static_cast<char*>(alloc.Malloc(5 * kMiB));
  // The free 1 MiB tail plus two more pages: b follows a directly.
  EXPECT_EQ(b, a + 5 * kMiB);
  EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), static_cast<int64_t>(10 * kMiB));
  std::memset(a, 1, 10 * kMiB);
  EXPECT_INVARIANTS(alloc);

  alloc.Free(a);
  alloc.EmptyCache();  // pages [0, 4 MiB) are wholly free
  EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), static_cast<int64_t>(6 * kMiB));
  EXPECT_INVARIANTS(alloc);
  char* c = static_cast<char*>(alloc.Malloc(3 * kMiB));  // refills the lowest hole
  EXPECT_EQ(c, a);
  EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), static_cast<int64_t>(10 * kMiB));
  std::memset(c, 2, 3 * kMiB);
  EXPECT_INVARIANTS(alloc);

  alloc.Free(b);
  alloc.Free(c);
  alloc.EmptyCache();
  s = alloc.GetStats();
  EXPECT_EQ(Cur(s.reserved_bytes), 0);
  EXPECT_EQ(Cur(s.segment), 0);
  EXPECT_EQ(Cur(s.inactive_split), 0);
  EXPECT_INVARIANTS(alloc);
}

TEST(CachingAllocatorTest, ExpandableSegmentsAvoidTheFragmentationOfFixedSegments) {
  // Eight 5 MiB blocks fill 40 MiB; every other one is freed, leaving 20 MiB free in 5 MiB holes.
  // Fixed 20 MiB segments cannot serve 10 MiB (the holes are inside split segments); an
  // expandable segment unmaps the whole pages of the holes and maps new ones at its end.
  for (bool expandable : {false, true}) {
    SCOPED_TRACE(expandable);
    CachingAllocator alloc(0, 40 * kMiB, Config(expandable ? "expandable_segments:True" : ""));
    std::vector<void*> blocks;
    for (int i = 0; i < 8; ++i) blocks.push_back(alloc.Malloc(5 * kMiB));
    EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), static_cast<int64_t>(40 * kMiB));
    for (int i = 0; i < 8; i += 2) alloc.Free(blocks[i]);
    if (expandable) {
      void* big = alloc.Malloc(10 * kMiB);
      EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), static_cast<int64_t>(34 * kMiB));
      alloc.Free(big);
    } else {
      EXPECT_THROW(alloc.Malloc(10 * kMiB), OutOfMemoryError);
    }
    EXPECT_INVARIANTS(alloc);
    for (int i = 1; i < 8; i += 2) alloc.Free(blocks[i]);
    alloc.EmptyCache();
    EXPECT_EQ(Cur(alloc.GetStats().reserved_bytes), 0);
    EXPECT_INVARIANTS(alloc);
  }
}

TEST(CachingAllocatorTest, ExpandableSegmentsOutOfMemory) {
  CachingAllocator alloc(0, 16 * kMiB, Config("expandable_segments:True"));
  void* a = alloc.Malloc(10 * kMiB);
  EXPECT_THROW(alloc.Malloc(8 * kMiB), OutOfMemoryError);
  void* b = alloc.Malloc(6 * kMiB);
  alloc.Free(a);
  alloc.Free(b);
  EXPECT_INVARIANTS(alloc);
}

// ---- the device registry -----------------------------------------------------------------------

TEST(DeviceAllocatorTest, DevicesHaveSeparatePools) {
  SetDeviceMemoryCapacity(5, 32 * kMiB);
  SetDeviceMemoryCapacity(6, 64 * kMiB);
  CachingAllocator& d5 = GetDeviceAllocator(5);
  CachingAllocator& d6 = GetDeviceAllocator(6);
  EXPECT_NE(&d5, &d6);
  EXPECT_EQ(&d5, &GetDeviceAllocator(5));
  EXPECT_EQ(d5.capacity(), 32 * kMiB);
  void* p = d5.Malloc(1000);
  EXPECT_TRUE(d5.Owns(p));
  EXPECT_FALSE(d6.Owns(p));
  EXPECT_THROW(d6.Free(p), Error);
  d5.Free(p);
  EXPECT_THROW(GetDeviceAllocator(64), Error);
  EXPECT_THROW(GetDeviceAllocator(-1), Error);
  SetDeviceMemoryCapacity(5, 48 * kMiB);
  EXPECT_EQ(d5.capacity(), 48 * kMiB);
}

}  // namespace
}  // namespace aicore::memory
