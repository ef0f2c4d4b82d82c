// The matmul epilogue on the L0C -> UB path (aicore/ops/patterns/matmul_epilogue_ub.h) on
// ascend950 (forced: MatmulEpilogueArgs::strategy), against the double reference of
// tests/reference/matmul_epilogue_ref.h: strategy selection, every activation with bias (none,
// a row, a matrix) and residual on and off, every dtype, transposed and strided views, tails of
// the base blocks and several blocks per group, batches, and clean runs under the sanitizer
// (every tool). The binary runs on ascend950 (AICORE_CHIP is set before the first launch).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/ops/framework/run_op.h"
#include "aicore/ops/matmul/matmul_epilogue.h"
#include "aicore/ops/patterns/matmul_epilogue_ub.h"
#include "aicore/sim/core.h"
#include "tests/ops/ops_lib_test_util.h"
#include "tests/reference/matmul_epilogue_ref.h"

namespace aicore::ops {
namespace {

// DefaultChip() is loaded at the first launch, after this.
const bool kOnAscend950 = setenv("AICORE_CHIP", "ascend950", 1) == 0;

using testing::DeviceTensor;
using testing::Gather;
using testing::Inputs;
using testing::MakeOperand;
using testing::Numel;
using testing::Operand;
using testing::OutputUnit;

struct Case {
  DType dt = DType::kF32;
  DType out_dt = DType::kUnknown;  // kUnknown: dt
  std::vector<int64_t> as, bs;
  std::vector<int64_t> a_strides, b_strides;
  std::optional<std::vector<int64_t>> bias_shape, residual_shape;
  std::vector<int64_t> bias_strides, residual_strides, out_strides;
  double alpha = 1, beta = 1;
  ref::EpilogueAct act = ref::EpilogueAct::kNone;
};

std::string Label(const Case& c) {
  return StrCat(ShapeString(c.as), " @ ", ShapeString(c.bs), " ", OpDTypeName(c.dt), " -> ",
                OpDTypeName(c.out_dt == DType::kUnknown ? c.dt : c.out_dt), " act ",
                static_cast<int>(c.act), " bias ",
                c.bias_shape ? ShapeString(*c.bias_shape) : std::string("none"), " residual ",
                c.residual_shape ? ShapeString(*c.residual_shape) : std::string("none"));
}

// The arguments of the case (no storage), with the strategy the tests force.
MatmulEpilogueArgs ArgsOf(const Case& c, std::optional<EpilogueStrategy> strategy =
                                             EpilogueStrategy::kL0cToUb) {
  static float dummy[1];
  MatmulEpilogueArgs args;
  args.a = DenseRef(dummy, c.dt, c.as);
  args.b = DenseRef(dummy, c.dt, c.bs);
  std::vector<int64_t> os(c.as.begin(), c.as.end() - 1);
  os.push_back(c.bs.back());
  args.out = DenseRef(dummy, c.dt, os);
  args.strategy = strategy;
  return args;
}

// The plan the case gets (no launch).
MatmulEpiloguePlan PlanOf(const Case& c, const arch::Chip& chip,
                          std::optional<EpilogueStrategy> strategy = EpilogueStrategy::kL0cToUb) {
  return Plan(ArgsOf(c, strategy), chip);
}

// Runs the case on the default chip (ascend950) and checks it against the reference; expects
// the L0C -> UB strategy.
void Check(const Case& c) {
  const std::string what = Label(c);
  ASSERT_EQ(PlanOf(c, arch::DefaultChip()).strategy, EpilogueStrategy::kL0cToUb) << what;
  const DType out_dt = c.out_dt == DType::kUnknown ? c.dt : c.out_dt;
  const Operand a = MakeOperand(c.dt, c.as, c.a_strides, 3, 1);
  const Operand b = MakeOperand(c.dt, c.bs, c.b_strides, 5, 2);
  std::vector<int64_t> os;
  BroadcastShapes(std::vector<int64_t>(c.as.begin(), c.as.end() - 2),
                  std::vector<int64_t>(c.bs.begin(), c.bs.end() - 2), &os);
  os.push_back(c.as[c.as.size() - 2]);
  os.push_back(c.bs.back());
  std::optional<Operand> bias, residual;
  std::vector<double> bias_full, residual_full;
  if (c.bias_shape) {
    bias = MakeOperand(c.dt, *c.bias_shape, c.bias_strides, 1, 7, -2, 2);
    bias_full = ref::BroadcastRef(bias->logical, *c.bias_shape, os);
  }
  if (c.residual_shape) {
    residual = MakeOperand(c.dt, *c.residual_shape, c.residual_strides, 2, 9);
    residual_full = ref::BroadcastRef(residual->logical, *c.residual_shape, os);
  }
  Operand out = MakeOperand(out_dt, os, c.out_strides, 0, 11);
  const ref::MatmulEpilogueRefResult want = ref::MatmulEpilogueRef(
      a.logical, c.as, b.logical, c.bs, bias_full, residual_full, c.alpha, c.beta, c.act);
  MatmulEpilogueArgs args;
  args.op = "aicore::ops::MatmulEpilogue";
  args.a = a.view;
  args.b = b.view;
  if (bias) args.bias = bias->view;
  if (residual) args.residual = residual->view;
  args.alpha = c.alpha;
  args.beta = c.beta;
  args.activation = static_cast<Activation>(static_cast<int>(c.act));
  args.out = out.view;
  args.strategy = EpilogueStrategy::kL0cToUb;
  const Status s = RunOp(args, nullptr);
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  testing::Sync();
  const std::vector<double> got = Gather(out.dev->Read(), out.view);
  ASSERT_EQ(got.size(), want.out.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = want.tol[i] + OutputUnit(out_dt) * std::fabs(want.out[i]) + 1e-7;
    if (!(std::fabs(got[i] - want.out[i]) <= tol) && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want.out[i]
                    << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

TEST(MatmulEpilogueUbTest, TheGmWorkspaceUnlessKL0cToUbIsForced) {
  ASSERT_TRUE(kOnAscend950);
  ASSERT_EQ(arch::DefaultChip().name, "ascend950");
  Case c;
  c.as = {300, 64};
  c.bs = {64, 200};
  // The plan's choice on ascend950: the GM workspace, the faster by model (Note [Epilogue
  // strategy]), as on a chip without the L0C -> UB path.
  for (const arch::Chip& chip : {arch::DefaultChip(), arch::LoadChip("ascend910b1")}) {
    const MatmulEpiloguePlan gm = PlanOf(c, chip, std::nullopt);
    EXPECT_EQ(gm.strategy, EpilogueStrategy::kGmWorkspace) << chip.name;
    EXPECT_GT(gm.slots_bytes, 0u) << chip.name;
    EXPECT_EQ(PlanOf(c, chip, EpilogueStrategy::kGmWorkspace).strategy,
              EpilogueStrategy::kGmWorkspace);
  }
  // Forced: the L0C -> UB path, no GM workspace for the product.
  const MatmulEpiloguePlan ub = PlanOf(c, arch::DefaultChip());
  EXPECT_EQ(ub.strategy, EpilogueStrategy::kL0cToUb);
  EXPECT_EQ(ub.slots_bytes, 0u);
  EXPECT_EQ(ub.workspace_bytes, ub.staging_bytes);
  // Forced on a chip without the path: refused, naming the strategy and the chip.
  const OpCheck refused = CanImplement(ArgsOf(c), arch::LoadChip("ascend910b1"));
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message.find("strategy kL0cToUb"), std::string::npos) << refused.message;
  EXPECT_NE(refused.message.find("ascend910b1 has no L0C -> UB path"), std::string::npos)
      << refused.message;
  EXPECT_TRUE(CanImplement(ArgsOf(c), arch::DefaultChip()).ok());
  // Large blocks: ascend950's tiling would give 256 x 256 fp32 bases (256 KB, UB's size); the
  // block is narrowed until a base block fits beside the chunk tiles.
  Case big;
  big.dt = DType::kF16;
  big.as = {4096, 4096};
  big.bs = {4096, 4096};
  const MatmulEpiloguePlan p = PlanOf(big, arch::DefaultChip());
  EXPECT_EQ(p.strategy, EpilogueStrategy::kL0cToUb);
  EXPECT_LE(patterns::EpilogueUbSlotBytes(p.tiling.cube) + 4ull * p.tiling.chunk,
            arch::DefaultChip().spec(arch::Buffer::kUb).bytes);
  EXPECT_EQ(p.block_dim, static_cast<uint32_t>(arch::DefaultChip().aic_count));
  EXPECT_EQ(PlanOf(big, arch::DefaultChip(), std::nullopt).strategy,
            EpilogueStrategy::kGmWorkspace);
  c.as = {30, 0};  // K = 0: no cube work, the workspace kernel even when forced
  c.bs = {0, 20};
  EXPECT_EQ(PlanOf(c, arch::DefaultChip()).strategy, EpilogueStrategy::kGmWorkspace);
}

const ref::EpilogueAct kActs[] = {ref::EpilogueAct::kNone, ref::EpilogueAct::kRelu,
                                  ref::EpilogueAct::kGeluErf, ref::EpilogueAct::kGeluTanh,
                                  ref::EpilogueAct::kSilu};

TEST(MatmulEpilogueUbTest, EveryActivationWithAndWithoutBiasAndResidual) {
  const int64_t m = 37, k = 29, n = 45;
  const std::vector<std::optional<std::vector<int64_t>>> biases = {
      std::nullopt, std::vector<int64_t>{n}, std::vector<int64_t>{m, n}};
  for (ref::EpilogueAct act : kActs) {
    for (const auto& bias : biases) {
      for (bool residual : {false, true}) {
        Case c;
        c.as = {m, k};
        c.bs = {k, n};
        c.act = act;
        c.bias_shape = bias;
        if (residual) c.residual_shape = std::vector<int64_t>{m, n};
        c.alpha = bias ? 0.75 : 1;
        c.beta = residual ? -1.5 : 1;
        Check(c);
      }
    }
  }
}

TEST(MatmulEpilogueUbTest, EveryDtypeWithOutInTheInputDtypeOrFloat) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (DType out_dt : {dt, DType::kF32}) {
      Case c;
      c.dt = dt;
      c.out_dt = out_dt;
      c.as = {41, 70};
      c.bs = {70, 33};
      c.bias_shape = std::vector<int64_t>{33};
      c.residual_shape = std::vector<int64_t>{41, 33};
      c.act = ref::EpilogueAct::kGeluErf;
      Check(c);
      c.bias_shape = std::vector<int64_t>{41, 33};
      c.act = ref::EpilogueAct::kSilu;
      Check(c);
    }
  }
}

TEST(MatmulEpilogueUbTest, TransposedAndStridedViews) {
  for (DType dt : {DType::kF32, DType::kF16}) {
    Case c;
    c.dt = dt;
    c.act = ref::EpilogueAct::kGeluTanh;
    c.as = {19, 23};
    c.bs = {23, 31};
    c.a_strides = {1, 21};  // A^T stored (K, pitch 21)
    c.b_strides = {1, 25};  // B^T stored (N, pitch 25)
    c.bias_shape = std::vector<int64_t>{31};
    c.bias_strides = {2};
    c.residual_shape = std::vector<int64_t>{19, 31};
    c.residual_strides = {40, 1};
    c.out_strides = {36, 1};
    Check(c);
    c.a_strides = {30, 1};
    c.b_strides = {40, 1};
    c.residual_strides = {1, 19};
    c.out_strides = {1, 19};
    c.alpha = -0.5;
    c.beta = 2;
    Check(c);
  }
}

TEST(MatmulEpilogueUbTest, TailsOfBaseBlocksAndSeveralBlocksPerGroup) {
  // Items of several base blocks with M and N tails, and more items than groups (32 on
  // ascend950), so the AIC refills the slot many times.
  const std::vector<std::vector<int64_t>> mnk = {
      {1, 1, 1}, {300, 530, 40}, {257, 263, 131}, {5, 600, 16}, {520, 7, 3}};
  for (const auto& s : mnk) {
    Case c;
    c.as = {s[0], s[2]};
    c.bs = {s[2], s[1]};
    c.act = ref::EpilogueAct::kGeluErf;
    c.bias_shape = std::vector<int64_t>{s[1]};
    c.residual_shape = std::vector<int64_t>{s[0], s[1]};
    Check(c);
  }
  Case c;
  c.dt = DType::kF16;
  c.as = {80, 20, 8};
  c.bs = {8, 20};
  c.act = ref::EpilogueAct::kSilu;
  c.bias_shape = std::vector<int64_t>{20};
  c.residual_shape = std::vector<int64_t>{80, 20, 20};
  const MatmulEpiloguePlan plan = PlanOf(c, arch::DefaultChip());
  ASSERT_GE(plan.tiling.batch * plan.tiling.m_tiles * plan.tiling.n_tiles,
            2 * static_cast<int64_t>(plan.block_dim));
  Check(c);
}

// Counts the Fixpipe records that write an AIV's UB from its AIC, and the launches' modes.
class PeerUbWrites : public sim::Observer {
 public:
  PeerUbWrites() { sim::AttachObserver(this); }
  ~PeerUbWrites() override { sim::DetachObserver(this); }
  void OnInstr(sim::Core& /*core*/, const sim::Instr& in) override {
    if (in.dst_in_peer_ub && std::string(in.api) == "Fixpipe") ++writes;
  }
  std::atomic<int> writes{0};
};

TEST(MatmulEpilogueUbTest, CleanUnderTheSanitizer) {
  const PeerUbWrites peer;
  check::Sanitizer sanitizer;  // every tool
  for (DType dt : {DType::kF32, DType::kBF16}) {
    Case c;
    c.dt = dt;
    c.as = {2, 70, 40};
    c.bs = {40, 90};
    c.b_strides = {1, 40};
    c.act = ref::EpilogueAct::kGeluErf;
    c.bias_shape = std::vector<int64_t>{90};
    c.residual_shape = std::vector<int64_t>{2, 70, 90};
    Check(c);
    c.as = {130, 33};
    c.bs = {33, 300};
    c.b_strides = {};
    c.bias_shape = std::vector<int64_t>{130, 300};
    c.residual_shape.reset();
    c.act = ref::EpilogueAct::kRelu;
    Check(c);
  }
  std::string text;
  for (const auto& r : sanitizer.reports()) text += r.ToString() + "\n";
  EXPECT_TRUE(sanitizer.reports().empty()) << text;
  EXPECT_GT(peer.writes.load(), 0);  // the product went L0C -> UB
}

}  // namespace
}  // namespace aicore::ops
