// RowReduce planning:
// - pitch = cols rounded up to 16 elements (a whole number of 32-byte blocks for every dtype).
// - UB bytes: RowReduceUbBytes of the operands' storage (queue slots in the storage dtype, so a
//   16-bit row costs half an fp32 one, plus one fp32 conversion row per 16-bit operand).
// - One pass when one row fits: rows_per_tile = what the budget holds, capped by the rows of a
//   block and DataCopyPad's 4095 blocks.
// - Otherwise online: chunk = the budget for one row, rounded down to 64 elements.
// - Rows are split evenly over min(rows, vector cores / split) blocks.
// - Candidates for strategy selection vary rows_per_tile (a smaller tile starts the pipeline
//   sooner and leaves less tail), the chunk, one pass against online, the split and the queue
//   depth (depth 1 gives up the MTE2/V overlap for larger tiles, or for one pass over rows that
//   only fit single-buffered).
#include "aicore/ops/patterns/row_reduce_plan.h"

#include <algorithm>

namespace aicore::ops::patterns {

namespace {

// The budget facts of rows of `cols` columns.
struct RowBudget {
  uint64_t budget = 0;
  uint64_t pitch = 0;
  bool row_fits = false;
  uint32_t max_rows = 1;    // one pass: the most rows per tile the budget holds (<= 4095)
  uint32_t max_chunk = 64;  // online: the largest chunk the budget holds
};

RowBudget BudgetFor(int64_t cols, const arch::Chip& chip, uint64_t max_ub_bytes,
                    const RowReduceStorage& s, uint32_t depth) {
  RowBudget r;
  r.budget = BudgetOf(chip).ub_bytes;
  if (max_ub_bytes > 0) r.budget = std::min(r.budget, max_ub_bytes);
  r.pitch = (static_cast<uint64_t>(cols) + 15) / 16 * 16;
  r.row_fits = RowReduceUbBytes(s, r.pitch, 1, depth) <= r.budget;
  if (r.row_fits) {
    // The bytes are affine in the rows per tile.
    const uint64_t fixed = RowReduceUbBytes(s, r.pitch, 0, depth);
    const uint64_t per_row = RowReduceUbBytes(s, r.pitch, 1, depth) - fixed;
    r.max_rows = static_cast<uint32_t>(std::clamp<uint64_t>((r.budget - fixed) / per_row, 1, 4095));
  }
  // The bytes grow with the chunk: the estimate from the bytes of 64 columns, then down to a fit.
  const uint64_t per64 = RowReduceUbBytes(s, 128, 1, depth) - RowReduceUbBytes(s, 64, 1, depth);
  uint64_t chunk = std::max<uint64_t>(64, r.budget / per64 * 64);
  while (chunk > 64 && RowReduceUbBytes(s, chunk, 1, depth) > r.budget) chunk -= 64;
  r.max_chunk = static_cast<uint32_t>(std::min<uint64_t>(chunk, 1u << 30));
  return r;
}

}  // namespace

RowReduceKnobs HeuristicRowReduceKnobs(int64_t cols, const arch::Chip& chip, uint64_t max_ub_bytes,
                                       const RowReduceStorage& storage) {
  const RowBudget b = BudgetFor(cols, chip, max_ub_bytes, storage, 2);
  RowReduceKnobs k;
  k.online = !b.row_fits;
  k.rows_per_tile = b.row_fits ? b.max_rows : 1;
  k.chunk = b.row_fits ? 0 : b.max_chunk;
  return k;
}

RowReducePlan RealizeRowReduce(int64_t rows, int64_t cols, const arch::Chip& chip,
                               const RowReduceKnobs& knobs) {
  RowReducePlan p;
  const uint32_t cores = BudgetOf(chip).cores;
  const uint32_t blocks = std::max<uint32_t>(1, cores / std::max<uint32_t>(1, knobs.split));
  p.block_dim = static_cast<uint32_t>(std::min<int64_t>(rows, blocks));
  const int64_t per_block = (rows + p.block_dim - 1) / p.block_dim;
  p.tiling.rows = rows;
  p.tiling.cols = cols;
  p.tiling.rows_per_block = per_block;
  p.tiling.online = knobs.online;
  p.tiling.depth = knobs.depth;
  if (knobs.online) {
    p.tiling.chunk = knobs.chunk;
    p.tiling.rows_per_tile = 1;
  } else {
    p.tiling.chunk = static_cast<uint32_t>((static_cast<uint64_t>(cols) + 15) / 16 * 16);
    p.tiling.rows_per_tile = static_cast<uint32_t>(
        std::max<int64_t>(1, std::min<int64_t>(knobs.rows_per_tile, per_block)));
  }
  return p;
}

std::vector<RowReduceKnobs> RowReduceCandidates(int64_t rows, int64_t cols, const arch::Chip& chip,
                                                uint64_t max_ub_bytes,
                                                const RowReduceStorage& storage) {
  const RowBudget b = BudgetFor(cols, chip, max_ub_bytes, storage, 2);
  const RowBudget single = BudgetFor(cols, chip, max_ub_bytes, storage, 1);
  std::vector<RowReduceKnobs> out;
  auto add = [&](RowReduceKnobs k) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  add(HeuristicRowReduceKnobs(cols, chip, max_ub_bytes, storage));
  const uint32_t cores = BudgetOf(chip).cores;
  std::vector<uint32_t> splits = {1};
  if (cores >= 2 && rows >= 2) splits.push_back(2);
  for (uint32_t split : splits) {
    if (b.row_fits) {
      for (uint32_t r : {b.max_rows, (b.max_rows + 1) / 2, (b.max_rows + 3) / 4, 1u}) {
        add({false, std::max<uint32_t>(1, r), 0, split, 2});
      }
      // Online for a row that fits: two chunks per row, read twice.
      const uint64_t half = (static_cast<uint64_t>(cols) / 2 + 63) / 64 * 64;
      if (cols >= 128 && half < static_cast<uint64_t>(cols)) {
        add({true, 1, static_cast<uint32_t>(std::min<uint64_t>(b.max_chunk, half)), split, 2});
      }
    } else {
      for (uint32_t c : {b.max_chunk, b.max_chunk / 2 / 64 * 64, b.max_chunk / 4 / 64 * 64}) {
        add({true, 1, std::max<uint32_t>(64, c), split, 2});
      }
    }
    if (single.row_fits) {
      add({false, single.max_rows, 0, split, 1});
    } else {
      add({true, 1, single.max_chunk, split, 1});
    }
  }
  return out;
}

std::string RowReduceKnobsLabel(const RowReduceKnobs& k) {
  const std::string tail =
      " split=" + std::to_string(k.split) + " depth=" + std::to_string(k.depth);
  if (k.online) return "online chunk=" + std::to_string(k.chunk) + tail;
  return "one_pass rows_per_tile=" + std::to_string(k.rows_per_tile) + tail;
}

RowReducePlan PlanRowReduce(int64_t rows, int64_t cols, const arch::Chip& chip,
                            uint64_t max_ub_bytes, const RowReduceStorage& storage) {
  return RealizeRowReduce(rows, cols, chip,
                          HeuristicRowReduceKnobs(cols, chip, max_ub_bytes, storage));
}

}  // namespace aicore::ops::patterns
