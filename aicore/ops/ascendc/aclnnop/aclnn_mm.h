// "aclnnop/aclnn_mm.h": out (m, n) = self (m, k) @ mat2 (k, n). Implemented in
// aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md): a cube kernel over
// AscendC's Matmul with fp32 accumulation. Phase 1 checks and plans, phase 2 runs asynchronously on
// the stream and consumes the executor unless aclSetAclOpExecutorRepeatable was called.
// cubeMathType: 0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32, 4 USE_FP32_ADD
// (docs/api-coverage.md says how each runs). Failures return the documented aclnnStatus with a
// message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                    int8_t cubeMathType, uint64_t* workspaceSize,
                                    aclOpExecutor** executor);
aclnnStatus aclnnMm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                    aclrtStream stream);

#ifdef __cplusplus
}
#endif
