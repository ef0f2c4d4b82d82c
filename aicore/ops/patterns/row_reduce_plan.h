// The host half of RowReduce: the strategy (one pass or online), rows per tile, chunk and the
// split of rows over blocks, from the chip's UB budget.
#pragma once

#include <cstdint>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/patterns/row_reduce.h"

namespace aicore::ops::patterns {

struct RowReducePlan {
  RowReduceTiling tiling;  // addresses filled at launch
  uint32_t block_dim = 1;
};

// Plans `rows` rows of `cols` columns (both > 0) of a RowReduce with `inputs` (1 or 2) per-element
// inputs and parameter vectors in use (their UB is budgeted whether used or not). `max_ub_bytes`
// > 0 caps the budget (tests force the online pass).
RowReducePlan PlanRowReduce(int64_t rows, int64_t cols, const arch::Chip& chip,
                            uint64_t max_ub_bytes = 0, int inputs = 1);

}  // namespace aicore::ops::patterns
