// No false positives: correctly synchronised kernels in the common AscendC shapes (double-buffered
// queues, TBuf with hand-written flags, two-phase SyncAll over a GM workspace, atomic
// accumulation, level-0 calls, repeated launches) run clean with every tool on, on many blocks.
// The bundled examples are also run clean by the ctest entries check.clean.<example>.
#include <gtest/gtest.h>

#include <vector>

#include "aicore/runtime/gm.h"
#include "kernel_operator.h"
#include "tests/check/check_test_util.h"

namespace aicore::check {
namespace {

using namespace AscendC;
using testing::Checked;
using testing::RunChecked;

void ExpectClean(const Checked& c) {
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  EXPECT_TRUE(c.reports.empty()) << c.Text();
}

// add_custom's pipeline: CopyIn / Compute / CopyOut through TQues of depth `depth`.
void QueuePipeline(const half* x, const half* y, half* z, int32_t block_len, int32_t tile,
                   int32_t depth) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> in_x, in_y;
  TQue<QuePosition::VECOUT, 2> out_z;
  pipe.InitBuffer(in_x, depth, tile * sizeof(half));
  pipe.InitBuffer(in_y, depth, tile * sizeof(half));
  pipe.InitBuffer(out_z, depth, tile * sizeof(half));
  GlobalTensor<half> gm_x, gm_y, gm_z;  // (block_len) each
  const int64_t base = int64_t{block_len} * GetBlockIdx();
  gm_x.SetGlobalBuffer(const_cast<half*>(x) + base, block_len);
  gm_y.SetGlobalBuffer(const_cast<half*>(y) + base, block_len);
  gm_z.SetGlobalBuffer(z + base, block_len);
  const int32_t tiles = block_len / tile;
  auto copy_in = [&](int32_t i) {
    LocalTensor<half> ub_x = in_x.AllocTensor<half>();
    LocalTensor<half> ub_y = in_y.AllocTensor<half>();
    DataCopy(ub_x, gm_x[i * tile], tile);
    DataCopy(ub_y, gm_y[i * tile], tile);
    in_x.EnQue(ub_x);
    in_y.EnQue(ub_y);
  };
  auto compute = [&] {
    LocalTensor<half> ub_x = in_x.DeQue<half>();
    LocalTensor<half> ub_y = in_y.DeQue<half>();
    LocalTensor<half> ub_z = out_z.AllocTensor<half>();
    Add(ub_z, ub_x, ub_y, tile);
    out_z.EnQue(ub_z);
    in_x.FreeTensor(ub_x);
    in_y.FreeTensor(ub_y);
  };
  auto copy_out = [&](int32_t i) {
    LocalTensor<half> ub_z = out_z.DeQue<half>();
    DataCopy(gm_z[i * tile], ub_z, tile);
    out_z.FreeTensor(ub_z);
  };
  if (depth == 1) {
    for (int32_t i = 0; i < tiles; ++i) {
      copy_in(i);
      compute();
      copy_out(i);
    }
    return;
  }
  // Software-pipelined: the next tile is loaded before the current one is computed.
  copy_in(0);
  for (int32_t i = 0; i < tiles; ++i) {
    if (i + 1 < tiles) copy_in(i + 1);
    compute();
    copy_out(i);
  }
}

TEST(Clean, QueuePipelineDoubleAndSingleBuffered) {
  constexpr int32_t kBlocks = 16, kBlockLen = 4096, kTile = 512;
  std::vector<half> x(kBlocks * kBlockLen, half(1.5f)), y(x.size(), half(2.f)), z(x.size());
  for (int32_t depth : {1, 2}) {
    ExpectClean(RunChecked("add_pipeline", kBlocks, [&] {
      QueuePipeline(x.data(), y.data(), z.data(), kBlockLen, kTile, depth);
    }));
    for (const half& v : z) ASSERT_EQ(float(v), 3.5f);
  }
}

// TBuf ping-pong with every flag written by hand, as kernels without TQue do.
TEST(Clean, TBufPingPongWithHandWrittenFlags) {
  constexpr int32_t kBlocks = 8, kTile = 256, kTiles = 6;
  std::vector<float> x(kBlocks * kTile * kTiles, 2.f), y(x.size());
  ExpectClean(RunChecked("tbuf_ping_pong", kBlocks, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * kTile * sizeof(float));
    GlobalTensor<float> gm_x, gm_y;
    const int64_t base = int64_t{kTile} * kTiles * GetBlockIdx();
    gm_x.SetGlobalBuffer(x.data() + base, kTile * kTiles);
    gm_y.SetGlobalBuffer(y.data() + base, kTile * kTiles);
    for (int32_t i = 0; i < kTiles; ++i) {
      const int32_t ping = i % 2;
      LocalTensor<float> ub_in = buf.Get<float>()[ping * kTile];         // (kTile)
      LocalTensor<float> ub_out = buf.Get<float>()[(2 + ping) * kTile];  // (kTile)
      if (i >= 2) {
        WaitFlag<HardEvent::V_MTE2>(ping);   // V finished reading this input two tiles ago
        WaitFlag<HardEvent::MTE3_V>(ping);   // MTE3 finished storing this output
      }
      DataCopy(ub_in, gm_x[i * kTile], kTile);
      SetFlag<HardEvent::MTE2_V>(ping);
      WaitFlag<HardEvent::MTE2_V>(ping);
      Muls(ub_out, ub_in, 3.f, kTile);
      if (i + 2 < kTiles) SetFlag<HardEvent::V_MTE2>(ping);
      SetFlag<HardEvent::V_MTE3>(ping);
      WaitFlag<HardEvent::V_MTE3>(ping);
      DataCopy(gm_y[i * kTile], ub_out, kTile);
      if (i + 2 < kTiles) SetFlag<HardEvent::MTE3_V>(ping);
    }
  }));
  for (float v : y) ASSERT_EQ(v, 6.f);
}

