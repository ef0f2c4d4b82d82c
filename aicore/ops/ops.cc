// The C++ operator functions: one thin layer over each operator's CanImplement, Plan and Launch.
// The workspace comes from the device allocator on the op's stream and goes back once the stream
// has run the launch (FreeWorkspaceAfter).
#include "aicore/ops/ops.h"

#include "aicore/ops/framework/run_op.h"

namespace aicore::ops {

namespace {

ElementwiseArgs Elementwise(ElementwiseKind kind, const char* op, const TensorRef& self,
                            const TensorRef& out) {
  ElementwiseArgs a;
  a.kind = kind;
  a.op = op;
  a.self = self;
  a.out = out;
  return a;
}

}  // namespace

Status Run(const ElementwiseArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const SoftmaxArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const LayerNormArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const RmsNormArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const MatmulArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const MatmulEpilogueArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const SoftmaxBackwardArgs& args, const void* stream) { return RunOp(args, stream); }
Status Run(const LayerNormBackwardArgs& args, const void* stream) { return RunOp(args, stream); }

Status SoftmaxBackward(const TensorRef& grad_output, const TensorRef& output, int64_t dim,
                       const TensorRef& out, const void* stream) {
  SoftmaxBackwardArgs a;
  a.op = "aicore::ops::SoftmaxBackward";
  a.grad_output = grad_output;
  a.output = output;
  a.dim = dim;
  a.out = out;
  return RunOp(a, stream);
}
Status LayerNormBackward(const TensorRef& grad_out, const TensorRef& input,
                         const std::vector<int64_t>& normalized_shape, const TensorRef& mean,
                         const TensorRef& rstd, const TensorRef* weight,
                         const TensorRef* grad_input, const TensorRef* grad_weight,
                         const TensorRef* grad_bias, const void* stream) {
  LayerNormBackwardArgs a;
  a.op = "aicore::ops::LayerNormBackward";
  a.grad_out = grad_out;
  a.input = input;
  a.normalized_shape = normalized_shape;
  a.mean = mean;
  a.rstd = rstd;
  if (weight) a.weight = *weight;
  a.output_mask = {grad_input != nullptr, grad_weight != nullptr, grad_bias != nullptr};
  if (grad_input) a.grad_input = *grad_input;
  if (grad_weight) a.grad_weight = *grad_weight;
  if (grad_bias) a.grad_bias = *grad_bias;
  return RunOp(a, stream);
}

Status Add(const TensorRef& self, const TensorRef& other, double alpha, const TensorRef& out,
           const void* stream) {
  ElementwiseArgs a = Elementwise(ElementwiseKind::kAdd, "aicore::ops::Add", self, out);
  a.other = other;
  a.alpha = alpha;
  return RunOp(a, stream);
}
Status Adds(const TensorRef& self, double other, double alpha, const TensorRef& out,
            const void* stream) {
  ElementwiseArgs a = Elementwise(ElementwiseKind::kAdds, "aicore::ops::Adds", self, out);
  a.scalar = other;
  a.alpha = alpha;
  return RunOp(a, stream);
}
Status Mul(const TensorRef& self, const TensorRef& other, const TensorRef& out,
           const void* stream) {
  ElementwiseArgs a = Elementwise(ElementwiseKind::kMul, "aicore::ops::Mul", self, out);
  a.other = other;
  return RunOp(a, stream);
}
Status Muls(const TensorRef& self, double other, const TensorRef& out, const void* stream) {
  ElementwiseArgs a = Elementwise(ElementwiseKind::kMuls, "aicore::ops::Muls", self, out);
  a.scalar = other;
  return RunOp(a, stream);
}
Status Silu(const TensorRef& self, const TensorRef& out, const void* stream) {
  return RunOp(Elementwise(ElementwiseKind::kSilu, "aicore::ops::Silu", self, out), stream);
}
Status Gelu(const TensorRef& self, const TensorRef& out, const void* stream) {
  return RunOp(Elementwise(ElementwiseKind::kGeluTanh, "aicore::ops::Gelu", self, out), stream);
}
Status GeluV2(const TensorRef& x, int64_t approximate, const TensorRef& y, const void* stream) {
  return RunOp(
      Elementwise(approximate == 1 ? ElementwiseKind::kGeluTanh : ElementwiseKind::kGeluErf,
                  "aicore::ops::GeluV2", x, y),
      stream);
}
Status Softmax(const TensorRef& self, int64_t dim, const TensorRef& out, const void* stream) {
  SoftmaxArgs a;
  a.op = "aicore::ops::Softmax";
  a.self = self;
  a.dim = dim;
  a.out = out;
  return RunOp(a, stream);
}
Status LogSoftmax(const TensorRef& self, int64_t dim, const TensorRef& out, const void* stream) {
  SoftmaxArgs a;
  a.op = "aicore::ops::LogSoftmax";
  a.self = self;
  a.dim = dim;
  a.out = out;
  a.log = true;
  return RunOp(a, stream);
}
Status LayerNorm(const TensorRef& input, const std::vector<int64_t>& normalized_shape,
                 const TensorRef* weight, const TensorRef* bias, double eps, const TensorRef& out,
                 const TensorRef* mean, const TensorRef* rstd, const void* stream) {
  LayerNormArgs a;
  a.op = "aicore::ops::LayerNorm";
  a.input = input;
  a.normalized_shape = normalized_shape;
  if (weight) a.weight = *weight;
  if (bias) a.bias = *bias;
  a.eps = eps;
  a.out = out;
  if (mean) a.mean = *mean;
  if (rstd) a.rstd = *rstd;
  return RunOp(a, stream);
}
Status RmsNorm(const TensorRef& x, const TensorRef& gamma, double epsilon, const TensorRef& y,
               const TensorRef& rstd, const void* stream) {
  RmsNormArgs a;
  a.op = "aicore::ops::RmsNorm";
  a.x = x;
  a.gamma = gamma;
  a.epsilon = epsilon;
  a.y = y;
  a.rstd = rstd;
  return RunOp(a, stream);
}

namespace {

MatmulArgs MatmulOf(MatmulKind kind, const char* op, const TensorRef& self, const TensorRef& mat2,
                    const TensorRef& out, int8_t cube_math_type) {
  MatmulArgs a;
  a.kind = kind;
  a.op = op;
  a.self = self;
  a.mat2 = mat2;
  a.out = out;
  a.cube_math_type = cube_math_type;
  return a;
}

}  // namespace

Status Matmul(const TensorRef& self, const TensorRef& mat2, const TensorRef& out,
              int8_t cube_math_type, const void* stream) {
  return RunOp(
      MatmulOf(MatmulKind::kMatmul, "aicore::ops::Matmul", self, mat2, out, cube_math_type),
      stream);
}
Status Mm(const TensorRef& self, const TensorRef& mat2, const TensorRef& out, int8_t cube_math_type,
          const void* stream) {
  return RunOp(MatmulOf(MatmulKind::kMm, "aicore::ops::Mm", self, mat2, out, cube_math_type),
               stream);
}
Status BatchMatMul(const TensorRef& self, const TensorRef& mat2, const TensorRef& out,
                   int8_t cube_math_type, const void* stream) {
  return RunOp(MatmulOf(MatmulKind::kBatchMatMul, "aicore::ops::BatchMatMul", self, mat2, out,
                        cube_math_type),
               stream);
}
Status Addmm(const TensorRef& self, const TensorRef& mat1, const TensorRef& mat2, double beta,
             double alpha, const TensorRef& out, int8_t cube_math_type, const void* stream) {
  MatmulArgs a =
      MatmulOf(MatmulKind::kAddmm, "aicore::ops::Addmm", self, mat2, out, cube_math_type);
  a.mat1 = mat1;
  a.beta = beta;
  a.alpha = alpha;
  return RunOp(a, stream);
}

namespace {

MatmulEpilogueArgs EpilogueOf(const char* op, const TensorRef& a, const TensorRef& b,
                              const TensorRef* bias, const TensorRef* residual, double alpha,
                              double beta, Activation activation, const TensorRef& out) {
  MatmulEpilogueArgs e;
  e.op = op;
  e.a = a;
  e.b = b;
  if (bias) e.bias = *bias;
  if (residual) e.residual = *residual;
  e.alpha = alpha;
  e.beta = beta;
  e.activation = activation;
  e.out = out;
  return e;
}

}  // namespace

Status MatmulEpilogue(const TensorRef& a, const TensorRef& b, const TensorRef* bias,
                      const TensorRef* residual, double alpha, double beta, Activation activation,
                      const TensorRef& out, const void* stream) {
  return RunOp(
      EpilogueOf("aicore::ops::MatmulEpilogue", a, b, bias, residual, alpha, beta, activation, out),
      stream);
}

Status MatmulEpilogueUnfused(const TensorRef& a, const TensorRef& b, const TensorRef* bias,
                             const TensorRef* residual, double alpha, double beta,
                             Activation activation, const TensorRef& out, const void* stream) {
  const char* op = "aicore::ops::MatmulEpilogueUnfused";
  const MatmulEpilogueArgs args =
      EpilogueOf(op, a, b, bias, residual, alpha, beta, activation, out);
  const OpCheck c = CanImplement(args, arch::DefaultChip());
  if (!c.ok()) return c.ToStatus();
  if (out.NumElements() == 0) return Status();
  std::shared_ptr<rt::Stream> s;
  Status st = rt::ResolveStream(stream, op, &s);
  if (!st.ok()) return st;
  void* buf = nullptr;
  try {
    buf = rt::DeviceMalloc(static_cast<uint64_t>(out.NumElements()) * 4, s.get());
  } catch (const Error& e) {
    return e.status();
  }
  const TensorRef t = DenseRef(buf, DType::kF32, out.shape);
  st = Matmul(a, b, t, kKeepDtype, stream);
  if (st.ok() && alpha != 1) st = Muls(t, alpha, t, stream);
  if (st.ok() && bias) st = Add(t, *bias, beta, t, stream);
  if (st.ok()) {
    switch (activation) {
      case Activation::kRelu:
        st = Run(Elementwise(ElementwiseKind::kRelu, op, t, t), stream);
        break;
      case Activation::kGeluErf:
        st = GeluV2(t, 0, t, stream);
        break;
      case Activation::kGeluTanh:
        st = GeluV2(t, 1, t, stream);
        break;
      case Activation::kSilu:
        st = Silu(t, t, stream);
        break;
      default:
        break;
    }
  }
  if (st.ok()) st = residual ? Add(t, *residual, 1, out, stream) : Muls(t, 1, out, stream);
  FreeWorkspaceAfter(stream, buf);
  return st;
}

}  // namespace aicore::ops
