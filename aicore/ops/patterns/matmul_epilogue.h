// MatmulEpilogue<Hooks, In>: the mix-mode kernel of a matmul with a fused epilogue,
// out = act(alpha * A B + beta * bias) + residual, batched. Each AI Core (group of one AIC and
// two AIVs) takes a contiguous run of the (batch, m tile, n tile) items, n tile fastest, the
// runs of the groups differing by at most one item (EpilogueGroupItems), so an AIC's successive
// blocks mostly share their rows of A:
// - the AIC computes the item's tile_m x tile_n block of A B with AscendC's Matmul object
//   (SetTail + SetTensorA/B + IterateAll, fp32 accumulation in L0C) into one of two fp32 slots
//   of its group's GM workspace, then sets the cross-core flag kEpilogueTileReady (mode 2, FIX);
// - each AIV waits for it, takes half of the block's rows and walks them in UB chunks: the block
//   rows (MTE2 from the slot), alpha, the bias (a row broadcast over M, or a matrix), the
//   activation hook, the residual, the cast to out's dtype and the store (MTE3), double buffered
//   through depth-2 queues; once both AIVs have read their rows they hand the slot back
//   (kEpilogueSlotFree, mode 2, MTE2); the AIC waits for that before refilling a slot.
// So the product never makes a round trip through GM at out's size: each block is read once, in
// fp32, by the AIVs of the AIC that wrote it, while the AIC computes the next block. The AIVs
// free only the slots the AIC will refill (not those of a group's last kEpilogueSlots blocks), so
// the AIC is done once its last block is in its slot and never waits for the last epilogues.
//
// Note [Epilogue slot handoff]
// The docs say a mode-2 set from the AIVs adds one to the AIC's counter once both AIVs have set
// it, and the sim counts so (one arrival count per AIV, kernel/sync/cross_core.cc). Counted per
// pair of sets instead, an AIV a block ahead of its partner would free a slot the partner still
// reads. So before freeing a slot the two AIVs of a group meet at a mode-1 flag
// (kEpilogueRowsRead): the frees the AIC counts are then one per AIV for the same block under
// either counting, for one extra flag per block.
//
// UB layout: a chunk holds r rows of P = Round16(cols) fp32 elements (cols of the block's width);
// DataCopyPad pads each row to P (16-bit rows are exactly P after the 32-byte rounding, fp32 rows
// get rightPadding) so whole-chunk vector ops read only written elements.
//
// Hooks is an activation of patterns/activation.h (kTemps, kIdentity, Apply).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "aicore/kernel/lib/matmul/matmul.h"
#include "aicore/ops/patterns/activation.h"
#include "aicore/ops/patterns/ub_cast.h"
#include "kernel_operator.h"

namespace aicore::ops::patterns {

inline constexpr int kEpilogueSlots = 2;           // workspace blocks per group
inline constexpr uint16_t kEpilogueTileReady = 1;  // AIC -> AIVs: a block is in its slot
inline constexpr uint16_t kEpilogueSlotFree = 2;   // AIVs -> AIC: a slot may be overwritten
inline constexpr uint16_t kEpilogueRowsRead = 3;   // AIV <-> AIV: both have read their rows

// An addend (bias, residual) or the output of the epilogue in GM: (batch.., M, N) rows of unit
// stride, or (bias only) one (N) row broadcast over M.
struct EpilogueOperand {
  uint8_t* data = nullptr;  // element 0; nullptr: absent
  DType dtype = DType::kF32;
  bool row = false;   // one row per batch, broadcast over M (pitch unused)
  int64_t pitch = 0;  // elements between consecutive rows
  uint64_t span = 0;  // elements reachable from data
  std::shared_ptr<const std::vector<int64_t>> batch_offsets;  // per batch, in elements

