// The aicore device on PrivateUse1 (torch_device.h).
#include "python/src/torch_device.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/ExpandUtils.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "aicore/core/status.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/device_memory.h"
#include "python/src/ops_bridge.h"
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

// Host<->device copies since the last reset (CopyStats): the boxed fallback's and the user's.
struct {
  std::atomic<int64_t> h2d_bytes{0}, d2h_bytes{0}, h2d_copies{0}, d2h_copies{0}, ns{0};
} g_copy_stats;

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
  const bool h2d = self.device().is_cpu() && !dst.device().is_cpu();
  const bool d2h = !self.device().is_cpu() && dst.device().is_cpu();
  const auto start = std::chrono::steady_clock::now();
  dst_cpu.copy_(src_cpu);
  if (h2d || d2h) {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    const int64_t bytes = static_cast<int64_t>(dst.numel() * dst.element_size());
    (h2d ? g_copy_stats.h2d_bytes : g_copy_stats.d2h_bytes) += bytes;
    (h2d ? g_copy_stats.h2d_copies : g_copy_stats.d2h_copies) += 1;
    g_copy_stats.ns += ns;
  }
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

// --- aten kernels on aicore's operators (Note [Native device kernels]) ---
//
// Each runs aicore's operator on the device tensors' memory when the operator covers the call
// (fp32/fp16/bf16 operands as the operator takes them) and otherwise computes the same result
// with torch's CPU kernel on aliases of that memory, as the boxed fallback would (other dtypes,
// mixed dtypes the operator does not promote like torch, empty tensors).

// `t` as the CPU sees it: CPU tensors (wrapped Python numbers) as they are, device tensors
// aliased.
at::Tensor Host(const at::Tensor& t) { return t.device().is_cpu() ? t : CpuAlias(t); }

View DeviceView(const at::Tensor& t) {
  View v;
  v.data = t.data_ptr();
  v.dtype = t.scalar_type() == at::kFloat  ? DType::kF32
            : t.scalar_type() == at::kHalf ? DType::kF16
                                           : DType::kBF16;
  v.shape = t.sizes().vec();
  v.strides = t.strides().vec();
  return v;
}

// Runs a bridge call; aicore's error becomes c10::Error (RuntimeError).
template <class F>
void Native(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    TORCH_CHECK(false, e.status().message());
  }
}

// Throws unless `t` is on `self`'s device (a 0-d CPU tensor, a Python number, when `scalar_ok`).
void CheckSameDevice(const char* op, const char* arg, const at::Tensor& t, const at::Tensor& self,
                     bool scalar_ok) {
  if (scalar_ok && t.device().is_cpu() && t.dim() == 0) return;
  TORCH_CHECK(t.device() == self.device(), "aicore: aten::", op, ": ", arg, " is on device ",
              t.device(), " and self on ", self.device(),
              "; expected all tensors to be on the same device");
}

at::Tensor EmptyOn(at::IntArrayRef shape, at::ScalarType dtype, const at::Tensor& like) {
  return at::empty(shape, like.options().dtype(dtype).memory_format(at::MemoryFormat::Contiguous));
}

bool SameAicoreDType(std::initializer_list<const at::Tensor*> ts) {
  for (const at::Tensor* t : ts) {
    if (!AicoreDType(*t) || t->scalar_type() != (*ts.begin())->scalar_type()) return false;
  }
  return true;
}

at::Tensor AtenMm(const at::Tensor& self, const at::Tensor& mat2) {
  CheckSameDevice("mm", "mat2", mat2, self, false);
  if (!SameAicoreDType({&self, &mat2}) || self.dim() != 2 || mat2.dim() != 2 ||
      self.size(1) != mat2.size(0) || self.numel() == 0 || mat2.numel() == 0) {
    return ToDevice(at::mm(Host(self), Host(mat2)), self);  // torch's checks and empty cases
  }
  at::Tensor out = EmptyOn({self.size(0), mat2.size(1)}, self.scalar_type(), self);
  Native([&] { RunMatmul("aicore: aten::mm", DeviceView(self), DeviceView(mat2),
                         DeviceView(out)); });
  return out;
}

