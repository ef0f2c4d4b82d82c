// What tests/fuzz/aclnn_ops_fuzzer.cc found in the fused and matrix operators' aclnn entry
// points, each as the exact input: the documented status and a message naming the argument.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aclnnop/aclnn_matmul_epilogue.h"
#include "tests/reference/attention_ref.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Msg() { return aclGetRecentErrMsg(); }

// A zeroed device buffer of `bytes`.
struct Buf {
  explicit Buf(size_t bytes) : bytes(bytes) {
    EXPECT_EQ(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::memset(p, 0, bytes);
  }
  ~Buf() { aclrtFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  void* p = nullptr;
  size_t bytes;
};

// A view of `buf` (its whole storage in elements of `dt`); strides empty: contiguous.
aclTensor* View(const Buf& buf, aclDataType dt, std::vector<int64_t> shape,
                std::vector<int64_t> strides = {}, int64_t offset = 0) {
  const int64_t item = dt == ACL_FLOAT ? 4 : dt == ACL_FLOAT16 || dt == ACL_BF16 ? 2 : 1;
  const int64_t storage = static_cast<int64_t>(buf.bytes) / item;
  return aclCreateTensor(shape.data(), shape.size(), dt, strides.empty() ? nullptr : strides.data(),
                         offset, ACL_FORMAT_ND, &storage, 1, buf.p);
}

// Destroys the tensors at scope exit.
struct Tensors {
  std::vector<aclTensor*> all;
  aclTensor* operator()(aclTensor* t) {
    EXPECT_NE(t, nullptr) << Msg();
    all.push_back(t);
    return t;
  }
  ~Tensors() {
    for (aclTensor* t : all) aclDestroyTensor(t);
  }
};

// A valid BSH problem (B 1, N 2, S 4, D 8, fp32) whose arguments each test spoils one of.
constexpr int64_t kB = 1, kN = 2, kS = 4, kD = 8, kH = kN * kD;

struct Fa {
  Buf q{kB * kS * kH * 4}, k{kB * kS * kH * 4}, v{kB * kS * kH * 4}, dy{kB * kS * kH * 4};
  Buf out{kB * kS * kH * 4}, smax{kB * kN * kS * 8 * 4}, ssum{kB * kN * kS * 8 * 4};
  Buf dq{kB * kS * kH * 4}, dk{kB * kS * kH * 4}, dv{kB * kS * kH * 4}, mask{kS * kS};
  Tensors t;
  aclTensor *tq = t(View(q, ACL_FLOAT, {kB, kS, kH})), *tk = t(View(k, ACL_FLOAT, {kB, kS, kH})),
            *tv = t(View(v, ACL_FLOAT, {kB, kS, kH})), *tdy = t(View(dy, ACL_FLOAT, {kB, kS, kH}));
  aclTensor* tout = t(View(out, ACL_FLOAT, {kB, kS, kH}));
  aclTensor* tmax = t(View(smax, ACL_FLOAT, {kB, kN, kS, 8}));
  aclTensor* tsum = t(View(ssum, ACL_FLOAT, {kB, kN, kS, 8}));
  aclTensor *tdq = t(View(dq, ACL_FLOAT, {kB, kS, kH})),
            *tdk = t(View(dk, ACL_FLOAT, {kB, kS, kH})),
            *tdv = t(View(dv, ACL_FLOAT, {kB, kS, kH}));
  aclTensor* tmask = nullptr;
  aclTensor* pse = nullptr;
  int64_t pre = 2147483647, next = 2147483647, sparse = 0;
  char layout[4] = "BSH";

  aclnnStatus Forward() {
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    const aclnnStatus s = aclnnFlashAttentionScoreGetWorkspaceSize(
        tq, tk, tv, pse, nullptr, nullptr, tmask, nullptr, 0.25, 1.0, pre, next, kN, layout, 0,
        sparse, tmax, tsum, nullptr, tout, &ws, &e);
    if (s == ACLNN_SUCCESS) {
      EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    }
    return s;
  }
  aclnnStatus Backward() {
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    const aclnnStatus s = aclnnFlashAttentionScoreGradGetWorkspaceSize(
        tq, tk, tv, tdy, pse, nullptr, nullptr, tmask, tmax, tsum, nullptr, tout, nullptr, 0.25,
        1.0, pre, next, kN, layout, 0, sparse, tdq, tdk, tdv, nullptr, &ws, &e);
    if (s == ACLNN_SUCCESS) {
      EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    }
    return s;
  }
};

TEST(AclnnOpsFuzzTest, TheValidProblemsAreAccepted) {
  Fa fa;
  EXPECT_EQ(fa.Forward(), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(fa.Backward(), ACLNN_SUCCESS) << Msg();
}

// Found: dqOut with a stride-0 dim of size 90 was accepted (every S row written to one place).
TEST(AclnnOpsFuzzTest, AnOutputWithAStrideZeroDimIsRefused) {
  Fa fa;
  fa.tdq = fa.t(View(fa.dq, ACL_FLOAT, {kB, kS, kH}, {kS * kH, 0, 1}));
  EXPECT_EQ(fa.Backward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnFlashAttentionScoreGrad: dqOut has stride 0 in dim 1"),
                           HasSubstr("share one memory location")));
  fa.tout = fa.t(View(fa.out, ACL_FLOAT, {kB, kS, kH}, {0, 0, 1}));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("attentionOutOut has stride 0 in dim 1"));
}

// The kernels read q/k/v while they write: an output over an input was accepted.
TEST(AclnnOpsFuzzTest, AnOutputOverAnInputIsRefused) {
  Fa fa;
  fa.tout = fa.t(View(fa.q, ACL_FLOAT, {kB, kS, kH}));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(),
              HasSubstr("aclnnFlashAttentionScore: attentionOutOut overlaps query in memory"));
  Fa g;
  g.tdk = g.t(View(g.dy, ACL_FLOAT, {kB, kS, kH}));
  EXPECT_EQ(g.Backward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("dkOut overlaps dy in memory"));
}

