// SoftmaxBackward and LayerNormBackward against the analytic gradients in double
// (tests/reference/ops_ref.h) and against finite differences of the forward references, over
// sizes 1, primes, rows longer than UB, non-last dims, every dtype, outputMask, and the documented
// status codes through the aclnn entry points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "tests/ops/ops_lib_test_util.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::Inputs;
using testing::Sync;

// |got - want| <= rtol (|want| + max |want|): backward outputs cancel (g - s), so their error
// scales with the row's magnitude, not with each element.
void ExpectGradNear(const std::vector<double>& got, const std::vector<double>& want, DType dt,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double peak = 0;
  for (double v : want) peak = std::max(peak, std::fabs(v));
  const double rtol = testing::TolFor(dt).rtol * 2;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = rtol * (std::fabs(want[i]) + peak) + 1e-6;
    if (!(std::fabs(got[i] - want[i]) <= tol) && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

// Transposes a (rows, cols) row-major matrix.
std::vector<double> Transpose(const std::vector<double>& v, int64_t rows, int64_t cols) {
  std::vector<double> t(v.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = v[r * cols + c];
  }
  return t;
}

void CheckSoftmaxBackward(DType dt, int64_t rows, int64_t cols, bool along_rows,
                          uint64_t max_ub = 0) {
  // along_rows: the softmax dim is the last of (rows, cols); else dim 0 of (cols, rows).
  const std::vector<double> x = Inputs(rows * cols, -3, 3, 5);
  const std::vector<double> y = ref::SoftmaxRowsRef(x, rows, cols, false);
  DeviceTensor dg(dt, rows * cols), dy(dt, rows * cols), dout(dt, rows * cols);
  std::vector<double> g = dg.Fill(Inputs(rows * cols, -1, 1, 6));
  std::vector<double> ys = dy.Fill(along_rows ? y : Transpose(y, rows, cols));
  if (!along_rows) g = Transpose(g, cols, rows), ys = Transpose(ys, cols, rows);
  const std::vector<int64_t> shape =
      along_rows ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{cols, rows};
  SoftmaxBackwardArgs a;
  a.grad_output = dg.Ref(shape);
  a.output = dy.Ref(shape);
  a.dim = along_rows ? -1 : 0;
  a.out = dout.Ref(shape);
  a.max_ub_bytes = max_ub;
  const Status s = Run(a);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Sync();
  std::vector<double> got = dout.Read();
  if (!along_rows) got = Transpose(got, cols, rows);
  ExpectGradNear(got, ref::SoftmaxBackwardRowsRef(g, ys, rows, cols), dt,
                 StrCat("SoftmaxBackward ", rows, "x", cols, along_rows ? " dim -1 " : " dim 0 ",
                        OpDTypeName(dt), max_ub ? " online" : ""));
}

TEST(SoftmaxBackwardTest, MatchesAnalyticGradient) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    CheckSoftmaxBackward(dt, 1, 1, true);
    CheckSoftmaxBackward(dt, 7, 13, true);
    CheckSoftmaxBackward(dt, 31, 3, false);
    CheckSoftmaxBackward(dt, 3, 20011, true);  // rows longer than UB: online
    CheckSoftmaxBackward(dt, 5, 1000, true, 16 << 10);
  }
}

TEST(SoftmaxBackwardTest, ZeroDimAndEmpty) {
  // A 0-d softmax is 1 and its gradient 0; an empty tensor runs nothing.
  DeviceTensor g(DType::kF32, 1), y(DType::kF32, 1), out(DType::kF32, 1);
  g.Fill({0.75});
  y.Fill({1.0});
  out.Fill({5.0});
  ASSERT_TRUE(SoftmaxBackward(g.Ref({}), y.Ref({}), -1, out.Ref({})).ok());
  EXPECT_TRUE(SoftmaxBackward(g.Ref({0, 3}), y.Ref({0, 3}), 1, out.Ref({0, 3})).ok());
  Sync();
  EXPECT_EQ(out.Read()[0], 0.0);
}

