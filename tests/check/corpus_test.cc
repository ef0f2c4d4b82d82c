// The corpus of deliberately broken kernels: each runs with the sanitizer attached and must be
// caught with the exact defect class, API and source line of the offending call (and of the
// conflicting earlier call). Most have a fixed twin that must run clean. Defects the kernel layer
// already stops (they would hang or fault on hardware) are checked through the launch status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/gm.h"
#include "kernel_operator.h"
#include "tests/check/check_test_util.h"

namespace aicore::check {
namespace {

using namespace AscendC;
using ::testing::HasSubstr;
using testing::Checked;
using testing::Line;
using testing::RunChecked;

constexpr uint32_t kN = 256;  // floats per tile: 1 KiB, a whole number of 32-byte blocks

// Expects a clean launch whose only report is `kind` at (api, line), conflicting with
// (prev_api, prev_line) when prev_api is given.
void ExpectOnly(const Checked& c, DefectKind kind, const char* api, uint32_t line,
                const char* prev_api = nullptr, uint32_t prev_line = 0) {
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  ASSERT_EQ(c.reports.size(), 1u) << c.Text();
  const Report& r = c.reports[0];
  EXPECT_EQ(r.kind, kind) << c.Text();
  EXPECT_EQ(r.site.api, api) << c.Text();
  EXPECT_EQ(r.site.line, line) << c.Text();
  EXPECT_THAT(r.site.file, ::testing::EndsWith("corpus_test.cc"));
  if (prev_api != nullptr) {
    EXPECT_TRUE(r.has_prev) << c.Text();
    EXPECT_EQ(r.prev.api, prev_api) << c.Text();
    EXPECT_EQ(r.prev.line, prev_line) << c.Text();
  }
}

// Expects a report of `kind` at (api, line) after (prev_api, prev_line) among the reports.
void ExpectHas(const Checked& c, DefectKind kind, const char* api, uint32_t line,
               const char* prev_api, uint32_t prev_line) {
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  for (const Report& r : c.reports) {
    if (r.kind == kind && r.site.api == api && r.site.line == line && r.has_prev &&
        r.prev.api == prev_api && r.prev.line == prev_line) {
      return;
    }
  }
  ADD_FAILURE() << "no " << DefectName(kind) << " at " << api << ":" << line << " after "
                << prev_api << ":" << prev_line << " in\n" << c.Text();
}

void ExpectClean(const Checked& c) {
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_TRUE(c.reports.empty()) << c.Text();
}

// Expects the launch to fail with `code`, naming `api` and this file at `line`.
void ExpectKernelError(const Checked& c, StatusCode code, const char* api, uint32_t line,
                       const char* words) {
  ASSERT_FALSE(c.status.ok());
  EXPECT_EQ(c.status.code(), code) << c.status.ToString();
  EXPECT_THAT(c.status.message(), HasSubstr(std::string(api) + ": "));
  EXPECT_THAT(c.status.message(), HasSubstr(StrCat("corpus_test.cc:", line, ")")));
  EXPECT_THAT(c.status.message(), HasSubstr(words));
}

// A UB scratch of `tiles` tiles with no automatic synchronisation.
struct Scratch {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  explicit Scratch(uint32_t tiles) { pipe.InitBuffer(buf, tiles * kN * sizeof(float)); }
  LocalTensor<float> Tile(uint32_t i) { return buf.Get<float>()[i * kN]; }
};

GlobalTensor<float> Gm(std::vector<float>& v) {
  GlobalTensor<float> t;
  t.SetGlobalBuffer(v.data(), v.size());
  return t;
}

// ---------------------------------------------------------------- racecheck: pipes of one core

// The classic: GM -> UB on MTE2, then a vector op reads it with no MTE2 -> V flag (TBuf has no
// automatic sync).
Checked MissingMte2ToV(bool fixed, Line& copy_line, Line& add_line) {
  std::vector<float> x(kN, 1.f);
  return RunChecked("missing_mte2_v", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN); copy_line = __LINE__;
    if (fixed) {
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    Add(s.Tile(1), s.Tile(0), s.Tile(0), kN); add_line = __LINE__;
  });
}

TEST(Racecheck, MissingSetFlagMte2ToV) {
  Line copy_line, add_line;
  const Checked c = MissingMte2ToV(false, copy_line, add_line);
  ExpectOnly(c, DefectKind::kRaceRaw, "Add", add_line, "DataCopy", copy_line);
  const Report r = c.reports.at(0);
  EXPECT_EQ(r.site.pipe, sim::Pipe::kV);
  EXPECT_EQ(r.prev.pipe, sim::Pipe::kMte2);
  EXPECT_EQ(r.buffer, arch::Buffer::kUb);
  EXPECT_EQ(r.begin, 0u);
  EXPECT_EQ(r.end, kN * sizeof(float));
  EXPECT_EQ(r.kernel, "missing_mte2_v");
  EXPECT_EQ(r.site.core, "AIV 0");
  EXPECT_THAT(r.ToString(), HasSubstr("MTE2_V"));
  ExpectClean(MissingMte2ToV(true, copy_line, add_line));
}

// A vector result read by the scalar unit with no V -> S flag (GetValue is PIPE_S); a scalar read
// before a vector write needs nothing (the scalar load completes before the next issue).
Checked MissingVToS(bool fixed, Line& dup_line, Line& get_line) {
  return RunChecked("missing_v_s", 1, [&] {
    Scratch s(1);
    Duplicate(s.Tile(0), 1.f, kN);
    SetFlag<HardEvent::V_S>(EVENT_ID1);
    WaitFlag<HardEvent::V_S>(EVENT_ID1);
    (void)s.Tile(0).GetValue(3);    // S read, then a V write: ordered by issue, no flag needed
    Duplicate(s.Tile(0), 2.f, kN); dup_line = __LINE__;
    if (fixed) {
      SetFlag<HardEvent::V_S>(EVENT_ID0);
      WaitFlag<HardEvent::V_S>(EVENT_ID0);
    }
    (void)s.Tile(0).GetValue(7); get_line = __LINE__;
  });
}

TEST(Racecheck, MissingSetFlagVToScalar) {
  Line dup_line, get_line;
  const Checked c = MissingVToS(false, dup_line, get_line);
  ExpectOnly(c, DefectKind::kRaceRaw, "GetValue", get_line, "Duplicate", dup_line);
  EXPECT_EQ(c.reports.at(0).site.pipe, sim::Pipe::kS);
  ExpectClean(MissingVToS(true, dup_line, get_line));
}

// A vector result copied out on MTE3 with no V -> MTE3 flag.
Checked MissingVToMte3(bool fixed, Line& dup_line, Line& out_line) {
  std::vector<float> y(kN);
  return RunChecked("missing_v_mte3", 1, [&] {
    Scratch s(1);
    Duplicate(s.Tile(0), 2.f, kN); dup_line = __LINE__;
    if (fixed) {
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    }
    DataCopy(Gm(y), s.Tile(0), kN); out_line = __LINE__;
  });
}

TEST(Racecheck, MissingSetFlagVToMte3) {
  Line dup_line, out_line;
  const Checked c = MissingVToMte3(false, dup_line, out_line);
  ExpectOnly(c, DefectKind::kRaceRaw, "DataCopy", out_line, "Duplicate", dup_line);
  ExpectClean(MissingVToMte3(true, dup_line, out_line));
}

// WAR: the output tile is reused by the next iteration's vector op before MTE3 finished reading
// it (the MTE3 -> V wait is missing).
Checked ReusedOutputTile(bool fixed, Line& dup_line, Line& out_line) {
  std::vector<float> y(3 * kN);
  return RunChecked("war_output_reuse", 1, [&] {
    Scratch s(1);
    for (uint32_t i = 0; i < 3; ++i) {
      Duplicate(s.Tile(0), float(i), kN); dup_line = __LINE__;
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(Gm(y)[i * kN], s.Tile(0), kN); out_line = __LINE__;
      if (fixed) {
        SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
      }
    }
  });
}

TEST(Racecheck, WarOnReusedUbWithoutWaitingForMte3) {
  Line dup_line, out_line;
  const Checked c = ReusedOutputTile(false, dup_line, out_line);
  ExpectOnly(c, DefectKind::kRaceWar, "Duplicate", dup_line, "DataCopy", out_line);
  EXPECT_EQ(c.reports[0].count, 2u);  // iterations 1 and 2
  ExpectClean(ReusedOutputTile(true, dup_line, out_line));
}

// WAR: the next tile is loaded into the input buffer while V may still read the previous one
// (the V -> MTE2 wait is missing). The second load also overwrites the first without an MTE2
// barrier, which the same fix orders.
Checked ReusedInputTile(bool fixed, Line& in_line, Line& adds_line) {
  std::vector<float> x(2 * kN, 1.f), y(2 * kN);
  return RunChecked("war_input_reuse", 1, [&] {
    Scratch s(2);
    for (uint32_t i = 0; i < 2; ++i) {
      if (fixed && i > 0) WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
      DataCopy(s.Tile(0), Gm(x)[i * kN], kN); in_line = __LINE__;
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
      Adds(s.Tile(1), s.Tile(0), 1.f, kN); adds_line = __LINE__;
      if (fixed && i == 0) SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(Gm(y)[i * kN], s.Tile(1), kN);
      SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
    }
  });
}

TEST(Racecheck, WarLoadOverwritesTileVStillReads) {
  Line in_line, adds_line;
  const Checked c = ReusedInputTile(false, in_line, adds_line);
  ExpectHas(c, DefectKind::kRaceWar, "DataCopy", in_line, "Adds", adds_line);
  ExpectHas(c, DefectKind::kRaceWaw, "DataCopy", in_line, "DataCopy", in_line);
  EXPECT_EQ(c.reports.size(), 2u) << c.Text();
  ExpectClean(ReusedInputTile(true, in_line, adds_line));
}

// Two GM -> UB copies into overlapping UB on MTE2 with no PipeBarrier<PIPE_MTE2> between them.
Checked OverlappingLoads(bool fixed, Line& first, Line& second) {
  std::vector<float> a(kN, 1.f), b(kN, 2.f);
  return RunChecked("overlapping_loads", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(a), kN); first = __LINE__;
    if (fixed) PipeBarrier<PIPE_MTE2>();
    DataCopy(s.Tile(0)[64], Gm(b), kN); second = __LINE__;
  });
}

