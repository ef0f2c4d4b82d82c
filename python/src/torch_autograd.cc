// The Autograd kernels of torch.ops.aicore.* (torch_ops.h). Forward redispatches to the op below
// autograd (so aicore's kernel runs on the CPU tensors); backward is composed of torch's CPU
// ops, computed in float32 and cast back to each input's dtype: aicore has no backward kernels
// yet. Being composed of differentiable ops, every backward can itself be differentiated
// (create_graph=True gives second derivatives).
//
//   softmax       dx = y * (g - sum(g * y, dim))
//   log_softmax   dx = g - exp(y) * sum(g, dim)
//   layer_norm    x^ = (x - mean) * rstd, g' = g * w
//                 dx = rstd * (g' - mean(g') - x^ * mean(g' * x^)),  dw = sum(g * x^),  db = sum(g)
//   rms_norm      g' = g * w,  dx = rstd * g' - x * rstd^3 * mean(g' * x),  dw = sum(g * x * rstd)
//   gelu (none)   dx = g * (Phi(x) + x * phi(x))
//   gelu (tanh)   t = tanh(k (x + a x^3)), dx = g * (0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 a x^2))
//   silu          s = sigmoid(x), dx = g * s * (1 + x (1 - s))
//   matmul        da = g @ b^T, db = a^T @ g (aicore::matmul itself, in the inputs' dtype), each
//                 summed over the batch dims its operand was broadcast along (1-D operands get
//                 their unit dim back, then lose it)
//   _linear_bias  g' = g as (rows, out): dx = g' @ w, dw = g'^T @ x, db = sum(g', rows)
//                 (aicore::matmul; db by torch's sum)
//   _flash_attention  dq, dk, dv = aicore::_flash_attention_backward (FlashAttentionBackward,
//                 from the forward's output and softmax statistics); no second derivatives
//   _linear_epilogue  no backward: inputs that need a gradient are refused (linear composes)
// (means and sums over the normalized dims; dw, db sum over the leading dims.)
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ExpandUtils.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <string>
#include <vector>

#include "python/src/torch_ops.h"

namespace aicore::python {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

at::Tensor F32(const at::Tensor& t) { return t.to(at::kFloat); }

at::ScalarType SavedType(AutogradContext* ctx, const char* key) {
  return static_cast<at::ScalarType>(ctx->saved_data[key].toInt());
}

// The trailing `k` dims of a rank-`rank` tensor, and the leading rest.
std::vector<int64_t> Trailing(int64_t rank, int64_t k) {
  std::vector<int64_t> d;
  for (int64_t i = rank - k; i < rank; ++i) d.push_back(i);
  return d;
}
// Sums `t` over its leading (rank - k) dims, leaving the normalized shape (at::sum over an empty
// dim list would reduce everything).
at::Tensor SumLeading(const at::Tensor& t, int64_t k) {
  std::vector<int64_t> lead;
  for (int64_t i = 0; i < t.dim() - k; ++i) lead.push_back(i);
  return lead.empty() ? t : t.sum(lead);
}

template <class Sig>
c10::TypedOperatorHandle<Sig> Op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

using SoftmaxSig = at::Tensor(const at::Tensor&, int64_t, c10::optional<at::ScalarType>);
using LayerNormSig = std::tuple<at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, at::IntArrayRef, const c10::optional<at::Tensor>&,
    const c10::optional<at::Tensor>&, double);
using RmsNormSig = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&,
                                                      double);
using GeluSig = at::Tensor(const at::Tensor&, c10::string_view);
using SiluSig = at::Tensor(const at::Tensor&);
using MatmulSig = at::Tensor(const at::Tensor&, const at::Tensor&);
using LinearBiasSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&);

class SoftmaxFunction : public torch::autograd::Function<SoftmaxFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self, int64_t dim,
                            c10::optional<at::ScalarType> dtype, bool log) {
    at::Tensor out;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto softmax = Op<SoftmaxSig>("aicore::softmax");
      static const auto log_softmax = Op<SoftmaxSig>("aicore::log_softmax");
      out = (log ? log_softmax : softmax).call(self, dim, dtype);
    }
    ctx->save_for_backward({out});
    ctx->saved_data["dim"] = dim;
    ctx->saved_data["log"] = log;
    ctx->saved_data["dtype"] = static_cast<int64_t>(self.scalar_type());
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor y = F32(ctx->get_saved_variables()[0]);
    const int64_t dim = ctx->saved_data["dim"].toInt();
    const at::Tensor g = F32(grads[0]);
    at::Tensor dx = ctx->saved_data["log"].toBool() ? g - y.exp() * g.sum(dim, true)
                                                    : y * (g - (g * y).sum(dim, true));
    return {dx.to(SavedType(ctx, "dtype")), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

class LayerNormFunction : public torch::autograd::Function<LayerNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& input,
                               at::IntArrayRef normalized_shape,
                               const c10::optional<at::Tensor>& weight,
                               const c10::optional<at::Tensor>& bias, double eps) {
    at::Tensor out, mean, rstd;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<LayerNormSig>("aicore::native_layer_norm");
      std::tie(out, mean, rstd) = op.call(input, normalized_shape, weight, bias, eps);
    }
    const at::Tensor w = weight.has_value() ? *weight : at::Tensor();
    const at::Tensor b = bias.has_value() ? *bias : at::Tensor();
    ctx->save_for_backward({input, mean, rstd, w});
    ctx->saved_data["k"] = static_cast<int64_t>(normalized_shape.size());
    ctx->saved_data["has_bias"] = b.defined();
    ctx->saved_data["bias_dtype"] = static_cast<int64_t>(b.defined() ? b.scalar_type()
                                                                     : at::kFloat);
    ctx->mark_non_differentiable({mean, rstd});
    return {out, mean, rstd};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& input = saved[0];
    const at::Tensor &mean = saved[1], &rstd = saved[2], &w = saved[3];
    const int64_t k = ctx->saved_data["k"].toInt();
    at::Tensor dx, dw, db;
    if (grads[0].defined()) {
      const std::vector<int64_t> axes = Trailing(input.dim(), k);
      const at::Tensor g = F32(grads[0]);
      const at::Tensor xhat = (F32(input) - mean) * rstd;
      const at::Tensor gw = w.defined() ? g * F32(w) : g;
      dx = rstd * (gw - gw.mean(axes, true) - xhat * (gw * xhat).mean(axes, true));
      dx = dx.to(input.scalar_type());
      if (w.defined()) dw = SumLeading(g * xhat, k).to(w.scalar_type());
      if (ctx->saved_data["has_bias"].toBool()) {
        db = SumLeading(g, k).to(SavedType(ctx, "bias_dtype"));
      }
    }
    return {dx, at::Tensor(), dw, db, at::Tensor()};
  }
};

class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& input,
                               const at::Tensor& weight, double eps) {
    at::Tensor out, rstd;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<RmsNormSig>("aicore::native_rms_norm");
      std::tie(out, rstd) = op.call(input, weight, eps);
    }
    ctx->save_for_backward({input, weight, rstd});
    ctx->mark_non_differentiable({rstd});
    return {out, rstd};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor &input = saved[0], &w = saved[1], &rstd = saved[2];
    at::Tensor dx, dw;
    if (grads[0].defined()) {
      const int64_t k = w.dim();
      const at::Tensor g = F32(grads[0]);
      const at::Tensor x = F32(input);
      const at::Tensor gw = g * F32(w);
      dx = rstd * gw - x * rstd.pow(3) * (gw * x).mean(Trailing(x.dim(), k), true);
      dx = dx.to(input.scalar_type());
      dw = SumLeading(g * x * rstd, k).to(w.scalar_type());
    }
    return {dx, dw, at::Tensor()};
  }
};

