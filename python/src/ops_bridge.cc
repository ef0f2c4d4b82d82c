// The operators for the PyTorch extension (ops_bridge.h): Arguments structs named after the
// user's op, run through the operator library, then a wait on the default stream.
#include "python/src/ops_bridge.h"

#include "aicore/core/status.h"
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

}  // namespace aicore::python
