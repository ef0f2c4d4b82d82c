// DataCopy UB -> UB on the vector pipe (count and DataCopyParams forms). Local copies whose
// destination is the BiasTable or the Fixpipe buffer go to aicore/kernel/cube/cube_copy.h.
#pragma once

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"
#include "aicore/kernel/cube/cube_copy.h"

namespace AscendC {

// Copies `count` elements within UB; count * sizeof(T) must be a multiple of 32.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (detail::IsCubeParamDst(dst)) return detail::CubeParamCopy(dst, src, count, loc);
  detail::BlockedCopy(dst, src, detail::ContiguousShape<T>(count, loc), loc);
}

// Strided copy within UB in DataBlocks (see DataCopyParams).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (detail::IsCubeParamDst(dst)) return detail::CubeParamCopy(dst, src, params, loc);
  detail::BlockedCopy(dst, src,
                      detail::BlockShape(params.blockCount, params.blockLen, params.srcStride,
                                         params.dstStride),
                      loc);
}

}  // namespace AscendC
