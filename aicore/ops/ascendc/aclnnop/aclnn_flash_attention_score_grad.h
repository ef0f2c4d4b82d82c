// "aclnnop/aclnn_flash_attention_score_grad.h": the gradients dq, dk, dv of
// aclnnFlashAttentionScore from the forward's softmaxMax, softmaxSum and attentionIn.
// Implemented in aicore/ops/aclnn/aclnn_attention.cc (docs/ops.md) with the forward's rules;
// softmaxInOptional is not read and dpseOut not written (no pse).
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnFlashAttentionScoreGradGetWorkspaceSize(
    const aclTensor* query, const aclTensor* keyIn, const aclTensor* value, const aclTensor* dy,
    const aclTensor* pseShiftOptional, const aclTensor* dropMaskOptional,
    const aclTensor* paddingMaskOptional, const aclTensor* attenMaskOptional,
    const aclTensor* softmaxMaxOptional, const aclTensor* softmaxSumOptional,
    const aclTensor* softmaxInOptional, const aclTensor* attentionInOptional,
    const aclIntArray* prefixOptional, double scaleValue, double keepProb, int64_t preTokens,
    int64_t nextTokens, int64_t headNum, char* inputLayout, int64_t innerPrecise,
    int64_t sparseMode, const aclTensor* dqOut, const aclTensor* dkOut, const aclTensor* dvOut,
    const aclTensor* dpseOut, uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnFlashAttentionScoreGrad(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
