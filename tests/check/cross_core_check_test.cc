// The sanitizer's cross-core check in mix launches: CrossCoreSetFlag/CrossCoreWaitFlag are
// happens-before edges (Note [Cross-core happens-before] in aicore/check/sanitizer.cc). Correct
// AIC -> AIV slot handoffs, mode-0/1 handoffs among AIVs and flag chains through SyncAll run
// clean; an AIV reading a slot before its wait, an AIC rewriting a slot the AIVs have not
// released, a wait on the wrong flag id, one wait for two sets and an AIV-only SyncAll that the
// AIC does not take part in are races naming both blocks, both calls and the GM bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "aicore/sim/scheduler.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tests/check/check_test_util.h"
#include "tiling/tiling_api.h"

namespace aicore::check {
namespace {

using namespace AscendC;
using ::testing::HasSubstr;
using testing::Checked;
using testing::Line;

constexpr uint32_t kN = 256;   // floats per slot half (1 KiB)
constexpr uint32_t kSlot = 2 * kN;  // a slot holds one tile: one half per AIV
constexpr uint16_t kReady = 1;  // AIC -> AIVs: a tile is in its slot
constexpr uint16_t kFree = 2;   // AIVs -> AIC: the slot may be overwritten
constexpr uint16_t kStart = 5;  // AIC -> AIVs: set before anything is written

// A planted race is a real data race on the host when its blocks run on two threads (UB in C++,
// and ThreadSanitizer says so); the tests of planted races run every block on one worker thread
// (fibers), which the sanitizer's happens-before check does not depend on.
class OneWorkerThread {
 public:
  OneWorkerThread() { sim::SetWorkerThreads(1); }
  ~OneWorkerThread() { sim::SetWorkerThreads(0); }
  OneWorkerThread(const OneWorkerThread&) = delete;
  OneWorkerThread& operator=(const OneWorkerThread&) = delete;
};

Checked RunMix(const std::string& name, uint32_t groups, std::function<void()> body) {
  LaunchOptions o;
  o.mode = KernelMode::kMix;
  return testing::RunChecked(name, groups, std::move(body), kAllTools, o);
}

GlobalTensor<float> Gm(std::vector<float>& v) {
  GlobalTensor<float> t;
  t.SetGlobalBuffer(v.data(), v.size());
  return t;
}

void ExpectClean(const Checked& c) {
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_TRUE(c.reports.empty()) << c.Text();
}

// Expects at least one report, each a cross-core race between the calls at lines {a, b} (which
// block touches the bytes first is up to the scheduler, so either call may be the reported one:
// a RAW at the later read or a WAR at the later write), between an AIC and an AIV of one group
// when `aic_aiv`, on GM inside one of the `ranges` (a range per group).
void ExpectRaces(const Checked& c, uint32_t a, uint32_t b, bool aic_aiv,
                 const std::vector<std::pair<const float*, const float*>>& ranges) {
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  ASSERT_FALSE(c.reports.empty()) << c.Text();
  EXPECT_LE(c.reports.size(), 2u) << c.Text();
  for (const Report& r : c.reports) {
    EXPECT_EQ(r.kind, DefectKind::kCrossCoreRace) << c.Text();
    ASSERT_TRUE(r.has_prev) << c.Text();
    EXPECT_EQ((std::set<uint32_t>{r.site.line, r.prev.line}), (std::set<uint32_t>{a, b}))
        << c.Text();
    EXPECT_EQ(r.site.api, "DataCopy");
    EXPECT_EQ(r.prev.api, "DataCopy");
    EXPECT_THAT(r.site.file, ::testing::EndsWith("cross_core_check_test.cc"));
    EXPECT_THAT(r.prev.file, ::testing::EndsWith("cross_core_check_test.cc"));
    EXPECT_EQ(r.buffer, arch::Buffer::kGm);
    EXPECT_NE(r.site.core, r.prev.core) << c.Text();
    EXPECT_THAT(r.ToString(), HasSubstr("CrossCoreWaitFlag"));
    int group = -1;
    if (aic_aiv) {
      const bool site_aic = r.site.core.rfind("AIC ", 0) == 0;
      const std::string& aic = site_aic ? r.site.core : r.prev.core;
      const std::string& aiv = site_aic ? r.prev.core : r.site.core;
      ASSERT_THAT(aic, ::testing::StartsWith("AIC ")) << c.Text();
      ASSERT_THAT(aiv, ::testing::StartsWith("AIV ")) << c.Text();
      group = std::stoi(aic.substr(4));
      EXPECT_EQ(std::stoi(aiv.substr(4)) / 2, group) << c.Text();
    }
    bool inside = false;
    for (size_t g = 0; g < ranges.size(); ++g) {
      inside |= (group < 0 || static_cast<size_t>(group) == g) &&
                r.begin >= reinterpret_cast<uint64_t>(ranges[g].first) &&
                r.end <= reinterpret_cast<uint64_t>(ranges[g].second) && r.begin < r.end;
    }
    EXPECT_TRUE(inside) << c.Text();
  }
}

// The AIC's side of a slot handoff: GM -> L1 (MTE2) -> GM slot (MTE3).
struct CubeCopier {
  TPipe pipe;
  TBuf<TPosition::A1> buf;
  CubeCopier() { pipe.InitBuffer(buf, kSlot * sizeof(float)); }
  // Copies tile `src` into `slot`; returns after the store is issued, with MTE3 ordered after the
  // load and the next load ordered after the store.
  void Copy(const GlobalTensor<float>& slot, const GlobalTensor<float>& src, Line* store) {
    LocalTensor<float> l1 = buf.Get<float>();
    DataCopy(l1, src, kSlot);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(slot, l1, kSlot); if (store != nullptr) *store = __LINE__;
    SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
  }
};

// The AIV's side: its half of a slot GM -> UB (MTE2), doubled, UB -> out (MTE3).
struct VectorHalf {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  VectorHalf() { pipe.InitBuffer(buf, kN * sizeof(float)); }
  void Load(const GlobalTensor<float>& slot, Line* load) {
    LocalTensor<float> ub = buf.Get<float>();
    DataCopy(ub, slot[GetSubBlockIdx() * kN], kN); if (load != nullptr) *load = __LINE__;
  }
  void Store(const GlobalTensor<float>& out) {
    LocalTensor<float> ub = buf.Get<float>();
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(ub, ub, 2.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(out[GetSubBlockIdx() * kN], ub, kN);
    SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
  }
};

enum class Bug { kNone, kReadBeforeWait, kNoWaitForFree, kWrongFlag, kFewerWaits };

// Each group streams kTiles tiles through two GM slots: the AIC copies tile t into slot t % 2
// and sets kReady; each AIV waits, loads its half, sets kFree and writes 2x to out.
struct Handoff {
  static constexpr uint32_t kGroups = 2;
  static constexpr uint32_t kTiles = 5;
  std::vector<float> in = std::vector<float>(kGroups * kTiles * kSlot);
  std::vector<float> ws = std::vector<float>(kGroups * 2 * kSlot);
  std::vector<float> out = std::vector<float>(kGroups * kTiles * kSlot, -1.f);
  Line store, load;