TEST(Racecheck, MissingBarrierBetweenOverlappingDataCopies) {
  Line first, second;
  const Checked c = OverlappingLoads(false, first, second);
  ExpectOnly(c, DefectKind::kRaceWaw, "DataCopy", second, "DataCopy", first);
  EXPECT_EQ(c.reports[0].begin, 64 * sizeof(float));
  EXPECT_EQ(c.reports[0].end, kN * sizeof(float));
  EXPECT_THAT(c.reports[0].ToString(), HasSubstr("PipeBarrier<PIPE_MTE2>"));
  ExpectClean(OverlappingLoads(true, first, second));
}

// A GM workspace written on MTE3 and read back on MTE2 by the same core with no MTE3 -> MTE2 flag.
Checked GmRoundTrip(bool fixed, Line& store, Line& load) {
  std::vector<float> ws(kN);
  return RunChecked("gm_round_trip", 1, [&] {
    Scratch s(2);
    Duplicate(s.Tile(0), 3.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(Gm(ws), s.Tile(0), kN); store = __LINE__;
    if (fixed) {
      SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
      WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
    DataCopy(s.Tile(1), Gm(ws), kN); load = __LINE__;
  });
}

TEST(Racecheck, GmWorkspaceReadBackWithoutMte3ToMte2) {
  Line store, load;
  const Checked c = GmRoundTrip(false, store, load);
  ExpectOnly(c, DefectKind::kRaceRaw, "DataCopy", load, "DataCopy", store);
  EXPECT_EQ(c.reports[0].buffer, arch::Buffer::kGm);
  EXPECT_EQ(c.reports[0].end - c.reports[0].begin, kN * sizeof(float));
  ExpectClean(GmRoundTrip(true, store, load));
}

// Two UB -> GM copies to overlapping GM on MTE3 with no barrier.
TEST(Racecheck, OverlappingStoresOnMte3) {
  std::vector<float> y(2 * kN);
  Line first, second;
  const Checked c = RunChecked("overlapping_stores", 1, [&] {
    Scratch s(1);
    Duplicate(s.Tile(0), 1.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(Gm(y), s.Tile(0), kN); first = __LINE__;
    DataCopy(Gm(y)[kN / 2], s.Tile(0), kN); second = __LINE__;
  });
  ExpectOnly(c, DefectKind::kRaceWaw, "DataCopy", second, "DataCopy", first);
}

// A vector fill followed by a GM load into the same bytes with no V -> MTE2 flag (WAW).
TEST(Racecheck, LoadOverwritesVectorFillWithoutVToMte2) {
  std::vector<float> x(kN, 1.f);
  Line dup_line, copy_line;
  const Checked c = RunChecked("waw_v_mte2", 1, [&] {
    Scratch s(1);
    Duplicate(s.Tile(0), 0.f, kN); dup_line = __LINE__;
    DataCopy(s.Tile(0), Gm(x), kN); copy_line = __LINE__;
  });
  ExpectOnly(c, DefectKind::kRaceWaw, "DataCopy", copy_line, "Duplicate", dup_line);
}

// A flag between the wrong pipes (MTE3 -> V) does not order MTE2 before V.
TEST(Racecheck, FlagBetweenTheWrongPipes) {
  std::vector<float> x(kN, 1.f);
  Line copy_line, add_line;
  const Checked c = RunChecked("wrong_event", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN); copy_line = __LINE__;
    SetFlag<HardEvent::MTE3_V>(EVENT_ID1);
    WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);
    Muls(s.Tile(1), s.Tile(0), 2.f, kN); add_line = __LINE__;
  });
  ExpectOnly(c, DefectKind::kRaceRaw, "Muls", add_line, "DataCopy", copy_line);
}

