// MatmulEpilogueUbKernel<Hooks, In>: the matmul with a fused epilogue (matmul_epilogue.h) on the
// L0C -> UB path of a fixpipe_to_ub chip (arch 3510, Note [L0C to UB] in sim/core.h): a 1:1 mix
// kernel whose AIC hands each Matmul base block to its AIV's UB with Fixpipe, so the product
// never goes through GM.
//
// How:
// - both cores place one UB slot of baseM x baseN fp32 first in their TPipe (UB offset 0: the
//   AIC's TBuf addresses the AIV's UB there); the AIV zeroes it once, so the columns past a tail
//   block's width hold numbers, and frees it (kEpilogueUbSlotFree, mode 2, V);
// - the AIC walks its items as the workspace kernel does (EpilogueGroupItems) and each item's
//   base blocks with Iterate; it computes a block into L0C, waits for the slot, writes the block
//   into it (GetTensorC to the UB tensor: Fixpipe L0C -> UB, row pitch baseN) and sets
//   kEpilogueUbSlotReady (mode 2, FIX). The Mmad of the next block overlaps the AIV's epilogue
//   of this one: L0C is the second buffer;
// - the AIV takes the same blocks in the same order and walks each block's rows in chunks: a
//   UB -> UB copy (V) from the slot into the chunk tile at the row pitch Round16(cols), then the
//   workspace kernel's bias, activation, residual, cast and store (MatmulEpilogueVector's
//   Compute and CopyOut). Once every chunk is copied out of the slot it frees the slot, except
//   after its last block, so no flag outlives the kernel.
// Hooks is an activation of patterns/activation.h. K = 0 has no cube work and takes the
// workspace kernel.
#pragma once

#include <algorithm>
#include <cstdint>

#include "aicore/ops/patterns/matmul_epilogue.h"

