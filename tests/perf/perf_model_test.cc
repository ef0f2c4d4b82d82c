// The timing model against hand-computed timelines: one tile through copy-in / Add / copy-out,
// single vs double buffering, explicit flags and barriers, two cores sharing the HBM, blocks in
// waves, SyncAll; then the invariants over many configurations. Every expected time is built
// from the preset's constants here, following the rules of Note [Replay].
#include "aicore/perf/model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/perf/perf_test_kernels.h"

namespace perf_test {
namespace {

using aicore::perf::LaunchResult;
using aicore::perf::Op;
using aicore::sim::Pipe;
using ::testing::HasSubstr;

constexpr double kEps = 1e-6;

// The constants of the default chip, named as in the preset.
struct K {
  explicit K(const aicore::arch::Chip& c, int gm_streams) : chip(c) {
    s = Pipes(c, "scalar_cycles_per_instr");
    const double hbm = c.hbm_gbps * 1e9 / (c.clock_mhz * 1e6) / gm_streams;
    rate2 = std::min(Pipes(c, "mte2_bytes_per_cycle"), hbm);
    rate3 = std::min(Pipes(c, "mte3_bytes_per_cycle"), hbm);
    h2 = Pipes(c, "mte2_head_cycles");
    h3 = Pipes(c, "mte3_head_cycles");
    st2 = Pipes(c, "mte2_startup_cycles");
    st3 = Pipes(c, "mte3_startup_cycles");
    vhead = Pipes(c, "vector_head_cycles");
    add_a = c.pipes["vector_costs"]["Add"]["f16"][0].get<double>();
    add_b = c.pipes["vector_costs"]["Add"]["f16"][1].get<double>();
  }
  double In(double bytes) const { return h2 + bytes / rate2; }
  double Out(double bytes) const { return h3 + bytes / rate3; }
  double Add(double n) const { return add_a * n + add_b; }
  const aicore::arch::Chip& chip;
  double s, rate2, rate3, h2, h3, st2, st3, vhead, add_a, add_b;
};

std::vector<std::string> Apis(const LaunchResult& r, size_t core = 0) {
  std::vector<std::string> v;
  for (const auto& rec : r.record->cores[core]->records) v.push_back(rec.api);
  return v;
}

// Index of the n-th record (0-based) of `api` on `pipe`.
size_t Find(const LaunchResult& r, const char* api, Pipe pipe, int nth = 0, size_t core = 0) {
  const auto& recs = r.record->cores[core]->records;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (std::string(recs[i].api) == api && recs[i].pipe == pipe && nth-- == 0) return i;
  }
  ADD_FAILURE() << "no " << api << " #" << nth << " on " << aicore::sim::PipeName(pipe);
  return 0;
}

TEST(PerfModelTest, OneTileTimelineMatchesHandComputation) {
  const auto& chip = aicore::arch::DefaultChip();
  constexpr int kTile = 2048;  // halves: 4 KiB
  const LaunchResult r = ProfileAdd<1>(1, 1, kTile);
  const K k(chip, 2);  // one core: MTE2 and MTE3 move GM bytes
  ASSERT_THAT(Apis(r), ::testing::ElementsAre("AllocTensor", "DataCopy", "EnQue", "DeQue",
                                              "AllocTensor", "Add", "EnQue", "FreeTensor",
                                              "DeQue", "DataCopy", "FreeTensor"));
  const double bytes = kTile * 2.0;
  // Record k issues at k * s. Copy-in starts at its issue time s.
  const double e1 = k.s + k.st2 + k.In(bytes);
  const double e2 = e1 + k.vhead + k.Add(kTile);  // DeQue releases V at e1
  const double e3 = e2 + k.st3 + k.Out(bytes);    // DeQue on MTE3 releases at e2
  const auto& tl = r.timeline.cores[0];
  EXPECT_NEAR(tl.start[1], k.s, kEps);
  EXPECT_NEAR(tl.end[1], e1, kEps);
  EXPECT_NEAR(tl.start[5], e1, kEps);
  EXPECT_NEAR(tl.end[5], e2, kEps);
  EXPECT_NEAR(tl.start[9], e2, kEps);
  EXPECT_NEAR(tl.end[9], e3, kEps);
  EXPECT_NEAR(tl.finish, e3, kEps);
  EXPECT_NEAR(r.timeline.body_cycles, e3, kEps);
  EXPECT_NEAR(r.body_us, e3 / chip.clock_mhz, kEps);
  EXPECT_NEAR(r.kernel_us, e3 / chip.clock_mhz + Pipes(chip, "launch_overhead_us"), kEps);
  EXPECT_NEAR(tl.busy[static_cast<int>(Pipe::kMte2)], k.st2 + k.In(bytes), kEps);
  EXPECT_NEAR(tl.busy[static_cast<int>(Pipe::kV)], k.vhead + k.Add(kTile), kEps);
  EXPECT_NEAR(tl.busy[static_cast<int>(Pipe::kMte3)], k.st3 + k.Out(bytes), kEps);
  EXPECT_NEAR(tl.busy[static_cast<int>(Pipe::kS)], 11 * k.s, kEps);
  EXPECT_EQ(r.gm_read_bytes, bytes);
  EXPECT_EQ(r.gm_write_bytes, bytes);
  EXPECT_EQ(r.flops, static_cast<uint64_t>(kTile));
  EXPECT_NEAR(r.Metric("aiv_mte2_ratio"), (k.st2 + k.In(bytes)) / e3, 1e-9);
  EXPECT_NEAR(r.Metric("aiv_vec_ratio"), (k.vhead + k.Add(kTile)) / e3, 1e-9);
  // Queue edges: EnQue(2) -> DeQue(3), EnQue(6) -> DeQue(8).
  int queue_edges = 0;
  for (const auto& e : r.timeline.edges) {
    if (e.kind == aicore::perf::Edge::kQueue) ++queue_edges;
  }
  EXPECT_EQ(queue_edges, 2);
}

TEST(PerfModelTest, SingleAndDoubleBufferTwoTilesMatchHandComputation) {
  const auto& chip = aicore::arch::DefaultChip();
  constexpr int kTile = 4096;  // 8 KiB tiles
  const K k(chip, 2);
  const double bytes = kTile * 2.0;
  // Tile 1 as in the one-tile case.
  const double e1 = k.s + k.st2 + k.In(bytes);
  const double e2 = e1 + k.vhead + k.Add(kTile);
  const double e3 = e2 + k.st3 + k.Out(bytes);
  {
    // Single buffer: tile 2's AllocTensor(x) waits for FreeTensor(x) of tile 1 (at e2 on V),
    // its AllocTensor(z) on V waits for FreeTensor(z) of tile 1 (at e3 on MTE3).
    const double f1 = e2 + k.In(bytes);
    const double g = std::max(f1, e3);
    const double f2 = g + k.Add(kTile);
    const double f3 = f2 + k.Out(bytes);
    const LaunchResult r = ProfileAdd<1>(1, 2, kTile);
    const auto& tl = r.timeline.cores[0];
    const size_t in2 = Find(r, "DataCopy", Pipe::kMte2, 1), add2 = Find(r, "Add", Pipe::kV, 1);
    const size_t out2 = Find(r, "DataCopy", Pipe::kMte3, 1);
    EXPECT_NEAR(tl.start[in2], e2, kEps);
    EXPECT_NEAR(tl.end[in2], f1, kEps);
    EXPECT_NEAR(tl.start[add2], g, kEps);
    EXPECT_NEAR(tl.end[out2], f3, kEps);
    EXPECT_NEAR(r.timeline.body_cycles, f3, kEps);
    EXPECT_NEAR(r.cores[0].mte2_v_overlap_us, 0.0, kEps);
    EXPECT_THAT(r.advice, ::testing::Contains(HasSubstr("MTE2 and V never overlap")));
  }
  {
    // Double buffer: tile 2 uses the second buffers, so nothing waits for tile 1's frees.
    const double f1 = e1 + k.In(bytes);
    const double g = std::max(e2, f1);
    const double f2 = g + k.Add(kTile);
    const double f3 = std::max(e3, f2) + k.Out(bytes);
    const LaunchResult r = ProfileAdd<2>(1, 2, kTile);
    const auto& tl = r.timeline.cores[0];
    const size_t in2 = Find(r, "DataCopy", Pipe::kMte2, 1), add2 = Find(r, "Add", Pipe::kV, 1);
    EXPECT_NEAR(tl.start[in2], e1, kEps);
    EXPECT_NEAR(tl.end[in2], f1, kEps);
    EXPECT_NEAR(tl.start[add2], g, kEps);
    EXPECT_NEAR(r.timeline.body_cycles, f3, kEps);
    EXPECT_GT(r.cores[0].mte2_v_overlap_us, 0.0);
    EXPECT_THAT(r.advice, ::testing::Not(::testing::Contains(HasSubstr("never overlap"))));
  }
}

TEST(PerfModelTest, DoubleBufferingIsFasterOnManyTiles) {
  const LaunchResult single = ProfileAdd<1>(1, 16, 2048);
  const LaunchResult dbl = ProfileAdd<2>(1, 16, 2048);
  EXPECT_LT(dbl.body_us, single.body_us);
  EXPECT_GT(dbl.triangle.pipe_overlap, single.triangle.pipe_overlap);
}

TEST(PerfModelTest, FlagsAndBarriersAreDependencies) {
  const auto& chip = aicore::arch::DefaultChip();
  constexpr int kN = 1024;
  std::vector<half> x(kN, half(1.0f)), z(kN);
  aicore::perf::Profiler prof;
  prof.Attach();
  half* px = x.data();
  half* pz = z.data();
  auto st = aicore::RunKernel("flags", 1, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf_x, buf_z;
    pipe.InitBuffer(buf_x, kN * sizeof(half));
    pipe.InitBuffer(buf_z, kN * sizeof(half));
    GlobalTensor<half> gm_x, gm_z;
    gm_x.SetGlobalBuffer(px, kN);
    gm_z.SetGlobalBuffer(pz, kN);
    LocalTensor<half> ub_x = buf_x.Get<half>(), ub_z = buf_z.Get<half>();
    DataCopy(ub_x, gm_x, kN);                        // 0
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);           // 1
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);          // 2
    Add(ub_z, ub_x, ub_x, kN);                       // 3
    SetFlag<HardEvent::V_MTE3>(EVENT_ID1);           // 4
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);          // 5
    DataCopy(gm_z, ub_z, kN);                        // 6
    PipeBarrier<PIPE_ALL>();                         // 7
    Add(ub_z, ub_x, ub_x, kN);                       // 8
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  const K k(chip, 2);
  const double bytes = kN * 2.0;
  const double e1 = k.st2 + k.In(bytes);           // issued at 0
  const double e2 = e1 + k.vhead + k.Add(kN);      // WaitFlag (issued at 2s) releases V at e1
  const double e3 = e2 + k.st3 + k.Out(bytes);
  const double e4 = e3 + k.s + k.Add(kN);          // the barrier holds the issue clock until e3
  const auto& tl = r.timeline.cores[0];
  EXPECT_NEAR(tl.end[0], e1, kEps);
  EXPECT_NEAR(tl.end[1], e1, kEps);  // SetFlag completes when MTE2 drains
  EXPECT_NEAR(tl.start[2], 2 * k.s, kEps);
  EXPECT_NEAR(tl.end[2], e1, kEps);  // WaitFlag stalls V until then
  EXPECT_NEAR(tl.start[3], e1, kEps);
  EXPECT_NEAR(tl.end[3], e2, kEps);
  EXPECT_NEAR(tl.end[6], e3, kEps);
  EXPECT_NEAR(tl.end[7], e3, kEps);
  EXPECT_NEAR(tl.start[8], e3 + k.s, kEps);
  EXPECT_NEAR(tl.end[8], e4, kEps);
  int flag_edges = 0;
  for (const auto& e : r.timeline.edges) {
    if (e.kind == aicore::perf::Edge::kFlag) {
      ++flag_edges;
      EXPECT_TRUE((e.from == 1 && e.to == 2) || (e.from == 4 && e.to == 5)) << e.from << e.to;
    }
  }
  EXPECT_EQ(flag_edges, 2);
}

