// LayerNorm and RmsNorm through the C++ API against double-precision references: every dtype,
// rows of 1, primes and tails, rows longer than UB (the online pass), a mean around 1e3, optional
// weight / bias / mean / rstd, a transposed input, ranks 1..8, empty tensors and the checks.
#include <gtest/gtest.h>

#include <optional>

#include "aicore/arch/chip.h"
#include "ops_lib_test_util.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::ExpectNear;
using testing::Inputs;
using testing::TolFor;

const DType kDTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

struct LnCase {
  DType dt;
  int64_t rows, cols;
  bool weight, bias;
  DType param_dt;
  double lo, hi;
  uint64_t max_ub = 0;
  double atol = 0;  // > 0: overrides the dtype's absolute tolerance of out
};

void CheckLayerNorm(const LnCase& c) {
  SCOPED_TRACE(StrCat(OpDTypeName(c.dt), " rows=", c.rows, " cols=", c.cols, " w=", c.weight,
                      " b=", c.bias, " param ", OpDTypeName(c.param_dt), " ub cap ", c.max_ub));
  const int64_t n = c.rows * c.cols;
  DeviceTensor x(c.dt, n), y(c.dt, n), w(c.param_dt, c.cols), b(c.param_dt, c.cols);
  DeviceTensor mean(DType::kF32, c.rows), rstd(DType::kF32, c.rows);
  const auto xv = x.Fill(Inputs(n, c.lo, c.hi, static_cast<uint32_t>(c.cols)));
  const auto wv = c.weight ? w.Fill(Inputs(c.cols, 0.5, 1.5, 2)) : std::vector<double>{};
  const auto bv = c.bias ? b.Fill(Inputs(c.cols, -1, 1, 3)) : std::vector<double>{};
  LayerNormArgs a;
  a.input = x.Ref({c.rows, c.cols});
  a.normalized_shape = {c.cols};
  if (c.weight) a.weight = w.Ref({c.cols});
  if (c.bias) a.bias = b.Ref({c.cols});
  a.eps = 1e-5;
  a.out = y.Ref({c.rows, c.cols});
  a.mean = mean.Ref({c.rows, 1});
  a.rstd = rstd.Ref({c.rows, 1});
  a.max_ub_bytes = c.max_ub;
  if (c.max_ub) {
    EXPECT_TRUE(Plan(a, arch::DefaultChip()).rows.tiling.online);
  }
  ASSERT_TRUE(ops::Run(a).ok());
  testing::Sync();
  std::vector<double> want_mean, want_rstd;
  const auto want = ref::LayerNormRowsRef(xv, c.rows, c.cols, wv, bv, 1e-5, &want_mean, &want_rstd);
  testing::Tolerance tol = TolFor(c.dt);
  tol.atol = c.atol > 0 ? c.atol : std::max(tol.atol, tol.rtol);  // normalized values near 0
  ExpectNear(y.Read(), want, tol, "out");
  ExpectNear(mean.Read(), want_mean, {1e-6, 1e-5}, "mean");
  ExpectNear(rstd.Read(), want_rstd, {5e-5, 1e-6}, "rstd");
}

TEST(NormOpsTest, LayerNormOnePass) {
  for (DType dt : kDTypes) {
    CheckLayerNorm({dt, 1, 1, false, false, dt, -2, 2});
    CheckLayerNorm({dt, 97, 101, true, true, dt, -2, 2});
    CheckLayerNorm({dt, 33, 1000, true, false, DType::kF32, -2, 2});
    CheckLayerNorm({dt, 5, 4099, false, true, DType::kF32, -2, 2});
  }
}

TEST(NormOpsTest, LayerNormOnlinePassForLongRows) {
  for (DType dt : kDTypes) {
    CheckLayerNorm({dt, 3, 20011, true, true, dt, -2, 2});
    CheckLayerNorm({dt, 7, 3001, true, true, DType::kF32, -2, 2, 16 * 1024});
  }
}

TEST(NormOpsTest, LayerNormMeanAround1e3DoesNotCancel) {
  // Values in [999, 1001] (std 0.58): an fp32 mean is good to about one ulp(1000) = 6e-5, which
  // is 1e-4 after normalisation, so out may be off by 2e-4; E[x^2] - E[x]^2 would lose the
  // variance entirely (1e6 - 1e6 with ulp 0.06).
  CheckLayerNorm({DType::kF32, 16, 4096, true, true, DType::kF32, 999, 1001, 0, 2e-4});
  CheckLayerNorm({DType::kF32, 4, 10007, true, true, DType::kF32, 999, 1001, 16 * 1024, 2e-4});
}