// The WaitFlag comes after the consumer: the flag pairs up but orders nothing.
TEST(Racecheck, WaitFlagAfterTheConsumer) {
  std::vector<float> x(kN, 1.f);
  Line copy_line, exp_line;
  const Checked c = RunChecked("late_wait", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN); copy_line = __LINE__;
    SetFlag<HardEvent::MTE2_V>(EVENT_ID2);
    Exp(s.Tile(1), s.Tile(0), kN); exp_line = __LINE__;
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID2);
  });
  ExpectOnly(c, DefectKind::kRaceRaw, "Exp", exp_line, "DataCopy", copy_line);
}

// A queue tensor used before its EnQue/DeQue: the queue's sync only covers DeQue'd tensors.
TEST(Racecheck, QueueTensorReadBeforeDeQue) {
  std::vector<float> x(kN, 1.f);
  Line copy_line, adds_line;
  const Checked c = RunChecked("read_before_deque", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in_queue;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(in_queue, 1, kN * sizeof(float));
    pipe.InitBuffer(tmp, kN * sizeof(float));
    LocalTensor<float> ub_x = in_queue.AllocTensor<float>();
    DataCopy(ub_x, Gm(x), kN); copy_line = __LINE__;
    Adds(tmp.Get<float>(), ub_x, 1.f, kN); adds_line = __LINE__;
    in_queue.EnQue(ub_x);
    LocalTensor<float> ub_x2 = in_queue.DeQue<float>();
    in_queue.FreeTensor(ub_x2);
  });
  ExpectOnly(c, DefectKind::kRaceRaw, "Adds", adds_line, "DataCopy", copy_line);
}

