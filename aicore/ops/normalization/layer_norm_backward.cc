// LayerNormBackward: two RowReduce kernels over the forward's mean and rstd.
// - gradInput: the rows of (M, N) with x = gradOut, x2 = input, the weight as parameter and
//   mean, rstd as per-row inputs. A row accumulates s1 = sum(g w) and s2 = sum(g w xhat), then
//   is rewritten as rstd * (g w - s1 / N - xhat * s2 / N).
// - gradWeight and gradBias are column sums: they are the row outputs of a RowReduce over the
//   transposed (N, M) problem (normalized axes first, staged dense; Note [Staging]), where mean
//   and rstd are per-column parameters: dw = sum(g (x - mean) rstd), db = sum(g). That kernel
//   writes no element output, so each transposed row is read once.
#include <algorithm>

#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/normalization/norm.h"

namespace aicore::ops {

namespace {

using AscendC::LocalTensor;
using patterns::ReduceOp;
using patterns::ReduceToScalar;
using patterns::RowReduceTiling;
using patterns::RowScratch;

constexpr int64_t kMaxRank = 8;

float Sum(const RowScratch& sc, const LocalTensor<float>& v, uint32_t n) {
  return ReduceToScalar(ReduceOp::kSum, v, sc.result, sc.reduce_tmp, n);
}

// x = gradOut, x2 = input, param[0] = weight (or absent), row_in = mean, rstd.
struct GradInputHooks {
  struct Stats {
    float mean = 0, rstd = 0, s1 = 0, s2 = 0, a = 0, b = 0;
  };
  static constexpr int kInputs = 2;
  static constexpr int kRowInputs = 2;
  static constexpr int kRowOutputs = 0;
  static void Begin(Stats& s, const float* row_in) {
    s.mean = row_in[0];
    s.rstd = row_in[1];
  }
  static void Accumulate(Stats& s, const RowScratch& sc, const LocalTensor<float>& g,
                         const LocalTensor<float>& x, const LocalTensor<float>* param, uint32_t n,
                         const RowReduceTiling& t) {
    const bool w = t.param[0] != nullptr;
    if (w) {
      AscendC::Mul(sc.tmp, g, param[0], n);
      s.s1 += Sum(sc, sc.tmp, n);
    } else {
      s.s1 += Sum(sc, g, n);
    }
    AscendC::Adds(sc.tmp, x, -s.mean, n);
    AscendC::Muls(sc.tmp, sc.tmp, s.rstd, n);
    AscendC::Mul(sc.tmp, sc.tmp, g, n);
    if (w) AscendC::Mul(sc.tmp, sc.tmp, param[0], n);
    s.s2 += Sum(sc, sc.tmp, n);
  }
  static void Finish(Stats& s, const RowReduceTiling& t) {
    s.a = s.s1 / static_cast<float>(t.cols);
    s.b = s.s2 / static_cast<float>(t.cols);
  }
  static void Apply(const Stats& s, const RowScratch& sc, const LocalTensor<float>& dst,
                    const LocalTensor<float>& g, const LocalTensor<float>& x,
                    const LocalTensor<float>* param, uint32_t n, const RowReduceTiling& t) {
    AscendC::Adds(dst, x, -s.mean, n);
    AscendC::Muls(dst, dst, -s.rstd * s.b, n);  // -xhat * b
    AscendC::Adds(dst, dst, -s.a, n);
    if (t.param[0] != nullptr) {
      AscendC::Mul(sc.tmp, g, param[0], n);
      AscendC::Add(dst, dst, sc.tmp, n);
    } else {
      AscendC::Add(dst, dst, g, n);
    }
    AscendC::Muls(dst, dst, s.rstd, n);
  }
  static void RowOutputs(const Stats&, float*) {}
};

// Over the transposed problem: x = gradOut column, x2 = input column, param = mean, rstd.
struct GradParamsHooks {
  struct Stats {
    float dw = 0, db = 0;
  };
  static constexpr int kInputs = 2;
  static constexpr int kRowOutputs = 2;
  static void Accumulate(Stats& s, const RowScratch& sc, const LocalTensor<float>& g,
                         const LocalTensor<float>& x, const LocalTensor<float>* param, uint32_t n,
                         const RowReduceTiling&) {
    s.db += Sum(sc, g, n);
    AscendC::Sub(sc.tmp, x, param[0], n);
    AscendC::Mul(sc.tmp, sc.tmp, param[1], n);
    AscendC::Mul(sc.tmp, sc.tmp, g, n);
    s.dw += Sum(sc, sc.tmp, n);
  }
  static void Finish(Stats&, const RowReduceTiling&) {}
  static void Apply(const Stats&, const RowScratch&, const LocalTensor<float>&,
                    const LocalTensor<float>&, const LocalTensor<float>&, const LocalTensor<float>*,
                    uint32_t, const RowReduceTiling&) {}
  static void RowOutputs(const Stats& s, float* v) {
    v[0] = s.dw;
    v[1] = s.db;
  }
};

OpCheck CheckFloat(const char* op, const char* what, const TensorRef& t) {
  if (!patterns::IsPatternDType(t.dtype)) {
    return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t.dtype),
                          "; allowed: FLOAT, FLOAT16, BFLOAT16"));
  }
  if (t.data == nullptr && t.NumElements() > 0) {
    return NullArg(StrCat(op, ": ", what, " has null storage"));
  }
  return {};
}

