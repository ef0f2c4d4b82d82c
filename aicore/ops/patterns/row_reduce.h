// RowReduce<Hooks>: the kernel of every operator that reduces along the last axis of a dense
// (rows, cols) tensor and then rewrites the row with the result (softmax, log-softmax, layer and
// RMS norm). Rows are split evenly over blocks (they differ by at most one row). Two strategies,
// chosen by the host plan from the UB budget:
// - one pass: rows fit UB; `rows_per_tile` rows come in with one DataCopyPad (rows `pitch`
//   elements apart in UB), each row is reduced and rewritten in UB, the tile goes back out. Every
//   element is read from GM once.
// - online: a row is longer than UB; it is read in `chunk`-column pieces twice: the first pass
//   folds every chunk into the row's running statistics (Hooks::Accumulate merges a chunk into the
//   statistics so far: running max and rescaled sum for softmax, sums shifted by the first chunk's
//   mean for layer norm), the second applies them chunk by chunk.
// Both strategies call the same hooks, and the queues are depth 2 (double buffered: one pass
// issues the next tile's copy-in before computing this one; strategy selection may try depth 1,
// whose larger tiles or one-pass rows can pay for the lost overlap). Queue slots hold the storage
// dtype; 16-bit operands are converted through one fp32 row each (RowReduceUbBytes).
// The pattern itself never writes the RowScratch, so what a row's last Accumulate leaves there is
// still there when that row's first Apply runs (a row of one chunk may reuse it instead of
// recomputing).
// Backward operators use three extensions: a second per-element input `x2` read alongside x
// (Hooks::kInputs = 2), per-row fp32 inputs `row_in` handed to Hooks::Begin before a row's first
// chunk (Hooks::kRowInputs > 0), and no per-element output (`y` null: only the row outputs are
// written, and the online pass reads each row once).
//
// A Hooks type provides:
//   struct Stats;  // value-initialised per row
//   static void Accumulate(Stats&, const RowScratch&, const LocalTensor<float>& x, uint32_t n);
//   static void Finish(Stats&, const RowReduceTiling&);   // after the row's last chunk
//   static void Apply(const Stats&, const RowScratch&, const LocalTensor<float>& dst,
//                     const LocalTensor<float>& x, const LocalTensor<float>* param, uint32_t n,
//                     const RowReduceTiling&);            // param[i]: this chunk's columns
//   static void RowOutputs(const Stats&, float* values);  // kRowOutputs values per row
//   static constexpr int kRowOutputs;                     // 0..2 (mean, rstd, ...)
// and, with kInputs = 2, instead of Accumulate and Apply above (params loaded for both):
//   static void Accumulate(Stats&, const RowScratch&, const LocalTensor<float>& x,
//                          const LocalTensor<float>& x2, const LocalTensor<float>* param,
//                          uint32_t n, const RowReduceTiling&);
//   static void Apply(const Stats&, const RowScratch&, const LocalTensor<float>& dst,
//                     const LocalTensor<float>& x, const LocalTensor<float>& x2,
//                     const LocalTensor<float>* param, uint32_t n, const RowReduceTiling&);
// and, with kRowInputs = k > 0:
//   static void Begin(Stats&, const float* row_in);       // row_in[i]: row_in[i][row]
#pragma once

#include <cstdint>

#include "aicore/ops/patterns/ub_cast.h"

