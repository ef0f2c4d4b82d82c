// The level-0 ("high-dimensional") vector form: a mask selects elements of each 256-byte repeat,
// block and repeat strides place each operand's DataBlocks, and the mask mode (normal or counter)
// decides how many elements each repeat covers. RepeatParams structs, the mask setters, and
// ForEachRun, which turns one such call into contiguous runs for the engine.
//
// Address of element e of repeat r for an operand with element size es (all strides in 32-byte
// DataBlocks):  base + (r*repStride + floor(e*es/32)*blkStride)*32 + (e*es mod 32).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/types.h"

namespace AscendC {

struct BinaryRepeatParams {
  BinaryRepeatParams() = default;
  BinaryRepeatParams(uint8_t dstBlkStrideIn, uint8_t src0BlkStrideIn, uint8_t src1BlkStrideIn,
                     uint8_t dstRepStrideIn, uint8_t src0RepStrideIn, uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn),
        src1BlkStride(src1BlkStrideIn), dstRepStride(dstRepStrideIn),
        src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

struct UnaryRepeatParams {
  UnaryRepeatParams() = default;
  UnaryRepeatParams(uint16_t dstBlkStrideIn, uint16_t srcBlkStrideIn, uint8_t dstRepStrideIn,
                    uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
  UnaryRepeatParams(uint16_t dstBlkStrideIn, uint16_t srcBlkStrideIn, uint8_t dstRepStrideIn,
                    uint8_t srcRepStrideIn, bool halfBlockIn)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
  bool halfBlock = false;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

// Sets the mask later level-0 calls with isSetMask = false use. Normal mode: (high, low) bits;
// counter mode: `low` is the element count.
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
  auto& core = detail::Core();
  core.vector_mask = {maskLow, maskHigh};
  (void)mode;
}
// Sets a continuous mask of `len` elements (normal mode) or a count of `len` (counter mode).
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(int32_t len) {
  auto& core = detail::Core();
  if (core.mask_counter_mode || mode == MaskMode::COUNTER) {
    core.vector_mask = {static_cast<uint64_t>(len), 0};
    return;
  }
  const int32_t per_repeat = 256 / static_cast<int32_t>(sizeof(T));
  const int32_t n = len < 0 ? 0 : (len > per_repeat ? per_repeat : len);
  uint64_t lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
  uint64_t hi = n <= 64 ? 0 : (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1));
  core.vector_mask = {lo, hi};
}
inline void SetMaskCount() { detail::Core().mask_counter_mode = true; }
inline void SetMaskNorm() { detail::Core().mask_counter_mode = false; }
inline void ResetMask() { detail::Core().vector_mask = {~0ull, ~0ull}; }

namespace detail {

// One operand of a level-0 call.
struct Operand {
  uint8_t* base = nullptr;
  uint64_t bytes = 0;        // extent of the tensor
  uint32_t esize = 0;        // element size in bytes
  uint32_t blk_stride = 1;   // DataBlocks
  uint32_t rep_stride = 8;   // DataBlocks
};

// Which elements of each repeat are active.
struct RepeatMask {
  bool counter = false;
  uint64_t bits[2] = {~0ull, ~0ull};
  uint64_t count = 0;  // counter mode: total elements
};

// Resolves the effective mask: the argument when isSetMask, else the core's SetVectorMask value;
// in counter mode the (low) value is an element count.
RepeatMask ResolveMask(bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                       uint32_t per_repeat, const char* api, const SrcLoc& loc);
// Returns true when element e of a repeat is active.
inline bool Active(const RepeatMask& m, uint32_t e) {
  return ((m.bits[e >> 6] >> (e & 63)) & 1u) != 0;
}

// The lanes [0, per_repeat) of a normal-mode mask as two words, the lanes past per_repeat
// cleared (per_repeat <= 128).
inline void LaneWords(const RepeatMask& m, uint32_t per_repeat, uint64_t* lo, uint64_t* hi) {
  *lo = per_repeat < 64 ? m.bits[0] & ((1ull << per_repeat) - 1) : m.bits[0];
  *hi = per_repeat <= 64    ? 0
        : per_repeat < 128 ? m.bits[1] & ((1ull << (per_repeat - 64)) - 1)
                           : m.bits[1];
}
// Returns one past the highest active lane below `per_repeat` of a normal-mode mask (0 when no
// lane is active).
inline uint32_t ActiveEnd(const RepeatMask& m, uint32_t per_repeat) {
  if (per_repeat > 128) {
    uint32_t end = 0;
    for (uint32_t e = 0; e < per_repeat; ++e) end = Active(m, e) ? e + 1 : end;
    return end;
  }
  uint64_t lo, hi;
  LaneWords(m, per_repeat, &lo, &hi);
  if (hi != 0) return 128 - static_cast<uint32_t>(std::countl_zero(hi));
  return 64 - static_cast<uint32_t>(std::countl_zero(lo));
}
// Returns how many lanes from lane 0 on are active (below `per_repeat`) in a normal-mode mask.
inline uint32_t ActivePrefix(const RepeatMask& m, uint32_t per_repeat) {
  if (per_repeat > 128) {
    uint32_t n = 0;
    while (n < per_repeat && Active(m, n)) ++n;
    return n;
  }
  uint64_t lo, hi;
  LaneWords(m, per_repeat, &lo, &hi);
  const uint32_t n = static_cast<uint32_t>(std::countr_one(lo));
  return n == 64 ? 64 + static_cast<uint32_t>(std::countr_one(hi)) : n;
}

// Runs of one length, one per repeat: run r of operand k starts at base[k] + r * pitch[k] bytes;
// an operand whose bit k is set in `block` is the 32-byte DataBlock there repeated along the run
// (block stride 0).
struct RowRuns {
  uint8_t* base[4] = {};
  uint64_t pitch[4] = {};
  uint64_t len = 0;
  uint32_t rows = 0;
  unsigned block = 0;
};

// Validates strides, repeat count and every operand's extent, then calls
// fn(ptrs[0..nops), n) for each maximal run of active elements that is contiguous in every
// operand. Returns the number of elements processed. `per_repeat` is elements per repeat.
// When fn also takes a RowRuns, calls made one per repeat with the same length (operands with
// adjacent or repeated blocks and a prefix mask) come as one fn(RowRuns) instead, in the same
// order; a repeated block is then fn's to spread (it may overlap the destination).
template <int N, typename Fn>
uint64_t ForEachRun(Operand (&ops)[N], uint32_t per_repeat, const RepeatMask& mask,
                    uint32_t repeat, const char* api, const SrcLoc& loc, Fn&& fn);

// Fails unless every operand's farthest accessed byte lies within its extent, the repeat count is
// at most 255 and operands start on 32-byte boundaries. `roles` names the operands in messages
// (default "dst", "src0", "src1", "src2"); the first operand is taken as the destination (its
// block stride must not be 0) unless `first_is_dst` is false.
void CheckLevel0Extent(const Operand* ops, int n, uint32_t per_repeat, const RepeatMask& mask,
                       uint32_t repeat, const char* api, const SrcLoc& loc,
                       const char* const* roles = nullptr, bool first_is_dst = true);

// Returns the number of repeats a call runs: `repeat`, or in counter mode enough repeats for the
// mask's element count.
// A count needing more than 255 repeats gives 256, which CheckLevel0Extent rejects (computing it in
// 32 bits would wrap a huge count to a small repeat count that passes the check).
inline uint32_t EffectiveRepeats(const RepeatMask& mask, uint32_t per_repeat, uint32_t repeat) {
  if (!mask.counter) return repeat;
  const uint64_t reps = mask.count / per_repeat + (mask.count % per_repeat != 0 ? 1 : 0);
  return static_cast<uint32_t>(std::min<uint64_t>(reps, 256));
}

// Calls fn(r, e, ptrs) for every active element e of every repeat r, in order, with ptrs[k] the
// element's address in operand k (see the formula at the top of this file). Does no checks: call
// CheckLevel0Extent first. For APIs whose per-element work is not a contiguous engine loop
// (Compare, Select).
template <int N, typename Fn>
void ForEachActive(const Operand (&ops)[N], uint32_t per_repeat, const RepeatMask& mask,
                   uint32_t repeat, Fn&& fn) {
  uint8_t* p[N];
  for (uint32_t r = 0; r < repeat; ++r) {
    const uint32_t limit = mask.counter ? static_cast<uint32_t>(std::min<uint64_t>(
                                              per_repeat, mask.count - uint64_t{r} * per_repeat))
                                        : per_repeat;
    for (uint32_t e = 0; e < limit; ++e) {
      if (!mask.counter && !Active(mask, e)) continue;
      for (int k = 0; k < N; ++k) {
        const uint64_t byte = uint64_t{e} * ops[k].esize;
        p[k] = ops[k].base +
               (uint64_t{r} * ops[k].rep_stride + byte / 32 * ops[k].blk_stride) * 32 + byte % 32;
      }
      fn(r, e, p);
    }
  }
}

template <int N, typename Fn>
uint64_t ForEachRun(Operand (&ops)[N], uint32_t per_repeat, const RepeatMask& mask,
                    uint32_t repeat, const char* api, const SrcLoc& loc, Fn&& fn) {
  repeat = EffectiveRepeats(mask, per_repeat, repeat);
  if (repeat == 0) return 0;
  CheckLevel0Extent(ops, N, per_repeat, mask, repeat, api, loc);
  bool unit_blocks = true;
  bool dense_repeats = true;
  for (const Operand& op : ops) {
    unit_blocks = unit_blocks && op.blk_stride == 1;
    dense_repeats = dense_repeats && op.rep_stride * 32u == per_repeat * op.esize;
  }
  bool full_mask = mask.counter;
  if (!mask.counter) {
    if (per_repeat >= 128) full_mask = mask.bits[0] == ~0ull && mask.bits[1] == ~0ull;
    else if (per_repeat == 64) full_mask = mask.bits[0] == ~0ull;
    else full_mask = mask.bits[0] == (1ull << per_repeat) - 1;
  }
  uint8_t* p[N];
  uint64_t processed = 0;
  if (unit_blocks && dense_repeats && full_mask) {
    const uint64_t total = mask.counter ? mask.count : uint64_t{repeat} * per_repeat;
    for (int k = 0; k < N; ++k) p[k] = ops[k].base;
    fn(p, total);
    return total;
  }
  // Operands with adjacent blocks, or sources that repeat one DataBlock (block stride 0: a
  // per-row value Brcb spread over a block), and the active lanes a prefix of each repeat: each
  // repeat is one run, not one per DataBlock or per lane scanned. A repeated block is copied out
  // along the repeat first (before the run writes, as the hardware reads a repeat's operands
  // before it writes).
  bool run_per_repeat = ops[0].blk_stride == 1;
  for (const Operand& op : ops) {
    run_per_repeat = run_per_repeat &&
                       (op.blk_stride == 1 || (op.blk_stride == 0 && per_repeat * op.esize <= 256));
  }
  uint32_t prefix = per_repeat;  // active lanes of a normal-mode mask, when they are a prefix
  if (run_per_repeat && !mask.counter) {
    prefix = ActivePrefix(mask, per_repeat);
    run_per_repeat = ActiveEnd(mask, per_repeat) == prefix;
  }
  if constexpr (std::is_invocable_v<Fn&, const RowRuns&>) {
    if (run_per_repeat) {
      RowRuns rr;
      for (int k = 0; k < N; ++k) {
        rr.base[k] = ops[k].base;
        rr.pitch[k] = uint64_t{ops[k].rep_stride} * 32;
        if (ops[k].blk_stride == 0) rr.block |= 1u << k;
      }
      // Normal mode: every repeat covers the prefix. Counter mode: whole repeats, then the rest.
      rr.len = mask.counter ? per_repeat : prefix;
      rr.rows = mask.counter ? static_cast<uint32_t>(mask.count / per_repeat) : repeat;
      if (rr.rows > 0 && rr.len > 0) fn(static_cast<const RowRuns&>(rr));
      processed = uint64_t{rr.rows} * rr.len;
      if (mask.counter && mask.count % per_repeat != 0) {
        for (int k = 0; k < N; ++k) rr.base[k] += uint64_t{rr.rows} * rr.pitch[k];
        rr.len = mask.count % per_repeat;
        rr.rows = 1;
        fn(static_cast<const RowRuns&>(rr));
        processed += rr.len;
      }
      return processed;
    }
  }
  if (run_per_repeat) {
    alignas(64) uint8_t copies[N][256];
    for (uint32_t r = 0; r < repeat; ++r) {
      const uint32_t limit =
          mask.counter
              ? static_cast<uint32_t>(std::min<uint64_t>(per_repeat,
                                                         mask.count - uint64_t{r} * per_repeat))
              : prefix;
      if (limit == 0) continue;
      for (int k = 0; k < N; ++k) {
        uint8_t* at = ops[k].base + uint64_t{r} * ops[k].rep_stride * 32;
        if (ops[k].blk_stride == 0) {
          const uint64_t bytes = uint64_t{limit} * ops[k].esize;
          // Whole blocks: the block at `at` is one 32-byte DataBlock of UB, and copies[k] holds
          // a repeat's 256 bytes.
          for (uint64_t b = 0; b < bytes; b += 32) std::memcpy(copies[k] + b, at, 32);
          at = copies[k];
        }
        p[k] = at;
      }
      fn(p, limit);
      processed += limit;
    }
    return processed;
  }
  for (uint32_t r = 0; r < repeat; ++r) {
    const uint32_t limit = mask.counter ? static_cast<uint32_t>(std::min<uint64_t>(
                                              per_repeat, mask.count - uint64_t{r} * per_repeat))
                                        : per_repeat;
    uint32_t e = 0;
    while (e < limit) {
      if (!mask.counter && !Active(mask, e)) {
        ++e;
        continue;
      }
      uint32_t end = e + 1;
      while (end < limit && (mask.counter || Active(mask, end))) ++end;
      // Split at DataBlock boundaries of operands whose blocks are not adjacent.
      uint32_t s = e;
      while (s < end) {
        uint32_t stop = end;
        for (const Operand& op : ops) {
          if (op.blk_stride == 1) continue;
          const uint32_t per_block = 32u / op.esize;
          const uint32_t block_end = (s / per_block + 1) * per_block;
          if (block_end < stop) stop = block_end;
        }
        for (int k = 0; k < N; ++k) {
          const uint64_t byte = uint64_t{s} * ops[k].esize;
          p[k] = ops[k].base +
                 (uint64_t{r} * ops[k].rep_stride + byte / 32 * ops[k].blk_stride) * 32 +
                 byte % 32;
        }
        fn(p, stop - s);
        processed += stop - s;
        s = stop;
      }
      e = end;
    }
  }
  return processed;
}

}  // namespace detail
}  // namespace AscendC
