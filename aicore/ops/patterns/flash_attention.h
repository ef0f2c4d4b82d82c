// FlashAttention<Hooks>: the mix kernels (split chips: 1 AIC + 2 AIVs per group) of fused
// attention, forward and backward, over (B, N, S, D) operands with any B/N/S strides and a unit D
// stride: the forward's Q, K, V and output in the element type T (float, half, bfloat16_t; the
// cube accumulates in fp32, the softmax and its statistics are fp32, P is rounded to T in UB
// before P V), likewise the backward's (P and dS rounded to T before their products, the
// gradients accumulated in fp32). Peak memory beyond the operands is a few tiles per group,
// never S x S.
// - Work items are (batch, q head, q tile of `tq` rows) for the forward and the dQ pass, and
//   (batch, kv head, kv block of `tk` rows) for the dK/dV pass; they go round-robin over groups.
//   The AIC and both AIVs of a group walk the same items and the same live kv blocks.
// - The AIC runs every product with one Matmul object (GM operands, GM results in the group's
//   workspace slots; the forward uses two, Note [Forward Matmuls]): S = Q K^T, then, once the
//   AIVs have turned S into P, P V; the forward triple-buffers its slots so the AIC runs two
//   blocks ahead (Note [Forward slots]). The AIVs split the tile's rows in two halves; each keeps
//   its rows' output accumulator in UB and the running max m and sum l of the online softmax
//   (scale, the Hooks' score mask, the row's window, exp, rescale of the accumulator by
//   exp(m_old - m_new)).
// - Blocks no row of a tile can see (causal / band windows) are skipped on all three cores.
// - Cross-core flags (mode 2) order the slots: AIC -> AIVs "scores ready" and "product ready",
//   AIVs -> AIC "probabilities ready". Each slot is rewritten only after the other side's flag
//   says it has been read (Note [Forward slots] and Note [Backward slots] for the two-slot
//   protocols).
// - Backward (FlashAttention-2): the AIVs recompute P = exp(S - m) / l from the forward's
//   statistics and dS = P * (dP - rowsum(dO * O)) with dP = dO V^T from the AIC; the dK/dV pass
//   accumulates P^T dO and scale * dS^T Q per kv block, the dQ pass scale * dS K per q tile, each
//   in the AIVs' UB.
// See Note [Masked scores] for fully masked rows.
//
// Note [Row-vector softmax]
// The forward's AIVs keep the online softmax's per-row state (m, l, the block's max and sum,
// alpha) as vectors in UB, never on the scalar pipe, and do each step for all of a tile's rows
// in one instruction per 64 columns: a row op is a level-0 instruction with one repeat per row
// (repeat stride = the row pitch), a per-row value enters it as a broadcast operand (Brcb gives
// each row one DataBlock; source block stride 0). Row maxima and sums fold the 64-column chunks
// with Max/Add, then BlockReduce twice (64 -> 8 -> 1 per row). So a block costs about fifteen
// vector instructions whatever the row count, instead of a few per row: with per-row forms the
// instruction heads (about 20 cycles each) made the vector pipe, not the cube, bind. Columns a
// row may not see (windows, a block's tail) become kFaMaskedScore first (Note [Masked scores]),
// so every row takes the same path. The scalar pipe reads m and l once per item, to write 1 / l
// and the statistics. The S buffer is released right after P = S - m (an event), so the next
// block's S loads while the vector pipe finishes this one (after the pending product's P V on
// MTE2, the order the AIC computes them in).
//
// A Hooks type provides the score mask applied after scaling:
//   static constexpr bool kExplicitMask;  // true: read t.mask (uint8, 1 = masked out)
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "aicore/kernel/lib/matmul/matmul.h"
#include "aicore/ops/patterns/ub_cast.h"

namespace aicore::ops::patterns {

// Note [Masked scores]
// A masked score becomes kFaMaskedScore, a finite value below any real score, so exp(score - m)
// is exactly 0 once the row has seen one real score. While a row has seen only masked scores
// its running max is kFaMaskedScore and their probabilities are 1; the first real score
// rescales them by exp(kFaMaskedScore - m) = 0. A row whose max is still kFaMaskedScore (or that
// no block reached) at the end is fully masked: its output is 0, softmaxMax is -inf and
// softmaxSum 0, and the backward gives it zero gradients.
inline constexpr float kFaMaskedScore = -3.0e38f;
// A window offset that bounds nothing.
inline constexpr int64_t kFaUnbounded = int64_t{1} << 40;
// The statistics' trailing dim ([B, N, Sq, 8]: the value replicated 8 times, one DataBlock).
inline constexpr int64_t kFaStatWidth = 8;

// A (B, N, S, D) operand of the kernel's element type (the forward's Q, K, V and O: the input
// dtype; everything else fp32): element (b, n, s, d) at data[b * sb + n * sn + s * ss + d].
struct FaOperand {
  void* data = nullptr;
  int64_t sb = 0, sn = 0, ss = 0;
  uint64_t span = 0;  // elements from data the operand covers
  int64_t Offset(int64_t b, int64_t n, int64_t s) const { return b * sb + n * sn + s * ss; }
};

struct FlashAttentionTiling {
  FaOperand q, k, v, o;  // o: the attention output (forward) or the forward's (backward)
  FaOperand dout, grad_q, grad_k, grad_v;  // backward only
  float* softmax_max = nullptr;            // (B, Nq, Sq, 8)
  float* softmax_sum = nullptr;
  const uint8_t* mask = nullptr;  // Hooks::kExplicitMask: (b, n, i, j) at b*sb + n*sn + i*ss + j
  int64_t mask_sb = 0, mask_sn = 0, mask_ss = 0;
  uint64_t mask_span = 0;
  int64_t batch = 0, nq = 0, nkv = 0, sq = 0, skv = 0, d = 0, dv = 0;
  float scale = 1;
  // Row i sees columns j in [i + lo_off, i + hi_off] intersected with [0, skv).
  int64_t lo_off = -kFaUnbounded, hi_off = kFaUnbounded;
  int32_t tq = 0;       // q rows per tile: even, a multiple of 16
  int32_t tk = 0;       // kv rows per block: a multiple of 32
  int32_t slots = 1;    // slot sets per group, 1 or 2 (Note [Forward slots], [Backward slots])
  // Backward: the most q tiles (dK/dV pass), resp. kv blocks (dQ pass), one product chunk
  // covers (Note [Backward chunks]).
  int32_t chunk_q = 1, chunk_k = 1;
  float* ws = nullptr;  // groups x ws_group_floats
  int64_t ws_group_floats = 0;
  AscendC::tiling::TCubeTiling mm{};  // covers every product of the kernel (SetTail per product)
  AscendC::tiling::TCubeTiling mm_pv{};  // forward: P V; mm then the score products

