// Axpy (same-type and half -> float) against tests/reference/axpy_ref.h in the count and mask
// forms, over tails, strides and scalars, plus the count error.
#include "aicore/kernel/vector/axpy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/axpy_ref.h"
#include "tests/reference/reduce_ref.h"

namespace {

using aicore::half;
using aicore::testing::FromTensor;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

// Float results may differ from the double reference by one rounding of the product (FMA or not).
template <typename T>
void ExpectClose(T got, T want, const char* what, size_t i) {
  const float g = static_cast<float>(got);
  const float w = static_cast<float>(want);
  if constexpr (std::is_same_v<T, float>) {
    EXPECT_NEAR(g, w, 1e-6f * std::max(1.0f, std::fabs(w))) << what << " i " << i;
  } else {
    EXPECT_EQ(g, w) << what << " i " << i;
  }
}

template <typename Pair>
class AxpyTest : public ::testing::Test {};
template <typename D, typename S>
struct Types2 {
  using Dst = D;
  using Src = S;
};
using AxpyTypes = ::testing::Types<Types2<half, half>, Types2<float, float>, Types2<float, half>>;
TYPED_TEST_SUITE(AxpyTest, AxpyTypes);

TYPED_TEST(AxpyTest, CountFormMatchesReference) {
  using T = typename TypeParam::Dst;
  using U = typename TypeParam::Src;
  for (int count : {0, 1, 15, 64, 65, 128, 129, 1000, 8191}) {
    for (float scalar : {1.5f, -0.25f, 3.0f}) {
      std::vector<U> src = RandomValues<U>(count + 1, count, 60);
      std::vector<T> dst0 = RandomValues<T>(count + 1, count + 7, 60);
      std::vector<T> got;
      auto st = RunOnUb([&](UbArena& ub) {
        auto s = ub.Load(src);
        auto d = ub.Load(dst0);
        AscendC::Axpy(d, s, static_cast<U>(scalar), count);
        got = FromTensor(d, count + 1);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (int i = 0; i < count; ++i) {
        ExpectClose(got[i], aicore::ref::AxpyOne(dst0[i], src[i], static_cast<float>(U(scalar))),
                    "count form", i);
      }
      EXPECT_EQ(static_cast<float>(got[count]), static_cast<float>(dst0[count]));  // untouched
    }
  }
}

TYPED_TEST(AxpyTest, MaskFormMatchesReference) {
  using T = typename TypeParam::Dst;
  using U = typename TypeParam::Src;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 20; ++trial) {
    const uint8_t repeat = 1 + trial % 5;
    AscendC::UnaryRepeatParams p(1 + trial % 2, 1 + (trial / 2) % 2, 8 * (1 + trial % 2) + 1,
                                 8 * (1 + (trial / 2) % 2));
    uint64_t mask[2] = {rng(), kPer > 64 ? rng() : 0};
    mask[0] |= 1;
    const size_t dst_n =
        (repeat - 1) * p.dstRepStride * 32 / sizeof(T) + 8 * p.dstBlkStride * 32 / sizeof(T);
    const size_t src_n =
        (repeat - 1) * p.srcRepStride * 32 / sizeof(U) + 8 * p.srcBlkStride * 32 / sizeof(U);
    std::vector<U> src = RandomValues<U>(src_n, trial, 60);
    std::vector<T> dst0 = RandomValues<T>(dst_n, trial + 100, 60);
    std::vector<T> got;
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Load(src);
      auto d = ub.Load(dst0);
      AscendC::Axpy(d, s, static_cast<U>(0.5f), mask, repeat, p);
      got = FromTensor(d, dst_n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::vector<T> want = dst0;
    for (uint32_t r = 0; r < repeat; ++r) {
      for (uint32_t e = 0; e < kPer; ++e) {
        if (!aicore::ref::MaskBit(mask, e)) continue;
        const size_t di = aicore::ref::Level0Index(r, e, sizeof(T), p.dstBlkStride, p.dstRepStride);
        const size_t si = aicore::ref::Level0Index(r, e, sizeof(U), p.srcBlkStride, p.srcRepStride);
        want[di] = aicore::ref::AxpyOne(dst0[di], src[si], 0.5f);
      }
    }
    for (size_t i = 0; i < dst_n; ++i) ExpectClose(got[i], want[i], "mask form", i);
  }
}

TEST(AxpyErrors, CountOutsideOperands) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<half>(64);
    auto d = ub.Get<float>(32);
    AscendC::Axpy(d, s, half(2.0f), 33);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("Axpy"), HasSubstr("count 33"), HasSubstr("[0, 32]")));
}

}  // namespace
