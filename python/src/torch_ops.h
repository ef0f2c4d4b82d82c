// torch.ops.aicore.*: the kernels of the PyTorch extension (libaicore_torch.so). The CPU kernels
// (torch_ops.cc) run aicore's operators on the tensors' own memory through ops_bridge.h; the
// Autograd kernels (torch_autograd.cc) wrap them with backward formulas composed of torch's CPU
// ops (aicore has no backward kernels yet); torch_register.cc registers both.
//
// Semantics are those of torch's functions of the same name. Inputs may be fp32, fp16 or bf16,
// of any shape and strides; outputs are contiguous tensors of the input's dtype (softmax and
// log_softmax: `dtype` when given). Bad input raises c10::Error (Python RuntimeError) naming the
// op ("aicore::softmax") and the argument.
#pragma once

#include <ATen/ATen.h>

#include <tuple>

namespace aicore::python {

at::Tensor SoftmaxCpu(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype);
at::Tensor LogSoftmaxCpu(const at::Tensor& self, int64_t dim,
                         c10::optional<at::ScalarType> dtype);
// Returns (out, mean, rstd); mean and rstd are float32 of input's shape with 1 on the normalized
// dims (torch's native_layer_norm gives them that shape).
std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNormCpu(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps);
// Returns (out, rstd): normalized over weight's dims (input's trailing ones); rstd float32.
std::tuple<at::Tensor, at::Tensor> NativeRmsNormCpu(const at::Tensor& input,
                                                    const at::Tensor& weight, double eps);
// approximate: "none" (erf) or "tanh".
at::Tensor GeluCpu(const at::Tensor& self, c10::string_view approximate);
at::Tensor SiluCpu(const at::Tensor& self);
// torch.matmul (1-D operands, broadcast batch dims); self and other of one dtype and device.
at::Tensor MatmulCpu(const at::Tensor& self, const at::Tensor& other);
// aicore::_linear_bias: input @ weight^T + bias by aicore's Addmm (the bias added in its fp32
// epilogue, one rounding); input of any rank >= 1, flattened onto (rows, in_features).
at::Tensor LinearBiasCpu(const at::Tensor& input, const at::Tensor& weight,
                         const at::Tensor& bias);

// aicore::_linear_epilogue: act(input @ weight^T + bias) by one MatmulEpilogue call (weight^T
// read in place); activation "none", "relu", "gelu" (erf) or "silu"; in_features > 0.
#define AICORE_FUSED_DECLS(Suffix)                                                           \
  at::Tensor LinearEpilogue##Suffix(const at::Tensor& input, const at::Tensor& weight,      \
                                    const at::Tensor& bias, c10::string_view activation);   \
  std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttention##Suffix(                     \
      const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,               \
      const c10::optional<at::Tensor>& mask, bool is_causal, double scale);                  \
  std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttentionBackward##Suffix(             \
      const at::Tensor& grad, const at::Tensor& query, const at::Tensor& key,                \
      const at::Tensor& value, const c10::optional<at::Tensor>& mask, const at::Tensor& out, \
      const at::Tensor& softmax_max, const at::Tensor& softmax_sum, bool is_causal,          \
      double scale);
// aicore::_flash_attention: (out, softmax_max, softmax_sum) of FlashAttentionForward on 4-D
// BNSD query/key/value of one dtype; mask: uint8 (1 = masked out), [S_q, S_kv] or
// [B|1, 1, S_q, S_kv], or None; is_causal: j <= i (the mask ignored).
// aicore::_flash_attention_backward: (dq, dk, dv) by FlashAttentionBackward from the forward's
// out and statistics. Cpu, Meta and Device (PrivateUse1) kernels.
AICORE_FUSED_DECLS(Cpu)
AICORE_FUSED_DECLS(Meta)
AICORE_FUSED_DECLS(Device)
#undef AICORE_FUSED_DECLS
// The Autograd kernels of the fused ops: _flash_attention records a node whose backward is
// _flash_attention_backward; _linear_epilogue refuses inputs that need a gradient (linear keeps
// its composed path for training).
std::tuple<at::Tensor, at::Tensor, at::Tensor> FlashAttentionAutograd(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const c10::optional<at::Tensor>& mask, bool is_causal, double scale);
at::Tensor LinearEpilogueAutograd(const at::Tensor& input, const at::Tensor& weight,
                                  const at::Tensor& bias, c10::string_view activation);

