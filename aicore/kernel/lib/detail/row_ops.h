// Row-wise building blocks of the high-level APIs, made of the basic vector API so every step goes
// through the instruction funnel: per-row max/sum into broadcast DataBlocks, row-broadcast binary
// operations, and conversions between the block form and the documented sum/max layouts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "aicore/kernel/pipe/tpipe.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/vector/brcb.h"
#include "aicore/kernel/vector/cast.h"
#include "aicore/kernel/vector/elementwise.h"
#include "aicore/kernel/vector/reduce.h"
#include "aicore/kernel/vector/repeat.h"

namespace AscendC::lib {

// Note [Row block form]
// A per-row statistic (max, sum, mean, rstd) is kept in float as one 32-byte DataBlock per row:
// a compact [rows, 8] float array whose 8 values in a row are equal. A row-broadcast operation
// reads that block with block stride 0, so a vector instruction applies the row's value to every
// element of the row without a scalar read. Rows are `k` elements apart (k * sizeof(float) is a
// multiple of 32); reductions run over the first `valid` <= k elements of each row.

inline constexpr uint32_t kBlockBytes = 32;
inline constexpr uint32_t kFloatsPerBlock = 8;
inline constexpr uint32_t kFloatsPerRepeat = 64;
inline constexpr uint32_t kMaxRepeat = 255;

constexpr uint32_t AlignUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }
constexpr uint32_t CeilDiv(uint32_t x, uint32_t a) { return (x + a - 1) / a; }

// Bytes of the scratch one row reduction needs (ReduceMax's count form over `valid` floats).
constexpr uint32_t ReduceScratchBytes(uint32_t valid) {
  return AlignUp(2 * CeilDiv(valid, kFloatsPerRepeat), kFloatsPerBlock) * 4;
}
// Bytes of the pair vector and of the Brcb output for `rows` rows (see RowStat).
constexpr uint32_t PairBytes(uint32_t rows) { return AlignUp(2 * rows, kFloatsPerBlock) * 4; }
constexpr uint32_t PairBlockBytes(uint32_t rows) {
  return AlignUp(2 * rows, kFloatsPerBlock) * kBlockBytes;
}

// Scratch of the row helpers, carved by the caller from its temporary buffer.
struct RowScratch {
  LocalTensor<float> reduce;  // ReduceScratchBytes(valid)
  LocalTensor<float> pairs;   // PairBytes(rows)
  LocalTensor<float> blocks;  // PairBlockBytes(rows)
};

enum class RowKind { kMax, kSum };

// Writes block[i * 8 + j] = max or sum of x[i * k, i * k + valid) for rows i in [0, rows).
// See Note [Row block form]. x and block must not overlap the scratch.
inline void RowStat(RowKind kind, const LocalTensor<float>& block, const LocalTensor<float>& x,
                    uint32_t rows, uint32_t k, uint32_t valid, const RowScratch& s) {
  // ReduceMax stores a (value, index) pair, so results go to pairs[2 * i]; Brcb then spreads
  // pairs[p] over DataBlock p, and the blocks of even p are gathered into the compact form.
  const uint32_t npairs = AlignUp(2 * rows, kFloatsPerBlock);
  Duplicate(s.pairs, 0.0f, static_cast<int32_t>(npairs));
  for (uint32_t i = 0; i < rows; ++i) {
    if (kind == RowKind::kMax) {
      ReduceMax(s.pairs[2 * i], x[i * k], s.reduce, static_cast<int32_t>(valid));
    } else {
      ReduceSum(s.pairs[2 * i], x[i * k], s.reduce, static_cast<int32_t>(valid));
    }
  }
  for (uint32_t p = 0; p < npairs; p += 8 * kMaxRepeat) {
    const uint32_t rep = std::min(kMaxRepeat, (npairs - p) / 8);
    Brcb(s.blocks[p * 8], s.pairs[p], static_cast<uint8_t>(rep), BrcbRepeatParams(1, 8));
  }
  for (uint32_t i = 0; i < rows; i += kMaxRepeat) {
    const uint32_t rep = std::min(kMaxRepeat, rows - i);
    Muls(block[i * 8], s.blocks[i * 16], 1.0f, uint64_t{8}, static_cast<uint8_t>(rep),
         UnaryRepeatParams(1, 1, 1, 2));
  }
}

