// Brcb against tests/reference/gather_ref.h over repeat counts, strides and element types.
#include "aicore/kernel/vector/brcb.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/gather_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class BrcbTest : public ::testing::Test {};
using BrcbTypes =
    ::testing::Types<aicore::half, float, int16_t, uint16_t, int32_t, uint32_t, aicore::bfloat16>;
TYPED_TEST_SUITE(BrcbTest, BrcbTypes);

TYPED_TEST(BrcbTest, MatchesReference) {
  using T = TypeParam;
  struct Case {
    uint32_t repeats, blk, rep;
  };
  const Case cases[] = {{1, 1, 8}, {2, 1, 8}, {3, 2, 16}, {5, 1, 10},
                        {4, 3, 1}, {1, 1, 0}, {17, 1, 8}, {255, 1, 8}};
  for (const Case& c : cases) {
    const size_t per_block = 32 / sizeof(T);
    const size_t dst_blocks = (c.repeats - 1) * c.rep + 7 * c.blk + 1;
    std::vector<T> src = RandomValues<T>(8 * c.repeats, c.repeats * 31 + c.blk, 100);
    std::vector<T> init(dst_blocks * per_block, static_cast<T>(7));
    std::vector<T> got;
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Load(src);
      auto d = ub.Load(init);
      AscendC::Brcb(
          d, s, static_cast<uint8_t>(c.repeats),
          AscendC::BrcbRepeatParams(static_cast<uint16_t>(c.blk), static_cast<uint16_t>(c.rep)));
      got = FromTensor(d, init.size());
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto want = aicore::ref::Brcb(init, src, c.repeats, c.blk, c.rep);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0)
        << "repeats " << c.repeats << " blk " << c.blk << " rep " << c.rep;
  }
}

TEST(BrcbErrors, DstTooSmallNamesTheExtent) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(16);
    auto d = ub.Get<float>(8 * 15);  // 15 blocks, 2 repeats need 16
    AscendC::Brcb(d, s, 2, AscendC::BrcbRepeatParams(1, 8));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(),
              AllOf(HasSubstr("Brcb"), HasSubstr("reach byte 512"), HasSubstr("480 bytes")));
}

TEST(BrcbErrors, SourceTooShortAndZeroBlockStride) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(8);
    auto d = ub.Get<float>(1024);
    AscendC::Brcb(d, s, 2, AscendC::BrcbRepeatParams(1, 8));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("reads 16 src elements"), HasSubstr("holds 8")));
  st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(8);
    auto d = ub.Get<float>(1024);
    AscendC::Brcb(d, s, 1, AscendC::BrcbRepeatParams(0, 8));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("dstBlkStride 0"));
}

}  // namespace
