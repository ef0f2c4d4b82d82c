// Device memory accounting: rounding, peak, per-device capacity and OOM text, range lookups,
// foreign and double frees, host memory, concurrency, and the environment settings.
#include "aicore/runtime/device_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <thread>
#include <vector>

#include "aicore/runtime/device.h"
#include "aicore/runtime/stream.h"

namespace aicore::rt {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Runs each test on device 5 (untouched by the other tests of this binary) and resets it after.
class DeviceMemoryTest : public ::testing::Test {
 protected:
  static constexpr int kDevice = 5;
  void SetUp() override {
    if (GetDeviceCount() <= kDevice) GTEST_SKIP() << "needs " << kDevice + 1 << " devices";
    ASSERT_TRUE(SetDevice(kDevice).ok());
  }
  void TearDown() override {
    SetDeviceMemoryCapacity(kDevice, 0);
    EXPECT_TRUE(ResetDevice(kDevice).ok());
    EXPECT_TRUE(SetDevice(0).ok());
  }
};

TEST_F(DeviceMemoryTest, AccountingRoundsTo512AndTracksPeak) {
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
  }
  const size_t peak = expected;
  for (void* p : blocks) DeviceFree(p);
  const DeviceMemoryStats st = GetDeviceMemoryStats(kDevice);
  EXPECT_EQ(st.allocated, 0u);
  EXPECT_EQ(st.live_blocks, 0u);
  EXPECT_EQ(st.peak_allocated, peak);
}

TEST_F(DeviceMemoryTest, RangeLookupsRespectBlockBounds) {
  auto* p = static_cast<char*>(DeviceMalloc(1000, nullptr));
  EXPECT_EQ(FindDeviceAllocation(p, 1000), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p + 999, 1), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p + 500, 500), kDevice);
  EXPECT_EQ(FindDeviceAllocation(p + 500, 501), -1);  // one byte past the requested size
  EXPECT_EQ(FindDeviceAllocation(p + 1000, 0), -1);
  EXPECT_EQ(FindDeviceAllocation(p - 1, 1), -1);
  EXPECT_TRUE(IsDeviceMemory(p + 10));
  int host = 0;
  EXPECT_FALSE(IsDeviceMemory(&host));
  DeviceFree(p);
  EXPECT_FALSE(IsDeviceMemory(p));
}

TEST_F(DeviceMemoryTest, OutOfMemoryIsAClearError) {
  SetDeviceMemoryCapacity(kDevice, 10240);
  void* a = DeviceMalloc(5000, nullptr);  // charged 5120
  try {
    DeviceMalloc(5121, nullptr);  // charged 5632: 10752 > 10240
    FAIL() << "no OOM";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kResourceExhausted);
    EXPECT_THAT(e.status().message(),
                AllOf(HasSubstr("out of device memory on device 5"), HasSubstr("requested 5121"),
                      HasSubstr("5632 after rounding"),
                      HasSubstr("allocated 5120 bytes in 1 blocks"),
                      HasSubstr("capacity 10240 bytes")));
  }
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).allocated, 5120u);  // unchanged by the failure
  void* b = DeviceMalloc(5120, nullptr);                       // fits exactly
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).allocated, 10240u);
  DeviceFree(a);
  DeviceFree(b);
  EXPECT_THROW(DeviceMalloc(static_cast<size_t>(-1), nullptr), Error);  // rounding overflows
}

TEST_F(DeviceMemoryTest, BadFreesAndZeroSizeAreErrors) {
  try {
    DeviceMalloc(0, nullptr);
    FAIL() << "size 0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("0 bytes"));
  }
  void* p = DeviceMalloc(64, nullptr);
  DeviceFree(p);
  try {
    DeviceFree(p);
    FAIL() << "double free accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("double free"));
  }
  EXPECT_THROW(DeviceFree(nullptr), Error);
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).live_blocks, 0u);
}

TEST_F(DeviceMemoryTest, ResetFreesEverythingOfTheDeviceOnly) {
  ASSERT_TRUE(SetDevice(kDevice + 1 < GetDeviceCount() ? kDevice + 1 : 0).ok());
  const int other = CurrentDevice();
  void* keep = DeviceMalloc(4096, nullptr);
  ASSERT_TRUE(SetDevice(kDevice).ok());
  for (int i = 0; i < 10; ++i) DeviceMalloc(1024, nullptr);
  EXPECT_EQ(ReleaseDeviceMemory(kDevice), 10u);
  EXPECT_EQ(GetDeviceMemoryStats(kDevice).allocated, 0u);
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
  ASSERT_TRUE(SetDevice(GetDeviceCount() - 1).ok());
  void* p = DeviceMalloc(DefaultDeviceMemoryCapacity(), nullptr);
  EXPECT_THROW(DeviceMalloc(1, nullptr), Error);
  DeviceFree(p);
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
