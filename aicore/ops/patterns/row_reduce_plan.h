// The host half of RowReduce: the strategy (one pass or online), rows per tile, chunk and the
// split of rows over blocks, from the chip's UB budget; and the candidate plans strategy
// selection (aicore/ops/tune/) ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/patterns/row_reduce.h"

namespace aicore::ops::patterns {

struct RowReducePlan {
  RowReduceTiling tiling;  // addresses filled at launch
  uint32_t block_dim = 1;
};

// What makes a RowReduce plan, independent of the row count: a plan for any rows follows from
// these and (rows, cols) by RealizeRowReduce.
struct RowReduceKnobs {
  bool online = false;
  uint32_t rows_per_tile = 1;  // one pass: rows per DataCopyPad (capped by a block's rows)
  uint32_t chunk = 0;          // online: columns per UB piece (a multiple of 64)
  uint32_t split = 1;          // the rows go over max(1, vector cores / split) blocks
  uint32_t depth = 2;          // queue buffers (1 or 2)
  bool operator==(const RowReduceKnobs&) const = default;
};

// Returns the heuristic's knobs for rows of `cols` columns (> 0) of operands stored as `storage`
// (RowReduceUbBytes budgets them; the default is one fp32 input, an fp32 output and two
// parameter vectors): one pass with as many rows as the budget holds when a row fits, else online
// with the largest chunk; split 1, depth 2. `max_ub_bytes` > 0 caps the budget (tests force the
// online pass).
RowReduceKnobs HeuristicRowReduceKnobs(int64_t cols, const arch::Chip& chip,
                                       uint64_t max_ub_bytes = 0,
                                       const RowReduceStorage& storage = {});
// Returns the plan of `knobs` for `rows` rows of `cols` columns (both > 0) on `chip`.
RowReducePlan RealizeRowReduce(int64_t rows, int64_t cols, const arch::Chip& chip,
                               const RowReduceKnobs& knobs);
// Returns the candidate knobs strategy selection ranks, the heuristic's first, each fitting the
// budget: at depth 2, one pass with the budget's rows per tile, a half and a quarter of it and 1,
// and the online pass (the only strategy when a row does not fit: the largest chunk, a half, a
// quarter); at depth 1, one pass with its budget's rows when a row fits single-buffered, else
// online with its largest chunk; each over all vector cores and over half of them. Duplicates
// are dropped.
std::vector<RowReduceKnobs> RowReduceCandidates(int64_t rows, int64_t cols, const arch::Chip& chip,
                                                uint64_t max_ub_bytes = 0,
                                                const RowReduceStorage& storage = {});
// Returns "one_pass rows_per_tile=8 split=1 depth=2" or "online chunk=16384 split=2 depth=1".
std::string RowReduceKnobsLabel(const RowReduceKnobs& knobs);

// Plans `rows` rows of `cols` columns (both > 0) of a RowReduce whose operands are stored as
// `storage` (a storage with wider dtypes or more operands than the launch's is safe, a narrower
// one overflows UB): the heuristic knobs, realized. `max_ub_bytes` > 0 caps the budget (tests
// force the online pass).
RowReducePlan PlanRowReduce(int64_t rows, int64_t cols, const arch::Chip& chip,
                            uint64_t max_ub_bytes = 0, const RowReduceStorage& storage = {});

}  // namespace aicore::ops::patterns
