// The aicore device on PrivateUse1 ("privateuseone" on torch 1.13): its memory is the runtime's
// caching device allocator, its current device is the runtime's (rt::SetDevice), and its copies,
// fills and views are native; every other aten op falls back to the CPU (warning once per op).
// Device memory is host memory, so device tensors are aliased as CPU tensors for copies and for
// aicore's operators.
#pragma once

#include <cstdint>
#include <vector>

namespace torch {
class Library;
}

namespace aicore::python {

// Registers the allocator, the DeviceGuardImpl, the native aten kernels (into `aten`, an IMPL
// library for PrivateUse1), the boxed CPU fallback (`fallback`: IMPL of "_" for PrivateUse1) and,
// when torch has none, the AutogradPrivateUse1 fallthrough. Called once from torch_register.cc.
void RegisterDevice(torch::Library& aten, torch::Library& fallback);

// The host<->device copies since the process started or ResetCopyStats (every copy_ / .to()
// between the CPU and the device, the boxed fallback's included): {host->device bytes,
// device->host bytes, host->device copies, device->host copies, nanoseconds copying}.
// torch.ops.aicore._copy_stats() / _reset_copy_stats().
std::vector<int64_t> CopyStats();
void ResetCopyStats();

}  // namespace aicore::python
