// LayerNormGrad and LayerNormGradBeta with their host tilings against tests/reference/norm_ref.h
// (the documented formulas in double), the reference itself against finite differences of the
// double LayerNorm, awkward shapes (tails of the 16-row chunks, padded H, one row), both dtypes,
// min and max scratch, and the error cases.
#include "aicore/kernel/lib/normalization/layernormgrad.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "aicore/kernel/lib/normalization/layernorm.h"
#include "aicore/kernel/lib/normalization/layernormgradbeta.h"
#include "aicore/runtime/ascendc/tiling/tiling_api.h"
#include "tests/kernel/lib/lib_test_util.h"
#include "tests/reference/norm_ref.h"

namespace {

using aicore::testing::FromDouble;
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

// L(x, gamma, beta) = sum(dy * LayerNorm(x)) in double.
double Loss(const std::vector<double>& x, const std::vector<double>& g,
            const std::vector<double>& be, const std::vector<double>& dy, uint32_t m, uint32_t k,
            uint32_t valid, double eps) {
  const auto r = aicore::ref::LayerNormRows(x, g, be, m, k, valid, eps);
  double l = 0;
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < valid; ++j) l += dy[i * k + j] * r.y[i * k + j];
  return l;
}

TEST(LayerNormGradReference, MatchesFiniteDifferencesOfLayerNorm) {
  const uint32_t m = 3, k = 16, valid = 13;
  const double eps = 1e-3;
  auto x = ToDouble(Uniform<float>(m * k, 11, -2, 2));
  auto g = ToDouble(Uniform<float>(k, 12, 0.5, 1.5));
  auto be = ToDouble(Uniform<float>(k, 13, -1, 1));
  const auto dy = ToDouble(Uniform<float>(m * k, 14, -1, 1));
  const auto fwd = aicore::ref::LayerNormRows(x, g, be, m, k, valid, eps);
  const auto grad = aicore::ref::LayerNormGradRows(dy, x, fwd.var, fwd.mean, g, m, k, valid, eps);
  std::vector<double> dy_valid = dy;  // the padding columns take no part
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = valid; j < k; ++j) dy_valid[i * k + j] = 0;
  const auto cols = aicore::ref::LayerNormGradBetaCols(dy_valid, grad.res_for_gamma, m, k);
  const double h = 1e-5;
  auto central = [&](std::vector<double>& v, size_t idx) {
    const double keep = v[idx];
    v[idx] = keep + h;
    const double up = Loss(x, g, be, dy, m, k, valid, eps);
    v[idx] = keep - h;
    const double down = Loss(x, g, be, dy, m, k, valid, eps);
    v[idx] = keep;
    return (up - down) / (2 * h);
  };
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < valid; ++j)
      EXPECT_NEAR(grad.pd_x[i * k + j], central(x, i * k + j), 1e-6) << i << "," << j;
  for (uint32_t j = 0; j < valid; ++j) {
    EXPECT_NEAR(cols.pd_gamma[j], central(g, j), 1e-6) << j;
    EXPECT_NEAR(cols.pd_beta[j], central(be, j), 1e-6) << j;
  }
}

template <typename T>
class LayerNormGradTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(LayerNormGradTest, Types);

// Shapes with H a multiple of 16 (32 bytes of half), chunk tails and padded rows; each fits the
// test UB arena (4 row tensors plus the scratch).
const Bsh kShapes[] = {{1, 1, 16, 16}, {1, 3, 16, 13},  {2, 7, 80, 80},   {1, 13, 208, 199},
                       {4, 9, 16, 16}, {1, 37, 64, 64}, {2, 19, 32, 31}, {1, 2, 1024, 1000},
                       {2, 32, 16, 16}};