// Two outputs at one address; interleaved outputs (slices of one packed buffer) stay allowed.
TEST(AclnnOpsFuzzTest, TwoOutputsAtOneAddressAreRefusedInterleavedOnesAccepted) {
  Fa fa;
  fa.tsum = fa.t(View(fa.smax, ACL_FLOAT, {kB, kN, kS, 8}));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("softmaxSumOut overlaps softmaxMaxOut in memory"));
  Fa g;
  Buf packed(kB * kS * 3 * kH * 4);  // dq, dk, dv interleaved: [B, S, 3H]
  const std::vector<int64_t> st = {kS * 3 * kH, 3 * kH, 1};
  g.tdq = g.t(View(packed, ACL_FLOAT, {kB, kS, kH}, st, 0));
  g.tdk = g.t(View(packed, ACL_FLOAT, {kB, kS, kH}, st, kH));
  g.tdv = g.t(View(packed, ACL_FLOAT, {kB, kS, kH}, st, 2 * kH));
  EXPECT_EQ(g.Backward(), ACLNN_SUCCESS) << Msg();
}

// Found: the backward's refusal named the forward's argument (realShiftOptional).
TEST(AclnnOpsFuzzTest, TheGradNamesItsOwnPseArgument) {
  Fa fa;
  Buf pse(kB * kN * kS * kS * 4);
  fa.pse = fa.t(View(pse, ACL_FLOAT, {kB, kN, kS, kS}));
  EXPECT_EQ(fa.Backward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnFlashAttentionScoreGrad: pseShiftOptional (pse) is not "
                               "supported"));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnFlashAttentionScore: realShiftOptional (pse)"));
}

// Found: the backward named its keyIn argument "key".
TEST(AclnnOpsFuzzTest, TheGradNamesKeyIn) {
  Fa fa;
  const std::vector<int64_t> shape = {kB, kS, kH};
  const int64_t storage = kB * kS * kH;
  fa.tk = fa.t(aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                               &storage, 1, nullptr));
  EXPECT_EQ(fa.Backward(), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnFlashAttentionScoreGrad: keyIn has null storage"));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnFlashAttentionScore: key has null storage"));
}

