// The sanitizer's happens-before and shadow-memory rules on hand-built funnel records, one rule
// per test, independent of the kernel layer: flags and their transitivity, barriers, scalar
// waits, queue edges, in-order pipes, byte masks within a granule, atomics, and the memcheck
// backstops (bounds and alignment of transfers) that the kernel layer normally preempts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <source_location>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/core/status.h"
#include "aicore/sim/core.h"

namespace aicore::check {
namespace {

using arch::Buffer;
using sim::Instr;
using sim::InstrKind;
using sim::MemRef;
using sim::Pipe;

// Feeds records for one core of a one-block launch straight into a Sanitizer.
class Feed {
 public:
  explicit Feed(sim::CoreType type = sim::CoreType::kAiv, uint32_t tools = kAllTools)
      : sanitizer_(SanitizerOptions{tools, 1000, nullptr}),
        core_(arch::DefaultChip(), "unit", sim::CoreIdentity{type, 0, 1, 0, 1, 0}, {}) {
    sanitizer_.OnLaunchBegin("unit", 1);
    sanitizer_.OnBlockBegin(core_);
  }

  // Issues a transfer or compute on `pipe`: writes `dst`, reads `src` (if any).
  void Access(Pipe pipe, MemRef dst, MemRef src = {}, InstrKind kind = InstrKind::kCopy,
              std::source_location loc = std::source_location::current()) {
    Instr in;
    in.kind = kind;
    in.pipe = pipe;
    in.api = kind == InstrKind::kCopy ? "DataCopy" : "Add";
    in.dst = dst;
    if (src.buffer != Buffer::kNone) {
      in.src[0] = src;
      in.src_count = 1;
    }
    in.loc = loc;
    sanitizer_.OnInstr(core_, in);
  }
  void Flag(InstrKind kind, Pipe src, Pipe dst, int id = 0) {
    Instr in;
    in.kind = kind;
    in.api = kind == InstrKind::kSetFlag ? "SetFlag" : "WaitFlag";
    in.pipe = src;
    in.wait_pipe = dst;
    in.event_id = id;
    sanitizer_.OnInstr(core_, in);
  }
  void Edge(Pipe src, Pipe dst) {
    Flag(InstrKind::kSetFlag, src, dst);
    Flag(InstrKind::kWaitFlag, src, dst);
  }
  void Simple(InstrKind kind, Pipe pipe, const char* api = "PipeBarrier") {
    Instr in;
    in.kind = kind;
    in.pipe = pipe;
    in.api = api;
    sanitizer_.OnInstr(core_, in);
  }
  // A queue call on the buffer at UB [offset, offset + 1024), pipes as TQue records them.
  void Queue(const char* api, Pipe pipe, Pipe wait_pipe, uint64_t offset) {
    Instr in;
    in.kind = InstrKind::kQueue;
    in.api = api;
    in.pipe = pipe;
    in.wait_pipe = wait_pipe;
    in.dst = {Buffer::kUb, offset, 1024};
    sanitizer_.OnInstr(core_, in);
  }
  sim::Core& core() { return core_; }
  std::vector<Report> End() {
    sanitizer_.OnBlockEnd(core_);
    sanitizer_.OnLaunchEnd("unit");
    return sanitizer_.reports();
  }

 private:
  Sanitizer sanitizer_;
  sim::Core core_;
};

std::string Text(const std::vector<Report>& reports) {
  std::string out;
  for (const Report& r : reports) out += r.ToString() + "\n";
  return out;
}

MemRef Ub(uint64_t offset, uint64_t bytes) { return {Buffer::kUb, offset, bytes}; }

alignas(512) float g_gm[4096];  // GM as GmAlloc hands it out: 512-byte aligned
MemRef Gm(uint64_t byte_offset, uint64_t bytes) {
  return {Buffer::kGm, reinterpret_cast<uint64_t>(g_gm) + byte_offset, bytes};
}

TEST(Sanitizer, FlagsAreTransitive) {
  Feed f;
  f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));
  f.Edge(Pipe::kMte2, Pipe::kV);
  f.Access(Pipe::kV, Ub(2048, 1024), Ub(4096, 1024), InstrKind::kCompute);  // unrelated
  f.Edge(Pipe::kV, Pipe::kMte3);
  f.Access(Pipe::kMte3, Gm(8192, 1024), Ub(0, 1024));  // MTE2 -> V -> MTE3 orders the read
  const auto reports = f.End();
  for (const Report& r : reports) EXPECT_NE(ToolOf(r.kind), kRacecheck) << Text(reports);
}

