// LayerNorm/RmsNorm host tiling: sizes from lib::NormLayout, the layout the kernels carve.
#include "aicore/runtime/tiling/norm_tiling.h"

#include <algorithm>

namespace AscendC {
namespace {

uint32_t U32(int64_t v) { return v > 0 ? static_cast<uint32_t>(v) : 0; }

void MaxMin(uint32_t m, uint32_t k, uint32_t type_size, bool layer_norm, uint32_t& max,
            uint32_t& min) {
  if (m == 0 || k == 0) {
    max = min = 0;
    return;
  }
  max = lib::NormLayout(m, k, type_size, layer_norm).total;
  min = lib::NormLayout(lib::NormMinRows(m, layer_norm), k, type_size, layer_norm).total;
}

uint32_t PadTo32(uint32_t n, uint32_t type_size) {
  const uint32_t per = type_size ? 32 / type_size : 8;
  return lib::AlignUp(n, per);
}

}  // namespace

void GetLayerNormMaxMinTmpSize(const TensorShape& s, uint32_t typeSize, bool, uint32_t& maxValue,
                               uint32_t& minValue) {
  MaxMin(U32(s.GetDim(0)) * U32(s.GetDim(1)), U32(s.GetDim(2)), typeSize, true, maxValue,
         minValue);
}

void GetLayerNormMaxMinTmpSize(const TensorShape& s, uint32_t typeSize, bool, bool, bool,
                               uint32_t& maxValue, uint32_t& minValue) {
  MaxMin(U32(s.GetDim(0)), PadTo32(U32(s.GetDim(1)), typeSize), typeSize, true, maxValue,
         minValue);
}

void GetLayerNormNDTilingInfo(const TensorShape& s, uint32_t stackBufferSize, uint32_t typeSize,
                              bool, LayerNormTiling& t) {
  t = LayerNormTiling{};
  t.bLength = U32(s.GetDim(0));
  t.sLength = U32(s.GetDim(1));
  t.hLength = U32(s.GetDim(2));
  t.originalHLength = s.GetDimNum() > 3 ? U32(s.GetDim(3)) : t.hLength;
  const uint32_t m = t.bLength * t.sLength, k = t.hLength;
  const uint32_t rows = lib::NormRowsFitting(m, k, typeSize, true, stackBufferSize);
  const lib::NormWorkspace w = lib::NormLayout(std::max(rows, 1u), k, typeSize, true);
  t.inputXSize = m * k;
  t.meanVarSize = m;
  t.numberOfTmpBuf = 2;
  t.meanTmpTensorPos = w.stat[0] / 4;
  t.meanTmpTensorSize = rows * lib::kFloatsPerBlock;
  t.varianceTmpTensorPos = w.stat[1] / 4;
  t.varianceTmpTensorSize = rows * lib::kFloatsPerBlock;
  t.tmpBufSize = rows ? w.total / 4 : 0;
  t.oneTmpSize = rows * k;
  t.firstTmpStartPos = w.x / 4;
  t.secondTmpStartPos = w.d / 4;
  t.thirdTmpStartPos = w.gamma / 4;
  t.loopRound = rows ? m / rows : 0;
  t.inputRoundSize = rows * k;
  t.meanVarRoundSize = rows;
  t.meanVarTailSize = rows ? m % rows : 0;
  t.meanVarTailPos = t.loopRound * rows;
  t.inputTailSize = t.meanVarTailSize * k;
  t.inputTailPos = t.meanVarTailPos * k;
  t.bshCurLength = rows * k;
  t.bsCurLength = rows;
  t.lastDimValueBack = t.originalHLength ? 1.0f / static_cast<float>(t.originalHLength) : 0.0f;
}

void GetLayerNormNDTillingInfo(const TensorShape& s, uint32_t stackBufferSize, uint32_t typeSize,
                               bool isReuseSource, LayerNormTiling& tilling) {
  GetLayerNormNDTilingInfo(s, stackBufferSize, typeSize, isReuseSource, tilling);
}

void GetLayerNormNDTilingInfo(const TensorShape& s, uint32_t stackBufferSize, uint32_t typeSize,
                              bool, bool, LayerNormSeparateTiling& t) {
  t = LayerNormSeparateTiling{};
  t.aLength = U32(s.GetDim(0));
  t.rLength = U32(s.GetDim(1));
  t.rHeadLength = PadTo32(t.rLength, typeSize);
  const uint32_t m = t.aLength, k = t.rHeadLength;
  const uint32_t rows = lib::NormRowsFitting(m, k, typeSize, true, stackBufferSize);
  const lib::NormWorkspace w = lib::NormLayout(std::max(rows, 1u), k, typeSize, true);
  const float rec = t.rLength ? 1.0f / static_cast<float>(t.rLength) : 0.0f;
  t.k2Rec = t.k2RRec = t.rValueBack = rec;
  t.halfAddRepeatTimes = lib::CeilDiv(k, lib::kFloatsPerRepeat);
  t.inputXSize = m * k;
  t.meanVarSize = m;
  t.numberOfTmpBuf = 2;
  t.varianceTmpTensorPos = w.stat[1] / 4;
  t.varianceTmpTensorSize = rows * lib::kFloatsPerBlock;
  t.tmpBufSize = rows ? w.total / 4 : 0;
  t.oneTmpSize = rows * k;
  t.firstTmpStartPos = w.x / 4;
  t.secondTmpStartPos = w.d / 4;
  t.thirdTmpStartPos = w.gamma / 4;
  t.loopRound = rows ? m / rows : 0;
  t.inputRoundSize = rows * k;
  t.meanVarRoundSize = rows;
  t.meanVarTailSize = rows ? m % rows : 0;
  t.meanVarTailPos = t.loopRound * rows;
  t.inputTailSize = t.meanVarTailSize * k;
  t.inputTailPos = t.meanVarTailPos * k;
  t.arCurLength = rows * k;
  t.aCurLength = rows;
}

bool GetRmsNormMaxMinTmpSize(const TensorShape& s, uint32_t typeSize, uint32_t& maxValue,
                             uint32_t& minValue, bool) {
  maxValue = minValue = 0;
  const uint32_t h = U32(s.GetDim(2));
  if (s.GetDimNum() != 3 || typeSize == 0 || h == 0 || (h * typeSize) % 32 != 0) return false;
  MaxMin(U32(s.GetDim(0)) * U32(s.GetDim(1)), h, typeSize, false, maxValue, minValue);
  return maxValue != 0;
}

bool GetRmsNormTilingInfo(const TensorShape& s, const TensorShape& origin,
                          uint32_t stackBufferByteSize, uint32_t typeSize, RmsNormTiling& t,
                          bool isBasicBlock) {
  t = RmsNormTiling{};
  uint32_t max = 0, min = 0;
  if (!GetRmsNormMaxMinTmpSize(s, typeSize, max, min, isBasicBlock)) return false;
  const uint32_t ori_h = origin.GetDimNum() == 3 ? U32(origin.GetDim(2)) : 0;
  if (ori_h == 0 || ori_h > U32(s.GetDim(2)) || stackBufferByteSize < min) return false;
  t.bLength = U32(s.GetDim(0));
  t.sLength = U32(s.GetDim(1));
  t.hLength = U32(s.GetDim(2));
  t.originalHLength = ori_h;
  t.reciprocalOfHLength = 1.0f / static_cast<float>(ori_h);
  const uint32_t m = t.bLength * t.sLength;
  const uint32_t rows = lib::NormRowsFitting(m, t.hLength, typeSize, false, stackBufferByteSize);
  t.mainBsLength = rows;
  t.mainBshLength = rows * t.hLength;
  t.mainBsLengthAlign = lib::AlignUp(rows, lib::kFloatsPerBlock);
  t.loopRound = m / rows;
  t.tailBsLength = m % rows;
  t.tailBshLength = t.tailBsLength * t.hLength;
  t.inputTailPos = t.loopRound * t.mainBshLength;
  return true;
}

}  // namespace AscendC
