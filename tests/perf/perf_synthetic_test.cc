// The timing model on hand-built instruction streams, for the paths no kernel API drives yet:
// cube (Mmad on PIPE_M), L1->L0A/L0B on MTE1, L0C->GM on FIX, and cross-core flags between
// cores; plus the costs of level-0 vector forms and APIs missing from the fitted table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/perf/model.h"
#include "aicore/perf/results.h"

namespace {

using aicore::arch::Buffer;
using aicore::perf::Op;
using aicore::perf::Record;
using aicore::sim::Pipe;

double P(const char* key) { return aicore::arch::DefaultChip().pipes.at(key).get<double>(); }

Record Work(Op op, Pipe pipe, const char* api, Buffer dst, Buffer src, uint64_t bytes,
            aicore::DType dt = aicore::DType::kF16) {
  Record r;
  r.op = op;
  r.pipe = pipe;
  r.api = api;
  r.dst = dst;
  r.src = src;
  r.bytes = bytes;
  r.dtype = dt;
  r.elements = bytes / std::max<size_t>(1, aicore::DTypeSize(dt));
  return r;
}

TEST(PerfSyntheticTest, CubeMte1AndFixpipeCosts) {
  const aicore::perf::CostModel m(aicore::arch::DefaultChip());
  Record mmad = Work(Op::kCompute, Pipe::kM, "Mmad", Buffer::kL0C, Buffer::kL0A, 0);
  mmad.flops = 2ull * 128 * 128 * 256;  // m, n, k
  EXPECT_NEAR(m.Cost(mmad, 1e9),
              P("cube_head_cycles") + mmad.flops / (2.0 * 4096), 1e-9);  // f16: 4096 MAC/cycle
  mmad.dtype = aicore::DType::kF32;
  EXPECT_NEAR(m.Cost(mmad, 1e9), P("cube_head_cycles") + mmad.flops / (2.0 * 1024), 1e-9);
  const Record l0a = Work(Op::kCopy, Pipe::kMte1, "LoadData", Buffer::kL0A, Buffer::kL1, 32768);
  EXPECT_NEAR(m.Cost(l0a, 1e9),
              P("mte1_head_cycles") + 32768 / P("mte1_l0a_bytes_per_cycle"), 1e-9);
  const Record l0b = Work(Op::kCopy, Pipe::kMte1, "LoadData", Buffer::kL0B, Buffer::kL1, 32768);
  EXPECT_NEAR(m.Cost(l0b, 1e9),
              P("mte1_head_cycles") + 32768 / P("mte1_l0b_bytes_per_cycle"), 1e-9);
  const Record fix = Work(Op::kCopy, Pipe::kFix, "Fixpipe", Buffer::kGm, Buffer::kL0C, 65536);
  EXPECT_NEAR(m.Cost(fix, 1e9), P("fix_head_cycles") + 65536 / P("fix_bytes_per_cycle"), 1e-9);
  EXPECT_NEAR(m.Cost(fix, 8.0), P("fix_head_cycles") + 65536 / 8.0, 1e-9);  // HBM share binds
}

TEST(PerfSyntheticTest, VectorLevel0AndUntabledApis) {
  const aicore::perf::CostModel m(aicore::arch::DefaultChip());
  const auto& vc = aicore::arch::DefaultChip().pipes.at("vector_costs");
  // Level-0 form: 4 repeats of 128 halves, half of each masked off: costed as 4 full repeats.
  Record add = Work(Op::kCompute, Pipe::kV, "Add", Buffer::kUb, Buffer::kUb, 1024);
  add.elements = 256;
  add.repeat = 4;
  const double a = vc["Add"]["f16"][0], b = vc["Add"]["f16"][1];
  EXPECT_NEAR(m.Cost(add, 1e9), a * 512 + b, 1e-9);
  // An API missing from the table: bytes / vector width + the default per-call cycles.
  Record other = Work(Op::kCompute, Pipe::kV, "NoSuchVectorApi", Buffer::kUb, Buffer::kUb, 4096,
                      aicore::DType::kF32);
  EXPECT_NEAR(m.Cost(other, 1e9),
              4096 / P("vector_bytes_per_cycle") + P("vector_default_b_cycles"), 1e-9);
  // UB->UB DataCopy on V uses the Copy row.
  const Record copy = Work(Op::kCopy, Pipe::kV, "DataCopy", Buffer::kUb, Buffer::kUb, 2048,
                           aicore::DType::kF32);
  EXPECT_NEAR(m.Cost(copy, 1e9),
              vc["Copy"]["f32"][0].get<double>() * 512 + vc["Copy"]["f32"][1].get<double>(),
              1e-9);
}

TEST(PerfSyntheticTest, CrossCoreFlagOrdersTwoCores) {
  auto launch = std::make_shared<aicore::perf::LaunchRecord>();
  launch->kernel = "cross";
  launch->block_dim = 1;
  launch->chip = std::make_shared<aicore::arch::Chip>(aicore::arch::DefaultChip());
  auto aic = std::make_unique<aicore::perf::CoreStream>();
  aic->id.type = aicore::sim::CoreType::kAic;
  aic->name = "AIC 0";
  auto aiv = std::make_unique<aicore::perf::CoreStream>();
  aiv->id.type = aicore::sim::CoreType::kAiv;
  aiv->name = "AIV 0";
  // AIC: Fixpipe 64 KiB to GM, then CrossCoreSetFlag on FIX. AIV: wait, then copy it in.
  aic->records.push_back(Work(Op::kCopy, Pipe::kFix, "Fixpipe", Buffer::kGm, Buffer::kL0C, 65536));
  Record set;
  set.op = Op::kCrossSet;
  set.pipe = Pipe::kFix;
  set.api = "CrossCoreSetFlag";
  set.key = 3;
  aic->records.push_back(set);
  Record wait;
  wait.op = Op::kCrossWait;
  wait.pipe = Pipe::kS;
  wait.api = "CrossCoreWaitFlag";
  wait.key = 3;
  aiv->records.push_back(wait);
  aiv->records.push_back(Work(Op::kCopy, Pipe::kMte2, "DataCopy", Buffer::kUb, Buffer::kGm, 4096));
  launch->cores.push_back(std::move(aiv));  // the waiter first: it must block, not pass
  launch->cores.push_back(std::move(aic));
  const aicore::perf::CostModel m(*launch->chip);
  const auto tl = aicore::perf::Replay(*launch, m);
  const auto& v = tl.cores[0];
  const auto& c = tl.cores[1];
  EXPECT_NEAR(c.end[1], c.end[0], 1e-9);   // the set completes when FIX drains
  EXPECT_NEAR(v.end[0], c.end[1], 1e-9);   // the wait ends there
  EXPECT_GE(v.start[1], v.end[0]);         // and holds the scalar issue of the copy
  ASSERT_EQ(tl.edges.size(), 1u);
  EXPECT_EQ(tl.edges[0].kind, aicore::perf::Edge::kCross);
  EXPECT_EQ(tl.edges[0].from_core, 1u);
  EXPECT_EQ(tl.edges[0].to_core, 0u);
  EXPECT_TRUE(tl.notes.empty());
  // The results use the AIC metric names for the AIC.
  const auto r = aicore::perf::Analyze(launch, *launch->chip);
  EXPECT_FALSE(std::isnan(r.Metric("aic_fixpipe_ratio")));
  EXPECT_FALSE(std::isnan(r.Metric("aic_mac_ratio")));
  EXPECT_FALSE(std::isnan(r.Metric("aiv_mte2_ratio")));
  EXPECT_GT(r.Metric("aic_fixpipe_ratio"), 0.9);
}

TEST(PerfSyntheticTest, UnmatchedCrossCoreWaitIsLetThroughWithANote) {
  auto launch = std::make_shared<aicore::perf::LaunchRecord>();
  launch->kernel = "orphan";
  launch->chip = std::make_shared<aicore::arch::Chip>(aicore::arch::DefaultChip());
  auto aiv = std::make_unique<aicore::perf::CoreStream>();
  aiv->name = "AIV 0";
  Record wait;
  wait.op = Op::kCrossWait;
  wait.pipe = Pipe::kS;
  wait.api = "CrossCoreWaitFlag";
  wait.file = "k.cc";
  wait.line = 7;
  aiv->records.push_back(wait);
  launch->cores.push_back(std::move(aiv));
  const aicore::perf::CostModel m(*launch->chip);
  const auto tl = aicore::perf::Replay(*launch, m);
  ASSERT_EQ(tl.notes.size(), 1u);
  EXPECT_THAT(tl.notes[0], ::testing::HasSubstr("k.cc:7"));
}

}  // namespace
