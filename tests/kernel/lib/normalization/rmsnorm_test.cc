// RmsNorm and its host tiling against tests/reference/norm_ref.h.
#include "aicore/kernel/lib/normalization/rmsnorm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/runtime/ascendc/tiling/tiling_api.h"
#include "tests/kernel/lib/lib_test_util.h"
#include "tests/reference/norm_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RunOnUb;
using aicore::testing::ToDouble;
using aicore::testing::Tol;
using aicore::testing::UbArena;
using aicore::testing::Uniform;
using ::testing::HasSubstr;

template <typename T>
class RmsNormTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(RmsNormTest, Types);

TYPED_TEST(RmsNormTest, MatchesReference) {
  using T = TypeParam;
  struct S { uint32_t b, s, h, ori_h; };
  for (const S& sh : {S{1, 1, 16, 16}, S{1, 3, 16, 11}, S{2, 7, 96, 96}, S{1, 23, 208, 201},
                      S{2, 3, 1024, 1024}, S{3, 17, 32, 32}}) {
    for (bool use_max : {false, true}) {
      const uint32_t m = sh.b * sh.s, k = sh.h;
      auto x = Uniform<T>(m * k, m + k, -3, 3);
      const auto gamma = Uniform<T>(k, 9, 0.5, 1.5);
      const AscendC::TensorShape shape({sh.b, sh.s, sh.h});
      uint32_t max = 0, min = 0;
      ASSERT_TRUE(AscendC::GetRmsNormMaxMinTmpSize(shape, sizeof(T), max, min));
      const uint32_t bytes = use_max ? max : min;
      AscendC::RmsNormTiling tiling;
      ASSERT_TRUE(AscendC::GetRmsNormTilingInfo(shape, AscendC::TensorShape({sh.b, sh.s, sh.ori_h}),
                                                bytes, sizeof(T), tiling));
      std::vector<T> y;
      const auto st = RunOnUb([&](UbArena& a) {
        auto src = a.Load(x);
        auto out = a.Get<T>(m * k);
        AscendC::RmsNorm<T>(out, src, a.Load(gamma), a.Get<uint8_t>(bytes), static_cast<T>(1e-5f),
                            tiling);
        y = FromTensor(out, m * k);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto ref = aicore::ref::RmsNormRows(ToDouble(x), ToDouble(gamma), m, k, sh.ori_h,
                                                static_cast<float>(static_cast<T>(1e-5f)));
      for (uint32_t i = 0; i < m; ++i)
        for (uint32_t j = 0; j < sh.ori_h; ++j)
          ASSERT_NEAR(static_cast<float>(y[i * k + j]), ref.y[i * k + j],
                      Tol<T>() * std::max(1.0, std::fabs(ref.y[i * k + j])) * 2);
    }
  }
}

TEST(RmsNormTiling, RejectsUnpaddedShapesAndSmallBuffers) {
  uint32_t max = 0, min = 0;
  EXPECT_FALSE(AscendC::GetRmsNormMaxMinTmpSize(AscendC::TensorShape({2, 3, 12}), 4, max, min));
  ASSERT_TRUE(AscendC::GetRmsNormMaxMinTmpSize(AscendC::TensorShape({2, 3, 16}), 4, max, min));
  AscendC::RmsNormTiling t;
  EXPECT_FALSE(AscendC::GetRmsNormTilingInfo(AscendC::TensorShape({2, 3, 16}),
                                             AscendC::TensorShape({2, 3, 16}), min - 1, 4, t));
  EXPECT_TRUE(AscendC::GetRmsNormTilingInfo(AscendC::TensorShape({2, 3, 16}),
                                            AscendC::TensorShape({2, 3, 16}), min, 4, t));
  const auto st = RunOnUb([&](UbArena& a) {
    auto x = a.Get<float>(96);
    AscendC::Duplicate(x, 1.0f, 96);
    auto g = a.Get<float>(16);
    AscendC::RmsNorm<float>(x, x, g, a.Get<uint8_t>(min - 32), 1e-5f, t);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("sharedTmpBuffer holds"));
}

}  // namespace