  int64_t Lo(int64_t i) const { return std::max<int64_t>(0, i + lo_off); }
  int64_t Hi(int64_t i) const { return std::min<int64_t>(skv - 1, i + hi_off); }
  int64_t DPad() const { return (d + 7) / 8 * 8; }
  int64_t DvPad() const { return (dv + 7) / 8 * 8; }
  int64_t QTiles() const { return (sq + tq - 1) / tq; }
  int64_t KvBlocks() const { return (skv + tk - 1) / tk; }
  // True when a row of [q0, q1) sees a column of [k0, k1).
  bool BlockLive(int64_t q0, int64_t q1, int64_t k0, int64_t k1) const {
    for (int64_t i = q0; i < q1; ++i) {
      const int64_t lo = std::max(Lo(i), k0), hi = std::min(Hi(i), k1 - 1);
      if (lo <= hi) return true;
    }
    return false;
  }
};

// The workspace floats one group needs: forward `slots` S (fp32), P (`p_bytes` per element: the
// input dtype's) and P V (fp32) slots; backward `slots` sets of S, dP (fp32), P and dS chunks
// of `chunk` pairs (`in_bytes` per element) and two fp32 products (Note [Backward slots]).
inline int64_t FaForwardGroupFloats(int64_t tq, int64_t tk, int64_t dv_pad, int32_t slots,
                                    int64_t p_bytes) {
  return slots * (tq * tk + tq * tk * p_bytes / 4 + tq * dv_pad);
}
inline int64_t FaBackwardGroupFloats(int64_t tq, int64_t tk, int64_t d_pad, int64_t dv_pad,
                                     int32_t slots, int64_t in_bytes, int64_t chunk = 1) {
  return slots * (2 * tq * tk + 2 * chunk * tq * tk * in_bytes / 4 +
                  2 * std::max(tq, tk) * std::max(d_pad, dv_pad));
}

// The UB row pitch of the forward's output accumulator: D padded to whole 32-byte blocks of the
// output dtype (`out_bytes` per element) and of fp32.
inline int64_t FaOutPitch(int64_t dv, int64_t out_bytes) {
  const int64_t unit = out_bytes == 2 ? 16 : 8;
  return (dv + unit - 1) / unit * unit;
}

// The UB bytes of the AIVs: per forward row (scores, probabilities, their running sums, with
// `mask` the mask's three forms, the accumulator and the product, for 16-bit inputs
// (`in_bytes` 2) P and the output in that dtype, statistics); of a backward AIV (S, P, dS and,
// with `mask`, the mask per q row, two accumulators and a product per accumulated row, for
// 16-bit inputs P, dS and one row buffer in that dtype, statistics, reduction scratch).
inline int64_t FaForwardRowBytes(int64_t tk, int64_t dv, bool mask, int64_t in_bytes) {
  const int64_t op = FaOutPitch(dv, in_bytes);
  // 16-bit: P and the output in T (the row sums then fold P in place); fp32: a 64-float row of
  // sum scratch. 73 floats of row values (Note [Row-vector softmax]).
  const int64_t narrow = in_bytes == 2 ? 2 * tk + 2 * op : 64 * 4;
  return (mask ? 15 : 8) * tk + 8 * op + narrow + 73 * 4;
}
inline int64_t FaBackwardBytes(int64_t tq, int64_t tk, int64_t d, int64_t dv, bool mask,
                               int64_t in_bytes) {
  const int64_t rq = tq / 2, acc_rows = std::max(rq, (tk + 1) / 2);
  const int64_t ap = (std::max(d, dv) + 15) / 16 * 16;  // FaBackwardPitch
  const int64_t narrow = in_bytes == 2 ? 4 * rq * tk + 2 * acc_rows * ap : 0;
  return rq * (mask ? 19 : 12) * tk + 3 * acc_rows * ap * 4 + narrow + 3 * 64 * 8 * 4 +
         (8 + 2 * (std::max(tk, ap) + 63) / 64 + 16) * 4;
}

namespace fa_detail {

using AscendC::LocalTensor;

// Cross-core flag ids (mode 2) of the kernels.
inline constexpr uint16_t kScoresReady = 1;   // AIC -> AIVs: S (and dP) are in their slots
inline constexpr uint16_t kProbsReady = 2;    // AIVs -> AIC: P (and dS) are in their slots
inline constexpr uint16_t kProductReady = 3;  // AIC -> AIVs: the product slot holds a result
inline constexpr uint16_t kRowsStored = 4;    // AIV <-> AIV (mode 1): both halves of P are stored

template <AscendC::HardEvent kEvent>
inline void Sync() {
  AscendC::SetFlag<kEvent>(EVENT_ID0);
  AscendC::WaitFlag<kEvent>(EVENT_ID0);
}

inline uint32_t Up32(uint64_t bytes) { return static_cast<uint32_t>((bytes + 31) / 32 * 32); }

// Copies `rows` rows of `cols` elements, `src_pitch` apart in GM, to UB rows `ub_pitch` apart
// (ub_pitch * sizeof(T) a multiple of 32).
template <class T>
inline void LoadRows(const LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, int64_t rows,
                     int64_t cols, int64_t src_pitch, int64_t ub_pitch) {
  using namespace AscendC;
  constexpr int64_t kSize = sizeof(T);
  const uint32_t len = static_cast<uint32_t>(cols * kSize);
  const bool one = rows == 1;  // a single row has no strides
  DataCopyExtParams p(static_cast<uint16_t>(rows), len,
                      one ? 0 : static_cast<uint32_t>((src_pitch - cols) * kSize),
                      one ? 0 : static_cast<uint32_t>((ub_pitch * kSize - Up32(len)) / 32), 0);
  DataCopyPad(dst, src, p, DataCopyPadExtParams<T>(false, 0, 0, T(0.0f)));
}

// Copies `rows` UB rows (`ub_pitch` apart) of `cols` elements to GM rows `dst_pitch` apart.
template <class T>
inline void StoreRows(const AscendC::GlobalTensor<T>& dst, const LocalTensor<T>& src,
                      int64_t rows, int64_t cols, int64_t ub_pitch, int64_t dst_pitch) {
  using namespace AscendC;
  constexpr int64_t kSize = sizeof(T);
  const uint32_t len = static_cast<uint32_t>(cols * kSize);
  const bool one = rows == 1;  // a single row has no strides
  DataCopyExtParams p(static_cast<uint16_t>(rows), len,
                      one ? 0 : static_cast<uint32_t>((ub_pitch * kSize - Up32(len)) / 32),
                      one ? 0 : static_cast<uint32_t>((dst_pitch - cols) * kSize), 0);
  DataCopyPad(dst, src, p);
}

template <class T = float>
inline AscendC::GlobalTensor<T> Gm(void* p, uint64_t span) {
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer(static_cast<T*>(p), span);
  return g;
}

// One product of the AIC: C (m x n, row pitch ldc) = A (m x k) * B (k x n). A is row-major with
// pitch lda, or (a_trans) stored k x m with pitch lda; B is row-major with pitch ldb, or
// (b_trans) stored n x k with pitch ldb.
template <class MM, class TA>
inline void Product(MM& mm, const AscendC::GlobalTensor<float>& c, int64_t ldc,
                    const AscendC::GlobalTensor<TA>& a, bool a_trans, int64_t lda,
                    const AscendC::GlobalTensor<TA>& b, bool b_trans, int64_t ldb, int64_t m,
                    int64_t n, int64_t k) {
  const int org_m = static_cast<int>(a_trans ? lda : m);
  const int org_ka = static_cast<int>(a_trans ? k : lda);
  const int org_kb = static_cast<int>(b_trans ? ldb : k);
  const int org_n = static_cast<int>(b_trans ? n : ldb);
  mm.SetOrgShape(org_m, org_n, org_ka, org_kb, static_cast<int>(ldc));
  mm.SetTail(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
  mm.SetTensorA(a, a_trans);
  mm.SetTensorB(b, b_trans);
  mm.IterateAll(c);
  mm.End();
}

// The AIV's share of a tile of `rows` rows: [first, first + count).
struct RowShare {
  int64_t first = 0, count = 0;
};
inline RowShare ShareOf(int64_t rows) {
  const int64_t half = (rows + 1) / 2;
  if (AscendC::GetSubBlockIdx() == 0) return {0, half};
  return {half, rows - half};
}

// The vector buffers of the score side of a tile: scores (or P), a second tile (dP in the
// backward), the mask in its three forms, reduction scratch.
struct ScoreBuffers {
  LocalTensor<float> s, p, mask_f, result, reduce_tmp;
  LocalTensor<half> mask_h;
  LocalTensor<uint8_t> mask_raw;
};

// Scales the `count` loaded rows of S (rows tk apart) and applies the Hooks' mask for the rows
// starting at q row i0 and kv column k0 of head (b, n). Leaves S in sb.s.
template <class Hooks>
inline void ScaleAndMask(const FlashAttentionTiling& t, const ScoreBuffers& sb, int64_t b,
                         int64_t n, int64_t i0, int64_t k0, int64_t count, int64_t bk) {
  using namespace AscendC;
  const int32_t n_all = static_cast<int32_t>(count * t.tk);
  Muls(sb.s, sb.s, t.scale, n_all);
  if constexpr (Hooks::kExplicitMask) {
    GlobalTensor<uint8_t> gm_mask;  // (Bm, Nm, Sq, Skv)
    gm_mask.SetGlobalBuffer(const_cast<uint8_t*>(t.mask), t.mask_span);
    DataCopyExtParams p(static_cast<uint16_t>(count), static_cast<uint32_t>(bk),
                        static_cast<uint32_t>(t.mask_ss - bk),
                        static_cast<uint32_t>((t.tk - Up32(bk)) / 32), 0);
    Sync<HardEvent::V_MTE2>();
    DataCopyPad(sb.mask_raw, gm_mask[b * t.mask_sb + n * t.mask_sn + i0 * t.mask_ss + k0], p,
                DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
    Sync<HardEvent::MTE2_V>();
    Cast(sb.mask_h, sb.mask_raw, RoundMode::CAST_NONE, n_all);
    Cast(sb.mask_f, sb.mask_h, RoundMode::CAST_NONE, n_all);
    Mins(sb.mask_f, sb.mask_f, 1.0f, n_all);
    // s = s * (1 - mask) + mask * kFaMaskedScore, exact for unmasked scores.
    Mul(sb.p, sb.s, sb.mask_f, n_all);
    Sub(sb.s, sb.s, sb.p, n_all);
    Muls(sb.p, sb.mask_f, kFaMaskedScore, n_all);
    Add(sb.s, sb.s, sb.p, n_all);
  }
}

// Row r's columns [lo, hi] of a block starting at column k0 that the window lets row i see;
// false when none.
inline bool RowWindow(const FlashAttentionTiling& t, int64_t i, int64_t k0, int64_t bk, int64_t* lo,
                      int64_t* hi) {
  *lo = std::max<int64_t>(t.Lo(i) - k0, 0);
  *hi = std::min<int64_t>(t.Hi(i) - k0, bk - 1);
  return *lo <= *hi;
}

}  // namespace fa_detail

// ---- forward ----

// The forward's most slot sets per group (Note [Forward slots]).
inline constexpr int32_t kFaForwardMaxSlots = 3;

// Note [Forward slots]
// The forward's group workspace holds `slots` (1 to 3) S, P and P V slots; block g of a group
// (counting every live block of every item in order, g = 0, 1, ...) uses slot g % slots of each.
// The AIC keeps slots - 1 score products ahead: it computes S_g, then P_{g-slots+1} V, so with
// two slots it multiplies Q K_{g+1}^T and P_{g-1} V while the AIVs turn S_g into P_g; with three
// (the default) Q K_{g+1}^T, P_{g-1} V and Q K_{g+2}^T, so the AIC's latency from a block's P
// through its product to the next scores hides behind two blocks of softmax. The AIVs
// likewise accumulate P_{g-slots+1} V after storing P_g (a per-block rescale factor alpha waits
// for it: O = alpha * O + P V). Flags count blocks in order on both sides, so "the k-th wait on a
// flag" means block k's, and every slot is rewritten only after the reader released it:
// - S slot s: the AIC writes S_g after it waited "probabilities ready" of block g - slots (the
//   AIVs set it once they have read S_{g-slots} and written P_{g-slots}).
// - P slot s: the AIVs write P_g after they waited "product ready" of block g - slots, which the
//   AIC sets once its product has read P_{g-slots}.
// - P V slot s: the AIC writes P_g V after "probabilities ready" of block g, which the AIVs set
//   only once they have loaded (accumulated) block g - slots's product.
// The AIVs drain at the end of each item (the output needs every product); the AIC does not:
// it computes the next item's first score tile before the previous item's last product.
// Mode 2 from the AIVs may count arrivals per group rather than per AIV (an AIV one block ahead
// of its partner would complete the pair alone); with two slots or more an AIV can get that far
// ahead, so before "probabilities ready" the two AIVs meet at a mode-1 flag (kRowsStored), as Note
// [Epilogue slot handoff] does: the sets the AIC counts are then one per AIV for the same block,
// which is correct whether the hardware counts arrivals per group or waits for each AIV. With one
// slot an AIV cannot set twice before the AIC has consumed the pair (it waits for the product of
// the same block in between), so it skips the meeting.

namespace fa_detail {

// The group's forward slots (Note [Forward slots]), P in the input dtype T.
template <class T>
struct ForwardSlots {
  std::array<AscendC::GlobalTensor<float>, kFaForwardMaxSlots> s, pv;
  std::array<AscendC::GlobalTensor<T>, kFaForwardMaxSlots> p;
};
template <class T>
ForwardSlots<T> ForwardSlotsOf(const FlashAttentionTiling& t, int64_t group) {
  float* ws = t.ws + group * t.ws_group_floats;
  const int64_t tile = int64_t{t.tq} * t.tk, pv = t.tq * t.DvPad();
  const int64_t p_floats = tile * static_cast<int64_t>(sizeof(T)) / 4;
  ForwardSlots<T> sl;
  for (int32_t i = 0; i < t.slots; ++i) {
    sl.s[i] = Gm(ws + i * tile, tile);
    sl.p[i] = Gm<T>(ws + t.slots * tile + i * p_floats, tile);
    sl.pv[i] = Gm(ws + t.slots * (tile + p_floats) + i * pv, pv);
  }
  return sl;
}

}  // namespace fa_detail

// The AIC of a forward group: Q, K and V in T, S and P V in fp32 (Note [Forward Matmuls]).
//
// Note [Forward Matmuls]
// The AIC runs the score products and the P V products on two Matmul objects with GM operands
// (tilings t.mm and t.mm_pv), each with half of L0A, L0B and L0C (Plan), so one product's Fixpipe
// overlaps the other's Mmad and the L1 -> L0 fills of the next product need not wait for the
// last one's Mmad. Keeping the Q tile in L1 across the kv loop (the Matmul's A at TSCM) was
// tried and is slower in the timing model: a Matmul with an L1 operand orders MTE1 -> MTE2 at
// the end of every computation (so the kernel may refill the tensor), which holds the next
// block's P, V and K copies until the score product's L0 fills are done; on ascend910b1 fp16
// b1h3_s4096_d128 that wait cost more than the Q reload it saved (aic_mac 0.41 against 0.44).
template <class T>
inline void FlashAttentionForwardCube(const FlashAttentionTiling& t) {
  using namespace AscendC;
  using namespace fa_detail;
  using InType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, T>;
  using FType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
  TPipe pipe;
  AscendC::Matmul<InType, InType, FType> mm_s, mm_pv;
  mm_s.Init(&t.mm, &pipe);
  mm_pv.Init(&t.mm_pv, &pipe);
  const GlobalTensor<T> gq = Gm<T>(t.q.data, t.q.span), gk = Gm<T>(t.k.data, t.k.span),
                        gv = Gm<T>(t.v.data, t.v.span);
  const ForwardSlots<T> sl = ForwardSlotsOf<T>(t, GetBlockIdx());
  // The blocks whose scores are out and whose product is not (at most `slots`), oldest first.
  struct Pending {
    int64_t rows = 0, bk = 0, v_off = 0;
  };
  std::array<Pending, kFaForwardMaxSlots> pending{};
  int64_t issued = 0, done = 0;  // blocks whose S, resp. P V, the AIC has computed
  const auto product = [&] {
    const Pending& pd = pending[done % kFaForwardMaxSlots];
    const int64_t slot = done % t.slots;
    CrossCoreWaitFlag<2, PIPE_MTE2>(kProbsReady);
    Product(mm_pv, sl.pv[slot], t.DvPad(), sl.p[slot], false, t.tk, gv[pd.v_off], false, t.v.ss,
            pd.rows, t.dv, pd.bk);
    CrossCoreSetFlag<2, PIPE_FIX>(kProductReady);
    ++done;
  };
  const int64_t group_heads = t.nq / t.nkv;
  const int64_t items = t.batch * t.nq * t.QTiles();
  for (int64_t item = GetBlockIdx(); item < items; item += GetBlockNum()) {
    const int64_t b = item / (t.nq * t.QTiles()), n = item / t.QTiles() % t.nq;
    const int64_t q0 = item % t.QTiles() * t.tq, rows = std::min<int64_t>(t.tq, t.sq - q0);
    const int64_t nk = n / group_heads;
    for (int64_t k0 = 0; k0 < t.skv; k0 += t.tk) {
      const int64_t bk = std::min<int64_t>(t.tk, t.skv - k0);
      if (!t.BlockLive(q0, q0 + rows, k0, k0 + bk)) continue;
      Product(mm_s, sl.s[issued % t.slots], t.tk, gq[t.q.Offset(b, n, q0)], false, t.q.ss,
              gk[t.k.Offset(b, nk, k0)], true, t.k.ss, rows, bk, t.d);
      CrossCoreSetFlag<2, PIPE_FIX>(kScoresReady);
      pending[issued % kFaForwardMaxSlots] = {rows, bk, t.v.Offset(b, nk, k0)};
      ++issued;
      if (issued - done >= t.slots) product();
    }
  }
  while (done < issued) product();
}

namespace fa_detail {

// The forward's level-0 row operations on `rows` rows of `cols` fp32 elements (`pitch` apart, in
// elements; pitch / 8 <= 255, rows <= 255), over 64-lane chunks (Note [Row-vector softmax]).
// dst[r, :] = src[r, :] op b[r] with b broadcast: b holds one DataBlock (the value 8 times) per
// row, as Brcb leaves it.
enum class RowOp : uint8_t { kSub, kMul };
inline void RowBroadcast(RowOp op, const LocalTensor<float>& dst, const LocalTensor<float>& src,
                         const LocalTensor<float>& b, int64_t rows, int64_t cols, int64_t pitch) {
  using namespace AscendC;
  const auto rep = static_cast<uint8_t>(pitch / 8);
  const BinaryRepeatParams p(1, 1, 0, rep, rep, 1);
  for (int64_t c0 = 0; c0 < cols; c0 += 64) {
    const uint64_t lanes = static_cast<uint64_t>(std::min<int64_t>(64, cols - c0));
    if (op == RowOp::kSub) {
      Sub(dst[c0], src[c0], b, lanes, static_cast<uint8_t>(rows), p);
    } else {
      Mul(dst[c0], src[c0], b, lanes, static_cast<uint8_t>(rows), p);
    }
  }
}

// out[r] = max (`max`) or sum of row r of `src` (`rows` rows of `cols` elements, `pitch` apart;
// cols a multiple of 64, rows a multiple of 8). `half` (rows x 64, rows `half_pitch` apart) and
// `blocks` (rows x 8) are scratch; `half` may be `src` itself with half_pitch = pitch (each
// row's first chunk then holds the partial result, element for element in place).
inline void RowsReduce(bool max, const LocalTensor<float>& out, const LocalTensor<float>& src,
                       const LocalTensor<float>& half, int64_t half_pitch,
                       const LocalTensor<float>& blocks, int64_t rows, int64_t cols,
                       int64_t pitch) {
  using namespace AscendC;
  const auto n = static_cast<uint8_t>(rows);
  const auto rep = static_cast<uint8_t>(pitch / 8), half_rep = static_cast<uint8_t>(half_pitch / 8);
  LocalTensor<float> acc = src;
  uint8_t acc_rep = rep;
  for (int64_t c0 = 64; c0 < cols; c0 += 64) {  // fold the chunks into `half`, 64 per row
    const BinaryRepeatParams p(1, 1, 1, half_rep, acc_rep, rep);
    if (max) {
      Max(half, acc, src[c0], uint64_t{64}, n, p);
    } else {
      Add(half, acc, src[c0], uint64_t{64}, n, p);
    }
    acc = half;
    acc_rep = half_rep;
  }
  // 64 -> 8 per row, then 8 -> 1: one result per DataBlock.
  if (max) {
    BlockReduceMax(blocks, acc, n, 64, 1, 1, acc_rep);
    BlockReduceMax(out, blocks, n / 8, 64, 1, 1, 8);
  } else {
    BlockReduceSum(blocks, acc, n, 64, 1, 1, acc_rep);
    BlockReduceSum(out, blocks, n / 8, 64, 1, 1, 8);
  }
}

// The 64 lanes of chunk [c0, c0 + 64) that fall in [lo, hi] (as a level-0 bit mask).
inline uint64_t LanesIn(int64_t c0, int64_t lo, int64_t hi) {
  const int64_t a = std::max<int64_t>(lo - c0, 0), b = std::min<int64_t>(hi - c0, 63);
  if (a > b) return 0;
  const uint64_t upto = b == 63 ? ~uint64_t{0} : (uint64_t{1} << (b + 1)) - 1;
  return upto & ~((uint64_t{1} << a) - 1);
}

}  // namespace fa_detail

// An AIV of a forward group. See Note [Row-vector softmax] and Note [Forward slots].
template <class Hooks, class T>
void FlashAttentionForwardVector(const FlashAttentionTiling& t) {
  using namespace AscendC;
  using namespace fa_detail;
  constexpr bool kNarrow = !std::is_same_v<T, float>;  // P and the output cast to T in UB
  const int64_t rq = t.tq / 2, tk = t.tk, dvp = t.DvPad();
  const int64_t op = FaOutPitch(t.dv, static_cast<int64_t>(sizeof(T)));  // UB output pitch
  TPipe pipe;
  TBuf<TPosition::VECCALC> b_s, b_p, b_half, b_mf, b_mh, b_mr, b_o, b_pv, b_rows, b_pn, b_on;
  pipe.InitBuffer(b_s, rq * tk * 4);
  pipe.InitBuffer(b_p, rq * tk * 4);
  pipe.InitBuffer(b_o, rq * op * 4);
  pipe.InitBuffer(b_pv, rq * op * 4);
  // Per row: m (two, swapped per block), l, the block's max and sum, alpha, the final 1 / l, the
  // stored max and sum; per row a DataBlock each: reduction scratch, the broadcast max, three
  // pending alphas, the broadcast 1 / l, the stored max and sum.
  pipe.InitBuffer(b_rows, rq * (9 + 8 * 8) * 4);
  LocalTensor<T> ub_pn, ub_on;  // kNarrow: P and the output in T
  LocalTensor<float> ub_half;   // fp32: rows x 64, the row sums' scratch (kNarrow: P, after Cast)
  if constexpr (kNarrow) {
    pipe.InitBuffer(b_pn, rq * tk * 2);
    pipe.InitBuffer(b_on, rq * op * 2);
    ub_pn = b_pn.Get<T>();
    ub_on = b_on.Get<T>();
  } else {
    pipe.InitBuffer(b_half, rq * 64 * 4);
    ub_half = b_half.Get<float>();
  }
  ScoreBuffers sb;
  sb.s = b_s.Get<float>();
  sb.p = b_p.Get<float>();
  if constexpr (Hooks::kExplicitMask) {
    pipe.InitBuffer(b_mf, rq * tk * 4);
    pipe.InitBuffer(b_mh, rq * tk * 2);
    pipe.InitBuffer(b_mr, rq * tk);
    sb.mask_f = b_mf.Get<float>();
    sb.mask_h = b_mh.Get<half>();
    sb.mask_raw = b_mr.Get<uint8_t>();
    Duplicate(sb.mask_h, half(0.0f), static_cast<int32_t>(rq * tk));
    Cast(sb.mask_raw, sb.mask_h, RoundMode::CAST_NONE, static_cast<int32_t>(rq * tk));
  }
  const LocalTensor<float> rows_all = b_rows.Get<float>();
  std::array<LocalTensor<float>, 2> ub_m = {rows_all, rows_all[rq]};
  const LocalTensor<float> ub_l = rows_all[2 * rq], ub_bm = rows_all[3 * rq],
                           ub_bs = rows_all[4 * rq], ub_alpha = rows_all[5 * rq],
                           ub_inv = rows_all[6 * rq], ub_mout = rows_all[7 * rq],
                           ub_lout = rows_all[8 * rq];
  const LocalTensor<float> blocks = rows_all[9 * rq], ub_mb = rows_all[17 * rq];
  const std::array<LocalTensor<float>, kFaForwardMaxSlots> ub_ab = {
      rows_all[25 * rq], rows_all[33 * rq], rows_all[65 * rq]};
  const LocalTensor<float> ub_ib = rows_all[41 * rq], ub_max = rows_all[49 * rq],
                           ub_sum = rows_all[57 * rq];
  const LocalTensor<float> ub_o = b_o.Get<float>(), ub_pv = b_pv.Get<float>();
  // Rows past an AIV's share and columns past a block's width are never copied in: give them a
  // defined value once.
  Duplicate(sb.s, 0.0f, static_cast<int32_t>(rq * tk));
  Duplicate(ub_pv, 0.0f, static_cast<int32_t>(rq * op));
  Duplicate(ub_o, 0.0f, static_cast<int32_t>(rq * op));
  Duplicate(rows_all, 0.0f, static_cast<int32_t>(rq * (9 + 8 * 8)));

  const GlobalTensor<T> go = Gm<T>(t.o.data, t.o.span);
  const GlobalTensor<float> gmax = Gm(t.softmax_max, t.batch * t.nq * t.sq * kFaStatWidth);
  const GlobalTensor<float> gsum = Gm(t.softmax_sum, t.batch * t.nq * t.sq * kFaStatWidth);
  const int64_t group = GetBlockIdx() / 2, groups = GetBlockNum() / 2;
  const ForwardSlots<T> sl = ForwardSlotsOf<T>(t, group);
  const int64_t items = t.batch * t.nq * t.QTiles();
  // The group's live blocks in order (Note [Forward slots]): item, first kv column, width; an
  // item no block of which is live appears once with width 0 (its rows are fully masked).
  struct Block {
    int64_t item = 0, k0 = 0, bk = 0;
    bool valid = false;
  };
  const auto item_rows = [&](int64_t item) {
    const int64_t q0 = item % t.QTiles() * t.tq;
    return std::pair<int64_t, int64_t>{q0, std::min<int64_t>(t.tq, t.sq - q0)};
  };
  const auto next_live = [&](int64_t item, int64_t k0) {  // the first block from (item, k0)
    for (; item < items; item += groups, k0 = 0) {
      const auto [q0, rows] = item_rows(item);
      const bool fresh = k0 == 0;
      for (; k0 < t.skv; k0 += tk) {
        const int64_t bk = std::min<int64_t>(tk, t.skv - k0);
        if (t.BlockLive(q0, q0 + rows, k0, k0 + bk)) return Block{item, k0, bk, true};
      }
      if (fresh) return Block{item, 0, 0, true};
    }
    return Block{};
  };
  std::array<int64_t, 64> lo{}, hi{};  // each row's window in the block (lo > hi: none)
  int64_t issued = 0, done = 0;        // blocks whose P, resp. P V, this AIV has handled
  int64_t loaded = 0;                  // blocks whose S is loaded (or being loaded) into UB
  RowShare me;
  int64_t rp = 8;  // me.count rounded up to whole DataBlocks of row values
  int32_t n_o = 0;
  Block next = next_live(group, 0);
  int64_t at_item = -1;
  // Loads block `b`'s S into sb.s once the vector pipe has released it (event 1 both ways).
  const auto load_scores = [&](const Block& b) {
    CrossCoreWaitFlag<2, PIPE_MTE2>(kScoresReady);
    WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);
    const RowShare share = ShareOf(item_rows(b.item).second);
    if (share.count > 0) {
      LoadRows(sb.s, sl.s[loaded % t.slots][share.first * tk], share.count, b.bk, tk, tk);
    }
    SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
    ++loaded;
  };
  // Loads the next block's S unless it is loaded already (loaded == issued + 1) or empty.
  const auto prefetch = [&] {
    if (next.valid && next.bk > 0 && loaded == issued) load_scores(next);
  };
  const auto accumulate = [&] {
    CrossCoreWaitFlag<2, PIPE_MTE2>(kProductReady);
    if (me.count > 0) {
      LoadRows(ub_pv, sl.pv[done % t.slots][me.first * dvp], me.count, t.dv, dvp, op);
    }
    SetFlag<HardEvent::MTE2_V>(EVENT_ID2);
    prefetch();
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID2);
    if (me.count > 0) {
      // O = alpha * O + P V (Note [Forward slots]).
      RowBroadcast(RowOp::kMul, ub_o, ub_o, ub_ab[done % kFaForwardMaxSlots], rp, op, op);
      Add(ub_o, ub_o, ub_pv, n_o);
    }
    Sync<HardEvent::V_MTE2>();
    ++done;
  };
  SetFlag<HardEvent::V_MTE2>(EVENT_ID1);  // sb.s starts free
  SetFlag<HardEvent::MTE3_V>(EVENT_ID1);  // so does P's store buffer
  prefetch();
  while (next.valid) {
    const Block cur = next;
    next = cur.bk > 0 ? next_live(cur.item, cur.k0 + tk) : next_live(cur.item + groups, 0);
    const int64_t b = cur.item / (t.nq * t.QTiles()), n = cur.item / t.QTiles() % t.nq;
    const auto [q0, rows] = item_rows(cur.item);
    const int64_t k0 = cur.k0, bk = cur.bk;
    const bool first = cur.item != at_item;  // the item's first live block
    at_item = cur.item;
    me = ShareOf(rows);
    rp = std::max<int64_t>(8, (me.count + 7) / 8 * 8);
    const int64_t i0 = q0 + me.first;
    n_o = static_cast<int32_t>(me.count * op);
    if (first && me.count > 0) {
      Duplicate(ub_o, 0.0f, n_o);
      Duplicate(ub_m[issued % 2], -std::numeric_limits<float>::infinity(),
                static_cast<int32_t>(rp));
      Duplicate(ub_l, 0.0f, static_cast<int32_t>(rp));
    }
    if (cur.bk > 0) {
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);  // S is in sb.s
      WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);  // the previous P is stored
      if (me.count > 0) {
        const int32_t n_all = static_cast<int32_t>(me.count * tk);
        ScaleAndMask<Hooks>(t, sb, b, n, i0, k0, me.count, bk);
        // Columns a row may not see (its window, past the block) become masked scores.
        bool full = bk == tk;
        for (int64_t r = 0; r < me.count; ++r) {
          if (!RowWindow(t, i0 + r, k0, bk, &lo[r], &hi[r])) lo[r] = tk, hi[r] = tk - 1;
          full = full && lo[r] == 0 && hi[r] == tk - 1;
        }
        if (!full) {
          for (int64_t r = 0; r < me.count; ++r) {
            for (int64_t c0 = 0; c0 < tk; c0 += 64) {
              const uint64_t keep = LanesIn(c0, lo[r], hi[r]);
              const uint64_t lanes = LanesIn(c0, 0, tk - 1) & ~keep;
              if (lanes == 0) continue;
              uint64_t mask[2] = {lanes, 0};
              Duplicate(sb.s[r * tk + c0], kFaMaskedScore, mask, 1, 1, 8);
            }
          }
        }
        // m_new = max(m, rowmax(S)), alpha = exp(m - m_new), P = exp(S - m_new), l = alpha l +
        // rowsum(P): every step one instruction per 64 columns (Note [Row-vector softmax]).
        const LocalTensor<float>& m_old = ub_m[issued % 2];
        const LocalTensor<float>& m_new = ub_m[(issued + 1) % 2];
        const int32_t nr = static_cast<int32_t>(rp);
        RowsReduce(true, ub_bm, sb.s, sb.p, 64, blocks, rp, tk, tk);
        Max(m_new, m_old, ub_bm, nr);
        Sub(ub_alpha, m_old, m_new, nr);
        Exp(ub_alpha, ub_alpha, nr);
        Brcb(ub_mb, m_new, static_cast<uint8_t>(rp / 8), {1, 8});
        Brcb(ub_ab[issued % kFaForwardMaxSlots], ub_alpha, static_cast<uint8_t>(rp / 8), {1, 8});
        RowBroadcast(RowOp::kSub, sb.p, sb.s, ub_mb, rp, tk, tk);
        SetFlag<HardEvent::V_MTE2>(EVENT_ID1);  // sb.s is free for the next block's S
        Exp(sb.p, sb.p, n_all);
        if constexpr (kNarrow) {
          Cast(ub_pn, sb.p, RoundMode::CAST_RINT, n_all);
          Sync<HardEvent::V_MTE3>();
          StoreRows(sl.p[issued % t.slots][me.first * tk], ub_pn, me.count, bk, tk, tk);
          RowsReduce(false, ub_bs, sb.p, sb.p, tk, blocks, rp, tk, tk);
        } else {
          Sync<HardEvent::V_MTE3>();
          StoreRows(sl.p[issued % t.slots][me.first * tk], sb.p, me.count, bk, tk, tk);
          RowsReduce(false, ub_bs, sb.p, ub_half, 64, blocks, rp, tk, tk);
        }
        Mul(ub_l, ub_l, ub_alpha, nr);
        Add(ub_l, ub_l, ub_bs, nr);
      } else {
        SetFlag<HardEvent::V_MTE2>(EVENT_ID1);
      }
      SetFlag<HardEvent::MTE3_V>(EVENT_ID1);
      if (t.slots > 1) {  // Note [Forward slots]
        CrossCoreSetFlag<1, PIPE_MTE3>(kRowsStored);
        CrossCoreWaitFlag<1, PIPE_MTE3>(kRowsStored);
      }
      CrossCoreSetFlag<2, PIPE_MTE3>(kProbsReady);
      ++issued;
      if (issued - done >= t.slots) accumulate();
    }
    // The next block's S follows this block's product on MTE2 when there was one (the AIC
    // computes them in that order), else it goes now.
    prefetch();
    if (next.valid && next.item == cur.item) continue;
    while (done < issued) accumulate();
    if (me.count == 0) continue;
    // 1 / l, and the stored statistics (Note [Masked scores]), per row on the scalar pipe.
    const LocalTensor<float>& m_fin = ub_m[issued % 2];
    Sync<HardEvent::V_S>();
    for (int64_t r = 0; r < me.count; ++r) {
      const uint32_t at = static_cast<uint32_t>(r);
      const float m = m_fin.GetValue(at), l = ub_l.GetValue(at);
      const bool masked = !(m > kFaMaskedScore);
      ub_inv.SetValue(at, masked ? 0.0f : 1.0f / l);
      ub_mout.SetValue(at, masked ? -std::numeric_limits<float>::infinity() : m);
      ub_lout.SetValue(at, masked ? 0.0f : l);
    }
    Sync<HardEvent::S_V>();
    Brcb(ub_ib, ub_inv, static_cast<uint8_t>(rp / 8), {1, 8});
    Brcb(ub_max, ub_mout, static_cast<uint8_t>(rp / 8), {1, 8});
    Brcb(ub_sum, ub_lout, static_cast<uint8_t>(rp / 8), {1, 8});
    RowBroadcast(RowOp::kMul, ub_o, ub_o, ub_ib, rp, op, op);
    if constexpr (kNarrow) {
      Cast(ub_on, ub_o, RoundMode::CAST_RINT, n_o);
      Sync<HardEvent::V_MTE3>();
      StoreRows(go[t.o.Offset(b, n, i0)], ub_on, me.count, t.dv, op, t.o.ss);
    } else {
      Sync<HardEvent::V_MTE3>();
      StoreRows(go[t.o.Offset(b, n, i0)], ub_o, me.count, t.dv, op, t.o.ss);
    }
    const int64_t stat = ((b * t.nq + n) * t.sq + i0) * kFaStatWidth;
    StoreRows(gmax[stat], ub_max, 1, me.count * kFaStatWidth, 0, 0);
    StoreRows(gsum[stat], ub_sum, 1, me.count * kFaStatWidth, 0, 0);
    Sync<HardEvent::MTE3_V>();
  }
  WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);
  WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);
}