TEST(SoftmaxBackwardTest, MatchesFiniteDifferencesOfSoftmax) {
  const int64_t rows = 3, cols = 9;
  const std::vector<double> x = Inputs(rows * cols, -2, 2, 8);
  const std::vector<double> g = Inputs(rows * cols, -1, 1, 9);
  // L(x) = sum g * softmax(x); dL/dx_i by central differences.
  auto loss = [&](const std::vector<double>& v) {
    const std::vector<double> y = ref::SoftmaxRowsRef(v, rows, cols, false);
    double l = 0;
    for (size_t i = 0; i < y.size(); ++i) l += g[i] * y[i];
    return l;
  };
  std::vector<double> fd(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> p = x, m = x;
    p[i] += 1e-5;
    m[i] -= 1e-5;
    fd[i] = (loss(p) - loss(m)) / 2e-5;
  }
  DeviceTensor dg(DType::kF32, rows * cols), dy(DType::kF32, rows * cols),
      dout(DType::kF32, rows * cols);
  dg.Fill(g);
  dy.Fill(ref::SoftmaxRowsRef(x, rows, cols, false));
  ASSERT_TRUE(
      SoftmaxBackward(dg.Ref({rows, cols}), dy.Ref({rows, cols}), 1, dout.Ref({rows, cols})).ok());
  Sync();
  const std::vector<double> got = dout.Read();
  for (size_t i = 0; i < fd.size(); ++i) EXPECT_NEAR(got[i], fd[i], 2e-6) << i;
}

struct LnCase {
  std::vector<int64_t> shape;
  size_t k;  // normalized trailing dims
};

void CheckLayerNormBackward(DType dt, const LnCase& c, bool weight, std::vector<bool> mask,
                            uint64_t max_ub = 0) {
  int64_t n = 1;
  for (size_t i = c.shape.size() - c.k; i < c.shape.size(); ++i) n *= c.shape[i];
  int64_t total = 1;
  for (int64_t d : c.shape) total *= d;
  const int64_t m = total / n;
  const std::vector<int64_t> norm(c.shape.end() - c.k, c.shape.end());
  std::vector<int64_t> stat = c.shape;
  for (size_t i = stat.size() - c.k; i < stat.size(); ++i) stat[i] = 1;
  DeviceTensor dg(dt, total), dx(dt, total), dmean(DType::kF32, m), drstd(DType::kF32, m),
      dw(dt, n), dgi(dt, total), dgw(dt, n), dgb(dt, n);
  const std::vector<double> g = dg.Fill(Inputs(total, -1, 1, 21));
  const std::vector<double> x = dx.Fill(Inputs(total, -2, 3, 22));
  const std::vector<double> w = weight ? dw.Fill(Inputs(n, 0.5, 1.5, 23)) : std::vector<double>{};
  std::vector<double> mean, rstd;
  ref::LayerNormRowsRef(x, m, n, {}, {}, 1e-5, &mean, &rstd);
  mean = dmean.Fill(mean);
  rstd = drstd.Fill(rstd);
  LayerNormBackwardArgs a;
  a.grad_out = dg.Ref(c.shape);
  a.input = dx.Ref(c.shape);
  a.normalized_shape = norm;
  a.mean = dmean.Ref(stat);
  a.rstd = drstd.Ref(stat);
  if (weight) a.weight = dw.Ref(norm);
  a.output_mask = mask;
  if (mask[0]) a.grad_input = dgi.Ref(c.shape);
  if (mask[1]) a.grad_weight = dgw.Ref(norm);
  if (mask[2]) a.grad_bias = dgb.Ref(norm);
  a.max_ub_bytes = max_ub;
  const Status s = Run(a);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Sync();
  std::vector<double> want_dx, want_dw, want_db;
  ref::LayerNormBackwardRowsRef(g, x, mean, rstd, w, m, n, &want_dx, &want_dw, &want_db);
  const std::string what =
      StrCat("LayerNormBackward ", ShapeString(c.shape), " k=", c.k, " ", OpDTypeName(dt),
             weight ? " weight" : "", max_ub ? " online" : "");
  if (mask[0]) ExpectGradNear(dgi.Read(), want_dx, dt, what + " dx");
  if (mask[1]) ExpectGradNear(dgw.Read(), want_dw, dt, what + " dw");
  if (mask[2]) ExpectGradNear(dgb.Read(), want_db, dt, what + " db");
  // Outputs the mask leaves out are not written (DeviceTensor zero-fills).
  if (!mask[1]) {
    for (double v : dgw.Read()) EXPECT_EQ(v, 0.0) << what;
  }
}

TEST(LayerNormBackwardTest, MatchesAnalyticGradient) {
  const std::vector<LnCase> cases = {{{1, 1}, 1},   {{5, 7}, 1},     {{3, 4, 6}, 2},
                                     {{300, 3}, 1}, {{2, 20011}, 1}, {{13}, 1}};
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const LnCase& c : cases) {
      CheckLayerNormBackward(dt, c, true, {true, true, true});
      CheckLayerNormBackward(dt, c, false, {true, false, true});
    }
    CheckLayerNormBackward(dt, {{6, 1000}, 1}, true, {true, true, true}, 24 << 10);
    CheckLayerNormBackward(dt, {{1000, 6}, 1}, true, {false, true, true}, 24 << 10);
  }
}

