// "aclnnop/aclnn_layer_norm.h": layer normalisation over the trailing normalizedShape axes, with
// optional mean / rstd outputs shaped [A.., 1..1]. Implemented in aicore/ops/aclnn/aclnn_ops.cc
// over the operator library (docs/ops.md). Phase 1 checks and plans, phase 2 runs asynchronously on
// the stream and consumes the executor unless aclSetAclOpExecutorRepeatable was called. Failures
// return the documented aclnnStatus with a message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnLayerNormGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional,
    const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional,
    aclTensor* rstdOutOptional, uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                           aclrtStream stream);

#ifdef __cplusplus
}
#endif
