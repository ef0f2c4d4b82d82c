// Tests of the device memory backend: capacity accounting for mapped segments and committed pages
// of reservations, pre-faulting, and the default capacity.
#include "aicore/runtime/memory/device_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace aicore::memory {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(DeviceMemoryTest, MapCountsAgainstCapacity) {
  DeviceMemory mem(0, 8 * kMiB, /*prefault=*/false);
  void* a = mem.Map(6 * kMiB);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(mem.used(), 6 * kMiB);
  std::memset(a, 7, 6 * kMiB);
  EXPECT_EQ(mem.Map(4 * kMiB), nullptr);  // 10 MiB > 8 MiB
  void* b = mem.Map(2 * kMiB);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(mem.used(), 8 * kMiB);
  mem.Unmap(a, 6 * kMiB);
  EXPECT_EQ(mem.used(), 2 * kMiB);
  EXPECT_EQ(mem.Map(0), nullptr);
  mem.set_capacity(1 * kMiB);  // below what is in use: nothing new fits
  EXPECT_EQ(mem.Map(4096), nullptr);
  mem.Unmap(b, 2 * kMiB);
  EXPECT_EQ(mem.used(), 0u);
}

TEST(DeviceMemoryTest, ReserveCommitDecommit) {
  DeviceMemory mem(0, 4 * kMiB, /*prefault=*/false);
  char* base = static_cast<char*>(mem.Reserve(64 * kMiB));  // address space beyond capacity
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(mem.used(), 0u);
  ASSERT_TRUE(mem.Commit(base + 2 * kMiB, 2 * kMiB));
  std::memset(base + 2 * kMiB, 1, 2 * kMiB);
  EXPECT_EQ(mem.used(), 2 * kMiB);
  EXPECT_FALSE(mem.Commit(base + 8 * kMiB, 4 * kMiB));  // over capacity
  ASSERT_TRUE(mem.Commit(base + 8 * kMiB, 2 * kMiB));
  mem.Decommit(base + 2 * kMiB, 2 * kMiB);
  EXPECT_EQ(mem.used(), 2 * kMiB);
  // Committing again gives zeroed pages.
  ASSERT_TRUE(mem.Commit(base + 2 * kMiB, 2 * kMiB));
  EXPECT_EQ(base[2 * kMiB + 100], 0);
  mem.Release(base, 64 * kMiB, 4 * kMiB);
  EXPECT_EQ(mem.used(), 0u);
}

TEST(DeviceMemoryTest, PrefaultTouchesEveryPage) {
  DeviceMemory mem(0, 16 * kMiB, /*prefault=*/true);
  char* p = static_cast<char*>(mem.Map(8 * kMiB));
  ASSERT_NE(p, nullptr);
  std::vector<unsigned char> resident(8 * kMiB / 4096);
  ASSERT_EQ(mincore(p, 8 * kMiB, resident.data()), 0);
  for (unsigned char r : resident) ASSERT_TRUE(r & 1);
  EXPECT_EQ(p[12345], 0);
  mem.Unmap(p, 8 * kMiB);
}

TEST(DeviceMemoryTest, DefaultCapacityFromEnvironment) {
  setenv("AICORE_DEVICE_MEMORY_MB", "123", 1);
  EXPECT_EQ(DefaultDeviceCapacity(), 123 * kMiB);
  setenv("AICORE_DEVICE_MEMORY_MB", "junk", 1);
  const size_t fallback = DefaultDeviceCapacity();
  unsetenv("AICORE_DEVICE_MEMORY_MB");
  EXPECT_EQ(fallback, DefaultDeviceCapacity());
  EXPECT_GT(DefaultDeviceCapacity(), 64 * kMiB);
}

}  // namespace
}  // namespace aicore::memory
