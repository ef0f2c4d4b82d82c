// Registers torch.ops.aicore.* when libaicore_torch.so is loaded (torch.ops.load_library).
//
// torch 1.13 aborts the process (std::terminate from a static initialiser) when one namespace is
// defined twice, for example by two copies of this library from different paths. So instead of
// TORCH_LIBRARY the libraries are built by hand in a static initialiser that first looks the
// schemas up: when aicore::softmax exists already, it warns and registers nothing; any error
// while registering is printed, never thrown out of the initialiser.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <cstdio>
#include <exception>
#include <memory>

#include "python/src/torch_device.h"
#include "python/src/torch_ops.h"

namespace aicore::python {

namespace {

struct Registration {
  std::unique_ptr<torch::Library> def, cpu, sparse, meta, device, autograd, composite;
  std::unique_ptr<torch::Library> aten_device, fallback_device;
};

void Define(torch::Library& m) {
  m.def("softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  m.def("log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  m.def("native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, "
        "float eps) -> (Tensor, Tensor, Tensor)");
  m.def("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
        "Tensor? bias=None, float eps=1e-05) -> Tensor");
  m.def("native_rms_norm(Tensor input, Tensor weight, float eps) -> (Tensor, Tensor)");
  m.def("rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor");
  m.def("gelu(Tensor self, str approximate='none') -> Tensor");
  m.def("silu(Tensor self) -> Tensor");
  m.def("matmul(Tensor self, Tensor other) -> Tensor");
  m.def("_linear_bias(Tensor input, Tensor weight, Tensor bias) -> Tensor");
  m.def("_linear_epilogue(Tensor input, Tensor weight, Tensor bias, str activation) -> Tensor");
  m.def("_flash_attention(Tensor query, Tensor key, Tensor value, Tensor? mask, bool is_causal, "
        "float scale) -> (Tensor, Tensor, Tensor)");
  m.def("_flash_attention_backward(Tensor grad, Tensor query, Tensor key, Tensor value, "
        "Tensor? mask, Tensor out, Tensor softmax_max, Tensor softmax_sum, bool is_causal, "
        "float scale) -> (Tensor, Tensor, Tensor)");
  m.def("linear(Tensor input, Tensor weight, Tensor? bias=None, str activation='none') -> Tensor");
  m.def("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
        "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, "
        "float? scale=None) -> Tensor");
  m.def("_copy_stats() -> int[]", TORCH_FN(CopyStats));
  m.def("_reset_copy_stats() -> ()", TORCH_FN(ResetCopyStats));
}

// The CPU kernels also take SparseCPU calls, to refuse them with the argument's name.
void ImplCpu(torch::Library& m) {
  m.impl("softmax", TORCH_FN(SoftmaxCpu));
  m.impl("log_softmax", TORCH_FN(LogSoftmaxCpu));
  m.impl("native_layer_norm", TORCH_FN(NativeLayerNormCpu));
  m.impl("native_rms_norm", TORCH_FN(NativeRmsNormCpu));
  m.impl("gelu", TORCH_FN(GeluCpu));
  m.impl("silu", TORCH_FN(SiluCpu));
  m.impl("matmul", TORCH_FN(MatmulCpu));
  m.impl("_linear_bias", TORCH_FN(LinearBiasCpu));
  m.impl("_linear_epilogue", TORCH_FN(LinearEpilogueCpu));
  m.impl("_flash_attention", TORCH_FN(FlashAttentionCpu));
  m.impl("_flash_attention_backward", TORCH_FN(FlashAttentionBackwardCpu));
}

void ImplMeta(torch::Library& m) {
  m.impl("softmax", TORCH_FN(SoftmaxMeta));
  m.impl("log_softmax", TORCH_FN(LogSoftmaxMeta));
  m.impl("native_layer_norm", TORCH_FN(NativeLayerNormMeta));
  m.impl("native_rms_norm", TORCH_FN(NativeRmsNormMeta));
  m.impl("gelu", TORCH_FN(GeluMeta));
  m.impl("silu", TORCH_FN(SiluMeta));
  m.impl("matmul", TORCH_FN(MatmulMeta));
  m.impl("_linear_bias", TORCH_FN(LinearBiasMeta));
  m.impl("_linear_epilogue", TORCH_FN(LinearEpilogueMeta));
  m.impl("_flash_attention", TORCH_FN(FlashAttentionMeta));
  m.impl("_flash_attention_backward", TORCH_FN(FlashAttentionBackwardMeta));
}

void ImplDevice(torch::Library& m) {
  m.impl("softmax", TORCH_FN(SoftmaxDevice));
  m.impl("log_softmax", TORCH_FN(LogSoftmaxDevice));
  m.impl("native_layer_norm", TORCH_FN(NativeLayerNormDevice));
  m.impl("native_rms_norm", TORCH_FN(NativeRmsNormDevice));
  m.impl("gelu", TORCH_FN(GeluDevice));
  m.impl("silu", TORCH_FN(SiluDevice));
  m.impl("matmul", TORCH_FN(MatmulDevice));
  m.impl("_linear_bias", TORCH_FN(LinearBiasDevice));
  m.impl("_linear_epilogue", TORCH_FN(LinearEpilogueDevice));
  m.impl("_flash_attention", TORCH_FN(FlashAttentionDevice));
  m.impl("_flash_attention_backward", TORCH_FN(FlashAttentionBackwardDevice));
}

void ImplAutograd(torch::Library& m) {
  m.impl("softmax", TORCH_FN(SoftmaxAutograd));
  m.impl("log_softmax", TORCH_FN(LogSoftmaxAutograd));
  m.impl("native_layer_norm", TORCH_FN(NativeLayerNormAutograd));
  m.impl("native_rms_norm", TORCH_FN(NativeRmsNormAutograd));
  m.impl("gelu", TORCH_FN(GeluAutograd));
  m.impl("silu", TORCH_FN(SiluAutograd));
  m.impl("matmul", TORCH_FN(MatmulAutograd));
  m.impl("_linear_bias", TORCH_FN(LinearBiasAutograd));
  m.impl("_linear_epilogue", TORCH_FN(LinearEpilogueAutograd));
  m.impl("_flash_attention", TORCH_FN(FlashAttentionAutograd));
}

void ImplComposite(torch::Library& m) {
  m.impl("layer_norm", TORCH_FN(LayerNorm));
  m.impl("rms_norm", TORCH_FN(RmsNorm));
  m.impl("linear", TORCH_FN(Linear));
  m.impl("scaled_dot_product_attention", TORCH_FN(ScaledDotProductAttention));
}

Registration* Register() {
  if (c10::Dispatcher::singleton().findSchema({"aicore::softmax", ""}).has_value()) {
    std::fprintf(stderr, "aicore: torch.ops.aicore is registered already (another copy of "
                         "libaicore_torch.so was loaded); this copy registers nothing\n");
    return nullptr;
  }
  auto* r = new Registration;  // lives as long as the process: the dispatcher refers to it
  try {
    r->def = std::make_unique<torch::Library>(torch::Library::DEF, "aicore", c10::nullopt,
                                              __FILE__, __LINE__);
    Define(*r->def);
    r->cpu = std::make_unique<torch::Library>(torch::Library::IMPL, "aicore",
                                              c10::DispatchKey::CPU, __FILE__, __LINE__);
    ImplCpu(*r->cpu);
    r->sparse = std::make_unique<torch::Library>(torch::Library::IMPL, "aicore",
                                                 c10::DispatchKey::SparseCPU, __FILE__, __LINE__);
    ImplCpu(*r->sparse);
    r->meta = std::make_unique<torch::Library>(torch::Library::IMPL, "aicore",
                                               c10::DispatchKey::Meta, __FILE__, __LINE__);
    ImplMeta(*r->meta);
    r->device = std::make_unique<torch::Library>(torch::Library::IMPL, "aicore",
                                                 c10::DispatchKey::PrivateUse1, __FILE__,
                                                 __LINE__);
    ImplDevice(*r->device);
    r->autograd = std::make_unique<torch::Library>(torch::Library::IMPL, "aicore",
                                                   c10::DispatchKey::Autograd, __FILE__,
                                                   __LINE__);
    ImplAutograd(*r->autograd);
    r->composite = std::make_unique<torch::Library>(
        torch::Library::IMPL, "aicore", c10::DispatchKey::CompositeImplicitAutograd, __FILE__,
        __LINE__);
    ImplComposite(*r->composite);
    r->aten_device = std::make_unique<torch::Library>(
        torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
    r->fallback_device = std::make_unique<torch::Library>(
        torch::Library::IMPL, "_", c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
    RegisterDevice(*r->aten_device, *r->fallback_device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aicore: registering torch.ops.aicore failed: %s\n", e.what());
  }
  return r;
}

[[maybe_unused]] const Registration* const kRegistration = Register();

}  // namespace

}  // namespace aicore::python
