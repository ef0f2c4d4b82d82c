// LayerNorm/LayerNormGrad/LayerNormGradBeta/RmsNorm host tiling: sizes from the layouts in
// norm_utils.h (lib::NormLayout, NormGradLayout, NormGradBetaLayout), which the kernels carve.
#include "aicore/runtime/tiling/norm_tiling.h"

#include <algorithm>
#include <bit>

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

namespace {

// The [B, S, storageH, originH] geometry every gradient API takes.
struct Bsh {
  uint32_t b, s, h, ori_h;
  uint32_t m() const { return b * s; }
};
Bsh ReadBsh(const TensorShape& s) {
  Bsh g{U32(s.GetDim(0)), U32(s.GetDim(1)), U32(s.GetDim(2)), 0};
  g.ori_h = s.GetDimNum() > 3 ? U32(s.GetDim(3)) : g.h;
  return g;
}

template <typename Layout>
void GradMaxMin(uint32_t m, uint32_t h, Layout layout, uint32_t& max, uint32_t& min) {
  if (m == 0 || h == 0) {
    max = min = 0;
    return;
  }
  max = layout(m).total;
  min = layout(std::min(m, 16u)).total;
}

}  // namespace

void GetLayerNormGradMaxMinTmpSize(const TensorShape& s, uint32_t typeSize, bool,
                                   uint32_t& maxValue, uint32_t& minValue) {
  const Bsh g = ReadBsh(s);
  GradMaxMin(g.m(), g.h, [&](uint32_t r) { return lib::NormGradLayout(r, g.h, typeSize); },
             maxValue, minValue);
}

void GetLayerNormGradNDTilingInfo(const TensorShape& s, uint32_t stackBufferSize,
                                  uint32_t typeSize, bool, LayerNormGradTiling& t) {
  t = LayerNormGradTiling{};
  const Bsh g = ReadBsh(s);
  t.stackBufferSize = stackBufferSize;
  t.bLength = g.b;
  t.sLength = g.s;
  t.hLength = g.h;
  t.originalHLength = g.ori_h;
  auto layout = [&](uint32_t r) { return lib::NormGradLayout(r, g.h, typeSize); };
  const uint32_t m = g.m();
  const uint32_t rows = g.h ? lib::GradRowsFitting(m, stackBufferSize, layout) : 0;
  const lib::NormGradWorkspace w = layout(std::max(rows, 1u));
  t.oneCalSize = rows;
  t.nohCalSize = rows * g.h;
  t.loopNum = rows ? m / rows : 0;
  t.tailSize = rows ? m % rows : 0;
  t.nohTailSize = t.tailSize * g.h;
  const uint32_t row_floats = rows * g.h;
  const uint32_t block_floats = lib::AlignUp(rows, lib::kFloatsPerBlock) * lib::kFloatsPerBlock;
  t.tmpTensorBSHPos = w.dy / 4;
  t.tmpTensorBSHSize = typeSize == 2 ? 2 * row_floats : 0;
  t.x1TensorPos = w.x2 / 4;
  t.x1TensorSize = typeSize == 2 ? row_floats : 0;
  t.x2TensorPos = w.pdxl / 4;
  t.x2TensorSize = row_floats;
  t.x3TensorPos = w.acc / 4;
  t.x3TensorSize = typeSize == 2 ? row_floats : 0;
  t.pdVarTensorPos = w.stat[2] / 4;
  t.pdVarTensorSize = block_floats;
  t.pdMeanTensorPos = w.stat[3] / 4;
  t.pdMeanTensorSize = block_floats;
  t.tmpTensorPos = w.stat[0] / 4;
  t.tmpTensorSize = block_floats;
  t.tmpTensor1Pos = w.stat[1] / 4;
  t.tmpTensor1Size = block_floats;
  t.tmpTensor2Pos = w.stat[5] / 4;
  t.tmpTensor2Size = block_floats;
  const float inv_h = g.ori_h ? 1.0f / static_cast<float>(g.ori_h) : 0.0f;
  t.lastDimValueBack = std::bit_cast<uint32_t>(inv_h);
  t.lastDimValueBackMulTwo = std::bit_cast<uint32_t>(2.0f * inv_h);
}

void GetLayerNormGradBetaMaxMinTmpSize(const TensorShape& s, uint32_t typeSize, bool,
                                       uint32_t& maxValue, uint32_t& minValue) {
  const Bsh g = ReadBsh(s);
  GradMaxMin(g.m(), g.h, [&](uint32_t r) { return lib::NormGradBetaLayout(r, g.h, typeSize); },
             maxValue, minValue);
}

void GetLayerNormGradBetaNDTilingInfo(const TensorShape& s, uint32_t stackBufferSize,
                                      uint32_t typeSize, bool, LayerNormGradBetaTiling& t) {
  t = LayerNormGradBetaTiling{};
  const Bsh g = ReadBsh(s);
  t.stackBufferSize = stackBufferSize;
  t.bLength = g.b;
  t.sLength = g.s;
  t.hLength = g.h;
  t.originalHLength = g.ori_h;
  const uint32_t m = g.m();
  t.bsLength = m;
  t.bshLength = m * g.h;
  auto layout = [&](uint32_t r) { return lib::NormGradBetaLayout(r, g.h, typeSize); };
  const uint32_t rows = g.h ? lib::GradRowsFitting(m, stackBufferSize, layout) : 0;
  const lib::NormGradBetaWorkspace w = layout(std::max(rows, 1u));
  t.numberOfTmpBuf = typeSize == 2 ? 5 : 3;
  t.bsCurLength = rows;
  t.bshCurLength = rows * g.h;
  t.oneCalSize = t.bshCurLength;
  t.loopRound = rows ? m / rows : 0;
  t.bsTailSize = rows ? m % rows : 0;
  t.inputTailSize = t.bsTailSize * g.h;
  t.inputTailPos = t.loopRound * t.bshCurLength;
  t.gammaTempTensorPos = w.gamma / 4;
  t.betaTempTensorPos = w.beta / 4;
  t.inputDyTmpTensorPos = w.dy / 4;
  t.resForGammaTmpTensorPos = w.res / 4;
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
