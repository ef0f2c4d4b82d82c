// "aclnnop/aclnn_layer_norm_backward.h": the gradients of layer norm from the forward's mean and
// rstd; outputMask [gradInput, gradWeight, gradBias] (exactly 3 entries) selects the outputs, and
// an output whose entry is false may be null. A null weight means ones. Implemented in
// aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md). Phase 1 checks and plans,
// phase 2 runs asynchronously on the stream and consumes the executor unless
// aclSetAclOpExecutorRepeatable was called. Failures return the documented aclnnStatus with a
// message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape,
    const aclTensor* mean, const aclTensor* rstd, const aclTensor* weightOptional,
    const aclTensor* biasOptional, const aclBoolArray* outputMask, aclTensor* gradInputOut,
    aclTensor* gradWeightOut, aclTensor* gradBiasOut, uint64_t* workspaceSize,
    aclOpExecutor** executor);
aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif
