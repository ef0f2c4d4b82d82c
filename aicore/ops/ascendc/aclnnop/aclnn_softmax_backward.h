// "aclnnop/aclnn_softmax_backward.h": the gradient of softmax along dim, out = output * (gradOutput
// - sum_dim(gradOutput * output)), out cast to its dtype. Implemented in
// aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md). Phase 1 checks and plans,
// phase 2 runs asynchronously on the stream and consumes the executor unless
// aclSetAclOpExecutorRepeatable was called. Failures return the documented aclnnStatus with a
// message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                 const aclTensor* output, int64_t dim,
                                                 aclTensor* out, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor);
aclnnStatus aclnnSoftmaxBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif
