// Attention, stage 2 of 4: one fused mix kernel on one AI Core (1 AIC + 2 AIVs). For each work
// item (head, 128-row query tile) the AIC walks the keys in blocks of 128: S_j = Q K_j^T goes
// through Fixpipe into a GM workspace slot, the AIVs (64 rows each) read it, run the online
// softmax (running row max m and sum l, exp(m_old - m_new) to rescale), write P_j in fp16, the
// AIC computes O_j = P_j V_j into the workspace and the AIVs fold it into their fp32
// accumulator; after the last block they divide by the sum and write O in fp16. Cross-core flags
// order the handoffs. The scores never exist as an S x S matrix, but one slot and single buffers
// mean the cube and the vector units take turns.
// Usage: attention_stage2_fused [heads [seq]]; checked against a double-precision reference.
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr uint32_t kHeadDim = 64;    // D
constexpr uint32_t kTileQ = 128;     // query rows per work item
constexpr uint32_t kBlockKv = 128;   // keys per block
constexpr uint32_t kRowsAiv = kTileQ / 2;  // query rows per AIV
constexpr uint32_t kFrac = 16;       // fractal edge for half
constexpr uint32_t kSlots = 1;       // workspace slots per group
constexpr uint32_t kDepth = 1;       // buffers per queue
constexpr uint16_t kScoresReady = 1;  // AIC -> AIVs: S_j is in its slot
constexpr uint16_t kProbsReady = 2;   // AIVs -> AIC: P_j is in its slot (S_j has been read)
constexpr uint16_t kOutReady = 3;     // AIC -> AIVs: O_j = P_j V_j is in its slot
constexpr uint16_t kOutFree = 4;      // AIVs -> AIC: O_j has been read
constexpr uint16_t kPairMet = 5;      // AIV <-> AIV: both are done with the block
// One slot of a group's workspace: S_j (fp32), P_j (fp16), O_j (fp32).
constexpr uint32_t kScoreBytes = kTileQ * kBlockKv * 4;
constexpr uint32_t kProbBytes = kTileQ * kBlockKv * 2;
constexpr uint32_t kOutBytes = kTileQ * kHeadDim * 4;
constexpr uint32_t kSlotBytes = kScoreBytes + kProbBytes + kOutBytes;
}  // namespace

// The host's tiling: the shape and the softmax scale 1 / sqrt(D).
struct AttentionTiling {
  uint32_t heads;
  uint32_t seq;
  float scale;
};

// The blocks a group works through, in order: work item w (head, query tile), key block j.
struct Schedule {
  uint32_t heads, seq;
  __aicore__ inline uint32_t Blocks() const { return seq / kBlockKv; }
  __aicore__ inline uint32_t Items() const { return heads * (seq / kTileQ); }
  __aicore__ inline uint32_t Total() const { return Items() * Blocks(); }
  __aicore__ inline uint32_t Item(uint32_t g) const { return g / Blocks(); }
  __aicore__ inline uint32_t Kv(uint32_t g) const { return g % Blocks(); }
  // First row of the item's query tile in the (heads * seq, D) matrices.
  __aicore__ inline uint32_t QRow(uint32_t w) const { return w * kTileQ; }
  __aicore__ inline uint32_t KvRow(uint32_t w, uint32_t j) const {
    return w / (seq / kTileQ) * seq + j * kBlockKv;
  }
};

// The cube side: S_j = Q K_j^T and O_j = P_j V_j, each through L1 -> L0 -> Mmad -> Fixpipe into
// the group's workspace.
class CubeSide {
 public:
  __aicore__ inline void Init(GM_ADDR q, GM_ADDR k, GM_ADDR v, GM_ADDR ws,
                              const AttentionTiling& t) {
    sch_ = {t.heads, t.seq};
    const uint64_t elems = uint64_t{t.heads} * t.seq * kHeadDim;
    qGm_.SetGlobalBuffer((__gm__ half*)q, elems);
    kGm_.SetGlobalBuffer((__gm__ half*)k, elems);
    vGm_.SetGlobalBuffer((__gm__ half*)v, elems);
    sGm_.SetGlobalBuffer((__gm__ float*)ws, kSlots * kTileQ * kBlockKv);
    pGm_.SetGlobalBuffer((__gm__ half*)(ws + kSlots * kScoreBytes), kSlots * kTileQ * kBlockKv);
    oGm_.SetGlobalBuffer((__gm__ float*)(ws + kSlots * (kScoreBytes + kProbBytes)),
                         kSlots * kTileQ * kHeadDim);
    pipe_.InitBuffer(qQ1_, 1, kTileQ * kHeadDim * sizeof(half));
    pipe_.InitBuffer(qA1_, kDepth, kTileQ * kBlockKv * sizeof(half));   // P_j
    pipe_.InitBuffer(qB1_, kDepth, kBlockKv * kHeadDim * sizeof(half));  // K_j or V_j
    pipe_.InitBuffer(qA2_, kDepth, kTileQ * kBlockKv * sizeof(half));   // Q or P_j
    pipe_.InitBuffer(qB2_, kDepth, kBlockKv * kHeadDim * sizeof(half));  // K_j^T or V_j
    pipe_.InitBuffer(qC_, kDepth, kTileQ * kBlockKv * sizeof(float));   // S_j or O_j
  }

  __aicore__ inline void Process() {
    for (uint32_t g = 0; g < sch_.Total(); ++g) {
      Scores(g);
      CrossCoreWaitFlag<2, PIPE_MTE2>(kProbsReady);
      Output(g);
    }
  }

 private:
  // S_g = Q K_j^T (128 x 128, K = D) into slot g % kSlots.
  __aicore__ inline void Scores(uint32_t g) {
    const uint32_t w = sch_.Item(g), j = sch_.Kv(g);
    if (j == 0) {  // a new work item: its query tile stays in L1 for all its blocks
      LocalTensor<half> q1 = qQ1_.AllocTensor<half>();
      CopyNd2Nz(q1, qGm_[uint64_t{sch_.QRow(w)} * kHeadDim], kTileQ, kHeadDim, kHeadDim);
      qQ1_.EnQue(q1);
      q1_ = qQ1_.DeQue<half>();
    }
    LocalTensor<half> k1 = qB1_.AllocTensor<half>();
    CopyNd2Nz(k1, kGm_[uint64_t{sch_.KvRow(w, j)} * kHeadDim], kBlockKv, kHeadDim, kHeadDim);
    qB1_.EnQue(k1);
    k1 = qB1_.DeQue<half>();
    // L0A: Q as Zz, row of fractals i gathers the D / 16 fractals (i, 0..3), 8 apart in L1.
    LocalTensor<half> a2 = qA2_.AllocTensor<half>();
    for (uint32_t i = 0; i < kTileQ / kFrac; ++i) {
      LoadData2DParams p;
      p.startIndex = i;
      p.repeatTimes = kHeadDim / kFrac;
      p.srcStride = kTileQ / kFrac;
      LoadData(a2[i * kHeadDim * kFrac], q1_, p);
    }
    // L0B: K^T (D x 128) as Zn. K's Nz fractals (n1, k1) are already in Zn order (k1-major,
    // each fractal n-major), so one untransposed load copies all 32.
    LocalTensor<half> b2 = qB2_.AllocTensor<half>();
    LoadData2DParams p;
    p.repeatTimes = (kHeadDim / kFrac) * (kBlockKv / kFrac);
    p.srcStride = 1;
    LoadData(b2, k1, p);
    qB1_.FreeTensor(k1);
    if (j + 1 == sch_.Blocks()) qQ1_.FreeTensor(q1_);
    qA2_.EnQue(a2);
    qB2_.EnQue(b2);
    Multiply(kTileQ, kBlockKv, kHeadDim);
    LocalTensor<float> c = qC_.DeQue<float>();
    FixpipeParamsV220 f;
    f.nSize = kBlockKv;
    f.mSize = kTileQ;
    f.srcStride = kTileQ;
    f.dstStride = kBlockKv;
    Fixpipe<float, float, CFG_ROW_MAJOR>(sGm_[(g % kSlots) * kTileQ * kBlockKv], c, f);
    qC_.FreeTensor(c);
    CrossCoreSetFlag<2, PIPE_FIX>(kScoresReady);
  }

