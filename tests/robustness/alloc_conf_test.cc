// AICORE_ALLOC_CONF values are range-checked: an overflowing roundup_power2_divisions is an
// InvalidArgument naming the key and value, and a program that sets it gets the error from its
// first allocation instead of a SIGFPE.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/memory/config.h"

namespace aicore::memory {
namespace {

using ::testing::HasSubstr;

std::string Rejection(const char* text) {
  AllocatorConfig c;
  const Status st = ParseAllocatorConfig(text, &c);
  if (st.ok()) return "accepted";
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  return st.message();
}

TEST(AllocConfTest, RoundupDivisionsAreBounded) {
  EXPECT_EQ(Rejection("roundup_power2_divisions:36028797018963968"),
            "AICORE_ALLOC_CONF: bad value '36028797018963968' for roundup_power2_divisions: "
            "expected a power of two up to 2048 (e.g. 4) or a list like [256:1,512:2,>:4] whose "
            "keys are power-of-two MiB interval starts and whose values are 0 or powers of two up "
            "to 2048");
  EXPECT_THAT(Rejection("roundup_power2_divisions:4096"), HasSubstr("bad value '4096'"));
  EXPECT_THAT(Rejection("roundup_power2_divisions:[1:2,>:9223372036854775808]"),
              HasSubstr("for roundup_power2_divisions"));
  EXPECT_THAT(Rejection("roundup_power2_divisions:[2199023255552:2]"),
              HasSubstr("for roundup_power2_divisions"));  // a 2^41 MiB interval
  EXPECT_THAT(Rejection("roundup_power2_divisions:99999999999999999999999"),
              HasSubstr("bad value"));
  EXPECT_EQ(Rejection("roundup_power2_divisions:2048"), "accepted");
  EXPECT_EQ(Rejection("roundup_power2_divisions:[1:2048,>:0]"), "accepted");
}

TEST(AllocConfTest, SizesAreBounded) {
  EXPECT_THAT(Rejection("max_split_size_mb:18446744073709551615"),
              HasSubstr("bad value '18446744073709551615' for max_split_size_mb"));
  EXPECT_THAT(Rejection("max_split_size_mb:-1"), HasSubstr("bad value '-1'"));
  EXPECT_THAT(Rejection("max_non_split_rounding_mb:1099511627777"),
              HasSubstr("for max_non_split_rounding_mb"));
  EXPECT_THAT(Rejection("garbage_collection_threshold:nan"), HasSubstr("strictly between 0 and 1"));
  EXPECT_THAT(Rejection("garbage_collection_threshold:1e-400"), HasSubstr("strictly between"));
}

TEST(AllocConfTest, RoundingWithTheLargestDivisionsStaysInRange) {
  AllocatorConfig c;
  ASSERT_TRUE(ParseAllocatorConfig("roundup_power2_divisions:2048", &c).ok());
  for (size_t size : {size_t{1}, size_t{513}, size_t{1} << 20, (size_t{1} << 20) + 1,
                      (size_t{3} << 30) + 7, size_t{1} << 62, (size_t{1} << 62) + 12345}) {
    const size_t r = RoundSize(size, c);
    EXPECT_GE(r, size) << size;
    EXPECT_EQ(r % kMinBlockSize, 0u) << size;
  }
}

TEST(AllocConfTest, ProgramWithAnOverflowingConfGetsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("AICORE_ALLOC_CONF", "roundup_power2_divisions:36028797018963968", 1);
        try {
          (void)AllocatorConfigFromEnv();
          std::_Exit(1);
        } catch (const Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(e.status().code() == StatusCode::kInvalidArgument ? 0 : 1);
        }
      },
      ::testing::ExitedWithCode(0),
      "InvalidArgument: AICORE_ALLOC_CONF: bad value '36028797018963968' for "
      "roundup_power2_divisions");
}

}  // namespace
}  // namespace aicore::memory
