// CreateVecIndex against tests/reference/gather_ref.h for every supported type, including
// values that half cannot represent exactly and int16 wrap-around.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "aicore/kernel/vector/gather.h"
#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/gather_ref.h"
#include "tests/reference/reduce_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class CreateVecIndexTest : public ::testing::Test {};
using IndexTypes = ::testing::Types<aicore::half, float, int16_t, int32_t>;
TYPED_TEST_SUITE(CreateVecIndexTest, IndexTypes);

TYPED_TEST(CreateVecIndexTest, MatchesReference) {
  using T = TypeParam;
  for (uint32_t count : {1u, 7u, 16u, 64u, 127u, 128u, 129u, 3000u, 5000u}) {
    for (float first : {0.0f, -3.0f, 100.0f, 2000.0f}) {
      std::vector<T> got;
      auto st = RunOnUb([&](UbArena& ub) {
        auto d = ub.Get<T>(count);
        AscendC::CreateVecIndex(d, static_cast<T>(first), count);
        got = FromTensor(d, count);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      std::vector<T> want;
      if constexpr (std::is_integral_v<T>) {
        want.resize(count);
        for (uint32_t i = 0; i < count; ++i) {
          want[i] = static_cast<T>(static_cast<int64_t>(first) + i);  // wraps for int16
        }
      } else {
        want = aicore::ref::VecIndex<T>(first, count);
      }
      EXPECT_EQ(std::memcmp(got.data(), want.data(), count * sizeof(T)), 0)
          << "count " << count << " first " << first;
    }
  }
}

TYPED_TEST(CreateVecIndexTest, MaskFormMatchesReference) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 12; ++trial) {
    const uint8_t repeat = 1 + trial % 4;
    const uint16_t blk = 1 + trial % 2;
    const uint8_t rep = static_cast<uint8_t>(8 * blk + trial % 3);
    uint64_t mask[2] = {rng() | 1, kPer > 64 ? rng() : 0};
    const uint64_t cont = 1 + rng() % kPer;
    const size_t n = ((repeat - 1) * rep + 8 * blk) * 32 / sizeof(T);
    const std::vector<T> init(n, static_cast<T>(-1));
    std::vector<T> got;
    auto st = RunOnUb([&](UbArena& ub) {
      auto d = ub.Load(init);
      if (trial % 2 == 0) {
        AscendC::CreateVecIndex(d, static_cast<T>(5), mask, repeat, blk, rep);
      } else {
        AscendC::CreateVecIndex(d, static_cast<T>(5), cont, repeat, blk, rep);
      }
      got = FromTensor(d, n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::vector<T> want = init;
    for (uint32_t r = 0; r < repeat; ++r) {
      for (uint32_t e = 0; e < kPer; ++e) {
        const bool active = trial % 2 == 0 ? aicore::ref::MaskBit(mask, e) : e < cont;
        if (!active) continue;
        want[aicore::ref::Level0Index(r, e, sizeof(T), blk, rep)] =
            aicore::ref::VecIndex<T>(5.0 + r * kPer + e, 1)[0];
      }
    }
    EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(T)), 0) << "trial " << trial;
  }
}

TEST(CreateVecIndexErrors, CountPastDestination) {
  auto st = RunOnUb([](UbArena& ub) {
    auto d = ub.Get<int32_t>(16);
    AscendC::CreateVecIndex(d, 0, 17);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(),
              AllOf(HasSubstr("CreateVecIndex"), HasSubstr("count 17"), HasSubstr("16 elements")));
}

}  // namespace