  // O_g = P_g V_j (128 x 64, K = 128 keys) into slot g % kSlots.
  __aicore__ inline void Output(uint32_t g) {
    const uint32_t w = sch_.Item(g), j = sch_.Kv(g), slot = g % kSlots;
    LocalTensor<half> p1 = qA1_.AllocTensor<half>();
    CopyNd2Nz(p1, pGm_[slot * kTileQ * kBlockKv], kTileQ, kBlockKv, kBlockKv);
    qA1_.EnQue(p1);
    LocalTensor<half> v1 = qB1_.AllocTensor<half>();
    CopyNd2Nz(v1, vGm_[uint64_t{sch_.KvRow(w, j)} * kHeadDim], kBlockKv, kHeadDim, kHeadDim);
    qB1_.EnQue(v1);
    p1 = qA1_.DeQue<half>();
    v1 = qB1_.DeQue<half>();
    LocalTensor<half> a2 = qA2_.AllocTensor<half>();
    for (uint32_t i = 0; i < kTileQ / kFrac; ++i) {
      LoadData2DParams p;
      p.startIndex = i;
      p.repeatTimes = kBlockKv / kFrac;
      p.srcStride = kTileQ / kFrac;
      LoadData(a2[i * kBlockKv * kFrac], p1, p);
    }
    // L0B: V (128 keys x 64) as Zn: row of fractals i gathers fractals (i, 0..3), each
    // transposed; they are 8 (= 128 / 16) apart in V's Nz layout.
    LocalTensor<half> b2 = qB2_.AllocTensor<half>();
    for (uint32_t i = 0; i < kBlockKv / kFrac; ++i) {
      LoadData2DParams p;
      p.startIndex = i;
      p.repeatTimes = kHeadDim / kFrac;
      p.srcStride = kBlockKv / kFrac;
      p.ifTranspose = true;
      LoadData(b2[i * kHeadDim * kFrac], v1, p);
    }
    qA1_.FreeTensor(p1);
    qB1_.FreeTensor(v1);
    qA2_.EnQue(a2);
    qB2_.EnQue(b2);
    Multiply(kTileQ, kHeadDim, kBlockKv);
    LocalTensor<float> c = qC_.DeQue<float>();
    if (g >= kSlots) CrossCoreWaitFlag<2, PIPE_FIX>(kOutFree);  // the AIVs read O_{g - kSlots}
    FixpipeParamsV220 f;
    f.nSize = kHeadDim;
    f.mSize = kTileQ;
    f.srcStride = kTileQ;
    f.dstStride = kHeadDim;
    Fixpipe<float, float, CFG_ROW_MAJOR>(oGm_[slot * kTileQ * kHeadDim], c, f);
    qC_.FreeTensor(c);
    CrossCoreSetFlag<2, PIPE_FIX>(kOutReady);
  }

  // L0A x L0B -> a new L0C tile, enqueued.
  __aicore__ inline void Multiply(uint32_t m, uint32_t n, uint32_t k) {
    LocalTensor<half> a2 = qA2_.DeQue<half>();
    LocalTensor<half> b2 = qB2_.DeQue<half>();
    LocalTensor<float> c = qC_.AllocTensor<float>();
    MmadParams p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.cmatrixInitVal = true;
    Mmad(c, a2, b2, p);
    qA2_.FreeTensor(a2);
    qB2_.FreeTensor(b2);
    qC_.EnQue(c);
  }

