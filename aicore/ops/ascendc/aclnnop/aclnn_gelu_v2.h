// "aclnnop/aclnn_gelu_v2.h": GELU with approximate 0 ("none": erf) or 1 ("tanh"); other values mean
// 0. Implemented in aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md). Phase 1
// checks and plans, phase 2 runs asynchronously on the stream and consumes the executor unless
// aclSetAclOpExecutorRepeatable was called. Failures return the documented aclnnStatus with a
// message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate, aclTensor* y,
                                        uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnGeluV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream);

#ifdef __cplusplus
}
#endif
