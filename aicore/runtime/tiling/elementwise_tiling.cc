// Scratch sizes of the element-wise activations and of Sum/Mean (see elementwise_tiling.h).
#include "aicore/runtime/tiling/elementwise_tiling.h"

#include "aicore/kernel/lib/activation/gelu.h"
#include "aicore/kernel/lib/activation/sigmoid.h"
#include "aicore/kernel/lib/reduce/sum.h"

namespace AscendC {
namespace {

uint32_t Elements(const TensorShape& s) {
  const int64_t n = s.GetShapeSize();
  return n > 0 ? static_cast<uint32_t>(n) : 0;
}

}  // namespace

uint32_t GetGeluMaxTmpSize(const TensorShape& srcShape, uint32_t) {
  return lib::ChunkMaxBytes(Elements(srcShape), lib::kGeluBuffers);
}
uint32_t GetGeluMinTmpSize(const TensorShape&, uint32_t) {
  return lib::ChunkMinBytes(lib::kGeluBuffers);
}
void GetGeluMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize, uint32_t& maxValue,
                          uint32_t& minValue) {
  maxValue = GetGeluMaxTmpSize(srcShape, typeSize);
  minValue = GetGeluMinTmpSize(srcShape, typeSize);
}

void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, uint32_t, bool, uint32_t& maxValue,
                             uint32_t& minValue) {
  maxValue = lib::ChunkMaxBytes(Elements(srcShape), lib::kSigmoidBuffers);
  minValue = lib::ChunkMinBytes(lib::kSigmoidBuffers);
}

void GetSiluTmpSize(const TensorShape&, uint32_t, bool, uint32_t& maxValue, uint32_t& minValue) {
  maxValue = minValue = 0;
}
void GetSwishTmpSize(const TensorShape&, uint32_t, bool, uint32_t& maxValue, uint32_t& minValue) {
  maxValue = minValue = 0;
}

void GetSumMaxMinTmpSize(uint32_t n, uint32_t typeSize, bool, uint32_t& maxSize,
                         uint32_t& minSize) {
  maxSize = minSize = (typeSize == 2 || typeSize == 4) ? lib::SumScratchBytes(n, typeSize) : 0;
}
void GetMeanMaxMinTmpSize(uint32_t n, uint32_t srcTypeSize, uint32_t accTypeSize, bool,
                          uint32_t& maxSize, uint32_t& minSize) {
  const bool ok = (srcTypeSize == 2 || srcTypeSize == 4) && accTypeSize >= srcTypeSize &&
                  (accTypeSize == 2 || accTypeSize == 4);
  maxSize = minSize = ok ? lib::MeanScratchBytes(n, srcTypeSize, accTypeSize) : 0;
}

}  // namespace AscendC