// Level-0 (mask/repeat) vector forms are checked too.
TEST(Racecheck, Level0VectorOpAfterLoadWithoutFlag) {
  std::vector<float> x(kN, 1.f);
  Line copy_line, add_line;
  const Checked c = RunChecked("level0_raw", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN); copy_line = __LINE__;
    Add(s.Tile(1), s.Tile(0), s.Tile(0), 64ul, 4, BinaryRepeatParams()); add_line = __LINE__;
  });
  ExpectOnly(c, DefectKind::kRaceRaw, "Add", add_line, "DataCopy", copy_line);
}

// A scalar-pipe wait orders every later instruction: MTE2 -> S then V is clean.
TEST(Racecheck, ScalarWaitOrdersEveryPipe) {
  std::vector<float> x(kN, 1.f);
  Line unused_a, unused_b;
  ExpectClean(RunChecked("scalar_wait", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN);
    SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
    Add(s.Tile(1), s.Tile(0), s.Tile(0), kN);
  }));
}

// PIPE_ALL orders everything before it.
TEST(Racecheck, PipeBarrierAllOrdersEverything) {
  std::vector<float> x(kN, 1.f), y(kN);
  ExpectClean(RunChecked("barrier_all", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN);
    PipeBarrier<PIPE_ALL>();
    Add(s.Tile(1), s.Tile(0), s.Tile(0), kN);
    PipeBarrier<PIPE_ALL>();
    DataCopy(Gm(y), s.Tile(1), kN);
  }));
}