// Phase 1 writes per-block slots of a GM workspace, SyncAll, phase 2 reads every slot; then the
// workspace is reused for a second round after another SyncAll.
TEST(Clean, TwoPhaseSyncAllOverGmWorkspace) {
  constexpr int32_t kBlocks = 12, kSlot = 8;  // 8 floats = one 32-byte block per slot
  std::vector<float> ws(kBlocks * kSlot), out(kBlocks * kSlot);
  ExpectClean(RunChecked("two_phase", kBlocks, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, (kBlocks + 1) * kSlot * sizeof(float));
    LocalTensor<float> ub_slot = buf.Get<float>(kSlot);
    LocalTensor<float> ub_all = buf.Get<float>()[kSlot];
    GlobalTensor<float> gm_ws, gm_out;
    gm_ws.SetGlobalBuffer(ws.data(), ws.size());
    gm_out.SetGlobalBuffer(out.data(), out.size());
    for (int round = 0; round < 2; ++round) {
      Duplicate(ub_slot, float(GetBlockIdx() + round), kSlot);
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(gm_ws[GetBlockIdx() * kSlot], ub_slot, kSlot);
      SyncAll();
      DataCopy(ub_all, gm_ws, kBlocks * kSlot);
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
      Add(ub_slot, ub_all, ub_all[((GetBlockIdx() + 1) % kBlocks) * kSlot], kSlot);
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(gm_out[GetBlockIdx() * kSlot], ub_slot, kSlot);
      SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
      SyncAll();
    }
  }));
  for (int32_t b = 0; b < kBlocks; ++b) {
    EXPECT_EQ(out[b * kSlot], float(1 + (b + 1) % kBlocks + 1));  // slot 0 + the next slot
  }
}

