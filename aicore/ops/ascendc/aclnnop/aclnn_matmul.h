// "aclnnop/aclnn_matmul.h": torch.matmul: 1-D operands get a dim that out lacks (1-D @ 1-D
// is a 0-d out), batch dims (up to 6 dims in all) broadcast. Implemented in
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

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
                                        aclTensor* out, int8_t cubeMathType,
                                        uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnMatmul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream);

#ifdef __cplusplus
}
#endif
