// Softmax / LogSoftmax: hooks, checks, plan, launch.
// - The softmax dim is moved to the end (a view); a view that is then not dense is staged
//   (Note [Staging]), so a last-dim softmax of a dense tensor runs in place.
// - Stats: the running max m and sum s of exp(x - m). A chunk with max mc and sum sc of
//   exp(x - max(m, mc)) merges as s = s * exp(m - m') + sc, m' = max(m, mc): the online softmax.
#include "aicore/ops/softmax/softmax.h"

#include <cmath>
#include <limits>

#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/tune/row_reduce_tune.h"

namespace aicore::ops {

namespace {

using AscendC::LocalTensor;
using patterns::ReduceOp;
using patterns::ReduceToScalar;
using patterns::RowReduceTiling;
using patterns::RowScratch;

struct SoftmaxStats {
  float max = -std::numeric_limits<float>::infinity();
  float sum = 0;
  uint32_t chunks = 0;  // chunks accumulated; 1: sc.tmp still holds exp(x - max) of the row
};

struct SoftmaxHooksBase {
  using Stats = SoftmaxStats;
  static constexpr int kRowOutputs = 0;
  static void Accumulate(Stats& s, const RowScratch& sc, const LocalTensor<float>& x, uint32_t n) {
    const float chunk_max = ReduceToScalar(ReduceOp::kMax, x, sc.result, sc.reduce_tmp, n);
    const float m = std::fmax(s.max, chunk_max);
    AscendC::Adds(sc.tmp, x, -m, n);
    AscendC::Exp(sc.tmp, sc.tmp, n);
    const float chunk_sum = ReduceToScalar(ReduceOp::kSum, sc.tmp, sc.result, sc.reduce_tmp, n);
    s.sum = (s.sum == 0 ? 0.0f : s.sum * std::exp(s.max - m)) + chunk_sum;
    s.max = m;
    ++s.chunks;
  }
  static void Finish(Stats&, const RowReduceTiling&) {}
  static void RowOutputs(const Stats&, float*) {}
};

struct SoftmaxHooks : SoftmaxHooksBase {
  static void Apply(const Stats& s, const RowScratch& sc, const LocalTensor<float>& dst,
                    const LocalTensor<float>& x, const LocalTensor<float>*, uint32_t n,
                    const RowReduceTiling&) {
    if (s.chunks == 1) {
      // A row of one chunk: Accumulate left exp(x - max) in sc.tmp (RowReduce keeps the scratch
      // from a row's Accumulate to its Apply), so the exponentials are not computed twice.
      AscendC::Muls(dst, sc.tmp, 1.0f / s.sum, n);
      return;
    }
    AscendC::Adds(dst, x, -s.max, n);
    AscendC::Exp(dst, dst, n);
    AscendC::Muls(dst, dst, 1.0f / s.sum, n);
  }
};

struct LogSoftmaxHooks : SoftmaxHooksBase {
  static void Apply(const Stats& s, const RowScratch&, const LocalTensor<float>& dst,
                    const LocalTensor<float>& x, const LocalTensor<float>*, uint32_t n,
                    const RowReduceTiling&) {
    // (x - max) first: it is exact for x near max, where max + log(sum) at 1e4 would round.
    AscendC::Adds(dst, x, -s.max, n);
    AscendC::Adds(dst, dst, -std::log(s.sum), n);
  }
};

constexpr int64_t kMaxRank = 8;

// The view with the softmax dim last; a 0-d tensor is [1].
TensorRef RowsView(const TensorRef& t, int64_t dim) {
  if (t.shape.empty()) {
    TensorRef r = t;
    r.shape = {1};
    r.strides = {1};
    return r;
  }
  return MoveDimToEnd(t, dim);
}

}  // namespace

OpCheck CanImplement(const SoftmaxArgs& args, const arch::Chip&) {
  const char* op = args.op;
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{"self", &args.self}, {"out", &args.out}}) {
    if (!patterns::IsPatternDType(t->dtype)) {
      return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t->dtype),
                            "; allowed: FLOAT, FLOAT16, BFLOAT16"));
    }
    if (t->Rank() > kMaxRank || (args.log && t->Rank() == 0)) {
      return Invalid(StrCat(op, ": ", what, " has ", t->Rank(),
                            " dims; allowed: ", args.log ? 1 : 0, " to ", kMaxRank));
    }
    if (t->data == nullptr && t->NumElements() > 0) {
      return NullArg(StrCat(op, ": ", what, " has null storage"));
    }
  }
  if (args.out.shape != args.self.shape) {
    return Invalid(StrCat(op, ": out has shape ", ShapeString(args.out.shape),
                          "; it must equal self's shape ", ShapeString(args.self.shape)));
  }
  const int64_t r = std::max<int64_t>(args.self.Rank(), 1);
  if (args.dim < -r || args.dim > r - 1) {
    return Invalid(StrCat(op, ": dim ", args.dim, " is out of range for self of ", args.self.Rank(),
                          " dims; allowed: [", -r, ", ", r - 1, "]"));
  }
  // A row is read (twice when online) before any of it is written: out may be self's view.
  return CheckOutputs(op, {{"out", &args.out, true}}, {{"self", &args.self, true}});
}