// preTokens + nextTokens overflowed int64 (undefined; in practice it wrapped to a large positive
// sum and a window with no column was accepted).
TEST(AclnnOpsFuzzTest, PreAndNextTokensWhoseSumOverflowsAreRefused) {
  Fa fa;
  fa.tmask = fa.t(View(fa.mask, ACL_BOOL, {kS, kS}));
  fa.pre = std::numeric_limits<int64_t>::min();
  fa.next = -5;
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("preTokens -9223372036854775808 and nextTokens -5 leave no column"));
  fa.pre = fa.next = std::numeric_limits<int64_t>::max();  // the widest window: fine
  EXPECT_EQ(fa.Forward(), ACLNN_SUCCESS) << Msg();
}

// The band of sparse mode 4 with preTokens = INT64_MAX (unbounded to the left) and Sq > Skv:
// skv - sq - preTokens overflowed int64 in the plan's window, which wrapped to an empty window
// and zero rows where the reference attends to columns.
TEST(AclnnOpsFuzzTest, AnUnboundedBandAttendsLikeTheReference) {
  const int64_t sq = 8, skv = 4, d = 8;
  Buf q(sq * d * 4), k(skv * d * 4), v(skv * d * 4), out(sq * d * 4), mx(sq * 8 * 4),
      sm(sq * 8 * 4), mask(2048 * 2048);
  std::vector<double> qv(sq * d), kv(skv * d), vv(skv * d);
  auto fill = [](const Buf& b, std::vector<double>* vals, int seed) {
    for (size_t i = 0; i < vals->size(); ++i) {
      (*vals)[i] = static_cast<double>(static_cast<int>((i * 7 + seed) % 17) - 8) / 8;
      static_cast<float*>(b.p)[i] = static_cast<float>((*vals)[i]);
    }
  };
  fill(q, &qv, 1);
  fill(k, &kv, 2);
  fill(v, &vv, 3);
  uint8_t* m = static_cast<uint8_t*>(mask.p);
  for (int64_t i = 0; i < 2048; ++i)
    for (int64_t j = 0; j < 2048; ++j) m[i * 2048 + j] = j > i;
  Tensors t;
  char layout[] = "BNSD";
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnFlashAttentionScoreGetWorkspaceSize(
                t(View(q, ACL_FLOAT, {1, 1, sq, d})), t(View(k, ACL_FLOAT, {1, 1, skv, d})),
                t(View(v, ACL_FLOAT, {1, 1, skv, d})), nullptr, nullptr, nullptr,
                t(View(mask, ACL_BOOL, {2048, 2048})), nullptr, 1.0, 1.0,
                std::numeric_limits<int64_t>::max(), 0, 1, layout, 0, 4,
                t(View(mx, ACL_FLOAT, {1, 1, sq, 8})), t(View(sm, ACL_FLOAT, {1, 1, sq, 8})),
                nullptr, t(View(out, ACL_FLOAT, {1, 1, sq, d})), &ws, &e),
            ACLNN_SUCCESS)
      << Msg();
  Buf workspace(ws + 1);
  ASSERT_EQ(aclnnFlashAttentionScore(workspace.p, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  aicore::ref::AttentionProblem p;
  p.sq = sq;
  p.skv = skv;
  p.d = p.dv = d;
  p.has_mask = true;
  p.sparse_mode = 4;
  p.pre = int64_t{1} << 40;  // as unbounded, without overflowing the reference
  p.next = 0;
  const aicore::ref::AttentionForward want = aicore::ref::AttentionForwardRef(p, qv, kv, vv);
  for (int64_t i = 0; i < sq * d; ++i) {
    EXPECT_NEAR(static_cast<float*>(out.p)[i], want.out[i], 1e-4) << "element " << i;
  }
}

// One conversion of tensor arguments (aclnn/tensor_ref.h): BOOL is a mask's dtype only.
TEST(AclnnOpsFuzzTest, BoolIsAMaskDtypeOnly) {
  Fa fa;
  fa.tmask = fa.t(View(fa.mask, ACL_BOOL, {kS, kS}));
  EXPECT_EQ(fa.Forward(), ACLNN_SUCCESS) << Msg();
  fa.tmask = fa.t(View(fa.mask, ACL_UINT8, {kS, kS}));
  EXPECT_EQ(fa.Forward(), ACLNN_SUCCESS) << Msg();
  Buf wide(kS * kS * 8);
  fa.tmask = fa.t(View(wide, ACL_DOUBLE, {kS, kS}));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("attenMaskOptional has dtype ACL_DOUBLE; allowed: BOOL, UINT8"));
  fa.tq = fa.t(View(fa.mask, ACL_BOOL, {kB, kS, kH / 8}));
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("query has dtype ACL_BOOL; allowed: FLOAT, FLOAT16, BFLOAT16"));

  Buf x(16), out(64);
  Tensors t;
  aclTensor* self = t(View(x, ACL_BOOL, {16}));
  aclTensor* o = t(View(out, ACL_FLOAT, {16}));
  float one = 1;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(self, self, alpha, o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAdd: self has dtype ACL_BOOL; allowed: FLOAT"));
  aclDestroyScalar(alpha);
}