// Runs LayerNormGrad then LayerNormGradBeta on random data whose mean/variance come from the
// double forward (rounded to T as a kernel receives them), and checks both against the reference
// evaluated on exactly the values the kernel saw.
template <typename T>
void CheckGrad(const Bsh& sh, bool use_max, uint32_t seed) {
  const uint32_t m = sh.b * sh.s, k = sh.h;
  auto x = Uniform<T>(m * k, seed, -2, 2);
  const auto gamma = Uniform<T>(k, seed + 1, 0.5, 1.5);
  const auto dy = Uniform<T>(m * k, seed + 2, -1, 1);
  const auto fwd = aicore::ref::LayerNormRows(ToDouble(x), {}, {}, m, k, sh.ori_h, 0.0);
  const auto mean = FromDouble<T>(fwd.mean);
  const auto var = FromDouble<T>(fwd.var);
  const float eps = 1e-4f;
  const AscendC::TensorShape shape({sh.b, sh.s, sh.h, sh.ori_h});
  uint32_t max = 0, min = 0, bmax = 0, bmin = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, sizeof(T), false, max, min);
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(shape, sizeof(T), false, bmax, bmin);
  ASSERT_LE(min, max);
  ASSERT_LE(bmin, bmax);
  const uint32_t bytes = use_max ? max : min;
  const uint32_t bbytes = use_max ? bmax : bmin;
  AscendC::LayerNormGradTiling tiling;
  AscendC::GetLayerNormGradNDTilingInfo(shape, bytes, sizeof(T), false, tiling);
  AscendC::LayerNormGradBetaTiling btiling;
  AscendC::GetLayerNormGradBetaNDTilingInfo(shape, bbytes, sizeof(T), false, btiling);
  ASSERT_EQ(tiling.oneCalSize, use_max ? m : std::min(m, 16u));
  ASSERT_EQ(tiling.loopNum * tiling.oneCalSize + tiling.tailSize, m);
  ASSERT_EQ(btiling.loopRound * btiling.bsCurLength + btiling.bsTailSize, m);
  std::vector<T> pdx, res, pdg, pdb;
  const auto st = RunOnUb([&](UbArena& a) {
    auto ub_dy = a.Load(dy);
    auto ub_x = a.Load(x);
    auto ub_pdx = a.Get<T>(m * k);
    auto ub_res = a.Get<T>(m * k);
    auto ub_pdg = a.Get<T>(k);
    auto ub_pdb = a.Get<T>(k);
    auto tmp = a.Get<uint8_t>(std::max(bytes, bbytes));
    AscendC::LayerNormGrad<T>(ub_pdx, ub_res, ub_dy, ub_x, a.Load(var), a.Load(mean),
                              a.Load(gamma), tmp, static_cast<T>(eps), tiling);
    AscendC::LayerNormGradBeta<T>(ub_pdg, ub_pdb, ub_res, ub_dy, tmp, btiling);
    pdx = FromTensor(ub_pdx, m * k);
    res = FromTensor(ub_res, m * k);
    pdg = FromTensor(ub_pdg, k);
    pdb = FromTensor(ub_pdb, k);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto dy_d = ToDouble(dy);
  const auto ref = aicore::ref::LayerNormGradRows(dy_d, ToDouble(x), ToDouble(var), ToDouble(mean),
                                                  ToDouble(gamma), m, k, sh.ori_h,
                                                  static_cast<double>(static_cast<T>(eps)));
  for (uint32_t i = 0; i < m; ++i) {
    // pd_x sums three terms of size rstd * |dy * gamma|: the tolerance follows that scale.
    const double rstd = 1.0 / std::sqrt(static_cast<double>(static_cast<float>(var[i])) + eps);
    const double scale = 1.0 + 3.0 * rstd;
    for (uint32_t j = 0; j < sh.ori_h; ++j) {
      ASSERT_NEAR(static_cast<float>(pdx[i * k + j]), ref.pd_x[i * k + j], 8 * Tol<T>() * scale)
          << "pd_x row " << i << " col " << j << " shape " << sh.b << "x" << sh.s << "x" << k;
      ASSERT_NEAR(static_cast<float>(res[i * k + j]), ref.res_for_gamma[i * k + j],
                  4 * Tol<T>() * (1 + std::abs(ref.res_for_gamma[i * k + j])))
          << "resForGamma row " << i << " col " << j;
    }
  }
  // The column sums over what LayerNormGrad wrote (resForGamma as T) and dy.
  const auto cols = aicore::ref::LayerNormGradBetaCols(dy_d, ToDouble(res), m, k);
  for (uint32_t j = 0; j < sh.ori_h; ++j) {
    double abs_g = 0, abs_b = 0;
    for (uint32_t i = 0; i < m; ++i) {
      abs_g += std::abs(dy_d[i * k + j] * static_cast<float>(res[i * k + j]));
      abs_b += std::abs(dy_d[i * k + j]);
    }
    ASSERT_NEAR(static_cast<float>(pdg[j]), cols.pd_gamma[j],
                Tol<T>() * std::abs(cols.pd_gamma[j]) + 1e-5 * abs_g + 1e-6)
        << "pd_gamma col " << j;
    ASSERT_NEAR(static_cast<float>(pdb[j]), cols.pd_beta[j],
                Tol<T>() * std::abs(cols.pd_beta[j]) + 1e-5 * abs_b + 1e-6)
        << "pd_beta col " << j;
  }
}

TYPED_TEST(LayerNormGradTest, MatchesReferenceWithMinAndMaxScratch) {
  uint32_t seed = 100;
  for (const Bsh& s : kShapes) {
    CheckGrad<TypeParam>(s, false, seed++);
    CheckGrad<TypeParam>(s, true, seed++);
  }
}

// The three APIs in a row, as a training step uses them (the asc-devkit layernorm sample's
// shape): the gradients of sum(dy * LayerNorm(x)) against finite differences in double.
TEST(LayerNormGradPipeline, ForwardThenBothGradientsMatchFiniteDifferences) {
  const uint32_t b = 2, s = 32, h = 16, m = b * s;
  const auto x = Uniform<float>(m * h, 7, -1, 1);
  const auto gamma = Uniform<float>(h, 8, 0.5, 1.5);
  const auto beta = Uniform<float>(h, 9, -1, 1);
  const auto dy = Uniform<float>(m * h, 10, -1, 1);
  const float eps = 1e-4f;
  const AscendC::TensorShape shape({b, s, h, h});
  uint32_t max[3], min[3];
  AscendC::GetLayerNormMaxMinTmpSize(shape, 4, false, max[0], min[0]);
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, 4, false, max[1], min[1]);
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(shape, 4, false, max[2], min[2]);
  const uint32_t bytes = std::max({min[0], min[1], min[2]});
  AscendC::LayerNormTiling t0;
  AscendC::LayerNormGradTiling t1;
  AscendC::LayerNormGradBetaTiling t2;
  AscendC::GetLayerNormNDTilingInfo(shape, bytes, 4, false, t0);
  AscendC::GetLayerNormGradNDTilingInfo(shape, bytes, 4, false, t1);
  AscendC::GetLayerNormGradBetaNDTilingInfo(shape, bytes, 4, false, t2);
  std::vector<float> pdx, pdg, pdb;
  const auto st = RunOnUb([&](UbArena& a) {
    auto ub_x = a.Load(x), ub_g = a.Load(gamma), ub_dy = a.Load(dy);
    auto y = a.Get<float>(m * h), mean = a.Get<float>(m), var = a.Get<float>(m);
    auto ub_pdx = a.Get<float>(m * h), res = a.Get<float>(m * h);
    auto ub_pdg = a.Get<float>(h), ub_pdb = a.Get<float>(h);
    // The stack overloads: the scratch is the UB after the arena.
    AscendC::LayerNorm<float>(y, mean, var, ub_x, ub_g, a.Load(beta), eps, t0);
    AscendC::LayerNormGrad<float>(ub_pdx, res, ub_dy, ub_x, var, mean, ub_g, eps, t1);
    AscendC::LayerNormGradBeta<float>(ub_pdg, ub_pdb, res, ub_dy, t2);
    pdx = FromTensor(ub_pdx, m * h);
    pdg = FromTensor(ub_pdg, h);
    pdb = FromTensor(ub_pdb, h);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto xd = ToDouble(x), gd = ToDouble(gamma), bd = ToDouble(beta);
  const auto dyd = ToDouble(dy);
  const double step = 1e-5;
  auto central = [&](std::vector<double>& v, size_t idx) {
    const double keep = v[idx];
    v[idx] = keep + step;
    const double up = Loss(xd, gd, bd, dyd, m, h, h, eps);
    v[idx] = keep - step;
    const double down = Loss(xd, gd, bd, dyd, m, h, h, eps);
    v[idx] = keep;
    return (up - down) / (2 * step);
  };
  for (uint32_t i = 0; i < m * h; i += 7) EXPECT_NEAR(pdx[i], central(xd, i), 2e-3) << i;
  for (uint32_t j = 0; j < h; ++j) {
    EXPECT_NEAR(pdg[j], central(gd, j), 2e-3) << j;
    EXPECT_NEAR(pdb[j], central(bd, j), 2e-3) << j;
  }
}

TEST(LayerNormGradTiling, FieldsDescribeTheChunksAndTheReciprocals) {
  const AscendC::TensorShape shape({3, 30, 64, 60});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, 4, false, max, min);
  AscendC::LayerNormGradTiling t;
  AscendC::GetLayerNormGradNDTilingInfo(shape, (min + max) / 2, 4, false, t);
  EXPECT_EQ(t.oneCalSize % 16, 0u);
  EXPECT_GT(t.oneCalSize, 16u);
  EXPECT_LT(t.oneCalSize, 90u);
  EXPECT_EQ(t.nohCalSize, t.oneCalSize * 64);
  EXPECT_EQ(t.loopNum * t.oneCalSize + t.tailSize, 90u);
  EXPECT_EQ(t.nohTailSize, t.tailSize * 64);
  EXPECT_EQ(std::bit_cast<float>(t.lastDimValueBack), 1.0f / 60);
  EXPECT_EQ(std::bit_cast<float>(t.lastDimValueBackMulTwo), 2.0f / 60);
  AscendC::GetLayerNormGradNDTilingInfo(shape, min - 32, 4, false, t);
  EXPECT_EQ(t.oneCalSize, 0u);
  AscendC::LayerNormGradBetaTiling bt;
  AscendC::GetLayerNormGradBetaMaxMinTmpSize(shape, 2, false, max, min);
  AscendC::GetLayerNormGradBetaNDTilingInfo(shape, max, 2, false, bt);
  EXPECT_EQ(bt.bsCurLength, 90u);
  EXPECT_EQ(bt.bshLength, 90u * 64);
  EXPECT_EQ(bt.loopRound, 1u);
  EXPECT_EQ(bt.bsTailSize, 0u);
}

TEST(LayerNormGradErrors, ScratchBelowMinimumIsAClearError) {
  const AscendC::TensorShape shape({1, 20, 32, 32});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, 4, false, max, min);
  AscendC::LayerNormGradTiling t;
  AscendC::GetLayerNormGradNDTilingInfo(shape, min - 32, 4, false, t);
  const auto st = RunOnUb([&](UbArena& a) {
    auto v = a.Get<float>(20 * 32);
    AscendC::Duplicate(v, 1.0f, 20 * 32);
    auto o1 = a.Get<float>(20 * 32), o2 = a.Get<float>(20 * 32);
    AscendC::LayerNormGrad<float>(o1, o2, v, v, v, v, v, a.Get<uint8_t>(min - 32), 1e-5f, t);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("sharedTmpBuffer holds"));
  EXPECT_THAT(st.ToString(), HasSubstr("LayerNormGrad"));
}

TEST(LayerNormGradErrors, OutputOverlappingAnInputIsRefused) {
  const AscendC::TensorShape shape({1, 4, 32, 32});
  uint32_t max = 0, min = 0;
  AscendC::GetLayerNormGradMaxMinTmpSize(shape, 4, false, max, min);
  AscendC::LayerNormGradTiling t;
  AscendC::GetLayerNormGradNDTilingInfo(shape, max, 4, false, t);
  const auto st = RunOnUb([&](UbArena& a) {
    auto v = a.Get<float>(4 * 32);
    AscendC::Duplicate(v, 1.0f, 4 * 32);
    auto o = a.Get<float>(4 * 32);
    AscendC::LayerNormGrad<float>(v, o, v, v, v, v, v, a.Get<uint8_t>(max), 1e-5f, t);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("overlap"));
}

TEST(LayerNormGradErrors, UnalignedRowLengthIsRefused) {
  AscendC::LayerNormGradBetaTiling t;
  AscendC::GetLayerNormGradBetaNDTilingInfo(AscendC::TensorShape({1, 2, 12, 12}), 4096, 4,
                                            false, t);
  const auto st = RunOnUb([&](UbArena& a) {
    auto v = a.Get<float>(32);
    AscendC::Duplicate(v, 1.0f, 32);
    auto g = a.Get<float>(16), b = a.Get<float>(16);
    AscendC::LayerNormGradBeta<float>(g, b, v, v, a.Get<uint8_t>(4096), t);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("multiple of 32 bytes"));
}

}  // namespace
