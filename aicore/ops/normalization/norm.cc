// LayerNorm / RmsNorm: hooks, checks, plan, launch.
// - LayerNorm statistics: shifted sums. The shift K is the first chunk's mean; every chunk adds
//   S1 += sum(x - K) and S2 += sum((x - K)^2). Then mean = K + S1/N, var = S2/N - (S1/N)^2 and
//   rstd = 1 / sqrt(var + eps) (biased variance, as torch). With K within a few std of the mean
//   the sums are small and well conditioned, so a mean of 1e3 does not cancel, and the mean is
//   rounded once (a running mean merged chunk by chunk drifts by an ulp per merge).
// - RmsNorm: rstd = 1 / sqrt(sum(x^2) / N + eps); y = x * rstd * gamma.
#include "aicore/ops/normalization/norm.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/tune/row_reduce_tune.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

namespace {

using AscendC::LocalTensor;
using patterns::ReduceOp;
using patterns::ReduceToScalar;
using patterns::RowReduceTiling;
using patterns::RowScratch;

constexpr int64_t kMaxRank = 8;

struct LayerNormHooks {
  struct Stats {
    bool shifted = false;
    float shift = 0, count = 0, s1 = 0, s2 = 0, mean = 0, rstd = 0;
  };
  static constexpr int kRowOutputs = 2;
  static void Accumulate(Stats& s, const RowScratch& sc, const LocalTensor<float>& x, uint32_t n) {
    if (!s.shifted) {
      s.shift = ReduceToScalar(ReduceOp::kSum, x, sc.result, sc.reduce_tmp, n) / n;
      s.shifted = true;
    }
    AscendC::Adds(sc.tmp, x, -s.shift, n);
    s.s1 += ReduceToScalar(ReduceOp::kSum, sc.tmp, sc.result, sc.reduce_tmp, n);
    AscendC::Mul(sc.tmp, sc.tmp, sc.tmp, n);
    s.s2 += ReduceToScalar(ReduceOp::kSum, sc.tmp, sc.result, sc.reduce_tmp, n);
    s.count += static_cast<float>(n);
  }
  static void Finish(Stats& s, const RowReduceTiling& t) {
    const float d = s.s1 / s.count;
    s.mean = s.shift + d;
    const float var = std::fmax(s.s2 / s.count - d * d, 0.0f);
    s.rstd = 1.0f / std::sqrt(var + t.eps);
  }
  static void Apply(const Stats& s, const RowScratch&, const LocalTensor<float>& dst,
                    const LocalTensor<float>& x, const LocalTensor<float>* param, uint32_t n,
                    const RowReduceTiling& t) {
    AscendC::Adds(dst, x, -s.mean, n);
    AscendC::Muls(dst, dst, s.rstd, n);
    if (t.param[0] != nullptr) AscendC::Mul(dst, dst, param[0], n);
    if (t.param[1] != nullptr) AscendC::Add(dst, dst, param[1], n);
  }
  static void RowOutputs(const Stats& s, float* v) {
    v[0] = s.mean;
    v[1] = s.rstd;
  }
};

struct RmsNormHooks {
  struct Stats {
    float sumsq = 0, count = 0, rstd = 0;
  };
  static constexpr int kRowOutputs = 1;
  static void Accumulate(Stats& s, const RowScratch& sc, const LocalTensor<float>& x, uint32_t n) {
    AscendC::Mul(sc.tmp, x, x, n);
    s.sumsq += ReduceToScalar(ReduceOp::kSum, sc.tmp, sc.result, sc.reduce_tmp, n);
    s.count += static_cast<float>(n);
  }
  static void Finish(Stats& s, const RowReduceTiling& t) {
    s.rstd = 1.0f / std::sqrt(s.sumsq / s.count + t.eps);
  }
  static void Apply(const Stats& s, const RowScratch&, const LocalTensor<float>& dst,
                    const LocalTensor<float>& x, const LocalTensor<float>* param, uint32_t n,
                    const RowReduceTiling&) {
    AscendC::Muls(dst, x, s.rstd, n);
    AscendC::Mul(dst, dst, param[0], n);
  }
  static void RowOutputs(const Stats& s, float* v) { v[0] = s.rstd; }
};

OpCheck CheckDType(const char* op, const char* what, const TensorRef& t) {
  if (!patterns::IsPatternDType(t.dtype)) {
    return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t.dtype),
                          "; allowed: FLOAT, FLOAT16, BFLOAT16"));
  }
  if (t.data == nullptr && t.NumElements() > 0) {
    return NullArg(StrCat(op, ": ", what, " has null storage"));
  }
  return {};
}