  bool present() const { return data != nullptr; }
};

// What the host plan hands the kernel.
struct MatmulEpilogueTiling {
  AscendC::tiling::TCubeTiling cube{};  // the Matmul's base and L1 sizes for a tile
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t tile_m = 0, tile_n = 0;  // the block one item computes (tile_n a multiple of 16)
  int64_t m_tiles = 1, n_tiles = 1;
  // A (batch.., M, K) and B (batch.., K, N) as the Matmul reads them: row-major (trans false)
  // or column-major slices with pitch a_pitch / b_pitch, in the cube's input type.
  const uint8_t* a = nullptr;
  const uint8_t* b = nullptr;
  uint64_t a_span = 0, b_span = 0;  // elements
  bool a_trans = false, b_trans = false;
  int64_t a_pitch = 0, b_pitch = 0;
  std::shared_ptr<const std::vector<int64_t>> a_offsets, b_offsets;  // per batch, elements
  float alpha = 1, beta = 1;
  EpilogueOperand bias, residual, out;  // out: never a row
  uint8_t* workspace = nullptr;         // groups x kEpilogueSlots x tile_m x tile_n fp32
  uint32_t chunk = 0;  // fp32 elements of one UB chunk, a multiple of 16, >= Round16(tile_n)
};

inline constexpr int64_t EpilogueRound16(int64_t x) { return (x + 15) / 16 * 16; }

// Returns how many chunk-sized fp32 tiles the AIV side allocates (the UB plan divides its budget
// by 4 bytes times this): two queue slots each for the block, the bias matrix, the residual and
// the output, an fp32 conversion tile for each 16-bit one, and the hook's scratch tiles.
constexpr uint32_t EpilogueTiles(bool bias_matrix, bool bias_16bit, bool residual,
                                 bool residual_16bit, bool out_16bit, int temps) {
  return 2 + (bias_matrix ? 2 + (bias_16bit ? 1 : 0) : 0) +
         (residual ? 2 + (residual_16bit ? 1 : 0) : 0) + 2 + (out_16bit ? 1 : 0) +
         static_cast<uint32_t>(temps);
}

// Returns the fixed UB bytes of the AIV side besides the chunk tiles: the bias row (raw and fp32).
constexpr uint32_t EpilogueRowBytes(int64_t tile_n) {
  return static_cast<uint32_t>(2 * 4 * EpilogueRound16(tile_n));
}

// One item's block: where it is and how large.
struct EpilogueItem {
  int64_t batch = 0, m0 = 0, n0 = 0, rows = 0, cols = 0;
};

inline EpilogueItem EpilogueItemOf(const MatmulEpilogueTiling& t, int64_t item) {
  const int64_t tiles = t.m_tiles * t.n_tiles;
  EpilogueItem it;
  it.batch = item / tiles;
  const int64_t tile = item % tiles;
  it.m0 = (tile / t.n_tiles) * t.tile_m;
  it.n0 = (tile % t.n_tiles) * t.tile_n;
  it.rows = std::min(t.tile_m, t.m - it.m0);
  it.cols = std::min(t.tile_n, t.n - it.n0);
  return it;
}

// The items [*begin, *end) of group `group` of `groups`: contiguous runs whose lengths differ by
// at most one.
inline void EpilogueGroupItems(const MatmulEpilogueTiling& t, int64_t group, int64_t groups,
                               int64_t* begin, int64_t* end) {
  const int64_t items = t.batch * t.m_tiles * t.n_tiles;
  *begin = items * group / groups;
  *end = items * (group + 1) / groups;
}

// The AIC side: each item's block of A B into the group's next workspace slot.
template <class In>
class MatmulEpilogueCube {
 public:
  __aicore__ inline void Run(const MatmulEpilogueTiling& t) {
    using namespace AscendC;
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, In>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<AType, AType, CType> mm;
    mm.Init(&t.cube, &pipe);
    // M is whole, so the Matmul's fused host path knows that the blocks of other m tiles read
    // this block's B columns (as the other n tiles read its A rows) and shares the packed panels
    // through the launch's cache (Note [Packed panel cache]); the flag waits end none of them.
    const int org_m = static_cast<int>(t.a_trans ? t.a_pitch : t.m);
    const int org_ka = static_cast<int>(t.a_trans ? t.k : t.a_pitch);
    const int org_kb = static_cast<int>(t.b_trans ? t.b_pitch : t.k);
    const int org_n = static_cast<int>(t.b_trans ? t.n : t.b_pitch);
    // C rows are tile_n floats apart in the slot.
    mm.SetOrgShape(org_m, org_n, org_ka, org_kb, static_cast<int>(t.tile_n));
    GlobalTensor<In> gm_a, gm_b;  // (batch.., M, K), (batch.., K, N) in their layouts
    gm_a.SetGlobalBuffer(reinterpret_cast<In*>(const_cast<uint8_t*>(t.a)), t.a_span);
    gm_b.SetGlobalBuffer(reinterpret_cast<In*>(const_cast<uint8_t*>(t.b)), t.b_span);
    const uint64_t slot = static_cast<uint64_t>(t.tile_m * t.tile_n);
    GlobalTensor<float> gm_ws;  // (kEpilogueSlots, tile_m, tile_n) of this group
    gm_ws.SetGlobalBuffer(
        reinterpret_cast<float*>(t.workspace) + GetBlockIdx() * kEpilogueSlots * slot,
        kEpilogueSlots * slot);
    int64_t begin = 0, end = 0;
    EpilogueGroupItems(t, GetBlockIdx(), GetBlockNum(), &begin, &end);
    int64_t i = 0;
    for (int64_t item = begin; item < end; ++item, ++i) {
      if (i >= kEpilogueSlots) CrossCoreWaitFlag<2, PIPE_FIX>(kEpilogueSlotFree);
      const EpilogueItem it = EpilogueItemOf(t, item);
      mm.SetTail(static_cast<int>(it.rows), static_cast<int>(it.cols), static_cast<int>(t.k));
      mm.SetTensorA(gm_a[(*t.a_offsets)[it.batch] + it.m0 * (t.a_trans ? 1 : t.a_pitch)],
                    t.a_trans);
      mm.SetTensorB(gm_b[(*t.b_offsets)[it.batch] + it.n0 * (t.b_trans ? t.b_pitch : 1)],
                    t.b_trans);
      mm.IterateAll(gm_ws[(i % kEpilogueSlots) * slot]);
      mm.End();
      CrossCoreSetFlag<2, PIPE_FIX>(kEpilogueTileReady);
    }
    // The AIVs free no slot of the last kEpilogueSlots blocks, so no flag outlives the kernel.
  }
};

// The AIV side: this AIV's half of each item's rows, chunk by chunk.
template <class Hooks>
class MatmulEpilogueVector {
 public:
  __aicore__ inline void Init(const MatmulEpilogueTiling& t) {
    t_ = t;
    const uint32_t bytes = t.chunk * 4;
    pipe_.InitBuffer(c_q_, 2, bytes);
    if (t.bias.present() && !t.bias.row) {
      pipe_.InitBuffer(bias_q_, 2, bytes);
      if (t.bias.dtype != DType::kF32) pipe_.InitBuffer(bias_f32_, bytes);
    }
    if (t.bias.present() && t.bias.row) {
      const uint32_t row_bytes = static_cast<uint32_t>(4 * EpilogueRound16(t.tile_n));
      pipe_.InitBuffer(row_q_, 1, row_bytes);
      pipe_.InitBuffer(row_f32_, row_bytes);
    }
    if (t.residual.present()) {
      pipe_.InitBuffer(res_q_, 2, bytes);
      if (t.residual.dtype != DType::kF32) pipe_.InitBuffer(res_f32_, bytes);
    }
    pipe_.InitBuffer(out_q_, 2, bytes);
    if (t.out.dtype != DType::kF32) pipe_.InitBuffer(out_f32_, bytes);
    for (int i = 0; i < Hooks::kTemps; ++i) pipe_.InitBuffer(tmp_[i], bytes);
    const uint64_t slot = static_cast<uint64_t>(t.tile_m * t.tile_n);
    if (t.workspace != nullptr) {  // none on the L0C -> UB path (matmul_epilogue_ub.h)
      gm_ws_.SetGlobalBuffer(
          t.workspace + (AscendC::GetBlockIdx() / 2) * kEpilogueSlots * slot * 4,
          kEpilogueSlots * slot * 4);
    }
    Bind(t.bias, &gm_bias_);
    Bind(t.residual, &gm_res_);
    Bind(t.out, &gm_out_);
  }