// ---------------------------------------------------------------- racecheck/memcheck: cores

// Block 0 fills a GM workspace, block 1 reads it, with no SyncAll between.
Checked WorkspaceAcrossBlocks(bool fixed, Line& store, Line& load) {
  std::vector<float> ws(kN);
  return RunChecked("cross_core_ws", 2, [&] {
    Scratch s(1);
    if (GetBlockIdx() == 0) {
      Duplicate(s.Tile(0), 5.f, kN);
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(Gm(ws), s.Tile(0), kN); store = __LINE__;
    }
    if (fixed) SyncAll();
    if (GetBlockIdx() == 1) {
      DataCopy(s.Tile(0), Gm(ws), kN); load = __LINE__;
    }
  });
}

TEST(Racecheck, CrossCoreRaceOnGmWorkspaceWithoutSyncAll) {
  Line store, load;
  const Checked c = WorkspaceAcrossBlocks(false, store, load);
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  ASSERT_EQ(c.reports.size(), 1u) << c.Text();
  const Report& r = c.reports[0];
  EXPECT_EQ(r.kind, DefectKind::kCrossCoreRace);
  // Which block runs first is up to the scheduler: RAW at the load or WAR at the store.
  EXPECT_EQ((std::set<uint32_t>{r.site.line, r.prev.line}), (std::set<uint32_t>{store, load}));
  EXPECT_EQ((std::set<std::string>{r.site.core, r.prev.core}),
            (std::set<std::string>{"AIV 0", "AIV 1"}));
  EXPECT_EQ(r.buffer, arch::Buffer::kGm);
  ExpectClean(WorkspaceAcrossBlocks(true, store, load));
}

