// The CPU kernels of torch.ops.aicore.* (torch_ops.h): argument checks with torch's names, then
// aicore's operator on the tensors' own storage (ops_bridge.h). Strided inputs are passed with
// their strides (the operator stages them); outputs are fresh contiguous tensors. Ranks above
// aicore's 8, and the 0-d case, are folded onto 3-d (softmax) or 2-d (norms) views.
#include "python/src/torch_ops.h"

#include <ATen/ExpandUtils.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aicore/core/status.h"
#include "python/src/ops_bridge.h"

namespace aicore::python {

namespace {

constexpr int64_t kMaxRank = 8;  // aicore's operators take ranks up to 8

bool IsFloatType(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16;
}

DType ToDType(at::ScalarType t) {
  return t == at::kFloat ? DType::kF32 : t == at::kHalf ? DType::kF16 : DType::kBF16;
}

// The device type of the kernel running: CPU, Meta (shapes and checks only) or PrivateUse1 (the
// aicore device, whose memory is host memory). Set per call by the registered kernels (AsKernel);
// the kernels of one call run on one thread.
thread_local c10::DeviceType g_device = c10::DeviceType::CPU;

// Throws unless `t` is a defined, strided tensor of fp32, fp16 or bf16 on the kernel's device.
void CheckTensor(const char* op, const char* arg, const at::Tensor& t) {
  TORCH_CHECK(t.defined(), op, ": ", arg, " is an undefined tensor");
  TORCH_CHECK(t.layout() == at::kStrided, op, ": ", arg, " has layout ", t.layout(),
              "; allowed: torch.strided");
  TORCH_CHECK(t.device().type() == g_device, op, ": ", arg, " is on device ", t.device(),
              "; all tensor arguments must be on one device (this call runs the ",
              c10::DeviceTypeName(g_device, /*lower_case=*/true), " kernel)");
  TORCH_CHECK(IsFloatType(t.scalar_type()), op, ": ", arg, " has dtype ", t.scalar_type(),
              "; allowed: Float, Half, BFloat16");
}

View ViewOf(const at::Tensor& t) {
  View v;
  v.data = t.data_ptr();
  v.dtype = ToDType(t.scalar_type());
  v.shape = t.sizes().vec();
  v.strides = t.strides().vec();
  return v;
}

// Runs `body` (a bridge call) and turns aicore's error into c10::Error.
template <class F>
void Call(F&& body) {
  if (g_device == c10::DeviceType::Meta) return;
  try {
    body();
  } catch (const Error& e) {
    TORCH_CHECK(false, e.status().message());
  }
}

int64_t WrapDim(const char* op, int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  TORCH_CHECK(dim >= -r && dim < r, op, ": dim ", dim, " is out of range for self of ", rank,
              " dims; allowed: [", -r, ", ", r - 1, "]");
  return dim < 0 ? dim + r : dim;
}

at::Tensor EmptyLike(const at::Tensor& t, at::ScalarType dtype) {
  return at::empty(t.sizes(), t.options().dtype(dtype).memory_format(at::MemoryFormat::Contiguous));
}

at::Tensor SoftmaxImpl(const char* op, const at::Tensor& self, int64_t dim,
                       c10::optional<at::ScalarType> dtype, bool log) {
  CheckTensor(op, "self", self);
  const at::ScalarType out_type = dtype.value_or(self.scalar_type());
  TORCH_CHECK(IsFloatType(out_type), op, ": dtype ", out_type, " is not allowed; allowed: "
              "Float, Half, BFloat16");
  const int64_t rank = self.dim();
  const int64_t d = WrapDim(op, dim, rank);
  at::Tensor out = EmptyLike(self, out_type);
  if (self.numel() == 0) return out;
  at::Tensor x = self, y = out;
  int64_t kernel_dim = d;
  if (rank == 0 || rank > kMaxRank) {
    const auto sizes = self.sizes();
    int64_t before = 1, after = 1;
    for (int64_t i = 0; i < d; ++i) before *= sizes[i];
    for (int64_t i = d + 1; i < rank; ++i) after *= sizes[i];
    const std::vector<int64_t> folded = {before, rank == 0 ? 1 : sizes[d], after};
    x = self.contiguous().view(folded);
    y = out.view(folded);
    kernel_dim = 1;
  }
  Call([&] { RunSoftmax(op, ViewOf(x), kernel_dim, log, ViewOf(y)); });
  return out;
}

// Checks that `normalized_shape` is `input`'s trailing dims; returns the rows and columns.
void NormShape(const char* op, const at::Tensor& input, at::IntArrayRef normalized_shape,
               int64_t* rows, int64_t* cols) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  const int64_t rank = input.dim();
  TORCH_CHECK(k >= 1 && k <= rank && input.sizes().slice(rank - k).equals(normalized_shape), op,
              ": normalized_shape ", normalized_shape, " is not the trailing dims of input of "
              "shape ", input.sizes());
  *rows = 1;
  *cols = 1;
  for (int64_t i = 0; i < rank - k; ++i) *rows *= input.size(i);
  for (int64_t i = rank - k; i < rank; ++i) *cols *= input.size(i);
}

void CheckParam(const char* op, const char* arg, const at::Tensor& p, const at::Tensor& input,
                at::IntArrayRef shape) {
  CheckTensor(op, arg, p);
  TORCH_CHECK(p.device() == input.device(), op, ": ", arg, " is on device ", p.device(),
              " and input on ", input.device(), "; they must be on one device");
  TORCH_CHECK(p.sizes().equals(shape), op, ": ", arg, " has shape ", p.sizes(), "; it must be ",
              shape);
  TORCH_CHECK(p.scalar_type() == input.scalar_type() || p.scalar_type() == at::kFloat, op, ": ",
              arg, " has dtype ", p.scalar_type(), "; allowed: input's dtype (",
              input.scalar_type(), ") or Float");
}

// Input's shape with 1 on the trailing `k` dims: the shape of mean and rstd.
std::vector<int64_t> StatShape(const at::Tensor& input, int64_t k) {
  std::vector<int64_t> s = input.sizes().vec();
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) s[i] = 1;
  return s;
}

}  // namespace

