// LayerNorm (mean and rstd outputs) and RmsNorm (rstd output) over the trailing axes of fp32,
// fp16 and bf16 views, computed in fp32 by RowReduce kernels: one pass when a row fits UB, else
// the online pass (shifted sums for layer norm, a running sum of squares for RMS
// norm).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/patterns/row_reduce_plan.h"
#include "aicore/ops/tune/tune.h"

namespace aicore::ops {

struct LayerNormArgs {
  const char* op = "aclnnLayerNorm";
  TensorRef input;
  std::vector<int64_t> normalized_shape;
  std::optional<TensorRef> weight, bias;  // absent: ones, zeros
  double eps = 1e-5;
  TensorRef out;
  std::optional<TensorRef> mean, rstd;  // absent: not written
  uint64_t max_ub_bytes = 0;            // > 0: cap the UB budget (tests)
};

struct RmsNormArgs {
  const char* op = "aclnnRmsNorm";
  TensorRef x;
  TensorRef gamma;
  double epsilon = 1e-6;
  TensorRef y;
  TensorRef rstd;
  uint64_t max_ub_bytes = 0;
};

struct NormPlan {
  patterns::RowReducePlan rows;
  int64_t m = 0, n = 0;  // rows (leading product), columns (normalized product)
  uint64_t workspace_bytes = 0;
  const arch::Chip* chip = nullptr;
};

// LayerNorm: 161002 for rank outside 1..8, a dtype outside fp32/fp16/bf16, normalizedShape empty,
// longer than the rank or not input's trailing dims, weight/bias of another shape or of a dtype
// other than input's or FLOAT or of different dtypes, out not input's shape and dtype, mean/rstd
// not [A.., 1..1].
OpCheck CanImplement(const LayerNormArgs& args, const arch::Chip& chip);
// Plans with strategy selection as AICORE_TUNE says (throws aicore::Error for a bad value).
NormPlan Plan(const LayerNormArgs& args, const arch::Chip& chip);
// As Plan, with strategy selection as `request` says; `decision` (nullable) gets its report.
NormPlan Plan(const LayerNormArgs& args, const arch::Chip& chip, const tune::Request& request,
              tune::Decision* decision);
// M == 0 enqueues nothing; N == 0 fills mean with 0 and rstd with NaN.
Status Launch(const LayerNormArgs& args, const NormPlan& plan, void* workspace, const void* stream);

// RmsNorm: 161002 for a dtype set outside the documented ones (x fp32/fp16/bf16, gamma x's or
// FLOAT, y x's, rstd FLOAT); 561002 for the shape rules (x rank 1..8, gamma = x's trailing dims,
// y = x's shape, rstd = x's shape with 1 on the normalized axes).
OpCheck CanImplement(const RmsNormArgs& args, const arch::Chip& chip);
// Plans with strategy selection as AICORE_TUNE says (throws aicore::Error for a bad value).
NormPlan Plan(const RmsNormArgs& args, const arch::Chip& chip);
NormPlan Plan(const RmsNormArgs& args, const arch::Chip& chip, const tune::Request& request,
              tune::Decision* decision);
Status Launch(const RmsNormArgs& args, const NormPlan& plan, void* workspace, const void* stream);

// LayerNormBackward over the trailing normalizedShape axes. With g = gradOut, xhat = (input -
// mean) * rstd and w = weight (ones when absent): gradInput = rstd * (g w - mean_row(g w) - xhat *
// mean_row(g w xhat)), gradWeight = sum_rows(g xhat), gradBias = sum_rows(g). outputMask[i] false
// skips output i (which may then be absent).
struct LayerNormBackwardArgs {
  const char* op = "aclnnLayerNormBackward";
  TensorRef grad_out;
  TensorRef input;
  std::vector<int64_t> normalized_shape;
  TensorRef mean, rstd;  // [A.., 1..1], as the forward wrote them
  std::optional<TensorRef> weight, bias;
  std::vector<bool> output_mask = {true, true, true};  // dx, dw, db
  std::optional<TensorRef> grad_input, grad_weight, grad_bias;
  uint64_t max_ub_bytes = 0;  // > 0: cap the UB budget (tests)
};

struct LayerNormBackwardPlan {
  patterns::RowReducePlan dx;   // rows of (M, N): gradInput
  patterns::RowReducePlan dwb;  // rows of the transposed (N, M): gradWeight, gradBias
  int64_t m = 0, n = 0;
  uint64_t dx_bytes = 0;  // the dx pass's staging; the dw/db pass's follows
  uint64_t workspace_bytes = 0;
  const arch::Chip* chip = nullptr;
};

// 161002 for: outputMask not of 3 entries, rank outside 1..8, an empty input (not supported, as
// documented), dtypes outside fp32/fp16/bf16, gradOut not input's dtype and shape, normalizedShape
// not input's trailing dims, mean/rstd of different dtypes or narrower than input or not [A..,
// 1..1], weight/bias not normalizedShape, gradInput not input's dtype and shape, gradWeight/
// gradBias not normalizedShape's shape (and weight's dtype when weight is given). 161001 for an
// output whose mask entry is true but which is absent.
OpCheck CanImplement(const LayerNormBackwardArgs& args, const arch::Chip& chip);
LayerNormBackwardPlan Plan(const LayerNormBackwardArgs& args, const arch::Chip& chip);
Status Launch(const LayerNormBackwardArgs& args, const LayerNormBackwardPlan& plan, void* workspace,
              const void* stream);

}  // namespace aicore::ops