// Two blocks store to the same GM tile.
Checked SameOutputTile(int mode, Line& store) {
  std::vector<float> y(2 * kN);
  return RunChecked("gm_overlap", 2, [&] {
    Scratch s(1);
    Duplicate(s.Tile(0), 1.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    if (mode == 1) SetAtomicAdd<float>();
    const uint32_t tile = mode == 2 ? GetBlockIdx() : 0;
    DataCopy(Gm(y)[tile * kN], s.Tile(0), kN); store = __LINE__;
    if (mode == 1) SetAtomicNone();
  });
}

TEST(Memcheck, OverlappingGmWritesByTwoBlocks) {
  Line store;
  const Checked c = SameOutputTile(0, store);
  ExpectOnly(c, DefectKind::kGmOverlap, "DataCopy", store, "DataCopy", store);
  EXPECT_NE(c.reports[0].site.core, c.reports[0].prev.core);
  ExpectClean(SameOutputTile(1, store));  // atomic accumulation
  ExpectClean(SameOutputTile(2, store));  // partitioned output
}

// ---------------------------------------------------------------- synccheck

TEST(Synccheck, SetFlagLeftUnconsumedAtKernelEnd) {
  Line set_line;
  const Checked c = RunChecked("unconsumed_flag", 1, [&] {
    Scratch s(1);
    Duplicate(s.Tile(0), 1.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID3); set_line = __LINE__;
  });
  ExpectOnly(c, DefectKind::kUnconsumedFlag, "SetFlag", set_line);
  EXPECT_THAT(c.reports[0].detail, HasSubstr("V_MTE3 ID 3"));
}

TEST(Synccheck, ForgottenFreeTensor) {
  std::vector<float> x(kN, 1.f);
  Line alloc_line;
  const Checked c = RunChecked("forgotten_free", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in_queue;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(in_queue, 1, kN * sizeof(float));
    pipe.InitBuffer(tmp, kN * sizeof(float));
    LocalTensor<float> ub_x = in_queue.AllocTensor<float>(); alloc_line = __LINE__;
    DataCopy(ub_x, Gm(x), kN);
    in_queue.EnQue(ub_x);
    LocalTensor<float> ub_in = in_queue.DeQue<float>();
    Adds(tmp.Get<float>(), ub_in, 1.f, kN);
  });
  ExpectOnly(c, DefectKind::kQueueLeak, "AllocTensor", alloc_line);
  EXPECT_THAT(c.reports[0].detail, HasSubstr("dequeued"));
}

TEST(Synccheck, EnQueuedTensorNeverDeQueued) {
  Line alloc_line;
  const Checked c = RunChecked("never_dequeued", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> out_queue;
    pipe.InitBuffer(out_queue, 1, kN * sizeof(float));
    LocalTensor<float> ub_z = out_queue.AllocTensor<float>(); alloc_line = __LINE__;
    Duplicate(ub_z, 1.f, kN);
    out_queue.EnQue(ub_z);
  });
  ExpectOnly(c, DefectKind::kQueueLeak, "AllocTensor", alloc_line);
  EXPECT_THAT(c.reports[0].detail, HasSubstr("enqueued"));
}

TEST(Synccheck, DeQueWithoutEnQueFailsTheLaunch) {
  Line line;
  const Checked c = RunChecked("deque_without_enque", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in_queue;
    pipe.InitBuffer(in_queue, 1, kN * sizeof(float));
    line = __LINE__; in_queue.DeQue<float>();
  });
  ExpectKernelError(c, StatusCode::kDeadlock, "DeQue", line, "waits forever");
}

TEST(Synccheck, WaitFlagWithoutSetFlagFailsTheLaunch) {
  Line line;
  const Checked c = RunChecked("wait_without_set", 1, [&] {
    line = __LINE__; WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  });
  ExpectKernelError(c, StatusCode::kDeadlock, "WaitFlag", line, "never set");
}

TEST(Synccheck, SetFlagTwiceFailsTheLaunch) {
  Line line;
  const Checked c = RunChecked("set_twice", 1, [&] {
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    line = __LINE__; SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  });
  ExpectKernelError(c, StatusCode::kFailedPrecondition, "SetFlag", line, "already set");
}

TEST(Synccheck, EventIdOutOfRangeFailsTheLaunch) {
  Line line;
  const Checked c = RunChecked("event_range", 1, [&] {
    line = __LINE__; SetFlag<HardEvent::MTE2_V>(9);
  });
  ExpectKernelError(c, StatusCode::kInvalidArgument, "SetFlag", line, "outside [0, 7]");
}

