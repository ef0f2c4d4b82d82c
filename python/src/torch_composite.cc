// The composed operators of torch.ops.aicore (torch_ops.h): linear and
// scaled_dot_product_attention, registered CompositeImplicitAutograd. They check their arguments
// here (naming the op and the argument), then call aicore's ops through the dispatcher, so one
// body serves CPU, device and Meta tensors and autograd differentiates the parts:
//
//   linear     fused: bias and an activation, no gradient needed -> aicore::_linear_epilogue
//              (one MatmulEpilogue kernel: act(input @ weight^T + bias), weight^T a view)
//              otherwise y = act(aicore::_linear_bias(input, weight, bias)): aicore's Addmm,
//              bias added in its epilogue (no bias: aicore::matmul(input, weight^T))
//              act: none; relu (torch's masked_fill: aicore has no relu operator);
//              gelu -> aicore::gelu(y, "none"); silu -> aicore::silu(y)
//              (training keeps the composition: its backward needs the pre-activation y, which
//              the composed graph keeps and the fused kernel does not write)
//   attention  fused: no float mask, a bool mask or is_causal or none, 1 <= E, Ev <= 768,
//              L, S >= 1 -> aicore::_flash_attention on BNSD views (B = the broadcast batch
//              dims, N = 1; mask: 1 = masked out; causal: sparse mode 2) with its autograd
//              through aicore::_flash_attention_backward
//              otherwise s = aicore::matmul(q * scale, k^T); causal or bool mask:
//              s[~keep] = -inf; float mask: s += mask; p = aicore::softmax(s, -1);
//              out = aicore::matmul(p, v)
//
// Note [Switching to fused kernels]: LinearEpilogue and AttentionCore are the one place each
// where a fused aicore operator replaces the composition; the argument checks and the op's
// schema stay as they are.
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "python/src/torch_ops.h"

namespace aicore::python {

namespace {

template <class Sig>
c10::TypedOperatorHandle<Sig> Op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

using MatmulSig = at::Tensor(const at::Tensor&, const at::Tensor&);
using LinearBiasSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&);
using SoftmaxSig = at::Tensor(const at::Tensor&, int64_t, c10::optional<at::ScalarType>);
using GeluSig = at::Tensor(const at::Tensor&, c10::string_view);
using SiluSig = at::Tensor(const at::Tensor&);

at::Tensor Matmul(const at::Tensor& a, const at::Tensor& b) {
  static const auto op = Op<MatmulSig>("aicore::matmul");
  return op.call(a, b);
}

// Throws unless `t` is a defined strided fp32/fp16/bf16 tensor on `like`'s device (when given).
void CheckFloat(const char* op, const char* arg, const at::Tensor& t,
                const at::Tensor* like = nullptr, const char* like_name = nullptr) {
  TORCH_CHECK(t.defined(), op, ": ", arg, " is an undefined tensor");
  TORCH_CHECK(t.layout() == at::kStrided, op, ": ", arg, " has layout ", t.layout(),
              "; allowed: torch.strided");
  const at::ScalarType s = t.scalar_type();
  TORCH_CHECK(s == at::kFloat || s == at::kHalf || s == at::kBFloat16, op, ": ", arg,
              " has dtype ", s, "; allowed: Float, Half, BFloat16");
  if (like != nullptr) {
    TORCH_CHECK(t.device() == like->device(), op, ": ", arg, " is on device ", t.device(),
                " and ", like_name, " on ", like->device(), "; they must be on one device");
    TORCH_CHECK(s == like->scalar_type(), op, ": ", arg, " has dtype ", s, " and ", like_name,
                " ", like->scalar_type(), "; they must be the same");
  }
}

enum class Activation { kNone, kRelu, kGelu, kSilu };

Activation ParseActivation(c10::string_view a) {
  if (a == "none") return Activation::kNone;
  if (a == "relu") return Activation::kRelu;
  if (a == "gelu") return Activation::kGelu;
  if (a == "silu") return Activation::kSilu;
  TORCH_CHECK(false, "aicore::linear: activation '", std::string(a),
              "' is not allowed; allowed: 'none', 'relu', 'gelu', 'silu'");
}

const char* ActivationName(Activation act) {
  return act == Activation::kRelu ? "relu" : act == Activation::kGelu ? "gelu" : "silu";
}

// Note [Switching to fused kernels]: y = act(input @ weight^T + bias), fused when there is a
// bias, an activation, no gradient to record and a non-empty product.
at::Tensor LinearEpilogue(const at::Tensor& input, const at::Tensor& weight,
                          const at::Tensor& bias, Activation act) {
  const bool needs_grad =
      at::GradMode::is_enabled() &&
      (input.requires_grad() || weight.requires_grad() || (bias.defined() && bias.requires_grad()));
  if (bias.defined() && act != Activation::kNone && !needs_grad && weight.size(1) > 0) {
    using EpilogueSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                   c10::string_view);
    static const auto fused = Op<EpilogueSig>("aicore::_linear_epilogue");
    return fused.call(input, weight, bias, ActivationName(act));
  }
  at::Tensor y;
  if (bias.defined()) {
    static const auto linear_bias = Op<LinearBiasSig>("aicore::_linear_bias");
    y = linear_bias.call(input, weight, bias);  // aicore's Addmm: the bias in its epilogue
  } else {
    y = Matmul(input, weight.t());
  }
  switch (act) {
    case Activation::kNone:
      return y;
    case Activation::kRelu:  // torch 1.13's CPU relu has no Half kernel
      return y.masked_fill(y.le(0), 0);
    case Activation::kGelu: {
      static const auto gelu = Op<GeluSig>("aicore::gelu");
      return gelu.call(y, "none");
    }
    case Activation::kSilu: {
      static const auto silu = Op<SiluSig>("aicore::silu");
      return silu.call(y);
    }
  }
  return y;
}

