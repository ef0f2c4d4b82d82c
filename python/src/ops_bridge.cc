// The operators for the PyTorch extension (ops_bridge.h): Arguments structs named after the
// user's op, run through the operator library, then a wait on the default stream.
#include "python/src/ops_bridge.h"

#include <cstdint>
#include <vector>

#include "aicore/core/status.h"
#include "aicore/ops/attention/flash_attention.h"
#include "aicore/ops/ops.h"
#include "aicore/runtime/stream.h"

namespace aicore::python {

namespace {

ops::TensorRef Ref(const View& v) {
  ops::TensorRef r;
  r.data = v.data;
  r.dtype = v.dtype;
  r.shape = v.shape;
  r.strides = v.strides;
  return r;
}

// Waits for the default stream whatever `enqueued` says (a failed Launch may have enqueued its
// staging copies), then throws the first error.
void Finish(const char* op, const Status& enqueued) {
  const Status done = rt::StreamSynchronize(nullptr, op);
  if (!enqueued.ok()) throw Error(enqueued);
  if (!done.ok()) {
    throw Error(Status(done.code(), StrCat(op, ": the kernel failed: ", done.message()),
                       done.where()));
  }
}

}  // namespace

void RunSoftmax(const char* op, const View& self, int64_t dim, bool log, const View& out) {
  ops::SoftmaxArgs a;
  a.op = op;
  a.self = Ref(self);
  a.dim = dim;
  a.out = Ref(out);
  a.log = log;
  Finish(op, ops::Run(a));
}

void RunLayerNorm(const char* op, const View& input, const std::vector<int64_t>& normalized_shape,
                  const View* weight, const View* bias, double eps, const View& out,
                  const View& mean, const View& rstd) {
  ops::LayerNormArgs a;
  a.op = op;
  a.input = Ref(input);
  a.normalized_shape = normalized_shape;
  if (weight != nullptr) a.weight = Ref(*weight);
  if (bias != nullptr) a.bias = Ref(*bias);
  a.eps = eps;
  a.out = Ref(out);
  a.mean = Ref(mean);
  a.rstd = Ref(rstd);
  Finish(op, ops::Run(a));
}

void RunRmsNorm(const char* op, const View& input, const View& weight, double eps,
                const View& out, const View& rstd) {
  ops::RmsNormArgs a;
  a.op = op;
  a.x = Ref(input);
  a.gamma = Ref(weight);
  a.epsilon = eps;
  a.y = Ref(out);
  a.rstd = Ref(rstd);
  Finish(op, ops::Run(a));
}

void RunUnary(const char* op, UnaryKind kind, const View& self, const View& out) {
  ops::ElementwiseArgs a;
  a.kind = kind == UnaryKind::kSilu      ? ops::ElementwiseKind::kSilu
           : kind == UnaryKind::kGeluErf ? ops::ElementwiseKind::kGeluErf
                                         : ops::ElementwiseKind::kGeluTanh;
  a.op = op;
  a.self = Ref(self);
  a.out = Ref(out);
  Finish(op, ops::Run(a));
}

void RunMatmul(const char* op, const View& self, const View& other, const View& out) {
  ops::MatmulArgs a;
  a.kind = ops::MatmulKind::kMatmul;
  a.op = op;
  a.self = Ref(self);
  a.mat2 = Ref(other);
  a.out = Ref(out);
  Finish(op, ops::Run(a));
}

void RunAddmm(const char* op, const View& self, const View& mat1, const View& mat2, double beta,
              double alpha, const View& out) {
  ops::MatmulArgs a;
  a.kind = ops::MatmulKind::kAddmm;
  a.op = op;
  a.self = Ref(self);
  a.mat1 = Ref(mat1);
  a.mat2 = Ref(mat2);
  a.beta = beta;
  a.alpha = alpha;
  a.out = Ref(out);
  Finish(op, ops::Run(a));
}

void RunMatmulEpilogue(const char* op, const View& a, const View& b, const View& bias,
                       EpilogueAct act, const View& out) {
  ops::MatmulEpilogueArgs e;
  e.op = op;
  e.a = Ref(a);
  e.b = Ref(b);
  e.bias = Ref(bias);
  e.activation = static_cast<ops::Activation>(act);
  e.out = Ref(out);
  e.a_name = "input";
  e.b_name = "weight^T";
  Finish(op, ops::Run(e));
}

namespace {

static_assert(static_cast<int>(ops::Activation::kSilu) == static_cast<int>(EpilogueAct::kSilu) &&
              static_cast<int>(ops::Activation::kGeluTanh) ==
                  static_cast<int>(EpilogueAct::kGeluTanh));

// The compressed 2048 x 2048 mask sparse mode 2 takes (1 above the diagonal, as documented; the
// kernel derives the causal positions from the indices). Built once, never freed.
const ops::TensorRef& CausalMask() {
  static const ops::TensorRef ref = [] {
    auto* bytes = new std::vector<uint8_t>(ops::kFaCompressedMask * ops::kFaCompressedMask, 0);
    for (int64_t i = 0; i < ops::kFaCompressedMask; ++i) {
      for (int64_t j = i + 1; j < ops::kFaCompressedMask; ++j) {
        (*bytes)[i * ops::kFaCompressedMask + j] = 1;
      }
    }
    ops::TensorRef r;
    r.data = bytes->data();
    r.dtype = DType::kU8;
    r.shape = {ops::kFaCompressedMask, ops::kFaCompressedMask};
    r.strides = {ops::kFaCompressedMask, 1};
    return r;
  }();
  return ref;
}

ops::FlashAttentionAttrs AttentionAttrs(const View& q, bool causal, double scale) {
  ops::FlashAttentionAttrs attrs;
  attrs.scale = scale;
  attrs.head_num = q.shape.size() == 4 ? q.shape[1] : 0;
  attrs.layout = "BNSD";
  attrs.sparse_mode = causal ? 2 : 1;
  return attrs;
}

// Names the user's op in front of the library entry point's message.
Status Renamed(const char* op, const Status& s) {
  if (s.ok()) return s;
  return Status(s.code(), StrCat(op, ": ", s.message()), s.where());
}

}  // namespace

void RunFlashAttention(const char* op, const View& q, const View& k, const View& v,
                       const View* mask, bool causal, double scale, const View& softmax_max,
                       const View& softmax_sum, const View& out) {
  ops::TensorRef m;
  if (mask != nullptr) m = Ref(*mask);
  const ops::TensorRef* mp = causal ? &CausalMask() : mask != nullptr ? &m : nullptr;
  Finish(op, Renamed(op, ops::FlashAttentionForward(Ref(q), Ref(k), Ref(v), mp,
                                                    AttentionAttrs(q, causal, scale),
                                                    Ref(softmax_max), Ref(softmax_sum),
                                                    Ref(out))));
}

void RunFlashAttentionBackward(const char* op, const View& dy, const View& q, const View& k,
                               const View& v, const View* mask, bool causal, double scale,
                               const View& softmax_max, const View& softmax_sum,
                               const View& out, const View& dq, const View& dk, const View& dv) {
  ops::TensorRef m;
  if (mask != nullptr) m = Ref(*mask);
  const ops::TensorRef* mp = causal ? &CausalMask() : mask != nullptr ? &m : nullptr;
  Finish(op, Renamed(op, ops::FlashAttentionBackward(
                             Ref(q), Ref(k), Ref(v), Ref(dy), mp, Ref(softmax_max),
                             Ref(softmax_sum), Ref(out), AttentionAttrs(q, causal, scale),
                             Ref(dq), Ref(dk), Ref(dv))));
}

namespace {

ops::ElementwiseArgs Binary(ops::ElementwiseKind kind, const char* op, const View& self,
                            const View& out) {
  ops::ElementwiseArgs a;
  a.kind = kind;
  a.op = op;
  a.self = Ref(self);
  a.out = Ref(out);
  return a;
}

}  // namespace

void RunAdd(const char* op, const View& self, const View& other, double alpha, const View& out) {
  ops::ElementwiseArgs a = Binary(ops::ElementwiseKind::kAdd, op, self, out);
  a.other = Ref(other);
  a.alpha = alpha;
  Finish(op, ops::Run(a));
}

void RunAddScalar(const char* op, const View& self, double scalar, double alpha, const View& out) {
  ops::ElementwiseArgs a = Binary(ops::ElementwiseKind::kAdds, op, self, out);
  a.scalar = scalar;
  a.alpha = alpha;
  Finish(op, ops::Run(a));
}

void RunMul(const char* op, const View& self, const View& other, const View& out) {
  ops::ElementwiseArgs a = Binary(ops::ElementwiseKind::kMul, op, self, out);
  a.other = Ref(other);
  Finish(op, ops::Run(a));
}

void RunMulScalar(const char* op, const View& self, double scalar, const View& out) {
  ops::ElementwiseArgs a = Binary(ops::ElementwiseKind::kMuls, op, self, out);
  a.scalar = scalar;
  Finish(op, ops::Run(a));
}

void RunSoftmaxBackward(const char* op, const View& grad_output, const View& output, int64_t dim,
                        const View& out) {
  ops::SoftmaxBackwardArgs a;
  a.op = op;
  a.grad_output = Ref(grad_output);
  a.output = Ref(output);
  a.dim = dim;
  a.out = Ref(out);
  Finish(op, ops::Run(a));
}

void RunLayerNormBackward(const char* op, const View& grad_out, const View& input,
                          const std::vector<int64_t>& normalized_shape, const View& mean,
                          const View& rstd, const View* weight, const View* grad_input,
                          const View* grad_weight, const View* grad_bias) {
  ops::LayerNormBackwardArgs a;
  a.op = op;
  a.grad_out = Ref(grad_out);
  a.input = Ref(input);
  a.normalized_shape = normalized_shape;
  a.mean = Ref(mean);
  a.rstd = Ref(rstd);
  if (weight != nullptr) a.weight = Ref(*weight);
  a.output_mask = {grad_input != nullptr, grad_weight != nullptr, grad_bias != nullptr};
  if (grad_input != nullptr) a.grad_input = Ref(*grad_input);
  if (grad_weight != nullptr) a.grad_weight = Ref(*grad_weight);
  if (grad_bias != nullptr) a.grad_bias = Ref(*grad_bias);
  Finish(op, ops::Run(a));
}

}  // namespace aicore::python