bool GeluIsTanh(c10::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "aicore::gelu: approximate '",
              std::string(approximate), "' is not allowed; allowed: 'none', 'tanh'");
  return approximate == "tanh";
}

at::Tensor SoftmaxCpu(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype) {
  return SoftmaxImpl("aicore::softmax", self, dim, dtype, false);
}

at::Tensor LogSoftmaxCpu(const at::Tensor& self, int64_t dim,
                         c10::optional<at::ScalarType> dtype) {
  return SoftmaxImpl("aicore::log_softmax", self, dim, dtype, true);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNormCpu(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps) {
  const char* op = "aicore::layer_norm";
  CheckTensor(op, "input", input);
  int64_t rows = 0, cols = 0;
  NormShape(op, input, normalized_shape, &rows, &cols);
  const bool has_w = weight.has_value() && weight->defined();
  const bool has_b = bias.has_value() && bias->defined();
  if (has_w) CheckParam(op, "weight", *weight, input, normalized_shape);
  if (has_b) CheckParam(op, "bias", *bias, input, normalized_shape);
  TORCH_CHECK(!has_w || !has_b || weight->scalar_type() == bias->scalar_type(), op,
              ": weight has dtype ", weight->scalar_type(), " and bias ", bias->scalar_type(),
              "; they must be the same");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  at::Tensor out = EmptyLike(input, input.scalar_type());
  const auto stat_opts = input.options().dtype(at::kFloat);
  at::Tensor mean = at::empty(StatShape(input, k), stat_opts);
  at::Tensor rstd = at::empty(StatShape(input, k), stat_opts);
  if (g_device == c10::DeviceType::Meta) return {out, mean, rstd};
  if (input.numel() == 0) {
    mean.zero_();
    rstd.fill_(std::numeric_limits<float>::quiet_NaN());
    return {out, mean, rstd};
  }
  at::Tensor x = input, y = out, m = mean, r = rstd;
  at::Tensor w = has_w ? *weight : at::Tensor(), b = has_b ? *bias : at::Tensor();
  std::vector<int64_t> ns = normalized_shape.vec();
  if (input.dim() > kMaxRank) {
    x = input.contiguous().view({rows, cols});
    y = out.view({rows, cols});
    m = mean.view({rows, 1});
    r = rstd.view({rows, 1});
    if (has_w) w = w.reshape({cols});
    if (has_b) b = b.reshape({cols});
    ns = {cols};
  }
  Call([&] {
    const View vw = has_w ? ViewOf(w) : View(), vb = has_b ? ViewOf(b) : View();
    RunLayerNorm(op, ViewOf(x), ns, has_w ? &vw : nullptr, has_b ? &vb : nullptr, eps, ViewOf(y),
                 ViewOf(m), ViewOf(r));
  });
  return {out, mean, rstd};
}

std::tuple<at::Tensor, at::Tensor> NativeRmsNormCpu(const at::Tensor& input,
                                                    const at::Tensor& weight, double eps) {
  const char* op = "aicore::rms_norm";
  CheckTensor(op, "input", input);
  CheckTensor(op, "weight", weight);
  int64_t rows = 0, cols = 0;
  TORCH_CHECK(weight.dim() >= 1, op, ": weight is 0-d; it must be input's trailing dims");
  TORCH_CHECK(weight.dim() <= input.dim() &&
                  input.sizes().slice(input.dim() - weight.dim()).equals(weight.sizes()),
              op, ": weight has shape ", weight.sizes(), "; it must be the trailing dims of "
              "input of shape ", input.sizes());
  NormShape(op, input, weight.sizes(), &rows, &cols);
  CheckParam(op, "weight", weight, input, weight.sizes());
  at::Tensor out = EmptyLike(input, input.scalar_type());
  at::Tensor rstd = at::empty(StatShape(input, weight.dim()), input.options().dtype(at::kFloat));
  if (g_device == c10::DeviceType::Meta) return {out, rstd};
  if (input.numel() == 0) {
    rstd.fill_(std::numeric_limits<float>::quiet_NaN());
    return {out, rstd};
  }
  at::Tensor x = input, y = out, r = rstd, w = weight;
  if (input.dim() > kMaxRank) {
    x = input.contiguous().view({rows, cols});
    y = out.view({rows, cols});
    r = rstd.view({rows, 1});
    w = weight.reshape({cols});
  }
  Call([&] { RunRmsNorm(op, ViewOf(x), ViewOf(w), eps, ViewOf(y), ViewOf(r)); });
  return {out, rstd};
}

namespace {

at::Tensor UnaryImpl(const char* op, UnaryKind kind, const at::Tensor& self) {
  CheckTensor(op, "self", self);
  at::Tensor out = EmptyLike(self, self.scalar_type());
  if (self.numel() == 0) return out;
  at::Tensor x = self, y = out;
  if (self.dim() > kMaxRank) {
    x = self.contiguous().view({self.numel()});
    y = out.view({self.numel()});
  }
  Call([&] { RunUnary(op, kind, ViewOf(x), ViewOf(y)); });
  return out;
}

}  // namespace

at::Tensor GeluCpu(const at::Tensor& self, c10::string_view approximate) {
  const UnaryKind kind = GeluIsTanh(approximate) ? UnaryKind::kGeluTanh : UnaryKind::kGeluErf;
  return UnaryImpl("aicore::gelu", kind, self);
}

at::Tensor SiluCpu(const at::Tensor& self) {
  return UnaryImpl("aicore::silu", UnaryKind::kSilu, self);
}

namespace {

// torch.matmul's operands as aicore's Matmul takes them (ranks 2..6, both at least 2-D): a 1-D
// self gets a leading 1, a 1-D other a trailing 1 (the out view has them too); batch dims beyond
// aicore's four are broadcast and folded into one.
struct MatmulOperands {
  at::Tensor a, b;
  std::vector<int64_t> out_shape;     // torch.matmul's result shape
  std::vector<int64_t> kernel_shape;  // the shape of the out view the kernel writes
};

constexpr int64_t kMaxMatmulRank = 6;

MatmulOperands PrepareMatmul(const char* op, const at::Tensor& self, const at::Tensor& other) {
  CheckTensor(op, "self", self);
  CheckTensor(op, "other", other);
  TORCH_CHECK(self.device() == other.device(), op, ": other is on device ", other.device(),
              " and self on ", self.device(), "; they must be on one device");
  TORCH_CHECK(self.dim() >= 1 && other.dim() >= 1, op, ": ", self.dim() == 0 ? "self" : "other",
              " is 0-d; both arguments need at least 1 dim");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), op, ": other has dtype ",
              other.scalar_type(), " and self ", self.scalar_type(), "; they must be the same");
  MatmulOperands r;
  r.a = self.dim() == 1 ? self.unsqueeze(0) : self;
  r.b = other.dim() == 1 ? other.unsqueeze(-1) : other;
  const int64_t k = r.a.size(-1);
  TORCH_CHECK(r.b.size(-2) == k, op, ": self of shape ", self.sizes(), " and other of shape ",
              other.sizes(), " cannot be multiplied (", self.dim() == 1 ? "self" : "self's last",
              " dim ", k, " != other's ", other.dim() == 1 ? "" : "second-to-last ", "dim ",
              r.b.size(-2), ")");
  const at::IntArrayRef batch_a = r.a.sizes().slice(0, r.a.dim() - 2);
  const at::IntArrayRef batch_b = r.b.sizes().slice(0, r.b.dim() - 2);
  std::vector<int64_t> batch;
  try {
    batch = at::infer_size(batch_a, batch_b);
  } catch (const c10::Error&) {
    TORCH_CHECK(false, op, ": the batch dims of self ", batch_a, " and other ", batch_b,
                " do not broadcast");
  }
  const int64_t m = r.a.size(-2), n = r.b.size(-1);
  r.out_shape = batch;
  if (self.dim() > 1) r.out_shape.push_back(m);
  if (other.dim() > 1) r.out_shape.push_back(n);
  if (static_cast<int64_t>(batch.size()) + 2 > kMaxMatmulRank) {
    int64_t folded = 1;
    for (int64_t d : batch) folded *= d;
    std::vector<int64_t> ea = batch, eb = batch;
    ea.insert(ea.end(), {m, k});
    eb.insert(eb.end(), {k, n});
    r.a = r.a.expand(ea).reshape({folded, m, k});
    r.b = r.b.expand(eb).reshape({folded, k, n});
    batch = {folded};
  }
  r.kernel_shape = batch;
  r.kernel_shape.insert(r.kernel_shape.end(), {m, n});
  return r;
}

}  // namespace