// `t` with its last `k` axes moved to the front.
TensorRef TrailingFirst(const TensorRef& t, size_t k) {
  TensorRef r = t;
  const std::vector<int64_t> s = t.Strides();
  const size_t lead = t.shape.size() - k;
  r.shape.assign(t.shape.begin() + lead, t.shape.end());
  r.shape.insert(r.shape.end(), t.shape.begin(), t.shape.begin() + lead);
  r.strides.assign(s.begin() + lead, s.end());
  r.strides.insert(r.strides.end(), s.begin(), s.begin() + lead);
  return r;
}

bool Wants(const LayerNormBackwardArgs& a, int i) {
  const std::optional<TensorRef>* out[3] = {&a.grad_input, &a.grad_weight, &a.grad_bias};
  return a.output_mask[i] && out[i]->has_value();
}

Staging StageGradInput(const LayerNormBackwardArgs& a) {
  Staging st;
  st.AddInput(a.grad_out);
  st.AddInput(a.input);
  if (a.weight) st.AddInput(*a.weight);
  st.AddInput(a.mean, DType::kF32, a.mean.IsDense());
  st.AddInput(a.rstd, DType::kF32, a.rstd.IsDense());
  st.AddOutput(*a.grad_input, a.grad_input->dtype);
  return st;
}

Staging StageGradParams(const LayerNormBackwardArgs& a) {
  const size_t k = a.normalized_shape.size();
  Staging st;
  st.AddInput(TrailingFirst(a.grad_out, k));
  st.AddInput(TrailingFirst(a.input, k));
  st.AddInput(a.mean);
  st.AddInput(a.rstd);
  if (Wants(a, 1)) st.AddOutput(*a.grad_weight, DType::kF32);
  if (Wants(a, 2)) st.AddOutput(*a.grad_bias, DType::kF32);
  return st;
}

uint64_t Align512(uint64_t b) { return (b + 511) / 512 * 512; }

}  // namespace