at::Tensor AtenBmm(const at::Tensor& self, const at::Tensor& mat2) {
  CheckSameDevice("bmm", "mat2", mat2, self, false);
  if (!SameAicoreDType({&self, &mat2}) || self.dim() != 3 || mat2.dim() != 3 ||
      self.size(0) != mat2.size(0) || self.size(2) != mat2.size(1) || self.numel() == 0 ||
      mat2.numel() == 0) {
    return ToDevice(at::bmm(Host(self), Host(mat2)), self);
  }
  at::Tensor out = EmptyOn({self.size(0), self.size(1), mat2.size(2)}, self.scalar_type(), self);
  Native([&] { RunMatmul("aicore: aten::bmm", DeviceView(self), DeviceView(mat2),
                         DeviceView(out)); });
  return out;
}

at::Tensor AtenAddmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                     const at::Scalar& beta, const at::Scalar& alpha) {
  CheckSameDevice("addmm", "mat1", mat1, self, false);
  CheckSameDevice("addmm", "mat2", mat2, self, false);
  const bool shapes = mat1.dim() == 2 && mat2.dim() == 2 && mat1.size(1) == mat2.size(0) &&
                      (self.dim() == 1 || self.dim() == 2) &&
                      at::is_expandable_to(self.sizes(), {mat1.size(0), mat2.size(1)});
  if (!SameAicoreDType({&self, &mat1, &mat2}) || !shapes || mat1.numel() == 0 ||
      mat2.numel() == 0 || beta.isComplex() || alpha.isComplex()) {
    return ToDevice(at::addmm(Host(self), Host(mat1), Host(mat2), beta, alpha), self);
  }
  at::Tensor out = EmptyOn({mat1.size(0), mat2.size(1)}, self.scalar_type(), self);
  Native([&] {
    RunAddmm("aicore: aten::addmm", DeviceView(self), DeviceView(mat1), DeviceView(mat2),
             beta.toDouble(), alpha.toDouble(), DeviceView(out));
  });
  return out;
}

enum class Binary { kAdd, kSub, kMul, kDiv };

// self (+ - * /) other for a device self; other a device tensor or a 0-d CPU tensor (a Python
// number). aicore has Add (with alpha) and Mul, and their scalar forms: sub is Add with -alpha,
// a division by a scalar is Muls by its reciprocal; a division by a tensor runs on the CPU
// (aicore has no Div operator).
at::Tensor BinaryOp(const char* name, Binary kind, const at::Tensor& self, const at::Tensor& other,
                    const at::Scalar& alpha) {
  // self may be the scalar (2 - x is sub(2, x)); the result goes to the device operand's device.
  const bool self_scalar = self.device().is_cpu() && self.dim() == 0;
  if (self_scalar) {
    CheckSameDevice(name, "self", self, other, true);
  } else {
    CheckSameDevice(name, "other", other, self, true);
  }
  auto on_cpu = [&] {
    const at::Tensor a = Host(self), b = Host(other);
    at::Tensor r = kind == Binary::kAdd   ? at::add(a, b, alpha)
                   : kind == Binary::kSub ? at::sub(a, b, alpha)
                   : kind == Binary::kMul ? at::mul(a, b)
                                          : at::div(a, b);
    return ToDevice(r, self_scalar ? other : self);
  };
  if (self.device().type() != kDevice || !AicoreDType(self) || self.numel() == 0 ||
      alpha.isComplex()) {
    return on_cpu();
  }
  const at::ScalarType out_type = at::result_type(self, other);
  const char* op = kind == Binary::kAdd   ? "aicore: aten::add"
                   : kind == Binary::kSub ? "aicore: aten::sub"
                   : kind == Binary::kMul ? "aicore: aten::mul"
                                          : "aicore: aten::div";
  const double a = kind == Binary::kSub ? -alpha.toDouble() : alpha.toDouble();
  if (other.device().is_cpu()) {  // a scalar operand
    if (out_type != self.scalar_type() || other.is_complex()) return on_cpu();
    const double v = other.item().toDouble();
    if (kind == Binary::kDiv && v == 0) return on_cpu();  // x / 0: torch's inf and nan
    at::Tensor out = EmptyOn(self.sizes(), out_type, self);
    Native([&] {
      if (kind == Binary::kAdd || kind == Binary::kSub) {
        RunAddScalar(op, DeviceView(self), v, a, DeviceView(out));
      } else {
        RunMulScalar(op, DeviceView(self), kind == Binary::kDiv ? 1.0 / v : v, DeviceView(out));
      }
    });
    return out;
  }
  // Two device tensors: aicore promotes fp32/fp16/bf16 as torch does for tensors of equal
  // standing (a 0-d tensor beside an n-d one follows torch's other rule: the CPU computes it).
  if (kind == Binary::kDiv || !AicoreDType(other) || other.numel() == 0 ||
      (self.scalar_type() != other.scalar_type() && (self.dim() == 0) != (other.dim() == 0))) {
    return on_cpu();
  }
  std::vector<int64_t> shape;
  try {
    shape = at::infer_size(self.sizes(), other.sizes());
  } catch (const c10::Error&) {
    return on_cpu();  // torch's message
  }
  at::Tensor out = EmptyOn(shape, out_type, self);
  Native([&] {
    if (kind == Binary::kMul) {
      RunMul(op, DeviceView(self), DeviceView(other), DeviceView(out));
    } else {
      RunAdd(op, DeviceView(self), DeviceView(other), a, DeviceView(out));
    }
  });
  return out;
}