// The forward kernel body: every core of a kMix launch on a split chip runs it. T: the element
// type of Q, K, V and the output (float, half or bfloat16_t).
template <class Hooks, class T = float>
void FlashAttentionForwardKernel(const FlashAttentionTiling& t) {
  if ASCEND_IS_AIC {
    FlashAttentionForwardCube<T>(t);
  } else {
    FlashAttentionForwardVector<Hooks, T>(t);
  }
}

// ---- backward ----

// Note [Backward slots]
// Both backward passes walk (q tile, kv block) pairs: the dQ pass every live kv block of its q
// tiles, the dK/dV pass every live q tile of every q head of its kv blocks. Per pair the AIC
// computes S = Q K^T and dP = dO V^T (fp32, from Q, K, V and dO in T), the AIVs turn them into
// P and scale * dS (rounded to T in UB), and the AIC multiplies them: dS K for the dQ pass,
// P^T dO and dS^T Q for the dK/dV pass (fp32 products the AIVs add to their UB accumulators).
// The group workspace holds `slots` (1 or 2) sets of the S, dP, P, dS and product slots; pair g
// of a group (every live pair of every item in order) uses set g % slots, with the forward's
// protocol (Note [Forward slots]): with two slots the AIC computes S_{g+1} and dP_{g+1} while
// the AIVs turn S_g into dS_g, and the product of pair g - 1 after that.
// - S / dP set s: the AIC writes pair g's after it waited "probabilities ready" of pair
//   g - slots (the AIVs have read S and dP of that pair and written its P and dS).
// - P / dS set s: the AIVs write pair g's after they waited "product ready" of pair g - slots,
//   set once the AIC's products have read that pair's P and dS.
// - Product set s: the AIC writes pair g's after "probabilities ready" of pair g, which the AIVs
//   set only once they have loaded (accumulated) the products of pair g - slots.
// The AIVs drain at the end of each item (the gradient needs every product), the AIC only at the
// end. With two slots the AIVs meet at the mode-1 flag kRowsStored before each "probabilities
// ready", as in the forward, so the mode-2 sets the AIC counts are one per AIV for the same pair
// however the hardware counts them; with one slot an AIV waits for the pair's product between
// two sets, so it cannot run ahead of its partner.
//
// Note [Backward chunks]
// The products do not run per pair: P and dS of consecutive live pairs of a run (the dK/dV
// pass: q tiles of one q head for the item's kv block, up to t.chunk_q of them; the dQ pass:
// kv blocks of the item's q tile, up to t.chunk_k) go into one chunk, and the AIC multiplies
// the whole chunk at once: dV += P_c^T dO_c and dK += dS_c^T Q_c with K = the chunk's q rows
// (P_c, dS_c: the chunk's pairs stacked along q, pitch tk), dQ += dS_c K_c with K = the chunk's
// kv rows (dS_c: the pairs side by side, pitch chunk_k * tk). The Matmul sums over K in L0C, so
// the Fixpipe writes (and the AIVs load and add) one product per chunk instead of one per pair;
// the chunk's operands are contiguous in GM because its pairs are consecutive tiles. A chunk
// closes at its limit or where the next pair of the walk is not the next tile of the run (the
// end of a head, of the item, a skipped block), a pure function of the pair both sides compute
// alike (ChunkRun). In Note [Backward slots] the P / dS and product sets are then per chunk:
// chunk c uses set c % slots, the AIC runs its products once "probabilities ready" of its last
// pair has come, sets "product ready" once per chunk, and the AIVs wait for (and accumulate)
// chunk c - slots before they write the first pair of chunk c. The plan picks the limits
// (BackwardChunksOf in aicore/ops/attention/flash_attention.cc): today chunks only in the dK/dV
// pass of 16-bit inputs, where the Fixpipe bound; chunk_k stays 1 (a chunk per pair) because a
// chunk's burst of products on the AIC stalls the AIVs more than its Fixpipe saving gains.

