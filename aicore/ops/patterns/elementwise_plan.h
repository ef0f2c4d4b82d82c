// The host half of ElementwisePipeline: the tile, the queue depth and the split of the flattened
// elements over blocks, from the chip's UB budget; and the candidate plans strategy selection
// (aicore/ops/tune/) ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/ops/patterns/elementwise_pipeline.h"

namespace aicore::ops::patterns {

// What makes an elementwise plan, independent of the element count.
struct ElementwiseKnobs {
  uint32_t tile = 64;  // elements per UB tile (a multiple of 64; capped by a block's elements)
  uint32_t depth = 2;  // queue buffers (1 or 2)
  uint32_t split = 1;  // elements go over at most max(1, vector cores / split) blocks
  bool operator==(const ElementwiseKnobs&) const = default;
};

// Fewer elements than this per block cost more in launch overhead than they save.
inline constexpr int64_t kMinBlockElements = 4096;

// Returns the heuristic's knobs for a pattern with `inputs` operands and `temps` scratch tiles:
// the largest tile the UB budget holds double-buffered, split 1.
ElementwiseKnobs HeuristicElementwiseKnobs(int inputs, int temps, const arch::Chip& chip);
// Fills `tiling`'s total, per_block, tile and depth and returns the block count for `total`
// elements (>= 0) under `knobs`: blocks get equal 64-element-aligned ranges of at least
// kMinBlockElements each.
uint32_t RealizeElementwise(int64_t total, const ElementwiseKnobs& knobs, const arch::Chip& chip,
                            ElementwiseTiling* tiling);
// Returns the candidate knobs, the heuristic's first: depth 2 with the budget's tile, a half and
// a quarter of it, depth 1 with its (longer) budget tile and a half of it, each over all vector
// cores and over half of them. Duplicates are dropped.
std::vector<ElementwiseKnobs> ElementwiseCandidates(int64_t total, int inputs, int temps,
                                                    const arch::Chip& chip);
// Returns "tile=8192 depth=2 split=1".
std::string ElementwiseKnobsLabel(const ElementwiseKnobs& knobs);

}  // namespace aicore::ops::patterns