// Found: an out with a stride-0 dim (one location for several elements) was accepted by the
// matmul with epilogue and by Addmm, which then wrote that location several times.
TEST(AclnnOpsFuzzTest, MatmulOutputsWithAStrideZeroDimAreRefused) {
  Buf a(2 * 3 * 4), b(3 * 4 * 4), out(2 * 4 * 4), self(4 * 4);
  Tensors t;
  aclTensor* ta = t(View(a, ACL_FLOAT, {2, 3}));
  aclTensor* tb = t(View(b, ACL_FLOAT, {3, 4}));
  aclTensor* tout = t(View(out, ACL_FLOAT, {2, 4}, {0, 1}));  // both rows at one place
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnAicoreMatmulEpilogueGetWorkspaceSize(ta, tb, nullptr, nullptr, 1.0, 0.0, 0, tout,
                                                      &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAicoreMatmulEpilogue: out has stride 0 in dim 0 of size 2"));
  float one = 1;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  aclScalar* beta = aclCreateScalar(&one, ACL_FLOAT);
  aclTensor* tself = t(View(self, ACL_FLOAT, {4}));
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(tself, ta, tb, beta, alpha, tout, 0, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAddmm: out has stride 0 in dim 0 of size 2"));
  aclTensor* tself_ref = t(View(out, ACL_FLOAT, {2, 4}, {0, 1}));
  EXPECT_EQ(aclnnInplaceAddmmGetWorkspaceSize(tself_ref, ta, tb, beta, alpha, 0, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnInplaceAddmm: selfRef has stride 0 in dim 0"));
  aclDestroyScalar(alpha);
  aclDestroyScalar(beta);
}

// Found: aclnnInplaceAddmm, which has no out argument, blamed "out" for selfRef's shape.
TEST(AclnnOpsFuzzTest, InplaceAddmmNamesSelfRef) {
  Buf a(2 * 2 * 4), b(2 * 2 * 4), self(2 * 4 * 4);
  Tensors t;
  aclTensor* ta = t(View(a, ACL_FLOAT, {2, 2}));
  aclTensor* tb = t(View(b, ACL_FLOAT, {2, 2}));
  aclTensor* tself = t(View(self, ACL_FLOAT, {2, 4}));
  float one = 1;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  aclScalar* beta = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnInplaceAddmmGetWorkspaceSize(tself, ta, tb, beta, alpha, 0, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnInplaceAddmm: selfRef has shape [2, 4]; mat1 [2, 2] @ mat2 "
                               "[2, 2] is [2, 2]"));
  aclDestroyScalar(alpha);
  aclDestroyScalar(beta);
}

}  // namespace
