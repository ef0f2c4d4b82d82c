// Shared checks and funnel records of the DataCopy data paths.
#pragma once

#include <cstdint>
#include <cstring>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"

namespace AscendC::detail {

// Returns the physical buffer a local tensor lives in.
template <typename T>
aicore::arch::Buffer BufferOf(const LocalTensor<T>& t) {
  return Core().chip().BufferOf(ToArch(t.GetPosition()));
}

// Fails unless bytes [0, need) of `t` exist (GM tensors without an extent are not checked).
template <typename T>
void CheckGmExtent(const GlobalTensor<T>& t, uint64_t need_bytes, const char* api,
                   const char* role, const SrcLoc& loc) {
  if (t.data() == nullptr) [[unlikely]] {
    Fail(StatusCode::kFailedPrecondition, api, loc, role,
         " GlobalTensor has no buffer (call SetGlobalBuffer first)");
  }
  if (t.bounded() && need_bytes > t.GetSize() * sizeof(T)) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, role, " GlobalTensor: the copy reaches byte ",
         need_bytes, " but the tensor holds ", t.GetSize(), " elements (",
         t.GetSize() * sizeof(T), " bytes)");
  }
}

// Fails unless `t` is live, in one of `allowed` buffers, 32-byte aligned, and holds `need_bytes`.
template <typename T>
void CheckLocal(const LocalTensor<T>& t, uint64_t need_bytes, std::initializer_list<aicore::arch::Buffer> allowed,
                const char* api, const char* role, const SrcLoc& loc) {
  t.CheckLive(api, loc);
  const auto b = BufferOf(t);
  bool ok = false;
  for (auto a : allowed) ok = ok || a == b;
  if (!ok) [[unlikely]] {
    std::string names;
    for (auto a : allowed) names += std::string(names.empty() ? "" : "/") + aicore::arch::BufferName(a);
    Fail(StatusCode::kInvalidArgument, api, loc, role, " is a ",
         aicore::arch::PositionName(ToArch(t.GetPosition())), " tensor in ",
         aicore::arch::BufferName(b), "; this data path needs ", names);
  }
  if ((reinterpret_cast<uintptr_t>(t.data()) & 31u) != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, role, " starts at ", aicore::arch::BufferName(b),
         " offset ", Core().Locate(t.data(), 0).offset, ", not on a 32-byte boundary");
  }
  if (need_bytes > t.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, role, " LocalTensor: the copy reaches byte ",
         need_bytes, " but the tensor holds ", t.GetSize(), " elements (", t.bytes(), " bytes)");
  }
}

aicore::sim::Instr CopyInstr(aicore::sim::Core& core, const char* api, aicore::sim::Pipe pipe,
                             aicore::DType dt, const void* dst, uint64_t dst_span,
                             const void* src, uint64_t src_span, uint64_t bytes,
                             const aicore::sim::Stride& dst_stride,
                             const aicore::sim::Stride& src_stride, const SrcLoc& loc);

// Copies `count` blocks of `len` bytes; block i starts at src + i*src_pitch and dst + i*dst_pitch.
inline void CopyBlocks(uint8_t* dst, uint64_t dst_pitch, const uint8_t* src, uint64_t src_pitch,
                       uint32_t count, uint64_t len) {
  if (count == 1 || (dst_pitch == len && src_pitch == len)) {
    std::memmove(dst, src, len * count);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) std::memmove(dst + i * dst_pitch, src + i * src_pitch, len);
}

// Copies like CopyBlocks, or accumulates into GM when the core's atomic mode is set
// (SetAtomicAdd/Max/Min): dst = op(dst, src) element-wise in `dt`, serialised across cores.
void AtomicCopyBlocks(aicore::sim::Core& core, uint8_t* dst, uint64_t dst_pitch,
                      const uint8_t* src, uint64_t src_pitch, uint32_t count, uint64_t len,
                      aicore::DType dt);

}  // namespace AscendC::detail