TEST(Synccheck, AllocTensorPastDepthFailsTheLaunch) {
  Line line;
  const Checked c = RunChecked("alloc_past_depth", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in_queue;
    pipe.InitBuffer(in_queue, 1, kN * sizeof(float));
    in_queue.AllocTensor<float>();
    line = __LINE__; in_queue.AllocTensor<float>();
  });
  ExpectKernelError(c, StatusCode::kDeadlock, "AllocTensor", line, "missing FreeTensor");
}

// ---------------------------------------------------------------- memcheck

TEST(Memcheck, TailTileReadsPastTheGlobalTensor) {
  std::vector<float> x(kN + 40, 1.f);  // 296 elements: the second 256-element tile overruns
  Line line;
  const Checked c = RunChecked("tail_overrun", 1, [&] {
    Scratch s(1);
    for (uint32_t i = 0; i < 2; ++i) {
      line = __LINE__; DataCopy(s.Tile(0), Gm(x)[i * kN], kN);
      PipeBarrier<PIPE_ALL>();
    }
  });
  ExpectKernelError(c, StatusCode::kOutOfRange, "DataCopy", line, "holds 40 elements");
}

TEST(Memcheck, MisalignedDataCopy) {
  std::vector<float> x(kN, 1.f);
  Line line;
  const Checked c = RunChecked("misaligned", 1, [&] {
    Scratch s(2);
    line = __LINE__; DataCopy(s.Tile(0)[4], Gm(x), kN);
  });
  ExpectKernelError(c, StatusCode::kInvalidArgument, "DataCopy", line, "32-byte boundary");
}

TEST(Memcheck, UseAfterFreeTensor) {
  Line line;
  const Checked c = RunChecked("use_after_free", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> out_queue;
    pipe.InitBuffer(out_queue, 1, kN * sizeof(float));
    LocalTensor<float> ub_z = out_queue.AllocTensor<float>();
    out_queue.FreeTensor(ub_z);
    line = __LINE__; Duplicate(ub_z, 1.f, kN);
  });
  ExpectKernelError(c, StatusCode::kFailedPrecondition, "Duplicate", line, "after FreeTensor");
}

TEST(Memcheck, GmAllocLeak) {
  Sanitizer sanitizer;
  void* kept = GmAlloc(1000);
  void* freed = GmAlloc(64);
  GmFree(freed);
  EXPECT_EQ(sanitizer.CheckLeaks(), 1u);
  const auto reports = sanitizer.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kind, DefectKind::kGmLeak);
  EXPECT_THAT(reports[0].ToString(), HasSubstr("1 GmAlloc block(s) are still live"));
  GmFree(kept);
  sanitizer.Clear();
  EXPECT_EQ(sanitizer.CheckLeaks(), 0u);
  EXPECT_TRUE(sanitizer.reports().empty());
}

TEST(Memcheck, DeviceMemoryLeak) {
  Sanitizer sanitizer;
  void* kept = rt::DeviceMalloc(4096, nullptr);
  void* freed = rt::DeviceMalloc(512, nullptr);
  rt::DeviceFree(freed);
  EXPECT_EQ(sanitizer.CheckLeaks(), 1u);
  const auto reports = sanitizer.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kind, DefectKind::kGmLeak);
  EXPECT_THAT(reports[0].ToString(),
              HasSubstr("1 device memory (aclrtMalloc) block(s) are still live"));
  rt::DeviceFree(kept);
  sanitizer.Clear();
  EXPECT_EQ(sanitizer.CheckLeaks(), 0u);
}

// ---------------------------------------------------------------- initcheck

TEST(Initcheck, ReadOfNeverWrittenUb) {
  Line line;
  const Checked c = RunChecked("uninit_ub", 1, [&] {
    Scratch s(2);
    Adds(s.Tile(1), s.Tile(0), 1.f, kN); line = __LINE__;
  });
  ExpectOnly(c, DefectKind::kUninitRead, "Adds", line);
  EXPECT_EQ(c.reports[0].buffer, arch::Buffer::kUb);
  EXPECT_EQ(c.reports[0].begin, 0u);
  EXPECT_EQ(c.reports[0].end, kN * sizeof(float));
}

