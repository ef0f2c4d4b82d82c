// Device memory on the caching allocator: 512 rounding and peak, per-device capacity and the
// allocator's OOM text, cached blocks and DeviceEmptyCache, range lookups on rounded blocks,
// foreign, interior and double frees, stream-ordered reuse (record_stream), aclrtMalloc reuse,
// host memory, concurrency, and the environment settings.
#include "aicore/runtime/device_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/stream.h"

namespace aicore::rt {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr size_t kMiB = size_t{1} << 20;

// Runs each test on device 5 (untouched by the other tests of this binary) and resets it after.
class DeviceMemoryTest : public ::testing::Test {
 protected:
  static constexpr int kDevice = 5;
  void SetUp() override {
    if (GetDeviceCount() <= kDevice) GTEST_SKIP() << "needs " << kDevice + 1 << " devices";
    ASSERT_TRUE(SetDevice(kDevice).ok());
  }
  void TearDown() override {
    if (GetDeviceCount() <= kDevice) return;
    EXPECT_TRUE(memory::GetDeviceAllocator(kDevice).CheckInvariants().ok());
    SetDeviceMemoryCapacity(kDevice, 0);
    EXPECT_TRUE(ResetDevice(kDevice).ok());
    EXPECT_EQ(GetDeviceMemoryStats(kDevice).reserved, 0u);  // ResetDevice empties the cache
    EXPECT_TRUE(SetDevice(0).ok());
  }
};

TEST_F(DeviceMemoryTest, AccountingRoundsTo512AndTracksPeak) {
  SetDeviceMemoryCapacity(kDevice, 64 * kMiB);
  std::vector<std::pair<size_t, size_t>> cases = {
      {1, 512}, {511, 512}, {512, 512}, {513, 1024}, {100000, 100352}, {3 << 20, 3 << 20}};
  size_t expected = 0;
  std::vector<void*> blocks;
  for (auto [size, rounded] : cases) {
    void* p = DeviceMalloc(size, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
    expected += rounded;
    blocks.push_back(p);
    const DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
    EXPECT_EQ(st.allocated, expected) << size;
    EXPECT_EQ(st.live_blocks, blocks.size());
    EXPECT_GE(st.reserved, st.allocated);
    EXPECT_EQ(st.capacity, 64 * kMiB);
  }
  // One 2 MiB small segment for the first five, one 20 MiB large segment for the 3 MiB block.
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).reserved, 22 * kMiB);
  const size_t peak = expected;
  for (void* p : blocks) DeviceFree(p);
  DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 0u);
  EXPECT_EQ(st.live_blocks, 0u);
  EXPECT_EQ(st.peak_allocated, peak);
  EXPECT_EQ(st.reserved, 22 * kMiB);  // freed blocks stay cached
  DeviceEmptyCache(kDevice);
  st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.reserved, 0u);
  EXPECT_EQ(st.peak_allocated, peak);  // only ResetDevice resets the peak
}

TEST_F(DeviceMemoryTest, RangeLookupsRespectRoundedBlockBounds) {
  auto* p = static_cast<char*>(DeviceMalloc(1000, nullptr));  // a block of 1024 bytes
  EXPECT_EQ(FindDeviceAllocation(p, 1000), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p, 1024), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p + 1023, 1), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p + 500, 524), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p + 500, 525), -1);  // one byte past the rounded block
  EXPECT_EQ(FindDeviceAllocation(p + 1024, 0), -1);   // the cached rest of the segment
  EXPECT_EQ(FindDeviceAllocation(p - 1, 1), -1);
  EXPECT_TRUE(IsDeviceMemory(p + 10));
  int host = 0;
  EXPECT_FALSE(IsDeviceMemory(&host));
  DeviceFree(p);
  EXPECT_FALSE(IsDeviceMemory(p));  // cached, but not a live allocation
  EXPECT_EQ(FindDeviceAllocation(p, 0), -1);
}