TEST(Sanitizer, BarrierOrdersOnlyItsOwnPipe) {
  Feed f;
  f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));
  f.Simple(InstrKind::kBarrier, Pipe::kV);
  f.Access(Pipe::kV, Ub(1024, 1024), Ub(0, 1024), InstrKind::kCompute);  // still a RAW
  f.Simple(InstrKind::kBarrier, Pipe::kMte2);
  f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));  // no WAW with the first load; WAR with V
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 2u) << Text(reports);
  EXPECT_EQ(reports[0].kind, DefectKind::kRaceRaw);
  EXPECT_EQ(reports[1].kind, DefectKind::kRaceWar);
}

TEST(Sanitizer, PipeAllAndSyncAllOrderEverything) {
  for (InstrKind kind : {InstrKind::kBarrier, InstrKind::kSyncAll}) {
    Feed f;
    f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));
    f.Simple(kind, Pipe::kAll, kind == InstrKind::kBarrier ? "PipeBarrier" : "SyncAll");
    f.Access(Pipe::kV, Ub(1024, 1024), Ub(0, 1024), InstrKind::kCompute);
    f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));  // WAR with V: V ran after the barrier
    const auto reports = f.End();
    ASSERT_EQ(reports.size(), 1u) << Text(reports);
    EXPECT_EQ(reports[0].kind, DefectKind::kRaceWar);
  }
}

TEST(Sanitizer, ScalarWaitOrdersEveryPipe) {
  Feed f;
  f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));
  f.Edge(Pipe::kMte2, Pipe::kS);
  f.Access(Pipe::kMte3, Gm(8192, 1024), Ub(0, 1024));
  f.Access(Pipe::kV, Ub(1024, 1024), Ub(0, 1024), InstrKind::kCompute);
  const auto reports = f.End();
  EXPECT_TRUE(reports.empty()) << Text(reports);
}

TEST(Sanitizer, VectorPipeIsInOrderDmaPipesAreNot) {
  Feed f(sim::CoreType::kAiv, kRacecheck);
  f.Access(Pipe::kV, Ub(0, 1024), Ub(2048, 1024), InstrKind::kCompute);
  f.Access(Pipe::kV, Ub(1024, 1024), Ub(0, 1024), InstrKind::kCompute);  // V after V: ordered
  f.Access(Pipe::kV, Ub(0, 1024), Ub(1024, 1024), InstrKind::kCompute);
  f.Access(Pipe::kMte3, Gm(0, 64), Ub(3072, 64));
  f.Access(Pipe::kMte3, Gm(32, 64), Ub(3072, 64));  // overlapping GM stores on MTE3
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 1u) << Text(reports);
  EXPECT_EQ(reports[0].kind, DefectKind::kRaceWaw);
  EXPECT_EQ(reports[0].begin, reinterpret_cast<uint64_t>(g_gm) + 32);
  EXPECT_EQ(reports[0].end, reinterpret_cast<uint64_t>(g_gm) + 64);
}

TEST(Sanitizer, QueueEdgesFollowTheSlot) {
  Feed f;
  // VECIN slot at UB 0: AllocTensor (MTE2 waits) / EnQue (MTE2 sets) / DeQue (V waits) / Free.
  f.Queue("AllocTensor", Pipe::kV, Pipe::kMte2, 0);
  f.Access(Pipe::kMte2, Ub(0, 1024), Gm(0, 1024));
  f.Queue("EnQue", Pipe::kMte2, Pipe::kV, 0);
  f.Queue("DeQue", Pipe::kMte2, Pipe::kV, 0);
  f.Access(Pipe::kV, Ub(4096, 1024), Ub(0, 1024), InstrKind::kCompute);
  f.Queue("FreeTensor", Pipe::kV, Pipe::kMte2, 0);
  f.Queue("AllocTensor", Pipe::kV, Pipe::kMte2, 0);
  f.Access(Pipe::kMte2, Ub(0, 1024), Gm(1024, 1024));  // after Free/Alloc: no WAR, no WAW
  f.Queue("EnQue", Pipe::kMte2, Pipe::kV, 0);
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 1u) << Text(reports);  // the slot is still enqueued at block end
  EXPECT_EQ(reports[0].kind, DefectKind::kQueueLeak);
  EXPECT_THAT(reports[0].detail, ::testing::HasSubstr("enqueued"));
}