  __aicore__ inline void Process() {
    using namespace AscendC;
    int64_t begin = 0, end = 0;
    EpilogueGroupItems(t_, GetBlockIdx() / 2, GetBlockNum() / 2, &begin, &end);
    int64_t i = 0;
    for (int64_t item = begin; item < end; ++item, ++i) {
      if (t_.k > 0) CrossCoreWaitFlag<2, PIPE_MTE2>(kEpilogueTileReady);
      const EpilogueItem it = EpilogueItemOf(t_, item);
      const int64_t half = (it.rows + 1) / 2;
      const int64_t first = GetSubBlockIdx() * half;
      const int64_t last = std::min(it.rows, first + half);
      const int64_t pitch = EpilogueRound16(it.cols);
      const int64_t chunk_rows = std::max<int64_t>(1, t_.chunk / pitch);
      slot_ = (i % kEpilogueSlots) * t_.tile_m * t_.tile_n;
      const bool row_bias = t_.bias.present() && t_.bias.row && first < last;
      if (row_bias) LoadBiasRow(it, pitch);
      for (int64_t r0 = first; r0 < last; r0 += chunk_rows) {
        const uint32_t rows = static_cast<uint32_t>(std::min(chunk_rows, last - r0));
        CopyIn(it, r0, rows, pitch);
        Compute(rows, pitch);
        CopyOut(it, r0, rows, pitch);
      }
      if (t_.k > 0 && item + kEpilogueSlots < end) {  // the AIC refills this slot
        // Both AIVs meet before either frees the slot. See Note [Epilogue slot handoff].
        CrossCoreSetFlag<1, PIPE_MTE2>(kEpilogueRowsRead);
        CrossCoreWaitFlag<1, PIPE_MTE2>(kEpilogueRowsRead);
        CrossCoreSetFlag<2, PIPE_MTE2>(kEpilogueSlotFree);
      }
    }
  }

