// LayerNorm (both forms) and its host tiling against tests/reference/norm_ref.h: many shapes,
// both dtypes, min and max scratch, a mean around 1e3, and the error cases.
#include "aicore/kernel/lib/normalization/layernorm.h"

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

struct Bsh {
  uint32_t b, s, h, ori_h;
};
const Bsh kShapes[] = {{1, 1, 16, 16},  {1, 3, 16, 13},  {2, 7, 80, 80},   {1, 13, 208, 199},
                       {3, 5, 512, 500}, {1, 2, 2048, 2048}, {2, 19, 32, 32}, {1, 41, 48, 33}};

template <typename T>
class LayerNormTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(LayerNormTest, Types);

template <typename T>
void CheckBsh(const Bsh& sh, bool use_max, double center, uint32_t seed) {
  const uint32_t m = sh.b * sh.s, k = sh.h;
  auto x = Uniform<T>(m * k, seed, center - 2, center + 2);
  const auto gamma = Uniform<T>(k, seed + 1, 0.5, 1.5);
  const auto beta = Uniform<T>(k, seed + 2, -1, 1);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = sh.ori_h; j < k; ++j) x[i * k + j] = static_cast<T>(0.0f);  // zero pad
  const AscendC::TensorShape shape({sh.b, sh.s, sh.h, sh.ori_h});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormMaxMinTmpSize(shape, sizeof(T), false, max, min);
  ASSERT_LE(min, max);
  const uint32_t bytes = use_max ? max : min;
  AscendC::LayerNormTiling tiling;
  AscendC::GetLayerNormNDTilingInfo(shape, bytes, sizeof(T), false, tiling);
  ASSERT_GT(tiling.bsCurLength, 0u);
  const float eps = 1e-5f;
  std::vector<T> y, mean, var;
  const auto st = RunOnUb([&](UbArena& a) {
    auto src = a.Load(x);
    auto out = a.Get<T>(m * k);
    auto mo = a.Get<T>(m);
    auto vo = a.Get<T>(m);
    AscendC::LayerNorm<T>(out, mo, vo, src, a.Load(gamma), a.Load(beta), a.Get<uint8_t>(bytes),
                          static_cast<T>(eps), tiling);
    y = FromTensor(out, m * k);
    mean = FromTensor(mo, m);
    var = FromTensor(vo, m);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref =
      aicore::ref::LayerNormRows(ToDouble(x), ToDouble(gamma), ToDouble(beta), m, k, sh.ori_h,
                                 static_cast<double>(eps));
  // Half inputs near 1e3 carry 0.5 ulp = 0.25 of noise, so the output tolerance follows
  // the input's resolution relative to the row's spread.
  const double y_tol =
      sizeof(T) == 2 ? 2e-2 * std::max(1.0, center / 64) : 1e-4 * (1 + center / 64);
  for (uint32_t i = 0; i < m; ++i) {
    ASSERT_NEAR(static_cast<float>(mean[i]), ref.mean[i], Tol<T>() * std::max(1.0, center)) << i;
    ASSERT_NEAR(static_cast<float>(var[i]), ref.var[i], 4 * Tol<T>() * std::max(1.0, ref.var[i]))
        << i;
    for (uint32_t j = 0; j < sh.ori_h; ++j)
      ASSERT_NEAR(static_cast<float>(y[i * k + j]), ref.y[i * k + j], y_tol)
          << "row " << i << " col " << j << " h " << k;
  }
}

TYPED_TEST(LayerNormTest, BshMatchesReference) {
  uint32_t seed = 1;
  for (const Bsh& s : kShapes) {
    CheckBsh<TypeParam>(s, false, 0.0, seed++);
    CheckBsh<TypeParam>(s, true, 0.0, seed++);
  }
}

TYPED_TEST(LayerNormTest, LargeMeanDoesNotCancel) {
  CheckBsh<TypeParam>({2, 9, 256, 256}, false, 1e3, 77);
  CheckBsh<TypeParam>({1, 4, 1024, 1000}, true, 1e3, 78);
}

TYPED_TEST(LayerNormTest, ArFormWithRstdAndConfigs) {
  using T = TypeParam;
  using AR = std::pair<uint32_t, uint32_t>;
  for (const auto& [A, R] : {AR{1, 8}, AR{5, 100}, AR{37, 64}, AR{20, 200}, AR{3, 1000}}) {
    const uint32_t k = (R * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    auto x = Uniform<T>(A * k, A + R, -3, 3);
    const auto gamma = Uniform<float>(k, 3, 0.5, 1.5);
    const auto beta = Uniform<float>(k, 4, -1, 1);
    const AscendC::TensorShape shape({A, R});
    uint32_t max = 0, min = 0;
    AscendC::GetLayerNormMaxMinTmpSize(shape, sizeof(T), false, true, false, max, min);
    AscendC::LayerNormSeparateTiling tiling;
    AscendC::GetLayerNormNDTilingInfo(shape, min, sizeof(T), false, true, tiling);
    ASSERT_GT(tiling.aCurLength, 0u);
    std::vector<T> y, y_ng;
    std::vector<float> mean, rstd;
    const auto st = RunOnUb([&](UbArena& a) {
      auto src = a.Load(x);
      auto out = a.Get<T>(A * k);
      auto out2 = a.Get<T>(A * k);
      auto mo = a.Get<float>(A);
      auto ro = a.Get<float>(A);
      auto tmp = a.Get<uint8_t>(min);
      auto g = a.Load(gamma);
      auto b = a.Load(beta);
      const AscendC::LayerNormPara para = {A, R, k};
      AscendC::LayerNorm<float, T>(out, mo, ro, src, g, b, 1e-5f, tmp, para, tiling);
      static constexpr AscendC::LayerNormConfig kNoGammaBeta = {true, true, false, true};
      AscendC::LayerNorm<float, T, false, kNoGammaBeta>(out2, mo, ro, src, g, b, 1e-5f, tmp,
                                                        para, tiling);
      y = FromTensor(out, A * k);
      y_ng = FromTensor(out2, A * k);
      mean = FromTensor(mo, A);
      rstd = FromTensor(ro, A);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto ref = aicore::ref::LayerNormRows(ToDouble(x), ToDouble(gamma), ToDouble(beta), A,
                                                k, R, 1e-5);
    const auto ref_ng = aicore::ref::LayerNormRows(ToDouble(x), {}, {}, A, k, R, 1e-5);
    for (uint32_t i = 0; i < A; ++i) {
      ASSERT_NEAR(mean[i], ref.mean[i], 1e-5);
      ASSERT_NEAR(rstd[i], ref.rstd[i], 1e-4 * ref.rstd[i]);
      for (uint32_t j = 0; j < R; ++j) {
        ASSERT_NEAR(static_cast<float>(y[i * k + j]), ref.y[i * k + j], 3 * Tol<T>() * 4);
        ASSERT_NEAR(static_cast<float>(y_ng[i * k + j]), ref_ng.y[i * k + j], 3 * Tol<T>() * 4);
      }
    }
  }
}

TEST(LayerNormStack, OverloadWithoutScratchMatchesTheScratchForm) {
  const AscendC::TensorShape shape({1, 8, 64, 64});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormMaxMinTmpSize(shape, 4, false, max, min);
  AscendC::LayerNormTiling tiling;
  AscendC::GetLayerNormNDTilingInfo(shape, min, 4, false, tiling);
  const auto x = Uniform<float>(8 * 64, 5, -2, 2);
  const auto g = Uniform<float>(64, 6, 0.5, 1.5);
  std::vector<float> y1, y2;
  const auto st = RunOnUb([&](UbArena& a) {
    auto src = a.Load(x);
    auto gamma = a.Load(g);
    auto o1 = a.Get<float>(8 * 64), o2 = a.Get<float>(8 * 64);
    auto mo = a.Get<float>(8), vo = a.Get<float>(8);
    AscendC::LayerNorm<float>(o1, mo, vo, src, gamma, gamma, a.Get<uint8_t>(min), 1e-5f, tiling);
    AscendC::LayerNorm<float>(o2, mo, vo, src, gamma, gamma, 1e-5f, tiling);
    y1 = FromTensor(o1, 8 * 64);
    y2 = FromTensor(o2, 8 * 64);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(y1, y2);
}

TEST(LayerNormErrors, ScratchBelowMinimumIsAClearError) {
  const AscendC::TensorShape shape({2, 20, 64, 64});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormMaxMinTmpSize(shape, 4, false, max, min);
  AscendC::LayerNormTiling tiling;
  AscendC::GetLayerNormNDTilingInfo(shape, min - 32, 4, false, tiling);
  EXPECT_EQ(tiling.bsCurLength, 0u);
  const auto st = RunOnUb([&](UbArena& a) {
    auto x = a.Get<float>(40 * 64);
    AscendC::Duplicate(x, 1.0f, 40 * 64);
    auto g = a.Get<float>(64);
    AscendC::Duplicate(g, 1.0f, 64);
    auto mo = a.Get<float>(40);
    AscendC::LayerNorm<float>(x, mo, mo, x, g, g, a.Get<uint8_t>(min - 32), 1e-5f, tiling);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("sharedTmpBuffer holds"));
}

TEST(LayerNormTiling, LegacyMisspelledNameFillsTheSameTiling) {
  const AscendC::TensorShape shape({2, 40, 64, 60});
  AscendC::LayerNormTiling a, b;
  AscendC::GetLayerNormNDTilingInfo(shape, 40000, 4, false, a);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  AscendC::GetLayerNormNDTillingInfo(shape, 40000, 4, false, b);
#pragma GCC diagnostic pop
  EXPECT_EQ(std::memcmp(&a, &b, sizeof(a)), 0);
  EXPECT_EQ(a.bsCurLength % 16, 0u);
  EXPECT_EQ(a.loopRound * a.bsCurLength + a.meanVarTailSize, 80u);
  EXPECT_FLOAT_EQ(a.lastDimValueBack, 1.0f / 60);
}

}  // namespace
