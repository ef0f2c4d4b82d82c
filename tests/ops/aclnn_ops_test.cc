// The aclnn entry points of the operator library: the two-phase protocol (workspace, executor
// consumed, repeatable executors with new addresses), the documented status codes with the
// aclGetRecentErrMsg text naming the operator, the argument, the value and what is allowed, and
// non-contiguous views through the C API.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softmax.h"
#include "tests/reference/ops_ref.h"

namespace {

struct Buf {
  explicit Buf(size_t floats) : n(floats) {
    EXPECT_EQ(aclrtMalloc(&p, floats * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ~Buf() { aclrtFree(p); }
  float* f() const { return static_cast<float*>(p); }
  void* p = nullptr;
  size_t n;
};

aclTensor* Tensor(const Buf& b, std::vector<int64_t> shape, aclDataType dt = ACL_FLOAT,
                  std::vector<int64_t> strides = {}) {
  std::vector<int64_t> storage = {static_cast<int64_t>(b.n)};  // torch_npu's 1-D storage
  return aclCreateTensor(shape.data(), shape.size(), dt, strides.empty() ? nullptr : strides.data(),
                         0, ACL_FORMAT_ND, storage.data(), 1, b.p);
}

std::string Msg() { return aclGetRecentErrMsg(); }

#define EXPECT_MSG(needle) EXPECT_NE(Msg().find(needle), std::string::npos) << Msg()

TEST(AclnnOpsTest, SoftmaxTwoPhaseMatchesReference) {
  Buf x(6 * 7), y(6 * 7);
  std::vector<double> xv(42);
  for (int i = 0; i < 42; ++i) x.f()[i] = static_cast<float>(xv[i] = std::sin(i) * 3);
  aclTensor* tx = Tensor(x, {6, 7});
  aclTensor* ty = Tensor(y, {6, 7});
  uint64_t ws = 1;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnSoftmaxGetWorkspaceSize(tx, -1, ty, &ws, &e), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(ws, 0u);
  ASSERT_EQ(aclnnSoftmax(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  aclDestroyTensor(tx);  // host metadata may go before the stream runs (torch_npu does this)
  aclDestroyTensor(ty);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  const auto want = aicore::ref::SoftmaxRowsRef(xv, 6, 7, false);
  for (int i = 0; i < 42; ++i) EXPECT_NEAR(y.f()[i], want[i], 1e-6);
  // The executor was consumed.
  EXPECT_EQ(aclnnSoftmax(nullptr, 0, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnSoftmax: the executor was already run");
}

TEST(AclnnOpsTest, TransposedInputNeedsAWorkspace) {
  Buf x(8 * 5), y(8 * 5);
  for (int i = 0; i < 40; ++i) x.f()[i] = static_cast<float>(i % 7) * 0.3f;
  aclTensor* tx = Tensor(x, {8, 5}, ACL_FLOAT, {1, 8});  // the transpose of a (5, 8) buffer
  aclTensor* ty = Tensor(y, {8, 5});
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnLogSoftmaxGetWorkspaceSize(tx, 1, ty, &ws, &e), ACLNN_SUCCESS) << Msg();
  EXPECT_GT(ws, 0u);
  EXPECT_EQ(aclnnLogSoftmax(nullptr, ws - 1, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG(std::string("aclnnLogSoftmax: workspaceSize ") + std::to_string(ws - 1) +
             " is smaller than the " + std::to_string(ws) + " bytes phase 1 asked for");
  ASSERT_EQ(aclnnLogSoftmaxGetWorkspaceSize(tx, 1, ty, &ws, &e), ACLNN_SUCCESS) << Msg();
  void* wsp = nullptr;
  ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclnnLogSoftmax(wsp, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  std::vector<double> rows(40);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 5; ++j) rows[i * 5 + j] = x.f()[j * 8 + i];
  const auto want = aicore::ref::SoftmaxRowsRef(rows, 8, 5, true);
  for (int i = 0; i < 40; ++i) EXPECT_NEAR(y.f()[i], want[i], 2e-6);
  aclrtFree(wsp);
  aclDestroyTensor(tx);
  aclDestroyTensor(ty);
}

TEST(AclnnOpsTest, RepeatableExecutorWithNewAddresses) {
  Buf a(100), b(100), c(100), d(100);
  for (int i = 0; i < 100; ++i) {
    a.f()[i] = static_cast<float>(i);
    b.f()[i] = 1.0f;
    d.f()[i] = -static_cast<float>(i);
  }
  aclTensor* ta = Tensor(a, {100});
  aclTensor* tb = Tensor(b, {100});
  aclTensor* tc = Tensor(c, {100});
  float alpha_v = 2.0f;
  aclScalar* alpha = aclCreateScalar(&alpha_v, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, tc, &ws, &e), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(c.f()[10], 12.0f);
  ASSERT_EQ(aclSetInputTensorAddr(e, 0, ta, d.p), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(c.f()[10], -8.0f);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  aclDestroyScalar(alpha);
  aclDestroyTensor(ta);
  aclDestroyTensor(tb);
  aclDestroyTensor(tc);
}

TEST(AclnnOpsTest, RepeatableInplaceMulFollowsItsNewAddress) {
  Buf a(50), b(50), other(50);
  for (int i = 0; i < 50; ++i) {
    a.f()[i] = 1.0f;
    b.f()[i] = 2.0f;
    other.f()[i] = static_cast<float>(i);
  }
  aclTensor* ta = Tensor(a, {50});
  aclTensor* to = Tensor(other, {50});
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnInplaceMulGetWorkspaceSize(ta, to, &ws, &e), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceMul(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclSetInputTensorAddr(e, 0, ta, b.p), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnInplaceMul(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(a.f()[7], 7.0f);
  EXPECT_EQ(b.f()[7], 14.0f);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  aclDestroyTensor(ta);
  aclDestroyTensor(to);
}

TEST(AclnnOpsTest, MixedDtypeAddBroadcastsAndPromotes) {
  // self f16 (3, 1), other f32 (4,), out f32 (3, 4): promotion to FLOAT.
  Buf s(2), o(4), out(12);
  auto* sh = reinterpret_cast<aicore::half*>(s.p);
  sh[0] = aicore::half(1.0f);
  sh[1] = aicore::half(2.0f);
  sh[2] = aicore::half(3.0f);
  for (int i = 0; i < 4; ++i) o.f()[i] = 0.5f * i;
  std::vector<int64_t> s_shape = {3, 1}, storage = {3};
  aclTensor* ts = aclCreateTensor(s_shape.data(), 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND,
                                  storage.data(), 1, s.p);
  aclTensor* to = Tensor(o, {4});
  aclTensor* tout = Tensor(out, {3, 4});
  int32_t alpha_v = 3;
  aclScalar* alpha = aclCreateScalar(&alpha_v, ACL_INT32);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(ts, to, alpha, tout, &ws, &e), ACLNN_SUCCESS) << Msg();
  void* wsp = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnAdd(wsp, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out.f()[i * 4 + j], (i + 1) + 3 * 0.5f * j);
  if (wsp) aclrtFree(wsp);
  aclDestroyScalar(alpha);
  aclDestroyTensor(ts);
  aclDestroyTensor(to);
  aclDestroyTensor(tout);
}

TEST(AclnnOpsTest, StatusCodesAndMessages) {
  Buf x(24), y(24), g(4), r(6);
  aclTensor* tx = Tensor(x, {6, 4});
  aclTensor* ty = Tensor(y, {6, 4});
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;

  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(nullptr, 0, ty, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_MSG("aclnnSoftmax: self is null [aclnnStatus 161001]");
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(tx, 2, ty, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG(
      "aclnnSoftmax: dim 2 is out of range for self of 2 dims; allowed: [-2, 1] "
      "[aclnnStatus 161002]");
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(tx, 0, ty, nullptr, &e), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_MSG("aclnnSoftmax: workspaceSize is null");

  aclTensor* ti = Tensor(x, {6, 4}, ACL_INT32);
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(ti, ty, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnSilu: self has dtype INT32; allowed: FLOAT, FLOAT16, BFLOAT16");
  aclTensor* td = Tensor(x, {3}, ACL_DOUBLE);
  EXPECT_EQ(aclnnGeluV2GetWorkspaceSize(td, 0, ty, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnGeluV2: x has dtype ACL_DOUBLE; allowed: FLOAT, FLOAT16, BFLOAT16");

  std::vector<int64_t> nine(9, 1);
  aclTensor* t9 =
      aclCreateTensor(nine.data(), 9, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nine.data(), 9, x.p);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(t9, tx, ty, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnMul: self has 9 dims; at most 8 are allowed");

  aclTensor* t34 = Tensor(y, {3, 4});
  EXPECT_EQ(aclnnMulGetWorkspaceSize(tx, t34, ty, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnMul: self [6, 4] and other [3, 4] do not broadcast");

  float one = 1.0f;
  aclScalar* s1 = aclCreateScalar(&one, ACL_FLOAT);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(tx, tx, nullptr, ty, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_MSG("aclnnAdd: alpha is null");
  EXPECT_EQ(aclnnAddsGetWorkspaceSize(tx, nullptr, s1, ty, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_MSG("aclnnAdds: other is null");

  // RmsNorm: dtype problems are 161002, shape rules 561002.
  aclTensor* tg3 = Tensor(g, {3});
  aclTensor* tr = Tensor(r, {6, 1});
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(tx, tg3, 1e-6, ty, tr, &ws, &e),
            ACLNN_ERR_INNER_TILING_ERROR);
  EXPECT_MSG(
      "aclnnRmsNorm: gamma has shape [3]; it must be the trailing dims of x [6, 4] "
      "[aclnnStatus 561002]");
  aclTensor* tg = Tensor(g, {4});
  aclTensor* trh = Tensor(r, {6, 1}, ACL_FLOAT16);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(tx, tg, 1e-6, ty, trh, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnRmsNorm: rstdOut has dtype FLOAT16; it must be FLOAT");

  // LayerNorm.
  const int64_t bad_ns[] = {3};
  aclIntArray* ns = aclCreateIntArray(bad_ns, 1);
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(tx, nullptr, nullptr, nullptr, 1e-5, ty, nullptr,
                                           nullptr, &ws, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_MSG("aclnnLayerNorm: normalizedShape is null");
  EXPECT_EQ(
      aclnnLayerNormGetWorkspaceSize(tx, ns, nullptr, nullptr, 1e-5, ty, nullptr, nullptr, &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_MSG("aclnnLayerNorm: normalizedShape [3] is not the trailing dims of input [6, 4]");

  // Phase 2 without an executor.
  EXPECT_EQ(aclnnRmsNorm(nullptr, 0, nullptr, nullptr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_MSG("aclnnRmsNorm: the executor is null");

  for (aclTensor* t : {tx, ty, ti, td, t9, t34, tg3, tr, tg, trh}) aclDestroyTensor(t);
  aclDestroyScalar(s1);
  aclDestroyIntArray(ns);
}

TEST(AclnnOpsTest, LayerNormAndRmsNormOutputs) {
  const int64_t rows = 5, cols = 33;
  Buf x(rows * cols), y(rows * cols), w(cols), b(cols), mean(rows), rstd(rows);
  std::vector<double> xv(rows * cols), wv(cols), bv(cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    x.f()[i] = static_cast<float>(xv[i] = std::cos(i * 0.7));
  for (int64_t i = 0; i < cols; ++i) {
    w.f()[i] = static_cast<float>(wv[i] = 1 + 0.01 * i);
    b.f()[i] = static_cast<float>(bv[i] = -0.02 * i);
  }
  aclTensor* tx = Tensor(x, {rows, cols});
  aclTensor* ty = Tensor(y, {rows, cols});
  aclTensor* tw = Tensor(w, {cols});
  aclTensor* tb = Tensor(b, {cols});
  aclTensor* tm = Tensor(mean, {rows, 1});
  aclTensor* tr = Tensor(rstd, {rows, 1});
  const int64_t ns_v[] = {cols};
  aclIntArray* ns = aclCreateIntArray(ns_v, 1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(tx, ns, tw, tb, 1e-5, ty, tm, tr, &ws, &e),
            ACLNN_SUCCESS)
      << Msg();
  ASSERT_EQ(aclnnLayerNorm(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  std::vector<double> wm, wr;
  auto want = aicore::ref::LayerNormRowsRef(xv, rows, cols, wv, bv, 1e-5, &wm, &wr);
  for (int64_t i = 0; i < rows * cols; ++i) EXPECT_NEAR(y.f()[i], want[i], 2e-5);
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_NEAR(mean.f()[i], wm[i], 1e-6);
    EXPECT_NEAR(rstd.f()[i], wr[i], 1e-4 * wr[i]);
  }
  ASSERT_EQ(aclnnRmsNormGetWorkspaceSize(tx, tw, 1e-6, ty, tr, &ws, &e), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclnnRmsNorm(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  want = aicore::ref::RmsNormRowsRef(xv, rows, cols, wv, 1e-6, &wr);
  for (int64_t i = 0; i < rows * cols; ++i) EXPECT_NEAR(y.f()[i], want[i], 2e-5);
  for (int64_t i = 0; i < rows; ++i) EXPECT_NEAR(rstd.f()[i], wr[i], 1e-4 * wr[i]);
  for (aclTensor* t : {tx, ty, tw, tb, tm, tr}) aclDestroyTensor(t);
  aclDestroyIntArray(ns);
}

TEST(AclnnOpsTest, EmptyTensorGivesZeroWorkspaceAndRuns) {
  Buf x(1), y(1);
  aclTensor* tx = Tensor(x, {0, 3});
  aclTensor* ty = Tensor(y, {0, 3});
  uint64_t ws = 7;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnSiluGetWorkspaceSize(tx, ty, &ws, &e), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnSilu(nullptr, 0, e, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  aclDestroyTensor(tx);
  aclDestroyTensor(ty);
}

}  // namespace
