// "aclnnop/aclnn_silu.h": SiLU: x * sigmoid(x). Implemented in aicore/ops/aclnn/aclnn_ops.cc over
// the operator library (docs/ops.md). Phase 1 checks and plans, phase 2 runs asynchronously on the
// stream and consumes the executor unless aclSetAclOpExecutorRepeatable was called. Failures return
// the documented aclnnStatus with a message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnSilu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream);

#ifdef __cplusplus
}
#endif
