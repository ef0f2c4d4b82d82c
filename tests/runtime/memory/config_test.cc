// Tests of AICORE_ALLOC_CONF parsing: every key, PyTorch's limits, and rejection messages.
#include "aicore/runtime/memory/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace aicore::memory {
namespace {

using ::testing::HasSubstr;

constexpr size_t kMiB = size_t{1} << 20;

TEST(AllocatorConfigTest, EmptyGivesDefaults) {
  AllocatorConfig c;
  c.expandable_segments = true;
  ASSERT_TRUE(ParseAllocatorConfig("", &c).ok());
  EXPECT_FALSE(c.expandable_segments);
  EXPECT_EQ(c.max_split_size, std::numeric_limits<size_t>::max());
  EXPECT_EQ(c.max_non_split_rounding_size, 20 * kMiB);
  EXPECT_EQ(c.garbage_collection_threshold, 0.0);
  EXPECT_FALSE(c.prefault);
  for (size_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 0u);
}

TEST(AllocatorConfigTest, ParsesEveryKey) {
  AllocatorConfig c;
  Status s = ParseAllocatorConfig(
      "max_split_size_mb:128, garbage_collection_threshold:0.6,expandable_segments:True,"
      "roundup_power2_divisions:[1:2,64:4,>:8],max_non_split_rounding_mb:64,prefault:true",
      &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.max_split_size, 128 * kMiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_TRUE(c.expandable_segments);
  EXPECT_TRUE(c.prefault);
  EXPECT_EQ(c.max_non_split_rounding_size, 64 * kMiB);
  EXPECT_EQ(c.roundup_power2_divisions[0], 2u);  // [1 MiB, 2 MiB)
  for (int i = 1; i <= 6; ++i) EXPECT_EQ(c.roundup_power2_divisions[i], 4u) << i;
  for (int i = 7; i < kRoundUpPowerOfTwoIntervals; ++i) {
    EXPECT_EQ(c.roundup_power2_divisions[i], 8u) << i;
  }
  // ToString round-trips.
  AllocatorConfig again;
  ASSERT_TRUE(ParseAllocatorConfig(c.ToString(), &again).ok()) << c.ToString();
  EXPECT_EQ(again.max_split_size, c.max_split_size);
  EXPECT_EQ(again.roundup_power2_divisions, c.roundup_power2_divisions);
  EXPECT_EQ(again.expandable_segments, c.expandable_segments);
}

TEST(AllocatorConfigTest, SingleDivisionValueAppliesEverywhere) {
  AllocatorConfig c;
  ASSERT_TRUE(ParseAllocatorConfig("roundup_power2_divisions:4", &c).ok());
  for (size_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 4u);
}

struct BadCase {
  const char* text;
  const char* message;
};

TEST(AllocatorConfigTest, RejectsUnknownKeysAndBadValues) {
  const BadCase cases[] = {
      {"max_split_size:128", "unknown key 'max_split_size'"},
      {"pinned_use_background_threads:True", "unknown key 'pinned_use_background_threads'"},
      {"max_split_size_mb:20", "bad value '20' for max_split_size_mb"},
      {"max_split_size_mb:-5", "bad value '-5' for max_split_size_mb"},
      {"max_split_size_mb:abc", "greater than 20"},
      {"garbage_collection_threshold:1.0", "strictly between 0 and 1"},
      {"garbage_collection_threshold:0", "strictly between 0 and 1"},
      {"garbage_collection_threshold:0.5x", "bad value '0.5x'"},
      {"expandable_segments:yes", "expected True or False"},
      {"prefault:2", "expected True or False"},
      {"roundup_power2_divisions:3", "power of two"},
      {"roundup_power2_divisions:[3:2]", "power of two"},
      {"roundup_power2_divisions:[4:2,2:2]", "interval keys must increase"},
      {"roundup_power2_divisions:[1:2", "unbalanced brackets"},
      {"expandable_segments", "is not a key:value pair"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.text);
    AllocatorConfig config;
    config.prefault = true;
    Status s = ParseAllocatorConfig(c.text, &config);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(c.message));
    EXPECT_THAT(s.message(), HasSubstr("AICORE_ALLOC_CONF"));
    EXPECT_TRUE(config.prefault) << "a rejected config must leave the output untouched";
  }
}

TEST(AllocatorConfigTest, EnvironmentVariable) {
  setenv("AICORE_ALLOC_CONF", "expandable_segments:True", 1);
  EXPECT_TRUE(AllocatorConfigFromEnv().expandable_segments);
  setenv("AICORE_ALLOC_CONF", "bogus:1", 1);
  try {
    AllocatorConfigFromEnv();
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'bogus'"));
  }
  unsetenv("AICORE_ALLOC_CONF");
  EXPECT_FALSE(AllocatorConfigFromEnv().expandable_segments);
}

}  // namespace
}  // namespace aicore::memory