// The shape of per-row outputs: `x` with 1 on the last `k` axes.
std::vector<int64_t> RowStatShape(const std::vector<int64_t>& x, size_t k) {
  std::vector<int64_t> s = x;
  for (size_t i = s.size() - k; i < s.size(); ++i) s[i] = 1;
  return s;
}

int64_t Product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= v[i];
  return p;
}

// Shared by both norms: stage x, params, y and the per-row outputs (fp32 in the kernel), launch.
struct NormOperands {
  TensorRef x;
  const TensorRef* param[2] = {};
  TensorRef y;
  const TensorRef* row_out[2] = {};
};

Staging StageNorm(const NormOperands& o) {
  Staging st;
  st.AddInput(o.x);
  for (const TensorRef* p : o.param) {
    if (p != nullptr) st.AddInput(*p);
  }
  st.AddOutput(o.y, o.y.dtype);
  for (const TensorRef* r : o.row_out) {
    if (r != nullptr) st.AddOutput(*r, DType::kF32);
  }
  return st;
}

template <class Hooks>
Status LaunchNorm(const NormOperands& o, const NormPlan& plan, float eps, const char* name,
                  void* workspace, const void* stream) {
  const Staging st = StageNorm(o);
  return st.Enqueue(workspace, stream, [&](const std::vector<uint8_t*>& dense) {
    patterns::RowReduceTiling t = plan.rows.tiling;
    size_t k = 0;
    t.x = dense[k++];
    t.x_dtype = o.x.dtype;
    for (int i = 0; i < 2; ++i) {
      if (o.param[i] == nullptr) continue;
      t.param[i] = dense[k++];
      t.param_dtype[i] = o.param[i]->dtype;
    }
    t.y = dense[k++];
    t.y_dtype = o.y.dtype;
    for (int i = 0; i < 2; ++i) {
      if (o.row_out[i] != nullptr) t.row_out[i] = reinterpret_cast<float*>(dense[k++]);
    }
    t.eps = eps;
    return LaunchPattern(stream, name, plan.rows.block_dim, *plan.chip,
                         [t] { patterns::RowReduceKernel<Hooks>(t); });
  });
}

NormOperands LayerNormOperands(const LayerNormArgs& a) {
  NormOperands o;
  o.x = a.input;
  o.y = a.out;
  if (a.weight) o.param[0] = &*a.weight;
  if (a.bias) o.param[1] = &*a.bias;
  if (a.mean) o.row_out[0] = &*a.mean;
  if (a.rstd) o.row_out[1] = &*a.rstd;
  return o;
}

}  // namespace

OpCheck CanImplement(const LayerNormArgs& a, const arch::Chip&) {
  const char* op = a.op;
  OpCheck c = CheckDType(op, "input", a.input);
  if (!c.ok()) return c;
  if (a.input.Rank() < 1 || a.input.Rank() > kMaxRank) {
    return Invalid(StrCat(op, ": input has ", a.input.Rank(), " dims; allowed: 1 to ", kMaxRank));
  }
  const size_t k = a.normalized_shape.size();
  const size_t r = a.input.shape.size();
  if (k == 0 || k > r) {
    return Invalid(StrCat(op, ": normalizedShape ", ShapeString(a.normalized_shape), " has ", k,
                          " dims; allowed: 1 to input's rank ", r));
  }
  if (!std::equal(a.normalized_shape.begin(), a.normalized_shape.end(),
                  a.input.shape.end() - static_cast<int64_t>(k))) {
    return Invalid(StrCat(op, ": normalizedShape ", ShapeString(a.normalized_shape),
                          " is not the trailing dims of input ", ShapeString(a.input.shape)));
  }
  for (const auto& [what, t] :
       {std::pair<const char*, const std::optional<TensorRef>*>{"weightOptional", &a.weight},
        {"biasOptional", &a.bias}}) {
    if (!t->has_value()) continue;
    c = CheckDType(op, what, **t);
    if (!c.ok()) return c;
    if ((*t)->shape != a.normalized_shape) {
      return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString((*t)->shape),
                            "; it must equal normalizedShape ", ShapeString(a.normalized_shape)));
    }
    if ((*t)->dtype != a.input.dtype && (*t)->dtype != DType::kF32) {
      return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName((*t)->dtype),
                            "; allowed: input's dtype ", OpDTypeName(a.input.dtype), " or FLOAT"));
    }
  }
  if (a.weight && a.bias && a.weight->dtype != a.bias->dtype) {
    return Invalid(StrCat(op, ": weightOptional (", OpDTypeName(a.weight->dtype),
                          ") and biasOptional (", OpDTypeName(a.bias->dtype),
                          ") must have the same dtype"));
  }
  c = CheckDType(op, "out", a.out);
  if (!c.ok()) return c;
  if (a.out.shape != a.input.shape || a.out.dtype != a.input.dtype) {
    return Invalid(StrCat(op, ": out is ", OpDTypeName(a.out.dtype), " ", ShapeString(a.out.shape),
                          "; it must be input's dtype and shape, ", OpDTypeName(a.input.dtype), " ",
                          ShapeString(a.input.shape)));
  }
  const std::vector<int64_t> stat = RowStatShape(a.input.shape, k);
  for (const auto& [what, t] :
       {std::pair<const char*, const std::optional<TensorRef>*>{"meanOutOptional", &a.mean},
        {"rstdOutOptional", &a.rstd}}) {
    if (!t->has_value()) continue;
    c = CheckDType(op, what, **t);
    if (!c.ok()) return c;
    if ((*t)->shape != stat) {
      return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString((*t)->shape),
                            "; it must be ", ShapeString(stat)));
    }
  }
  // A row of input is read before any of it is written: out may be input's view (only).
  const auto opt = [](const std::optional<TensorRef>& t) { return t ? &*t : nullptr; };
  return CheckOutputs(op,
                      {{"out", &a.out, true},
                       {"meanOutOptional", opt(a.mean)},
                       {"rstdOutOptional", opt(a.rstd)}},
                      {{"input", &a.input, true},
                       {"weightOptional", opt(a.weight)},
                       {"biasOptional", opt(a.bias)}});
}

