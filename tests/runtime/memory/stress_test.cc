// The quick tier of the randomized stress test (stress_driver.h): 20000 operations per thread on
// 3-4 threads under each allocator configuration.
#include "stress_driver.h"

namespace aicore::memory::testing {
namespace {

TEST(AllocatorStressTest, Default) { RunStress(Options(4, 20000, "", 1)); }

TEST(AllocatorStressTest, MaxSplitAndGarbageCollection) {
  RunStress(Options(4, 20000, "max_split_size_mb:24,garbage_collection_threshold:0.6", 2));
}

TEST(AllocatorStressTest, ExpandableSegments) {
  RunStress(Options(4, 20000, "expandable_segments:True", 3));
}

TEST(AllocatorStressTest, RoundupDivisions) {
  RunStress(Options(3, 20000, "roundup_power2_divisions:4", 4));
}

}  // namespace
}  // namespace aicore::memory::testing
