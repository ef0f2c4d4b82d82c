// The matmul with a fused epilogue (aicore/ops/matmul/matmul_epilogue.h) against the double
// reference of tests/reference/matmul_epilogue_ref.h: every activation with bias (none, a row, a
// matrix) and residual on and off, alpha and beta, every dtype, transposed and strided views,
// broadcast batches, awkward shapes (1, primes, tails of every block), K = 0, the Matmul's cube
// path as well as its fused host path, the unfused composition, the aclnn entry point, and the
// documented status codes with messages naming the argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "aclnnop/aclnn_matmul_epilogue.h"
#include "aicore/kernel/lib/matmul/matmul.h"
#include "tests/ops/matmul_epilogue_cases.h"
#include "tests/ops/ops_lib_test_util.h"
#include "tests/reference/matmul_epilogue_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::Gather;
using testing::Inputs;
using testing::MakeOperand;
using testing::Numel;
using testing::Operand;
using testing::OutputUnit;

using epilogue_cases::Case;
using epilogue_cases::Check;

TEST(MatmulEpilogueTest, EveryActivationWithAndWithoutBiasAndResidual) {
  epilogue_cases::EveryActivationWithAndWithoutBiasAndResidual(Case{});
}

TEST(MatmulEpilogueTest, EveryDtypeWithOutInTheInputDtypeOrFloat) {
  epilogue_cases::EveryDtypeWithOutInTheInputDtypeOrFloat(Case{});
}

TEST(MatmulEpilogueTest, TransposedAndStridedViews) {
  epilogue_cases::TransposedAndStridedViews(Case{});
}

TEST(MatmulEpilogueTest, BatchesBroadcast) {
  Case c;
  c.act = ref::EpilogueAct::kRelu;
  c.as = {3, 17, 13};
  c.bs = {13, 11};  // one B for every batch
  c.bias_shape = std::vector<int64_t>{11};
  c.residual_shape = std::vector<int64_t>{3, 17, 11};
  Check(c);
  c.as = {2, 1, 9, 13};  // (2, 1) x (3) batches -> (2, 3)
  c.bs = {3, 13, 7};
  c.bias_shape = std::vector<int64_t>{3, 1, 7};   // a row per batch of the second dim
  c.residual_shape = std::vector<int64_t>{9, 7};  // one residual for every batch
  c.act = ref::EpilogueAct::kSilu;
  Check(c);
  c.as = {1, 9, 13};  // a batch of 1 against 4
  c.bs = {4, 13, 7};
  c.b_strides = {91, 1, 13};  // B^T per batch
  c.bias_shape = std::vector<int64_t>{4, 9, 7};
  c.residual_shape.reset();
  Check(c);
}

TEST(MatmulEpilogueTest, AwkwardShapesAndManyBlocks) {
  const std::vector<std::vector<int64_t>> mnk = {{1, 1, 1},       {1, 17, 300}, {300, 1, 5},
                                                 {257, 263, 131}, {5, 600, 16}, {520, 7, 3}};
  for (const auto& s : mnk) {
    Case c;
    c.as = {s[0], s[2]};
    c.bs = {s[2], s[1]};
    c.act = ref::EpilogueAct::kGeluErf;
    c.bias_shape = std::vector<int64_t>{s[1]};
    c.residual_shape = std::vector<int64_t>{s[0], s[1]};
    Check(c);
  }
  // More blocks (25 x 2) than two per AI Core group of an ascend910b1 (24 groups): workspace
  // slots are refilled once the AIVs hand them back.
  Case c;
  c.as = {25, 60, 24};
  c.bs = {24, 530};
  c.act = ref::EpilogueAct::kGeluTanh;
  c.bias_shape = std::vector<int64_t>{530};
  c.residual_shape = std::vector<int64_t>{25, 60, 530};
  Check(c);
}