// The UB row pitch of the backward's D-wide rows (accumulators, O / dO rows): whole 32-byte
// blocks of fp32 and of 16-bit types.
inline int64_t FaBackwardPitch(int64_t d) { return (d + 15) / 16 * 16; }

namespace fa_detail {

// The per-row inputs of the backward for the AIV's rows of a q tile: the forward's max m, 1 / l
// (0 for a fully masked row) and rowsum(dO * O) on the scalar side; BackwardBuffers::mb and db
// hold m + ln l and rowsum(dO * O) as one DataBlock per row for the vector side (Note [Backward
// row vectors]).
struct BackwardRows {
  std::array<float, 64> m{}, rinv{}, dsum{};
};

// Loads `count` rows of an (.., 8) statistic starting at row `row` and returns element 0 of
// each through the scalar pipe.
inline void LoadStat(const AscendC::GlobalTensor<float>& gm, int64_t row, int64_t count,
                     const LocalTensor<float>& ub, float* out) {
  using namespace AscendC;
  Sync<HardEvent::S_MTE2>();
  LoadRows(ub, gm[row * kFaStatWidth], 1, count * kFaStatWidth, 0, 0);
  Sync<HardEvent::MTE2_S>();
  for (int64_t r = 0; r < count; ++r) out[r] = ub.GetValue(static_cast<uint32_t>(r * kFaStatWidth));
  Sync<HardEvent::S_V>();
}

// The AIV buffers of the backward; T the input dtype.
template <class T>
struct BackwardBuffers {
  static constexpr bool kNarrow = !std::is_same_v<T, float>;
  ScoreBuffers sb;                      // s, p and the mask
  LocalTensor<float> ds;                // dP, then dS (rq x tk)
  LocalTensor<float> acc1, acc2, prod;  // (R, FaBackwardPitch(max(d, dv))) each
  LocalTensor<float> stat;              // 64 x 8: statistics as loaded; l
  LocalTensor<float> mb, db;            // 64 x 8: m + ln l, rowsum(dO * O) per row, 8 times
  LocalTensor<T> p_n, ds_n;             // kNarrow: P and dS in T (rq x tk)
  LocalTensor<T> rows_n;                // kNarrow: O / dO / gradient rows in T, as acc1
};

// Note [Backward row vectors]
// As the forward's row-vector softmax (Note [Row-vector softmax]), the backward turns S and dP
// into P and dS for all of the AIV's rows at once: P = exp(S - (m + ln l)) and dP - rowsum(dO *
// O) are level-0 row ops with the per-row value as a broadcast operand (the statistics are
// stored one DataBlock per row already, so no Brcb), Exp, the product and the scaling one
// instruction each over the tile. Only rows whose window is not the whole block (causal and
// band edges, a tail block) or that are fully masked are redone per row, the exact old way
// (exp(S - m) / l over the window, zeros elsewhere). The instruction heads of four per-row ops
// per row made the AIVs' vector pipe bind both passes.

// Loads the AIV's rows' statistics of the q tile at stat row `stat_row` (global row index of
// (b, n, i0)): st.m, st.rinv from softmax max and sum, u.mb = m + ln l, and, with `gdsum`,
// st.dsum and u.db from the dQ pass's rowsum(dO * O).
template <class T>
void LoadBackwardRows(BackwardBuffers<T>& u, BackwardRows& st,
                      const AscendC::GlobalTensor<float>& gmax,
                      const AscendC::GlobalTensor<float>& gsum,
                      const AscendC::GlobalTensor<float>* gdsum, int64_t stat_row, int64_t count) {
  using namespace AscendC;
  const int32_t n = static_cast<int32_t>(count * kFaStatWidth);
  Sync<HardEvent::V_MTE2>();  // the previous rows' vector reads of mb, db and stat are done
  LoadStat(gmax, stat_row, count, u.mb, st.m.data());
  LoadStat(gsum, stat_row, count, u.stat, st.rinv.data());
  if (gdsum != nullptr) LoadStat(*gdsum, stat_row, count, u.db, st.dsum.data());
  for (int64_t r = 0; r < count; ++r) st.rinv[r] = st.rinv[r] > 0 ? 1.0f / st.rinv[r] : 0;
  // Fully masked rows (l = 0) get -inf here; BackwardScores redoes them per row.
  Ln(u.stat, u.stat, n);
  Add(u.mb, u.mb, u.stat, n);
}

// The score side of one (q tile, kv block) pair for the AIV's rows `me` of the tile at q row
// q0 of head (b, n): after the AIC's S and dP, writes P (when `store_p`) and scale * dS, in T,
// to their chunk slots at `gp` / `gds` (the pair's first row; rows `pitch` apart; Note
// [Backward row vectors]).
template <class Hooks, class T>
void BackwardScores(const FlashAttentionTiling& t, BackwardBuffers<T>& u, const BackwardRows& st,
                    const RowShare& me, int64_t b, int64_t n, int64_t q0, int64_t k0, int64_t bk,
                    const AscendC::GlobalTensor<float>& gs, const AscendC::GlobalTensor<float>& gdp,
                    const AscendC::GlobalTensor<T>& gp, const AscendC::GlobalTensor<T>& gds,
                    int64_t pitch, bool store_p) {
  using namespace AscendC;
  const int64_t tk = t.tk, i0 = q0 + me.first;
  const int32_t n_all = static_cast<int32_t>(me.count * tk);
  Sync<HardEvent::V_MTE2>();
  LoadRows(u.sb.s, gs[me.first * tk], me.count, bk, tk, tk);
  LoadRows(u.ds, gdp[me.first * tk], me.count, bk, tk, tk);
  Sync<HardEvent::MTE2_V>();
  ScaleAndMask<Hooks>(t, u.sb, b, n, i0, k0, me.count, bk);
  RowBroadcast(RowOp::kSub, u.sb.p, u.sb.s, u.mb, me.count, tk, tk);
  Exp(u.sb.p, u.sb.p, n_all);
  for (int64_t r = 0; r < me.count; ++r) {
    int64_t lo = 0, hi = -1;
    const bool window = st.rinv[r] != 0.0f && RowWindow(t, i0 + r, k0, bk, &lo, &hi);
    if (window && lo == 0 && hi == tk - 1) continue;  // the whole block: the row op's P holds
    const LocalTensor<float> s_row = u.sb.s[r * tk], p_row = u.sb.p[r * tk];
    Duplicate(p_row, 0.0f, static_cast<int32_t>(tk));
    if (!window) continue;
    const int32_t cnt = static_cast<int32_t>(hi + 1);
    if (lo > 0) Duplicate(s_row, kFaMaskedScore, static_cast<int32_t>(lo));
    Adds(p_row, s_row, -st.m[r], cnt);
    Exp(p_row, p_row, cnt);
    Muls(p_row, p_row, st.rinv[r], cnt);
  }
  // dS = P * (dP - rowsum(dO * O)) * scale; rows without a window have P = 0.
  RowBroadcast(RowOp::kSub, u.ds, u.ds, u.db, me.count, tk, tk);
  Mul(u.ds, u.sb.p, u.ds, n_all);
  Muls(u.ds, u.ds, t.scale, n_all);
  if constexpr (BackwardBuffers<T>::kNarrow) {
    if (store_p) Cast(u.p_n, u.sb.p, RoundMode::CAST_RINT, n_all);
    Cast(u.ds_n, u.ds, RoundMode::CAST_RINT, n_all);
    Sync<HardEvent::V_MTE3>();
    if (store_p) StoreRows(gp[me.first * pitch], u.p_n, me.count, bk, tk, pitch);
    StoreRows(gds[me.first * pitch], u.ds_n, me.count, bk, tk, pitch);
  } else {
    Sync<HardEvent::V_MTE3>();
    if (store_p) StoreRows(gp[me.first * pitch], u.sb.p, me.count, bk, tk, pitch);
    StoreRows(gds[me.first * pitch], u.ds, me.count, bk, tk, pitch);
  }
  Sync<HardEvent::MTE3_V>();
}

// Carves the AIV buffers: rq score rows, `acc_rows` accumulator rows.
template <class Hooks, class T>
BackwardBuffers<T> CarveBackward(const FlashAttentionTiling& t, AscendC::TPipe& pipe,
                                 AscendC::TBuf<AscendC::TPosition::VECCALC>* bufs) {
  using namespace AscendC;
  const int64_t rq = t.tq / 2, tk = t.tk, acc_rows = std::max<int64_t>(rq, (tk + 1) / 2);
  const int64_t ap = FaBackwardPitch(std::max(t.d, t.dv));
  BackwardBuffers<T> u;
  pipe.InitBuffer(bufs[0], rq * tk * 4);
  pipe.InitBuffer(bufs[1], rq * tk * 4);
  pipe.InitBuffer(bufs[2], rq * tk * 4);
  pipe.InitBuffer(bufs[3], acc_rows * ap * 4);
  pipe.InitBuffer(bufs[4], acc_rows * ap * 4);
  pipe.InitBuffer(bufs[5], acc_rows * ap * 4);
  pipe.InitBuffer(bufs[6], 64 * kFaStatWidth * 4);
  pipe.InitBuffer(bufs[7], (8 + ReduceTmpFloats(static_cast<uint32_t>(std::max(tk, ap)))) * 4);
  pipe.InitBuffer(bufs[14], 64 * kFaStatWidth * 4);
  pipe.InitBuffer(bufs[15], 64 * kFaStatWidth * 4);
  u.mb = bufs[14].Get<float>();
  u.db = bufs[15].Get<float>();
  u.sb.s = bufs[0].Get<float>();
  u.sb.p = bufs[1].Get<float>();
  u.ds = bufs[2].Get<float>();
  u.acc1 = bufs[3].Get<float>();
  u.acc2 = bufs[4].Get<float>();
  u.prod = bufs[5].Get<float>();
  u.stat = bufs[6].Get<float>();
  const LocalTensor<float> red = bufs[7].Get<float>();
  u.sb.result = red;
  u.sb.reduce_tmp = red[8];
  if constexpr (Hooks::kExplicitMask) {
    pipe.InitBuffer(bufs[8], rq * tk * 4);
    pipe.InitBuffer(bufs[9], rq * tk * 2);
    pipe.InitBuffer(bufs[10], rq * tk);
    u.sb.mask_f = bufs[8].Get<float>();
    u.sb.mask_h = bufs[9].Get<half>();
    u.sb.mask_raw = bufs[10].Get<uint8_t>();
    Duplicate(u.sb.mask_h, half(0.0f), static_cast<int32_t>(rq * tk));
    Cast(u.sb.mask_raw, u.sb.mask_h, RoundMode::CAST_NONE, static_cast<int32_t>(rq * tk));
  }
  if constexpr (BackwardBuffers<T>::kNarrow) {
    pipe.InitBuffer(bufs[11], rq * tk * 2);
    pipe.InitBuffer(bufs[12], rq * tk * 2);
    pipe.InitBuffer(bufs[13], acc_rows * ap * 2);
    u.p_n = bufs[11].Get<T>();
    u.ds_n = bufs[12].Get<T>();
    u.rows_n = bufs[13].Get<T>();
    // Columns past D are never copied in: give them a defined value once.
    Duplicate(u.rows_n, T(0.0f), static_cast<int32_t>(acc_rows * ap));
  }
  // Columns past a block's width are never copied in: give them a defined value once.
  Duplicate(u.sb.s, 0.0f, static_cast<int32_t>(rq * tk));
  Duplicate(u.ds, 0.0f, static_cast<int32_t>(rq * tk));
  Duplicate(u.acc1, 0.0f, static_cast<int32_t>(acc_rows * ap));
  Duplicate(u.acc2, 0.0f, static_cast<int32_t>(acc_rows * ap));
  Duplicate(u.prod, 0.0f, static_cast<int32_t>(acc_rows * ap));
  return u;
}

// Loads `rows` GM rows of `cols` elements of T (pitch `src_pitch`) into the fp32 UB rows `dst`
// (pitch FaBackwardPitch(cols)), through u.rows_n when T is 16-bit.
template <class T>
void LoadRowsAsFloat(BackwardBuffers<T>& u, const LocalTensor<float>& dst,
                     const AscendC::GlobalTensor<T>& src, int64_t rows, int64_t cols,
                     int64_t src_pitch) {
  using namespace AscendC;
  const int64_t pitch = FaBackwardPitch(cols);
  Sync<HardEvent::V_MTE2>();
  if constexpr (BackwardBuffers<T>::kNarrow) {
    LoadRows(u.rows_n, src, rows, cols, src_pitch, pitch);
    Sync<HardEvent::MTE2_V>();
    Cast(dst, u.rows_n, RoundMode::CAST_NONE, static_cast<int32_t>(rows * pitch));
  } else {
    LoadRows(dst, src, rows, cols, src_pitch, pitch);
    Sync<HardEvent::MTE2_V>();
  }
}

// Stores `rows` fp32 UB rows (pitch FaBackwardPitch(cols)) as T to GM rows `dst_pitch` apart.
template <class T>
void StoreRowsAs(BackwardBuffers<T>& u, const AscendC::GlobalTensor<T>& dst,
                 const LocalTensor<float>& src, int64_t rows, int64_t cols, int64_t dst_pitch) {
  using namespace AscendC;
  const int64_t pitch = FaBackwardPitch(cols);
  if constexpr (BackwardBuffers<T>::kNarrow) {
    Cast(u.rows_n, src, RoundMode::CAST_RINT, static_cast<int32_t>(rows * pitch));
    Sync<HardEvent::V_MTE3>();
    StoreRows(dst, u.rows_n, rows, cols, pitch, dst_pitch);
  } else {
    Sync<HardEvent::V_MTE3>();
    StoreRows(dst, src, rows, cols, pitch, dst_pitch);
  }
  Sync<HardEvent::MTE3_V>();
}

// Adds `rows` rows of `cols` fp32 elements of a product slot (pitch `slot_pitch`) to the UB
// accumulator `acc` (pitch FaBackwardPitch(cols)).
template <class T>
void Accumulate(BackwardBuffers<T>& u, const LocalTensor<float>& acc,
                const AscendC::GlobalTensor<float>& slot, int64_t rows, int64_t cols,
                int64_t slot_pitch) {
  using namespace AscendC;
  const int64_t pitch = FaBackwardPitch(cols);
  Sync<HardEvent::V_MTE2>();
  LoadRows(u.prod, slot, rows, cols, slot_pitch, pitch);
  Sync<HardEvent::MTE2_V>();
  Add(acc, acc, u.prod, static_cast<int32_t>(rows * pitch));
}

// The group's backward slots (Note [Backward slots]): S, dP (fp32), tq x tk each, P, dS chunks
// (T), max(chunk_q, chunk_k) x tq x tk each (Note [Backward chunks]), then two fp32 products of
// max(tq, tk) x max(d, dv) padded.
template <class T>
struct BackwardSlots {
  std::array<AscendC::GlobalTensor<float>, 2> s, dp, prod1, prod2;
  std::array<AscendC::GlobalTensor<T>, 2> p, ds;
};
template <class T>
BackwardSlots<T> BackwardSlotsOf(const FlashAttentionTiling& t, int64_t group) {
  float* ws = t.ws + group * t.ws_group_floats;
  const int64_t tile = int64_t{t.tq} * t.tk;
  const int64_t chunk = tile * std::max(t.chunk_q, t.chunk_k);
  const int64_t narrow = chunk * static_cast<int64_t>(sizeof(T)) / 4;
  const int64_t prod = std::max<int64_t>(t.tq, t.tk) * std::max(t.DPad(), t.DvPad());
  const int64_t set = 2 * tile + 2 * narrow + 2 * prod;
  BackwardSlots<T> sl;
  for (int32_t i = 0; i < t.slots; ++i) {
    float* w = ws + i * set;
    sl.s[i] = Gm(w, tile);
    sl.dp[i] = Gm(w + tile, tile);
    sl.p[i] = Gm<T>(w + 2 * tile, chunk);
    sl.ds[i] = Gm<T>(w + 2 * tile + narrow, chunk);
    sl.prod1[i] = Gm(w + 2 * tile + 2 * narrow, prod);
    sl.prod2[i] = Gm(w + 2 * tile + 2 * narrow + prod, prod);
  }
  return sl;
}

// The AIVs' "probabilities ready" of a pair (Note [Backward slots]).
inline void ReleaseProbs(const FlashAttentionTiling& t) {
  using namespace AscendC;
  if (t.slots > 1) {
    CrossCoreSetFlag<1, PIPE_MTE3>(kRowsStored);
    CrossCoreWaitFlag<1, PIPE_MTE3>(kRowsStored);
  }
  CrossCoreSetFlag<2, PIPE_MTE3>(kProbsReady);
}

// A live pair of a walk and its chunk (Note [Backward chunks]): c0 the chunk's first q row
// (dK/dV pass) or kv row (dQ pass); `starts` / `closes`: the pair is the chunk's first / last.
struct BackwardPair {
  int64_t b = 0, n = 0, nk = 0, q0 = 0, rows = 0, k0 = 0, bk = 0;
  int64_t c0 = 0;
  bool starts = true, closes = true;
};

// Cuts a walk's pairs into chunks (Note [Backward chunks]); the AIC and the AIVs each keep one.
struct ChunkRun {
  int64_t count = 0, first = 0;
  // Places the pair at `pos` (its q0, resp. k0) in the open chunk of at most `limit` pairs, or
  // opens one; `next_in_run`: the walk's next pair is the next tile of the same run.
  void Place(BackwardPair* pr, int64_t pos, bool next_in_run, int64_t limit) {
    if (count == 0) first = pos;
    pr->c0 = first;
    pr->starts = count == 0;
    ++count;
    pr->closes = count >= limit || !next_in_run;
    if (pr->closes) count = 0;
  }
};

// Whether the dK/dV walk's pair after (q tile q0, kv block k0) is q tile q0 + tq of the same head.
inline bool DkvNextInRun(const FlashAttentionTiling& t, int64_t q0, int64_t k0, int64_t bk) {
  const int64_t q1 = q0 + t.tq;
  return q1 < t.sq && t.BlockLive(q1, std::min<int64_t>(q1 + t.tq, t.sq), k0, k0 + bk);
}
// Whether the dQ walk's pair after (q tile q0 of `rows`, kv block k0) is kv block k0 + tk.
inline bool DqNextInRun(const FlashAttentionTiling& t, int64_t q0, int64_t rows, int64_t k0) {
  const int64_t k1 = k0 + t.tk;
  return k1 < t.skv && t.BlockLive(q0, q0 + rows, k1, std::min<int64_t>(k1 + t.tk, t.skv));
}

// The AIC side of both passes: S and dP of every pair `pairs` visits, each chunk's products
// once the AIVs have released its last pair, which the AIC waits for `slots` - 1 pairs later
// (Note [Backward slots], [Backward chunks]). `pairs(score)` calls score(pair) for each live
// pair in order, its chunk placed; `products(mm, slots, set, pair)` runs the products of the
// chunk `pair` closes from chunk set `set`.
template <class T, class Pairs, class Products>
void BackwardCube(const FlashAttentionTiling& t, const Pairs& pairs, const Products& products) {
  using namespace AscendC;
  using InType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, T>;
  using FType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
  TPipe pipe;
  AscendC::Matmul<InType, InType, FType> mm;
  mm.Init(&t.mm, &pipe);
  const GlobalTensor<T> gq = Gm<T>(t.q.data, t.q.span), gk = Gm<T>(t.k.data, t.k.span),
                        gv = Gm<T>(t.v.data, t.v.span), gdo = Gm<T>(t.dout.data, t.dout.span);
  const BackwardSlots<T> sl = BackwardSlotsOf<T>(t, GetBlockIdx());
  std::array<BackwardPair, 2> pending{};
  int64_t issued = 0, done = 0;  // pairs whose scores, resp. release, the AIC has seen
  int64_t chunks = 0;            // chunks whose products the AIC has computed
  const auto product = [&] {
    CrossCoreWaitFlag<2, PIPE_MTE2>(kProbsReady);
    const BackwardPair& pr = pending[done % 2];
    if (pr.closes) {
      products(mm, sl, chunks % t.slots, pr);
      CrossCoreSetFlag<2, PIPE_FIX>(kProductReady);
      ++chunks;
    }
    ++done;
  };
  pairs([&](const BackwardPair& pr) {
    const int64_t slot = issued % t.slots;
    Product(mm, sl.s[slot], t.tk, gq[t.q.Offset(pr.b, pr.n, pr.q0)], false, t.q.ss,
            gk[t.k.Offset(pr.b, pr.nk, pr.k0)], true, t.k.ss, pr.rows, pr.bk, t.d);
    Product(mm, sl.dp[slot], t.tk, gdo[t.dout.Offset(pr.b, pr.n, pr.q0)], false, t.dout.ss,
            gv[t.v.Offset(pr.b, pr.nk, pr.k0)], true, t.v.ss, pr.rows, pr.bk, t.dv);
    CrossCoreSetFlag<2, PIPE_FIX>(kScoresReady);
    pending[issued % 2] = pr;
    ++issued;
    if (issued - done >= t.slots) product();
  });
  while (done < issued) product();
}

}  // namespace fa_detail

