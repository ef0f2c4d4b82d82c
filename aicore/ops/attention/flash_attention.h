// Fused attention as aclnnFlashAttentionScore / aclnnFlashAttentionScoreGrad define it:
// out = Softmax(Mask(scale * Q K^T)) V over layouts BNSD, BSND, BSH and SBH, GQA/MQA (fewer K/V
// heads), an explicit mask (1 = masked out) and the sparse modes 0 (mask and pre/next tokens),
// 1 (mask only), 2 (left-up causal), 3 (right-down causal) and 4 (band), fp32/fp16/bf16 inputs,
// by the FlashAttention mix kernels (aicore/ops/patterns/flash_attention.h). The forward's cube
// reads Q, K and V in their dtype and accumulates in fp32; the online softmax and its statistics
// are fp32, P is rounded to the input dtype for P V, the output from the fp32 accumulator. The
// backward likewise reads Q, K, V, dy and O in their dtype, rounds P and dS to it for their
// products and writes dq/dk/dv from fp32 accumulators. The forward's softmaxMax/softmaxSum
// ([B, N, Sq, 8] fp32) feed the backward. Also the unfused
// composition of the same forward from the library's own operators (matmul, muls, add, softmax,
// matmul through GM), for tests and benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/ops/framework/operator.h"

