// The full tier of the randomized stress test (stress_driver.h): 1.2 million operations on four
// threads for each of the main configurations.
#include "stress_driver.h"

namespace aicore::memory::testing {
namespace {

TEST(AllocatorStressSlowTest, DefaultMillionOps) {
  RunStress(Options(4, 300000, "", 11, /*check_every=*/20000));
}

TEST(AllocatorStressSlowTest, MaxSplitAndGarbageCollectionMillionOps) {
  RunStress(Options(4, 300000, "max_split_size_mb:24,garbage_collection_threshold:0.6", 12,
                    /*check_every=*/20000));
}

TEST(AllocatorStressSlowTest, ExpandableSegmentsMillionOps) {
  RunStress(Options(4, 300000, "expandable_segments:True", 13, /*check_every=*/20000));
}

}  // namespace
}  // namespace aicore::memory::testing
