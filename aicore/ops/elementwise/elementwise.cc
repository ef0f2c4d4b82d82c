// The elementwise operators' hooks, checks, plan and launch.
// - Checks follow the aclnn docs: 161002 for a dtype outside fp32/fp16/bf16, rank above 8, shapes
//   that do not broadcast, an out whose shape is not the broadcast shape, Gelu/Silu in/out dtype
//   or shape mismatch.
// - Plan: the heuristic (patterns/elementwise_plan.h: tile = the UB budget / the bytes a tile
//   element costs, rounded down to 64 elements; blocks get equal 64-element-aligned ranges of at
//   least kMinBlockElements each), or what strategy selection picks (AICORE_TUNE, tune/).
// - Launch: operands that are not dense (strides, broadcast) are staged (Note [Staging]).
#include "aicore/ops/elementwise/elementwise.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "aicore/core/status.h"
#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/patterns/activation.h"
#include "aicore/ops/tune/elementwise_tune.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

namespace {

using AscendC::LocalTensor;
using patterns::ElementwiseKernel;

constexpr int64_t kMaxRank = 8;

struct AddHooks {
  static constexpr int kInputs = 2;
  static constexpr int kTemps = 0;
  static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
                      const LocalTensor<float>*, uint32_t n, const float* scalar) {
    if (scalar[0] == 1.0f) {
      AscendC::Add(dst, src[0], src[1], n);
    } else {
      AscendC::Muls(dst, src[1], scalar[0], n);  // alpha * other
      AscendC::Add(dst, src[0], dst, n);
    }
  }
};

struct MulHooks {
  static constexpr int kInputs = 2;
  static constexpr int kTemps = 0;
  static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
                      const LocalTensor<float>*, uint32_t n, const float*) {
    AscendC::Mul(dst, src[0], src[1], n);
  }
};

// self + scalar[0] (Adds: alpha * other folded on the host) or self * scalar[0].
struct AddsHooks {
  static constexpr int kInputs = 1;
  static constexpr int kTemps = 0;
  static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
                      const LocalTensor<float>*, uint32_t n, const float* scalar) {
    AscendC::Adds(dst, src[0], scalar[0], n);
  }
};
struct MulsHooks {
  static constexpr int kInputs = 1;
  static constexpr int kTemps = 0;
  static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
                      const LocalTensor<float>*, uint32_t n, const float* scalar) {
    AscendC::Muls(dst, src[0], scalar[0], n);
  }
};

// An activation of patterns/activation.h as elementwise hooks.
template <class Act>
struct ActivationHooks {
  static constexpr int kInputs = 1;
  static constexpr int kTemps = Act::kTemps;
  static void Compute(const LocalTensor<float>& dst, const LocalTensor<float>* src,
                      const LocalTensor<float>* tmp, uint32_t n, const float*) {
    Act::Apply(dst, src[0], tmp, n);
  }
};
using SiluHooks = ActivationHooks<patterns::SiluAct>;
using ReluHooks = ActivationHooks<patterns::ReluAct>;
using GeluTanhHooks = ActivationHooks<patterns::GeluTanhAct>;
using GeluErfHooks = ActivationHooks<patterns::GeluErfAct>;

int Inputs(ElementwiseKind k) {
  return k == ElementwiseKind::kAdd || k == ElementwiseKind::kMul ? 2 : 1;
}

int Temps(ElementwiseKind k) {
  switch (k) {
    case ElementwiseKind::kGeluTanh:
      return GeluTanhHooks::kTemps;
    case ElementwiseKind::kGeluErf:
      return GeluErfHooks::kTemps;
    default:
      return 0;
  }
}

const char* KernelName(ElementwiseKind k) {
  switch (k) {
    case ElementwiseKind::kAdd:
      return "ops_add";
    case ElementwiseKind::kAdds:
      return "ops_adds";
    case ElementwiseKind::kMul:
      return "ops_mul";
    case ElementwiseKind::kMuls:
      return "ops_muls";
    case ElementwiseKind::kSilu:
      return "ops_silu";
    case ElementwiseKind::kGeluTanh:
      return "ops_gelu_tanh";
    case ElementwiseKind::kGeluErf:
      return "ops_gelu_erf";
    case ElementwiseKind::kRelu:
      return "ops_relu";
  }
  return "ops_elementwise";
}