TEST(MatmulEpilogueTest, ManyBlocksPerGroupRefillTheSlotsAndSkipTheLastFrees) {
  // 80 batches of one block each on 24 groups: runs of 3 and 4 blocks, so every group refills
  // a slot and the AIVs leave the last two slots of a run unfreed (the AIC never waits for
  // them). A mismatch of sets and waits would hang or fail the launch.
  Case c;
  c.as = {80, 20, 8};
  c.bs = {8, 20};
  c.act = ref::EpilogueAct::kGeluErf;
  c.bias_shape = std::vector<int64_t>{20};
  c.residual_shape = std::vector<int64_t>{80, 20, 20};
  MatmulEpilogueArgs args;
  static float dummy[1];
  args.a = DenseRef(dummy, DType::kF32, c.as);
  args.b = DenseRef(dummy, DType::kF32, c.bs);
  args.out = DenseRef(dummy, DType::kF32, {80, 20, 20});
  const MatmulEpiloguePlan plan = Plan(args, arch::DefaultChip());
  const patterns::MatmulEpilogueTiling& t = plan.tiling;
  ASSERT_GE(t.batch * t.m_tiles * t.n_tiles, 3 * static_cast<int64_t>(plan.block_dim));
  Check(c);
  c.dt = DType::kF16;
  c.act = ref::EpilogueAct::kSilu;
  Check(c);
}

TEST(MatmulEpilogueTest, GroupRunsAreContiguousAndBalanced) {
  patterns::MatmulEpilogueTiling t;
  for (const auto& [batch, mt, nt, groups] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
           {1, 1, 1, 1}, {1, 8, 9, 24}, {1, 4, 8, 24}, {80, 1, 1, 24}, {3, 5, 7, 24},
           {2, 3, 4, 5}}) {
    t.batch = batch;
    t.m_tiles = mt;
    t.n_tiles = nt;
    const int64_t items = batch * mt * nt;
    int64_t next = 0, lo = items, hi = 0;
    for (int64_t g = 0; g < groups; ++g) {
      int64_t begin = 0, end = 0;
      patterns::EpilogueGroupItems(t, g, groups, &begin, &end);
      EXPECT_EQ(begin, next) << items << " items, group " << g;
      next = end;
      lo = std::min(lo, end - begin);
      hi = std::max(hi, end - begin);
    }
    EXPECT_EQ(next, items);
    EXPECT_LE(hi - lo, 1) << items << " items on " << groups << " groups";
  }
}

TEST(MatmulEpilogueTest, BlocksAreBalancedOverTheAics) {
  // Note [Epilogue block size]: squares split into two rounds of blocks over the AICs or more,
  // from 2048^2 on at least 90% full (2048^2 got 32 blocks on 24 AICs before: 67%), each block
  // at most 384 x 512.
  const arch::Chip& chip = arch::DefaultChip();
  static float dummy[1];
  for (const DType dt : {DType::kF32, DType::kF16}) {
    for (const int64_t s : {1024, 2048, 4096}) {
      MatmulEpilogueArgs args;
      args.a = DenseRef(dummy, dt, {s, s});
      args.b = DenseRef(dummy, dt, {s, s});
      args.out = DenseRef(dummy, dt, {s, s});
      const MatmulEpiloguePlan plan = Plan(args, chip);
      const patterns::MatmulEpilogueTiling& t = plan.tiling;
      const int64_t items = t.m_tiles * t.n_tiles;
      const std::string what = StrCat(OpDTypeName(dt), " ", s, "^3: ", t.tile_m, " x ", t.tile_n);
      EXPECT_EQ(plan.block_dim, static_cast<uint32_t>(std::min<int64_t>(items, chip.aic_count)));
      const int64_t rounds = (items + chip.aic_count - 1) / chip.aic_count;
      EXPECT_GE(rounds, 2) << what;  // the epilogue of a block overlaps the next block's cube
      if (s >= 2048) {
        EXPECT_GE(static_cast<double>(items), 0.9 * static_cast<double>(rounds * chip.aic_count))
            << what;
      }
      EXPECT_LE(t.tile_m, 384) << what;
      EXPECT_LE(t.tile_n, 512) << what;
      EXPECT_EQ(t.tile_n % 16, 0) << what;
      EXPECT_GE(t.tile_m * t.m_tiles, s) << what;
      EXPECT_LT(t.tile_m * (t.m_tiles - 1), s) << what;
      EXPECT_GE(t.tile_n * t.n_tiles, s) << what;
      EXPECT_LT(t.tile_n * (t.n_tiles - 1), s) << what;
    }
  }
}

