// "aclnnop/aclnn_addmm.h": out (m, n) = beta * self + alpha * mat1 (m, k) @ mat2 (k, n); self
// is 1-D or 2-D and broadcasts to (m, n); beta = 0 ignores self. aclnnInplaceAddmm writes selfRef.
// Implemented in aicore/ops/aclnn/aclnn_ops.cc over the operator library (docs/ops.md): a cube
// kernel over AscendC's Matmul with fp32 accumulation. Phase 1 checks and plans, phase 2 runs
// asynchronously on the stream and consumes the executor unless aclSetAclOpExecutorRepeatable was
// called. cubeMathType: 0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32, 4
// USE_FP32_ADD (docs/api-coverage.md says how each runs). Failures return the documented
// aclnnStatus with a message in aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1,
                                       const aclTensor* mat2, const aclScalar* beta,
                                       const aclScalar* alpha, aclTensor* out, int8_t cubeMathType,
                                       uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream);
aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* mat1,
                                              const aclTensor* mat2, const aclScalar* beta,
                                              const aclScalar* alpha, int8_t cubeMathType,
                                              uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnInplaceAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream);

#ifdef __cplusplus
}
#endif
