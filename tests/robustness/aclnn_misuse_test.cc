// Host programs that misuse the aclnn API the way users do: mismatched dtypes, null tensors or
// storage, a wrong workspace, phase 2 twice or on a consumed executor, addresses rebound between
// runs, negative and overflowing dims, destroyed streams, calls after aclFinalize. Each gets the
// documented status and a message naming the API and the argument (aclGetRecentErrMsg), never a
// crash, a hang or a silently wrong result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softmax.h"
#include "tests/robustness/subprocess.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Msg() { return aclGetRecentErrMsg(); }

// A device buffer of `n` elements of 4 bytes, element i holding float(i % 5).
struct Buf {
  explicit Buf(int64_t n) : n(n) {
    EXPECT_EQ(aclrtMalloc(&p, n * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int64_t i = 0; i < n; ++i) f()[i] = static_cast<float>(i % 5);
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
  // A view of `b` (its whole storage in elements of `dt`, 4 bytes or fewer).
  aclTensor* operator()(const Buf& b, std::vector<int64_t> shape, aclDataType dt = ACL_FLOAT,
                        std::vector<int64_t> strides = {}, int64_t offset = 0) {
    const int64_t item = dt == ACL_FLOAT || dt == ACL_INT32 ? 4 : dt == ACL_INT8 ? 1 : 2;
    const int64_t storage = b.n * 4 / item;
    aclTensor* t =
        aclCreateTensor(shape.data(), shape.size(), dt, strides.empty() ? nullptr : strides.data(),
                        offset, ACL_FORMAT_ND, &storage, 1, b.p);
    EXPECT_NE(t, nullptr) << Msg();
    all.push_back(t);
    return t;
  }
  ~Tensors() {
    for (aclTensor* t : all) aclDestroyTensor(t);
  }
};

struct Scalar {
  explicit Scalar(float v) : v(v), s(aclCreateScalar(&this->v, ACL_FLOAT)) {}
  ~Scalar() { aclDestroyScalar(s); }
  float v;
  aclScalar* s;
};

// --- dtypes ---

TEST(AclnnMisuseTest, AddOfFloatAndInt32IsRefused) {
  Buf x(8), y(8), out(8);
  Tensors t;
  Scalar one(1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(t(x, {8}), t(y, {8}, ACL_INT32), one.s, t(out, {8}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnAdd: other has dtype INT32"),
                           HasSubstr("allowed: FLOAT, FLOAT16, BFLOAT16")));
}

TEST(AclnnMisuseTest, SiluIntoAnotherDtypeIsRefused) {
  Buf x(8), out(8);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(t(x, {8}), t(out, {8}, ACL_FLOAT16), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu: out has dtype FLOAT16; it must equal self's dtype"));
}

TEST(AclnnMisuseTest, MatmulOfBf16AndFp16IsRefused) {
  Buf a(64), b(64), out(64);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnMatmulGetWorkspaceSize(t(a, {8, 8}, ACL_BF16), t(b, {8, 8}, ACL_FLOAT16),
                                        t(out, {8, 8}), 0, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnMatmul: self is BFLOAT16 and mat2 is FLOAT16"),
                           HasSubstr("[aclnnStatus 161002]")));
}

TEST(AclnnMisuseTest, LayerNormWeightAndBiasOfDifferentDtypesAreRefused) {
  Buf x(32), w(8), bias(8), out(32);
  Tensors t;
  const int64_t n = 8;
  aclIntArray* shape = aclCreateIntArray(&n, 1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(t(x, {4, 8}, ACL_FLOAT16), shape, t(w, {8}, ACL_FLOAT16),
                                           t(bias, {8}), 1e-5, t(out, {4, 8}, ACL_FLOAT16), nullptr,
                                           nullptr, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("weightOptional (FLOAT16) and biasOptional (FLOAT) must have the "
                               "same dtype"));
  aclDestroyIntArray(shape);
}

// Was: a FRACTAL_NZ mat2 (the layout of the *WeightNz variants) was read as ND, a silently wrong
// product; the private (fractal, C0-blocked) formats are refused, the ND-like labels torch_npu
// applies by rank (NCL, NCHW, NCDHW) are accepted.
TEST(AclnnMisuseTest, PrivateFormatsAreRefused) {
  Buf a(16 * 16), b(16 * 16), out(16 * 16);
  Tensors t;
  const std::vector<int64_t> dims = {16, 16};
  const int64_t storage = 16 * 16;
  aclTensor* nz = aclCreateTensor(dims.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_FRACTAL_NZ,
                                  &storage, 1, b.p);
  ASSERT_NE(nz, nullptr);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnMatmulGetWorkspaceSize(t(a, {16, 16}), nz, t(out, {16, 16}), 0, &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("aclnnMatmul: mat2 has format FRACTAL_NZ (29)"),
                           HasSubstr("allowed: ND")));
  const std::vector<int64_t> d3 = {2, 8, 16};
  aclTensor* ncl =
      aclCreateTensor(d3.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, &storage, 1, a.p);
  aclTensor* nc1hwc0 =
      aclCreateTensor(d3.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NC1HWC0, &storage, 1, out.p);
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(ncl, t(out, {2, 8, 16}), &ws, &e), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(ncl, nc1hwc0, &ws, &e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu: out has format NC1HWC0 (3)"));
  aclDestroyTensor(nz);
  aclDestroyTensor(ncl);
  aclDestroyTensor(nc1hwc0);
}

// --- null tensors and storage ---

TEST(AclnnMisuseTest, NullTensorsAreNamed) {
  Buf x(8), out(8);
  Tensors t;
  Scalar one(1);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(nullptr, -1, t(out, {8}), &ws, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSoftmax: self is null"));
  EXPECT_EQ(aclnnMatmulGetWorkspaceSize(t(x, {2, 4}), t(x, {4, 2}), nullptr, 0, &ws, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnMatmul: out is null"));
  EXPECT_EQ(aclnnAddGetWorkspaceSize(t(x, {8}), t(x, {8}), nullptr, t(out, {8}), &ws, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAdd: alpha is null"));
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(t(x, {8}), nullptr, nullptr, nullptr, 1e-5, t(out, {8}),
                                           nullptr, nullptr, &ws, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnLayerNorm: normalizedShape is null"));
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(t(x, {8}), t(out, {8}), nullptr, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu: workspaceSize is null"));
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(t(x, {8}), t(out, {8}), &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu: executor is null"));
}

TEST(AclnnMisuseTest, ATensorWithoutStorageIsRefused) {
  Buf out(8);
  Tensors t;
  const int64_t shape = 8;
  aclTensor* none =
      aclCreateTensor(&shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &shape, 1, nullptr);
  ASSERT_NE(none, nullptr);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(none, t(out, {8}), &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu: self has no data (null storage) but 8 elements"));
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(t(out, {8}), 0, none, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSoftmax: out has null storage"));
  aclDestroyTensor(none);
}

// --- the workspace ---

// Phase 2 with a short or missing workspace is refused and leaves the executor for a retry.
TEST(AclnnMisuseTest, AShortWorkspaceIsRefusedAndTheRetryRuns) {
  Buf x(64), out(64);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  // A softmax along dim 0 stages its rows: it needs a workspace.
  ASSERT_EQ(aclnnSoftmaxGetWorkspaceSize(t(x, {8, 8}), 0, t(out, {8, 8}), &ws, &e), ACLNN_SUCCESS)
      << Msg();
  ASSERT_GT(ws, 0u);
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclnnSoftmax(w, ws - 1, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("workspaceSize " + std::to_string(ws - 1) + " is smaller than the " +
                               std::to_string(ws) + " bytes phase 1 asked for"));
  EXPECT_EQ(aclnnSoftmax(nullptr, ws, e, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("workspace is null"));
  ASSERT_EQ(aclnnSoftmax(w, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  float sum = 0;
  for (int r = 0; r < 8; ++r) sum += out.f()[r * 8 + 3];  // a column sums to 1
  EXPECT_NEAR(sum, 1.0f, 1e-5);
  aclrtFree(w);
}

// More workspace than asked is fine (users round sizes up).
TEST(AclnnMisuseTest, AWorkspaceLargerThanAskedIsFine) {
  Buf x(64), out(64);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnSoftmaxGetWorkspaceSize(t(x, {8, 8}), 0, t(out, {8, 8}), &ws, &e), ACLNN_SUCCESS)
      << Msg();
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclnnSoftmax(w, ws * 4, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  aclrtFree(w);
}

// --- executors ---

// Was: the consumed executor's memory went straight back to the heap, the next phase 1 got the
// same address, and the stale handle ran the new executor (the new op's phase 2 then failed).
TEST(AclnnMisuseTest, PhaseTwoTwiceIsRefusedEvenAfterAnotherPhaseOne) {
  Buf x(8), y(8), out1(8), out2(8);
  Tensors t;
  Scalar one(1);
  uint64_t ws = 0;
  aclOpExecutor* first = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(t(x, {8}), t(y, {8}), one.s, t(out1, {8}), &ws, &first),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdd(nullptr, 0, first, nullptr), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(aclnnAdd(nullptr, 0, first, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAdd: the executor was already run"));
  aclOpExecutor* second = nullptr;
  ASSERT_EQ(aclnnMulGetWorkspaceSize(t(x, {8}), t(y, {8}), t(out2, {8}), &ws, &second),
            ACLNN_SUCCESS);
  EXPECT_EQ(aclnnAdd(nullptr, 0, first, nullptr), ACLNN_ERR_PARAM_INVALID) << "ran " << second;
  EXPECT_EQ(aclDestroyAclOpExecutor(first), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclnnMul(nullptr, 0, second, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out1.f()[i], x.f()[i] + y.f()[i]) << i;
    EXPECT_EQ(out2.f()[i], x.f()[i] * y.f()[i]) << i;
  }
}

TEST(AclnnMisuseTest, ARepeatableExecutorRunsUntilDestroyed) {
  Buf x(8), out(8);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnSiluGetWorkspaceSize(t(x, {8}), t(out, {8}), &ws, &e), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(aclnnSilu(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnSilu(nullptr, 0, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnSilu(nullptr, 0, nullptr, nullptr), ACLNN_ERR_INNER_NULLPTR);
}

// Was: aclSetOutputTensorAddr could move out onto its input (or to null, which phase 2 then
// wrote through) between runs of a repeatable executor, and phase 2 ran without phase 1's
// checks.
TEST(AclnnMisuseTest, AddressesReboundBetweenRunsAreChecked) {
  Buf x(16), y(16), out(16), other(16);
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  aclTensor* tout = t(out, {16});
  ASSERT_EQ(aclnnMulGetWorkspaceSize(t(x, {16}), t(y, {16}), tout, &ws, &e), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetOutputTensorAddr(e, 0, tout, other.p), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMul(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(other.f()[3], x.f()[3] * y.f()[3]);
  // out one element into x: a partial overlap phase 1 would have refused.
  ASSERT_EQ(aclSetOutputTensorAddr(e, 0, nullptr, x.f() + 1), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnMul(nullptr, 0, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnMul: out overlaps self in memory"));
  EXPECT_EQ(aclSetOutputTensorAddr(e, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_THAT(Msg(), HasSubstr("aclSetOutputTensorAddr: addr is null; output 0 had storage"));
  ASSERT_EQ(aclSetOutputTensorAddr(e, 0, nullptr, out.p), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnMul(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(out.f()[7], x.f()[7] * y.f()[7]);
  EXPECT_EQ(aclSetInputTensorAddr(e, 2, nullptr, x.p), ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("input index 2 is out of range (aclnnMul has 2)"));
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

// --- dims ---

TEST(AclnnMisuseTest, NegativeDimsStridesAndOffsetsAreRefused) {
  Buf x(16);
  const int64_t storage = 16;
  const std::vector<int64_t> neg = {4, -4}, dims = {4, 4}, neg_stride = {4, -1};
  EXPECT_EQ(aclCreateTensor(neg.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &storage, 1, x.p),
            nullptr);
  EXPECT_THAT(Msg(), HasSubstr("viewDims [4, -4] has a negative dim"));
  EXPECT_EQ(aclCreateTensor(dims.data(), 2, ACL_FLOAT, neg_stride.data(), 0, ACL_FORMAT_ND,
                            &storage, 1, x.p),
            nullptr);
  EXPECT_THAT(Msg(), HasSubstr("stride [4, -1] has a negative stride"));
  EXPECT_EQ(
      aclCreateTensor(dims.data(), 2, ACL_FLOAT, nullptr, -1, ACL_FORMAT_ND, &storage, 1, x.p),
      nullptr);
  EXPECT_THAT(Msg(), HasSubstr("offset -1 is negative"));
  // A negative softmax dim counts from the end; one past the rank is refused.
  Tensors t;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(t(x, {4, 4}), -3, t(x, {4, 4}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("dim -3 is out of range for self of 2 dims; allowed: [-2, 1]"));
}

TEST(AclnnMisuseTest, DimsWhoseProductOverflowsInt64AreRefused) {
  Buf x(16);
  const int64_t storage = 16;
  const std::vector<int64_t> huge = {int64_t{1} << 32, int64_t{1} << 32};
  EXPECT_EQ(aclCreateTensor(huge.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &storage, 1, x.p),
            nullptr);
  EXPECT_THAT(Msg(), HasSubstr("hold more than 9223372036854775807 bytes"));
  // A zero dim does not hide the others' overflow.
  const std::vector<int64_t> hidden = {0, std::numeric_limits<int64_t>::max(), 2};
  EXPECT_EQ(
      aclCreateTensor(hidden.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &storage, 1, x.p),
      nullptr);
  EXPECT_THAT(Msg(), HasSubstr("counting the non-zero dims"));
  // headNum that does not divide H (or is not positive): refused, not divided by.
  for (int64_t heads : {int64_t{0}, int64_t{-2}, int64_t{3}}) {
    Buf q(4 * 16), stats(2 * 2 * 4 * 8), o(4 * 16);
    Tensors t;
    char layout[] = "BSH";
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    aclTensor* tq = t(q, {1, 4, 16});
    EXPECT_EQ(aclnnFlashAttentionScoreGetWorkspaceSize(
                  tq, tq, tq, nullptr, nullptr, nullptr, nullptr, nullptr, 0.25, 1.0, 65536, 65536,
                  heads, layout, 0, 0, t(stats, {1, 2, 4, 8}),
                  t(stats, {1, 2, 4, 8}, ACL_FLOAT, {}, 64), nullptr, t(o, {1, 4, 16}), &ws, &e),
              ACLNN_ERR_PARAM_INVALID)
        << heads;
    EXPECT_THAT(Msg(), HasSubstr("headNum " + std::to_string(heads)));
  }
}

// Was: a broadcast (all stride 0) out of 2^60 elements passed phase 1 and phase 2 set out to
// compute them all (hours).
TEST(AclnnMisuseTest, AHugeBroadcastOutIsRefusedAtOnce) {
  Buf x(16), out(16);
  Tensors t;
  Scalar one(1);
  const int64_t big = int64_t{1} << 30;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnAddsGetWorkspaceSize(t(x, {big, big}, ACL_FLOAT, {0, 0}), one.s, one.s,
                                      t(out, {big, big}, ACL_FLOAT, {0, 0}), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_THAT(Msg(), HasSubstr("aclnnAdds: out has stride 0 in dim 0 of size 1073741824"));
}

// A tensor whose claimed storage exceeds the aclrtMalloc allocation under it (in place, so out
// is the same view): phase 2 is asynchronous, the kernel's first copy past the block fails it,
// and the synchronize reports the block and the extent.
TEST(AclnnMisuseTest, StorageLargerThanItsAllocationFailsTheKernelClearly) {
  Buf x(16);
  const int64_t lie = 1 << 20;
  aclTensor* big = aclCreateTensor(&lie, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &lie, 1, x.p);
  ASSERT_NE(big, nullptr);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnSiluGetWorkspaceSize(big, big, &ws, &e), ACLNN_SUCCESS) << Msg();
  EXPECT_EQ(aclnnSilu(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << Msg();
  EXPECT_NE(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_THAT(Msg(), AllOf(HasSubstr("kernel ops_silu"), HasSubstr("DataCopyPad"),
                           HasSubstr("run past the end of its aclrtMalloc block of 64 B")));
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // reported once
  aclDestroyTensor(big);
}

// --- streams and the runtime's lifetime ---

TEST(AclnnMisuseTest, PhaseTwoOnADestroyedStreamIsAnError) {
  Buf x(8), out(8);
  Tensors t;
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnSiluGetWorkspaceSize(t(x, {8}), t(out, {8}), &ws, &e), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnSilu(nullptr, 0, e, s), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_THAT(Msg(), HasSubstr("aclnnSilu"));
}

// aclInit is optional in aicore (plain use needs neither): after aclFinalize the operators still
// compute right, and a second aclFinalize is refused.
TEST(AclnnMisuseTest, CallsAfterAclFinalizeComputeOrFailClearly) {
  if (robustness::InChild()) {
    if (aclInit(nullptr) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS) std::_Exit(3);
    if (aclFinalize() != ACL_ERROR_UNINITIALIZE) std::_Exit(4);
    Buf x(8), y(8), out(8);
    Tensors t;
    Scalar two(2);
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    if (aclnnAddGetWorkspaceSize(t(x, {8}), t(y, {8}), two.s, t(out, {8}), &ws, &e) != 0 ||
        aclnnAdd(nullptr, 0, e, nullptr) != 0 || aclrtSynchronizeStream(nullptr) != 0) {
      std::fprintf(stderr, "%s\n", aclGetRecentErrMsg());
      std::_Exit(5);
    }
    for (int i = 0; i < 8; ++i) {
      if (out.f()[i] != x.f()[i] + 2 * y.f()[i]) std::_Exit(6);
    }
    std::_Exit(0);
  }
  const auto r = robustness::RerunThisTest();
  ASSERT_TRUE(r.exited) << "killed by signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
