// The aclnn entry points of flash attention (aclnnop/aclnn_flash_attention_score.h and
// aclnn_flash_attention_score_grad.h): phase 1 converts the descriptors (161001 for a null
// required tensor or layout, BOOL masks read as UINT8), runs the operator's CanImplement and
// Plan and leaves an executor whose run re-reads the tensor addresses (aclSet*TensorAddr index
// the inputs and outputs in the signature's order, absent optionals included) and calls Launch.
// Phase 2 is RunExecutor (aclnn/descriptors.h). No exception crosses the C boundary.
#include <functional>
#include <string>
#include <vector>

#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aicore/ops/aclnn/descriptors.h"
#include "aicore/ops/aclnn/prepare.h"
#include "aicore/ops/aclnn/tensor_ref.h"
#include "aicore/ops/attention/flash_attention.h"

namespace aicore::ops {
namespace {

aclnnStatus Attrs(const char* api, double scale, double keep_prob, int64_t pre, int64_t next,
                  int64_t head_num, const char* layout, int64_t inner_precise, int64_t sparse_mode,
                  FlashAttentionAttrs* a) {
  if (layout == nullptr) return Report(api, ACLNN_ERR_PARAM_NULLPTR, "inputLayout is null");
  a->scale = scale;
  a->keep_prob = keep_prob;
  a->pre_tokens = pre;
  a->next_tokens = next;
  a->head_num = head_num;
  a->layout = layout;
  a->inner_precise = inner_precise;
  a->sparse_mode = sparse_mode;
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace aicore::ops

using aicore::ops::FlashAttentionArgs;
using aicore::ops::FlashAttentionGradArgs;
using aicore::ops::RunExecutor;
using aicore::ops::TensorRef;

aclnnStatus aclnnFlashAttentionScoreGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* realShiftOptional, const aclTensor* dropMaskOptional,
    const aclTensor* paddingMaskOptional, const aclTensor* attenMaskOptional,
    const aclIntArray* prefixOptional, double scaleValue, double keepProb, int64_t preTokens,
    int64_t nextTokens, int64_t headNum, char* inputLayout, int64_t innerPrecise,
    int64_t sparseMode, const aclTensor* softmaxMaxOut, const aclTensor* softmaxSumOut,
    const aclTensor* /*softmaxOutOut: documented as unused*/, const aclTensor* attentionOutOut,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aicore::ops;
  constexpr const char* kApi = "aclnnFlashAttentionScore";
  FlashAttentionArgs a;
  aclnnStatus s;
  if ((s = ToRef(kApi, "query", query, &a.query)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "key", key, &a.key)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "value", value, &a.value)) != ACLNN_SUCCESS) {
    return s;
  }
  a.has_pse = realShiftOptional != nullptr;
  a.has_drop_mask = dropMaskOptional != nullptr;
  a.has_padding_mask = paddingMaskOptional != nullptr;
  a.has_prefix = prefixOptional != nullptr;
  a.has_mask = attenMaskOptional != nullptr;
  if (a.has_mask &&
      (s = ToRef(kApi, "attenMaskOptional", attenMaskOptional, &a.atten_mask,
                  TensorRole::kMask)) != ACLNN_SUCCESS) {
    return s;
  }
  if ((s = Attrs(kApi, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                 innerPrecise, sparseMode, &a.attrs)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "softmaxMaxOut", softmaxMaxOut, &a.softmax_max)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "softmaxSumOut", softmaxSumOut, &a.softmax_sum)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "attentionOutOut", attentionOutOut, &a.attention_out)) != ACLNN_SUCCESS) {
    return s;
  }
  return Prepare<FlashAttentionArgs>(
      kApi, a,
      [](FlashAttentionArgs& x) {
        return std::vector<TensorRef*>{&x.query,
                                       &x.key,
                                       &x.value,
                                       nullptr,
                                       nullptr,
                                       nullptr,
                                       x.has_mask ? &x.atten_mask : nullptr};
      },
      [](FlashAttentionArgs& x) {
        return std::vector<TensorRef*>{&x.softmax_max, &x.softmax_sum, nullptr, &x.attention_out};
      },
      workspaceSize, executor);
}