namespace aicore::ops::patterns {

struct RowReduceTiling {
  const uint8_t* x = nullptr;
  DType x_dtype = DType::kF32;
  uint8_t* y = nullptr;
  DType y_dtype = DType::kF32;
  const uint8_t* param[2] =
      {};  // per-column vectors of `cols` elements (gamma, beta); null: absent
  DType param_dtype[2] = {DType::kF32, DType::kF32};
  float* row_out[2] = {};       // per-row fp32 results (mean, rstd); null: not wanted
  const uint8_t* x2 = nullptr;  // the second per-element input (Hooks::kInputs = 2)
  DType x2_dtype = DType::kF32;
  const float* row_in[2] = {};  // per-row fp32 inputs (Hooks::kRowInputs)
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t rows_per_block = 0;  // the most rows a block takes (blocks differ by at most one)
  bool online = false;
  uint32_t chunk = 0;          // columns per UB piece (online), or the UB row pitch (one pass)
  uint32_t rows_per_tile = 1;  // one pass only
  uint32_t depth = 2;          // buffers per queue: 2 double-buffers, 1 single-buffers
  float eps = 0;
};

// Scratch the hooks may use: `tmp` holds `chunk` floats; `result` 8; `reduce_tmp` what
// ReduceToScalar needs for `chunk` floats.
struct RowScratch {
  AscendC::LocalTensor<float> tmp, result, reduce_tmp;
};

// The storage of a RowReduce's operands, which sizes its UB: bytes per element of x, x2 and y (0:
// absent) and the parameter vectors in use.
struct RowReduceStorage {
  uint32_t x_bytes = 4;
  uint32_t x2_bytes = 0;  // 0: one per-element input
  uint32_t y_bytes = 4;   // 0: no per-element output
  uint32_t params = 2;    // 0..2
};

// Returns the storage of `t`'s operands (its dtypes and which of its pointers are set).
inline RowReduceStorage RowReduceStorageOf(const RowReduceTiling& t) {
  RowReduceStorage s;
  s.x_bytes = static_cast<uint32_t>(DTypeSize(t.x_dtype));
  s.x2_bytes = t.x2 != nullptr ? static_cast<uint32_t>(DTypeSize(t.x2_dtype)) : 0;
  s.y_bytes = t.y != nullptr ? static_cast<uint32_t>(DTypeSize(t.y_dtype)) : 0;
  s.params = (t.param[0] != nullptr ? 1u : 0u) + (t.param[1] != nullptr ? 1u : 0u);
  return s;
}

// Returns the UB bytes RowReduce::Init allocates for UB rows of `width` elements (the one-pass
// pitch or the online chunk, a multiple of 16), `rows_per_tile` rows per tile and `depth` queue
// buffers: per operand `depth` queue slots of the tile in its storage dtype, and one fp32 row it
// is converted through unless it is fp32; the scratch row, the reduction's result and scratch;
// per parameter vector a raw and an fp32 row.
constexpr uint64_t RowReduceUbBytes(const RowReduceStorage& s, uint64_t width,
                                    uint64_t rows_per_tile, uint64_t depth) {
  uint64_t bytes = 0;
  for (uint32_t b : {s.x_bytes, s.x2_bytes, s.y_bytes}) {
    if (b == 0) continue;
    bytes += depth * rows_per_tile * width * b + (b == 4 ? 0 : width * 4);
  }
  const uint64_t repeats = (width + 63) / 64;
  const uint64_t reduce_tmp = ((2 * repeats + 7) / 8 * 8 + 8) * 4;  // ReduceTmpFloats(width)
  return bytes + width * 4 + 32 + reduce_tmp + s.params * 2 * width * 4;
}

// The per-element inputs (1 or 2) and per-row inputs (0..2) of a Hooks type.
template <class Hooks>
constexpr int RowReduceInputs() {
  if constexpr (requires { Hooks::kInputs; }) {
    return Hooks::kInputs;
  } else {
    return 1;
  }
}
template <class Hooks>
constexpr int RowReduceRowInputs() {
  if constexpr (requires { Hooks::kRowInputs; }) {
    return Hooks::kRowInputs;
  } else {
    return 0;
  }
}

template <class Hooks>
class RowReduce {
  static constexpr bool kTwoInputs = RowReduceInputs<Hooks>() == 2;
  static constexpr int kRowIn = RowReduceRowInputs<Hooks>();

