// DataCopy GM -> UB (and GM -> L1) on MTE2: the contiguous count form and the strided
// DataCopyParams form. Byte counts must be whole 32-byte DataBlocks (hardware would silently
// truncate; here it is an error that points to DataCopyPad).
#pragma once

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"

namespace AscendC {

namespace detail {
using aicore::arch::Buffer;

template <typename T>
void GmToLocal(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t block_count,
               uint64_t block_bytes, uint64_t src_pitch, uint64_t dst_pitch, const SrcLoc& loc) {
  if (block_count == 0 || block_bytes == 0) return;
  const uint64_t src_span = (block_count - 1) * src_pitch + block_bytes;
  const uint64_t dst_span = (block_count - 1) * dst_pitch + block_bytes;
  CheckLocal(dst, dst_span, {Buffer::kUb, Buffer::kL1}, "DataCopy", "dst", loc);
  CheckGmExtent(src, src_span, "DataCopy", "src", loc);
  CopyBlocks(reinterpret_cast<uint8_t*>(dst.data()), dst_pitch,
             reinterpret_cast<const uint8_t*>(src.data()), src_pitch, block_count, block_bytes);
  auto& core = Core();
  AICORE_ISSUE(core, CopyInstr(core, "DataCopy", aicore::sim::Pipe::kMte2, aicore::DTypeOf<T>(),
                               dst.data(), dst_span, src.data(), src_span,
                               block_count * block_bytes,
                               {block_count, static_cast<uint32_t>(block_bytes), dst_pitch},
                               {block_count, static_cast<uint32_t>(block_bytes), src_pitch}, loc));
}
}  // namespace detail

// Copies `count` elements from GM to UB/L1; count * sizeof(T) must be a multiple of 32.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  if (bytes % 32 != 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "DataCopy", loc, count, " elements x ",
                 sizeof(T), " B = ", bytes, " B is not a multiple of 32 B (hardware truncates to ",
                 bytes / 32 * 32, " B); use DataCopyPad for unaligned lengths");
  }
  detail::GmToLocal(dst, src, 1, bytes, bytes, bytes, loc);
}

// Strided copy GM -> UB/L1 in DataBlocks (see DataCopyParams).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
              const DataCopyParams& params, detail::SrcLoc loc = detail::SrcLoc::current()) {
  const uint64_t len = uint64_t{params.blockLen} * 32;
  detail::GmToLocal(dst, src, params.blockCount, len, len + uint64_t{params.srcStride} * 32,
                    len + uint64_t{params.dstStride} * 32, loc);
}

}  // namespace AscendC
