// ElementwisePipeline<Hooks>: the kernel of every elementwise operator. Each block takes a
// contiguous range of the flattened tensors (the split over cores, the last block shorter), walks
// it in tiles sized from the chip's UB budget (the last tile shorter) and runs CopyIn / Compute /
// CopyOut through depth-2 TQues, so MTE2, V and MTE3 overlap (double buffering by construction;
// strategy selection may try depth 1 with tiles twice as long).
// Inputs and the output may each be fp32, fp16 or bf16 in GM; the hooks always compute in fp32.
//
// A Hooks type provides:
//   static constexpr int kInputs;   // 1..kMaxElementwiseInputs tensor operands
//   static constexpr int kTemps;    // fp32 scratch tiles Compute may use
//   static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
//                       const LocalTensor<float>* tmp, uint32_t n, const float* scalar);
// dst never aliases src; all hold at least n floats. `scalar` is ElementwiseTiling::scalar.
#pragma once

#include <cstdint>

#include "aicore/ops/patterns/ub_cast.h"

namespace aicore::ops::patterns {

inline constexpr int kMaxElementwiseInputs = 3;

// What the host plan hands the kernel. All tensors are dense over `total` elements.
struct ElementwiseTiling {
  const uint8_t* in[kMaxElementwiseInputs] = {};
  DType in_dtype[kMaxElementwiseInputs] = {};
  uint8_t* out = nullptr;
  DType out_dtype = DType::kF32;
  int64_t total = 0;      // elements
  int64_t per_block = 0;  // elements per block (a multiple of 64), the last block shorter
  uint32_t tile = 0;      // elements per UB tile (a multiple of 64)
  uint32_t depth = 2;     // buffers per queue: 2 double-buffers, 1 single-buffers
  float scalar[4] = {};   // the operator's parameters (alpha, ...)
};

// Returns the UB bytes one tile element costs a pattern with `inputs` operands and `temps`
// scratch tiles: `depth` queue slots per operand and for the output (sized for fp32), an fp32
// conversion tile per operand and for the output, and the scratch tiles.
constexpr uint32_t ElementwiseBytesPerElement(int inputs, int temps, int depth = 2) {
  return 4u * static_cast<uint32_t>(depth * inputs + depth + inputs + 1 + temps);
}

template <class Hooks>
class ElementwisePipeline {
  static_assert(Hooks::kInputs >= 1 && Hooks::kInputs <= kMaxElementwiseInputs);

 public:
  __aicore__ inline void Init(const ElementwiseTiling& t) {
    t_ = t;
    const int64_t first = t.per_block * AscendC::GetBlockIdx();
    count_ = first >= t.total ? 0 : (t.total - first < t.per_block ? t.total - first : t.per_block);
    if (count_ == 0) return;
    const uint32_t tile_bytes = t.tile * 4;
    for (int i = 0; i < Hooks::kInputs; ++i) {
      const uint64_t esize = DTypeSize(t.in_dtype[i]);
      gm_in_[i].SetGlobalBuffer(const_cast<uint8_t*>(t.in[i]) + first * esize, count_ * esize);
      pipe_.InitBuffer(in_q_[i], t.depth, tile_bytes);
      pipe_.InitBuffer(in_f32_[i], tile_bytes);
    }
    const uint64_t out_esize = DTypeSize(t.out_dtype);
    gm_out_.SetGlobalBuffer(t.out + first * out_esize, count_ * out_esize);
    pipe_.InitBuffer(out_q_, t.depth, tile_bytes);
    pipe_.InitBuffer(out_f32_, tile_bytes);
    for (int i = 0; i < Hooks::kTemps; ++i) pipe_.InitBuffer(tmp_[i], tile_bytes);
  }

  __aicore__ inline void Process() {
    for (int64_t done = 0; done < count_; done += t_.tile) {
      const uint32_t n = static_cast<uint32_t>(count_ - done < t_.tile ? count_ - done : t_.tile);
      CopyIn(done, n);
      Compute(n);
      CopyOut(done, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(int64_t done, uint32_t n) {
    using namespace AscendC;
    for (int i = 0; i < Hooks::kInputs; ++i) {
      const uint32_t esize = static_cast<uint32_t>(DTypeSize(t_.in_dtype[i]));
      LocalTensor<uint8_t> ub_x = in_q_[i].template AllocTensor<uint8_t>();  // (n,) in_dtype
      DataCopyPad(ub_x, gm_in_[i][done * esize], DataCopyExtParams(1, n * esize, 0, 0, 0),
                  DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
      in_q_[i].EnQue(ub_x);
    }
  }

  __aicore__ inline void Compute(uint32_t n) {
    using namespace AscendC;
    LocalTensor<uint8_t> ub_raw[kMaxElementwiseInputs];
    LocalTensor<float> ub_src[kMaxElementwiseInputs];  // (n,) fp32
    for (int i = 0; i < Hooks::kInputs; ++i) {
      ub_raw[i] = in_q_[i].template DeQue<uint8_t>();
      ub_src[i] = ToFloat(ub_raw[i], t_.in_dtype[i], in_f32_[i].template Get<float>(), n);
    }
    LocalTensor<float> ub_tmp[Hooks::kTemps > 0 ? Hooks::kTemps : 1];
    for (int i = 0; i < Hooks::kTemps; ++i) ub_tmp[i] = tmp_[i].template Get<float>();
    LocalTensor<uint8_t> ub_y = out_q_.template AllocTensor<uint8_t>();  // (n,) out_dtype
    LocalTensor<float> ub_dst = FloatView(ub_y, t_.out_dtype, out_f32_.template Get<float>());
    Hooks::Compute(ub_dst, ub_src, ub_tmp, n, t_.scalar);
    FromFloat(ub_y, t_.out_dtype, ub_dst, n);
    out_q_.EnQue(ub_y);
    for (int i = 0; i < Hooks::kInputs; ++i) in_q_[i].FreeTensor(ub_raw[i]);
  }

  __aicore__ inline void CopyOut(int64_t done, uint32_t n) {
    using namespace AscendC;
    const uint32_t esize = static_cast<uint32_t>(DTypeSize(t_.out_dtype));
    LocalTensor<uint8_t> ub_y = out_q_.template DeQue<uint8_t>();
    DataCopyPad(gm_out_[done * esize], ub_y, DataCopyExtParams(1, n * esize, 0, 0, 0));
    out_q_.FreeTensor(ub_y);
  }

  ElementwiseTiling t_;
  int64_t count_ = 0;  // elements of this block
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> in_q_[Hooks::kInputs];
  AscendC::TQue<AscendC::QuePosition::VECOUT, 2> out_q_;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> in_f32_[Hooks::kInputs];
  AscendC::TBuf<AscendC::QuePosition::VECCALC> out_f32_;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> tmp_[Hooks::kTemps > 0 ? Hooks::kTemps : 1];
  AscendC::GlobalTensor<uint8_t> gm_in_[Hooks::kInputs];
  AscendC::GlobalTensor<uint8_t> gm_out_;
};

// The kernel: one ElementwisePipeline per block.
template <class Hooks>
__aicore__ inline void ElementwiseKernel(const ElementwiseTiling& t) {
  ElementwisePipeline<Hooks> op;
  op.Init(t);
  op.Process();
}

}  // namespace aicore::ops::patterns