// The dQ pass (items: batch, q head, q tile). Its AIVs also write rowsum(dO * O) per row to
// `dsum` (B, Nq, Sq, 8) for the dK/dV pass. T: the element type of Q, K, V, dO, O and dQ.
template <class Hooks, class T = float>
void FlashAttentionBackwardDqKernel(const FlashAttentionTiling& t, float* dsum) {
  using namespace AscendC;
  using namespace fa_detail;
  const int64_t group_heads = t.nq / t.nkv;
  const int64_t items = t.batch * t.nq * t.QTiles();
  const uint64_t stat_span = static_cast<uint64_t>(t.batch * t.nq * t.sq * kFaStatWidth);
  const GlobalTensor<T> gk = Gm<T>(t.k.data, t.k.span);
  if ASCEND_IS_AIC {
    ChunkRun run;
    const auto pairs = [&](const auto& score) {
      for (int64_t item = GetBlockIdx(); item < items; item += GetBlockNum()) {
        BackwardPair pr;
        pr.b = item / (t.nq * t.QTiles());
        pr.n = item / t.QTiles() % t.nq;
        pr.nk = pr.n / group_heads;
        pr.q0 = item % t.QTiles() * t.tq;
        pr.rows = std::min<int64_t>(t.tq, t.sq - pr.q0);
        for (pr.k0 = 0; pr.k0 < t.skv; pr.k0 += t.tk) {
          pr.bk = std::min<int64_t>(t.tk, t.skv - pr.k0);
          if (!t.BlockLive(pr.q0, pr.q0 + pr.rows, pr.k0, pr.k0 + pr.bk)) continue;
          run.Place(&pr, pr.k0, DqNextInRun(t, pr.q0, pr.rows, pr.k0), t.chunk_k);
          score(pr);
        }
      }
    };
    // dQ += dS_c K_c over the chunk's kv rows (Note [Backward chunks]).
    const auto products = [&](auto& mm, const BackwardSlots<T>& sl, int64_t set,
                              const BackwardPair& pr) {
      Product(mm, sl.prod1[set], t.DPad(), sl.ds[set], false, int64_t{t.chunk_k} * t.tk,
              gk[t.k.Offset(pr.b, pr.nk, pr.c0)], false, t.k.ss, pr.rows, t.d,
              pr.k0 + pr.bk - pr.c0);
    };
    BackwardCube<T>(t, pairs, products);
    return;
  }
  TPipe pipe;
  TBuf<TPosition::VECCALC> bufs[16];
  BackwardBuffers<T> u = CarveBackward<Hooks, T>(t, pipe, bufs);
  const int64_t group = GetBlockIdx() / 2, groups = GetBlockNum() / 2;
  const BackwardSlots<T> sl = BackwardSlotsOf<T>(t, group);
  const GlobalTensor<T> go = Gm<T>(t.o.data, t.o.span), gdo = Gm<T>(t.dout.data, t.dout.span),
                        gdq = Gm<T>(t.grad_q.data, t.grad_q.span);
  const GlobalTensor<float> gmax = Gm(t.softmax_max, stat_span),
                            gsum = Gm(t.softmax_sum, stat_span), gdsum = Gm(dsum, stat_span);
  const int64_t dp = t.DPad(), dva = FaBackwardPitch(t.dv);
  BackwardRows st;
  int64_t issued = 0;         // pairs whose dS this AIV has written
  int64_t made = 0, acc = 0;  // chunks this AIV has closed, resp. accumulated
  const int64_t width = int64_t{t.chunk_k} * t.tk;  // the dS chunk's row pitch
  ChunkRun run;
  RowShare me;
  const auto accumulate = [&] {
    CrossCoreWaitFlag<2, PIPE_MTE2>(kProductReady);
    if (me.count > 0) {
      Accumulate(u, u.acc1, sl.prod1[acc % t.slots][me.first * dp], me.count, t.d, dp);
    }
    ++acc;
  };
  for (int64_t item = group; item < items; item += groups) {
    const int64_t b = item / (t.nq * t.QTiles()), n = item / t.QTiles() % t.nq;
    const int64_t q0 = item % t.QTiles() * t.tq, rows = std::min<int64_t>(t.tq, t.sq - q0);
    me = ShareOf(rows);
    const int64_t i0 = q0 + me.first, stat_row = (b * t.nq + n) * t.sq + i0;
    if (me.count > 0) {
      LoadBackwardRows(u, st, gmax, gsum, nullptr, stat_row, me.count);
      // rowsum(dO * O) in fp32, saved for the dK/dV pass.
      LoadRowsAsFloat(u, u.prod, go[t.o.Offset(b, n, i0)], me.count, t.dv, t.o.ss);
      LoadRowsAsFloat(u, u.acc1, gdo[t.dout.Offset(b, n, i0)], me.count, t.dv, t.dout.ss);
      Mul(u.prod, u.prod, u.acc1, static_cast<int32_t>(me.count * dva));
      for (int64_t r = 0; r < me.count; ++r) {
        st.dsum[r] = ReduceToScalar(ReduceOp::kSum, u.prod[r * dva], u.sb.result, u.sb.reduce_tmp,
                                    static_cast<uint32_t>(t.dv));
        Duplicate(u.db[r * kFaStatWidth], st.dsum[r], static_cast<int32_t>(kFaStatWidth));
      }
      Duplicate(u.acc1, 0.0f, static_cast<int32_t>(me.count * FaBackwardPitch(t.d)));
      Sync<HardEvent::V_MTE3>();
      StoreRows(gdsum[stat_row * kFaStatWidth], u.db, 1, me.count * kFaStatWidth, 0, 0);
      Sync<HardEvent::MTE3_V>();
    }
    for (int64_t k0 = 0; k0 < t.skv; k0 += t.tk) {
      const int64_t bk = std::min<int64_t>(t.tk, t.skv - k0);
      if (!t.BlockLive(q0, q0 + rows, k0, k0 + bk)) continue;
      BackwardPair pr;
      run.Place(&pr, k0, DqNextInRun(t, q0, rows, k0), t.chunk_k);
      if (pr.starts && made - acc >= t.slots) accumulate();  // frees chunk set made % slots
      const int64_t slot = issued % t.slots, set = made % t.slots;
      CrossCoreWaitFlag<2, PIPE_MTE2>(kScoresReady);
      if (me.count > 0) {
        BackwardScores<Hooks, T>(t, u, st, me, b, n, q0, k0, bk, sl.s[slot], sl.dp[slot],
                                 sl.p[set], sl.ds[set][k0 - pr.c0], width, false);
      }
      ReleaseProbs(t);
      ++issued;
      if (pr.closes) ++made;
    }
    while (acc < made) accumulate();
    if (me.count == 0) continue;
    StoreRowsAs(u, gdq[t.grad_q.Offset(b, n, i0)], u.acc1, me.count, t.d, t.grad_q.ss);
  }
}

