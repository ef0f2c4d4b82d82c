// Shared pieces of the normalization APIs: the tiling PODs (LayerNormTiling,
// LayerNormSeparateTiling, RmsNormTiling, LayerNormGradTiling, LayerNormGradBetaTiling),
// LayerNormPara/LayerNormConfig, and the scratch layouts that kernels and host tiling functions
// compute alike.
#pragma once

#include <algorithm>
#include <cstdint>

#include "aicore/kernel/lib/detail/row_ops.h"

namespace AscendC {

struct LayerNormConfig {
  bool isNoBeta = false;
  bool isNoGamma = false;
  bool isOnlyOutput = false;  // must stay false (documented)
  bool isOutputRstd = true;   // false: the rstd output gets the variance instead
};
inline constexpr LayerNormConfig LNCFG_NORM = {false, false, false, true};

// The [A, R] form's geometry: A rows of rLength values, rLengthWithPadding apart.
struct LayerNormPara {
  uint32_t aLength;
  uint32_t rLength;
  uint32_t rLengthWithPadding;
};

namespace tiling {

// aicore's meaning of the documented fields (docs/api-coverage.md): the source is
// bLength x sLength rows of hLength (padded) values, originalHLength of them real;
// bsCurLength rows are normalized per chunk (bshCurLength = bsCurLength * hLength), loopRound
// full chunks then a tail of meanVarTailSize rows from row meanVarTailPos. tmpBufSize is the
// scratch in floats, oneTmpSize one chunk's rows in floats; the *Pos fields are float offsets of
// the scratch regions. lastDimValueBack = 1 / originalHLength.
struct LayerNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  uint32_t inputXSize = 0;
  uint32_t meanVarSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t meanTmpTensorPos = 0;
  uint32_t meanTmpTensorSize = 0;
  uint32_t varianceTmpTensorPos = 0;
  uint32_t varianceTmpTensorSize = 0;
  uint32_t tmpBufSize = 0;
  uint32_t oneTmpSize = 0;
  uint32_t firstTmpStartPos = 0;
  uint32_t secondTmpStartPos = 0;
  uint32_t thirdTmpStartPos = 0;
  uint32_t loopRound = 0;
  uint32_t inputRoundSize = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t meanVarRoundSize = 0;
  uint32_t meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0;
  uint32_t bshCurLength = 0;
  uint32_t bsCurLength = 0;
  float lastDimValueBack = 0.0f;
};

// The [A, R] form; same meanings with aLength rows of rLength values (rHeadLength = the padded
// row length), aCurLength rows per chunk, k2Rec = k2RRec = rValueBack = 1 / rLength.
struct LayerNormSeparateTiling {
  uint32_t aLength = 0;
  uint32_t rLength = 0;
  uint32_t halfAddRepeatTimes = 0;
  uint32_t rHeadLength = 0;
  float k2Rec = 0.0f;
  float k2RRec = 0.0f;
  uint32_t inputXSize = 0;
  uint32_t meanVarSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t varianceTmpTensorPos = 0;
  uint32_t varianceTmpTensorSize = 0;
  uint32_t tmpBufSize = 0;
  uint32_t oneTmpSize = 0;
  uint32_t firstTmpStartPos = 0;
  uint32_t secondTmpStartPos = 0;
  uint32_t thirdTmpStartPos = 0;
  uint32_t loopRound = 0;
  uint32_t inputRoundSize = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t meanVarRoundSize = 0;
  uint32_t meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0;
  uint32_t arCurLength = 0;
  uint32_t aCurLength = 0;
  float rValueBack = 0.0f;
};

// [B, S, H] with mainBsLength rows per chunk (mainBshLength values), loopRound full chunks, a
// tail of tailBsLength rows from element inputTailPos; reciprocalOfHLength = 1 / originalHLength.
struct RmsNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  float reciprocalOfHLength = 0.0f;
  uint32_t mainBshLength = 0;
  uint32_t mainBsLength = 0;
  uint32_t mainBsLengthAlign = 0;
  uint32_t loopRound = 0;
  uint32_t inputTailPos = 0;
  uint32_t tailBshLength = 0;
  uint32_t tailBsLength = 0;
};