TEST(MatmulEpilogueTest, KZeroIsTheEpilogueOfZero) {
  Case c;
  c.as = {6, 0};
  c.bs = {0, 5};
  c.act = ref::EpilogueAct::kSilu;
  c.bias_shape = std::vector<int64_t>{5};
  c.residual_shape = std::vector<int64_t>{6, 5};
  Check(c);
}

TEST(MatmulEpilogueTest, TheMatmulCubePathGivesTheSameResult) {
  // The Matmul's fused host path (Note [Matmul fused path]) is what runs when nothing observes
  // the cores; the cube path (Nd2Nz, LoadData, Mmad, Fixpipe into the workspace slots) is what
  // `aicore check` and the profiler see.
  AscendC::detail::SetMatmulFusedPath(false);
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    Case c;
    c.dt = dt;
    c.as = {2, 70, 40};
    c.bs = {40, 90};
    c.b_strides = {1, 40};
    c.act = ref::EpilogueAct::kGeluErf;
    c.bias_shape = std::vector<int64_t>{90};
    c.residual_shape = std::vector<int64_t>{2, 70, 90};
    Check(c);
  }
  AscendC::detail::SetMatmulFusedPath(true);
}

TEST(MatmulEpilogueTest, UnfusedCompositionMatchesTheReference) {
  for (ref::EpilogueAct act : epilogue_cases::kActs) {
    Case c;
    c.as = {2, 33, 20};
    c.bs = {20, 47};
    c.act = act;
    c.alpha = 1.25;
    c.beta = 0.5;
    c.bias_shape = std::vector<int64_t>{47};
    c.residual_shape = std::vector<int64_t>{2, 33, 47};
    c.unfused = true;
    Check(c);
  }
}

// Runs MatmulEpilogue on (M, K) @ (K, N) operands of the given dtypes and shapes and returns
// its status.
Status RunShapes(DType a_dt, std::vector<int64_t> as, DType b_dt, std::vector<int64_t> bs,
                 DType out_dt, std::vector<int64_t> os, std::vector<int64_t> bias_shape = {}) {
  DeviceTensor a(a_dt, Numel(as)), b(b_dt, Numel(bs)), out(out_dt, Numel(os));
  DeviceTensor bias(DType::kF32, std::max<int64_t>(1, Numel(bias_shape)));
  const TensorRef bias_ref = bias.Ref(bias_shape);
  return MatmulEpilogue(a.Ref(as), b.Ref(bs), bias_shape.empty() ? nullptr : &bias_ref, nullptr, 1,
                        1, Activation::kGeluErf, out.Ref(os));
}

void ExpectInvalid(const Status& s, const std::vector<std::string>& words) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  for (const std::string& w : words)
    EXPECT_NE(s.message().find(w), std::string::npos) << s.message();
}

TEST(MatmulEpilogueTest, BadInputNamesTheArgument) {
  const DType f32 = DType::kF32;
  // K does not match.
  ExpectInvalid(RunShapes(f32, {4, 5}, f32, {6, 3}, f32, {4, 3}), {"a [4, 5]", "b [6, 3]", "6"});
  // out's shape.
  ExpectInvalid(RunShapes(f32, {4, 5}, f32, {5, 3}, f32, {4, 4}), {"out", "[4, 4]", "[4, 3]"});
  // a and b of different dtypes; out in a third one; a dtype outside the three.
  ExpectInvalid(RunShapes(f32, {4, 5}, DType::kF16, {5, 3}, f32, {4, 3}),
                {"a is FLOAT", "b is FLOAT16"});
  ExpectInvalid(RunShapes(DType::kF16, {4, 5}, DType::kF16, {5, 3}, DType::kBF16, {4, 3}),
                {"out", "BFLOAT16", "FLOAT16"});
  ExpectInvalid(RunShapes(DType::kI32, {4, 5}, DType::kI32, {5, 3}, f32, {4, 3}),
                {"a has dtype INT32"});
  // A bias that does not broadcast; a 1-D a; batch dims that do not broadcast.
  ExpectInvalid(RunShapes(f32, {4, 5}, f32, {5, 3}, f32, {4, 3}, {4}), {"bias", "[4]", "[4, 3]"});
  ExpectInvalid(RunShapes(f32, {5}, f32, {5, 3}, f32, {3}), {"a has 1 dims"});
  ExpectInvalid(RunShapes(f32, {2, 4, 5}, f32, {3, 5, 3}, f32, {2, 4, 3}), {"batch dims"});
  // Null storage: 161001 through aclnn, InvalidArgument here, naming the argument.
  DeviceTensor b(f32, 15), out(f32, 12);
  const TensorRef null_a = DenseRef(nullptr, f32, {4, 5});
  const Status s = MatmulEpilogue(null_a, b.Ref({5, 3}), nullptr, nullptr, 1, 1, Activation::kNone,
                                  out.Ref({4, 3}));
  ExpectInvalid(s, {"a has null storage"});
  // out aliasing an input of the product.
  DeviceTensor ab(f32, 40);
  ExpectInvalid(MatmulEpilogue(ab.Ref({4, 5}), ab.Ref({5, 3}, {}, 20), nullptr, nullptr, 1, 1,
                               Activation::kNone, ab.Ref({4, 3}, {}, 8)),
                {"out overlaps a"});
}

