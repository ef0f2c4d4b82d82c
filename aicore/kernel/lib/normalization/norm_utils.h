// Shared pieces of the normalization APIs: the tiling PODs (LayerNormTiling,
// LayerNormSeparateTiling, RmsNormTiling), LayerNormPara/LayerNormConfig, and the scratch layout
// that kernels and host tiling functions compute alike.
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

}  // namespace tiling

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

}  // namespace lib
}  // namespace AscendC

using AscendC::tiling::LayerNormSeparateTiling;
using AscendC::tiling::LayerNormTiling;
using AscendC::tiling::RmsNormTiling;
