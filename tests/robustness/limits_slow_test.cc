// The documented maximum launch: 65535 blocks that all wait in one SyncAll, so every block's stack
// and local memory are alive at once, more than vm.max_map_count allows as separate mappings.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "aicore/sim/page_pool.h"
#include "aicore/sim/scheduler.h"

namespace aicore::sim {
namespace {

int64_t ProcessMappings() {
  std::ifstream in("/proc/self/maps");
  int64_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(LimitsSlowTest, MaximumBlockDimWithSyncAllRuns) {
  std::atomic<int64_t> before{0}, after{0}, peak_maps{0};
  LaunchSpec spec;
  spec.kernel_name = "sync_all_65535";
  spec.block_dim = 65535;
  spec.body = [&] {
    before.fetch_add(1);
    SyncAllCores(true, std::source_location::current());
    // Every block is alive here; one of them samples the process's mapping count.
    if (CurrentCore().id().block_idx == 0) peak_maps = ProcessMappings();
    if (before.load() == 65535) after.fetch_add(1);
    SyncAllCores(true, std::source_location::current());
  };
  const auto t0 = std::chrono::steady_clock::now();
  const Status st = RunKernel(spec);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(after.load(), 65535);
  EXPECT_LE(MappingsInUse(), MappingBudget());
  std::printf("65535 blocks, 2 SyncAll: %.2f s, %lld process mappings while all were live\n", s,
              static_cast<long long>(peak_maps.load()));
}

}  // namespace
}  // namespace aicore::sim