// softmax(q k^T * scale, masked) v by aicore::_flash_attention: q, k, v expanded to the
// broadcast batch `batch` and viewed as BNSD (B = prod(batch), N = 1); `keep` (a bool mask,
// True = attend, broadcasting to batch + [L, S]) becomes the op's uint8 mask (1 = masked out),
// [L, S] when it has no batch dims of its own.
at::Tensor FlashAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& keep, bool causal, double scale,
                          const std::vector<int64_t>& batch) {
  int64_t b = 1;
  for (int64_t d : batch) b *= d;
  const int64_t l = q.size(-2), s = k.size(-2), e = q.size(-1), ev = v.size(-1);
  auto bnsd = [&](const at::Tensor& t, int64_t rows, int64_t cols) {
    std::vector<int64_t> full = batch;
    full.insert(full.end(), {rows, cols});
    return t.expand(full).reshape({b, 1, rows, cols});
  };
  c10::optional<at::Tensor> mask;
  if (keep.defined() && !causal) {
    const at::Tensor masked = keep.logical_not().to(at::kByte);
    bool batched = false;
    for (int64_t i = 0; i + 2 < masked.dim(); ++i) batched = batched || masked.size(i) != 1;
    mask = batched ? bnsd(masked, l, s).contiguous()
                   : masked.reshape({-1, masked.size(-2), masked.size(-1)})[0]
                         .expand({l, s})
                         .contiguous();
  }
  using FlashSig = std::tuple<at::Tensor, at::Tensor, at::Tensor>(
      const at::Tensor&, const at::Tensor&, const at::Tensor&, const c10::optional<at::Tensor>&,
      bool, double);
  static const auto flash = Op<FlashSig>("aicore::_flash_attention");
  const at::Tensor out = std::get<0>(
      flash.call(bnsd(q, l, e), bnsd(k, s, e), bnsd(v, s, ev), mask, causal, scale));
  std::vector<int64_t> out_shape = batch;
  out_shape.insert(out_shape.end(), {l, ev});
  return out.view(out_shape);
}

// Note [Switching to fused kernels]: softmax(q k^T * scale + mask) v. `keep`: a bool mask
// (True = attend) or undefined; `add`: a float mask or undefined; `causal`: attend to j <= i
// (neither mask given). Fused (FlashAttention) unless
// there is a float mask or a size the kernel does not take; otherwise composed.
at::Tensor AttentionCore(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const at::Tensor& keep, const at::Tensor& add, bool causal,
                         double scale, const std::vector<int64_t>& batch) {
  int64_t b = 1;
  for (int64_t d : batch) b *= d;
  const int64_t l = q.size(-2), sk = k.size(-2), e = q.size(-1), ev = v.size(-1);
  constexpr int64_t kMaxHeadDim = 768, kMaxSeq = int64_t{1} << 20, kMaxBatch = int64_t{2} << 20;
  if (!add.defined() && b >= 1 && b <= kMaxBatch && l >= 1 && sk >= 1 && l <= kMaxSeq &&
      sk <= kMaxSeq && e >= 1 && ev >= 1 && e <= kMaxHeadDim && ev <= kMaxHeadDim &&
      std::isfinite(scale)) {
    return FlashAttention(q, k, v, keep, causal, scale, batch);
  }
  const at::Tensor tril =
      causal ? at::ones({l, sk}, q.options().dtype(at::kBool)).tril() : at::Tensor();
  const at::Tensor& kept = causal ? tril : keep;
  // The scale goes onto q (L x E elements) rather than onto the L x S scores.
  at::Tensor s = Matmul(q * scale, k.transpose(-2, -1));
  if (kept.defined()) {
    s = s.masked_fill(kept.logical_not(), -std::numeric_limits<double>::infinity());
  }
  if (add.defined()) s = s + add;
  static const auto softmax = Op<SoftmaxSig>("aicore::softmax");
  return Matmul(softmax.call(s, -1, c10::nullopt), v);
}

}  // namespace

