// "aclnnop/aclnn_flash_attention_score.h": fused attention, out = Softmax(Mask(scale * Q K^T)) V,
// with the softmax row max and sum saved for the backward ([B, N, Sq, 8] FLOAT). Implemented in
// aicore/ops/aclnn/aclnn_attention.cc over aicore/ops/attention/ (docs/ops.md): layouts BSH, SBH,
// BSND, BNSD; GQA/MQA; attenMask BOOL/UINT8 (1 = masked out); sparseMode 0..4; keepProb 1 only
// (161002 otherwise); realShift, prefix: null only. Phase 1 checks and plans, phase 2 runs
// asynchronously on the stream. Failures return the documented aclnnStatus with a message in
// aclGetRecentErrMsg().
#pragma once

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnFlashAttentionScoreGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* realShiftOptional, const aclTensor* dropMaskOptional,
    const aclTensor* paddingMaskOptional, const aclTensor* attenMaskOptional,
    const aclIntArray* prefixOptional, double scaleValue, double keepProb, int64_t preTokens,
    int64_t nextTokens, int64_t headNum, char* inputLayout, int64_t innerPrecise,
    int64_t sparseMode, const aclTensor* softmaxMaxOut, const aclTensor* softmaxSumOut,
    const aclTensor* softmaxOutOut, const aclTensor* attentionOutOut, uint64_t* workspaceSize,
    aclOpExecutor** executor);
aclnnStatus aclnnFlashAttentionScore(void* workspace, uint64_t workspaceSize,
                                     aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif
