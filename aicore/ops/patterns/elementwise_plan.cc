// Elementwise planning:
// - tile = the UB budget / the bytes a tile element costs at the queue depth, rounded down to 64
//   elements, and at most a block's elements.
// - blocks get equal 64-element-aligned ranges, at least kMinBlockElements each, over at most
//   vector cores / split blocks.
#include "aicore/ops/patterns/elementwise_plan.h"

#include <algorithm>

#include "aicore/ops/framework/operator.h"

namespace aicore::ops::patterns {

namespace {

uint32_t BudgetTile(int inputs, int temps, int depth, const arch::Chip& chip) {
  const uint64_t per_elem = ElementwiseBytesPerElement(inputs, temps, depth);
  return static_cast<uint32_t>(
      std::max<uint64_t>(64, BudgetOf(chip).ub_bytes / per_elem / 64 * 64));
}

}  // namespace

ElementwiseKnobs HeuristicElementwiseKnobs(int inputs, int temps, const arch::Chip& chip) {
  return {BudgetTile(inputs, temps, 2, chip), 2, 1};
}

uint32_t RealizeElementwise(int64_t total, const ElementwiseKnobs& knobs, const arch::Chip& chip,
                            ElementwiseTiling* t) {
  const int64_t cores = std::max<uint32_t>(1, BudgetOf(chip).cores / std::max(1u, knobs.split));
  int64_t per_block = (total + cores - 1) / cores;
  per_block = std::max<int64_t>(kMinBlockElements, (per_block + 63) / 64 * 64);
  t->total = total;
  t->per_block = per_block;
  t->tile = static_cast<uint32_t>(
      std::min<uint64_t>(knobs.tile, static_cast<uint64_t>((per_block + 63) / 64 * 64)));
  t->depth = knobs.depth;
  return static_cast<uint32_t>(std::max<int64_t>(1, (total + per_block - 1) / per_block));
}

std::vector<ElementwiseKnobs> ElementwiseCandidates(int64_t total, int inputs, int temps,
                                                    const arch::Chip& chip) {
  std::vector<ElementwiseKnobs> out;
  auto add = [&](ElementwiseKnobs k) {
    k.tile = std::max<uint32_t>(64, k.tile / 64 * 64);
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  add(HeuristicElementwiseKnobs(inputs, temps, chip));
  const uint32_t t2 = BudgetTile(inputs, temps, 2, chip), t1 = BudgetTile(inputs, temps, 1, chip);
  std::vector<uint32_t> splits = {1};
  if (BudgetOf(chip).cores >= 2 && total > 2 * kMinBlockElements) splits.push_back(2);
  for (uint32_t split : splits) {
    for (uint32_t tile : {t2, t2 / 2, t2 / 4}) add({tile, 2, split});
    for (uint32_t tile : {t1, t1 / 2}) add({tile, 1, split});
  }
  return out;
}

std::string ElementwiseKnobsLabel(const ElementwiseKnobs& k) {
  return "tile=" + std::to_string(k.tile) + " depth=" + std::to_string(k.depth) +
         " split=" + std::to_string(k.split);
}

}  // namespace aicore::ops::patterns