TEST_F(DeviceMemoryTest, OutOfMemoryIsTheAllocatorsClearError) {
  SetDeviceMemoryCapacity(kDevice, 24 * kMiB);
  void* small = DeviceMalloc(5000, nullptr);  // a 5120-byte block of a 2 MiB segment
  void* a = DeviceMalloc(5 * kMiB, nullptr);  // a 20 MiB large segment
  void* b = DeviceMalloc(5 * kMiB, nullptr);  // the same segment
  DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 10 * kMiB + 5120);
  EXPECT_EQ(st.reserved, 22 * kMiB);
  try {
    DeviceMalloc(11 * kMiB, nullptr);  // needs a 12 MiB segment: 34 MiB > 24 MiB
    FAIL() << "no OOM";
  } catch (const memory::OutOfMemoryError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kResourceExhausted);
    EXPECT_THAT(e.status().message(),
                AllOf(HasSubstr("Device out of memory"), HasSubstr("Tried to allocate 11.00 MiB"),
                      HasSubstr("Device 5 has a total capacity of 24.00 MiB"),
                      HasSubstr("of which 2.00 MiB is free"),
                      HasSubstr("10.00 MiB is allocated by the caching allocator"),
                      HasSubstr("AICORE_ALLOC_CONF")));
  }
  st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 10 * kMiB + 5120);  // unchanged by the failure
  EXPECT_EQ(st.reserved, 22 * kMiB);
  // Freed blocks stay cached and serve the next request that fits them (here the merged 20 MiB
  // block of a and b) ...
  DeviceFree(a);
  DeviceFree(b);
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).reserved, 22 * kMiB);
  void* c = DeviceMalloc(11 * kMiB, nullptr);
  st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 11 * kMiB + 5120);
  EXPECT_EQ(st.reserved, 22 * kMiB);
  DeviceFree(c);
  // ... and a request the cache cannot serve releases them before it fails.
  c = DeviceMalloc(22 * kMiB, nullptr);  // a 22 MiB segment: fits only without the cached 20
  st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 22 * kMiB + 5120);
  EXPECT_EQ(st.reserved, 24 * kMiB);
  DeviceFree(c);
  DeviceFree(small);
  try {
    DeviceMalloc(static_cast<size_t>(-1), nullptr);
    FAIL() << "no OOM for SIZE_MAX";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kResourceExhausted);
  }
}

TEST_F(DeviceMemoryTest, BadFreesAndZeroSizeAreErrors) {
  try {
    DeviceMalloc(0, nullptr);
    FAIL() << "size 0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("0 bytes"));
  }
  auto* p = static_cast<char*>(DeviceMalloc(100, nullptr));
  try {
    DeviceFree(p + 4);
    FAIL() << "interior free accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(e.what(),
                HasSubstr("points 4 bytes into a block of 100 bytes (512 bytes reserved"));
  }
  int host = 0;
  try {
    DeviceFree(&host);
    FAIL() << "foreign free accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("not a live device allocation"));
  }
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).live_blocks, 1u);
  DeviceFree(p);
  try {
    DeviceFree(p);
    FAIL() << "double free accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("double free"));
  }
  try {
    DeviceFree(nullptr);
    FAIL() << "nullptr free accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
  }
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).live_blocks, 0u);
}

TEST_F(DeviceMemoryTest, ResetFreesEverythingOfTheDeviceOnly) {
  ASSERT_TRUE(SetDevice(kDevice + 1 < GetDeviceCount() ? kDevice + 1 : 0).ok());
  const int other = CurrentDevice();
  void* keep = DeviceMalloc(4096, nullptr);
  ASSERT_TRUE(SetDevice(kDevice).ok());
  for (int i = 0; i < 10; ++i) DeviceMalloc(1024, nullptr);
  void* cached = DeviceMalloc(3 * kMiB, nullptr);
  DeviceFree(cached);
  EXPECT_EQ(ReleaseDeviceMemory(kDevice), 10u);
  const DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 0u);
  EXPECT_EQ(st.live_blocks, 0u);
  EXPECT_EQ(st.peak_allocated, 0u);
  EXPECT_EQ(st.reserved, 0u);  // the cache is emptied too
  EXPECT_TRUE(IsDeviceMemory(keep));
  EXPECT_EQ(FindDeviceAllocation(keep, 4096), other);
  DeviceFree(keep);
}