TEST(NormOpsTest, LayerNormOverTwoTrailingDimsOfATransposedView) {
  // input: a (4, 6, 5) view with strides (1, 20, 4) over 120 elements; normalizedShape [6, 5].
  DeviceTensor x(DType::kF32, 120), y(DType::kF32, 120);
  const auto xv = x.Fill(Inputs(120, -1, 1, 21));
  LayerNormArgs a;
  a.input = x.Ref({4, 6, 5}, {1, 20, 4});
  a.normalized_shape = {6, 5};
  a.out = y.Ref({4, 6, 5});
  ASSERT_TRUE(ops::Run(a).ok());
  testing::Sync();
  std::vector<double> rows(120);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 5; ++k) rows[(i * 6 + j) * 5 + k] = xv[i + j * 20 + k * 4];
  std::vector<double> m, r;
  ExpectNear(y.Read(), ref::LayerNormRowsRef(rows, 4, 30, {}, {}, 1e-5, &m, &r), {2e-5, 2e-5},
             "transposed");
}

TEST(NormOpsTest, LayerNormHalfMeanAndRstdOutputsAreConverted) {
  // mean / rstd of FLOAT16 (the kernel writes fp32 slots; the scatter converts).
  const int64_t rows = 9, cols = 70;
  DeviceTensor x(DType::kF16, rows * cols), y(DType::kF16, rows * cols);
  DeviceTensor mean(DType::kF16, rows), rstd(DType::kF16, rows);
  const auto xv = x.Fill(Inputs(rows * cols, 1, 3, 5));
  TensorRef m = mean.Ref({rows, 1}), r = rstd.Ref({rows, 1});
  ASSERT_TRUE(
      LayerNorm(x.Ref({rows, cols}), {cols}, nullptr, nullptr, 1e-5, y.Ref({rows, cols}), &m, &r)
          .ok());
  testing::Sync();
  std::vector<double> wm, wr;
  ref::LayerNormRowsRef(xv, rows, cols, {}, {}, 1e-5, &wm, &wr);
  ExpectNear(mean.Read(), wm, TolFor(DType::kF16), "mean");
  ExpectNear(rstd.Read(), wr, TolFor(DType::kF16), "rstd");
}

TEST(NormOpsTest, LayerNormEmptyAndZeroWidth) {
  DeviceTensor x(DType::kF32, 4), y(DType::kF32, 4), mean(DType::kF32, 4), rstd(DType::kF32, 4);
  TensorRef m = mean.Ref({4, 1}), r = rstd.Ref({4, 1});
  EXPECT_TRUE(
      LayerNorm(x.Ref({0, 4}), {4}, nullptr, nullptr, 1e-5, y.Ref({0, 4}), nullptr, nullptr).ok());
  mean.Fill({5, 5, 5, 5});
  ASSERT_TRUE(LayerNorm(x.Ref({4, 0}), {0}, nullptr, nullptr, 1e-5, y.Ref({4, 0}), &m, &r).ok());
  testing::Sync();
  for (double v : mean.Read()) EXPECT_EQ(v, 0.0);
  for (double v : rstd.Read()) EXPECT_TRUE(std::isnan(v));
}

TEST(NormOpsTest, LayerNormBadArguments) {
  DeviceTensor x(DType::kF32, 24), y(DType::kF32, 24), w(DType::kF16, 4);
  Status s = LayerNorm(x.Ref({6, 4}), {3}, nullptr, nullptr, 1e-5, y.Ref({6, 4}), nullptr, nullptr);
  EXPECT_NE(s.message().find("normalizedShape [3] is not the trailing dims of input [6, 4]"),
            std::string::npos)
      << s.message();
  TensorRef wr = w.Ref({4});
  DeviceTensor xh(DType::kBF16, 24), yh(DType::kBF16, 24);
  s = LayerNorm(xh.Ref({6, 4}), {4}, &wr, nullptr, 1e-5, yh.Ref({6, 4}), nullptr, nullptr);
  EXPECT_NE(s.message().find(
                "weightOptional has dtype FLOAT16; allowed: input's dtype BFLOAT16 or FLOAT"),
            std::string::npos)
      << s.message();
  TensorRef mean = y.Ref({6});
  s = LayerNorm(x.Ref({6, 4}), {4}, nullptr, nullptr, 1e-5, y.Ref({6, 4}), &mean, nullptr);
  EXPECT_NE(s.message().find("meanOutOptional has shape [6]; it must be [6, 1]"), std::string::npos)
      << s.message();
}

void CheckRmsNorm(DType dt, DType gamma_dt, std::vector<int64_t> shape, size_t k,
                  uint64_t max_ub = 0) {
  int64_t n = 1, cols = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    n *= shape[i];
    if (i >= shape.size() - k) cols *= shape[i];
  }
  const int64_t rows = n / cols;
  SCOPED_TRACE(
      StrCat(OpDTypeName(dt), " gamma ", OpDTypeName(gamma_dt), " ", ShapeString(shape), " k=", k));
  std::vector<int64_t> gshape(shape.end() - k, shape.end()), rshape = shape;
  for (size_t i = shape.size() - k; i < shape.size(); ++i) rshape[i] = 1;
  DeviceTensor x(dt, n), y(dt, n), g(gamma_dt, cols), rstd(DType::kF32, rows);
  const auto xv = x.Fill(Inputs(n, -3, 3, static_cast<uint32_t>(n)));
  const auto gv = g.Fill(Inputs(cols, 0.5, 2, 7));
  RmsNormArgs a;
  a.x = x.Ref(shape);
  a.gamma = g.Ref(gshape);
  a.y = y.Ref(shape);
  a.rstd = rstd.Ref(rshape);
  a.max_ub_bytes = max_ub;
  ASSERT_TRUE(ops::Run(a).ok());
  testing::Sync();
  std::vector<double> want_rstd;
  const auto want = ref::RmsNormRowsRef(xv, rows, cols, gv, 1e-6, &want_rstd);
  ExpectNear(y.Read(), want, TolFor(dt), "y");
  ExpectNear(rstd.Read(), want_rstd, {5e-5, 1e-6}, "rstd");
}

TEST(NormOpsTest, RmsNormShapesAndDTypes) {
  for (DType dt : kDTypes) {
    CheckRmsNorm(dt, dt, {1}, 1);
    CheckRmsNorm(dt, DType::kF32, {2, 3, 4, 8}, 1);
    CheckRmsNorm(dt, dt, {13, 7, 131}, 2);
    CheckRmsNorm(dt, dt, {3, 20011}, 1);
    CheckRmsNorm(dt, DType::kF32, {5, 3001}, 1, 16 * 1024);
  }
  for (int rank = 1; rank <= 8; ++rank) {
    std::vector<int64_t> shape(rank, 2);
    shape.back() = 9;
    CheckRmsNorm(DType::kF32, DType::kF32, shape, 1);
  }
}

TEST(NormOpsTest, SeveralRowsPerTileUpToTheUbBudget) {
  // 4096 columns: 16-bit queue slots hold twice the rows of fp32; enough rows that every block
  // takes a full tile and a tail. The kernel fails the launch if UB is exceeded.
  const int64_t rows = 4 * BudgetOf(arch::DefaultChip()).cores + 5;
  for (DType dt : kDTypes) {
    CheckLayerNorm({dt, rows, 4096, true, true, dt, -2, 2});
    CheckLayerNorm({dt, rows, 4096, true, false, DType::kF32, -2, 2});
    CheckRmsNorm(dt, dt, {rows, 4096}, 1);
  }
}

TEST(NormOpsTest, RmsNormShapeRulesAreTilingErrors) {
  RmsNormArgs a;
  DeviceTensor x(DType::kF32, 24), y(DType::kF32, 24), g(DType::kF32, 4), r(DType::kF32, 6);
  a.x = x.Ref({6, 4});
  a.gamma = g.Ref({3});
  a.y = y.Ref({6, 4});
  a.rstd = r.Ref({6, 1});
  OpCheck c = CanImplement(a, arch::DefaultChip());
  EXPECT_EQ(c.code, 561002);
  EXPECT_NE(c.message.find("gamma has shape [3]; it must be the trailing dims of x [6, 4]"),
            std::string::npos)
      << c.message;
  a.gamma = g.Ref({4});
  a.rstd = r.Ref({6});
  c = CanImplement(a, arch::DefaultChip());
  EXPECT_EQ(c.code, 561002);
  EXPECT_NE(c.message.find("rstdOut has shape [6]; it must be [6, 1]"), std::string::npos);
  a.rstd = DenseRef(r.data(), DType::kF16, {6, 1});
  c = CanImplement(a, arch::DefaultChip());
  EXPECT_EQ(c.code, 161002);
  EXPECT_NE(c.message.find("rstdOut has dtype FLOAT16; it must be FLOAT"), std::string::npos);
}

}  // namespace
}  // namespace aicore::ops