OpCheck CanImplement(const LayerNormBackwardArgs& a, const arch::Chip&) {
  const char* op = a.op;
  if (a.output_mask.size() != 3) {
    return Invalid(StrCat(op, ": outputMask has ", a.output_mask.size(),
                          " entries; it must have 3 (gradInput, gradWeight, gradBias)"));
  }
  const char* names[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  const std::optional<TensorRef>* outs[3] = {&a.grad_input, &a.grad_weight, &a.grad_bias};
  for (int i = 0; i < 3; ++i) {
    if (a.output_mask[i] && !outs[i]->has_value()) {
      return NullArg(StrCat(op, ": ", names[i], " is null but outputMask[", i, "] is true"));
    }
  }
  OpCheck c;
  if (!(c = CheckFloat(op, "gradOut", a.grad_out)).ok() ||
      !(c = CheckFloat(op, "input", a.input)).ok() || !(c = CheckFloat(op, "mean", a.mean)).ok() ||
      !(c = CheckFloat(op, "rstd", a.rstd)).ok()) {
    return c;
  }
  const size_t r = a.input.shape.size(), k = a.normalized_shape.size();
  if (r < 1 || static_cast<int64_t>(r) > kMaxRank) {
    return Invalid(StrCat(op, ": input has ", r, " dims; allowed: 1 to ", kMaxRank));
  }
  if (a.input.NumElements() == 0) {
    return Invalid(StrCat(op, ": input ", ShapeString(a.input.shape),
                          " is empty; empty tensors are not supported"));
  }
  if (a.grad_out.shape != a.input.shape || a.grad_out.dtype != a.input.dtype) {
    return Invalid(StrCat(op, ": gradOut is ", OpDTypeName(a.grad_out.dtype), " ",
                          ShapeString(a.grad_out.shape), "; it must be input's dtype and shape, ",
                          OpDTypeName(a.input.dtype), " ", ShapeString(a.input.shape)));
  }
  if (k == 0 || k > r ||
      !std::equal(a.normalized_shape.begin(), a.normalized_shape.end(),
                  a.input.shape.end() - static_cast<int64_t>(k))) {
    return Invalid(StrCat(op, ": normalizedShape ", ShapeString(a.normalized_shape),
                          " is not the trailing dims of input ", ShapeString(a.input.shape)));
  }
  std::vector<int64_t> stat = a.input.shape;
  for (size_t i = r - k; i < r; ++i) stat[i] = 1;
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{"mean", &a.mean}, {"rstd", &a.rstd}}) {
    if (t->shape != stat) {
      return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString(t->shape), "; it must be ",
                            ShapeString(stat)));
    }
    if (t->dtype != a.input.dtype && t->dtype != DType::kF32) {
      return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t->dtype),
                            "; allowed: input's dtype ", OpDTypeName(a.input.dtype), " or FLOAT"));
    }
  }
  if (a.mean.dtype != a.rstd.dtype) {
    return Invalid(StrCat(op, ": mean (", OpDTypeName(a.mean.dtype), ") and rstd (",
                          OpDTypeName(a.rstd.dtype), ") must have the same dtype"));
  }
  for (const auto& [what, t] :
       {std::pair<const char*, const std::optional<TensorRef>*>{"weightOptional", &a.weight},
        {"biasOptional", &a.bias}}) {
    if (!t->has_value()) continue;
    if (!(c = CheckFloat(op, what, **t)).ok()) return c;
    if ((*t)->shape != a.normalized_shape) {
      return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString((*t)->shape),
                            "; it must equal normalizedShape ", ShapeString(a.normalized_shape)));
    }
  }
  if (Wants(a, 0)) {
    if (!(c = CheckFloat(op, names[0], *a.grad_input)).ok()) return c;
    if (a.grad_input->shape != a.input.shape || a.grad_input->dtype != a.input.dtype) {
      return Invalid(StrCat(op, ": gradInputOut is ", OpDTypeName(a.grad_input->dtype), " ",
                            ShapeString(a.grad_input->shape),
                            "; it must be input's dtype and shape, ", OpDTypeName(a.input.dtype),
                            " ", ShapeString(a.input.shape)));
    }
  }
  for (int i = 1; i < 3; ++i) {
    if (!Wants(a, i)) continue;
    const TensorRef& t = **outs[i];
    if (!(c = CheckFloat(op, names[i], t)).ok()) return c;
    if (t.shape != a.normalized_shape) {
      return Invalid(StrCat(op, ": ", names[i], " has shape ", ShapeString(t.shape),
                            "; it must equal normalizedShape ", ShapeString(a.normalized_shape)));
    }
    if (a.weight && t.dtype != a.weight->dtype) {
      return Invalid(StrCat(op, ": ", names[i], " has dtype ", OpDTypeName(t.dtype),
                            "; it must be weight's dtype ", OpDTypeName(a.weight->dtype)));
    }
  }
  // The gradWeight/gradBias pass reads gradOut and input again after the gradInput pass: no
  // output may share memory with an input.
  const auto want = [&a](int i, const std::optional<TensorRef>& t) {
    return Wants(a, i) ? &*t : nullptr;
  };
  const auto opt = [](const std::optional<TensorRef>& t) { return t ? &*t : nullptr; };
  return CheckOutputs(op,
                      {{names[0], want(0, a.grad_input)},
                       {names[1], want(1, a.grad_weight)},
                       {names[2], want(2, a.grad_bias)}},
                      {{"gradOut", &a.grad_out},
                       {"input", &a.input},
                       {"mean", &a.mean},
                       {"rstd", &a.rstd},
                       {"weightOptional", opt(a.weight)},
                       {"biasOptional", opt(a.bias)}});
}