at::Tensor MatmulCpu(const at::Tensor& self, const at::Tensor& other) {
  const char* op = "aicore::matmul";
  MatmulOperands p = PrepareMatmul(op, self, other);
  at::Tensor out = at::empty(p.out_shape, self.options().memory_format(
                                              at::MemoryFormat::Contiguous));
  if (g_device == c10::DeviceType::Meta || out.numel() == 0) return out;
  if (p.a.size(-1) == 0) return out.zero_();
  const at::Tensor y = out.view(p.kernel_shape);
  Call([&] { RunMatmul(op, ViewOf(p.a), ViewOf(p.b), ViewOf(y)); });
  return out;
}

at::Tensor LinearBiasCpu(const at::Tensor& input, const at::Tensor& weight,
                         const at::Tensor& bias) {
  const char* op = "aicore::linear";
  CheckTensor(op, "input", input);
  CheckTensor(op, "weight", weight);
  CheckTensor(op, "bias", bias);
  TORCH_CHECK(input.dim() >= 1 && weight.dim() == 2 && bias.dim() == 1 &&
                  input.size(-1) == weight.size(1) && bias.size(0) == weight.size(0),
              op, ": input of shape ", input.sizes(), ", weight of shape ", weight.sizes(),
              " and bias of shape ", bias.sizes(), " do not make a linear layer");
  TORCH_CHECK(weight.scalar_type() == input.scalar_type() &&
                  bias.scalar_type() == input.scalar_type(),
              op, ": input, weight and bias must have one dtype");
  const int64_t k = weight.size(1), n = weight.size(0);
  std::vector<int64_t> out_shape = input.sizes().slice(0, input.dim() - 1).vec();
  out_shape.push_back(n);
  at::Tensor out = at::empty(out_shape, input.options().memory_format(
                                            at::MemoryFormat::Contiguous));
  if (g_device == c10::DeviceType::Meta || out.numel() == 0) return out;
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < input.dim(); ++i) rows *= input.size(i);
  const at::Tensor y = out.view({rows, n});
  if (k == 0) {  // an empty product: the bias alone
    y.copy_(bias.expand({rows, n}));
    return out;
  }
  const at::Tensor x = input.reshape({rows, k});
  Call([&] {
    RunAddmm(op, ViewOf(bias), ViewOf(x), ViewOf(weight.t()), 1.0, 1.0, ViewOf(y));
  });
  return out;
}