class GeluFunction : public torch::autograd::Function<GeluFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self,
                            c10::string_view approximate) {
    const bool tanh = GeluIsTanh(approximate);
    at::Tensor out;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<GeluSig>("aicore::gelu");
      out = op.call(self, approximate);
    }
    ctx->save_for_backward({self});
    ctx->saved_data["tanh"] = tanh;
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor self = ctx->get_saved_variables()[0];  // a copy: the list is a temporary
    const at::Tensor x = F32(self), g = F32(grads[0]);
    at::Tensor d;
    if (ctx->saved_data["tanh"].toBool()) {
      const double k = std::sqrt(2.0 / M_PI), a = 0.044715;
      const at::Tensor t = (k * (x + a * x.pow(3))).tanh();
      d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * a * x * x);
    } else {
      const at::Tensor cdf = 0.5 * (1 + (x * M_SQRT1_2).erf());
      const at::Tensor pdf = (-0.5 * x * x).exp() * (0.5 * M_2_SQRTPI * M_SQRT1_2);
      d = cdf + x * pdf;
    }
    return {(g * d).to(self.scalar_type()), at::Tensor()};
  }
};

class SiluFunction : public torch::autograd::Function<SiluFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self) {
    at::Tensor out;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<SiluSig>("aicore::silu");
      out = op.call(self);
    }
    ctx->save_for_backward({self});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor self = ctx->get_saved_variables()[0];  // a copy: the list is a temporary
    const at::Tensor x = F32(self), s = x.sigmoid();
    return {(F32(grads[0]) * s * (1 + x * (1 - s))).to(self.scalar_type())};
  }
};

class MatmulFunction : public torch::autograd::Function<MatmulFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self,
                            const at::Tensor& other) {
    at::Tensor out;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<MatmulSig>("aicore::matmul");
      out = op.call(self, other);
    }
    ctx->save_for_backward({self, other});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor &a = saved[0], &b = saved[1];
    static const auto matmul = Op<MatmulSig>("aicore::matmul");
    const at::Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
    const at::Tensor b2 = b.dim() == 1 ? b.unsqueeze(-1) : b;
    at::Tensor g = grads[0];
    if (b.dim() == 1) g = g.unsqueeze(-1);
    if (a.dim() == 1) g = g.unsqueeze(-2);
    at::Tensor da, db;
    if (ctx->needs_input_grad(0)) {
      da = at::sum_to(matmul.call(g, b2.transpose(-1, -2)), a2.sizes()).reshape(a.sizes());
    }
    if (ctx->needs_input_grad(1)) {
      db = at::sum_to(matmul.call(a2.transpose(-1, -2), g), b2.sizes()).reshape(b.sizes());
    }
    return {da, db};
  }
};

class LinearBiasFunction : public torch::autograd::Function<LinearBiasFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input,
                            const at::Tensor& weight, const at::Tensor& bias) {
    at::Tensor out;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<LinearBiasSig>("aicore::_linear_bias");
      out = op.call(input, weight, bias);
    }
    ctx->save_for_backward({input, weight});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor &input = saved[0], &weight = saved[1];
    static const auto matmul = Op<MatmulSig>("aicore::matmul");
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < input.dim(); ++i) rows *= input.size(i);
    const at::Tensor g = grads[0].reshape({rows, weight.size(0)});
    at::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) dx = matmul.call(g, weight).reshape(input.sizes());
    if (ctx->needs_input_grad(1)) {
      dw = matmul.call(g.t(), input.reshape({rows, weight.size(1)}));
    }
    if (ctx->needs_input_grad(2)) db = F32(g).sum(0).to(g.scalar_type());
    return {dx, dw, db};
  }
};

using FlashSig = std::tuple<at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const c10::optional<at::Tensor>&,
    bool, double);
using FlashBackwardSig = std::tuple<at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const c10::optional<at::Tensor>&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    bool, double);
using LinearEpilogueSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                     c10::string_view);