TEST(PerfModelTest, CoresShareTheHbm) {
  // hbm_share "fair" (Note [HBM sharing]): an HBM of exactly 32 B per cycle, an MTE pipe's rate:
  // with 2 GM streams per core (MTE2 and MTE3), each stream's fair share is 32 / (2 * cores) B
  // per cycle, below the pipe's 32.
  const auto& base = aicore::arch::DefaultChip();
  const aicore::arch::Chip chip =
      WithHbmShare(WithHbm(base, 32 * base.clock_mhz * 1e6 / 1e9), "fair");
  constexpr int kTile = 2048;
  const double bytes = kTile * 2.0;
  for (int cores : {1, 2, 4}) {
    SCOPED_TRACE(cores);
    const K k(chip, 2 * cores);
    EXPECT_NEAR(k.rate2, 16.0 / cores, 1e-9);
    const LaunchResult r = ProfileAdd<1>(cores, 1, kTile, &chip);
    EXPECT_EQ(r.timeline.gm_streams, 2 * cores);
    EXPECT_NEAR(r.timeline.gm_share_bytes_per_cycle, 16.0 / cores, 1e-9);
    const double e1 = k.s + k.st2 + k.In(bytes);
    const double e2 = e1 + k.vhead + k.Add(kTile);
    const double e3 = e2 + k.st3 + k.Out(bytes);
    ASSERT_EQ(r.cores.size(), static_cast<size_t>(cores));
    for (int c = 0; c < cores; ++c) EXPECT_NEAR(r.timeline.cores[c].finish, e3, 1e-6) << c;
    EXPECT_NEAR(r.timeline.body_cycles, e3, 1e-6);
  }
}

