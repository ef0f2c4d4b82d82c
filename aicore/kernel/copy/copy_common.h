// Shared checks and funnel records of the DataCopy data paths.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"

namespace AscendC::detail {

// Returns the physical buffer a local tensor lives in.
template <typename T>
aicore::arch::Buffer BufferOf(const LocalTensor<T>& t) {
  return Core().chip().BufferOf(ToArch(t.GetPosition()));
}

// Fails unless bytes [0, need) of `t` exist (See GlobalTensor::CheckExtent).
template <typename T>
void CheckGmExtent(const GlobalTensor<T>& t, uint64_t need_bytes, const char* api,
                   const char* role, const SrcLoc& loc) {
  t.CheckExtent(need_bytes, api, role, loc);
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
  if (AicUbTensor(b)) [[unlikely]] FailAicUbTensor(api, role, loc);
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

// Copies like CopyBlocks from GM, then prefetches the bytes that follow a long contiguous read
// (See Note [Prefetching GM reads]).
void ReadGm(uint8_t* dst, uint64_t dst_pitch, const uint8_t* src, uint64_t src_pitch,
            uint32_t count, uint64_t len);

// Copies like CopyBlocks, or accumulates into GM when `atomic_mode` (the core's mode when the copy
// was issued: SetAtomicAdd/Max/Min) is set: dst = op(dst, src) element-wise in `dt`, serialised
// across cores.
void AtomicCopyBlocks(int atomic_mode, uint8_t* dst, uint64_t dst_pitch, const uint8_t* src,
                      uint64_t src_pitch, uint32_t count, uint64_t len, aicore::DType dt);

// Geometry of a blocked copy: `count` blocks of `len` bytes, block i at src + i*src_pitch and
// dst + i*dst_pitch.
struct CopyShape {
  uint32_t count = 0;
  uint64_t len = 0;
  uint64_t src_pitch = 0;
  uint64_t dst_pitch = 0;
  uint64_t src_span() const { return (count - 1) * src_pitch + len; }
  uint64_t dst_span() const { return (count - 1) * dst_pitch + len; }
};

// Returns the shape of a contiguous copy of `count` elements; fails unless the byte count is whole
// 32-byte DataBlocks (hardware would silently truncate it).
template <typename T>
CopyShape ContiguousShape(uint32_t count, const SrcLoc& loc) {
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  if (bytes % 32 != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc, count, " elements x ", sizeof(T), " B = ",
         bytes, " B is not a multiple of 32 B (hardware truncates to ", bytes / 32 * 32,
         " B); use DataCopyPad for unaligned lengths");
  }
  return {1, bytes, bytes, bytes};
}

// Returns the shape of a DataCopyParams copy (lengths and gaps in 32-byte DataBlocks).
inline CopyShape BlockShape(uint16_t block_count, uint16_t block_len, uint16_t src_gap,
                            uint16_t dst_gap) {
  const uint64_t len = uint64_t{block_len} * 32;
  return {block_count, len, len + uint64_t{src_gap} * 32, len + uint64_t{dst_gap} * 32};
}

template <typename T>
void CheckOperand(const LocalTensor<T>& t, uint64_t span, const char* role, const SrcLoc& loc,
                  bool gm_peer) {
  using aicore::arch::Buffer;
  if (gm_peer) {
    CheckLocal(t, span, {Buffer::kUb, Buffer::kL1}, "DataCopy", role, loc);
  } else {
    CheckLocal(t, span, {Buffer::kUb}, "DataCopy", role, loc);
  }
}
template <typename T>
void CheckOperand(const GlobalTensor<T>& t, uint64_t span, const char* role, const SrcLoc& loc,
                  bool /*gm_peer*/) {
  CheckGmExtent(t, span, "DataCopy", role, loc);
}

template <typename X>
inline constexpr bool kIsGlobal = false;
template <typename T>
inline constexpr bool kIsGlobal<GlobalTensor<T>> = true;

// The one DataCopy data path: checks both operands, moves the bytes (accumulating into GM under
// SetAtomicAdd/Max/Min) and records the copy. The pipe follows from the operand kinds:
// GM -> local on MTE2, local -> GM on MTE3, UB -> UB on V.
template <typename Dst, typename Src>
void BlockedCopy(const Dst& dst, const Src& src, const CopyShape& s, const SrcLoc& loc) {
  using T = typename Dst::PrimType;
  static_assert(std::is_same_v<T, typename Src::PrimType>, "DataCopy needs equal element types");
  static_assert(!(kIsGlobal<Dst> && kIsGlobal<Src>), "DataCopy has no GM -> GM path");
  if (s.count == 0 || s.len == 0) return;
  constexpr bool kDstGm = kIsGlobal<Dst>;
  constexpr bool kSrcGm = kIsGlobal<Src>;
  CheckOperand(dst, s.dst_span(), "dst", loc, kSrcGm);
  CheckOperand(src, s.src_span(), "src", loc, kDstGm);
  auto& core = Core();
  auto* d = reinterpret_cast<uint8_t*>(dst.data());
  const auto* p = reinterpret_cast<const uint8_t*>(src.data());
  constexpr aicore::sim::Pipe kPipe = kSrcGm ? aicore::sim::Pipe::kMte2
                                      : kDstGm ? aicore::sim::Pipe::kMte3
                                               : aicore::sim::Pipe::kV;
  if constexpr (kDstGm) {
    core.Execute(kPipe, [mode = core.atomic_mode, d, p, s] {
      AtomicCopyBlocks(mode, d, s.dst_pitch, p, s.src_pitch, s.count, s.len, aicore::DTypeOf<T>());
    });
  } else if constexpr (kSrcGm) {
    core.Execute(kPipe, [d, p, s] { ReadGm(d, s.dst_pitch, p, s.src_pitch, s.count, s.len); });
  } else {
    core.Execute(kPipe, [d, p, s] { CopyBlocks(d, s.dst_pitch, p, s.src_pitch, s.count, s.len); });
  }
  AICORE_ISSUE(core, CopyInstr(core, "DataCopy", kPipe, aicore::DTypeOf<T>(), d, s.dst_span(), p,
                               s.src_span(), uint64_t{s.count} * s.len,
                               {s.count, static_cast<uint32_t>(s.len), s.dst_pitch},
                               {s.count, static_cast<uint32_t>(s.len), s.src_pitch}, loc));
}

}  // namespace AscendC::detail