at::Tensor Linear(const at::Tensor& input, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias, c10::string_view activation) {
  const char* op = "aicore::linear";
  const Activation act = ParseActivation(activation);
  CheckFloat(op, "input", input);
  CheckFloat(op, "weight", weight, &input, "input");
  TORCH_CHECK(weight.dim() == 2, op, ": weight has ", weight.dim(),
              " dims; it must be 2-D (out_features, in_features)");
  TORCH_CHECK(input.dim() >= 1, op, ": input is 0-d; it needs at least 1 dim (in_features)");
  TORCH_CHECK(input.size(-1) == weight.size(1), op, ": input has ", input.size(-1),
              " features (its last dim) and weight of shape ", weight.sizes(), " takes ",
              weight.size(1));
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias) {
    CheckFloat(op, "bias", *bias, &input, "input");
    TORCH_CHECK(bias->dim() == 1 && bias->size(0) == weight.size(0), op, ": bias has shape ",
                bias->sizes(), "; it must be [", weight.size(0), "] (out_features)");
  }
  return LinearEpilogue(input, weight, has_bias ? *bias : at::Tensor(), act);
}

at::Tensor ScaledDotProductAttention(const at::Tensor& query, const at::Tensor& key,
                                     const at::Tensor& value,
                                     const c10::optional<at::Tensor>& attn_mask, double dropout_p,
                                     bool is_causal, c10::optional<double> scale) {
  const char* op = "aicore::scaled_dot_product_attention";
  TORCH_CHECK(dropout_p == 0.0, op, ": dropout_p ", dropout_p,
              " is not supported; allowed: 0.0 (apply dropout outside the op)");
  CheckFloat(op, "query", query);
  CheckFloat(op, "key", key, &query, "query");
  CheckFloat(op, "value", value, &query, "query");
  for (const auto* t : {&query, &key, &value}) {
    TORCH_CHECK(t->dim() >= 2, op, ": ", t == &query ? "query" : t == &key ? "key" : "value",
                " has ", t->dim(), " dims; it needs at least 2 (..., L or S, E)");
  }
  TORCH_CHECK(key.size(-1) == query.size(-1), op, ": key has embedding dim ", key.size(-1),
              " and query ", query.size(-1), "; they must be equal");
  TORCH_CHECK(value.size(-2) == key.size(-2), op, ": value has ", value.size(-2),
              " positions (dim -2) and key ", key.size(-2), "; they must be equal");
  const at::IntArrayRef bq = query.sizes().slice(0, query.dim() - 2);
  const at::IntArrayRef bk = key.sizes().slice(0, key.dim() - 2);
  const at::IntArrayRef bv = value.sizes().slice(0, value.dim() - 2);
  std::vector<int64_t> batch;
  try {
    batch = at::infer_size(at::infer_size(bq, bk), bv);
  } catch (const c10::Error&) {
    TORCH_CHECK(false, op, ": the batch dims of query ", bq, ", key ", bk, " and value ", bv,
                " do not broadcast");
  }
  const int64_t l = query.size(-2), s = key.size(-2);
  std::vector<int64_t> score_shape = batch;
  score_shape.insert(score_shape.end(), {l, s});
  at::Tensor keep, add;
  const bool has_mask = attn_mask.has_value() && attn_mask->defined();
  TORCH_CHECK(!(has_mask && is_causal), op, ": attn_mask and is_causal=True are both given; "
              "allowed: one of them");
  if (has_mask) {
    const at::Tensor& m = *attn_mask;
    TORCH_CHECK(m.device() == query.device(), op, ": attn_mask is on device ", m.device(),
                " and query on ", query.device(), "; they must be on one device");
    TORCH_CHECK(m.scalar_type() == at::kBool || m.scalar_type() == query.scalar_type(), op,
                ": attn_mask has dtype ", m.scalar_type(), "; allowed: Bool or query's dtype (",
                query.scalar_type(), ")");
    TORCH_CHECK(at::is_expandable_to(m.sizes(), score_shape), op, ": attn_mask of shape ",
                m.sizes(), " does not broadcast to the scores' shape ",
                at::IntArrayRef(score_shape));
    (m.scalar_type() == at::kBool ? keep : add) = m;
  }
  const double sc =
      scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  return AttentionCore(query, key, value, keep, add, is_causal, sc, batch);
}

}  // namespace aicore::python