  Handoff() {
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000);
  }

  Checked Run(Bug bug) {
    return RunMix("slot_handoff", kGroups, [this, bug] {
      const uint32_t g = ASCEND_IS_AIC ? GetBlockIdx() : GetBlockIdx() / 2;
      GlobalTensor<float> slots = Gm(ws)[g * 2 * kSlot];
      GlobalTensor<float> src = Gm(in)[g * kTiles * kSlot];
      GlobalTensor<float> dst = Gm(out)[g * kTiles * kSlot];
      if (ASCEND_IS_AIC) {
        CubeCopier cube;
        if (bug == Bug::kWrongFlag) CrossCoreSetFlag<2, PIPE_MTE3>(kStart);  // before any store
        for (uint32_t t = 0; t < kTiles; ++t) {
          if (t >= 2 && bug != Bug::kNoWaitForFree) CrossCoreWaitFlag<2, PIPE_MTE3>(kFree);
          // Tile 1 is the one the planted bugs touch (slot 1 is written once before tile 3).
          cube.Copy(slots[t % 2 * kSlot], src[t * kSlot], t == 1 ? &store : nullptr);
          CrossCoreSetFlag<2, PIPE_MTE3>(kReady);
        }
        const uint32_t frees = bug == Bug::kNoWaitForFree ? kTiles : 2;
        for (uint32_t i = 0; i < frees; ++i) CrossCoreWaitFlag<2, PIPE_MTE3>(kFree);
        return;
      }
      VectorHalf vec;
      for (uint32_t t = 0; t < kTiles; ++t) {
        Line* mark = t == 1 ? &load : nullptr;
        const GlobalTensor<float> slot = slots[t % 2 * kSlot];
        if (t == 1 && bug == Bug::kReadBeforeWait) {
          vec.Load(slot, mark);
          CrossCoreWaitFlag<2, PIPE_MTE2>(kReady);
        } else if (t == 1 && bug == Bug::kWrongFlag) {
          CrossCoreWaitFlag<2, PIPE_MTE2>(kStart);  // meant kReady
          vec.Load(slot, mark);
          CrossCoreWaitFlag<2, PIPE_MTE2>(kReady);
        } else if (t == 0 && bug == Bug::kFewerWaits) {
          // One wait, then tiles 0 and 1 are loaded: the AIC may have set kReady twice by now,
          // but a wait takes one set.
          CrossCoreWaitFlag<2, PIPE_MTE2>(kReady);
          vec.Load(slot, nullptr);
          PipeBarrier<PIPE_MTE2>();  // the second load overwrites the first's UB bytes
          vec.Load(slots[kSlot], &load);
        } else if (t == 1 && bug == Bug::kFewerWaits) {
          CrossCoreWaitFlag<2, PIPE_MTE2>(kReady);
        } else {
          CrossCoreWaitFlag<2, PIPE_MTE2>(kReady);
          vec.Load(slot, mark);
        }
        CrossCoreSetFlag<2, PIPE_MTE2>(kFree);  // the load is done (it ran on MTE2)
        vec.Store(dst[t * kSlot]);
      }
    });
  }