// LayerNormGrad over bLength x sLength rows of hLength (padded) values, originalHLength real:
// oneCalSize rows per chunk (nohCalSize = oneCalSize * hLength), loopNum full chunks then a tail
// of tailSize rows (nohTailSize values). stackBufferSize is the scratch in bytes; the *Pos/*Size
// pairs are float offsets and lengths of the scratch regions (tmpTensorBSH: the float copy of
// the rows, x1/x2/x3: the working rows, tmpTensor*: the per-row blocks);
// lastDimValueBack / lastDimValueBackMulTwo hold the bits of the floats 1/H and 2/H.
struct LayerNormGradTiling {
  uint32_t stackBufferSize = 0;
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  uint32_t oneCalSize = 0;
  uint32_t nohCalSize = 0;
  uint32_t loopNum = 0;
  uint32_t tailSize = 0;
  uint32_t nohTailSize = 0;
  uint32_t tmpTensorBSHPos = 0;
  uint32_t tmpTensorBSHSize = 0;
  uint32_t pdVarTensorPos = 0;
  uint32_t pdVarTensorSize = 0;
  uint32_t pdMeanTensorPos = 0;
  uint32_t pdMeanTensorSize = 0;
  uint32_t x1TensorPos = 0;
  uint32_t x1TensorSize = 0;
  uint32_t x2TensorPos = 0;
  uint32_t x2TensorSize = 0;
  uint32_t x3TensorPos = 0;
  uint32_t x3TensorSize = 0;
  uint32_t tmpTensorPos = 0;
  uint32_t tmpTensorSize = 0;
  uint32_t tmpTensor1Pos = 0;
  uint32_t tmpTensor1Size = 0;
  uint32_t tmpTensor2Pos = 0;
  uint32_t tmpTensor2Size = 0;
  uint32_t lastDimValueBack = 0;
  uint32_t lastDimValueBackMulTwo = 0;
};

// LayerNormGradBeta over bsLength rows (bshLength values) of hLength: bsCurLength rows per chunk
// (bshCurLength values, oneCalSize = bshCurLength), loopRound full chunks then bsTailSize rows
// (inputTailSize values from element inputTailPos). stackBufferSize is the scratch in bytes; the
// *TempTensorPos fields are float offsets of the gamma/beta accumulators and the row copies.
struct LayerNormGradBetaTiling {
  uint32_t stackBufferSize = 0;
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  uint32_t bshLength = 0;
  uint32_t bsLength = 0;
  uint32_t oneCalSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t loopRound = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t bsTailSize = 0;
  uint32_t bshCurLength = 0;
  uint32_t bsCurLength = 0;
  uint32_t gammaTempTensorPos = 0;
  uint32_t betaTempTensorPos = 0;
  uint32_t inputDyTmpTensorPos = 0;
  uint32_t resForGammaTmpTensorPos = 0;
  uint32_t reserved = 0;
};

}  // namespace tiling

using tiling::LayerNormGradBetaTiling;
using tiling::LayerNormGradTiling;
using tiling::LayerNormSeparateTiling;
using tiling::LayerNormTiling;
using tiling::RmsNormTiling;

namespace lib {

// Byte offsets of one chunk's scratch: the float copy of the rows and of gamma/beta (half sources
// only: float data is read in place), the working rows (x - mean, or x^2), the row-helper
// scratch, two row blocks and the one-value-per-row vector.
struct NormWorkspace {
  uint32_t x = 0, d = 0, gamma = 0, beta = 0, reduce = 0, pairs = 0, blocks = 0;
  uint32_t stat[2] = {0, 0};
  uint32_t vec = 0;
  uint32_t total = 0;
};

// The layout for `rows` rows of k values of `src_size` bytes; `layer_norm` adds beta.
constexpr NormWorkspace NormLayout(uint32_t rows, uint32_t k, uint32_t src_size,
                                   bool layer_norm) {
  const bool widen = src_size == 2;
  NormWorkspace w;
  uint32_t at = 0;
  w.x = at;      at += widen ? AlignUp(rows * k * 4, kBlockBytes) : 0;
  w.d = at;      at += AlignUp(rows * k * 4, kBlockBytes);
  w.gamma = at;  at += widen ? AlignUp(k * 4, kBlockBytes) : 0;
  w.beta = at;   at += widen && layer_norm ? AlignUp(k * 4, kBlockBytes) : 0;
  w.reduce = at; at += ReduceScratchBytes(k);
  w.pairs = at;  at += PairBytes(rows);
  w.blocks = at; at += PairBlockBytes(rows);
  for (uint32_t& s : w.stat) { s = at; at += rows * kBlockBytes; }
  w.vec = at;    at += StatVecBytes(rows);
  w.total = at;
  return w;
}

// LayerNorm's rows per chunk are all m rows or a multiple of 16, so every chunk's
// one-value-per-row outputs start on a 32-byte boundary; RmsNorm has none and takes any count.
constexpr uint32_t NormRowStep(bool layer_norm) { return layer_norm ? 16 : 1; }

constexpr uint32_t NormMinRows(uint32_t m, bool layer_norm) {
  return std::min(m, NormRowStep(layer_norm));
}

// Returns the most rows per chunk whose layout fits `bytes` (0 if NormMinRows does not).
constexpr uint32_t NormRowsFitting(uint32_t m, uint32_t k, uint32_t src_size, bool layer_norm,
                                   uint32_t bytes) {
  const uint32_t step = NormRowStep(layer_norm);
  if (m == 0 || NormLayout(NormMinRows(m, layer_norm), k, src_size, layer_norm).total > bytes) {
    return 0;
  }
  if (NormLayout(m, k, src_size, layer_norm).total <= bytes) return m;
  uint32_t lo = 1, hi = m / step;  // in steps
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (NormLayout(mid * step, k, src_size, layer_norm).total <= bytes) lo = mid; else hi = mid - 1;
  }
  return lo * step;
}