// hbm_share "active" (Note [HBM sharing]): one tile per core, so every core's copy-in runs while
// no MTE3 moves bytes, and every copy-out while no MTE2 does: each copy shares the 32 B/cycle HBM
// with the same copies of the other cores only, 32 / cores B per cycle (twice the fair share).
TEST(PerfModelTest, CoresShareTheHbmAmongActiveStreams) {
  const auto& base = aicore::arch::DefaultChip();
  const aicore::arch::Chip chip =
      WithHbmShare(WithHbm(base, 32 * base.clock_mhz * 1e6 / 1e9), "active");
  constexpr int kTile = 2048;
  const double bytes = kTile * 2.0;
  for (int cores : {1, 2, 4}) {
    SCOPED_TRACE(cores);
    const K k(chip, cores);  // the rate of a copy sharing with `cores` streams
    EXPECT_NEAR(k.rate2, 32.0 / cores, 1e-9);
    const LaunchResult r = ProfileAdd<1>(cores, 1, kTile, &chip);
    EXPECT_EQ(r.timeline.gm_streams, 2 * cores);
    EXPECT_NEAR(r.timeline.gm_share_bytes_per_cycle, 32.0 / cores, 1e-9);
    const double e1 = k.s + k.st2 + k.In(bytes);
    const double e2 = e1 + k.vhead + k.Add(kTile);
    const double e3 = e2 + k.st3 + k.Out(bytes);
    for (int c = 0; c < cores; ++c) EXPECT_NEAR(r.timeline.cores[c].finish, e3, 1e-6) << c;
  }
}

