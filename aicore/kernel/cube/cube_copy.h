// DataCopy from L1 into the cube's small parameter buffers: L1 (C1) -> BiasTable (C2) on MTE1
// for Mmad bias (float/int32, and half -> float), and L1 -> Fixpipe buffer (C2PIPE2GM) on FIX
// for per-column quantisation parameters (uint64_t). Both are reached through the
// DataCopy(LocalTensor, LocalTensor, ...) overloads, which route here when dst is in BT or FB.
//
// Note [Bias and Fixpipe buffer copy units] (2201, from the data-path docs)
// - L1 -> BT, DataCopyParams: blockLen in 64 B, srcStride (srcGap) in 32 B, dstStride (dstGap)
//   in 64 B, both gaps end-to-start. With half -> float the units count destination bytes:
//   blockLen*64 bytes of float are written from blockLen*32 bytes of half; srcGap stays in 32 B
//   of the source.
// - L1 -> FB, DataCopyParams: blockLen in 128 B; srcStride in 32 B and dstStride in 128 B, both
//   measured head-to-head (start to start) as the doc states for this path.
// - The count forms move count * sizeof(T) bytes, which must be whole 32-byte blocks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"

namespace AscendC {

namespace detail {

// Returns true when `dst` lives in the BiasTable or the Fixpipe buffer (a position check first,
// so UB -> UB copies pay one compare).
template <typename T>
bool IsCubeParamDst(const LocalTensor<T>& dst) {
  const TPosition pos = dst.GetPosition();
  if (pos != TPosition::C2 && pos != TPosition::C2PIPE2GM && pos != TPosition::C2PIPE2LOCAL) {
    return false;
  }
  const auto b = BufferOf(dst);
  return b == aicore::arch::Buffer::kBt || b == aicore::arch::Buffer::kFb ||
         b == aicore::arch::Buffer::kL0C;
}

// A DataCopy into BT/FB in bytes: `count` blocks of dst_len bytes written from src_len bytes.
struct ParamCopyShape {
  uint32_t count = 0;
  uint64_t src_len = 0;
  uint64_t dst_len = 0;
  uint64_t src_pitch = 0;  // start to start
  uint64_t dst_pitch = 0;
  uint64_t src_span() const { return (count - 1) * src_pitch + src_len; }
  uint64_t dst_span() const { return (count - 1) * dst_pitch + dst_len; }
};

// Checks operands and types, then moves (and converts half -> float) the bytes.
template <typename T, typename U>
void CubeParamCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const ParamCopyShape& s,
                   const SrcLoc& loc) {
  using aicore::arch::Buffer;
  const Buffer b = BufferOf(dst);
  if (b == Buffer::kL0C) {
    Fail(StatusCode::kUnimplemented, "DataCopy", loc, "dst is a ",
         aicore::arch::PositionName(ToArch(dst.GetPosition())), " tensor in L0C on ",
         Core().chip().name, "; the bias copy into L0C of coupled chips is not implemented");
  }
  const bool bt = b == Buffer::kBt;
  if (bt) {
    constexpr bool kSame =
        std::is_same_v<T, U> && (std::is_same_v<T, float> || std::is_same_v<T, int32_t>);
    constexpr bool kWiden = std::is_same_v<T, float> && std::is_same_v<U, aicore::half>;
    if constexpr (!kSame && !kWiden) {
      Fail(StatusCode::kInvalidArgument, "DataCopy", loc, "L1 -> BiasTable copies ",
           aicore::DTypeName(aicore::DTypeOf<U>()), " to ", aicore::DTypeName(aicore::DTypeOf<T>()),
           "; allowed: float -> float, int32_t -> int32_t, half -> float");
    }
  } else if (!std::is_same_v<T, uint64_t> || !std::is_same_v<U, uint64_t>) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc,
         "L1 -> Fixpipe buffer copies quantisation parameters of type uint64_t, not ",
         aicore::DTypeName(aicore::DTypeOf<U>()));
  }
  if (s.count == 0 || s.dst_len == 0) return;
  CheckLocal(src, s.src_span(), {Buffer::kL1}, "DataCopy", "src", loc);
  CheckLocal(dst, s.dst_span(), {Buffer::kBt, Buffer::kFb}, "DataCopy", "dst", loc);
  auto& core = Core();
  const uint64_t align = core.chip().spec(b).align;
  if (core.Locate(dst.data(), 0).offset % align != 0) {
    Fail(StatusCode::kInvalidArgument, "DataCopy", loc, "dst starts at ",
         aicore::arch::BufferName(b), " offset ", core.Locate(dst.data(), 0).offset, ", not on a ",
         align, "-byte boundary");
  }
  auto* d = reinterpret_cast<uint8_t*>(dst.data());
  const auto* p = reinterpret_cast<const uint8_t*>(src.data());
  const aicore::sim::Pipe pipe = bt ? aicore::sim::Pipe::kMte1 : aicore::sim::Pipe::kFix;
  core.Execute(pipe, [d, p, s] {
    for (uint32_t i = 0; i < s.count; ++i) {
      uint8_t* out = d + i * s.dst_pitch;
      const uint8_t* in = p + i * s.src_pitch;
      if constexpr (std::is_same_v<T, U>) {
        std::memmove(out, in, s.dst_len);
      } else {
        for (uint64_t e = 0; e < s.dst_len / sizeof(T); ++e) {
          U v;
          std::memcpy(&v, in + e * sizeof(U), sizeof(U));
          const T w = static_cast<T>(static_cast<float>(v));
          std::memcpy(out + e * sizeof(T), &w, sizeof(T));
        }
      }
    }
  });
  AICORE_ISSUE(core, CopyInstr(core, "DataCopy", pipe, aicore::DTypeOf<T>(), d, s.dst_span(), p,
                               s.src_span(), uint64_t{s.count} * s.dst_len,
                               {s.count, static_cast<uint32_t>(s.dst_len), s.dst_pitch},
                               {s.count, static_cast<uint32_t>(s.src_len), s.src_pitch}, loc));
}