at::Tensor AtenAdd(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return BinaryOp("add", Binary::kAdd, self, other, alpha);
}
at::Tensor AtenSub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return BinaryOp("sub", Binary::kSub, self, other, alpha);
}
at::Tensor AtenMul(const at::Tensor& self, const at::Tensor& other) {
  return BinaryOp("mul", Binary::kMul, self, other, 1);
}
at::Tensor AtenDiv(const at::Tensor& self, const at::Tensor& other) {
  return BinaryOp("div", Binary::kDiv, self, other, 1);
}

at::Tensor AtenSoftmaxBackward(const at::Tensor& grad_output, const at::Tensor& output,
                               int64_t dim, at::ScalarType input_dtype) {
  CheckSameDevice("_softmax_backward_data", "output", output, grad_output, false);
  if (!SameAicoreDType({&grad_output, &output}) || grad_output.numel() == 0 ||
      (input_dtype != at::kFloat && input_dtype != at::kHalf && input_dtype != at::kBFloat16) ||
      grad_output.dim() == 0 || grad_output.dim() > 8 ||
      !grad_output.sizes().equals(output.sizes())) {
    return ToDevice(at::_softmax_backward_data(Host(grad_output), Host(output), dim, input_dtype),
                    grad_output);
  }
  at::Tensor out = EmptyOn(grad_output.sizes(), input_dtype, grad_output);
  Native([&] {
    RunSoftmaxBackward("aicore: aten::_softmax_backward_data", DeviceView(grad_output),
                       DeviceView(output), dim, DeviceView(out));
  });
  return out;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> AtenNativeLayerNormBackward(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape,
    const at::Tensor& mean, const at::Tensor& rstd, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& bias, std::array<bool, 3> output_mask) {
  const bool has_w = weight.has_value() && weight->defined();
  const bool has_b = bias.has_value() && bias->defined();
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  const bool covered =
      SameAicoreDType({&grad_out, &input}) && AicoreDType(mean) && AicoreDType(rstd) &&
      input.numel() > 0 && input.dim() <= 8 && k >= 1 && k <= input.dim() &&
      input.sizes().slice(input.dim() - k).equals(normalized_shape) &&
      grad_out.sizes().equals(input.sizes()) && (!has_w || AicoreDType(*weight));
  if (!covered) {
    auto host = [](const c10::optional<at::Tensor>& t) {
      return t.has_value() && t->defined() ? c10::optional<at::Tensor>(Host(*t))
                                           : c10::optional<at::Tensor>();
    };
    auto [dx, dw, db] = at::native_layer_norm_backward(Host(grad_out), Host(input),
                                                       normalized_shape, Host(mean), Host(rstd),
                                                       host(weight), host(bias), output_mask);
    auto back = [&](const at::Tensor& t) { return t.defined() ? ToDevice(t, input) : t; };
    return {back(dx), back(dw), back(db)};
  }
  // aicore wants mean and rstd of one dtype, at least as wide as input's.
  at::Tensor m = mean, r = rstd;
  if (m.scalar_type() != r.scalar_type() || m.scalar_type() != input.scalar_type()) {
    m = mean.to(at::kFloat);
    r = rstd.to(at::kFloat);
  }
  const at::ScalarType param_type = has_w ? weight->scalar_type() : input.scalar_type();
  at::Tensor dx, dw, db;
  if (output_mask[0]) dx = EmptyOn(input.sizes(), input.scalar_type(), input);
  if (output_mask[1] && has_w) dw = EmptyOn(normalized_shape, param_type, input);
  if (output_mask[2] && has_b) db = EmptyOn(normalized_shape, param_type, input);
  if (!dx.defined() && !dw.defined() && !db.defined()) return {dx, dw, db};
  Native([&] {
    const View vw = has_w ? DeviceView(*weight) : View();
    const View vdx = dx.defined() ? DeviceView(dx) : View();
    const View vdw = dw.defined() ? DeviceView(dw) : View();
    const View vdb = db.defined() ? DeviceView(db) : View();
    RunLayerNormBackward("aicore: aten::native_layer_norm_backward", DeviceView(grad_out),
                         DeviceView(input), normalized_shape.vec(), DeviceView(m), DeviceView(r),
                         has_w ? &vw : nullptr, dx.defined() ? &vdx : nullptr,
                         dw.defined() ? &vdw : nullptr, db.defined() ? &vdb : nullptr);
  });
  if (db.defined() && bias->scalar_type() != db.scalar_type()) db = db.to(bias->scalar_type());
  return {dx, dw, db};
}

// Indexing with tensors (boolean masks included): torch 1.13's boxed fallback does not move the
// Tensor?[] indices to the CPU, so these kernels do.
c10::List<c10::optional<at::Tensor>> HostIndices(
    const c10::List<c10::optional<at::Tensor>>& indices) {
  c10::List<c10::optional<at::Tensor>> r;
  r.reserve(indices.size());
  for (const c10::optional<at::Tensor>& i : indices) {
    r.push_back(i.has_value() && i->defined() ? c10::optional<at::Tensor>(Host(*i))
                                              : c10::optional<at::Tensor>());
  }
  return r;
}

at::Tensor AtenIndex(const at::Tensor& self, const c10::List<c10::optional<at::Tensor>>& indices) {
  return ToDevice(at::index(Host(self), HostIndices(indices)), self);
}

at::Tensor& AtenIndexPut(at::Tensor& self, const c10::List<c10::optional<at::Tensor>>& indices,
                         const at::Tensor& values, bool accumulate, bool unsafe) {
  at::Tensor host = Host(self);
  at::_index_put_impl_(host, HostIndices(indices), Host(values), accumulate, unsafe);
  return self;
}

}  // namespace