SoftmaxPlan Plan(const SoftmaxArgs& args, const arch::Chip& chip) {
  return Plan(args, chip, tune::RequestFromEnv(), nullptr);
}

SoftmaxPlan Plan(const SoftmaxArgs& args, const arch::Chip& chip, const tune::Request& request,
                 tune::Decision* decision) {
  SoftmaxPlan p;
  p.chip = &chip;
  const int64_t r = std::max<int64_t>(args.self.Rank(), 1);
  p.dim = args.dim < 0 ? args.dim + r : args.dim;
  const TensorRef x = RowsView(args.self, p.dim);
  const int64_t cols = x.shape.back();
  const int64_t total = x.NumElements();
  if (total == 0) return p;
  tune::RowReduceKernelSpec spec;
  spec.op = args.log ? "log_softmax" : "softmax";
  spec.kernel = args.log ? "ops_log_softmax" : "ops_softmax";
  spec.x_dtype = args.self.dtype;
  spec.y_dtype = args.out.dtype;
  if (args.log) {
    spec.body = [](const RowReduceTiling& t) { patterns::RowReduceKernel<LogSoftmaxHooks>(t); };
  } else {
    spec.body = [](const RowReduceTiling& t) { patterns::RowReduceKernel<SoftmaxHooks>(t); };
  }
  p.rows = tune::SelectRowReduce(spec, total / cols, cols, args.max_ub_bytes, chip, request,
                                 decision);
  Staging st;
  st.AddInput(x);
  st.AddOutput(RowsView(args.out, p.dim), args.out.dtype);
  p.workspace_bytes = st.WorkspaceBytes();
  return p;
}

Status Launch(const SoftmaxArgs& args, const SoftmaxPlan& plan, void* workspace,
              const void* stream) {
  if (args.self.NumElements() == 0) return Status();
  Staging st;
  st.AddInput(RowsView(args.self, plan.dim));
  st.AddOutput(RowsView(args.out, plan.dim), args.out.dtype);
  return st.Enqueue(workspace, stream, [&](const std::vector<uint8_t*>& dense) {
    patterns::RowReduceTiling t = plan.rows.tiling;
    t.x = dense[0];
    t.x_dtype = args.self.dtype;
    t.y = dense[1];
    t.y_dtype = args.out.dtype;
    std::function<void()> body;
    if (args.log) {
      body = [t] { patterns::RowReduceKernel<LogSoftmaxHooks>(t); };
    } else {
      body = [t] { patterns::RowReduceKernel<SoftmaxHooks>(t); };
    }
    return LaunchPattern(stream, args.log ? "ops_log_softmax" : "ops_softmax", plan.rows.block_dim,
                         *plan.chip, std::move(body));
  });
}

}  // namespace aicore::ops
