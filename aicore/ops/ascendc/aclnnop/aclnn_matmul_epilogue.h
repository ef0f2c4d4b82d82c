// "aclnnop/aclnn_matmul_epilogue.h": an aicore extension, not a CANN operator. The matmul with a
// fused epilogue,
//   out = act(alpha * a @ b + beta * bias) + residual,
// as one mix kernel: AscendC's Matmul on the AICs, the epilogue on the AIVs, each block of the
// product handed over through a GM workspace with cross-core flags (docs/ops.md, "Matmul with
// epilogue"). a (batch.., M, K) and b (batch.., K, N) have 2 to 6 dims, batch dims broadcasting
// (a batch of 1 included), and one dtype: FLOAT, FLOAT16 or BFLOAT16; the product accumulates in
// fp32; out (batch.., M, N) is in that dtype or FLOAT. biasOptional and residualOptional (null:
// absent) broadcast to out's shape, in any of the three dtypes. Transposed or sliced a and b
// (strided views with one unit stride per matrix) are read without a copy.
//
// The usual two-phase contract: phase 1 checks and plans and reports the workspace; phase 2 runs
// asynchronously on the stream and consumes the executor unless aclSetAclOpExecutorRepeatable was
// called. Status codes, with a message naming the argument in aclGetRecentErrMsg():
//   161001 (ACLNN_ERR_PARAM_NULLPTR)  a, b or out null (or null storage), workspaceSize or
//                                     executor null;
//   161002 (ACLNN_ERR_PARAM_INVALID)  a dtype outside FLOAT/FLOAT16/BFLOAT16, a and b of different
//                                     dtypes, out in another dtype, ranks outside 2..6, K or batch
//                                     dims that do not match, out's shape, bias or residual not
//                                     broadcasting to it, activation outside 0..4, out sharing
//                                     memory with a, b or bias, or with residual other than as
//                                     its very view (in place), out with several elements at one
//                                     location (a stride-0 dim), a chip without separate AIC and
//                                     AIV cores.
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// The activation argument.
#define ACLNN_AICORE_ACTIVATION_NONE 0
#define ACLNN_AICORE_ACTIVATION_RELU 1
#define ACLNN_AICORE_ACTIVATION_GELU_ERF 2
#define ACLNN_AICORE_ACTIVATION_GELU_TANH 3
#define ACLNN_AICORE_ACTIVATION_SILU 4

aclnnStatus aclnnAicoreMatmulEpilogueGetWorkspaceSize(const aclTensor* a, const aclTensor* b,
                                                      const aclTensor* biasOptional,
                                                      const aclTensor* residualOptional,
                                                      double alpha, double beta, int64_t activation,
                                                      aclTensor* out, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);
aclnnStatus aclnnAicoreMatmulEpilogue(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