// Byte offsets of one LayerNormGrad chunk's scratch: float copies of dy and x (half sources
// only), three working row buffers (x - mean, dy * gamma, the pd_x accumulation; float sources
// write the last and the first straight to outputPdX and resForGamma), the float gamma (half
// only), the row-helper scratch, six row blocks (mean, rstd, the three row sums, a coefficient)
// and the one-value-per-row vector.
struct NormGradWorkspace {
  uint32_t dy = 0, x = 0, x2 = 0, pdxl = 0, acc = 0, gamma = 0, reduce = 0, pairs = 0, blocks = 0;
  uint32_t stat[6] = {0, 0, 0, 0, 0, 0};
  uint32_t vec = 0;
  uint32_t total = 0;
};

constexpr NormGradWorkspace NormGradLayout(uint32_t rows, uint32_t k, uint32_t src_size) {
  const bool widen = src_size == 2;
  const uint32_t row_bytes = AlignUp(rows * k * 4, kBlockBytes);
  NormGradWorkspace w;
  uint32_t at = 0;
  w.dy = at;     at += widen ? row_bytes : 0;
  w.x = at;      at += widen ? row_bytes : 0;
  w.x2 = at;     at += widen ? row_bytes : 0;
  w.pdxl = at;   at += row_bytes;
  w.acc = at;    at += widen ? row_bytes : 0;
  w.gamma = at;  at += widen ? AlignUp(k * 4, kBlockBytes) : 0;
  w.reduce = at; at += ReduceScratchBytes(k);
  w.pairs = at;  at += PairBytes(rows);
  w.blocks = at; at += PairBlockBytes(rows);
  for (uint32_t& s : w.stat) { s = at; at += AlignUp(rows, kFloatsPerBlock) * kBlockBytes; }
  w.vec = at;    at += StatVecBytes(rows);
  w.total = at;
  return w;
}

// Byte offsets of one LayerNormGradBeta chunk's scratch: the gamma and beta accumulators (k
// floats each), float copies of dy and resForGamma (half only) and the product rows.
struct NormGradBetaWorkspace {
  uint32_t gamma = 0, beta = 0, dy = 0, res = 0, prod = 0;
  uint32_t total = 0;
};

constexpr NormGradBetaWorkspace NormGradBetaLayout(uint32_t rows, uint32_t k, uint32_t src_size) {
  const bool widen = src_size == 2;
  const uint32_t row_bytes = AlignUp(rows * k * 4, kBlockBytes);
  NormGradBetaWorkspace w;
  uint32_t at = 0;
  w.gamma = at; at += AlignUp(k * 4, kBlockBytes);
  w.beta = at;  at += AlignUp(k * 4, kBlockBytes);
  w.dy = at;    at += widen ? row_bytes : 0;
  w.res = at;   at += widen ? row_bytes : 0;
  w.prod = at;  at += row_bytes;
  w.total = at;
  return w;
}

// Rows per chunk of the two gradient APIs: all m rows or a multiple of 16 (as LayerNorm's), so
// a chunk's per-row inputs (mean, variance) start on a 32-byte boundary.
template <typename Layout>
constexpr uint32_t GradRowsFitting(uint32_t m, uint32_t bytes, Layout layout) {
  constexpr uint32_t kStep = 16;
  if (m == 0 || layout(std::min(m, kStep)).total > bytes) return 0;
  if (layout(m).total <= bytes) return m;
  uint32_t lo = 1, hi = m / kStep;  // in steps
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (layout(mid * kStep).total <= bytes) lo = mid; else hi = mid - 1;
  }
  return lo * kStep;
}

}  // namespace lib
}  // namespace AscendC

using AscendC::tiling::LayerNormGradBetaTiling;
using AscendC::tiling::LayerNormGradTiling;
using AscendC::tiling::LayerNormSeparateTiling;
using AscendC::tiling::LayerNormTiling;
using AscendC::tiling::RmsNormTiling;
