// "aclnnop/aclnn_gelu.h": GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Implemented in aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md). Phase 1
// checks and plans, phase 2 runs asynchronously on the stream and consumes the executor unless
// aclSetAclOpExecutorRepeatable was called. Failures return the documented aclnnStatus with a
// message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnGelu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream);

#ifdef __cplusplus
}
#endif
