// The matmul epilogue on the L0C -> UB path (aicore/ops/patterns/matmul_epilogue_ub.h) on
// ascend950 (forced: MatmulEpilogueArgs::strategy), against the double reference of
// tests/reference/matmul_epilogue_ref.h: strategy selection, every activation with bias (none,
// a row, a matrix) and residual on and off, every dtype, transposed and strided views, tails of
// the base blocks and several blocks per group, batches, and clean runs under the sanitizer
// (every tool). The binary runs on ascend950 (AICORE_CHIP is set before the first launch).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/ops/matmul/matmul_epilogue.h"
#include "aicore/ops/patterns/matmul_epilogue_ub.h"
#include "aicore/sim/core.h"
#include "tests/ops/matmul_epilogue_cases.h"
#include "tests/reference/matmul_epilogue_ref.h"

namespace aicore::ops {
namespace {

// DefaultChip() is loaded at the first launch, after this.
const bool kOnAscend950 = setenv("AICORE_CHIP", "ascend950", 1) == 0;

using epilogue_cases::Case;

// Returns `c` with the L0C -> UB strategy forced, as the tests below run it.
Case Forced(Case c) {
  c.strategy = EpilogueStrategy::kL0cToUb;
  return c;
}

// Checks the case on the L0C -> UB path.
void CheckUb(const Case& c) { epilogue_cases::Check(Forced(c)); }

// The plan the case gets with `strategy` forced (no launch).
MatmulEpiloguePlan PlanOf(Case c, const arch::Chip& chip,
                          std::optional<EpilogueStrategy> strategy = EpilogueStrategy::kL0cToUb) {
  c.strategy = strategy;
  return Plan(epilogue_cases::ShapeArgs(c), chip);
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
  const OpCheck refused =
      CanImplement(epilogue_cases::ShapeArgs(Forced(c)), arch::LoadChip("ascend910b1"));
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message.find("strategy kL0cToUb"), std::string::npos) << refused.message;
  EXPECT_NE(refused.message.find("ascend910b1 has no L0C -> UB path"), std::string::npos)
      << refused.message;
  EXPECT_TRUE(CanImplement(epilogue_cases::ShapeArgs(Forced(c)), arch::DefaultChip()).ok());
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

TEST(MatmulEpilogueUbTest, EveryActivationWithAndWithoutBiasAndResidual) {
  epilogue_cases::EveryActivationWithAndWithoutBiasAndResidual(Forced({}));
}

TEST(MatmulEpilogueUbTest, EveryDtypeWithOutInTheInputDtypeOrFloat) {
  epilogue_cases::EveryDtypeWithOutInTheInputDtypeOrFloat(Forced({}));
}

TEST(MatmulEpilogueUbTest, TransposedAndStridedViews) {
  epilogue_cases::TransposedAndStridedViews(Forced({}));
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
    CheckUb(c);
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
  CheckUb(c);
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
    CheckUb(c);
    c.as = {130, 33};
    c.bs = {33, 300};
    c.b_strides = {};
    c.bias_shape = std::vector<int64_t>{130, 300};
    c.residual_shape.reset();
    c.act = ref::EpilogueAct::kRelu;
    CheckUb(c);
  }
  std::string text;
  for (const auto& r : sanitizer.reports()) text += r.ToString() + "\n";
  EXPECT_TRUE(sanitizer.reports().empty()) << text;
  EXPECT_GT(peer.writes.load(), 0);  // the product went L0C -> UB
}

}  // namespace
}  // namespace aicore::ops
