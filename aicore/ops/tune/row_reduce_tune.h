// Strategy selection for RowReduce operators: the candidates of patterns::RowReduceCandidates,
// ranked by a modeled slice on the chip and measured on scratch operands on the host.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "aicore/ops/patterns/row_reduce_plan.h"
#include "aicore/ops/tune/tune.h"

namespace aicore::ops::tune {

// A RowReduce operator as the tuner runs it: its operands' dtypes and which of them exist, and
// the kernel. The tuner fills the tiling's addresses with scratch GM of its own.
struct RowReduceKernelSpec {
  std::string op;      // the cache's operator name: "softmax"
  std::string kernel;  // the launch name: "ops_softmax"
  DType x_dtype = DType::kF32;
  bool has_x2 = false;  // a second per-element input (the backward operators)
  DType x2_dtype = DType::kF32;
  bool writes_y = true;
  DType y_dtype = DType::kF32;
  int params = 0;  // per-column vectors in use (0..2: gamma, beta)
  DType param_dtype = DType::kF32;
  int row_outputs = 0;  // per-row fp32 outputs written (0..2)
  float eps = 0;
  std::function<void(const patterns::RowReduceTiling&)> body;  // RowReduceKernel<Hooks>(t)
};

// Returns the shape class of `rows` x `cols`: the exact columns (the UB fit depends on them) and
// the rows rounded up to a power of two, plus the UB cap when one is set.
std::string RowReduceShapeClass(int64_t rows, int64_t cols, uint64_t max_ub_bytes);

// Returns the plan for `rows` x `cols` (both > 0) that `request`'s mode selects on `chip` (the
// heuristic PlanRowReduce for off, at no cost); `decision` (nullable) gets the report. Modeled
// times run a slice of kModelTilesPerBlock tiles per block and scale it to the whole shape;
// measured times run at most kMeasureOperandBytes of x and scale by the rows.
patterns::RowReducePlan SelectRowReduce(const RowReduceKernelSpec& spec, int64_t rows, int64_t cols,
                                        uint64_t max_ub_bytes, const arch::Chip& chip,
                                        const Request& request, Decision* decision = nullptr);

}  // namespace aicore::ops::tune