NormPlan Plan(const LayerNormArgs& a, const arch::Chip& chip) {
  return Plan(a, chip, tune::RequestFromEnv(), nullptr);
}

NormPlan Plan(const LayerNormArgs& a, const arch::Chip& chip, const tune::Request& request,
              tune::Decision* decision) {
  NormPlan p;
  p.chip = &chip;
  const size_t r = a.input.shape.size(), k = a.normalized_shape.size();
  p.m = Product(a.input.shape, 0, r - k);
  p.n = Product(a.input.shape, r - k, r);
  if (p.m > 0 && p.n > 0) {
    tune::RowReduceKernelSpec spec;
    spec.op = "layer_norm";
    spec.kernel = "ops_layer_norm";
    spec.x_dtype = a.input.dtype;
    spec.y_dtype = a.out.dtype;
    spec.params = (a.weight ? 1 : 0) + (a.bias ? 1 : 0);
    spec.param_dtype = a.weight ? a.weight->dtype : a.bias ? a.bias->dtype : a.input.dtype;
    spec.row_outputs = (a.mean ? 1 : 0) + (a.rstd ? 1 : 0);
    spec.eps = static_cast<float>(a.eps);
    spec.body = [](const RowReduceTiling& t) { patterns::RowReduceKernel<LayerNormHooks>(t); };
    p.rows = tune::SelectRowReduce(spec, p.m, p.n, a.max_ub_bytes, chip, request, decision);
    p.workspace_bytes = StageNorm(LayerNormOperands(a)).WorkspaceBytes();
  }
  return p;
}

Status Launch(const LayerNormArgs& a, const NormPlan& plan, void* workspace, const void* stream) {
  if (plan.m == 0) return Status();
  if (plan.n == 0) {
    // Documented: mean 0, rstd NaN.
    auto fill = [stream](const std::optional<TensorRef>& t, float v) -> Status {
      if (!t || t->NumElements() == 0) return Status();
      return rt::LaunchHostFunc(stream, [dst = *t, v] {
        std::vector<float> vals(static_cast<size_t>(dst.NumElements()), v);
        CopyView(dst, DenseRef(vals.data(), DType::kF32, dst.shape));
      });
    };
    Status s = fill(a.mean, 0.0f);
    if (!s.ok()) return s;
    return fill(a.rstd, std::numeric_limits<float>::quiet_NaN());
  }
  return LaunchNorm<LayerNormHooks>(LayerNormOperands(a), plan, static_cast<float>(a.eps),
                                    "ops_layer_norm", workspace, stream);
}