namespace aicore::ops::patterns {

inline constexpr uint16_t kEpilogueUbSlotReady = 4;  // AIC -> AIV: a block is in the UB slot
inline constexpr uint16_t kEpilogueUbSlotFree = 5;   // AIV -> AIC: the slot may be overwritten

// Returns the bytes of the UB slot: one Matmul base block of fp32.
inline uint32_t EpilogueUbSlotBytes(const AscendC::tiling::TCubeTiling& cube) {
  return static_cast<uint32_t>(cube.baseM) * static_cast<uint32_t>(cube.baseN) * 4;
}

// Visits the base blocks of item `it` in the Matmul's Iterate order (iterateOrder 0: M fastest),
// calling fn(EpilogueItem of the block).
template <class Fn>
void ForEachBaseBlock(const MatmulEpilogueTiling& t, const EpilogueItem& it, Fn&& fn) {
  const int64_t bm = t.cube.baseM, bn = t.cube.baseN;
  const int64_t m_iter = (it.rows + bm - 1) / bm, n_iter = (it.cols + bn - 1) / bn;
  for (int64_t b = 0; b < m_iter * n_iter; ++b) {
    const int64_t i = t.cube.iterateOrder == 0 ? b % m_iter : b / n_iter;
    const int64_t j = t.cube.iterateOrder == 0 ? b / m_iter : b % n_iter;
    EpilogueItem blk = it;
    blk.m0 = it.m0 + i * bm;
    blk.n0 = it.n0 + j * bn;
    blk.rows = std::min(bm, it.rows - i * bm);
    blk.cols = std::min(bn, it.cols - j * bn);
    fn(blk);
  }
}

// The AIC side: each base block of each item through L0C into the AIV's UB slot.
template <class In>
class MatmulEpilogueUbCube {
 public:
  __aicore__ inline void Run(const MatmulEpilogueTiling& t) {
    using namespace AscendC;
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, In>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    TBuf<TPosition::VECCALC> slot_buf;  // the AIV's UB slot, at offset 0 there too
    pipe.InitBuffer(slot_buf, EpilogueUbSlotBytes(t.cube));
    Matmul<AType, AType, CType> mm;
    mm.Init(&t.cube, &pipe);
    // The operand shapes of MatmulEpilogueCube; C leaves block by block, so its shape is moot.
    const int org_m = static_cast<int>(t.a_trans ? t.a_pitch : t.n_tiles > 1 ? t.tile_m : t.m);
    const int org_ka = static_cast<int>(t.a_trans ? t.k : t.a_pitch);
    const int org_kb = static_cast<int>(t.b_trans ? t.b_pitch : t.k);
    const int org_n = static_cast<int>(t.b_trans ? t.n : t.b_pitch);
    mm.SetOrgShape(org_m, org_n, org_ka, org_kb, static_cast<int>(t.tile_n));
    GlobalTensor<In> gm_a, gm_b;  // (batch.., M, K), (batch.., K, N) in their layouts
    gm_a.SetGlobalBuffer(reinterpret_cast<In*>(const_cast<uint8_t*>(t.a)), t.a_span);
    gm_b.SetGlobalBuffer(reinterpret_cast<In*>(const_cast<uint8_t*>(t.b)), t.b_span);
    const LocalTensor<float> ub_slot = slot_buf.Get<float>();  // (baseM, baseN), the AIV's UB
    int64_t begin = 0, end = 0;
    EpilogueGroupItems(t, GetBlockIdx(), GetBlockNum(), &begin, &end);
    for (int64_t item = begin; item < end; ++item) {
      const EpilogueItem it = EpilogueItemOf(t, item);
      mm.SetTail(static_cast<int>(it.rows), static_cast<int>(it.cols), static_cast<int>(t.k));
      mm.SetTensorA(gm_a[(*t.a_offsets)[it.batch] + it.m0 * (t.a_trans ? 1 : t.a_pitch)],
                    t.a_trans);
      mm.SetTensorB(gm_b[(*t.b_offsets)[it.batch] + it.n0 * (t.b_trans ? t.b_pitch : 1)],
                    t.b_trans);
      while (mm.Iterate()) {
        CrossCoreWaitFlag<2, PIPE_FIX>(kEpilogueUbSlotFree);
        mm.GetTensorC(ub_slot);  // Fixpipe L0C -> UB
        CrossCoreSetFlag<2, PIPE_FIX>(kEpilogueUbSlotReady);
      }
      mm.End();
    }
  }
};

// The AIV side: the epilogue of each base block, read from the UB slot.
template <class Hooks>
class MatmulEpilogueUbVector : public MatmulEpilogueVector<Hooks> {
  using Base = MatmulEpilogueVector<Hooks>;

 public:
  __aicore__ inline void Init(const MatmulEpilogueTiling& t) {
    using namespace AscendC;
    // The slot first, at UB offset 0, where the AIC's TBuf points.
    this->pipe_.InitBuffer(slot_buf_, EpilogueUbSlotBytes(t.cube));
    Base::Init(t);
    slot_ = slot_buf_.template Get<float>();
  }

  __aicore__ inline void Process() {
    using namespace AscendC;
    const MatmulEpilogueTiling& t = this->t_;
    int64_t begin = 0, end = 0;
    EpilogueGroupItems(t, GetBlockIdx(), GetBlockNum(), &begin, &end);
    int64_t blocks = 0;
    for (int64_t item = begin; item < end; ++item) {
      ForEachBaseBlock(t, EpilogueItemOf(t, item), [&](const EpilogueItem&) { ++blocks; });
    }
    if (blocks == 0) return;
    Duplicate(slot_, 0.0f, static_cast<int32_t>(t.cube.baseM * t.cube.baseN));
    CrossCoreSetFlag<2, PIPE_V>(kEpilogueUbSlotFree);
    int64_t done = 0;
    for (int64_t item = begin; item < end; ++item) {
      ForEachBaseBlock(t, EpilogueItemOf(t, item), [&](const EpilogueItem& blk) {
        CrossCoreWaitFlag<2, PIPE_V>(kEpilogueUbSlotReady);
        Block(blk);
        if (++done < blocks) CrossCoreSetFlag<2, PIPE_V>(kEpilogueUbSlotFree);
      });
    }
  }