  // Slot 1 of each group: the bytes the planted bugs race on.
  std::vector<std::pair<const float*, const float*>> Slot1() const {
    std::vector<std::pair<const float*, const float*>> out;
    for (uint32_t g = 0; g < kGroups; ++g) {
      out.emplace_back(ws.data() + (g * 2 + 1) * kSlot, ws.data() + (g * 2 + 2) * kSlot);
    }
    return out;
  }

  void ExpectOutput() const {
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], 2 * in[i]) << i;
  }
};

TEST(CrossCoreCheck, CorrectSlotHandoffIsClean) {
  Handoff h;
  ExpectClean(h.Run(Bug::kNone));
  h.ExpectOutput();
}

TEST(CrossCoreCheck, AivReadingASlotBeforeItsWaitIsARace) {
  OneWorkerThread one;
  Handoff h;
  const Checked c = h.Run(Bug::kReadBeforeWait);
  ExpectRaces(c, h.store, h.load, true, h.Slot1());
  EXPECT_EQ(c.reports[0].kernel, "slot_handoff");
}

TEST(CrossCoreCheck, WaitOnTheWrongFlagIsARace) {
  OneWorkerThread one;
  Handoff h;
  const Checked c = h.Run(Bug::kWrongFlag);
  ExpectRaces(c, h.store, h.load, true, h.Slot1());
}

// With one worker thread a block runs until it blocks, so the AIC has set kReady for tiles 0 and
// 1 (and blocks on kFree) before the AIVs' first wait returns: the report does not depend on the
// AIVs being early.
TEST(CrossCoreCheck, OneWaitAcquiresOneSetNotTwo) {
  OneWorkerThread one;
  Handoff h;
  const Checked c = h.Run(Bug::kFewerWaits);
  ExpectRaces(c, h.store, h.load, true, h.Slot1());
}

// The AIC overwrites slot t % 2 with tile t >= 2 without waiting for kFree: its store races the
// AIVs' load of tile t - 2 (WAR), or their load sees the new bytes (RAW). Every tile is copied
// and loaded by the same two DataCopy lines.
TEST(CrossCoreCheck, AicRewritingASlotBeforeTheAivsReleasedItIsARace) {
  OneWorkerThread one;
  Handoff h;
  std::vector<std::pair<const float*, const float*>> slots;
  for (uint32_t g = 0; g < Handoff::kGroups; ++g) {
    slots.emplace_back(h.ws.data() + g * 2 * kSlot, h.ws.data() + (g + 1) * 2 * kSlot);
  }
  const Checked c = h.Run(Bug::kNoWaitForFree);
  ExpectRaces(c, h.store, h.load, true, slots);
  for (const Report& r : c.reports) {
    const bool site_aic = r.site.core.rfind("AIC", 0) == 0;
    EXPECT_EQ((site_aic ? r.site : r.prev).pipe, sim::Pipe::kMte3);
    EXPECT_EQ((site_aic ? r.prev : r.site).pipe, sim::Pipe::kMte2);
  }
}