at::Tensor LinearEpilogueCpu(const at::Tensor& input, const at::Tensor& weight,
                             const at::Tensor& bias, c10::string_view activation) {
  const char* op = "aicore::linear";
  EpilogueAct act;
  if (activation == "none") {
    act = EpilogueAct::kNone;
  } else if (activation == "relu") {
    act = EpilogueAct::kRelu;
  } else if (activation == "gelu") {
    act = EpilogueAct::kGeluErf;
  } else if (activation == "silu") {
    act = EpilogueAct::kSilu;
  } else {
    TORCH_CHECK(false, op, ": activation '", std::string(activation),
                "' is not allowed; allowed: 'none', 'relu', 'gelu', 'silu'");
  }
  CheckTensor(op, "input", input);
  CheckTensor(op, "weight", weight);
  CheckTensor(op, "bias", bias);
  TORCH_CHECK(input.dim() >= 1 && weight.dim() == 2 && bias.dim() == 1 &&
                  input.size(-1) == weight.size(1) && bias.size(0) == weight.size(0),
              op, ": input of shape ", input.sizes(), ", weight of shape ", weight.sizes(),
              " and bias of shape ", bias.sizes(), " do not make a linear layer");
  TORCH_CHECK(weight.scalar_type() == input.scalar_type() &&
                  bias.scalar_type() == input.scalar_type(),
              op, ": input, weight and bias must have one dtype");
  const int64_t k = weight.size(1), n = weight.size(0);
  std::vector<int64_t> out_shape = input.sizes().slice(0, input.dim() - 1).vec();
  out_shape.push_back(n);
  at::Tensor out = at::empty(out_shape, input.options().memory_format(
                                            at::MemoryFormat::Contiguous));
  if (g_device == c10::DeviceType::Meta || out.numel() == 0) return out;
  TORCH_CHECK(k > 0, op, ": the fused epilogue needs in_features > 0");
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < input.dim(); ++i) rows *= input.size(i);
  const at::Tensor y = out.view({rows, n});
  const at::Tensor x = input.reshape({rows, k});
  // weight is [out, in]: its transpose is a view the kernel reads in place.
  Call([&] {
    RunMatmulEpilogue(op, ViewOf(x), ViewOf(weight.t()), ViewOf(bias), act, ViewOf(y));
  });
  return out;
}