std::vector<int64_t> CopyStats() {
  return {g_copy_stats.h2d_bytes, g_copy_stats.d2h_bytes, g_copy_stats.h2d_copies,
          g_copy_stats.d2h_copies, g_copy_stats.ns};
}

void ResetCopyStats() {
  for (auto* c : {&g_copy_stats.h2d_bytes, &g_copy_stats.d2h_bytes, &g_copy_stats.h2d_copies,
                  &g_copy_stats.d2h_copies, &g_copy_stats.ns}) {
    *c = 0;
  }
}

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
  aten.impl("native_layer_norm_backward", TORCH_FN(AtenNativeLayerNormBackward));
  aten.impl("_softmax_backward_data", TORCH_FN(AtenSoftmaxBackward));
  aten.impl("mm", TORCH_FN(AtenMm));
  aten.impl("bmm", TORCH_FN(AtenBmm));
  aten.impl("addmm", TORCH_FN(AtenAddmm));
  aten.impl("add.Tensor", TORCH_FN(AtenAdd));
  aten.impl("sub.Tensor", TORCH_FN(AtenSub));
  aten.impl("mul.Tensor", TORCH_FN(AtenMul));
  aten.impl("div.Tensor", TORCH_FN(AtenDiv));
  aten.impl("index.Tensor", TORCH_FN(AtenIndex));
  aten.impl("_index_put_impl_", TORCH_FN(AtenIndexPut));
  fallback.fallback(torch::CppFunction::makeFromBoxedFunction<&CpuFallback>());
  if (!c10::Dispatcher::singleton().hasBackendFallbackForDispatchKey(
          c10::DispatchKey::AutogradPrivateUse1)) {
    static torch::Library autograd(torch::Library::IMPL, "_",
                                   c10::DispatchKey::AutogradPrivateUse1, __FILE__, __LINE__);
    autograd.fallback(torch::CppFunction::makeFallthrough());
  }
}

}  // namespace aicore::python