  // GM (rows x cols, row pitch `pitch` elements, ND) -> L1 (Nz, 16-column blocks of `rows` rows).
  __aicore__ inline void CopyNd2Nz(const LocalTensor<half>& dst, const GlobalTensor<half>& src,
                                   uint32_t rows, uint32_t cols, uint32_t pitch) {
    Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = rows;
    p.dValue = cols;
    p.srcDValue = pitch;
    p.dstNzC0Stride = rows;
    p.dstNzNStride = 1;
    DataCopy(dst, src, p);
  }

  Schedule sch_{};
  TPipe pipe_;
  TQue<QuePosition::A1, 1> qQ1_;
  TQue<QuePosition::A1, kDepth> qA1_;
  TQue<QuePosition::B1, kDepth> qB1_;
  TQue<QuePosition::A2, kDepth> qA2_;
  TQue<QuePosition::B2, kDepth> qB2_;
  TQue<QuePosition::CO1, kDepth> qC_;
  LocalTensor<half> q1_;  // the current work item's query tile in L1
  GlobalTensor<half> qGm_, kGm_, vGm_, pGm_;
  GlobalTensor<float> sGm_, oGm_;
};

// The vector side: this AIV's 64 rows of each block. Softmax(g): S_g -> online softmax -> P_g;
// Accumulate(g): acc = acc * exp(m_old - m_new) + O_g, and after an item's last block
// O = acc / l in fp16. Every vector instruction covers all 64 rows (one repeat or two per row);
// per-row statistics are kept as one 32-byte block per row (8 equal floats), which a level-0
// instruction broadcasts over its row with source block stride 0.
class VectorSide {
 public:
  __aicore__ inline void Init(GM_ADDR o, GM_ADDR ws, const AttentionTiling& t) {
    sch_ = {t.heads, t.seq};
    scale_ = t.scale;
    row0_ = GetSubBlockIdx() * kRowsAiv;
    oGm_.SetGlobalBuffer((__gm__ half*)o, uint64_t{t.heads} * t.seq * kHeadDim);
    sGm_.SetGlobalBuffer((__gm__ float*)ws, kSlots * kTileQ * kBlockKv);
    pGm_.SetGlobalBuffer((__gm__ half*)(ws + kSlots * kScoreBytes), kSlots * kTileQ * kBlockKv);
    owGm_.SetGlobalBuffer((__gm__ float*)(ws + kSlots * (kScoreBytes + kProbBytes)),
                          kSlots * kTileQ * kHeadDim);
    pipe_.InitBuffer(qS_, kDepth, kRowsAiv * kBlockKv * sizeof(float));
    pipe_.InitBuffer(qP_, kDepth, kRowsAiv * kBlockKv * sizeof(half));
    pipe_.InitBuffer(qO_, kDepth, kRowsAiv * kHeadDim * sizeof(float));
    pipe_.InitBuffer(qOut_, 1, kRowsAiv * kHeadDim * sizeof(half));
    pipe_.InitBuffer(accBuf_, kRowsAiv * kHeadDim * sizeof(float));
    pipe_.InitBuffer(foldBuf_, kRowsAiv * 64 * sizeof(float));
    pipe_.InitBuffer(rowBuf_, kRowsAiv * sizeof(float) + 2 * kRowsAiv * 32);
    // Per row one 32-byte block each: running max, running sum, exp(m_old - m_new).
    pipe_.InitBuffer(stateBuf_, 3 * kRowsAiv * 32);
  }

  __aicore__ inline void Process() {
    for (uint32_t g = 0; g < sch_.Total(); ++g) {
      Softmax(g);
      Accumulate(g);
    }
  }