 protected:  // the L0C -> UB kernel (matmul_epilogue_ub.h) reuses the chunk steps
  // Returns the fp32 conversion tile of an operand of dtype `dt` (none for fp32: Init gave it no
  // memory).
  static AscendC::LocalTensor<float> Scratch(AscendC::TBuf<AscendC::QuePosition::VECCALC>& buf,
                                             DType dt) {
    return dt == DType::kF32 ? AscendC::LocalTensor<float>() : buf.template Get<float>();
  }

  static void Bind(const EpilogueOperand& op, AscendC::GlobalTensor<uint8_t>* gm) {
    if (op.present()) gm->SetGlobalBuffer(op.data, op.span * DTypeSize(op.dtype));
  }

  // The byte offset of (row, col) of item `it`'s block in operand `op`.
  static uint64_t Offset(const EpilogueOperand& op, const EpilogueItem& it, int64_t row) {
    const int64_t base = (*op.batch_offsets)[it.batch] + it.n0;
    const int64_t elem = op.row ? base : base + (it.m0 + row) * op.pitch;
    return static_cast<uint64_t>(elem) * DTypeSize(op.dtype);
  }

  // Copies `rows` rows of `cols` elements (GM row pitch `gm_pitch` elements, element size
  // `esize`) from `src` to `dst`, each UB row padded to `pitch` elements.
  static void LoadRows(const AscendC::LocalTensor<uint8_t>& dst,
                       const AscendC::GlobalTensor<uint8_t>& src, uint32_t rows, int64_t cols,
                       int64_t gm_pitch, uint32_t esize, int64_t pitch) {
    using namespace AscendC;
    // fp32 rows reach `pitch` with rightPadding (at most 8 elements); 16-bit rows are exactly
    // `pitch` once rounded to 32 bytes.
    const uint8_t right =
        esize == 4 ? static_cast<uint8_t>(std::min<int64_t>(pitch - cols, 8) * 4) : 0;
    DataCopyPad(dst, src,
                DataCopyExtParams(static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * esize),
                                  static_cast<uint32_t>((gm_pitch - cols) * esize), 0, 0),
                DataCopyPadExtParams<uint8_t>(true, 0, right, 0));
  }