// The accumulator is never zeroed (Duplicate forgotten) before acc = acc + x.
TEST(Initcheck, UninitialisedAccumulator) {
  std::vector<float> x(4 * kN, 1.f);
  Line line;
  const Checked c = RunChecked("uninit_acc", 1, [&] {
    Scratch s(2);
    LocalTensor<float> acc = s.Tile(1);
    for (uint32_t i = 0; i < 4; ++i) {
      if (i > 0) WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
      DataCopy(s.Tile(0), Gm(x)[i * kN], kN);
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
      Add(acc, acc, s.Tile(0), kN); line = __LINE__;
      if (i < 3) SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
    }
  });
  ExpectOnly(c, DefectKind::kUninitRead, "Add", line);
  EXPECT_EQ(c.reports[0].count, 1u);  // only the first iteration reads garbage
  EXPECT_EQ(c.reports[0].begin, kN * sizeof(float));
}

// Only half the tile is loaded, the whole tile is read.
TEST(Initcheck, PartiallyLoadedTile) {
  std::vector<float> x(kN, 1.f);
  Line line;
  const Checked c = RunChecked("partial_tile", 1, [&] {
    Scratch s(2);
    DataCopy(s.Tile(0), Gm(x), kN / 2);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(s.Tile(1), s.Tile(0), 2.f, kN); line = __LINE__;
  });
  ExpectOnly(c, DefectKind::kUninitRead, "Muls", line);
  EXPECT_EQ(c.reports[0].begin, kN / 2 * sizeof(float));
  EXPECT_EQ(c.reports[0].end, kN * sizeof(float));
}

// GmAlloc zero-fills, so reading GM nobody wrote is defined.
TEST(Initcheck, FreshGmAllocIsNotUninitialised) {
  void* gm = GmAlloc(kN * sizeof(float));
  ExpectClean(RunChecked("fresh_gm", 1, [&] {
    Scratch s(1);
    GlobalTensor<float> t;
    t.SetGlobalBuffer(static_cast<float*>(gm), kN);
    DataCopy(s.Tile(0), t, kN);
  }));
  GmFree(gm);
}

// ---------------------------------------------------------------- tool selection

TEST(Tools, OnlySelectedToolsReport) {
  auto broken = [] {
    Scratch s(2);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);      // unconsumed (synccheck)
    Adds(s.Tile(1), s.Tile(0), 1.f, kN);        // uninitialised (initcheck)
  };
  const Checked init = RunChecked("tools", 1, broken, kInitcheck);
  ASSERT_EQ(init.reports.size(), 1u) << init.Text();
  EXPECT_EQ(init.reports[0].kind, DefectKind::kUninitRead);
  const Checked sync = RunChecked("tools", 1, broken, kSynccheck);
  ASSERT_EQ(sync.reports.size(), 1u) << sync.Text();
  EXPECT_EQ(sync.reports[0].kind, DefectKind::kUnconsumedFlag);
  EXPECT_TRUE(RunChecked("tools", 1, broken, kRacecheck | kMemcheck).reports.empty());
}

TEST(Tools, ParseToolNames) {
  uint32_t t = 0;
  EXPECT_TRUE(ParseTools("all", &t));
  EXPECT_EQ(t, kAllTools);
  EXPECT_TRUE(ParseTools("racecheck,initcheck", &t));
  EXPECT_EQ(t, kRacecheck | kInitcheck);
  EXPECT_EQ(ToolsName(t), "racecheck,initcheck");
  EXPECT_FALSE(ParseTools("racecheck,bogus", &t));
  EXPECT_FALSE(ParseTools("", &t));
  EXPECT_EQ(t, kRacecheck | kInitcheck);
}

}  // namespace
}  // namespace aicore::check