TEST_F(DeviceMemoryTest, ConcurrentAllocationsKeepExactAccounts) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      ASSERT_TRUE(SetDevice(kDevice).ok());
      std::vector<void*> mine;
      for (int i = 0; i < kRounds; ++i) {
        mine.push_back(DeviceMalloc(static_cast<size_t>(1 + (i * 37 + t) % 3000), nullptr));
        if (i % 3 == 2) {
          DeviceFree(mine.front());
          mine.erase(mine.begin());
        }
      }
      for (void* p : mine) DeviceFree(p);
    });
  }
  for (auto& th : threads) th.join();
  const DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 0u);
  EXPECT_EQ(st.live_blocks, 0u);
  EXPECT_GT(st.peak_allocated, 0u);
  EXPECT_GT(st.reserved, 0u);
}

// A gate a host callback blocks on, holding its stream busy until Open().
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [this] { return open_; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

TEST_F(DeviceMemoryTest, RecordedBlockWaitsForTheOtherStream) {
  SetDeviceMemoryCapacity(kDevice, 16 * kMiB);
  Stream* a = nullptr;
  Stream* b = nullptr;
  ASSERT_TRUE(CreateStream(&a).ok());
  ASSERT_TRUE(CreateStream(&b).ok());
  EXPECT_NE(StreamId(a), 0u);
  EXPECT_NE(StreamId(a), StreamId(b));

  void* p = DeviceMalloc(4096, a);
  Gate gate;
  std::atomic<bool> ran{false};
  Enqueue(b, "gate", [&] {
    gate.Wait();
    ran = true;
    return Status::Ok();
  });
  DeviceRecordStream(p, b);  // stream B uses the block too
  DeviceFree(p);             // pending until B's work enqueued so far retires
  DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.live_blocks, 0u);
  EXPECT_EQ(memory::GetDeviceAllocator(kDevice).GetStats().active[memory::kAggregate].current, 1);

  void* q = DeviceMalloc(4096, a);
  EXPECT_NE(q, p) << "reused while stream B may still use it";
  EXPECT_FALSE(ran);
  bool idle = true;
  ASSERT_TRUE(StreamQuery(b, &idle).ok());
  EXPECT_FALSE(idle);

  gate.Open();
  ASSERT_TRUE(StreamSynchronize(b).ok());
  EXPECT_TRUE(ran);
  void* r = DeviceMalloc(4096, a);
  EXPECT_EQ(r, p) << "the block should be back in stream A's cache";
  DeviceFree(q);
  DeviceFree(r);

  // Recording the block's own stream, or none at all, frees immediately.
  void* s = DeviceMalloc(4096, a);
  DeviceRecordStream(s, a);
  DeviceFree(s);
  EXPECT_EQ(DeviceMalloc(4096, a), s);
  DeviceFree(s);

  // Errors: a pointer that is not a live block, a stream of another device.
  EXPECT_THROW(DeviceRecordStream(s, b), Error);
  ASSERT_TRUE(SetDevice(0).ok());
  Stream* other = nullptr;
  ASSERT_TRUE(CreateStream(&other).ok());
  ASSERT_TRUE(SetDevice(kDevice).ok());
  void* t = DeviceMalloc(64, a);
  try {
    DeviceRecordStream(t, other);
    FAIL() << "cross-device record accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("across devices"));
  }
  DeviceFree(t);
  EXPECT_TRUE(DestroyStream(other).ok());
  EXPECT_TRUE(DestroyStream(a).ok());
  EXPECT_TRUE(DestroyStream(b).ok());
}

TEST_F(DeviceMemoryTest, StreamsRetireEveryTask) {
  Stream* s = nullptr;
  ASSERT_TRUE(CreateStream(&s).ok());
  memory::StreamSequenceTracker& tracker = DeviceCompletionTracker(kDevice);
  const uint64_t before = tracker.Record(StreamId(s));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(LaunchHostFunc(s, [] {}).ok());
  const uint64_t marker = tracker.Record(StreamId(s));
  EXPECT_EQ(marker, before + 5);
  ASSERT_TRUE(StreamSynchronize(s).ok());
  EXPECT_TRUE(tracker.Query(StreamId(s), marker));
  EXPECT_TRUE(DestroyStream(s).ok());
  EXPECT_THROW(DeviceCompletionTracker(GetDeviceCount()), Error);
}

