// Softmax and LogSoftmax along one dim (negative dims count from the end) of fp32, fp16 and bf16
// views of rank 0..8, computed in fp32 by RowReduce kernels (one pass, or the online pass with a
// running max and rescaled sum for rows longer than UB), and SoftmaxBackward.
#pragma once

#include <cstdint>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/patterns/row_reduce_plan.h"
#include "aicore/ops/tune/tune.h"

namespace aicore::ops {

struct SoftmaxArgs {
  const char* op = "aclnnSoftmax";
  TensorRef self;
  int64_t dim = -1;
  TensorRef out;
  bool log = false;           // LogSoftmax
  uint64_t max_ub_bytes = 0;  // > 0: cap the UB budget (tests force the online pass)
};

struct SoftmaxPlan {
  patterns::RowReducePlan rows;
  int64_t dim = 0;  // normalized to [0, rank)
  uint64_t workspace_bytes = 0;
  const arch::Chip* chip = nullptr;
};

// Checks dtypes (fp32/fp16/bf16 self and out; they may differ: the result is cast to out),
// rank (<= 8; LogSoftmax >= 1), out's shape == self's, dim in [-r, r-1] with r = max(rank, 1).
OpCheck CanImplement(const SoftmaxArgs& args, const arch::Chip& chip);
// Plans the rows with strategy selection as AICORE_TUNE says (tune::RequestFromEnv; throws
// aicore::Error for a bad AICORE_TUNE).
SoftmaxPlan Plan(const SoftmaxArgs& args, const arch::Chip& chip);
// As Plan, with strategy selection as `request` says; `decision` (nullable) gets its report.
SoftmaxPlan Plan(const SoftmaxArgs& args, const arch::Chip& chip, const tune::Request& request,
                 tune::Decision* decision);
Status Launch(const SoftmaxArgs& args, const SoftmaxPlan& plan, void* workspace,
              const void* stream);

// SoftmaxBackward: out = y * (g - sum_dim(g * y)) for g = gradOutput, y = output (the forward's
// result), along dim, by a two-input RowReduce kernel.
struct SoftmaxBackwardArgs {
  const char* op = "aclnnSoftmaxBackward";
  TensorRef grad_output;
  TensorRef output;
  int64_t dim = -1;
  TensorRef out;
  uint64_t max_ub_bytes = 0;  // > 0: cap the UB budget (tests force the online pass)
};

// Checks dtypes (fp32/fp16/bf16; output's dtype and shape equal gradOutput's; out's shape too,
// its dtype any of the three: the result is cast), rank <= 8, dim in [-r, r-1].
OpCheck CanImplement(const SoftmaxBackwardArgs& args, const arch::Chip& chip);
// Plans with strategy selection as AICORE_TUNE says (throws aicore::Error for a bad value).
SoftmaxPlan Plan(const SoftmaxBackwardArgs& args, const arch::Chip& chip);
SoftmaxPlan Plan(const SoftmaxBackwardArgs& args, const arch::Chip& chip,
                 const tune::Request& request, tune::Decision* decision);
Status Launch(const SoftmaxBackwardArgs& args, const SoftmaxPlan& plan, void* workspace,
              const void* stream);

}  // namespace aicore::ops