// dst[i, :k] = op(src[i, :k], block row i) for rows i in [0, rows); op is a level-0 binary API
// called as op(dst, src0, src1, mask, repeat, params). dst may alias src.
template <typename Op>
void RowBroadcast(Op op, const LocalTensor<float>& dst, const LocalTensor<float>& src,
                  const LocalTensor<float>& block, uint32_t rows, uint32_t k) {
  if (k <= kFloatsPerRepeat) {
    // One repeat per row: rows go in one instruction, the block advancing one DataBlock a row.
    const uint8_t row_blocks = static_cast<uint8_t>(k / kFloatsPerBlock);
    for (uint32_t i = 0; i < rows; i += kMaxRepeat) {
      const uint32_t rep = std::min(kMaxRepeat, rows - i);
      op(dst[i * k], src[i * k], block[i * 8], uint64_t{k}, static_cast<uint8_t>(rep),
         BinaryRepeatParams(1, 1, 0, row_blocks, row_blocks, 1));
    }
    return;
  }
  const uint32_t full = k / kFloatsPerRepeat;
  const uint32_t tail = k % kFloatsPerRepeat;
  const uint32_t cols = full + (tail != 0);
  if (k / kFloatsPerBlock <= kMaxRepeat && cols < rows) {
    // Fewer column strips than rows: one instruction per 64-column strip repeats down the rows.
    const uint8_t row_blocks = static_cast<uint8_t>(k / kFloatsPerBlock);
    for (uint32_t j = 0; j < cols; ++j) {
      const uint64_t mask = j < full ? kFloatsPerRepeat : tail;
      for (uint32_t i = 0; i < rows; i += kMaxRepeat) {
        const uint32_t rep = std::min(kMaxRepeat, rows - i);
        const uint32_t off = i * k + j * kFloatsPerRepeat;
        op(dst[off], src[off], block[i * 8], mask, static_cast<uint8_t>(rep),
           BinaryRepeatParams(1, 1, 0, row_blocks, row_blocks, 1));
      }
    }
    return;
  }
  for (uint32_t i = 0; i < rows; ++i) {
    const uint32_t row = i * k;
    for (uint32_t j = 0; j < full; j += kMaxRepeat) {
      const uint32_t rep = std::min(kMaxRepeat, full - j);
      const uint32_t off = row + j * kFloatsPerRepeat;
      op(dst[off], src[off], block[i * 8], uint64_t{kFloatsPerRepeat}, static_cast<uint8_t>(rep),
         BinaryRepeatParams(1, 1, 0, 8, 8, 0));
    }
    if (tail != 0) {
      const uint32_t off = row + full * kFloatsPerRepeat;
      op(dst[off], src[off], block[i * 8], uint64_t{tail}, uint8_t{1},
         BinaryRepeatParams(1, 1, 0, 8, 8, 0));
    }
  }
}

// dst[i, :k] = op(src[i, :k], v) for a vector v of k floats shared by every row (gamma, beta).
template <typename Op>
void RowVector(Op op, const LocalTensor<float>& dst, const LocalTensor<float>& src,
               const LocalTensor<float>& v, uint32_t rows, uint32_t k) {
  if (k <= kFloatsPerRepeat) {
    const uint8_t row_blocks = static_cast<uint8_t>(k / kFloatsPerBlock);
    for (uint32_t i = 0; i < rows; i += kMaxRepeat) {
      const uint32_t rep = std::min(kMaxRepeat, rows - i);
      op(dst[i * k], src[i * k], v, uint64_t{k}, static_cast<uint8_t>(rep),
         BinaryRepeatParams(1, 1, 1, row_blocks, row_blocks, 0));
    }
    return;
  }
  const uint32_t full = k / kFloatsPerRepeat;
  const uint32_t tail = k % kFloatsPerRepeat;
  const uint32_t cols = full + (tail != 0);
  if (k / kFloatsPerBlock <= kMaxRepeat && cols < rows) {
    const uint8_t row_blocks = static_cast<uint8_t>(k / kFloatsPerBlock);
    for (uint32_t j = 0; j < cols; ++j) {
      const uint64_t mask = j < full ? kFloatsPerRepeat : tail;
      for (uint32_t i = 0; i < rows; i += kMaxRepeat) {
        const uint32_t rep = std::min(kMaxRepeat, rows - i);
        const uint32_t off = i * k + j * kFloatsPerRepeat;
        op(dst[off], src[off], v[j * kFloatsPerRepeat], mask, static_cast<uint8_t>(rep),
           BinaryRepeatParams(1, 1, 1, row_blocks, row_blocks, 0));
      }
    }
    return;
  }
  for (uint32_t i = 0; i < rows; ++i) op(dst[i * k], src[i * k], v, static_cast<int32_t>(k));
}

#define AICORE_LIB_OP(Name)                                                   \
  struct Name##Op {                                                           \
    template <typename... A>                                                  \
    void operator()(const A&... a) const {                                    \
      Name(a...);                                                             \
    }                                                                         \
  };
AICORE_LIB_OP(Sub)
AICORE_LIB_OP(Mul)
AICORE_LIB_OP(Div)
AICORE_LIB_OP(Add)
#undef AICORE_LIB_OP

