// SoftMax-family host tiling: every size comes from lib::SoftMaxLayout, the layout the kernels
// carve their scratch with.
#include "aicore/runtime/tiling/softmax_tiling.h"

#include <algorithm>

namespace AscendC {
namespace {

struct Mk {
  uint32_t m;
  uint32_t k;
};

Mk RowsCols(const TensorShape& s) {
  const size_t n = s.GetDimNum();
  if (n == 0) return {0, 0};
  int64_t m = 1;
  for (size_t i = 0; i + 1 < n; ++i) m *= std::max<int64_t>(s.GetDim(i), 0);
  return {static_cast<uint32_t>(m), static_cast<uint32_t>(std::max<int64_t>(s.GetDim(n - 1), 0))};
}

uint32_t Bytes(const TensorShape& s, uint32_t src_size, bool all_rows) {
  const Mk mk = RowsCols(s);
  if (mk.m == 0 || mk.k == 0) return 0;
  return lib::SoftMaxLayout(all_rows ? mk.m : 1, mk.k, src_size).total;
}

}  // namespace

uint32_t GetSoftMaxMaxTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize, bool) {
  return Bytes(srcShape, dataTypeSize, true);
}
uint32_t GetSoftMaxMinTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize, bool) {
  return Bytes(srcShape, dataTypeSize, false);
}
void SoftMaxTilingFunc(const TensorShape& srcShape, uint32_t dataTypeSize,
                       uint32_t localWorkSpaceSize, tiling::SoftMaxTiling& softmaxTiling) {
  const Mk mk = RowsCols(srcShape);
  lib::FillSoftMaxTiling(softmaxTiling, mk.m, mk.k, dataTypeSize, dataTypeSize, localWorkSpaceSize);
}

uint32_t GetSoftMaxFlashV2MaxTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize1,
                                     uint32_t, bool, bool, bool) {
  return Bytes(srcShape, dataTypeSize1, true);
}
uint32_t GetSoftMaxFlashV2MinTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize1,
                                     uint32_t, bool, bool, bool) {
  return Bytes(srcShape, dataTypeSize1, false);
}
void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, uint32_t dataTypeSize1,
                              uint32_t dataTypeSize2,
                              uint32_t localWorkSpaceSize,
                              tiling::SoftMaxTiling& softmaxFlashTiling, bool, bool, bool) {
  const Mk mk = RowsCols(srcShape);
  lib::FillSoftMaxTiling(softmaxFlashTiling, mk.m, mk.k, dataTypeSize1, dataTypeSize2,
                         localWorkSpaceSize);
}

uint32_t GetLogSoftMaxMaxTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize, bool) {
  return Bytes(srcShape, dataTypeSize, true);
}
uint32_t GetLogSoftMaxMinTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize, bool) {
  return Bytes(srcShape, dataTypeSize, false);
}
void LogSoftMaxTilingFunc(const TensorShape& srcShape, uint32_t dataTypeSize,
                          uint32_t localWorkSpaceSize, tiling::LogSoftMaxTiling& softmaxTiling) {
  const Mk mk = RowsCols(srcShape);
  lib::FillSoftMaxTiling(softmaxTiling, mk.m, mk.k, dataTypeSize, dataTypeSize, localWorkSpaceSize);
}

bool IsBasicBlockInSoftMax(tiling::SoftMaxTiling& tiling, uint32_t dataTypeSize) {
  const uint32_t k = tiling.srcK;
  return dataTypeSize != 0 && k >= 256 / dataTypeSize && k < 2048 && k % 64 == 0 &&
         tiling.srcM % 8 == 0;
}

}  // namespace AscendC