// The count form: count * sizeof(T) bytes (whole 32-byte blocks).
template <typename T>
void CubeParamCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
                   const SrcLoc& loc) {
  const CopyShape c = ContiguousShape<T>(count, loc);
  CubeParamCopy(dst, src, ParamCopyShape{c.count, c.len, c.len, c.len, c.len}, loc);
}

// The DataCopyParams form, in the units of Note [Bias and Fixpipe buffer copy units].
template <typename T, typename U>
void CubeParamCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p,
                   const SrcLoc& loc) {
  ParamCopyShape s;
  s.count = p.blockCount;
  if (BufferOf(dst) == aicore::arch::Buffer::kFb) {
    s.dst_len = s.src_len = uint64_t{p.blockLen} * 128;
    s.src_pitch = uint64_t{p.srcStride} * 32;
    s.dst_pitch = uint64_t{p.dstStride} * 128;
  } else {
    s.dst_len = uint64_t{p.blockLen} * 64;
    s.src_len = s.dst_len / sizeof(T) * sizeof(U);
    s.src_pitch = s.src_len + uint64_t{p.srcStride} * 32;
    s.dst_pitch = s.dst_len + uint64_t{p.dstStride} * 64;
  }
  CubeParamCopy(dst, src, s, loc);
}

}  // namespace detail

// L1 (C1, half) -> BiasTable (C2, float): widens the bias on the way (DataCopyParams units as in
// Note [Bias and Fixpipe buffer copy units]). Same-type copies use the DataCopy overloads of
// copy/ub_to_ub.h, which route BT/FB destinations here.
template <typename T, typename U>
requires(!std::is_same_v<T, U>) void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                              const DataCopyParams& repeatParams,
                                              detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (!detail::IsCubeParamDst(dst)) {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "DataCopy", loc,
                 "a local copy with different element types exists only for L1 -> BiasTable "
                 "(half -> float); dst is a ",
                 aicore::arch::PositionName(ToArch(dst.GetPosition())), " tensor");
  }
  detail::CubeParamCopy(dst, src, repeatParams, loc);
}

}  // namespace AscendC
