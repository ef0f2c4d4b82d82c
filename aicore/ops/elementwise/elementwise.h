// The elementwise operators: Add / Adds (with alpha), Mul / Muls, Silu, Relu, Gelu (tanh form)
// and GeluV2 (erf or tanh), on fp32, fp16 and bf16 views with PyTorch-style promotion and NumPy
// broadcasting, computed in fp32 by ElementwisePipeline kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/patterns/elementwise_pipeline.h"
#include "aicore/ops/tune/tune.h"

namespace aicore::ops {

// kRelu has no aclnn entry point here; the unfused matmul epilogue composition uses it.
enum class ElementwiseKind { kAdd, kAdds, kMul, kMuls, kSilu, kGeluTanh, kGeluErf, kRelu };

struct ElementwiseArgs {
  ElementwiseKind kind = ElementwiseKind::kAdd;
  const char* op = "aclnnAdd";     // the name messages use
  const char* self_name = "self";  // the argument names messages use (GeluV2: x, y)
  const char* out_name = "out";
  TensorRef self;
  TensorRef other;                   // kAdd, kMul
  double scalar = 0;                 // kAdds, kMuls: the scalar operand
  DType scalar_dtype = DType::kF32;  // its dtype (a float scalar does not widen a float tensor)
  double alpha = 1;                  // kAdd, kAdds
  TensorRef out;
  bool in_place = false;  // out is self (aclnnInplace*): Launch writes through self's storage
};

struct ElementwisePlan {
  patterns::ElementwiseTiling tiling;  // tensor addresses filled at launch
  uint32_t block_dim = 1;
  uint64_t workspace_bytes = 0;
  const arch::Chip* chip = nullptr;
};

// Returns the dtype `a` (+) `b` promotes to for fp32/fp16/bf16 (fp16 + bf16 -> fp32).
DType PromoteFloat(DType a, DType b);
// Returns the NumPy broadcast of two shapes, or an empty optional-like flag `ok` false.
bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     std::vector<int64_t>* out);

// Fills `p`'s chip, tile and split over blocks for `total` elements of a pattern with `inputs`
// operands and `temps` scratch tiles by the heuristic (other operators' epilogues plan with it).
void PlanSplit(int64_t total, int inputs, int temps, const arch::Chip& chip, ElementwisePlan* p);

// Checks dtypes (fp32/fp16/bf16 operands and out), ranks (<= 8), the broadcast and out's shape.
OpCheck CanImplement(const ElementwiseArgs& args, const arch::Chip& chip);
// Tile from the UB budget, the split over blocks (the heuristic, or strategy selection's choice as
// AICORE_TUNE says; a bad AICORE_TUNE throws aicore::Error), the staging workspace. Call after
// CanImplement.
ElementwisePlan Plan(const ElementwiseArgs& args, const arch::Chip& chip);
// As Plan, with strategy selection as `request` says; `decision` (nullable) gets its report.
ElementwisePlan Plan(const ElementwiseArgs& args, const arch::Chip& chip,
                     const tune::Request& request, tune::Decision* decision);
// Enqueues the staging copies and the kernel on `stream`; `workspace` holds the plan's bytes.
// An empty out enqueues nothing.
Status Launch(const ElementwiseArgs& args, const ElementwisePlan& plan, void* workspace,
              const void* stream);

// Runs a user's ElementwisePipeline hooks as an operator: checks (fp32/fp16/bf16, rank <= 8,
// every input broadcastable to out's shape), plans on the default chip (strategy selection as
// AICORE_TUNE says, cached under op `name`), stages strided or broadcast operands, takes the
// workspace from the device allocator and enqueues kernel `name` on `stream`. `scalar` (up to 4
// values) reaches Hooks::Compute.
template <class Hooks>
Status RunElementwise(const char* name, const std::vector<TensorRef>& inputs, const TensorRef& out,
                      std::vector<float> scalar = {}, const void* stream = nullptr);

// The untyped half of RunElementwise: `kernel` runs patterns::ElementwiseKernel<Hooks>.
Status RunElementwiseKernel(const char* name, const std::vector<TensorRef>& inputs,
                            const TensorRef& out, int temps, const std::vector<float>& scalar,
                            std::function<void(const patterns::ElementwiseTiling&)> kernel,
                            const void* stream);

template <class Hooks>
Status RunElementwise(const char* name, const std::vector<TensorRef>& inputs, const TensorRef& out,
                      std::vector<float> scalar, const void* stream) {
  if (static_cast<int>(inputs.size()) != Hooks::kInputs) {
    return Status(
        StatusCode::kInvalidArgument,
        StrCat(name, ": ", inputs.size(), " inputs given; the hooks take ", Hooks::kInputs));
  }
  return RunElementwiseKernel(
      name, inputs, out, Hooks::kTemps, scalar,
      [](const patterns::ElementwiseTiling& t) { patterns::ElementwiseKernel<Hooks>(t); }, stream);
}

}  // namespace aicore::ops