// Copies or converts n elements into float (n counts elements of src).
template <typename T>
void ToFloat(const LocalTensor<float>& dst, const LocalTensor<T>& src, uint32_t n) {
  if constexpr (std::is_same_v<T, float>) {
    Muls(dst, src, 1.0f, static_cast<int32_t>(n));
  } else {
    Cast(dst, src, RoundMode::CAST_NONE, n);
  }
}
// Copies or rounds n floats into T.
template <typename T>
void FromFloat(const LocalTensor<T>& dst, const LocalTensor<float>& src, uint32_t n) {
  if constexpr (std::is_same_v<T, float>) {
    Muls(dst, src, 1.0f, static_cast<int32_t>(n));
  } else {
    Cast(dst, src, RoundMode::CAST_RINT, n);
  }
}

// Bytes StatOut needs in `vec` and `half_vec` (the block scratch is RowScratch::blocks).
constexpr uint32_t StatVecBytes(uint32_t rows) { return AlignUp(rows, kFloatsPerBlock) * 4; }
constexpr uint32_t StatHalfVecBytes(uint32_t rows) { return AlignUp(rows, 16) * 2; }

// Writes the per-row value of `block` (Note [Row block form]) as one value per row: out[i].
template <typename U>
void BlockToVector(const LocalTensor<U>& out, const LocalTensor<float>& block, uint32_t rows,
                   const LocalTensor<float>& vec) {
  // 254 rows a call keep every destination on the 8-byte boundary WholeReduceMax requires.
  constexpr uint32_t kRows = kMaxRepeat - 1;
  for (uint32_t i = 0; i < rows; i += kRows) {
    const int32_t rep = static_cast<int32_t>(std::min(kRows, rows - i));
    WholeReduceMax(vec[i], block[i * 8], 8, rep, 1, 1, 1, ReduceOrder::ORDER_ONLY_VALUE);
  }
  FromFloat(out, vec, rows);
}

// Writes the documented sum/max layout: [rows, 32 / sizeof(U)] with a row's value repeated.
template <typename U>
void BlockToStat(const LocalTensor<U>& out, const LocalTensor<float>& block, uint32_t rows,
                 const RowScratch& s, const LocalTensor<float>& vec,
                 const LocalTensor<half>& half_vec) {
  if constexpr (std::is_same_v<U, float>) {
    (void)s; (void)vec; (void)half_vec;
    Muls(out, block, 1.0f, static_cast<int32_t>(rows * 8));
  } else {
    BlockToVector(half_vec, block, rows, vec);
    const LocalTensor<half> hb = s.blocks.template ReinterpretCast<half>();
    const uint32_t n = AlignUp(rows, 8);
    for (uint32_t p = 0; p < n; p += 8 * kMaxRepeat) {
      const uint32_t rep = std::min(kMaxRepeat, (n - p) / 8);
      Brcb(hb[p * 16], half_vec[p], static_cast<uint8_t>(rep), BrcbRepeatParams(1, 8));
    }
    Muls(out, hb, static_cast<half>(1.0f), static_cast<int32_t>(rows * 16));
  }
}

// Reads the documented sum/max layout into the block form (first 8 values of each row).
template <typename U>
void StatToBlock(const LocalTensor<float>& block, const LocalTensor<U>& in, uint32_t rows) {
  if constexpr (std::is_same_v<U, float>) {
    Muls(block, in, 1.0f, static_cast<int32_t>(rows * 8));
  } else {
    for (uint32_t i = 0; i < rows; i += kMaxRepeat) {
      const uint32_t rep = std::min(kMaxRepeat, rows - i);
      Cast(block[i * 8], in[i * 16], RoundMode::CAST_NONE, uint64_t{8},
           static_cast<uint8_t>(rep), UnaryRepeatParams(1, 1, 1, 1));
    }
  }
}

// Fails when dst[0, dst_n) and src[0, src_n) share a byte (APIs whose docs forbid overlap).
template <typename T>
void CheckNoOverlap(const char* api, const LocalTensor<T>& dst, uint32_t dst_n,
                    const LocalTensor<T>& src, uint32_t src_n, const detail::SrcLoc& loc) {
  const T* d = dst.data();
  const T* s = src.data();
  if (dst_n != 0 && src_n != 0 && d < s + src_n && s < d + dst_n) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc,
                 "dst and src overlap; the documentation forbids it");
  }
}

// Returns the UB from the end of the live TPipe's allocations to the end of UB, as the AscendC
// overloads without sharedTmpBuffer use it; fails when no TPipe is live.
LocalTensor<uint8_t> PopStackBuffer(const char* api, detail::SrcLoc loc);

}  // namespace AscendC::lib

namespace AscendC {

// The documented PopStackBuffer<T, pos>(buffer): sets `buffer` to the UB after the live TPipe's
// buffers (what the high-level APIs without sharedTmpBuffer use) and returns true; fails when no
// TPipe is live.
template <typename T, TPosition pos>
bool PopStackBuffer(LocalTensor<T>& buffer, detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(pos == TPosition::LCM || pos == TPosition::VECCALC,
                "PopStackBuffer: the stack buffer is in UB (TPosition::LCM)");
  buffer = lib::PopStackBuffer("PopStackBuffer", loc).template ReinterpretCast<T>();
  return true;
}

}  // namespace AscendC