TEST_F(DeviceMemoryTest, AclMallocReusesTheCachedBlock) {
  SetDeviceMemoryCapacity(kDevice, 16 * kMiB);
  const int64_t device_allocs = memory::GetDeviceAllocator(kDevice).GetStats().num_device_alloc;
  void* first = nullptr;
  ASSERT_EQ(aclrtMalloc(&first, 3000, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const size_t reserved = GetDeviceMemoryStats(kDevice).reserved;
  ASSERT_EQ(aclrtFree(first), ACL_SUCCESS);
  void* second = nullptr;
  ASSERT_EQ(aclrtMalloc(&second, 3000, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(second, first);
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).reserved, reserved);  // no new segment
  EXPECT_EQ(memory::GetDeviceAllocator(kDevice).GetStats().num_device_alloc, device_allocs + 1);
  ASSERT_EQ(aclrtFree(second), ACL_SUCCESS);
}

TEST(HostMemory, PinnedBlocksAreTrackedSeparately) {
  auto* p = static_cast<char*>(HostMalloc(3000));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
  EXPECT_TRUE(IsHostPinnedMemory(p + 2999));
  EXPECT_FALSE(IsHostPinnedMemory(p + 3000));
  EXPECT_FALSE(IsDeviceMemory(p));
  EXPECT_THROW(DeviceFree(p), Error);
  HostFree(p);
  EXPECT_FALSE(IsHostPinnedMemory(p));
  EXPECT_THROW(HostFree(p), Error);
  EXPECT_THROW(HostMalloc(0), Error);
}

TEST(DeviceMemoryEnv, CapacityAndCountFollowTheEnvironment) {
  const char* mb = std::getenv("AICORE_DEVICE_MEMORY_MB");
  const char* count = std::getenv("AICORE_DEVICE_COUNT");
  if (mb == nullptr || count == nullptr) {
    GTEST_SKIP() << "run by ctest as runtime.device_memory_test.env with both variables set";
  }
  EXPECT_EQ(DefaultDeviceMemoryCapacity(), static_cast<size_t>(std::atoi(mb)) << 20);
  EXPECT_EQ(GetDeviceCount(), std::atoi(count));
  EXPECT_EQ(SetDevice(GetDeviceCount()).code(), StatusCode::kInvalidArgument);
  const int device = GetDeviceCount() - 1;
  ASSERT_TRUE(SetDevice(device).ok());
  const size_t capacity = DefaultDeviceMemoryCapacity();
  EXPECT_EQ(GetDeviceMemoryStats(device).capacity, capacity);
  // 1 MiB requests come two to a 2 MiB small segment: fill every segment that fits, then fail.
  const size_t fits = capacity / memory::kSmallBuffer * 2;
  std::vector<void*> blocks;
  for (size_t i = 0; i < fits; ++i) blocks.push_back(DeviceMalloc(kMiB, nullptr));
  EXPECT_EQ(GetDeviceMemoryStats(device).allocated, fits * kMiB);
  try {
    DeviceMalloc(1, nullptr);
    FAIL() << "no OOM on a full device";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kResourceExhausted);
    EXPECT_THAT(e.what(), HasSubstr(StrCat("total capacity of ", std::atoi(mb), ".00 MiB")));
  }
  for (void* p : blocks) DeviceFree(p);
  DeviceEmptyCache(device);
  EXPECT_EQ(GetDeviceMemoryStats(device).reserved, 0u);
  ASSERT_TRUE(SetDevice(0).ok());
}

TEST(DeviceMemoryEnv, DefaultCapacityIsAQuarterOfHostMemory) {
  if (std::getenv("AICORE_DEVICE_MEMORY_MB") != nullptr) GTEST_SKIP() << "overridden";
  const size_t host = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) *
                      static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  EXPECT_EQ(DefaultDeviceMemoryCapacity(), host / 4);
}

}  // namespace
}  // namespace aicore::rt
