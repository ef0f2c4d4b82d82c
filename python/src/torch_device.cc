// The aicore device on PrivateUse1 (torch_device.h).
#include "python/src/torch_device.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "aicore/core/status.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/device_memory.h"
#include "python/src/torch_ops.h"

namespace aicore::python {

namespace {

constexpr c10::DeviceType kDevice = c10::DeviceType::PrivateUse1;

// Device memory from the caching allocator of the runtime's current device.
class DeviceAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    const int device = rt::CurrentDevice();
    void* p = nullptr;
    if (n > 0) {
      try {
        p = rt::DeviceMalloc(n, nullptr);
      } catch (const Error& e) {
        TORCH_CHECK(false, "aicore device ", device, ": ", e.status().message());
      }
    }
    return {p, p, &Free, c10::Device(kDevice, static_cast<c10::DeviceIndex>(device))};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &Free; }

 private:
  static void Free(void* p) {
    if (p == nullptr) return;
    try {
      rt::DeviceFree(p);
    } catch (const std::exception& e) {  // a deleter must not throw
      std::fprintf(stderr, "aicore: freeing device memory failed: %s\n", e.what());
    }
  }
};

DeviceAllocator g_allocator;

// Device and stream guards over the runtime's current device; one (default) stream per device,
// and every op waits for its work, so streams never need to be synchronised by torch.
struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kDevice; }
  c10::Device exchangeDevice(c10::Device d) const override {
    const c10::Device old = getDevice();
    if (d.index() != old.index()) setDevice(d);
    return old;
  }
  c10::Device getDevice() const override {
    return c10::Device(kDevice, static_cast<c10::DeviceIndex>(rt::CurrentDevice()));
  }
  void setDevice(c10::Device d) const override {
    TORCH_CHECK(d.type() == kDevice, "aicore: device ", d, " is not an aicore device");
    const Status s = rt::SetDevice(d.index() < 0 ? 0 : d.index());
    TORCH_CHECK(s.ok(), "aicore: ", s.message());
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    (void)rt::SetDevice(d.index() < 0 ? 0 : d.index());
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(rt::GetDeviceCount());
  }
};

// A CPU tensor over `t`'s memory (device memory is host memory): same sizes, strides, dtype.
at::Tensor CpuAlias(const at::Tensor& t) {
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(),
                       t.options().device(c10::kCPU).requires_grad(false));
}

at::Tensor Empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                 c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                 c10::optional<bool> pin_memory,
                 c10::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!layout.has_value() || *layout == at::kStrided,
              "aicore: empty: layout ", *layout, " is not supported; allowed: torch.strided");
  TORCH_CHECK(!pin_memory.value_or(false), "aicore: empty: pin_memory is for CPU tensors");
  c10::optional<c10::DeviceGuard> guard;
  if (device.has_value() && device->has_index()) guard.emplace(*device);
  return at::detail::empty_generic(size, &g_allocator,
                                   c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   c10::dtype_or_default(dtype), memory_format);
}

at::Tensor EmptyStrided(at::IntArrayRef size, at::IntArrayRef stride,
                        c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                        c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  TORCH_CHECK(!layout.has_value() || *layout == at::kStrided,
              "aicore: empty_strided: layout ", *layout, " is not supported");
  (void)pin_memory;
  c10::optional<c10::DeviceGuard> guard;
  if (device.has_value() && device->has_index()) guard.emplace(*device);
  return at::detail::empty_strided_generic(size, stride, &g_allocator,
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           c10::dtype_or_default(dtype));
}

// Any direction (PrivateUse1 outranks CPU, so host->device and device->host come here too),
// any strides and dtypes: a CPU copy between aliases.
at::Tensor CopyFrom(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  (void)non_blocking;  // every op has finished when it returns: there is nothing to overlap
  for (const at::Tensor* t : {&self, &dst}) {
    TORCH_CHECK(t->device().is_cpu() || t->device().type() == kDevice, "aicore: copy_: ",
                t == &self ? "src" : "dst", " is on device ", t->device(),
                "; allowed: cpu or the aicore device");
  }
  at::Tensor src_cpu = self.device().is_cpu() ? self : CpuAlias(self);
  at::Tensor dst_cpu = dst.device().is_cpu() ? dst : CpuAlias(dst);
  dst_cpu.copy_(src_cpu);
  return dst;
}

at::Tensor CopyFromAndResize(const at::Tensor& self, const at::Tensor& dst) {
  if (!dst.sizes().equals(self.sizes())) dst.resize_(self.sizes());
  return CopyFrom(self, dst, false);
}

const at::Tensor& Resize(const at::Tensor& self, at::IntArrayRef size,
                         c10::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!memory_format.has_value() || *memory_format == at::MemoryFormat::Contiguous ||
                  *memory_format == at::MemoryFormat::Preserve,
              "aicore: resize_: memory_format ", *memory_format, " is not supported");
  at::native::resize_impl_cpu_(self.unsafeGetTensorImpl(), size, c10::nullopt);
  return self;
}

at::Tensor& Fill(at::Tensor& self, const at::Scalar& value) {
  CpuAlias(self).fill_(value);
  return self;
}

at::Tensor& Zero(at::Tensor& self) {
  CpuAlias(self).zero_();
  return self;
}