  __aicore__ inline void LoadBiasRow(const EpilogueItem& it, int64_t pitch) {
    using namespace AscendC;
    const uint32_t esize = static_cast<uint32_t>(DTypeSize(t_.bias.dtype));
    LocalTensor<uint8_t> ub_raw = row_q_.AllocTensor<uint8_t>();  // (pitch,) bias dtype
    LoadRows(ub_raw, gm_bias_[Offset(t_.bias, it, 0)], 1, it.cols, it.cols, esize, pitch);
    row_q_.EnQue(ub_raw);
    ub_raw = row_q_.DeQue<uint8_t>();
    const uint32_t n = static_cast<uint32_t>(pitch);
    const LocalTensor<float> raw = ToFloat(ub_raw, t_.bias.dtype, row_f32_.Get<float>(), n);
    // beta * bias, once per block, into the fp32 row (a copy when the bias is fp32 already).
    row_ = row_f32_.Get<float>();
    Muls(row_, raw, t_.beta, n);
    row_q_.FreeTensor(ub_raw);
  }

  __aicore__ inline void CopyIn(const EpilogueItem& it, int64_t r0, uint32_t rows, int64_t pitch) {
    using namespace AscendC;
    LocalTensor<uint8_t> ub_c = c_q_.AllocTensor<uint8_t>();  // (rows, pitch) fp32
    if (t_.k > 0) {
      LoadRows(ub_c, gm_ws_[static_cast<uint64_t>(slot_ + r0 * t_.tile_n) * 4], rows, it.cols,
               t_.tile_n, 4, pitch);
    }
    c_q_.EnQue(ub_c);
    if (t_.bias.present() && !t_.bias.row) {
      LocalTensor<uint8_t> ub_b = bias_q_.AllocTensor<uint8_t>();  // (rows, pitch) bias dtype
      LoadRows(ub_b, gm_bias_[Offset(t_.bias, it, r0)], rows, it.cols, t_.bias.pitch,
               static_cast<uint32_t>(DTypeSize(t_.bias.dtype)), pitch);
      bias_q_.EnQue(ub_b);
    }
    if (t_.residual.present()) {
      LocalTensor<uint8_t> ub_r = res_q_.AllocTensor<uint8_t>();  // (rows, pitch) residual dtype
      LoadRows(ub_r, gm_res_[Offset(t_.residual, it, r0)], rows, it.cols, t_.residual.pitch,
               static_cast<uint32_t>(DTypeSize(t_.residual.dtype)), pitch);
      res_q_.EnQue(ub_r);
    }
  }