// The Meta kernels: the CPU kernels' checks and output shapes and dtypes, on meta tensors
// (torch.fx / make_fx tracing, shape inference).
at::Tensor SoftmaxMeta(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype);
at::Tensor LogSoftmaxMeta(const at::Tensor& self, int64_t dim,
                          c10::optional<at::ScalarType> dtype);
std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNormMeta(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps);
std::tuple<at::Tensor, at::Tensor> NativeRmsNormMeta(const at::Tensor& input,
                                                     const at::Tensor& weight, double eps);
at::Tensor GeluMeta(const at::Tensor& self, c10::string_view approximate);
at::Tensor SiluMeta(const at::Tensor& self);
at::Tensor MatmulMeta(const at::Tensor& self, const at::Tensor& other);
at::Tensor LinearBiasMeta(const at::Tensor& input, const at::Tensor& weight,
                          const at::Tensor& bias);

// The PrivateUse1 kernels (the aicore device, torch_device.h): the CPU kernels' checks, then
// aicore's operator on the device tensors' memory; outputs are device tensors.
at::Tensor SoftmaxDevice(const at::Tensor& self, int64_t dim,
                         c10::optional<at::ScalarType> dtype);
at::Tensor LogSoftmaxDevice(const at::Tensor& self, int64_t dim,
                            c10::optional<at::ScalarType> dtype);
std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNormDevice(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps);
std::tuple<at::Tensor, at::Tensor> NativeRmsNormDevice(const at::Tensor& input,
                                                       const at::Tensor& weight, double eps);
at::Tensor GeluDevice(const at::Tensor& self, c10::string_view approximate);
at::Tensor SiluDevice(const at::Tensor& self);
at::Tensor MatmulDevice(const at::Tensor& self, const at::Tensor& other);
at::Tensor LinearBiasDevice(const at::Tensor& input, const at::Tensor& weight,
                            const at::Tensor& bias);

// The Autograd kernels: the same signatures; each redispatches below autograd and records a
// backward node.
at::Tensor SoftmaxAutograd(const at::Tensor& self, int64_t dim,
                           c10::optional<at::ScalarType> dtype);
at::Tensor LogSoftmaxAutograd(const at::Tensor& self, int64_t dim,
                              c10::optional<at::ScalarType> dtype);
std::tuple<at::Tensor, at::Tensor, at::Tensor> NativeLayerNormAutograd(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps);
std::tuple<at::Tensor, at::Tensor> NativeRmsNormAutograd(const at::Tensor& input,
                                                         const at::Tensor& weight, double eps);
at::Tensor GeluAutograd(const at::Tensor& self, c10::string_view approximate);
at::Tensor SiluAutograd(const at::Tensor& self);
at::Tensor MatmulAutograd(const at::Tensor& self, const at::Tensor& other);
at::Tensor LinearBiasAutograd(const at::Tensor& input, const at::Tensor& weight,
                              const at::Tensor& bias);

// layer_norm and rms_norm: CompositeImplicitAutograd over native_layer_norm / native_rms_norm.
at::Tensor LayerNorm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                     const c10::optional<at::Tensor>& weight,
                     const c10::optional<at::Tensor>& bias, double eps);
at::Tensor RmsNorm(const at::Tensor& input, const at::Tensor& weight, double eps);

// linear and scaled_dot_product_attention (torch_composite.cc): CompositeImplicitAutograd,
// composed of aicore::matmul, aicore::softmax / gelu / silu and torch's elementwise ops, so
// their autograd and Meta support are those of the parts.
// activation: "none", "relu", "gelu" (erf form) or "silu".
at::Tensor Linear(const at::Tensor& input, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias, c10::string_view activation);
// torch 2.x's F.scaled_dot_product_attention: a bool attn_mask keeps True, a float one is added;
// dropout_p > 0 raises; scale defaults to 1 / sqrt(query.size(-1)).
at::Tensor ScaledDotProductAttention(const at::Tensor& query, const at::Tensor& key,
                                     const at::Tensor& value,
                                     const c10::optional<at::Tensor>& attn_mask, double dropout_p,
                                     bool is_causal, c10::optional<double> scale);

// Throws unless `approximate` is "none" or "tanh"; returns true for "tanh".
bool GeluIsTanh(c10::string_view approximate);

}  // namespace aicore::python