 private:
  __aicore__ inline LocalTensor<float> State(uint32_t i) {
    return stateBuf_.Get<float>()[i * kRowsAiv * 8];
  }
  __aicore__ inline LocalTensor<float> MaxOf(uint32_t) { return State(0); }
  __aicore__ inline LocalTensor<float> SumOf(uint32_t) { return State(1); }
  __aicore__ inline LocalTensor<float> ExpMaxOf(uint32_t) { return State(2); }

  // Both AIVs are done with the block before either signals the AIC, so the AIC's count is one
  // per block whether a mode-2 set from the AIVs counts per AIV or per pair.
  template <pipe_t kPipe>
  __aicore__ inline void SignalAic(uint16_t flag) {
    CrossCoreSetFlag<1, kPipe>(kPairMet);
    CrossCoreWaitFlag<1, kPipe>(kPairMet);
    CrossCoreSetFlag<2, kPipe>(flag);
  }

  __aicore__ inline void Softmax(uint32_t g) {
    const uint32_t w = sch_.Item(g), slot = g % kSlots;
    constexpr uint32_t n = kRowsAiv * kBlockKv;
    constexpr uint32_t stat = kRowsAiv * 8;  // floats of a per-row block statistic
    CrossCoreWaitFlag<2, PIPE_MTE2>(kScoresReady);
    LocalTensor<float> s = qS_.AllocTensor<float>();
    DataCopy(s, sGm_[slot * kTileQ * kBlockKv + row0_ * kBlockKv], n);
    qS_.EnQue(s);
    s = qS_.DeQue<float>();
    LocalTensor<float> fold = foldBuf_.Get<float>();  // [64 rows, 64]
    LocalTensor<float> red = rowBuf_.Get<float>();    // 64 row values
    LocalTensor<float> rowMax = red[kRowsAiv];        // [64, 8] blocks
    LocalTensor<float> rowSum = rowMax[stat];
    LocalTensor<float> max = MaxOf(w), sum = SumOf(w), expMax = ExpMaxOf(g);
    const bool first = sch_.Kv(g) == 0;
    // Rows of 128 floats are 16 blocks apart; the two 64-column halves of a row fold into one
    // repeat of `fold`, then one reduction per row.
    const BinaryRepeatParams halves(1, 1, 1, 8, 16, 16);
    const BinaryRepeatParams perRow(1, 1, 0, 16, 16, 1);
    Muls(s, s, scale_, n);
    Max(fold, s, s[64], 64, kRowsAiv, halves);
    WholeReduceMax(red, fold, 64, kRowsAiv, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    Brcb(first ? max : rowMax, red, kRowsAiv / 8, BrcbRepeatParams(1, 8));
    if (!first) {  // m_new = max(m_old, rowmax), expMax = exp(m_old - m_new)
      Max(rowMax, rowMax, max, stat);
      Sub(expMax, max, rowMax, stat);
      Exp(expMax, expMax, stat);
      DataCopy(max, rowMax, stat);
    }
    Sub(s, s, max, 64, kRowsAiv, perRow);
    Sub(s[64], s[64], max, 64, kRowsAiv, perRow);
    Exp(s, s, n);
    Add(fold, s, s[64], 64, kRowsAiv, halves);
    WholeReduceSum(red, fold, 64, kRowsAiv, 1, 1, 8);
    Brcb(first ? sum : rowSum, red, kRowsAiv / 8, BrcbRepeatParams(1, 8));
    if (!first) {  // l = l * expMax + rowsum
      Mul(sum, sum, expMax, stat);
      Add(sum, sum, rowSum, stat);
    }
    LocalTensor<half> p = qP_.AllocTensor<half>();
    Cast(p, s, RoundMode::CAST_RINT, n);
    qS_.FreeTensor(s);
    qP_.EnQue(p);
    p = qP_.DeQue<half>();
    DataCopy(pGm_[slot * kTileQ * kBlockKv + row0_ * kBlockKv], p, n);
    qP_.FreeTensor(p);
    SignalAic<PIPE_MTE3>(kProbsReady);
  }

  __aicore__ inline void Accumulate(uint32_t g) {
    const uint32_t w = sch_.Item(g), j = sch_.Kv(g);
    constexpr uint32_t n = kRowsAiv * kHeadDim;
    CrossCoreWaitFlag<2, PIPE_MTE2>(kOutReady);
    LocalTensor<float> o = qO_.AllocTensor<float>();
    DataCopy(o, owGm_[(g % kSlots) * kTileQ * kHeadDim + row0_ * kHeadDim], n);
    qO_.EnQue(o);
    o = qO_.DeQue<float>();
    SignalAic<PIPE_V>(kOutFree);
    LocalTensor<float> acc = accBuf_.Get<float>();
    // A row of D = 64 floats is one repeat; the row's factor is one 32-byte block, broadcast
    // over the repeat's 8 blocks (src1 block stride 0, one block per repeat).
    const BinaryRepeatParams perRow(1, 1, 0, 8, 8, 1);
    if (j == 0) {
      DataCopy(acc, o, n);
    } else {
      Mul(acc, acc, ExpMaxOf(g), kHeadDim, kRowsAiv, perRow);
      Add(acc, acc, o, n);
    }
    qO_.FreeTensor(o);
    if (j + 1 == sch_.Blocks()) {
      Div(acc, acc, SumOf(w), kHeadDim, kRowsAiv, perRow);
      LocalTensor<half> out = qOut_.AllocTensor<half>();
      Cast(out, acc, RoundMode::CAST_RINT, n);
      qOut_.EnQue(out);
      out = qOut_.DeQue<half>();
      DataCopy(oGm_[uint64_t{sch_.QRow(w) + row0_} * kHeadDim], out, n);
      qOut_.FreeTensor(out);
    }
  }

  Schedule sch_{};
  float scale_ = 0;
  uint32_t row0_ = 0;  // this AIV's first row of the query tile
  TPipe pipe_;
  TQue<QuePosition::VECIN, kDepth> qS_;
  TQue<QuePosition::VECOUT, kDepth> qP_;
  TQue<QuePosition::VECIN, kDepth> qO_;
  TQue<QuePosition::VECOUT, 1> qOut_;
  TBuf<QuePosition::VECCALC> accBuf_, foldBuf_, rowBuf_, stateBuf_;
  GlobalTensor<half> oGm_, pGm_;
  GlobalTensor<float> sGm_, owGm_;
};

extern "C" __global__ __aicore__ void attention_stage2(GM_ADDR q, GM_ADDR k, GM_ADDR v,
                                                       GM_ADDR o, GM_ADDR workspace,
                                                       GM_ADDR tiling) {
  const AttentionTiling t = *reinterpret_cast<const AttentionTiling*>(tiling);
  if ASCEND_IS_AIC {
    CubeSide op;
    op.Init(q, k, v, workspace, t);
    op.Process();
  } else {
    VectorSide op;
    op.Init(o, workspace, t);
    op.Process();
  }
}

// ---- host side (the same in every stage but the launch) ----
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tikicpulib.h"

namespace {
constexpr uint32_t kGroups = 1;  // one AI Core: 1 AIC + 2 AIVs

// Inputs in [-2, 2): scores of a few units, so the softmax is far from flat.
half Input(size_t i, uint32_t salt) {
  return half(static_cast<float>((i * 2654435761u + salt * 40503u) % 4096) / 1024.0f - 2.0f);
}

// Counts outputs differing from softmax(Q K^T / sqrt(D)) V in double by more than the fp16
// tolerance, printing the first.
size_t Check(const half* q16, const half* k16, const half* v16, const half* o, uint32_t heads,
             uint32_t seq, float scale) {
  const size_t elems = size_t{heads} * seq * kHeadDim;
  std::vector<double> q(elems), k(elems), v(elems), p(seq);
  for (size_t i = 0; i < elems; ++i) {
    q[i] = float(q16[i]);
    k[i] = float(k16[i]);
    v[i] = float(v16[i]);
  }
  size_t bad = 0;
  for (uint32_t h = 0; h < heads; ++h) {
    const size_t base = size_t{h} * seq * kHeadDim;
    for (uint32_t i = 0; i < seq; ++i) {
      const double* qi = &q[base + size_t{i} * kHeadDim];
      double mx = -INFINITY;
      for (uint32_t j = 0; j < seq; ++j) {
        const double* kj = &k[base + size_t{j} * kHeadDim];
        double dot = 0;
        for (uint32_t d = 0; d < kHeadDim; ++d) dot += qi[d] * kj[d];
        p[j] = dot * scale;
        mx = std::fmax(mx, p[j]);
      }
      double sum = 0;
      for (uint32_t j = 0; j < seq; ++j) sum += p[j] = std::exp(p[j] - mx);
      for (uint32_t d = 0; d < kHeadDim; ++d) {
        double want = 0;
        for (uint32_t j = 0; j < seq; ++j) want += p[j] * v[base + size_t{j} * kHeadDim + d];
        want /= sum;
        const float got = float(o[base + size_t{i} * kHeadDim + d]);
        if (!(std::fabs(got - want) <= 2e-3 + 1e-2 * std::fabs(want)) && bad++ == 0) {
          std::printf("first mismatch: O[%u][%u][%u] = %g, want %g\n", h, i, d, got, want);
        }
      }
    }
  }
  return bad;
}
}  // namespace

int main(int argc, char** argv) {
  const uint32_t heads = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 12;
  const uint32_t seq = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 512;
  if (heads == 0 || seq == 0 || seq % kTileQ) {
    std::fprintf(stderr, "usage: %s [heads [seq]]: seq a positive multiple of %u\n", argv[0],
                 kTileQ);
    return 2;
  }
  const size_t elems = size_t{heads} * seq * kHeadDim;
  auto* q = static_cast<half*>(AscendC::GmAlloc(elems * sizeof(half)));
  auto* k = static_cast<half*>(AscendC::GmAlloc(elems * sizeof(half)));
  auto* v = static_cast<half*>(AscendC::GmAlloc(elems * sizeof(half)));
  auto* o = static_cast<half*>(AscendC::GmAlloc(elems * sizeof(half)));
  auto* ws = static_cast<uint8_t*>(AscendC::GmAlloc(size_t{kGroups} * kSlots * kSlotBytes));
  for (size_t i = 0; i < elems; ++i) {
    q[i] = Input(i, 1);
    k[i] = Input(i, 2);
    v[i] = Input(i, 3);
  }
  AttentionTiling host{};
  host.heads = heads;
  host.seq = seq;
  host.scale = 1.0f / std::sqrt(float(kHeadDim));
  auto* tiling = static_cast<AttentionTiling*>(AscendC::GmAlloc(sizeof(AttentionTiling)));
  *tiling = host;
  AscendC::SetKernelMode(KernelMode::MIX_MODE);
  const auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(attention_stage2, kGroups, (uint8_t*)q, (uint8_t*)k, (uint8_t*)v, (uint8_t*)o,
              ws, (uint8_t*)tiling);
  const auto t1 = std::chrono::steady_clock::now();
  const size_t bad = Check(q, k, v, o, heads, seq, host.scale);
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("attention_stage2_fused: groups=%u heads=%u seq=%u d=%u check=%s "
              "host_time=%.3f ms\n",
              kGroups, heads, seq, kHeadDim, bad == 0 ? "pass" : "FAIL", ms);
  AscendC::GmFree(q);
  AscendC::GmFree(k);
  AscendC::GmFree(v);
  AscendC::GmFree(o);
  AscendC::GmFree(ws);
  AscendC::GmFree(tiling);
  return bad == 0 ? 0 : 1;
}