aclnnStatus aclnnFlashAttentionScore(void* workspace, uint64_t workspaceSize,
                                     aclOpExecutor* executor, const aclrtStream stream) {
  return RunExecutor("aclnnFlashAttentionScore", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnFlashAttentionScoreGradGetWorkspaceSize(
    const aclTensor* query, const aclTensor* keyIn, const aclTensor* value, const aclTensor* dy,
    const aclTensor* pseShiftOptional, const aclTensor* dropMaskOptional,
    const aclTensor* paddingMaskOptional, const aclTensor* attenMaskOptional,
    const aclTensor* softmaxMaxOptional, const aclTensor* softmaxSumOptional,
    const aclTensor* /*softmaxInOptional: not read*/, const aclTensor* attentionInOptional,
    const aclIntArray* prefixOptional, double scaleValue, double keepProb, int64_t preTokens,
    int64_t nextTokens, int64_t headNum, char* inputLayout, int64_t innerPrecise,
    int64_t sparseMode, const aclTensor* dqOut, const aclTensor* dkOut, const aclTensor* dvOut,
    const aclTensor* /*dpseOut: no pse*/, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aicore::ops;
  constexpr const char* kApi = "aclnnFlashAttentionScoreGrad";
  FlashAttentionGradArgs a;
  aclnnStatus s;
  if ((s = ToRef(kApi, "query", query, &a.query)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "keyIn", keyIn, &a.key)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "value", value, &a.value)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "dy", dy, &a.dy)) != ACLNN_SUCCESS) {
    return s;
  }
  a.has_pse = pseShiftOptional != nullptr;
  a.has_drop_mask = dropMaskOptional != nullptr;
  a.has_padding_mask = paddingMaskOptional != nullptr;
  a.has_prefix = prefixOptional != nullptr;
  a.has_mask = attenMaskOptional != nullptr;
  if (a.has_mask &&
      (s = ToRef(kApi, "attenMaskOptional", attenMaskOptional, &a.atten_mask,
                  TensorRole::kMask)) != ACLNN_SUCCESS) {
    return s;
  }
  // The forward's statistics and output are required here (the backward recomputes P from them).
  if ((s = ToRef(kApi, "softmaxMaxOptional", softmaxMaxOptional, &a.softmax_max)) !=
          ACLNN_SUCCESS ||
      (s = ToRef(kApi, "softmaxSumOptional", softmaxSumOptional, &a.softmax_sum)) !=
          ACLNN_SUCCESS ||
      (s = ToRef(kApi, "attentionInOptional", attentionInOptional, &a.attention_in)) !=
          ACLNN_SUCCESS ||
      (s = Attrs(kApi, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                 innerPrecise, sparseMode, &a.attrs)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "dqOut", dqOut, &a.dq)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "dkOut", dkOut, &a.dk)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "dvOut", dvOut, &a.dv)) != ACLNN_SUCCESS) {
    return s;
  }
  return Prepare<FlashAttentionGradArgs>(
      kApi, a,
      [](FlashAttentionGradArgs& x) {
        return std::vector<TensorRef*>{
            &x.query,       &x.key,         &x.value, &x.dy,
            nullptr,        nullptr,        nullptr,  x.has_mask ? &x.atten_mask : nullptr,
            &x.softmax_max, &x.softmax_sum, nullptr,  &x.attention_in};
      },
      [](FlashAttentionGradArgs& x) {
        return std::vector<TensorRef*>{&x.dq, &x.dk, &x.dv, nullptr};
      },
      workspaceSize, executor);
}

aclnnStatus aclnnFlashAttentionScoreGrad(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, const aclrtStream stream) {
  return RunExecutor("aclnnFlashAttentionScoreGrad", workspace, workspaceSize, executor, stream);
}