TEST(LayerNormBackwardTest, MatchesFiniteDifferencesOfLayerNorm) {
  const int64_t m = 3, n = 5;
  const std::vector<double> x = Inputs(m * n, -2, 2, 31), g = Inputs(m * n, -1, 1, 32);
  const std::vector<double> w = Inputs(n, 0.5, 1.5, 33), b = Inputs(n, -0.5, 0.5, 34);
  constexpr double kEps = 1e-5;
  auto loss = [&](const std::vector<double>& xv, const std::vector<double>& wv,
                  const std::vector<double>& bv) {
    std::vector<double> mean, rstd;
    const std::vector<double> y = ref::LayerNormRowsRef(xv, m, n, wv, bv, kEps, &mean, &rstd);
    double l = 0;
    for (size_t i = 0; i < y.size(); ++i) l += g[i] * y[i];
    return l;
  };
  auto fd = [&](std::vector<double> v, int which) {
    std::vector<double> d(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      std::vector<double> p = v, q = v;
      p[i] += 1e-5;
      q[i] -= 1e-5;
      const double lp = which == 0 ? loss(p, w, b) : which == 1 ? loss(x, p, b) : loss(x, w, p);
      const double lq = which == 0 ? loss(q, w, b) : which == 1 ? loss(x, q, b) : loss(x, w, q);
      d[i] = (lp - lq) / 2e-5;
    }
    return d;
  };
  DeviceTensor dg(DType::kF32, m * n), dx(DType::kF32, m * n), dmean(DType::kF32, m),
      drstd(DType::kF32, m), dw(DType::kF32, n), dgi(DType::kF32, m * n), dgw(DType::kF32, n),
      dgb(DType::kF32, n);
  dg.Fill(g);
  dx.Fill(x);
  dw.Fill(w);
  std::vector<double> mean, rstd;
  ref::LayerNormRowsRef(x, m, n, w, b, kEps, &mean, &rstd);
  dmean.Fill(mean);
  drstd.Fill(rstd);
  const TensorRef tw = dw.Ref({n}), tgi = dgi.Ref({m, n}), tgw = dgw.Ref({n}), tgb = dgb.Ref({n});
  ASSERT_TRUE(LayerNormBackward(dg.Ref({m, n}), dx.Ref({m, n}), {n}, dmean.Ref({m, 1}),
                                drstd.Ref({m, 1}), &tw, &tgi, &tgw, &tgb)
                  .ok());
  Sync();
  for (const auto& [got, want] : {std::pair{dgi.Read(), fd(x, 0)}, std::pair{dgw.Read(), fd(w, 1)},
                                  std::pair{dgb.Read(), fd(b, 2)}}) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-5) << i;
  }
}

// --- aclnn: status codes and messages ---

std::string Msg() { return aclGetRecentErrMsg(); }
#define EXPECT_MSG(needle) EXPECT_NE(Msg().find(needle), std::string::npos) << Msg()

aclTensor* Acl(const DeviceTensor& t, std::vector<int64_t> shape, aclDataType dt = ACL_FLOAT) {
  return aclCreateTensor(shape.data(), shape.size(), dt, nullptr, 0, ACL_FORMAT_ND, shape.data(),
                         shape.size(), t.data());
}

TEST(BackwardAclnnTest, SoftmaxBackwardStatusCodes) {
  DeviceTensor a(DType::kF32, 12), b(DType::kF32, 12), c(DType::kF32, 12);
  aclTensor* ta = Acl(a, {3, 4});
  aclTensor* tb = Acl(b, {3, 4});
  aclTensor* tc = Acl(c, {3, 4});
  aclTensor* th = Acl(b, {3, 4}, ACL_FLOAT16);
  aclTensor* t43 = Acl(c, {4, 3});
  uint64_t ws;
  aclOpExecutor* e;
  EXPECT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(nullptr, tb, 1, tc, &ws, &e), 161001);
  EXPECT_MSG("aclnnSoftmaxBackward: gradOutput is null");
  EXPECT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(ta, tb, 2, tc, &ws, &e), 161002);
  EXPECT_MSG("dim 2 is out of range for gradOutput of 2 dims; allowed: [-2, 1]");
  EXPECT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(ta, th, 1, tc, &ws, &e), 161002);
  EXPECT_MSG("output has dtype FLOAT16; it must equal gradOutput's FLOAT");
  EXPECT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(ta, tb, 1, t43, &ws, &e), 161002);
  EXPECT_MSG("out has shape [4, 3]; it must equal gradOutput's shape [3, 4]");
  ASSERT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(ta, tb, -2, tc, &ws, &e), ACLNN_SUCCESS) << Msg();
  EXPECT_GT(ws, 0u);  // dim 0 of (3, 4): staged transposed
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclnnSoftmaxBackward(w, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  Sync();
  aclrtFree(w);
  for (aclTensor* t : {ta, tb, tc, th, t43}) aclDestroyTensor(t);
}

