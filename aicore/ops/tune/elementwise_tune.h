// Strategy selection for ElementwisePipeline operators: the candidates of
// patterns::ElementwiseCandidates, ranked by a modeled slice on the chip and measured on scratch
// operands on the host.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "aicore/ops/patterns/elementwise_plan.h"
#include "aicore/ops/tune/tune.h"

namespace aicore::ops::tune {

// An elementwise operator as the tuner runs it. The tuner fills the tiling's addresses, total,
// split and tile with its own scratch GM and candidates; `scalar` reaches the hooks.
struct ElementwiseKernelSpec {
  std::string op;      // the cache's operator name: "add"
  std::string kernel;  // the launch name: "ops_add"
  int inputs = 1;      // 1..patterns::kMaxElementwiseInputs
  int temps = 0;
  DType in_dtype[patterns::kMaxElementwiseInputs] = {};
  DType out_dtype = DType::kF32;
  float scalar[4] = {};
  std::function<void(const patterns::ElementwiseTiling&)> body;  // ElementwiseKernel<Hooks>(t)
};

// Returns the shape class of `total` elements: the count rounded up to a power of two.
std::string ElementwiseShapeClass(int64_t total);

// Fills `tiling` (total, per_block, tile, depth) and returns the block count for `total` (>= 0)
// elements as `request`'s mode selects (the heuristic for off, at no cost); `decision`
// (nullable) gets the report. Modeled times run kModelTilesPerBlock tiles per block, scaled;
// measured times run at most kMeasureOperandBytes per operand, scaled by the elements.
uint32_t SelectElementwise(const ElementwiseKernelSpec& spec, int64_t total, const arch::Chip& chip,
                           const Request& request, patterns::ElementwiseTiling* tiling,
                           Decision* decision = nullptr);

}  // namespace aicore::ops::tune
