// The SoftMax family's shared types: SoftMaxShapeInfo, SoftmaxConfig, the SoftMaxTiling and
// LogSoftMaxTiling PODs (kernel tiling structs embed them), and the scratch layout that both the
// kernels and the host tiling functions compute, so a reported tmp size is what a kernel uses.
#pragma once

#include <cstdint>

#include "aicore/kernel/lib/detail/row_ops.h"

namespace AscendC {

// The [m, k] view of a softmax source: srcM rows (product of the non-last dims), srcK columns
// (the last dim padded to 32 bytes), oriSrcM/oriSrcK the unpadded extents. Zero = take from tiling.
struct SoftMaxShapeInfo {
  uint32_t srcM{0};
  uint32_t srcK{0};
  uint32_t oriSrcM{0};
  uint32_t oriSrcK{0};
};

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };

struct SoftmaxConfig {
  constexpr SoftmaxConfig() = default;
  constexpr explicit SoftmaxConfig(bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
  constexpr SoftmaxConfig(bool isCheckTilingIn, uint32_t oriSrcMIn, uint32_t oriSrcKIn)
      : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn) {}
  constexpr SoftmaxConfig(bool isCheckTilingIn, uint32_t oriSrcMIn, uint32_t oriSrcKIn,
                          SoftmaxMode modeIn)
      : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn), mode(modeIn) {}
  bool isCheckTiling = true;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
  SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
inline constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

namespace tiling {

// aicore's meaning of the documented fields (docs/api-coverage.md): the source is srcM x srcK;
// sum/max are outMaxM x outMaxK (outMaxK = 32 / sizeof(sum type)); the kernel works on chunks of
// splitM rows (splitK = srcK), rangeM full chunks and a tail of tailM rows; reduce* is one chunk's
// sum/max. splitM == 0 means the workspace given to the tiling function was below the minimum.
struct SoftMaxTiling {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t srcSize = 0;
  uint32_t outMaxM = 0;
  uint32_t outMaxK = 0;
  uint32_t outMaxSize = 0;
  uint32_t splitM = 0;
  uint32_t splitK = 0;
  uint32_t splitSize = 0;
  uint32_t reduceM = 0;
  uint32_t reduceK = 0;
  uint32_t reduceSize = 0;
  uint32_t rangeM = 0;
  uint32_t tailM = 0;
  uint32_t tailSplitSize = 0;
  uint32_t tailReduceSize = 0;
};

// Same fields and meanings as SoftMaxTiling.
struct LogSoftMaxTiling {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t srcSize = 0;
  uint32_t outMaxM = 0;
  uint32_t outMaxK = 0;
  uint32_t outMaxSize = 0;
  uint32_t splitM = 0;
  uint32_t splitK = 0;
  uint32_t splitSize = 0;
  uint32_t reduceM = 0;
  uint32_t reduceK = 0;
  uint32_t reduceSize = 0;
  uint32_t rangeM = 0;
  uint32_t tailM = 0;
  uint32_t tailSplitSize = 0;
  uint32_t tailReduceSize = 0;
};

}  // namespace tiling

using tiling::LogSoftMaxTiling;
using tiling::SoftMaxTiling;

namespace lib {

// Byte offsets of one chunk's scratch in sharedTmpBuffer (all 32-byte aligned): the float working
// copy of the rows (half sources only: a float source is worked on in dst), the row-helper
// scratch, three row blocks and the one-value-per-row vectors.
struct SoftMaxWorkspace {
  uint32_t work = 0;
  uint32_t reduce = 0;
  uint32_t pairs = 0;
  uint32_t blocks = 0;
  uint32_t stat[3] = {0, 0, 0};
  uint32_t vec = 0;
  uint32_t half_vec = 0;
  uint32_t total = 0;
};

// Returns the layout for `rows` rows of `k` columns of `src_size`-byte elements (every buffer is
// float; the half vector serves half sum/max and expMax).
constexpr SoftMaxWorkspace SoftMaxLayout(uint32_t rows, uint32_t k, uint32_t src_size) {
  SoftMaxWorkspace w;
  uint32_t at = 0;
  w.work = at;     at += src_size == 2 ? AlignUp(rows * k * 4, kBlockBytes) : 0;
  w.reduce = at;   at += ReduceScratchBytes(k);
  w.pairs = at;    at += PairBytes(rows);
  w.blocks = at;   at += PairBlockBytes(rows);
  for (uint32_t& s : w.stat) { s = at; at += rows * kBlockBytes; }
  w.vec = at;      at += StatVecBytes(rows);
  w.half_vec = at; at += StatHalfVecBytes(rows);
  w.total = at;
  return w;
}

// Returns the most rows (at most m, at least 1) whose layout fits `bytes`, or 0 if one row does
// not fit.
constexpr uint32_t SoftMaxRowsFitting(uint32_t m, uint32_t k, uint32_t src_size, uint32_t bytes) {
  if (m == 0 || SoftMaxLayout(1, k, src_size).total > bytes) return 0;
  uint32_t lo = 1, hi = m;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (SoftMaxLayout(mid, k, src_size).total <= bytes) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// Fills `t` (SoftMaxTiling or LogSoftMaxTiling) for an m x k source of `src_size`-byte elements,
// sum/max of `stat_size` bytes, and `bytes` of workspace.
template <typename Tiling>
constexpr void FillSoftMaxTiling(Tiling& t, uint32_t m, uint32_t k, uint32_t src_size,
                                 uint32_t stat_size, uint32_t bytes) {
  const uint32_t blk = kBlockBytes / (stat_size == 2 ? 2 : 4);
  const uint32_t split = SoftMaxRowsFitting(m, k, src_size, bytes);
  t = Tiling{};
  t.srcM = m; t.srcK = k; t.srcSize = m * k;
  t.outMaxM = m; t.outMaxK = blk; t.outMaxSize = m * blk;
  t.splitM = split; t.splitK = k; t.splitSize = split * k;
  t.reduceM = split; t.reduceK = blk; t.reduceSize = split * blk;
  t.rangeM = split ? m / split : 0;
  t.tailM = split ? m % split : 0;
  t.tailSplitSize = t.tailM * k;
  t.tailReduceSize = t.tailM * blk;
}

}  // namespace lib
}  // namespace AscendC

using AscendC::tiling::LogSoftMaxTiling;
using AscendC::tiling::SoftMaxTiling;