  __aicore__ inline void Compute(uint32_t rows, int64_t pitch) {
    using namespace AscendC;
    const uint32_t n = rows * static_cast<uint32_t>(pitch);
    LocalTensor<uint8_t> ub_c = c_q_.DeQue<uint8_t>();
    LocalTensor<float> x = ub_c.ReinterpretCast<float>();  // (rows, pitch)
    if (t_.k == 0) Duplicate(x, 0.0f, static_cast<int32_t>(n));
    if (t_.alpha != 1.0f) Muls(x, x, t_.alpha, n);
    if (t_.bias.present() && t_.bias.row) {
      for (uint32_t r = 0; r < rows; ++r) {
        const uint32_t at = r * static_cast<uint32_t>(pitch);
        Add(x[at], x[at], row_, static_cast<int32_t>(pitch));
      }
    }
    LocalTensor<uint8_t> ub_b;
    if (t_.bias.present() && !t_.bias.row) {
      ub_b = bias_q_.DeQue<uint8_t>();
      const LocalTensor<float> b =
          ToFloat(ub_b, t_.bias.dtype, Scratch(bias_f32_, t_.bias.dtype), n);
      if (t_.beta == 1.0f) {
        Add(x, x, b, n);
      } else {
        Axpy(x, b, t_.beta, n);
      }
    }
    LocalTensor<uint8_t> ub_y = out_q_.AllocTensor<uint8_t>();  // (rows, pitch) out dtype
    const LocalTensor<float> y = FloatView(ub_y, t_.out.dtype, Scratch(out_f32_, t_.out.dtype));
    LocalTensor<float> result = x;
    bool in_y = false;  // result is y
    if constexpr (!Hooks::kIdentity) {
      LocalTensor<float> tmp[Hooks::kTemps > 0 ? Hooks::kTemps : 1];
      for (int i = 0; i < Hooks::kTemps; ++i) tmp[i] = tmp_[i].template Get<float>();
      Hooks::Apply(y, x, tmp, n);
      result = y;
      in_y = true;
    }
    LocalTensor<uint8_t> ub_r;
    if (t_.residual.present()) {
      ub_r = res_q_.DeQue<uint8_t>();
      const LocalTensor<float> r =
          ToFloat(ub_r, t_.residual.dtype, Scratch(res_f32_, t_.residual.dtype), n);
      Add(y, result, r, n);
      result = y;
      in_y = true;
    }
    if (t_.out.dtype == DType::kF32) {
      if (!in_y) Muls(y, result, 1.0f, n);  // an exact copy
    } else {
      FromFloat(ub_y, t_.out.dtype, result, n);
    }
    out_q_.EnQue(ub_y);
    c_q_.FreeTensor(ub_c);
    if (t_.bias.present() && !t_.bias.row) bias_q_.FreeTensor(ub_b);
    if (t_.residual.present()) res_q_.FreeTensor(ub_r);
  }

  __aicore__ inline void CopyOut(const EpilogueItem& it, int64_t r0, uint32_t rows, int64_t pitch) {
    using namespace AscendC;
    const uint32_t esize = static_cast<uint32_t>(DTypeSize(t_.out.dtype));
    const uint32_t row_bytes = static_cast<uint32_t>(it.cols) * esize;
    const uint32_t gap_blocks =
        static_cast<uint32_t>((pitch * esize - (row_bytes + 31) / 32 * 32) / 32);
    LocalTensor<uint8_t> ub_y = out_q_.DeQue<uint8_t>();
    DataCopyPad(gm_out_[Offset(t_.out, it, r0)], ub_y,
                DataCopyExtParams(static_cast<uint16_t>(rows), row_bytes, gap_blocks,
                                  static_cast<uint32_t>((t_.out.pitch - it.cols) * esize), 0));
    out_q_.FreeTensor(ub_y);
  }

  MatmulEpilogueTiling t_;
  int64_t slot_ = 0;  // this item's slot, in floats from the group's first
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> c_q_, bias_q_, res_q_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> row_q_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 2> out_q_;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> bias_f32_, res_f32_, out_f32_, row_f32_;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> tmp_[Hooks::kTemps > 0 ? Hooks::kTemps : 1];
  AscendC::LocalTensor<float> row_;  // (pitch,) beta * bias of the current block
  AscendC::GlobalTensor<uint8_t> gm_ws_, gm_bias_, gm_res_, gm_out_;
};

// The kernel: the cube side on the AIC of each group, the epilogue on its two AIVs. K = 0 runs
// no cube work: the AIVs start from a zero block.
template <class Hooks, class In>
__aicore__ inline void MatmulEpilogueKernel(const MatmulEpilogueTiling& t) {
  if ASCEND_IS_AIC {
    if (t.k > 0) MatmulEpilogueCube<In>().Run(t);
  } else {
    MatmulEpilogueVector<Hooks> op;
    op.Init(t);
    op.Process();
  }
}

}  // namespace aicore::ops::patterns