OpCheck CanImplement(const RmsNormArgs& a, const arch::Chip&) {
  const char* op = a.op;
  for (const auto& [what, t] : {std::pair<const char*, const TensorRef*>{"x", &a.x},
                                {"gamma", &a.gamma},
                                {"yOut", &a.y},
                                {"rstdOut", &a.rstd}}) {
    OpCheck c = CheckDType(op, what, *t);
    if (!c.ok()) return c;
  }
  if (a.gamma.dtype != a.x.dtype && a.gamma.dtype != DType::kF32) {
    return Invalid(StrCat(op, ": gamma has dtype ", OpDTypeName(a.gamma.dtype),
                          "; allowed: x's dtype ", OpDTypeName(a.x.dtype), " or FLOAT"));
  }
  if (a.y.dtype != a.x.dtype) {
    return Invalid(StrCat(op, ": yOut has dtype ", OpDTypeName(a.y.dtype),
                          "; it must equal x's dtype ", OpDTypeName(a.x.dtype)));
  }
  if (a.rstd.dtype != DType::kF32) {
    return Invalid(
        StrCat(op, ": rstdOut has dtype ", OpDTypeName(a.rstd.dtype), "; it must be FLOAT"));
  }
  constexpr int32_t kShapeRule = 561002;
  const size_t r = a.x.shape.size(), k = a.gamma.shape.size();
  if (r < 1 || static_cast<int64_t>(r) > kMaxRank) {
    return OpCheck{kShapeRule, StrCat(op, ": x has ", r, " dims; allowed: 1 to ", kMaxRank)};
  }
  if (k < 1 || k > r ||
      !std::equal(a.gamma.shape.begin(), a.gamma.shape.end(), a.x.shape.end() - k)) {
    return OpCheck{kShapeRule,
                   StrCat(op, ": gamma has shape ", ShapeString(a.gamma.shape),
                          "; it must be the trailing dims of x ", ShapeString(a.x.shape))};
  }
  if (a.y.shape != a.x.shape) {
    return OpCheck{kShapeRule, StrCat(op, ": yOut has shape ", ShapeString(a.y.shape),
                                      "; it must equal x's shape ", ShapeString(a.x.shape))};
  }
  const std::vector<int64_t> stat = RowStatShape(a.x.shape, k);
  if (a.rstd.shape != stat) {
    return OpCheck{kShapeRule, StrCat(op, ": rstdOut has shape ", ShapeString(a.rstd.shape),
                                      "; it must be ", ShapeString(stat))};
  }
  // A row of x is read before any of it is written: yOut may be x's view (only).
  return CheckOutputs(op, {{"yOut", &a.y, true}, {"rstdOut", &a.rstd}},
                      {{"x", &a.x, true}, {"gamma", &a.gamma}});
}

NormPlan Plan(const RmsNormArgs& a, const arch::Chip& chip) {
  return Plan(a, chip, tune::RequestFromEnv(), nullptr);
}

NormPlan Plan(const RmsNormArgs& a, const arch::Chip& chip, const tune::Request& request,
              tune::Decision* decision) {
  NormPlan p;
  p.chip = &chip;
  const size_t r = a.x.shape.size(), k = a.gamma.shape.size();
  p.m = Product(a.x.shape, 0, r - k);
  p.n = Product(a.x.shape, r - k, r);
  if (p.m > 0 && p.n > 0) {
    tune::RowReduceKernelSpec spec;
    spec.op = "rms_norm";
    spec.kernel = "ops_rms_norm";
    spec.x_dtype = a.x.dtype;
    spec.y_dtype = a.y.dtype;
    spec.params = 1;
    spec.param_dtype = a.gamma.dtype;
    spec.row_outputs = 1;
    spec.eps = static_cast<float>(a.epsilon);
    spec.body = [](const RowReduceTiling& t) { patterns::RowReduceKernel<RmsNormHooks>(t); };
    p.rows = tune::SelectRowReduce(spec, p.m, p.n, a.max_ub_bytes, chip, request, decision);
    NormOperands o;
    o.x = a.x;
    o.param[0] = &a.gamma;
    o.y = a.y;
    o.row_out[0] = &a.rstd;
    p.workspace_bytes = StageNorm(o).WorkspaceBytes();
  }
  return p;
}

Status Launch(const RmsNormArgs& a, const NormPlan& plan, void* workspace, const void* stream) {
  if (plan.m == 0 || plan.n == 0) return Status();
  NormOperands o;
  o.x = a.x;
  o.param[0] = &a.gamma;
  o.y = a.y;
  o.row_out[0] = &a.rstd;
  return LaunchNorm<RmsNormHooks>(o, plan, static_cast<float>(a.epsilon), "ops_rms_norm", workspace,
                                  stream);
}

}  // namespace aicore::ops