namespace {

constexpr const char* kAttentionOp = "aicore::scaled_dot_product_attention";

// Checks q, k, v as the fused kernel takes them: 4-D BNSD of one dtype, B, N and S agreeing.
void CheckAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                    const c10::optional<at::Tensor>& mask) {
  const char* op = kAttentionOp;
  CheckTensor(op, "query", q);
  CheckTensor(op, "key", k);
  CheckTensor(op, "value", v);
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, op,
              ": the fused kernel takes 4-D (B, N, S, E) query, key and value");
  TORCH_CHECK(k.scalar_type() == q.scalar_type() && v.scalar_type() == q.scalar_type(), op,
              ": query, key and value must have one dtype");
  if (mask.has_value() && mask->defined()) {
    TORCH_CHECK(mask->scalar_type() == at::kByte && mask->device().type() == g_device, op,
                ": the fused kernel's mask must be a uint8 tensor on query's device");
  }
}

View MaskView(const c10::optional<at::Tensor>& mask) {
  View m = ViewOf(*mask);
  m.dtype = DType::kU8;
  return m;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttentionCpu(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const c10::optional<at::Tensor>& mask, bool is_causal, double scale) {
  CheckAttention(query, key, value, mask);
  std::vector<int64_t> out_shape = query.sizes().vec();
  out_shape[3] = value.size(3);
  const auto f32 = query.options().dtype(at::kFloat).memory_format(at::MemoryFormat::Contiguous);
  at::Tensor out = at::empty(out_shape, query.options().memory_format(
                                            at::MemoryFormat::Contiguous));
  at::Tensor mx = at::empty({query.size(0), query.size(1), query.size(2), 8}, f32);
  at::Tensor sm = at::empty({query.size(0), query.size(1), query.size(2), 8}, f32);
  const bool has_mask = mask.has_value() && mask->defined();
  Call([&] {
    const View m = has_mask ? MaskView(mask) : View();
    RunFlashAttention(kAttentionOp, ViewOf(query), ViewOf(key), ViewOf(value),
                      has_mask ? &m : nullptr, is_causal, scale, ViewOf(mx), ViewOf(sm),
                      ViewOf(out));
  });
  return {out, mx, sm};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttentionBackwardCpu(
    const at::Tensor& grad, const at::Tensor& query, const at::Tensor& key,
    const at::Tensor& value, const c10::optional<at::Tensor>& mask, const at::Tensor& out,
    const at::Tensor& softmax_max, const at::Tensor& softmax_sum, bool is_causal, double scale) {
  CheckAttention(query, key, value, mask);
  CheckTensor(kAttentionOp, "grad", grad);
  const auto contiguous = at::MemoryFormat::Contiguous;
  at::Tensor dq = at::empty(query.sizes(), query.options().memory_format(contiguous));
  at::Tensor dk = at::empty(key.sizes(), key.options().memory_format(contiguous));
  at::Tensor dv = at::empty(value.sizes(), value.options().memory_format(contiguous));
  const bool has_mask = mask.has_value() && mask->defined();
  const at::Tensor g = grad.scalar_type() == query.scalar_type() ? grad
                                                                 : grad.to(query.scalar_type());
  Call([&] {
    const View m = has_mask ? MaskView(mask) : View();
    RunFlashAttentionBackward(kAttentionOp, ViewOf(g), ViewOf(query), ViewOf(key),
                              ViewOf(value), has_mask ? &m : nullptr, is_causal, scale,
                              ViewOf(softmax_max), ViewOf(softmax_sum), ViewOf(out), ViewOf(dq),
                              ViewOf(dk), ViewOf(dv));
  });
  return {dq, dk, dv};
}

namespace {

// Runs a kernel body for device type `Type`: the same checks and output shapes; Meta computes
// nothing, PrivateUse1 runs aicore's operator on the device tensors' (host) memory.
template <c10::DeviceType Type, auto Kernel, class... Args>
auto AsKernel(Args... args) {
  struct Scope {
    c10::DeviceType saved = g_device;
    Scope() { g_device = Type; }
    ~Scope() { g_device = saved; }
  } scope;
  return Kernel(args...);
}

}  // namespace

#define AICORE_DEVICE_KERNELS(Suffix, Type)                                                  \
  at::Tensor Softmax##Suffix(const at::Tensor& self, int64_t dim,                            \
                             c10::optional<at::ScalarType> dtype) {                          \
    return AsKernel<Type, SoftmaxCpu>(self, dim, dtype);                                     \
  }                                                                                          \
  at::Tensor LogSoftmax##Suffix(const at::Tensor& self, int64_t dim,                         \
                                c10::optional<at::ScalarType> dtype) {                       \
    return AsKernel<Type, LogSoftmaxCpu>(self, dim, dtype);                                  \
  }                                                                                          \
  std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNorm##Suffix(                    \
      const at::Tensor& input, at::IntArrayRef normalized_shape,                             \
      const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,        \
      double eps) {                                                                          \
    return AsKernel<Type, NativeLayerNormCpu>(input, normalized_shape, weight, bias, eps);   \
  }                                                                                          \
  std::tuple<at::Tensor, at::Tensor> NativeRmsNorm##Suffix(const at::Tensor& input,          \
                                                           const at::Tensor& weight,         \
                                                           double eps) {                     \
    return AsKernel<Type, NativeRmsNormCpu>(input, weight, eps);                             \
  }                                                                                          \
  at::Tensor Gelu##Suffix(const at::Tensor& self, c10::string_view approximate) {            \
    return AsKernel<Type, GeluCpu>(self, approximate);                                       \
  }                                                                                          \
  at::Tensor Silu##Suffix(const at::Tensor& self) { return AsKernel<Type, SiluCpu>(self); } \
  at::Tensor Matmul##Suffix(const at::Tensor& self, const at::Tensor& other) {              \
    return AsKernel<Type, MatmulCpu>(self, other);                                           \
  }                                                                                          \
  at::Tensor LinearBias##Suffix(const at::Tensor& input, const at::Tensor& weight,          \
                                const at::Tensor& bias) {                                    \
    return AsKernel<Type, LinearBiasCpu>(input, weight, bias);                               \
  }                                                                                          \
  at::Tensor LinearEpilogue##Suffix(const at::Tensor& input, const at::Tensor& weight,      \
                                    const at::Tensor& bias, c10::string_view activation) {  \
    return AsKernel<Type, LinearEpilogueCpu>(input, weight, bias, activation);               \
  }                                                                                          \
  std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttention##Suffix(                     \
      const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,               \
      const c10::optional<at::Tensor>& mask, bool is_causal, double scale) {                 \
    return AsKernel<Type, FlashAttentionCpu>(query, key, value, mask, is_causal, scale);     \
  }                                                                                          \
  std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttentionBackward##Suffix(             \
      const at::Tensor& grad, const at::Tensor& query, const at::Tensor& key,                \
      const at::Tensor& value, const c10::optional<at::Tensor>& mask, const at::Tensor& out, \
      const at::Tensor& softmax_max, const at::Tensor& softmax_sum, bool is_causal,          \
      double scale) {                                                                        \
    return AsKernel<Type, FlashAttentionBackwardCpu>(grad, query, key, value, mask, out,     \
                                                     softmax_max, softmax_sum, is_causal,    \
                                                     scale);                                 \
  }

AICORE_DEVICE_KERNELS(Meta, c10::DeviceType::Meta)
AICORE_DEVICE_KERNELS(Device, c10::DeviceType::PrivateUse1)
#undef AICORE_DEVICE_KERNELS

}  // namespace aicore::python