 public:
  __aicore__ inline void Init(const RowReduceTiling& t) {
    t_ = t;
    // Balanced: block b takes rows [rows * b / n, rows * (b + 1) / n).
    const int64_t b = AscendC::GetBlockIdx(), nb = AscendC::GetBlockNum();
    row0_ = t.rows * b / nb;
    rows_ = t.rows * (b + 1) / nb - row0_;
    if (rows_ == 0) return;
    const uint32_t width = t.chunk;  // floats per UB row
    const uint32_t tile_floats = width * (t.online ? 1 : t.rows_per_tile);
    const uint64_t xs = DTypeSize(t.x_dtype), ys = DTypeSize(t.y_dtype);
    // Queue slots in the storage dtype; one fp32 row to convert through (rows are computed one
    // at a time, in order on the V pipe) unless the storage is fp32.
    gm_x_.SetGlobalBuffer(const_cast<uint8_t*>(t.x) + row0_ * t.cols * xs, rows_ * t.cols * xs);
    pipe_.InitBuffer(in_q_, t.depth, tile_floats * xs);
    if (xs != 4) {
      pipe_.InitBuffer(x_f32_, width * 4);
      x_f32_row_ = x_f32_.Get<float>();
    }
    if (t.y != nullptr) {
      gm_y_.SetGlobalBuffer(t.y + row0_ * t.cols * ys, rows_ * t.cols * ys);
      pipe_.InitBuffer(out_q_, t.depth, tile_floats * ys);
      if (ys != 4) {
        pipe_.InitBuffer(y_f32_, width * 4);
        y_f32_row_ = y_f32_.Get<float>();
      }
    }
    if constexpr (kTwoInputs) {
      const uint64_t x2s = DTypeSize(t.x2_dtype);
      gm_x2_.SetGlobalBuffer(const_cast<uint8_t*>(t.x2) + row0_ * t.cols * x2s,
                             rows_ * t.cols * x2s);
      pipe_.InitBuffer(in2_q_, t.depth, tile_floats * x2s);
      if (x2s != 4) {
        pipe_.InitBuffer(x2_f32_, width * 4);
        x2_f32_row_ = x2_f32_.Get<float>();
      }
    }
    pipe_.InitBuffer(tmp_, width * 4);
    pipe_.InitBuffer(result_, 32);
    pipe_.InitBuffer(reduce_tmp_, ReduceTmpFloats(width) * 4);
    for (int i = 0; i < 2; ++i) {
      if (t.param[i] == nullptr) continue;
      const uint64_t ps = DTypeSize(t.param_dtype[i]);
      gm_param_[i].SetGlobalBuffer(const_cast<uint8_t*>(t.param[i]), t.cols * ps);
      pipe_.InitBuffer(param_raw_[i], width * 4);
      pipe_.InitBuffer(param_f32_[i], width * 4);
    }
    scratch_.tmp = tmp_.Get<float>();
    scratch_.result = result_.Get<float>();
    scratch_.reduce_tmp = reduce_tmp_.Get<float>();
    if (!t.online) LoadParams(0, static_cast<uint32_t>(t.cols));
  }

  __aicore__ inline void Process() {
    if (rows_ == 0) return;
    if (t_.online) {
      // Double-buffered, the next chunk's copy-in (the next pass or row after a row's last) is
      // issued before this chunk's compute.
      prefetch_ = t_.depth >= 2;
      if (prefetch_) LoadChunk(ChunkStep{0, 0, 0});
      for (int64_t r = 0; r < rows_; ++r) ProcessLongRow(r);
    } else {
      // Double-buffered, the next tile's copy-in is issued before this tile's compute (whose
      // reductions wait on the scalar pipe), so MTE2 runs while V works.
      const bool prefetch = t_.depth >= 2;
      if (prefetch) CopyInRows(0, TileRows(0));
      for (int64_t r = 0; r < rows_; r += t_.rows_per_tile) {
        const uint32_t n = TileRows(r);
        if (!prefetch) {
          CopyInRows(r, n);
        } else if (r + t_.rows_per_tile < rows_) {
          CopyInRows(r + t_.rows_per_tile, TileRows(r + t_.rows_per_tile));
        }
        ComputeRows(r, n);
        CopyOutRows(r, n);
      }
    }
  }

 private:
  // The rows of the one-pass tile starting at row `r` of this block.
  __aicore__ inline uint32_t TileRows(int64_t r) const {
    return static_cast<uint32_t>(rows_ - r < t_.rows_per_tile ? rows_ - r : t_.rows_per_tile);
  }

  // Loads columns [col, col + n) of the parameter vectors into param_f32_ (MTE2 -> V synced;
  // the previous chunk's readers finish first).
  __aicore__ inline void LoadParams(int64_t col, uint32_t n) {
    using namespace AscendC;
    for (int i = 0; i < 2; ++i) {
      if (t_.param[i] == nullptr) continue;
      SetFlag<HardEvent::V_MTE2>(EVENT_ID1);
      WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);
      const uint32_t ps = static_cast<uint32_t>(DTypeSize(t_.param_dtype[i]));
      LocalTensor<uint8_t> raw = param_raw_[i].Get<uint8_t>();
      DataCopyPad(raw, gm_param_[i][col * ps], DataCopyExtParams(1, n * ps, 0, 0, 0),
                  DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
      SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
      param_[i] = ToFloat(raw, t_.param_dtype[i], param_f32_[i].Get<float>(), n);
    }
  }

