// DataCopy GM -> UB (and GM -> L1) on MTE2: the contiguous count form and the strided
// DataCopyParams form. Byte counts must be whole 32-byte DataBlocks (hardware would silently
// truncate; here it is an error that points to DataCopyPad).
#pragma once

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"

namespace AscendC {

// Copies `count` elements from GM to UB/L1; count * sizeof(T) must be a multiple of 32.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::BlockedCopy(dst, src, detail::ContiguousShape<T>(count, loc), loc);
}

// Strided copy GM -> UB/L1 in DataBlocks (see DataCopyParams).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
              const DataCopyParams& params, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::BlockedCopy(dst, src,
                      detail::BlockShape(params.blockCount, params.blockLen, params.srcStride,
                                         params.dstStride),
                      loc);
}

}  // namespace AscendC