// Every block accumulates into the same GM tile with SetAtomicAdd.
TEST(Clean, AtomicAccumulationFromAllBlocks) {
  constexpr int32_t kBlocks = 8, kN = 64;
  std::vector<float> acc(kN, 0.f);
  ExpectClean(RunChecked("atomic_sum", kBlocks, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(float));
    Duplicate(buf.Get<float>(), 1.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    GlobalTensor<float> gm_acc;
    gm_acc.SetGlobalBuffer(acc.data(), kN);
    SetAtomicAdd<float>();
    DataCopy(gm_acc, buf.Get<float>(), kN);
    SetAtomicNone();
  }));
  for (float v : acc) ASSERT_EQ(v, float(kBlocks));
}

// Level-0 calls on halves of a tensor, UB -> UB copies and back-to-back V ops (in order on V).
TEST(Clean, Level0AndUbToUbOnTheVectorPipe) {
  constexpr int32_t kN = 512;
  std::vector<float> x(kN, 1.f), y(kN);
  ExpectClean(RunChecked("level0", 4, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kN * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();           // (kN)
    LocalTensor<float> b = buf.Get<float>()[kN];       // (kN)
    LocalTensor<float> c = buf.Get<float>()[2 * kN];   // (kN)
    GlobalTensor<float> gm_x, gm_y;
    gm_x.SetGlobalBuffer(x.data(), kN);
    gm_y.SetGlobalBuffer(y.data() + 0, kN);
    DataCopy(a, gm_x, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Adds(b, a, 1.f, uint64_t{64}, 4, UnaryRepeatParams());            // first half
    Adds(b[kN / 2], a[kN / 2], 2.f, uint64_t{64}, 4, UnaryRepeatParams());
    PipeBarrier<PIPE_V>();
    DataCopy(c, b, kN);                                               // UB -> UB on V
    Mul(c, c, b, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    if (GetBlockIdx() == 0) DataCopy(gm_y, c, kN);
  }));
  EXPECT_EQ(y[0], 4.f);
  EXPECT_EQ(y[kN - 1], 9.f);
}

// State does not leak between launches: a GM buffer written by block 0 in one launch and read by
// block 1 in the next is ordered by the launch boundary.
TEST(Clean, LaunchBoundaryOrdersEverything) {
  constexpr int32_t kN = 64;
  void* gm = GmAlloc(kN * sizeof(float));
  Sanitizer sanitizer;
  for (int phase = 0; phase < 2; ++phase) {
    const Status st = RunKernel("phase", 2, LaunchOptions{}, [&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, kN * sizeof(float));
      GlobalTensor<float> t;
      t.SetGlobalBuffer(static_cast<float*>(gm), kN);
      if (phase == 0 && GetBlockIdx() == 0) {
        Duplicate(buf.Get<float>(), 7.f, kN);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(t, buf.Get<float>(), kN);
      }
      if (phase == 1 && GetBlockIdx() == 1) DataCopy(buf.Get<float>(), t, kN);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_TRUE(sanitizer.reports().empty());
  GmFree(gm);
}

// A defect in every block is one report counting every occurrence.
TEST(Clean, IdenticalDefectsMergeAcrossBlocks) {
  constexpr int32_t kBlocks = 8, kN = 64;
  std::vector<float> x(kBlocks * kN, 1.f);
  const Checked c = RunChecked("merged", kBlocks, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * kN * sizeof(float));
    GlobalTensor<float> gm_x;
    gm_x.SetGlobalBuffer(x.data() + kN * GetBlockIdx(), kN);
    DataCopy(buf.Get<float>(), gm_x, kN);
    Adds(buf.Get<float>()[kN], buf.Get<float>(), 1.f, kN);
  });
  ASSERT_EQ(c.reports.size(), 1u) << c.Text();
  EXPECT_EQ(c.reports[0].kind, DefectKind::kRaceRaw);
  EXPECT_EQ(c.reports[0].count, uint64_t{kBlocks});
}

}  // namespace
}  // namespace aicore::check