TEST(PerfModelTest, ShareAboveThePipeRateDoesNotSlowCopies) {
  // 8 cores: 16 streams share the preset's HBM (1800 GB/s, about 61 B per cycle each), above the
  // 32 of MTE2/MTE3, so every copy runs at its pipe's rate.
  const LaunchResult r = ProfileAdd<2>(8, 4, 1024);
  EXPECT_EQ(r.timeline.gm_streams, 16);
  EXPECT_GT(r.timeline.gm_share_bytes_per_cycle, 32.0);
  const double one = ProfileAdd<2>(1, 4, 1024).timeline.body_cycles;
  for (const auto& core : r.timeline.cores) EXPECT_NEAR(core.finish, one, 1e-6);
}

TEST(PerfModelTest, BlocksBeyondTheCoresRunInWaves) {
  const aicore::arch::Chip chip = WithHbm(aicore::arch::DefaultChip(), 1600, /*aiv_count=*/2);
  const LaunchResult r = ProfileAdd<2>(3, 2, 1024, &chip);
  ASSERT_EQ(r.cores.size(), 3u);
  const auto& tl = r.timeline.cores;
  EXPECT_EQ(tl[2].physical_core, 0);
  EXPECT_NEAR(tl[2].begin, tl[0].finish, kEps);
  EXPECT_NEAR(tl[2].finish - tl[2].begin, tl[0].finish - tl[0].begin, 1e-3);
  EXPECT_THAT(r.advice, ::testing::Contains(HasSubstr("waves")));
}

