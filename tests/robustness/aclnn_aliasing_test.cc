// Outputs that share memory (docs/errors.md): an output whose elements share a location (a
// stride-0 dim, or strides that fold elements onto one another), an output over an input the
// operator does not update in place, and two outputs over one another are refused by phase 1
// with 161002 and a message naming the operator, the argument and its strides; an output that is
// exactly an input's view (in place) is computed right where the operator allows it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_matmul_epilogue.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "aicore/ops/ops.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Msg() { return aclGetRecentErrMsg(); }

// A device buffer of `n` floats, element i holding `i % 7 - 3`.
struct Buf {
  explicit Buf(int64_t n) : n(n) {
    EXPECT_EQ(aclrtMalloc(&p, n * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int64_t i = 0; i < n; ++i) f()[i] = static_cast<float>(i % 7 - 3);
  }
  ~Buf() { aclrtFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  float* f() const { return static_cast<float*>(p); }
  void* p = nullptr;
  int64_t n;
};

// Destroys the tensors at scope exit.
struct Tensors {
  std::vector<aclTensor*> all;
  // A float view of `b` (its whole storage); strides empty: contiguous.
  aclTensor* operator()(const Buf& b, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                        int64_t offset = 0) {
    aclTensor* t = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT,
                                   strides.empty() ? nullptr : strides.data(), offset,
                                   ACL_FORMAT_ND, &b.n, 1, b.p);
    EXPECT_NE(t, nullptr) << Msg();
    all.push_back(t);
    return t;
  }
  ~Tensors() {
    for (aclTensor* t : all) aclDestroyTensor(t);
  }
};

// Runs phase 2 of an accepted phase 1 and synchronizes.
void RunPhase2(aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream), uint64_t ws,
               aclOpExecutor* e) {
  void* w = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(phase2(w, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  if (w != nullptr) aclrtFree(w);
}

struct Scalar {
  explicit Scalar(float v) : v(v), s(aclCreateScalar(&this->v, ACL_FLOAT)) {}
  ~Scalar() { aclDestroyScalar(s); }
  float v;
  aclScalar* s;
};

// Was accepted: both rows of out at one place, the last row's sums winning silently.
TEST(AclnnAliasingTest, AnElementwiseOutWithAStrideZeroDimIsRefused) {
  Buf x(8), y(8), out(8);
  Tensors t;
  Scalar one(1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(
      aclnnAddGetWorkspaceSize(t(x, {2, 4}), t(y, {2, 4}), one.s, t(out, {2, 4}, {0, 1}), &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnAdd: out has stride 0 in dim 0 of size 2"),
                           HasSubstr("strides [0, 1]"), HasSubstr("one memory location"),
                           HasSubstr("[aclnnStatus 161002]")));
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(t(x, {2, 4}), t(out, {2, 4}, {4, 0}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu: out has stride 0 in dim 1 of size 4"));
}

// Strides without a zero can fold elements onto one another too: (4, 4) with strides (1, 1).
TEST(AclnnAliasingTest, AnOutWhoseStridesFoldElementsTogetherIsRefused) {
  Buf x(16), out(16);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(t(x, {4, 4}), t(out, {4, 4}, {1, 1}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnSilu: out (shape [4, 4], strides [1, 1])"),
                           HasSubstr("several elements at one memory location")));
}

// (3, 3) with strides (2, 3) looks folded (3 < 2 * 2 + 1) but its 9 offsets are distinct.
TEST(AclnnAliasingTest, AnInterleavedOutWithDistinctLocationsIsComputed) {
  Buf x(9), y(9), out(11);
  Tensors t;
  Scalar one(1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(
      aclnnAddGetWorkspaceSize(t(x, {3, 3}), t(y, {3, 3}), one.s, t(out, {3, 3}, {2, 3}), &ws, &e),
      ACLNN_SUCCESS)
      << Msg();
  RunPhase2(aclnnAdd, ws, e);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(out.f()[2 * i + 3 * j], 2 * x.f()[3 * i + j]) << i << ", " << j;
    }
  }
}

// Was accepted: out one element past self, so each block read elements the previous one wrote.
TEST(AclnnAliasingTest, AnOutOverlappingAnInputIsRefusedTheSameViewIsInPlace) {
  const int64_t n = 1 << 16;
  Buf x(n + 1), y(n);
  Tensors t;
  Scalar one(1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(t(x, {n}), t(y, {n}), one.s, t(x, {n}, {}, 1), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnAdd: out overlaps self in memory"),
                           HasSubstr("the same view as the input")));
  EXPECT_EQ(aclnnMulGetWorkspaceSize(t(x, {n}), t(y, {n}), t(y, {n / 2}, {2}, 1), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnMul: out has shape"));  // shape first
  // out = other, a separate descriptor of the same view: in place, computed right.
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x.f()[i] * y.f()[i];
  ASSERT_EQ(aclnnMulGetWorkspaceSize(t(x, {n}), t(y, {n}), t(y, {n}), &ws, &e), ACLNN_SUCCESS)
      << Msg();
  RunPhase2(aclnnMul, ws, e);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.f()[i], want[i]) << i;
}

TEST(AclnnAliasingTest, SoftmaxOutputsAreChecked) {
  Buf x(64), out(72);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(t(x, {4, 16}), -1, t(out, {4, 16}, {0, 1}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSoftmax: out has stride 0 in dim 0 of size 4"));
  EXPECT_EQ(aclnnLogSoftmaxGetWorkspaceSize(t(x, {4, 15}), -1, t(x, {4, 15}, {}, 1), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLogSoftmax: out overlaps self in memory"));
  EXPECT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(t(x, {4, 16}), t(out, {4, 16}), -1,
                                                 t(out, {4, 8}, {16, 2}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSoftmaxBackward: out has shape"));
  EXPECT_EQ(aclnnSoftmaxBackwardGetWorkspaceSize(t(x, {4, 16}), t(out, {4, 16}), -1,
                                                 t(out, {4, 16}, {16, 1}, 8), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSoftmaxBackward: out overlaps output in memory"));
  // In place: softmax of each row of x into x.
  std::vector<float> want(64);
  for (int r = 0; r < 4; ++r) {
    double m = -1e30, s = 0;
    for (int c = 0; c < 16; ++c) m = std::max<double>(m, x.f()[r * 16 + c]);
    for (int c = 0; c < 16; ++c) s += std::exp(x.f()[r * 16 + c] - m);
    for (int c = 0; c < 16; ++c) want[r * 16 + c] = std::exp(x.f()[r * 16 + c] - m) / s;
  }
  ASSERT_EQ(aclnnSoftmaxGetWorkspaceSize(t(x, {4, 16}), -1, t(x, {4, 16}), &ws, &e), ACLNN_SUCCESS)
      << Msg();
  RunPhase2(aclnnSoftmax, ws, e);
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(x.f()[i], want[i], 1e-6) << i;
}

TEST(AclnnAliasingTest, NormOutputsAreChecked) {
  Buf x(64), w(16), out(64), mean(4), rstd(4);
  Tensors t;
  const int64_t norm = 16;
  aclIntArray* shape = aclCreateIntArray(&norm, 1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(
      aclnnLayerNormGetWorkspaceSize(t(x, {4, 16}), shape, nullptr, nullptr, 1e-5, t(out, {4, 16}),
                                     t(out, {4, 1}), t(rstd, {4, 1}), &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLayerNorm: meanOutOptional overlaps out in memory"));
  EXPECT_EQ(
      aclnnLayerNormGetWorkspaceSize(t(x, {4, 16}), shape, t(w, {16}), nullptr, 1e-5, t(x, {4, 16}),
                                     t(mean, {4, 1}, {0, 1}), nullptr, &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLayerNorm: meanOutOptional has stride 0 in dim 0"));
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(t(x, {4, 16}), shape, t(w, {16}), nullptr, 1e-5,
                                           t(w, {4, 16}, {0, 1}), nullptr, nullptr, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLayerNorm: out has stride 0 in dim 0"));
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(t(x, {4, 16}), shape, t(out, {16}, {}, 32), nullptr,
                                           1e-5, t(out, {4, 16}), nullptr, nullptr, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLayerNorm: out overlaps weightOptional in memory"));
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(t(x, {4, 16}), t(w, {16}), 1e-6, t(out, {4, 16}),
                                         t(out, {4, 1}, {}, 60), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnRmsNorm: rstdOut overlaps yOut in memory"));
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(t(x, {4, 16}), t(w, {16}), 1e-6, t(out, {4, 16}),
                                         t(x, {4, 1}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnRmsNorm: rstdOut overlaps x in memory"));
  // The backward reads gradOut again for gradWeight after gradInput: no in place.
  Buf g(64), dx(64), dw(16), db(16);
  bool mask[3] = {true, true, true};
  aclBoolArray* m = aclCreateBoolArray(mask, 3);
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(
                t(g, {4, 16}), t(x, {4, 16}), shape, t(mean, {4, 1}), t(rstd, {4, 1}), nullptr,
                nullptr, m, t(g, {4, 16}), t(dw, {16}), t(db, {16}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLayerNormBackward: gradInputOut overlaps gradOut in memory"));
  // LayerNorm in place: out is input's view.
  ASSERT_EQ(
      aclnnLayerNormGetWorkspaceSize(t(out, {4, 16}), shape, nullptr, nullptr, 1e-5,
                                     t(out, {4, 16}), t(mean, {4, 1}), t(rstd, {4, 1}), &ws, &e),
      ACLNN_SUCCESS)
      << Msg();
  std::vector<float> want(64);
  for (int r = 0; r < 4; ++r) {
    double mu = 0, var = 0;
    for (int c = 0; c < 16; ++c) mu += out.f()[r * 16 + c] / 16.0;
    for (int c = 0; c < 16; ++c) var += std::pow(out.f()[r * 16 + c] - mu, 2) / 16.0;
    for (int c = 0; c < 16; ++c)
      want[r * 16 + c] = (out.f()[r * 16 + c] - mu) / std::sqrt(var + 1e-5);
  }
  RunPhase2(aclnnLayerNorm, ws, e);
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(out.f()[i], want[i], 1e-5) << i;
  aclDestroyIntArray(shape);
  aclDestroyBoolArray(m);
}

// The flash attention problem of tests/robustness/aclnn_ops_fuzz_test.cc: BSH, B 1, N 2, S 4,
// D 8, fp32.
constexpr int64_t kB = 1, kN = 2, kS = 4, kD = 8, kH = kN * kD;

struct Fa {
  Buf q{kB * kS * kH}, k{kB * kS * kH}, v{kB * kS * kH}, dy{kB * kS * kH};
  Buf out{kB * kS * kH}, stats{2 * kB * kN * kS * 8};
  Buf dq{kB * kS * kH}, dk{kB * kS * kH}, dv{kB * kS * kH};
  Tensors t;
  aclTensor *tq = t(q, {kB, kS, kH}), *tk = t(k, {kB, kS, kH}), *tv = t(v, {kB, kS, kH}),
            *tdy = t(dy, {kB, kS, kH}), *tout = t(out, {kB, kS, kH});
  aclTensor* tmax = t(stats, {kB, kN, kS, 8});
  aclTensor* tsum = t(stats, {kB, kN, kS, 8}, {}, kB* kN* kS * 8);
  aclTensor *tdq = t(dq, {kB, kS, kH}), *tdk = t(dk, {kB, kS, kH}), *tdv = t(dv, {kB, kS, kH});
  char layout[4] = "BSH";

  aclnnStatus Forward() {
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    const aclnnStatus s = aclnnFlashAttentionScoreGetWorkspaceSize(
        tq, tk, tv, nullptr, nullptr, nullptr, nullptr, nullptr, 0.25, 1.0, 2147483647, 2147483647,
        kN, layout, 0, 0, tmax, tsum, nullptr, tout, &ws, &e);
    if (s == ACLNN_SUCCESS) {
      EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    }
    return s;
  }
  aclnnStatus Backward() {
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    const aclnnStatus s = aclnnFlashAttentionScoreGradGetWorkspaceSize(
        tq, tk, tv, tdy, nullptr, nullptr, nullptr, nullptr, tmax, tsum, nullptr, tout, nullptr,
        0.25, 1.0, 2147483647, 2147483647, kN, layout, 0, 0, tdq, tdk, tdv, nullptr, &ws, &e);
    if (s == ACLNN_SUCCESS) {
      EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    }
    return s;
  }
};

// Was accepted: two outputs that share bytes without starting at one address.
TEST(AclnnAliasingTest, FlashAttentionOutputsOverlappingEachOtherAreRefused) {
  Fa fa;
  ASSERT_EQ(fa.Forward(), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(fa.Backward(), ACLNN_SUCCESS) << Msg();
  // softmaxSum's rows half over softmaxMax's.
  fa.tsum = fa.t(fa.stats, {kB, kN, kS, 8}, {}, 4);
  EXPECT_EQ(fa.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnFlashAttentionScore: softmaxSumOut overlaps "
                                     "softmaxMaxOut in memory"),
                           HasSubstr("each output needs its own memory")));
  // attentionOut over the statistics.
  Fa g;
  g.tout = g.t(g.stats, {kB, kS, kH}, {}, 8);
  EXPECT_EQ(g.Forward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("attentionOutOut overlaps softmaxMaxOut in memory"));
  // dq and dk as packed [B, S, 3H] slices one element apart (dk's columns 0..H-2 are dq's 1..).
  Fa b;
  Buf packed(kB * kS * 3 * kH);
  const std::vector<int64_t> st = {kS * 3 * kH, 3 * kH, 1};
  b.tdq = b.t(packed, {kB, kS, kH}, st, 0);
  b.tdk = b.t(packed, {kB, kS, kH}, st, 1);
  b.tdv = b.t(packed, {kB, kS, kH}, st, 2 * kH);
  EXPECT_EQ(b.Backward(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnFlashAttentionScoreGrad: dkOut overlaps dqOut in memory"));
  b.tdk = b.t(packed, {kB, kS, kH}, st, kH);  // the packed layout itself: fine
  EXPECT_EQ(b.Backward(), ACLNN_SUCCESS) << Msg();
}

// Inputs may overlap one another (they are only read): q, k and v as one buffer.
TEST(AclnnAliasingTest, FlashAttentionInputsMayShareMemory) {
  Fa fa;
  fa.tk = fa.tq;
  fa.tv = fa.t(fa.q, {kB, kS, kH});
  EXPECT_EQ(fa.Forward(), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(fa.Backward(), ACLNN_SUCCESS) << Msg();
}

// A matmul's out over mat2, one element in: the span test existed; the strides are named now.
TEST(AclnnAliasingTest, MatmulOutOverAnInputNamesBoth) {
  Buf a(16), b(17);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(
      aclnnMatmulGetWorkspaceSize(t(a, {4, 4}), t(b, {4, 4}), t(b, {4, 4}, {}, 1), 0, &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnMatmul: out overlaps mat2 in memory"));
}

// The matmul epilogue reads residual for each tile of out before writing it: out may be
// residual's view, not a shifted one, and never bias's; Addmm's out may be self's view.
TEST(AclnnAliasingTest, MatmulResidualAndAddmmSelfMayBeOutsView) {
  const int64_t m = 40, n = 48, k = 24;
  Buf a(m * k), b(k * n), bias(n), res(m * n + 1), want(m * n);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(
      aclnnAicoreMatmulEpilogueGetWorkspaceSize(t(a, {m, k}), t(b, {k, n}), nullptr, t(res, {m, n}),
                                                1.0, 0.0, 0, t(want, {m, n}), &ws, &e),
      ACLNN_SUCCESS)
      << Msg();
  RunPhase2(aclnnAicoreMatmulEpilogue, ws, e);
  EXPECT_EQ(
      aclnnAicoreMatmulEpilogueGetWorkspaceSize(t(a, {m, k}), t(b, {k, n}), nullptr, t(res, {m, n}),
                                                1.0, 0.0, 0, t(res, {m, n}, {}, 1), &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAicoreMatmulEpilogue: out overlaps residual in memory"));
  EXPECT_EQ(
      aclnnAicoreMatmulEpilogueGetWorkspaceSize(t(a, {m, k}), t(b, {k, n}), t(res, {n}), nullptr,
                                                1.0, 1.0, 0, t(res, {m, n}), &ws, &e),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("out overlaps biasOptional in memory"));
  ASSERT_EQ(
      aclnnAicoreMatmulEpilogueGetWorkspaceSize(t(a, {m, k}), t(b, {k, n}), nullptr, t(res, {m, n}),
                                                1.0, 0.0, 0, t(res, {m, n}), &ws, &e),
      ACLNN_SUCCESS)
      << Msg();
  RunPhase2(aclnnAicoreMatmulEpilogue, ws, e);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_EQ(res.f()[i], want.f()[i]) << i;

  Buf self(m * n + 1);
  Scalar one(1), two(2);
  std::vector<float> expect(m * n);
  for (int64_t i = 0; i < m * n; ++i) expect[i] = 2 * self.f()[i] + (want.f()[i] - (i % 7 - 3));
  ASSERT_EQ(aclnnAddmmGetWorkspaceSize(t(self, {m, n}), t(a, {m, k}), t(b, {k, n}), two.s, one.s,
                                       t(self, {m, n}), 0, &ws, &e),
            ACLNN_SUCCESS)
      << Msg();
  RunPhase2(aclnnAddmm, ws, e);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_NEAR(self.f()[i], expect[i], 1e-3) << i;
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(t(self, {m, n}), t(a, {m, k}), t(b, {k, n}), two.s, one.s,
                                       t(self, {m, n}, {}, 1), 0, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAddmm: out overlaps self in memory"));
}

// In place through the online pass (rows longer than the UB budget, read twice in chunks) on
// several blocks: softmax, softmax backward and layer norm into their input agree with the
// out-of-place results.
TEST(AclnnAliasingTest, InPlaceOnlineRowsMatchOutOfPlace) {
  using aicore::DType;
  using aicore::ops::DenseRef;
  const int64_t rows = 12, cols = 6000;
  Buf x(rows * cols), y(rows * cols), g(rows * cols), want(rows * cols);
  const auto ref = [&](const Buf& b) { return DenseRef(b.p, DType::kF32, {rows, cols}); };
  const auto same = [&](const Buf& a, const Buf& b) {
    for (int64_t i = 0; i < rows * cols; ++i) {
      if (a.f()[i] != b.f()[i]) return ::testing::AssertionFailure() << "element " << i;
    }
    return ::testing::AssertionSuccess();
  };
  aicore::ops::SoftmaxArgs sm;
  sm.max_ub_bytes = 16 << 10;
  sm.self = ref(x);
  sm.out = ref(want);
  ASSERT_TRUE(aicore::ops::Run(sm).ok());
  sm.self = sm.out = ref(y);  // y holds x's values (Buf's fill)
  ASSERT_TRUE(aicore::ops::Run(sm).ok());
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(same(y, want));

  aicore::ops::SoftmaxBackwardArgs sb;
  sb.max_ub_bytes = 16 << 10;
  sb.grad_output = ref(g);
  sb.output = ref(y);
  sb.out = ref(want);
  ASSERT_TRUE(aicore::ops::Run(sb).ok());
  sb.out = ref(g);
  ASSERT_TRUE(aicore::ops::Run(sb).ok());
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(same(g, want));

  aicore::ops::LayerNormArgs ln;
  ln.max_ub_bytes = 16 << 10;
  ln.normalized_shape = {cols};
  ln.input = ref(x);
  ln.out = ref(want);
  ASSERT_TRUE(aicore::ops::Run(ln).ok());
  ln.out = ref(x);
  ASSERT_TRUE(aicore::ops::Run(ln).ok());
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(same(x, want));
}

}  // namespace