TEST(Sanitizer, DisjointBytesOfOneGranuleDoNotConflict) {
  Feed f;
  f.Access(Pipe::kMte3, Gm(0, 16), Ub(0, 32));
  f.Access(Pipe::kMte3, Gm(16, 16), Ub(0, 32));  // same 32-byte granule, other bytes
  f.Access(Pipe::kMte3, Gm(8, 16), Ub(0, 32));   // overlaps both
  const auto reports = f.End();
  std::vector<Report> races;
  for (const Report& r : reports) {
    if (r.kind == DefectKind::kRaceWaw) races.push_back(r);
  }
  ASSERT_EQ(races.size(), 1u) << Text(reports);
  EXPECT_EQ(races[0].site.line, races[0].prev.line + 1);
}

TEST(Sanitizer, AtomicStoresDoNotConflict) {
  Feed f(sim::CoreType::kAiv, kRacecheck);
  f.core().atomic_mode = 1;
  f.Access(Pipe::kMte3, Gm(0, 1024), Ub(0, 1024));
  f.Access(Pipe::kMte3, Gm(0, 1024), Ub(0, 1024));
  f.core().atomic_mode = 0;
  f.Access(Pipe::kMte3, Gm(0, 1024), Ub(0, 1024));  // a plain store after atomics: WAW
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 1u) << Text(reports);
  EXPECT_EQ(reports[0].kind, DefectKind::kRaceWaw);
}

TEST(Sanitizer, TransfersPastTheBufferAreOutOfBounds) {
  Feed f(sim::CoreType::kAic, kMemcheck);
  const uint64_t l1 = f.core().LocalSize(Buffer::kL1);
  f.Access(Pipe::kMte2, {Buffer::kL1, l1 - 256, 512}, Gm(0, 512));
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 1u) << Text(reports);
  EXPECT_EQ(reports[0].kind, DefectKind::kOutOfBounds);
  EXPECT_EQ(reports[0].buffer, Buffer::kL1);
  EXPECT_EQ(reports[0].begin, l1);
  EXPECT_EQ(reports[0].end, l1 + 256);
}

TEST(Sanitizer, L0TransfersNeed512ByteAlignment) {
  Feed f(sim::CoreType::kAic, kMemcheck);
  const int line = __LINE__ + 1;
  f.Access(Pipe::kMte1, {Buffer::kL0A, 256, 512}, {Buffer::kL1, 0, 512});
  f.Access(Pipe::kMte1, {Buffer::kL0B, 1024, 512}, {Buffer::kL1, 96, 512});
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 1u) << Text(reports);
  EXPECT_EQ(reports[0].kind, DefectKind::kMisaligned);
  EXPECT_EQ(reports[0].buffer, Buffer::kL0A);
  EXPECT_EQ(reports[0].begin, 256u);
  EXPECT_EQ(reports[0].ToString(),
            StrCat("memcheck: misaligned transfer on L0A [0x100, 0x300) in kernel unit, block AIC "
                   "0: MTE1 DataCopy (sanitizer_test.cc:", line, "). a transfer's L0A operand "
                   "must start on a multiple of 512 B; offset 256 is not"));
}

TEST(Sanitizer, UnconsumedFlagIsReportedOnlyWhenLeftSet) {
  Feed f(sim::CoreType::kAiv, kSynccheck);
  f.Edge(Pipe::kV, Pipe::kMte3);
  f.Flag(InstrKind::kSetFlag, Pipe::kMte2, Pipe::kV, 5);
  const auto reports = f.End();
  ASSERT_EQ(reports.size(), 1u) << Text(reports);
  EXPECT_EQ(reports[0].kind, DefectKind::kUnconsumedFlag);
  EXPECT_THAT(reports[0].detail, ::testing::HasSubstr("MTE2_V ID 5"));
}

}  // namespace
}  // namespace aicore::check