TEST(PerfModelTest, SyncAllWaitsForTheLastCore) {
  constexpr int kN = 4096;
  std::vector<half> x(2 * kN, half(1.0f));
  aicore::perf::Profiler prof;
  prof.Attach();
  half* px = x.data();
  auto st = aicore::RunKernel("sync", 2, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(half));
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer(px + GetBlockIdx() * kN, kN);
    LocalTensor<half> ub = buf.Get<half>();
    if (GetBlockIdx() == 0) DataCopy(ub, gm, kN);  // only core 0 works before the barrier
    SyncAll();
    Duplicate(ub, half(2.0f), 64);
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  ASSERT_EQ(r.cores.size(), 2u);
  const auto& c0 = r.timeline.cores[0];
  const auto& c1 = r.timeline.cores[1];
  const size_t sync0 = Find(r, "SyncAll", Pipe::kAll, 0, 0);
  const size_t sync1 = Find(r, "SyncAll", Pipe::kAll, 0, 1);
  const double release = c0.end[0];  // core 0's copy is the last thing to finish
  EXPECT_NEAR(c0.end[sync0], release, kEps);
  EXPECT_NEAR(c1.end[sync1], release, kEps);
  EXPECT_GE(c1.start[sync1 + 1], release);
  EXPECT_GE(c0.start[sync0 + 1], release);
}

TEST(PerfModelTest, MissingCostConstantIsReportedByName) {
  nlohmann::json j = aicore::arch::DefaultChip().raw;
  j["pipes"].erase("mte2_head_cycles");
  const aicore::arch::Chip chip = aicore::arch::ParseChip(j.dump(), "broken");
  try {
    aicore::perf::CostModel m(chip);
    FAIL() << "no error";
  } catch (const aicore::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("pipes.mte2_head_cycles"));
  }
  j = aicore::arch::DefaultChip().raw;
  j["pipes"]["vector_costs"]["Add"]["f16"] = {1.0};
  try {
    aicore::perf::CostModel m(aicore::arch::ParseChip(j.dump(), "broken"));
    FAIL() << "no error";
  } catch (const aicore::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("vector_costs.Add.f16 must be [a, b]"));
  }
}