// mask: a non-differentiable argument, kept in saved_data (not an autograd input).
class FlashAttentionFunction : public torch::autograd::Function<FlashAttentionFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                               const at::Tensor& v, const c10::optional<at::Tensor>& mask,
                               bool is_causal, double scale) {
    at::Tensor out, mx, sm;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      static const auto op = Op<FlashSig>("aicore::_flash_attention");
      std::tie(out, mx, sm) = op.call(q, k, v, mask, is_causal, scale);
    }
    ctx->save_for_backward({q, k, v, out, mx, sm});
    ctx->saved_data["mask"] = mask;
    ctx->saved_data["is_causal"] = is_causal;
    ctx->saved_data["scale"] = scale;
    ctx->mark_non_differentiable({mx, sm});
    return {out, mx, sm};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    TORCH_CHECK(!at::GradMode::is_enabled(), "aicore::scaled_dot_product_attention: the fused "
                "kernel's backward is not differentiable (create_graph=True is not supported)");
    const variable_list s = ctx->get_saved_variables();
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(),
                                     at::Tensor(), at::Tensor()};
    static const auto op = Op<FlashBackwardSig>("aicore::_flash_attention_backward");
    at::Tensor dq, dk, dv;
    std::tie(dq, dk, dv) =
        op.call(grads[0], s[0], s[1], s[2], ctx->saved_data["mask"].toOptional<at::Tensor>(),
                s[3], s[4], s[5], ctx->saved_data["is_causal"].toBool(),
                ctx->saved_data["scale"].toDouble());
    return {dq, dk, dv, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor LinearBiasAutograd(const at::Tensor& input, const at::Tensor& weight,
                              const at::Tensor& bias) {
  return LinearBiasFunction::apply(input, weight, bias);
}

at::Tensor MatmulAutograd(const at::Tensor& self, const at::Tensor& other) {
  return MatmulFunction::apply(self, other);
}

at::Tensor SoftmaxAutograd(const at::Tensor& self, int64_t dim,
                           c10::optional<at::ScalarType> dtype) {
  return SoftmaxFunction::apply(self, dim, dtype, false);
}

at::Tensor LogSoftmaxAutograd(const at::Tensor& self, int64_t dim,
                              c10::optional<at::ScalarType> dtype) {
  return SoftmaxFunction::apply(self, dim, dtype, true);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNormAutograd(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps) {
  const variable_list r = LayerNormFunction::apply(input, normalized_shape, weight, bias, eps);
  return {r[0], r[1], r[2]};
}

std::tuple<at::Tensor, at::Tensor> NativeRmsNormAutograd(const at::Tensor& input,
                                                         const at::Tensor& weight, double eps) {
  const variable_list r = RmsNormFunction::apply(input, weight, eps);
  return {r[0], r[1]};
}

at::Tensor GeluAutograd(const at::Tensor& self, c10::string_view approximate) {
  return GeluFunction::apply(self, approximate);
}

at::Tensor SiluAutograd(const at::Tensor& self) { return SiluFunction::apply(self); }

at::Tensor LayerNorm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                     const c10::optional<at::Tensor>& weight,
                     const c10::optional<at::Tensor>& bias, double eps) {
  static const auto op = Op<LayerNormSig>("aicore::native_layer_norm");
  return std::get<0>(op.call(input, normalized_shape, weight, bias, eps));
}

at::Tensor RmsNorm(const at::Tensor& input, const at::Tensor& weight, double eps) {
  static const auto op = Op<RmsNormSig>("aicore::native_rms_norm");
  return std::get<0>(op.call(input, weight, eps));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttentionAutograd(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const c10::optional<at::Tensor>& mask, bool is_causal, double scale) {
  const variable_list r = FlashAttentionFunction::apply(query, key, value, mask, is_causal, scale);
  return {r[0], r[1], r[2]};
}

at::Tensor LinearEpilogueAutograd(const at::Tensor& input, const at::Tensor& weight,
                                  const at::Tensor& bias, c10::string_view activation) {
  TORCH_CHECK(!at::GradMode::is_enabled() ||
                  !(input.requires_grad() || weight.requires_grad() || bias.requires_grad()),
              "aicore::_linear_epilogue has no backward; call aicore::linear, which composes "
              "the op when a gradient is needed");
  at::AutoDispatchBelowADInplaceOrView guard;
  static const auto op = Op<LinearEpilogueSig>("aicore::_linear_epilogue");
  return op.call(input, weight, bias, activation);
}

}  // namespace aicore::python
