// The matmul with a fused epilogue: out = act(alpha * a @ b + beta * bias) + residual with act
// one of none, relu, gelu (erf or tanh form) and silu, on fp32, fp16 and bf16 views with fp32
// accumulation, batched (a (batch.., M, K) @ b (batch.., K, N), batch dims broadcasting, a
// batch of 1 included). One mix kernel (patterns/matmul_epilogue.h): the Matmul on the AICs,
// the epilogue on the AIVs, the product handed over block by block through a GM workspace with
// cross-core flags. Transposed or sliced a and b (one unit stride per 2-D slice, a pitch up to
// 65535) are read in place; bias and residual are read in place when their rows have unit stride
// (a bias broadcast over M is read as one row); anything else is staged (Note [Staging]).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/patterns/activation.h"
#include "aicore/ops/patterns/matmul_epilogue.h"

namespace aicore::ops {

using patterns::Activation;

// How the product reaches the epilogue. See Note [Epilogue strategy] in matmul_epilogue.cc.
enum class EpilogueStrategy : uint8_t {
  kGmWorkspace,  // mix 1:2: the AIC writes fp32 blocks to a GM workspace (matmul_epilogue.h)
  kL0cToUb,      // mix 1:1: the AIC's Fixpipe writes base blocks into its AIV's UB
                 // (matmul_epilogue_ub.h); chips with Chip::fixpipe_to_ub, K > 0
};

struct MatmulEpilogueArgs {
  const char* op = "aclnnAicoreMatmulEpilogue";  // the name messages use
  TensorRef a;                                   // (batch.., M, K), 2 to 6 dims
  TensorRef b;                                   // (batch.., K, N), 2 to 6 dims
  std::optional<TensorRef> bias;                 // broadcasts to out's shape; absent: no bias
  std::optional<TensorRef> residual;             // broadcasts to out's shape; absent: no residual
  double alpha = 1;
  double beta = 1;
  Activation activation = Activation::kNone;
  TensorRef out;  // (batch.., M, N) in a's dtype or FLOAT
  // The cube's input dtype. kUnknown (the default): a's dtype, and a and b must share it. Set by
  // operators built on this one (Addmm's cubeMathType); a and b are then converted to it.
  DType compute = DType::kUnknown;
  // The names messages give a, b, bias (Addmm: "mat1", "mat2", "self").
  const char* a_name = "a";
  const char* b_name = "b";
  const char* bias_name = "bias";
  // The strategy the caller forces; absent: the plan's choice (Note [Epilogue strategy]).
  // kL0cToUb needs a chip with Chip::fixpipe_to_ub (CanImplement refuses it elsewhere); with
  // K = 0, or when no base block fits in UB beside the chunk tiles, the plan keeps kGmWorkspace.
  std::optional<EpilogueStrategy> strategy;
};

struct MatmulEpiloguePlan {
  patterns::MatmulEpilogueTiling tiling;  // tensor addresses filled at launch
  EpilogueStrategy strategy = EpilogueStrategy::kGmWorkspace;
  std::vector<int64_t> batch_shape;
  DType compute = DType::kF32;
  uint32_t block_dim = 0;      // AI Core groups (1 AIC + 2 AIV each); 0: an empty out
  uint64_t staging_bytes = 0;  // the staging slots
  uint64_t slots_bytes = 0;    // the per-group fp32 blocks, after the staging slots
  uint64_t workspace_bytes = 0;
  const arch::Chip* chip = nullptr;
};

// Checks: a, b and out present (161001 for null storage), fp32/fp16/bf16 (161002 otherwise);
// a and b of one dtype (unless args.compute is set), out in that dtype or FLOAT; ranks 2..6; K
// equal on both sides; batch dims that broadcast; out's shape (batch.., M, N); bias and residual
// broadcastable to it; a split chip (AIC + AIV); no operand of the product sharing bytes with
// out; sizes the Matmul takes; a forced kL0cToUb only on a chip with Chip::fixpipe_to_ub.
OpCheck CanImplement(const MatmulEpilogueArgs& args, const arch::Chip& chip);
// Picks the strategy (args.strategy when given and possible, else kGmWorkspace: Note [Epilogue
// strategy]), the block size, the Matmul tiling
// of one block, the UB chunk of the AIVs, the staging and the workspace (staging slots, plus
// block_dim x 2 fp32 blocks for kGmWorkspace). Call after CanImplement.
MatmulEpiloguePlan Plan(const MatmulEpilogueArgs& args, const arch::Chip& chip);
// Enqueues the staging copies and the mix kernel "ops_matmul_epilogue" on `stream`; `workspace`
// holds the plan's bytes. An empty out enqueues nothing.
Status Launch(const MatmulEpilogueArgs& args, const MatmulEpiloguePlan& plan, void* workspace,
              const void* stream);

}  // namespace aicore::ops