LayerNormBackwardPlan Plan(const LayerNormBackwardArgs& a, const arch::Chip& chip) {
  LayerNormBackwardPlan p;
  p.chip = &chip;
  p.n = 1;
  for (int64_t d : a.normalized_shape) p.n *= d;
  p.m = a.input.NumElements() / p.n;
  // Budgeted as the widest the stages launch: two fp32 inputs, an fp32 output, two parameters.
  const patterns::RowReduceStorage storage{4, 4, 4, 2};
  if (Wants(a, 0)) {
    p.dx = patterns::PlanRowReduce(p.m, p.n, chip, a.max_ub_bytes, storage);
    p.dx_bytes = Align512(StageGradInput(a).WorkspaceBytes());
  }
  uint64_t dwb_bytes = 0;
  if (Wants(a, 1) || Wants(a, 2)) {
    p.dwb = patterns::PlanRowReduce(p.n, p.m, chip, a.max_ub_bytes, storage);
    dwb_bytes = StageGradParams(a).WorkspaceBytes();
  }
  p.workspace_bytes = p.dx_bytes + dwb_bytes;
  return p;
}

Status Launch(const LayerNormBackwardArgs& a, const LayerNormBackwardPlan& p, void* workspace,
              const void* stream) {
  uint8_t* const ws = static_cast<uint8_t*>(workspace);
  if (Wants(a, 0)) {
    const Staging st = StageGradInput(a);
    Status s = st.Enqueue(ws, stream, [&](const std::vector<uint8_t*>& dense) {
      patterns::RowReduceTiling t = p.dx.tiling;
      size_t i = 0;
      t.x = dense[i++];
      t.x_dtype = a.grad_out.dtype;
      t.x2 = dense[i++];
      t.x2_dtype = a.input.dtype;
      if (a.weight) {
        t.param[0] = dense[i++];
        t.param_dtype[0] = a.weight->dtype;
      }
      t.row_in[0] = reinterpret_cast<const float*>(dense[i++]);
      t.row_in[1] = reinterpret_cast<const float*>(dense[i++]);
      t.y = dense[i++];
      t.y_dtype = a.grad_input->dtype;
      return LaunchPattern(stream, "ops_layer_norm_backward_input", p.dx.block_dim, *p.chip,
                           [t] { patterns::RowReduceKernel<GradInputHooks>(t); });
    });
    if (!s.ok()) return s;
  }
  if (!Wants(a, 1) && !Wants(a, 2)) return Status();
  const Staging st = StageGradParams(a);
  return st.Enqueue(
      ws == nullptr ? nullptr : ws + p.dx_bytes, stream, [&](const std::vector<uint8_t*>& dense) {
        patterns::RowReduceTiling t = p.dwb.tiling;
        size_t i = 0;
        t.x = dense[i++];
        t.x_dtype = a.grad_out.dtype;
        t.x2 = dense[i++];
        t.x2_dtype = a.input.dtype;
        t.param[0] = dense[i++];
        t.param_dtype[0] = a.mean.dtype;
        t.param[1] = dense[i++];
        t.param_dtype[1] = a.rstd.dtype;
        if (Wants(a, 1)) t.row_out[0] = reinterpret_cast<float*>(dense[i++]);
        if (Wants(a, 2)) t.row_out[1] = reinterpret_cast<float*>(dense[i++]);
        t.y = nullptr;
        return LaunchPattern(stream, "ops_layer_norm_backward_params", p.dwb.block_dim, *p.chip,
                             [t] { patterns::RowReduceKernel<GradParamsHooks>(t); });
      });
}

}  // namespace aicore::ops