at::Scalar LocalScalarDense(const at::Tensor& self) { return CpuAlias(self).item(); }

std::mutex g_fallback_mutex;
std::set<std::string> g_fallback_warned;

void CpuFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = c10::toString(op.schema().operator_name());
  {
    std::lock_guard<std::mutex> lock(g_fallback_mutex);
    if (g_fallback_warned.insert(name).second) {
      std::fprintf(stderr, "aicore: %s runs on the CPU (no aicore kernel): its tensors are "
                           "copied to the host and back\n", name.c_str());
    }
  }
  at::native::cpu_fallback(op, stack);
}

// aten ops that aicore's operators cover, on device tensors: torch's autograd formulas wrap them
// (AutogradPrivateUse1), their backwards fall back to the CPU.
// Other dtypes (double, ...) run torch's CPU kernel on the aliased memory, as the fallback would.
bool AicoreDType(const at::Tensor& t) {
  return t.scalar_type() == at::kFloat || t.scalar_type() == at::kHalf ||
         t.scalar_type() == at::kBFloat16;
}
at::Tensor ToDevice(const at::Tensor& cpu, const at::Tensor& like) {
  return cpu.to(like.device());
}

at::Tensor AtenSoftmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  if (!AicoreDType(self)) return ToDevice(at::_softmax(CpuAlias(self), dim, half_to_float), self);
  return SoftmaxDevice(self, dim,
                       half_to_float ? c10::optional<at::ScalarType>(at::kFloat) : c10::nullopt);
}
at::Tensor AtenLogSoftmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  if (!AicoreDType(self)) {
    return ToDevice(at::_log_softmax(CpuAlias(self), dim, half_to_float), self);
  }
  return LogSoftmaxDevice(
      self, dim, half_to_float ? c10::optional<at::ScalarType>(at::kFloat) : c10::nullopt);
}
at::Tensor AtenGelu(const at::Tensor& self, c10::string_view approximate) {
  if (!AicoreDType(self)) return ToDevice(at::gelu(CpuAlias(self), approximate), self);
  return GeluDevice(self, approximate);
}
at::Tensor AtenSilu(const at::Tensor& self) {
  if (!AicoreDType(self)) return ToDevice(at::silu(CpuAlias(self)), self);
  return SiluDevice(self);
}
// torch's native_layer_norm returns mean and rstd of the input's dtype (its backward expects
// that); aicore computes them in float32.
std::tuple<at::Tensor, at::Tensor, at::Tensor> AtenNativeLayerNorm(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias, double eps) {
  if (!AicoreDType(input)) {
    auto alias = [](const c10::optional<at::Tensor>& t) {
      return t.has_value() && t->defined() ? c10::optional<at::Tensor>(CpuAlias(*t))
                                           : c10::optional<at::Tensor>();
    };
    auto [o, m, r] = at::native_layer_norm(CpuAlias(input), normalized_shape, alias(weight),
                                           alias(bias), eps);
    return {ToDevice(o, input), ToDevice(m, input), ToDevice(r, input)};
  }
  auto [out, mean, rstd] = NativeLayerNormDevice(input, normalized_shape, weight, bias, eps);
  return {out, mean.to(input.scalar_type()), rstd.to(input.scalar_type())};
}

}  // namespace

void RegisterDevice(torch::Library& aten, torch::Library& fallback) {
  c10::SetAllocator(kDevice, &g_allocator);
  static GuardImpl guard_impl;
  static c10::impl::DeviceGuardImplRegistrar guard_registrar(kDevice, &guard_impl);
  aten.impl("empty.memory_format", TORCH_FN(Empty));
  aten.impl("empty_strided", TORCH_FN(EmptyStrided));
  aten.impl("_copy_from", TORCH_FN(CopyFrom));
  aten.impl("_copy_from_and_resize", TORCH_FN(CopyFromAndResize));
  aten.impl("resize_", TORCH_FN(Resize));
  aten.impl("fill_.Scalar", TORCH_FN(Fill));
  aten.impl("zero_", TORCH_FN(Zero));
  aten.impl("_local_scalar_dense", TORCH_FN(LocalScalarDense));
  aten.impl("view", TORCH_FN(at::native::view));
  aten.impl("as_strided", TORCH_FN(at::native::as_strided_tensorimpl));
  aten.impl("_reshape_alias", TORCH_FN(at::native::_reshape_alias));
  aten.impl("_softmax", TORCH_FN(AtenSoftmax));
  aten.impl("_log_softmax", TORCH_FN(AtenLogSoftmax));
  aten.impl("gelu", TORCH_FN(AtenGelu));
  aten.impl("silu", TORCH_FN(AtenSilu));
  aten.impl("native_layer_norm", TORCH_FN(AtenNativeLayerNorm));
  fallback.fallback(torch::CppFunction::makeFromBoxedFunction<&CpuFallback>());
  if (!c10::Dispatcher::singleton().hasBackendFallbackForDispatchKey(
          c10::DispatchKey::AutogradPrivateUse1)) {
    static torch::Library autograd(torch::Library::IMPL, "_",
                                   c10::DispatchKey::AutogradPrivateUse1, __FILE__, __LINE__);
    autograd.fallback(torch::CppFunction::makeFallthrough());
  }
}

}  // namespace aicore::python