aclTensor* AclTensorOf(const TensorRef& t, aclDataType dt) {
  const std::vector<int64_t> s = t.Strides();
  const int64_t storage = 1 << 16;
  return aclCreateTensor(t.shape.data(), t.shape.size(), dt, s.data(), t.offset, ACL_FORMAT_ND,
                         &storage, 1, t.data);
}

TEST(MatmulEpilogueTest, AclnnEntryPoint) {
  const int64_t m = 21, k = 34, n = 18;
  const Operand a = MakeOperand(DType::kF16, {m, k});
  const Operand wt = MakeOperand(DType::kF16, {k, n}, {1, k});  // w stored (n, k), used as w^T
  const Operand bias = MakeOperand(DType::kF32, {n}, {}, 0, 7);
  const Operand res = MakeOperand(DType::kF16, {m, n}, {}, 0, 9);
  Operand out = MakeOperand(DType::kF16, {m, n});
  aclTensor* ta = AclTensorOf(a.view, ACL_FLOAT16);
  aclTensor* tw = AclTensorOf(wt.view, ACL_FLOAT16);
  aclTensor* tb = AclTensorOf(bias.view, ACL_FLOAT);
  aclTensor* tr = AclTensorOf(res.view, ACL_FLOAT16);
  aclTensor* to = AclTensorOf(out.view, ACL_FLOAT16);
  uint64_t ws_size = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnAicoreMatmulEpilogueGetWorkspaceSize(
                ta, tw, tb, tr, 1.0, 1.0, ACLNN_AICORE_ACTIVATION_GELU_TANH, to, &ws_size, &e),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_GT(ws_size, 0u);  // the per-group blocks
  void* ws = nullptr;
  ASSERT_EQ(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclnnAicoreMatmulEpilogue(ws, ws_size, e, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  testing::Sync();
  aclrtFree(ws);
  const ref::MatmulEpilogueRefResult want = ref::MatmulEpilogueRef(
      a.logical, {m, k}, wt.logical, {k, n}, ref::BroadcastRef(bias.logical, {n}, {m, n}),
      res.logical, 1, 1, ref::EpilogueAct::kGeluTanh);
  const std::vector<double> got = out.dev->Read();
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = want.tol[i] + OutputUnit(DType::kF16) * std::fabs(want.out[i]) + 1e-7;
    if (!(std::fabs(got[i] - want.out[i]) <= tol) && ++bad <= 5) {
      ADD_FAILURE() << "element " << i << " is " << got[i] << ", want " << want.out[i];
    }
  }
  EXPECT_EQ(bad, 0);

  // The documented status codes, with the argument named.
  EXPECT_EQ(
      aclnnAicoreMatmulEpilogueGetWorkspaceSize(nullptr, tw, tb, tr, 1, 1, 0, to, &ws_size, &e),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("a is null"), std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnAicoreMatmulEpilogueGetWorkspaceSize(ta, tw, tb, tr, 1, 1, 9, to, &ws_size, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("activation 9"), std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnAicoreMatmulEpilogueGetWorkspaceSize(ta, ta, tb, tr, 1, 1, 0, to, &ws_size, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("do not multiply"), std::string::npos)
      << aclGetRecentErrMsg();
  for (aclTensor* t : {ta, tw, tb, tr, to}) aclDestroyTensor(t);
}

}  // namespace
}  // namespace aicore::ops
