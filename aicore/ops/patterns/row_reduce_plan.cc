// RowReduce planning:
// - pitch = cols rounded up to 16 elements (a whole number of 32-byte blocks for every dtype).
// - One pass when one row fits: rows_per_tile = what the budget holds, capped by the rows of a
//   block and DataCopyPad's 4095 blocks.
// - Otherwise online: chunk = the budget for one row, rounded down to 64 elements.
// - Rows are split evenly over min(rows, vector cores) blocks.
#include "aicore/ops/patterns/row_reduce_plan.h"

#include <algorithm>

namespace aicore::ops::patterns {

RowReducePlan PlanRowReduce(int64_t rows, int64_t cols, const arch::Chip& chip,
                            uint64_t max_ub_bytes, int inputs) {
  const uint32_t in = inputs == 2 ? 2 : 1;
  RowReducePlan p;
  const ChipBudget b = BudgetOf(chip);
  uint64_t budget = b.ub_bytes;
  if (max_ub_bytes > 0) budget = std::min(budget, max_ub_bytes);
  p.block_dim = static_cast<uint32_t>(std::min<int64_t>(rows, b.cores));
  const int64_t per_block = (rows + p.block_dim - 1) / p.block_dim;
  p.tiling.rows = rows;
  p.tiling.cols = cols;
  p.tiling.rows_per_block = per_block;
  const uint64_t pitch = (static_cast<uint64_t>(cols) + 15) / 16 * 16;
  const uint64_t fixed =
      32 +
      uint64_t{ReduceTmpFloats(static_cast<uint32_t>(std::min<uint64_t>(pitch, 1u << 30)))} * 4;
  const uint64_t one_row = RowReduceBytesPerElement(1, in) * pitch + fixed;
  if (one_row <= budget) {
    // 4 * ((3 + 3 in) R + 5) * pitch + fixed <= budget.
    const uint64_t per_pitch = (budget - fixed) / (4 * pitch);
    uint64_t r = per_pitch >= 5 ? (per_pitch - 5) / (3 + 3 * in) : 1;
    r = std::max<uint64_t>(1, std::min<uint64_t>({r, static_cast<uint64_t>(per_block), 4095}));
    p.tiling.online = false;
    p.tiling.chunk = static_cast<uint32_t>(pitch);
    p.tiling.rows_per_tile = static_cast<uint32_t>(r);
  } else {
    // bytes(1, in) * chunk + 8 * chunk / 64 + 64 <= budget.
    uint64_t chunk = (budget - 64) / (RowReduceBytesPerElement(1, in) + 1) / 64 * 64;
    chunk = std::max<uint64_t>(64, chunk);
    p.tiling.online = true;
    p.tiling.chunk = static_cast<uint32_t>(chunk);
    p.tiling.rows_per_tile = 1;
  }
  return p;
}

}  // namespace aicore::ops::patterns
