// DataCopy UB -> GM (and L1 -> GM) on MTE3: the contiguous count form and the strided
// DataCopyParams form; under SetAtomicAdd/Max/Min the bytes accumulate into GM.
#pragma once

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"

namespace AscendC {

// Copies `count` elements from UB/L1 to GM; count * sizeof(T) must be a multiple of 32.
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::BlockedCopy(dst, src, detail::ContiguousShape<T>(count, loc), loc);
}

// Strided copy UB/L1 -> GM in DataBlocks (see DataCopyParams).
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
              const DataCopyParams& params, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::BlockedCopy(dst, src,
                      detail::BlockShape(params.blockCount, params.blockLen, params.srcStride,
                                         params.dstStride),
                      loc);
}

}  // namespace AscendC