// Returns the kernel of `k`: ElementwiseKernel<its hooks>.
std::function<void(const patterns::ElementwiseTiling&)> BodyOf(ElementwiseKind k) {
  using T = const patterns::ElementwiseTiling&;
  switch (k) {
    case ElementwiseKind::kAdd:
      return [](T t) { ElementwiseKernel<AddHooks>(t); };
    case ElementwiseKind::kAdds:
      return [](T t) { ElementwiseKernel<AddsHooks>(t); };
    case ElementwiseKind::kMul:
      return [](T t) { ElementwiseKernel<MulHooks>(t); };
    case ElementwiseKind::kMuls:
      return [](T t) { ElementwiseKernel<MulsHooks>(t); };
    case ElementwiseKind::kSilu:
      return [](T t) { ElementwiseKernel<SiluHooks>(t); };
    case ElementwiseKind::kGeluTanh:
      return [](T t) { ElementwiseKernel<GeluTanhHooks>(t); };
    case ElementwiseKind::kGeluErf:
      return [](T t) { ElementwiseKernel<GeluErfHooks>(t); };
    case ElementwiseKind::kRelu:
      return [](T t) { ElementwiseKernel<ReluHooks>(t); };
  }
  return [](T t) { ElementwiseKernel<AddsHooks>(t); };
}

OpCheck CheckFloat(const char* op, const char* what, const TensorRef& t) {
  if (!patterns::IsPatternDType(t.dtype)) {
    return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t.dtype),
                          "; allowed: FLOAT, FLOAT16, BFLOAT16"));
  }
  if (t.Rank() > kMaxRank) {
    return Invalid(StrCat(op, ": ", what, " has ", t.Rank(), " dims ", ShapeString(t.shape),
                          "; at most ", kMaxRank, " are allowed"));
  }
  if (t.data == nullptr && t.NumElements() > 0) {
    return NullArg(
        StrCat(op, ": ", what, " has no data (null storage) but ", t.NumElements(), " elements"));
  }
  return {};
}

}  // namespace

DType PromoteFloat(DType a, DType b) {
  if (a == b) return a;
  return DType::kF32;  // f16+f32, bf16+f32, f16+bf16 -> f32
}

bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     std::vector<int64_t>* out) {
  const size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

OpCheck CanImplement(const ElementwiseArgs& args, const arch::Chip&) {
  const char* op = args.op;
  OpCheck c = CheckFloat(op, args.self_name, args.self);
  if (!c.ok()) return c;
  c = CheckFloat(op, args.out_name, args.out);
  if (!c.ok()) return c;
  const bool binary = Inputs(args.kind) == 2;
  std::vector<int64_t> shape = args.self.shape;
  if (binary) {
    c = CheckFloat(op, "other", args.other);
    if (!c.ok()) return c;
    if (!BroadcastShapes(args.self.shape, args.other.shape, &shape)) {
      return Invalid(StrCat(op, ": self ", ShapeString(args.self.shape), " and other ",
                            ShapeString(args.other.shape),
                            " do not broadcast (each dim must be equal or 1)"));
    }
    if (static_cast<int64_t>(shape.size()) > kMaxRank) {
      return Invalid(StrCat(op, ": the broadcast shape ", ShapeString(shape), " has more than ",
                            kMaxRank, " dims"));
    }
  }
  if (args.out.shape != shape) {
    return Invalid(StrCat(op, ": ", args.out_name, " has shape ", ShapeString(args.out.shape),
                          "; it must be ", binary ? "the broadcast shape " : "self's shape ",
                          ShapeString(shape)));
  }
  const bool activation =
      args.kind == ElementwiseKind::kSilu || args.kind == ElementwiseKind::kRelu ||
      args.kind == ElementwiseKind::kGeluTanh || args.kind == ElementwiseKind::kGeluErf;
  if (activation && args.out.dtype != args.self.dtype) {
    return Invalid(StrCat(op, ": ", args.out_name, " has dtype ", OpDTypeName(args.out.dtype),
                          "; it must equal ", args.self_name, "'s dtype ",
                          OpDTypeName(args.self.dtype)));
  }
  // Each element is read before it is written and never again: out may be an input's view.
  return CheckOutputs(op, {{args.out_name, &args.out, true}},
                      {{args.self_name, &args.self, true},
                       {"other", binary ? &args.other : nullptr, true}});
}

// The tile and the split over blocks of `total` elements.
void PlanSplit(int64_t total, int inputs, int temps, const arch::Chip& chip, ElementwisePlan* p) {
  p->chip = &chip;
  p->block_dim = patterns::RealizeElementwise(
      total, patterns::HeuristicElementwiseKnobs(inputs, temps, chip), chip, &p->tiling);
}

ElementwisePlan Plan(const ElementwiseArgs& args, const arch::Chip& chip) {
  return Plan(args, chip, tune::RequestFromEnv(), nullptr);
}

ElementwisePlan Plan(const ElementwiseArgs& args, const arch::Chip& chip,
                     const tune::Request& request, tune::Decision* decision) {
  ElementwisePlan p;
  const int inputs = Inputs(args.kind);
  p.chip = &chip;
  p.tiling.out_dtype = args.out.dtype;
  switch (args.kind) {
    case ElementwiseKind::kAdd:
      p.tiling.scalar[0] = static_cast<float>(args.alpha);
      break;
    case ElementwiseKind::kAdds:
      p.tiling.scalar[0] = static_cast<float>(args.alpha * args.scalar);
      break;
    case ElementwiseKind::kMuls:
      p.tiling.scalar[0] = static_cast<float>(args.scalar);
      break;
    default:
      break;
  }
  tune::ElementwiseKernelSpec spec;
  spec.op = KernelName(args.kind) + 4;  // "ops_add" -> "add"
  spec.kernel = KernelName(args.kind);
  spec.inputs = inputs;
  spec.temps = Temps(args.kind);
  spec.in_dtype[0] = args.self.dtype;
  if (inputs == 2) spec.in_dtype[1] = args.other.dtype;
  spec.out_dtype = args.out.dtype;
  std::copy(p.tiling.scalar, p.tiling.scalar + 4, spec.scalar);
  spec.body = BodyOf(args.kind);
  p.block_dim =
      tune::SelectElementwise(spec, args.out.NumElements(), chip, request, &p.tiling, decision);
  Staging st;
  const std::vector<int64_t>& shape = args.out.shape;
  st.AddInput(BroadcastTo(args.self, shape));
  if (inputs == 2) st.AddInput(BroadcastTo(args.other, shape));
  st.AddOutput(args.out, args.out.dtype);
  p.workspace_bytes = st.WorkspaceBytes();
  return p;
}

Status Launch(const ElementwiseArgs& in_args, const ElementwisePlan& plan, void* workspace,
              const void* stream) {
  if (plan.tiling.total == 0) return Status();
  ElementwiseArgs args = in_args;
  if (args.in_place) args.out.data = args.self.data;  // one storage (aclSetInputTensorAddr)
  const int inputs = Inputs(args.kind);
  const std::vector<int64_t>& shape = args.out.shape;
  Staging st;
  st.AddInput(BroadcastTo(args.self, shape));
  if (inputs == 2) st.AddInput(BroadcastTo(args.other, shape));
  st.AddOutput(args.out, args.out.dtype);
  return st.Enqueue(workspace, stream, [&](const std::vector<uint8_t*>& dense) {
    patterns::ElementwiseTiling t = plan.tiling;
    t.in[0] = dense[0];
    t.in_dtype[0] = args.self.dtype;
    if (inputs == 2) {
      t.in[1] = dense[1];
      t.in_dtype[1] = args.other.dtype;
    }
    t.out = dense[inputs];
    return LaunchPattern(stream, KernelName(args.kind), plan.block_dim, *plan.chip,
                         [t, body = BodyOf(args.kind)] { body(t); });
  });
}

Status RunElementwiseKernel(const char* name, const std::vector<TensorRef>& inputs,
                            const TensorRef& out, int temps, const std::vector<float>& scalar,
                            std::function<void(const patterns::ElementwiseTiling&)> kernel,
                            const void* stream) {
  const int n_in = static_cast<int>(inputs.size());
  if (n_in < 1 || n_in > patterns::kMaxElementwiseInputs || scalar.size() > 4) {
    return Status(
        StatusCode::kInvalidArgument,
        StrCat(name, ": ", n_in, " inputs and ", scalar.size(), " scalars; allowed: 1 to ",
               patterns::kMaxElementwiseInputs, " inputs, at most 4 scalars"));
  }
  OpCheck c = CheckFloat(name, "out", out);
  for (int i = 0; i < n_in && c.ok(); ++i) {
    const std::string what = StrCat("input ", i);
    c = CheckFloat(name, what.c_str(), inputs[i]);
    std::vector<int64_t> shape;
    if (c.ok() && (!BroadcastShapes(inputs[i].shape, out.shape, &shape) || shape != out.shape)) {
      c = Invalid(StrCat(name, ": ", what, " ", ShapeString(inputs[i].shape),
                         " does not broadcast to out's shape ", ShapeString(out.shape)));
    }
  }
  for (int i = 0; i < n_in && c.ok(); ++i) {
    const std::string what = StrCat("input ", i);
    c = CheckOutputs(name, {{"out", &out, true}}, {{what.c_str(), &inputs[i], true}});
  }
  if (!c.ok()) return c.ToStatus();
  ElementwisePlan p;
  p.chip = &arch::DefaultChip();
  tune::ElementwiseKernelSpec spec;
  spec.op = name;
  spec.kernel = name;
  spec.inputs = n_in;
  spec.temps = temps;
  for (int i = 0; i < n_in; ++i) spec.in_dtype[i] = inputs[i].dtype;
  spec.out_dtype = out.dtype;
  for (size_t i = 0; i < scalar.size(); ++i) spec.scalar[i] = scalar[i];
  spec.body = kernel;
  try {
    p.block_dim = tune::SelectElementwise(spec, out.NumElements(), *p.chip,
                                          tune::RequestFromEnv(), &p.tiling);
  } catch (const Error& e) {
    return e.status();
  }
  if (p.tiling.total == 0) return Status();
  for (size_t i = 0; i < scalar.size(); ++i) p.tiling.scalar[i] = scalar[i];
  p.tiling.out_dtype = out.dtype;
  Staging st;
  for (const TensorRef& t : inputs) st.AddInput(BroadcastTo(t, out.shape));
  st.AddOutput(out, out.dtype);
  void* ws = nullptr;
  if (st.WorkspaceBytes() > 0) {
    std::shared_ptr<rt::Stream> s;
    Status r = rt::ResolveStream(stream, name, &s);
    if (!r.ok()) return r;
    try {
      ws = rt::DeviceMalloc(st.WorkspaceBytes(), s.get());
    } catch (const Error& e) {
      return e.status();
    }
  }
  Status r = st.Enqueue(ws, stream, [&](const std::vector<uint8_t*>& dense) {
    patterns::ElementwiseTiling t = p.tiling;
    for (int i = 0; i < n_in; ++i) {
      t.in[i] = dense[i];
      t.in_dtype[i] = inputs[i].dtype;
    }
    t.out = dense[n_in];
    return LaunchPattern(stream, name, p.block_dim, *p.chip, [kernel, t] { kernel(t); });
  });
  FreeWorkspaceAfter(stream, ws);
  return r;
}

}  // namespace aicore::ops
