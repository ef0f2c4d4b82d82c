// Sum and Mean and their tmp-size helpers against tests/reference/sum_ref.h.
#include "aicore/kernel/lib/reduce/sum.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/runtime/ascendc/tiling/tiling_api.h"
#include "tests/kernel/lib/lib_test_util.h"
#include "tests/reference/sum_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RunOnUb;
using aicore::testing::ToDouble;
using aicore::testing::Tol;
using aicore::testing::UbArena;
using aicore::testing::Uniform;
using ::testing::HasSubstr;

template <typename T>
class SumTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(SumTest, Types);

struct Case {
  uint32_t outter, n;
};
const Case kCases[] = {{1, 1}, {1, 16}, {3, 13}, {7, 64}, {13, 199}, {2, 1000}, {100, 33},
                       {65, 8}, {1, 4096}};

TYPED_TEST(SumTest, SumAndMeanMatchReference) {
  using T = TypeParam;
  constexpr uint32_t epb = 32 / sizeof(T);
  for (const Case& c : kCases) {
    const uint32_t inner = (c.n + epb - 1) / epb * epb;
    auto x = Uniform<T>(c.outter * inner, c.n + c.outter, -2, 2);
    uint32_t smax = 0, smin = 0, mmax = 0, mmin = 0, fmax = 0, fmin = 0;
    AscendC::GetSumMaxMinTmpSize(c.n, sizeof(T), false, smax, smin);
    AscendC::GetMeanMaxMinTmpSize(c.n, sizeof(T), sizeof(T), false, mmax, mmin);
    AscendC::GetMeanMaxMinTmpSize(c.n, sizeof(T), 4, false, fmax, fmin);
    std::vector<T> sum, mean, mean_f;
    const uint32_t out = (c.outter + epb - 1) / epb * epb;
    const auto st = RunOnUb([&](UbArena& a) {
      auto src = a.Load(x);
      auto d1 = a.Get<T>(out), d2 = a.Get<T>(out), d3 = a.Get<T>(out);
      AscendC::SumParams sp{c.outter, inner, c.n};
      AscendC::Sum(d1, src, a.Get<uint8_t>(smin), sp);
      AscendC::MeanParams mp{c.outter, inner, c.n};
      AscendC::Mean(d2, src, a.Get<uint8_t>(mmin), mp);
      AscendC::Mean<T, float>(d3, src, a.Get<uint8_t>(fmin), mp);
      sum = FromTensor(d1, c.outter);
      mean = FromTensor(d2, c.outter);
      mean_f = FromTensor(d3, c.outter);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto ref = aicore::ref::RowSums(ToDouble(x), c.outter, inner, c.n);
    for (uint32_t i = 0; i < c.outter; ++i) {
      const double tol = Tol<T>() * std::max(1.0, std::sqrt(static_cast<double>(c.n))) * 2;
      ASSERT_NEAR(static_cast<float>(sum[i]), ref[i], tol * std::max(1.0, std::fabs(ref[i])));
      ASSERT_NEAR(static_cast<float>(mean[i]), ref[i] / c.n, 2 * Tol<T>());
      ASSERT_NEAR(static_cast<float>(mean_f[i]), ref[i] / c.n, 2 * Tol<T>());
    }
  }
}

TEST(SumErrors, BadParamsAndSmallScratch) {
  uint32_t max = 0, min = 0;
  AscendC::GetSumMaxMinTmpSize(1000, 4, false, max, min);
  auto run = [&](AscendC::SumParams p, uint32_t bytes) {
    return RunOnUb([&](UbArena& a) {
      auto x = a.Get<float>(2048);
      AscendC::Duplicate(x, 1.0f, 2048);
      auto d = a.Get<float>(8);
      AscendC::Sum(d, x, a.Get<uint8_t>(bytes), p);
    });
  };
  EXPECT_TRUE(run({2, 1000, 1000}, min).ok());
  const auto small = run({2, 1000, 1000}, min - 4);
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(small.ToString(), HasSubstr("sharedTmpBuffer holds"));
  const auto bad = run({2, 1001, 1000}, min);  // inner not 32-byte padded
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.ToString(), HasSubstr("multiple of 8"));
  const auto overlap = RunOnUb([&](UbArena& a) {
    auto x = a.Get<float>(2048);
    AscendC::Duplicate(x, 1.0f, 2048);
    AscendC::Sum(x, x, a.Get<uint8_t>(min), AscendC::SumParams{2, 1000, 1000});
  });
  ASSERT_FALSE(overlap.ok());
  EXPECT_THAT(overlap.ToString(), HasSubstr("overlap"));
}

}  // namespace