// Mode 0 (all AIVs) and mode 1 (the two AIVs of a group) hand GM between AIVs in one SyncAll
// phase: clean with the flags, a race without.
Checked AivHandoff(int mode, bool fixed, std::vector<float>& ws, Line& store, Line& load) {
  return RunMix("aiv_handoff", 2, [&, mode, fixed] {
    if (ASCEND_IS_AIC) return;
    VectorHalf vec;
    LocalTensor<float> ub = vec.buf.Get<float>();
    const uint32_t me = GetBlockIdx();
    // Mode 0: AIV b reads what AIV (b + 1) % 4 wrote; mode 1: what its partner wrote.
    const uint32_t from = mode == 0 ? (me + 1) % 4 : me ^ 1;
    Duplicate(ub, static_cast<float>(me), kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(Gm(ws)[me * kN], ub, kN); store = __LINE__;
    if (fixed && mode == 0) {
      CrossCoreSetFlag<0, PIPE_MTE3>(3);
      CrossCoreWaitFlag<0, PIPE_MTE2>(3);
    } else if (fixed) {
      CrossCoreSetFlag<1, PIPE_MTE3>(3);
      CrossCoreWaitFlag<1, PIPE_MTE2>(3);
    }
    SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    DataCopy(ub, Gm(ws)[from * kN], kN); load = __LINE__;
  });
}

TEST(CrossCoreCheck, Mode0AndMode1HandoffsAmongAivs) {
  for (int mode : {0, 1}) {
    SCOPED_TRACE(mode);
    std::vector<float> ws(4 * kN);
    Line store, load;
    ExpectClean(AivHandoff(mode, true, ws, store, load));
    const float* lo = ws.data();
    OneWorkerThread one;
    const Checked c = AivHandoff(mode, false, ws, store, load);
    ExpectRaces(c, store, load, false, {{lo, lo + ws.size()}});
  }
}

enum class Mix { kChainThroughAivSyncAll, kFullSyncAll, kAivOnlySyncAll };

// SyncAll and flags together. The AIC of group 0 writes x and hands it to its AIVs (mode 2);
// kChainThroughAivSyncAll: then the AIVs meet at SyncAll<true> and the AIVs of group 1 read x
// (clean: AIC 0 -> AIV 0/1 -> SyncAll -> AIV 2/3). kFullSyncAll: AIV 0 writes y, every core
// meets at SyncAll<false>, the AICs read y (clean). kAivOnlySyncAll: the same with
// SyncAll<true>, which the AICs do not take part in (a race).
Checked SyncAllAndFlags(Mix mix, std::vector<float>& x, std::vector<float>& y, Line& store,
                        Line& load) {
  return RunMix("syncall_and_flags", 2, [&, mix] {
    if (ASCEND_IS_AIC) {
      CubeCopier cube;
      LocalTensor<float> l1 = cube.buf.Get<float>();
      if (mix == Mix::kChainThroughAivSyncAll) {
        if (GetBlockIdx() == 0) {
          DataCopy(l1, Gm(y), kSlot);
          SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
          WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
          DataCopy(Gm(x), l1, kSlot); store = __LINE__;
        }
        CrossCoreSetFlag<2, PIPE_MTE3>(kReady);
        return;
      }
      if (mix == Mix::kFullSyncAll) SyncAll<false>();
      DataCopy(l1, Gm(y), kN); load = __LINE__;
      return;
    }
    VectorHalf vec;
    LocalTensor<float> ub = vec.buf.Get<float>();
    if (mix == Mix::kChainThroughAivSyncAll) {
      CrossCoreWaitFlag<2, PIPE_MTE2>(kReady);
      SyncAll<true>();
      if (GetBlockIdx() >= 2) {
        DataCopy(ub, Gm(x)[GetSubBlockIdx() * kN], kN); load = __LINE__;
      }
      return;
    }
    if (GetBlockIdx() == 0) {
      Duplicate(ub, 3.f, kN);
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(Gm(y), ub, kN); store = __LINE__;
    }
    if (mix == Mix::kFullSyncAll) {
      SyncAll<false>();
    } else {
      SyncAll<true>();
    }
  });
}

TEST(CrossCoreCheck, FlagChainsContinueThroughSyncAll) {
  std::vector<float> x(kSlot), y(kSlot, 1.f);
  Line store, load;
  ExpectClean(SyncAllAndFlags(Mix::kChainThroughAivSyncAll, x, y, store, load));
  ExpectClean(SyncAllAndFlags(Mix::kFullSyncAll, x, y, store, load));
}

TEST(CrossCoreCheck, AnAivOnlySyncAllDoesNotOrderTheAic) {
  OneWorkerThread one;
  std::vector<float> x(kSlot), y(kSlot, 1.f);
  Line store, load;
  const Checked c = SyncAllAndFlags(Mix::kAivOnlySyncAll, x, y, store, load);
  ExpectRaces(c, store, load, false, {{y.data(), y.data() + y.size()}});
  for (const Report& r : c.reports) {
    const bool site_aic = r.site.core.rfind("AIC", 0) == 0;
    EXPECT_EQ(site_aic ? r.prev.core : r.site.core, "AIV 0") << c.Text();
    EXPECT_THAT(site_aic ? r.site.core : r.prev.core, ::testing::StartsWith("AIC ")) << c.Text();
  }
}

// Two blocks writing one host buffer they each use as their own GM staging, one after the other
// (one worker thread): without Core::RetireGm the second write is an overlap with the first; a
// block that retires the range before it ends (as the Matmul client does with its GetTensorC
// block, whose heap addresses the next block may get) leaves nothing for the next one to meet.
Checked RunStagingReuse(bool retire) {
  static std::vector<float> staging(kN);
  return testing::RunChecked("staging_reuse", 2, [retire] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    Duplicate(t, static_cast<float>(GetBlockIdx()), kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(Gm(staging), t, kN);
    PipeBarrier<PIPE_ALL>();
    if (retire) sim::CurrentCore().RetireGm(staging.data(), kN * sizeof(float));
  });
}

TEST(CrossCoreCheck, StagingReusedByTheNextBlockIsAnOverlapUnlessRetired) {
  OneWorkerThread one;
  const Checked reused = RunStagingReuse(false);
  ASSERT_TRUE(reused.status.ok()) << reused.status.ToString();
  EXPECT_FALSE(reused.Of(DefectKind::kGmOverlap).empty()) << reused.Text();
  ExpectClean(RunStagingReuse(true));
}

// The AIVs call a Matmul the AIC serves; with `a_elems` short of A's 32 x 32 the AIC's copy of A
// into L1 fails inside the call, the AIV gets the error and the launch aborts.
Checked RunMixMatmul(uint64_t a_elems) {
  using HalfType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using FloatType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  matmul_tiling::MultiCoreMatmulTiling api;
  api.SetDim(2);
  api.SetAType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  api.SetBType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  api.SetCType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetShape(32, 32, 32);
  api.SetOrgShape(32, 32, 32);
  optiling::TCubeTiling t;
  EXPECT_EQ(api.GetTiling(t), 0) << api.last_error();
  std::vector<half> a(32 * 32, half(0.5f)), b(32 * 32, half(0.25f));
  std::vector<float> c(32 * 32 * 2);
  return RunMix("mix_matmul", 1, [&] {
    TPipe pipe;
    Matmul<HalfType, HalfType, FloatType, FloatType> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a_elems);
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data() + GetBlockIdx() * 32 * 32, 32 * 32);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
    mm.End();
  });
}

// Was: the AIC left its serve loop on the abort with the failed call's L1 and L0C queue buffers
// allocated, and synccheck reported them as queue leaks of a kernel that frees everything.
TEST(CrossCoreCheck, AnAicCutShortByAFailedMatmulCallReportsNoLeaks) {
  const Checked ok = RunMixMatmul(32 * 32);
  ExpectClean(ok);
  const Checked failed = RunMixMatmul(16);
  ASSERT_FALSE(failed.status.ok());
  EXPECT_THAT(failed.status.message(), HasSubstr("the AIC serving this call failed"));
  EXPECT_TRUE(failed.Of(DefectKind::kQueueLeak).empty()) << failed.Text();
  EXPECT_TRUE(failed.reports.empty()) << failed.Text();
}

}  // namespace
}  // namespace aicore::check