TEST(BackwardAclnnTest, LayerNormBackwardMaskAndStatusCodes) {
  const int64_t m = 4, n = 6;
  DeviceTensor g(DType::kF32, m * n), x(DType::kF32, m * n), mean(DType::kF32, m),
      rstd(DType::kF32, m), gi(DType::kF32, m * n), gb(DType::kF32, n);
  g.Fill(Inputs(m * n, -1, 1, 1));
  x.Fill(Inputs(m * n, -1, 1, 2));
  mean.Fill(std::vector<double>(m, 0.0));
  rstd.Fill(std::vector<double>(m, 1.0));
  aclTensor* tg = Acl(g, {m, n});
  aclTensor* tx = Acl(x, {m, n});
  aclTensor* tm = Acl(mean, {m, 1});
  aclTensor* tr = Acl(rstd, {m, 1});
  aclTensor* tgi = Acl(gi, {m, n});
  aclTensor* tgb = Acl(gb, {n});
  const int64_t ns = n;
  aclIntArray* norm = aclCreateIntArray(&ns, 1);
  const bool mask3[3] = {true, false, true}, mask2[2] = {true, true}, all[3] = {true, true, true};
  aclBoolArray* m3 = aclCreateBoolArray(mask3, 3);
  aclBoolArray* m2 = aclCreateBoolArray(mask2, 2);
  aclBoolArray* ma = aclCreateBoolArray(all, 3);
  uint64_t ws;
  aclOpExecutor* e;
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(tg, tx, norm, tm, tr, nullptr, nullptr, m2, tgi,
                                                   nullptr, tgb, &ws, &e),
            161002);
  EXPECT_MSG("outputMask has 2 entries; it must have 3");
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(tg, tx, norm, tm, tr, nullptr, nullptr, ma, tgi,
                                                   nullptr, tgb, &ws, &e),
            161001);
  EXPECT_MSG("gradWeightOut is null but outputMask[1] is true");
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(tg, tx, nullptr, tm, tr, nullptr, nullptr, m3,
                                                   tgi, nullptr, tgb, &ws, &e),
            161001);
  EXPECT_MSG("normalizedShape is null");
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(tg, tx, norm, tx, tr, nullptr, nullptr, m3, tgi,
                                                   nullptr, tgb, &ws, &e),
            161002);
  EXPECT_MSG("mean has shape [4, 6]; it must be [4, 1]");
  DeviceTensor empty(DType::kF32, 1);
  aclTensor* te = Acl(empty, {0, n});
  aclTensor* tem = Acl(empty, {0, 1});
  const bool dx_only[3] = {true, false, false};
  aclBoolArray* m1 = aclCreateBoolArray(dx_only, 3);
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(te, te, norm, tem, tem, nullptr, nullptr, m1, te,
                                                   nullptr, nullptr, &ws, &e),
            161002);
  EXPECT_MSG("empty tensors are not supported");
  ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(tg, tx, norm, tm, tr, nullptr, nullptr, m3, tgi,
                                                   nullptr, tgb, &ws, &e),
            ACLNN_SUCCESS)
      << Msg();
  void* w = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnLayerNormBackward(w, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  Sync();
  if (w) aclrtFree(w);
  // mean 0, rstd 1, no weight: db = column sums of g.
  const std::vector<double> gv = g.Read(), db = gb.Read();
  for (int64_t c = 0; c < n; ++c) {
    double s = 0;
    for (int64_t r = 0; r < m; ++r) s += gv[r * n + c];
    EXPECT_NEAR(db[c], s, 1e-5);
  }
  for (aclTensor* t : {tg, tx, tm, tr, tgi, tgb, te, tem}) aclDestroyTensor(t);
  aclDestroyIntArray(norm);
  for (aclBoolArray* b : {m1, m3, m2, ma}) aclDestroyBoolArray(b);
}

}  // namespace
}  // namespace aicore::ops