namespace aicore::ops {

// The documented limits.
inline constexpr int64_t kFaMaxHeadDim = 768;
inline constexpr int64_t kFaMaxHeads = 256;
inline constexpr int64_t kFaMaxSeq = int64_t{1} << 20;
inline constexpr int64_t kFaMaxBatch = int64_t{2} << 20;
inline constexpr int64_t kFaCompressedMask = 2048;  // sparse modes 2..4: a 2048 x 2048 mask

// The attributes both passes share.
struct FlashAttentionAttrs {
  double scale = 1.0;
  double keep_prob = 1.0;
  int64_t pre_tokens = 2147483647;
  int64_t next_tokens = 2147483647;
  int64_t head_num = 0;
  std::string layout = "BSH";
  int64_t inner_precise = 0;
  int64_t sparse_mode = 0;
};

struct FlashAttentionArgs {
  const char* op = "aclnnFlashAttentionScore";
  TensorRef query, key, value;
  bool has_mask = false;
  TensorRef atten_mask;  // BOOL/UINT8 (kU8), when has_mask
  // Inputs aicore does not implement: given (non-null) ones are refused.
  bool has_pse = false, has_drop_mask = false, has_padding_mask = false, has_prefix = false;
  FlashAttentionAttrs attrs;
  TensorRef softmax_max, softmax_sum;  // fp32 [B, N, Sq, 8]
  TensorRef attention_out;             // query's dtype and shape
};

struct FlashAttentionGradArgs {
  const char* op = "aclnnFlashAttentionScoreGrad";
  TensorRef query, key, value, dy;
  bool has_mask = false;
  TensorRef atten_mask;
  bool has_pse = false, has_drop_mask = false, has_padding_mask = false, has_prefix = false;
  TensorRef softmax_max, softmax_sum;  // the forward's
  TensorRef attention_in;              // the forward's attention output
  FlashAttentionAttrs attrs;
  TensorRef dq, dk, dv;  // query's, key's and value's dtype and shape
};

struct FlashAttentionPlan {
  int64_t batch = 0, nq = 0, nkv = 0, sq = 0, skv = 0, d = 0, dv = 0;
  int32_t tq = 0, tk = 0;
  bool explicit_mask = false;
  int64_t lo_off = 0, hi_off = 0;
  uint32_t block_dim = 0;       // groups (1 AIC + 2 AIVs)
  uint32_t block_dim_dkdv = 0;  // backward: the dK/dV pass's groups
  // Workspace slot sets per group: forward 1 to 3 (Plan: 3), backward 1 or 2 (Plan: 2); Launch
  // refuses others. With 2 the AIC computes the next block's scores while the AIVs run the
  // online softmax (forward, Note [Forward slots]) or turn the previous scores into dS
  // (backward, Note [Backward slots]); with 3 the forward's AIC runs two blocks ahead. Plan
  // reserves the workspace for the value it has; lowering it afterwards is allowed, raising it
  // is refused.
  int32_t slot_buffers = 2;
  AscendC::tiling::TCubeTiling mm{};
  AscendC::tiling::TCubeTiling mm_pv{};  // forward: P V (mm: Q K^T; Note [Forward Matmuls])
  uint64_t slots_bytes = 0;      // the groups' slots, at the workspace's start
  uint64_t workspace_bytes = 0;  // slots + staging
  const arch::Chip* chip = nullptr;
};

// Checks the documented rules (161001 for a null required tensor, 161002 otherwise, each message
// naming the argument): dtypes (query/key/value one of FLOAT, FLOAT16, BFLOAT16, all equal), the
// layout and the rank it implies, headNum dividing H, K/V heads dividing Q heads, B/S/D agreeing,
// D <= 768, N <= 256, keepProb 1 (dropout is not implemented), a finite scaleValue, the mask's
// dtype (BOOL/UINT8) and shape ([Sq, Skv], [B|1, N|1, Sq, Skv]; 2048 x 2048 for sparse modes
// 2..4), sparseMode 0..4, innerPrecise 0..2, the outputs' dtypes and shapes, outputs that do
// not overlap an input, repeat an element (a stride-0 dim) or start where another output starts,
// a split chip.
OpCheck CanImplement(const FlashAttentionArgs& args, const arch::Chip& chip);
FlashAttentionPlan Plan(const FlashAttentionArgs& args, const arch::Chip& chip);
Status Launch(const FlashAttentionArgs& args, const FlashAttentionPlan& plan, void* workspace,
              const void* stream);

// As the forward's, plus dy and attentionIn shaped as query (Dv), the statistics [B, N, Sq, 8]
// fp32, dq/dk/dv shaped as query/key/value.
OpCheck CanImplement(const FlashAttentionGradArgs& args, const arch::Chip& chip);
FlashAttentionPlan Plan(const FlashAttentionGradArgs& args, const arch::Chip& chip);
Status Launch(const FlashAttentionGradArgs& args, const FlashAttentionPlan& plan, void* workspace,
              const void* stream);

// The C++ entry points (aicore/ops/ops.h conventions: device memory views, asynchronous on
// `stream`, an InvalidArgument Status with the aclnn message on bad input). mask: nullptr when
// absent.
Status FlashAttentionForward(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                             const TensorRef* atten_mask, const FlashAttentionAttrs& attrs,
                             const TensorRef& softmax_max, const TensorRef& softmax_sum,
                             const TensorRef& attention_out, const void* stream = nullptr);
Status FlashAttentionBackward(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                              const TensorRef& dy, const TensorRef* atten_mask,
                              const TensorRef& softmax_max, const TensorRef& softmax_sum,
                              const TensorRef& attention_in, const FlashAttentionAttrs& attrs,
                              const TensorRef& dq, const TensorRef& dk, const TensorRef& dv,
                              const void* stream = nullptr);

// The unfused forward from the library's operators, through GM: scores = Matmul(Q, K^T) (B, N,
// Sq, Skv), Muls(scale), Add(mask_bias) (when given: an fp32 view broadcasting to the scores,
// e.g. -inf / 0), Softmax(-1), Matmul(P, V). BNSD operands with Nq = Nkv, one dtype. Takes the
// (B, N, Sq, Skv) fp32 scores buffer from the device allocator for the call; FLOAT only;
// synchronizes
// `stream` before returning.
Status UnfusedAttentionForward(const TensorRef& query, const TensorRef& key, const TensorRef& value,
                               const TensorRef* mask_bias, double scale,
                               const TensorRef& attention_out, const void* stream = nullptr);

}  // namespace aicore::ops