  // Starts row `row` of this block: value-initialised stats, then Begin with the row inputs.
  __aicore__ inline typename Hooks::Stats BeginRow(int64_t row) {
    typename Hooks::Stats s{};
    if constexpr (kRowIn > 0) {
      float v[kRowIn];
      for (int i = 0; i < kRowIn; ++i) {
        AscendC::GlobalTensor<float> g;
        g.SetGlobalBuffer(const_cast<float*>(t_.row_in[i]) + row0_ + row, 1);
        v[i] = g.GetValue(0);
      }
      Hooks::Begin(s, v);
    }
    return s;
  }

  __aicore__ inline void Accumulate(typename Hooks::Stats& s, const AscendC::LocalTensor<float>& x,
                                    const AscendC::LocalTensor<float>& x2, uint32_t n) {
    if constexpr (kTwoInputs) {
      Hooks::Accumulate(s, scratch_, x, x2, param_, n, t_);
    } else {
      Hooks::Accumulate(s, scratch_, x, n);
    }
  }
  __aicore__ inline void Apply(const typename Hooks::Stats& s, const AscendC::LocalTensor<float>& y,
                               const AscendC::LocalTensor<float>& x,
                               const AscendC::LocalTensor<float>& x2, uint32_t n) {
    if constexpr (kTwoInputs) {
      Hooks::Apply(s, scratch_, y, x, x2, param_, n, t_);
    } else {
      Hooks::Apply(s, scratch_, y, x, param_, n, t_);
    }
  }

  __aicore__ inline void WriteRowOutputs(int64_t row, const typename Hooks::Stats& s) {
    if constexpr (Hooks::kRowOutputs > 0) {
      float v[Hooks::kRowOutputs];
      Hooks::RowOutputs(s, v);
      for (int i = 0; i < Hooks::kRowOutputs; ++i) {
        if (t_.row_out[i] == nullptr) continue;
        AscendC::GlobalTensor<float> g;
        g.SetGlobalBuffer(t_.row_out[i] + row0_ + row, 1);
        g.SetValue(0, v[i]);
      }
    }
  }

