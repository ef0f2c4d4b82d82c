// "aclnnop/aclnn_rms_norm.h": RMS normalisation over gamma's trailing axes; rstdOut (FLOAT) is
// required. Implemented in aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md).
// Phase 1 checks and plans, phase 2 runs asynchronously on the stream and consumes the executor
// unless aclSetAclOpExecutorRepeatable was called. Failures return the documented aclnnStatus with
// a message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                         const aclTensor* yOut, const aclTensor* rstdOut,
                                         uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream);

#ifdef __cplusplus
}
#endif