 private:
  // The epilogue of one base block in the slot (rows x cols at row pitch baseN).
  __aicore__ inline void Block(const EpilogueItem& blk) {
    const MatmulEpilogueTiling& t = this->t_;
    const int64_t pitch = EpilogueRound16(blk.cols);
    const int64_t chunk_rows = std::max<int64_t>(1, t.chunk / pitch);
    if (t.bias.present() && t.bias.row) this->LoadBiasRow(blk, pitch);
    for (int64_t r0 = 0; r0 < blk.rows; r0 += chunk_rows) {
      const uint32_t rows = static_cast<uint32_t>(std::min(chunk_rows, blk.rows - r0));
      CopyIn(blk, r0, rows, pitch);
      this->Compute(rows, pitch);
      this->CopyOut(blk, r0, rows, pitch);
    }
  }

  // The workspace kernel's CopyIn with the block rows taken from the UB slot: rows r0.. of the
  // slot (pitch baseN) into the chunk tile at pitch `pitch` by one strided UB -> UB copy.
  __aicore__ inline void CopyIn(const EpilogueItem& blk, int64_t r0, uint32_t rows,
                                int64_t pitch) {
    using namespace AscendC;
    const MatmulEpilogueTiling& t = this->t_;
    LocalTensor<uint8_t> ub_c = this->c_q_.template AllocTensor<uint8_t>();  // (rows, pitch) fp32
    const uint16_t len = static_cast<uint16_t>(pitch * 4 / 32);              // 32-byte blocks
    const uint16_t gap = static_cast<uint16_t>((t.cube.baseN - pitch) * 4 / 32);
    DataCopy(ub_c.ReinterpretCast<float>(), slot_[static_cast<uint32_t>(r0 * t.cube.baseN)],
             DataCopyParams(static_cast<uint16_t>(rows), len, gap, 0));
    this->c_q_.EnQue(ub_c);
    if (t.bias.present() && !t.bias.row) {
      LocalTensor<uint8_t> ub_b = this->bias_q_.template AllocTensor<uint8_t>();
      Base::LoadRows(ub_b, this->gm_bias_[Base::Offset(t.bias, blk, r0)], rows, blk.cols,
                     t.bias.pitch, static_cast<uint32_t>(DTypeSize(t.bias.dtype)), pitch);
      this->bias_q_.EnQue(ub_b);
    }
    if (t.residual.present()) {
      LocalTensor<uint8_t> ub_r = this->res_q_.template AllocTensor<uint8_t>();
      Base::LoadRows(ub_r, this->gm_res_[Base::Offset(t.residual, blk, r0)], rows, blk.cols,
                     t.residual.pitch, static_cast<uint32_t>(DTypeSize(t.residual.dtype)), pitch);
      this->res_q_.EnQue(ub_r);
    }
  }

  AscendC::TBuf<AscendC::QuePosition::VECCALC> slot_buf_;
  AscendC::LocalTensor<float> slot_;  // (baseM, baseN) fp32, written by the AIC's Fixpipe
};

// The kernel of a 1:1 mix launch: the cube side on each group's AIC, the epilogue on its AIV.
// Needs K > 0.
template <class Hooks, class In>
__aicore__ inline void MatmulEpilogueUbKernel(const MatmulEpilogueTiling& t) {
  if ASCEND_IS_AIC {
    MatmulEpilogueUbCube<In>().Run(t);
  } else {
    MatmulEpilogueUbVector<Hooks> op;
    op.Init(t);
    op.Process();
  }
}

}  // namespace aicore::ops::patterns