// The dK/dV pass (items: batch, kv head, kv block); reads the dQ pass's `dsum`. T as the dQ
// pass's, also the type of dK and dV.
template <class Hooks, class T = float>
void FlashAttentionBackwardDkvKernel(const FlashAttentionTiling& t, const float* dsum) {
  using namespace AscendC;
  using namespace fa_detail;
  const int64_t group_heads = t.nq / t.nkv;
  const int64_t items = t.batch * t.nkv * t.KvBlocks();
  const uint64_t stat_span = static_cast<uint64_t>(t.batch * t.nq * t.sq * kFaStatWidth);
  const int64_t dp = t.DPad(), dvp = t.DvPad();
  if ASCEND_IS_AIC {
    const GlobalTensor<T> gq = Gm<T>(t.q.data, t.q.span), gdo = Gm<T>(t.dout.data, t.dout.span);
    ChunkRun run;
    const auto pairs = [&](const auto& score) {
      for (int64_t item = GetBlockIdx(); item < items; item += GetBlockNum()) {
        BackwardPair pr;
        pr.b = item / (t.nkv * t.KvBlocks());
        pr.nk = item / t.KvBlocks() % t.nkv;
        pr.k0 = item % t.KvBlocks() * t.tk;
        pr.bk = std::min<int64_t>(t.tk, t.skv - pr.k0);
        for (pr.n = pr.nk * group_heads; pr.n < (pr.nk + 1) * group_heads; ++pr.n) {
          for (pr.q0 = 0; pr.q0 < t.sq; pr.q0 += t.tq) {
            pr.rows = std::min<int64_t>(t.tq, t.sq - pr.q0);
            if (!t.BlockLive(pr.q0, pr.q0 + pr.rows, pr.k0, pr.k0 + pr.bk)) continue;
            run.Place(&pr, pr.q0, DkvNextInRun(t, pr.q0, pr.k0, pr.bk), t.chunk_q);
            score(pr);
          }
        }
      }
    };
    // dV += P_c^T dO_c, dK += dS_c^T Q_c over the chunk's q rows (P and dS are stored q rows x
    // bk: transposed A; Note [Backward chunks]).
    const auto products = [&](auto& mm, const BackwardSlots<T>& sl, int64_t set,
                              const BackwardPair& pr) {
      const int64_t kc = pr.q0 + pr.rows - pr.c0;
      Product(mm, sl.prod1[set], dvp, sl.p[set], true, t.tk,
              gdo[t.dout.Offset(pr.b, pr.n, pr.c0)], false, t.dout.ss, pr.bk, t.dv, kc);
      Product(mm, sl.prod2[set], dp, sl.ds[set], true, t.tk, gq[t.q.Offset(pr.b, pr.n, pr.c0)],
              false, t.q.ss, pr.bk, t.d, kc);
    };
    BackwardCube<T>(t, pairs, products);
    return;
  }
  TPipe pipe;
  TBuf<TPosition::VECCALC> bufs[16];
  BackwardBuffers<T> u = CarveBackward<Hooks, T>(t, pipe, bufs);
  const int64_t group = GetBlockIdx() / 2, groups = GetBlockNum() / 2;
  const BackwardSlots<T> sl = BackwardSlotsOf<T>(t, group);
  const GlobalTensor<T> gdk = Gm<T>(t.grad_k.data, t.grad_k.span),
                        gdv = Gm<T>(t.grad_v.data, t.grad_v.span);
  const GlobalTensor<float> gmax = Gm(t.softmax_max, stat_span),
                            gsum = Gm(t.softmax_sum, stat_span),
                            gdsum = Gm(const_cast<float*>(dsum), stat_span);
  BackwardRows st;
  int64_t issued = 0;         // pairs whose dS this AIV has written
  int64_t made = 0, acc = 0;  // chunks this AIV has closed, resp. accumulated
  ChunkRun run;
  RowShare kv;  // this AIV's kv rows of the block
  const auto accumulate = [&] {
    CrossCoreWaitFlag<2, PIPE_MTE2>(kProductReady);
    if (kv.count > 0) {
      const int64_t set = acc % t.slots;
      Accumulate(u, u.acc1, sl.prod1[set][kv.first * dvp], kv.count, t.dv, dvp);
      Accumulate(u, u.acc2, sl.prod2[set][kv.first * dp], kv.count, t.d, dp);
    }
    ++acc;
  };
  for (int64_t item = group; item < items; item += groups) {
    const int64_t b = item / (t.nkv * t.KvBlocks()), nk = item / t.KvBlocks() % t.nkv;
    const int64_t k0 = item % t.KvBlocks() * t.tk, bk = std::min<int64_t>(t.tk, t.skv - k0);
    kv = ShareOf(bk);
    if (kv.count > 0) {
      Duplicate(u.acc1, 0.0f, static_cast<int32_t>(kv.count * FaBackwardPitch(t.dv)));  // dV
      Duplicate(u.acc2, 0.0f, static_cast<int32_t>(kv.count * FaBackwardPitch(t.d)));   // dK
    }
    for (int64_t n = nk * group_heads; n < (nk + 1) * group_heads; ++n) {
      for (int64_t q0 = 0; q0 < t.sq; q0 += t.tq) {
        const int64_t rows = std::min<int64_t>(t.tq, t.sq - q0);
        if (!t.BlockLive(q0, q0 + rows, k0, k0 + bk)) continue;
        const RowShare me = ShareOf(rows);
        const int64_t stat_row = (b * t.nq + n) * t.sq + q0 + me.first;
        if (me.count > 0) LoadBackwardRows(u, st, gmax, gsum, &gdsum, stat_row, me.count);
        BackwardPair pr;
        run.Place(&pr, q0, DkvNextInRun(t, q0, k0, bk), t.chunk_q);
        if (pr.starts && made - acc >= t.slots) accumulate();  // frees chunk set made % slots
        const int64_t slot = issued % t.slots, set = made % t.slots, at = (q0 - pr.c0) * t.tk;
        CrossCoreWaitFlag<2, PIPE_MTE2>(kScoresReady);
        if (me.count > 0) {
          BackwardScores<Hooks, T>(t, u, st, me, b, n, q0, k0, bk, sl.s[slot], sl.dp[slot],
                                   sl.p[set][at], sl.ds[set][at], t.tk, true);
        }
        ReleaseProbs(t);
        ++issued;
        if (pr.closes) ++made;
      }
    }
    while (acc < made) accumulate();
    if (kv.count == 0) continue;
    StoreRowsAs(u, gdv[t.grad_v.Offset(b, nk, k0 + kv.first)], u.acc1, kv.count, t.dv, t.grad_v.ss);
    StoreRowsAs(u, gdk[t.grad_k.Offset(b, nk, k0 + kv.first)], u.acc2, kv.count, t.d, t.grad_k.ss);
  }
}

}  // namespace aicore::ops::patterns
