// SoftmaxBackward: hooks, checks, plan, launch.
// - The dim is moved to the end of all three views (staged when that is not dense, Note
//   [Staging]); each row is then reduced once: s = sum(g * y), and rewritten as y * (g - s).
// - A row longer than UB takes RowReduce's online pass: s accumulates chunk by chunk, then the
//   row is read again to apply it.
#include <algorithm>

#include "aicore/ops/softmax/softmax.h"
#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/tune/row_reduce_tune.h"

namespace aicore::ops {

namespace {

using AscendC::LocalTensor;
using patterns::ReduceOp;
using patterns::ReduceToScalar;
using patterns::RowReduceTiling;
using patterns::RowScratch;

// x = gradOutput, x2 = output.
struct SoftmaxBackwardHooks {
  struct Stats {
    float sum = 0;
  };
  static constexpr int kInputs = 2;
  static constexpr int kRowOutputs = 0;
  static void Accumulate(Stats& s, const RowScratch& sc, const LocalTensor<float>& g,
                         const LocalTensor<float>& y, const LocalTensor<float>*, uint32_t n,
                         const RowReduceTiling&) {
    AscendC::Mul(sc.tmp, g, y, n);
    s.sum += ReduceToScalar(ReduceOp::kSum, sc.tmp, sc.result, sc.reduce_tmp, n);
  }
  static void Finish(Stats&, const RowReduceTiling&) {}
  static void Apply(const Stats& s, const RowScratch&, const LocalTensor<float>& dst,
                    const LocalTensor<float>& g, const LocalTensor<float>& y,
                    const LocalTensor<float>*, uint32_t n, const RowReduceTiling&) {
    AscendC::Adds(dst, g, -s.sum, n);
    AscendC::Mul(dst, dst, y, n);
  }
  static void RowOutputs(const Stats&, float*) {}
};

constexpr int64_t kMaxRank = 8;

// The view with the softmax dim last; a 0-d tensor is [1].
TensorRef RowsOf(const TensorRef& t, int64_t dim) {
  if (t.shape.empty()) {
    TensorRef r = t;
    r.shape = {1};
    r.strides = {1};
    return r;
  }
  return MoveDimToEnd(t, dim);
}

Staging StageBackward(const SoftmaxBackwardArgs& a, int64_t dim) {
  Staging st;
  st.AddInput(RowsOf(a.grad_output, dim));
  st.AddInput(RowsOf(a.output, dim));
  st.AddOutput(RowsOf(a.out, dim), a.out.dtype);
  return st;
}

}  // namespace

OpCheck CanImplement(const SoftmaxBackwardArgs& a, const arch::Chip&) {
  const char* op = a.op;
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{"gradOutput", &a.grad_output},
        {"output", &a.output},
        {"out", &a.out}}) {
    if (!patterns::IsPatternDType(t->dtype)) {
      return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t->dtype),
                            "; allowed: FLOAT, FLOAT16, BFLOAT16"));
    }
    if (t->Rank() > kMaxRank) {
      return Invalid(StrCat(op, ": ", what, " has ", t->Rank(), " dims; allowed: 0 to ", kMaxRank));
    }
    if (t->data == nullptr && t->NumElements() > 0) {
      return NullArg(StrCat(op, ": ", what, " has null storage"));
    }
  }
  if (a.output.dtype != a.grad_output.dtype) {
    return Invalid(StrCat(op, ": output has dtype ", OpDTypeName(a.output.dtype),
                          "; it must equal gradOutput's ", OpDTypeName(a.grad_output.dtype)));
  }
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{"output", &a.output}, {"out", &a.out}}) {
    if (t->shape != a.grad_output.shape) {
      return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString(t->shape),
                            "; it must equal gradOutput's shape ",
                            ShapeString(a.grad_output.shape)));
    }
  }
  const int64_t r = std::max<int64_t>(a.grad_output.Rank(), 1);
  if (a.dim < -r || a.dim > r - 1) {
    return Invalid(StrCat(op, ": dim ", a.dim, " is out of range for gradOutput of ",
                          a.grad_output.Rank(), " dims; allowed: [", -r, ", ", r - 1, "]"));
  }
  // A row is read (twice when online) before any of it is written: out may be an input's view.
  return CheckOutputs(op, {{"out", &a.out, true}},
                      {{"gradOutput", &a.grad_output, true}, {"output", &a.output, true}});
}

SoftmaxPlan Plan(const SoftmaxBackwardArgs& a, const arch::Chip& chip) {
  return Plan(a, chip, tune::RequestFromEnv(), nullptr);
}

SoftmaxPlan Plan(const SoftmaxBackwardArgs& a, const arch::Chip& chip,
                 const tune::Request& request, tune::Decision* decision) {
  SoftmaxPlan p;
  p.chip = &chip;
  const int64_t r = std::max<int64_t>(a.grad_output.Rank(), 1);
  p.dim = a.dim < 0 ? a.dim + r : a.dim;
  const TensorRef g = RowsOf(a.grad_output, p.dim);
  const int64_t total = g.NumElements();
  if (total == 0) return p;
  const int64_t cols = g.shape.back();
  tune::RowReduceKernelSpec spec;
  spec.op = "softmax_backward";
  spec.kernel = "ops_softmax_backward";
  spec.x_dtype = a.grad_output.dtype;
  spec.has_x2 = true;
  spec.x2_dtype = a.output.dtype;
  spec.y_dtype = a.out.dtype;
  spec.body = [](const RowReduceTiling& t) {
    patterns::RowReduceKernel<SoftmaxBackwardHooks>(t);
  };
  p.rows = tune::SelectRowReduce(spec, total / cols, cols, a.max_ub_bytes, chip, request,
                                 decision);
  p.workspace_bytes = StageBackward(a, p.dim).WorkspaceBytes();
  return p;
}

Status Launch(const SoftmaxBackwardArgs& a, const SoftmaxPlan& plan, void* workspace,
              const void* stream) {
  if (a.grad_output.NumElements() == 0) return Status();
  const Staging st = StageBackward(a, plan.dim);
  return st.Enqueue(workspace, stream, [&](const std::vector<uint8_t*>& dense) {
    patterns::RowReduceTiling t = plan.rows.tiling;
    t.x = dense[0];
    t.x_dtype = a.grad_output.dtype;
    t.x2 = dense[1];
    t.x2_dtype = a.output.dtype;
    t.y = dense[2];
    t.y_dtype = a.out.dtype;
    return LaunchPattern(stream, "ops_softmax_backward", plan.rows.block_dim, *plan.chip,
                         [t] { patterns::RowReduceKernel<SoftmaxBackwardHooks>(t); });
  });
}

}  // namespace aicore::ops