// Invariants over many shapes: no pipe runs two things at once, waits end after what they wait
// for, and the modeled time covers every pipe's busy time.
TEST(PerfModelTest, InvariantsHoldOverManyConfigurations) {
  struct Cfg { int blocks, tiles, tile, buffers; };
  for (const Cfg& c : {Cfg{1, 1, 16, 1}, Cfg{1, 7, 256, 2}, Cfg{3, 5, 1024, 1},
                       Cfg{8, 16, 512, 2}, Cfg{5, 3, 4096, 2}, Cfg{2, 9, 48, 1}}) {
    const LaunchResult r = c.buffers == 1 ? ProfileAdd<1>(c.blocks, c.tiles, c.tile)
                                          : ProfileAdd<2>(c.blocks, c.tiles, c.tile);
    SCOPED_TRACE(::testing::Message() << c.blocks << "x" << c.tiles << "x" << c.tile << " b"
                                      << c.buffers);
    ASSERT_EQ(r.cores.size(), static_cast<size_t>(c.blocks));
    for (size_t core = 0; core < r.cores.size(); ++core) {
      const auto& recs = r.record->cores[core]->records;
      const auto& tl = r.timeline.cores[core];
      ASSERT_EQ(tl.start.size(), recs.size());
      for (int p = 1; p < aicore::sim::kPipeCount; ++p) {  // S runs the issue clock
        double last_end = 0;
        for (size_t i = 0; i < recs.size(); ++i) {
          if (static_cast<int>(recs[i].pipe) != p) continue;
          EXPECT_GE(tl.start[i] + kEps, last_end) << "pipe " << p << " record " << i;
          EXPECT_GE(tl.end[i], tl.start[i]);
          last_end = tl.end[i];
        }
        EXPECT_LE(tl.busy[p], tl.finish - tl.begin + kEps);
        EXPECT_LE(tl.busy[p], r.timeline.body_cycles + kEps);
      }
      EXPECT_LE(tl.busy[0], tl.finish - tl.begin + kEps);
    }
    for (const auto& e : r.timeline.edges) {
      EXPECT_GE(r.timeline.cores[e.to_core].end[e.to] + kEps,
                r.timeline.cores[e.from_core].end[e.from]);
    }
    EXPECT_GE(r.kernel_us, r.body_us);
  }
}

}  // namespace
}  // namespace perf_test