  // One pass: rows [r, r + n) of this block.
  __aicore__ inline void CopyInRows(int64_t r, uint32_t n) {
    CopyInRowsOf(in_q_, gm_x_, t_.x_dtype, r, n);
    if constexpr (kTwoInputs) CopyInRowsOf(in2_q_, gm_x2_, t_.x2_dtype, r, n);
  }
  template <class Que>
  __aicore__ inline void CopyInRowsOf(Que& que, const AscendC::GlobalTensor<uint8_t>& gm, DType dt,
                                      int64_t r, uint32_t n) {
    using namespace AscendC;
    const uint32_t xs = static_cast<uint32_t>(DTypeSize(dt));
    const uint32_t len = static_cast<uint32_t>(t_.cols) * xs;
    const uint32_t gap = (t_.chunk * xs - (len + 31) / 32 * 32) / 32;  // to the UB pitch
    LocalTensor<uint8_t> ub_x = que.template AllocTensor<uint8_t>();   // (n, pitch) dt
    DataCopyPad(ub_x, gm[r * t_.cols * xs],
                DataCopyExtParams(static_cast<uint16_t>(n), len, 0, gap, 0),
                DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
    que.EnQue(ub_x);
  }

  // Converts and rewrites row by row (a row's UB padding is never computed on).
  __aicore__ inline void ComputeRows(int64_t r, uint32_t n) {
    using namespace AscendC;
    const uint32_t pitch = t_.chunk;
    const uint32_t cols = static_cast<uint32_t>(t_.cols);
    const uint32_t xs = static_cast<uint32_t>(DTypeSize(t_.x_dtype));
    const uint32_t ys = static_cast<uint32_t>(DTypeSize(t_.y_dtype));
    const bool write = t_.y != nullptr;
    LocalTensor<uint8_t> ub_x = in_q_.DeQue<uint8_t>();  // (n, pitch) x_dtype
    LocalTensor<uint8_t> ub_x2, ub_y;                    // (n, pitch) x2_dtype, y_dtype
    if constexpr (kTwoInputs) ub_x2 = in2_q_.DeQue<uint8_t>();
    if (write) ub_y = out_q_.AllocTensor<uint8_t>();
    for (uint32_t i = 0; i < n; ++i) {
      LocalTensor<float> x = ToFloat(ub_x[i * pitch * xs], t_.x_dtype, x_f32_row_, cols);
      LocalTensor<float> x2;
      if constexpr (kTwoInputs) {
        const uint32_t x2s = static_cast<uint32_t>(DTypeSize(t_.x2_dtype));
        x2 = ToFloat(ub_x2[i * pitch * x2s], t_.x2_dtype, x2_f32_row_, cols);
      }
      typename Hooks::Stats s = BeginRow(r + i);
      Accumulate(s, x, x2, cols);
      Hooks::Finish(s, t_);
      if (write) {
        LocalTensor<uint8_t> ub_y_row = ub_y[i * pitch * ys];
        LocalTensor<float> y = FloatView(ub_y_row, t_.y_dtype, y_f32_row_);
        Apply(s, y, x, x2, cols);
        FromFloat(ub_y_row, t_.y_dtype, y, cols);
      }
      WriteRowOutputs(r + i, s);
    }
    if (write) out_q_.EnQue(ub_y);
    in_q_.FreeTensor(ub_x);
    if constexpr (kTwoInputs) in2_q_.FreeTensor(ub_x2);
  }

  __aicore__ inline void CopyOutRows(int64_t r, uint32_t n) {
    using namespace AscendC;
    if (t_.y == nullptr) return;
    const uint32_t ys = static_cast<uint32_t>(DTypeSize(t_.y_dtype));
    const uint32_t len = static_cast<uint32_t>(t_.cols) * ys;
    const uint32_t gap = (t_.chunk * ys - (len + 31) / 32 * 32) / 32;
    LocalTensor<uint8_t> ub_y = out_q_.DeQue<uint8_t>();
    DataCopyPad(gm_y_[r * t_.cols * ys], ub_y,
                DataCopyExtParams(static_cast<uint16_t>(n), len, gap, 0, 0));
    out_q_.FreeTensor(ub_y);
  }

  // Online: a chunk's copy-in, at column `col` of row `row` of this block in pass `pass` (0
  // accumulates, 1 applies).
  struct ChunkStep {
    int64_t row, col;
    int pass;
  };
  // Returns the step after `s` in the order ProcessLongRow loads them (row == rows_: none).
  __aicore__ inline ChunkStep NextChunk(const ChunkStep& s) const {
    if (s.col + t_.chunk < t_.cols) return {s.row, s.col + t_.chunk, s.pass};
    if (s.pass == 0 && t_.y != nullptr) return {s.row, 0, 1};
    return {s.row + 1, 0, 0};
  }
  // Copies in the chunk of `s`: x, and x2 with two inputs.
  __aicore__ inline void LoadChunk(const ChunkStep& s) {
    const uint32_t n =
        static_cast<uint32_t>(t_.cols - s.col < t_.chunk ? t_.cols - s.col : t_.chunk);
    const uint64_t xs = DTypeSize(t_.x_dtype);
    CopyInChunk(in_q_, gm_x_, (s.row * t_.cols + s.col) * xs, n * static_cast<uint32_t>(xs));
    if constexpr (kTwoInputs) {
      const uint64_t x2s = DTypeSize(t_.x2_dtype);
      CopyInChunk(in2_q_, gm_x2_, (s.row * t_.cols + s.col) * x2s,
                  n * static_cast<uint32_t>(x2s));
    }
  }
  // Makes the chunk of `s` the next in the queues: copies it in, or (prefetching) copies in the
  // step after it, issued ahead of this chunk's compute.
  __aicore__ inline void StageChunk(const ChunkStep& s) {
    if (!prefetch_) {
      LoadChunk(s);
      return;
    }
    const ChunkStep next = NextChunk(s);
    if (next.row < rows_) LoadChunk(next);
  }

  // Online: row r of this block, in chunks, twice (once when there is no element output).
  __aicore__ inline void ProcessLongRow(int64_t r) {
    using namespace AscendC;
    const uint32_t ys = static_cast<uint32_t>(DTypeSize(t_.y_dtype));
    const uint64_t y_row = r * t_.cols * ys;
    typename Hooks::Stats s = BeginRow(r);
    for (int64_t c = 0; c < t_.cols; c += t_.chunk) {
      const uint32_t n = static_cast<uint32_t>(t_.cols - c < t_.chunk ? t_.cols - c : t_.chunk);
      StageChunk(ChunkStep{r, c, 0});
      LocalTensor<uint8_t> ub_x = in_q_.DeQue<uint8_t>();
      LocalTensor<float> x = ToFloat(ub_x, t_.x_dtype, x_f32_row_, n);
      if constexpr (kTwoInputs) {
        LoadParams(c, n);
        LocalTensor<uint8_t> ub_x2 = in2_q_.DeQue<uint8_t>();
        Accumulate(s, x, ToFloat(ub_x2, t_.x2_dtype, x2_f32_row_, n), n);
        in2_q_.FreeTensor(ub_x2);
      } else {
        Accumulate(s, x, x, n);
      }
      in_q_.FreeTensor(ub_x);
    }
    Hooks::Finish(s, t_);
    for (int64_t c = 0; t_.y != nullptr && c < t_.cols; c += t_.chunk) {
      const uint32_t n = static_cast<uint32_t>(t_.cols - c < t_.chunk ? t_.cols - c : t_.chunk);
      StageChunk(ChunkStep{r, c, 1});
      LoadParams(c, n);
      LocalTensor<uint8_t> ub_x = in_q_.DeQue<uint8_t>();
      LocalTensor<float> x = ToFloat(ub_x, t_.x_dtype, x_f32_row_, n);
      LocalTensor<uint8_t> ub_x2;
      LocalTensor<float> x2 = x;
      if constexpr (kTwoInputs) {
        ub_x2 = in2_q_.DeQue<uint8_t>();
        x2 = ToFloat(ub_x2, t_.x2_dtype, x2_f32_row_, n);
      }
      LocalTensor<uint8_t> ub_y = out_q_.AllocTensor<uint8_t>();  // (n,) y_dtype
      LocalTensor<float> y = FloatView(ub_y, t_.y_dtype, y_f32_row_);
      Apply(s, y, x, x2, n);
      FromFloat(ub_y, t_.y_dtype, y, n);
      out_q_.EnQue(ub_y);
      in_q_.FreeTensor(ub_x);
      if constexpr (kTwoInputs) in2_q_.FreeTensor(ub_x2);
      ub_y = out_q_.DeQue<uint8_t>();
      DataCopyPad(gm_y_[y_row + c * ys], ub_y, DataCopyExtParams(1, n * ys, 0, 0, 0));
      out_q_.FreeTensor(ub_y);
    }
    WriteRowOutputs(r, s);
  }

  template <class Que>
  __aicore__ inline void CopyInChunk(Que& que, const AscendC::GlobalTensor<uint8_t>& gm,
                                     uint64_t byte_offset, uint32_t bytes) {
    using namespace AscendC;
    LocalTensor<uint8_t> ub_x = que.template AllocTensor<uint8_t>();  // (n,) dtype
    DataCopyPad(ub_x, gm[byte_offset], DataCopyExtParams(1, bytes, 0, 0, 0),
                DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
    que.EnQue(ub_x);
  }

  RowReduceTiling t_;
  int64_t row0_ = 0, rows_ = 0;
  bool prefetch_ = false;  // online: the next chunk is copied in ahead of this one's compute
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> in_q_, in2_q_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 2> out_q_;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> x_f32_, x2_f32_, y_f32_, tmp_, result_, reduce_tmp_;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> param_raw_[2], param_f32_[2];
  AscendC::LocalTensor<float> param_[2];
  AscendC::LocalTensor<float> x_f32_row_, x2_f32_row_, y_f32_row_;  // empty for fp32 storage
  RowScratch scratch_;
  AscendC::GlobalTensor<uint8_t> gm_x_, gm_x2_, gm_y_, gm_param_[2];
};

// The kernel: one RowReduce per block.
template <class Hooks>
__aicore__ inline void RowReduceKernel(const RowReduceTiling& t) {
  RowReduce<Hooks> op;
  op.Init(t);
  op.Process();
}

}  // namespace aicore::ops::patterns