namespace perf_test {
namespace {

// Mode 2 from the AIVs: the AIC's counter goes up when the second AIV sets, so its wait ends
// with the later of the two sets, not the first.
TEST(PerfModelTest, CrossCoreWaitEndsWithTheLastSetOfItsIncrement) {
  std::vector<half> x(8192, half(1.0f));
  aicore::perf::Profiler prof;
  prof.Attach();
  half* px = x.data();
  aicore::LaunchOptions o;
  o.mode = aicore::KernelMode::kMix;
  auto st = aicore::RunKernel("cross", 1, o, [=] {
    if (ASCEND_IS_AIC) {
      CrossCoreWaitFlag<2, PIPE_S>(1);
      return;
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8192 * sizeof(half));
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer(px, 8192);
    LocalTensor<half> ub = buf.Get<half>();
    DataCopy(ub, gm, GetSubBlockIdx() == 0 ? 256 : 8192);  // AIV 1 copies 32x more
    CrossCoreSetFlag<2, PIPE_MTE2>(1);
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  int aic = -1, aiv0 = -1, aiv1 = -1;
  for (size_t c = 0; c < r.record->cores.size(); ++c) {
    const std::string& name = r.record->cores[c]->name;
    if (name == "AIC 0") aic = static_cast<int>(c);
    if (name == "AIV 0") aiv0 = static_cast<int>(c);
    if (name == "AIV 1") aiv1 = static_cast<int>(c);
  }
  ASSERT_TRUE(aic >= 0 && aiv0 >= 0 && aiv1 >= 0);
  const size_t set0 = Find(r, "CrossCoreSetFlag", Pipe::kMte2, 0, aiv0);
  const size_t set1 = Find(r, "CrossCoreSetFlag", Pipe::kMte2, 0, aiv1);
  const size_t wait = Find(r, "CrossCoreWaitFlag", Pipe::kS, 0, aic);
  const double last = std::max(r.timeline.cores[aiv0].end[set0], r.timeline.cores[aiv1].end[set1]);
  EXPECT_GT(r.timeline.cores[aiv1].end[set1], r.timeline.cores[aiv0].end[set0]);
  EXPECT_NEAR(r.timeline.cores[aic].end[wait], last, kEps);
}

// Mode 2 from the AIVs counts per AIV (Note [Cross-core flags]): AIV 0 sets twice before AIV 1
// sets once, and the AIC's first increment still waits for AIV 1's first set; its second, for
// AIV 1's second. Counting sets per counter would pair AIV 0's two sets into the first increment.
TEST(PerfModelTest, CrossCoreIncrementTakesOneSetFromEachAiv) {
  std::vector<half> x(8192, half(1.0f));
  aicore::perf::Profiler prof;
  prof.Attach();
  half* px = x.data();
  aicore::LaunchOptions o;
  o.mode = aicore::KernelMode::kMix;
  auto st = aicore::RunKernel("cross2", 1, o, [=] {
    if (ASCEND_IS_AIC) {
      CrossCoreWaitFlag<2, PIPE_S>(1);
      CrossCoreWaitFlag<2, PIPE_S>(1);
      return;
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8192 * sizeof(half));
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer(px, 8192);
    LocalTensor<half> ub = buf.Get<half>();
    const uint32_t n = GetSubBlockIdx() == 0 ? 256 : 8192;  // AIV 1 copies 32x more
    for (int k = 0; k < 2; ++k) {
      DataCopy(ub, gm, n);
      CrossCoreSetFlag<2, PIPE_MTE2>(1);
    }
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  int aic = -1, aiv0 = -1, aiv1 = -1;
  for (size_t c = 0; c < r.record->cores.size(); ++c) {
    const std::string& name = r.record->cores[c]->name;
    if (name == "AIC 0") aic = static_cast<int>(c);
    if (name == "AIV 0") aiv0 = static_cast<int>(c);
    if (name == "AIV 1") aiv1 = static_cast<int>(c);
  }
  ASSERT_TRUE(aic >= 0 && aiv0 >= 0 && aiv1 >= 0);
  const auto& t = r.timeline.cores;
  const double aiv0_second = t[aiv0].end[Find(r, "CrossCoreSetFlag", Pipe::kMte2, 1, aiv0)];
  const double aiv1_first = t[aiv1].end[Find(r, "CrossCoreSetFlag", Pipe::kMte2, 0, aiv1)];
  const double aiv1_second = t[aiv1].end[Find(r, "CrossCoreSetFlag", Pipe::kMte2, 1, aiv1)];
  ASSERT_LT(aiv0_second, aiv1_first);  // AIV 0 is a whole set ahead
  EXPECT_NEAR(t[aic].end[Find(r, "CrossCoreWaitFlag", Pipe::kS, 0, aic)], aiv1_first, kEps);
  EXPECT_NEAR(t[aic].end[Find(r, "CrossCoreWaitFlag", Pipe::kS, 1, aic)], aiv1_second, kEps);
}


// Reading the same 8 KiB twice (Note [L2 reuse]): the first copy misses and costs head +
// bytes / pipe rate, the second finds every line in L2 and costs head + bytes / L2 rate; half of
// the GM read bytes came from L2.
TEST(PerfModelTest, RereadsAreServedByL2) {
  constexpr int kN = 4096;
  std::vector<half, LineAligned<half>> x(kN, half(1.0f));
  aicore::perf::Profiler prof;
  prof.Attach();
  half* px = x.data();
  auto st = aicore::RunKernel("reread", 1, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(half));
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer(px, kN);
    LocalTensor<half> ub = buf.Get<half>();
    DataCopy(ub, gm, kN);
    DataCopy(ub, gm, kN);
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  const auto& chip = aicore::arch::DefaultChip();
  const K k(chip, 1);  // one GM stream: MTE2
  const double l2 = Pipes(chip, "l2_read_bytes_per_cycle");
  const double bytes = kN * sizeof(half);
  const auto& c = r.timeline.cores[0];
  const size_t first = Find(r, "DataCopy", Pipe::kMte2, 0);
  const size_t second = Find(r, "DataCopy", Pipe::kMte2, 1);
  EXPECT_NEAR(r.timeline.l2_hit_fraction, 0.5, kEps);
  EXPECT_NEAR(c.end[first] - c.start[first], k.st2 + k.h2 + bytes / k.rate2, kEps);
  EXPECT_NEAR(c.end[second] - c.start[second], k.h2 + bytes / l2, kEps);
  EXPECT_NEAR(r.l2_hit_fraction, 0.5, kEps);
}

// Writing the same 8 KiB twice, then reading it (Note [L2 reuse]): the first write finds no
// line and goes at the GM rate, allocating its lines; the rewrite lands in L2 at the MTE3 L2
// write rate, and the read back is an L2 hit.
TEST(PerfModelTest, RewritesLandInL2) {
  constexpr int kN = 4096;
  std::vector<half, LineAligned<half>> x(kN, half(1.0f));
  aicore::perf::Profiler prof;
  prof.Attach();
  half* px = x.data();
  auto st = aicore::RunKernel("rewrite", 1, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(half));
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer(px, kN);
    LocalTensor<half> ub = buf.Get<half>();
    Duplicate(ub, half(2.0f), kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gm, ub, kN);
    DataCopy(gm, ub, kN);
    SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    DataCopy(ub, gm, kN);
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  const auto& chip = aicore::arch::DefaultChip();
  const K k(chip, 2);  // two GM streams: MTE3 and MTE2
  const double l2w = Pipes(chip, "mte3_l2_write_bytes_per_cycle");
  const double l2 = Pipes(chip, "l2_read_bytes_per_cycle");
  const double bytes = kN * sizeof(half);
  const auto& c = r.timeline.cores[0];
  const size_t first = Find(r, "DataCopy", Pipe::kMte3, 0);
  const size_t second = Find(r, "DataCopy", Pipe::kMte3, 1);
  const size_t read = Find(r, "DataCopy", Pipe::kMte2, 0);
  EXPECT_NEAR(c.end[first] - c.start[first], k.st3 + k.h3 + bytes / k.rate3, kEps);
  EXPECT_NEAR(c.end[second] - c.start[second], k.h3 + bytes / l2w, kEps);
  EXPECT_NEAR(c.end[read] - c.start[read], k.st2 + k.h2 + bytes / l2, kEps);
  EXPECT_NEAR(r.timeline.l2_write_hit_fraction, 0.5, kEps);
  EXPECT_NEAR(r.l2_hit_fraction, 1.0, kEps);
}

// Reuse distance, not footprint (Note [L2 reuse]): on a chip whose L2 holds 16 lines, a buffer
// of 8 lines read twice in a row hits the second time; a buffer of 32 lines read twice misses
// both times (its first lines were evicted before the second pass reached them), although both
// read every byte twice.
TEST(PerfModelTest, L2HitsFollowReuseDistance) {
  const auto& base = aicore::arch::DefaultChip();
  nlohmann::json j = base.raw;
  const double line = Pipes(base, "l2_line_bytes");
  j["memory"]["l2_bytes"] = static_cast<int64_t>(16 * line);
  const aicore::arch::Chip chip = aicore::arch::ParseChip(j.dump(), "perf_test_small_l2");
  for (int lines : {8, 32}) {
    SCOPED_TRACE(lines);
    const int n = static_cast<int>(lines * line / sizeof(half));
    std::vector<half, LineAligned<half>> x(n, half(1.0f));
    aicore::perf::Profiler prof(chip);
    prof.Attach();
    half* px = x.data();
    const int tile = static_cast<int>(line / sizeof(half));  // one line per copy
    auto st = aicore::RunKernel("reuse", 1, {}, [=] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, tile * sizeof(half));
      GlobalTensor<half> gm;
      gm.SetGlobalBuffer(px, n);
      LocalTensor<half> ub = buf.Get<half>();
      for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < n; i += tile) DataCopy(ub, gm[i], tile);
      }
    });
    prof.Detach();
    ASSERT_TRUE(st.ok()) << st.ToString();
    const LaunchResult& r = prof.Results().at(0);
    EXPECT_NEAR(r.l2_hit_fraction, lines <= 16 ? 0.5 : 0.0, kEps);
  }
}
}  // namespace
}  // namespace perf_test
