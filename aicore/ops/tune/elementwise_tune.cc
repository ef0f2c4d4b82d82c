// Elementwise strategy selection:
// - Candidates: patterns::ElementwiseCandidates, the heuristic first.
// - Model: a block of the full plan walks T = ceil(per_block / tile) tiles; the slice keeps the
//   plan's blocks and gives each min(T, kModelTilesPerBlock) tiles; its modeled body time is
//   scaled by T over the slice's tiles and the launch overhead added once.
// - Measure: min(total, what kMeasureOperandBytes of the widest operand holds) elements run on
//   the host; the time is scaled by total over measured elements.
#include "aicore/ops/tune/elementwise_tune.h"

#include <algorithm>
#include <bit>

#include "aicore/ops/framework/operator.h"
#include "aicore/ops/tune/run.h"

namespace aicore::ops::tune {

namespace {

using patterns::ElementwiseKnobs;
using patterns::ElementwiseTiling;

std::vector<std::pair<std::string, int64_t>> Knobs(const ElementwiseKnobs& k) {
  return {{"tile", k.tile}, {"depth", k.depth}, {"split", k.split}};
}

}  // namespace

std::string ElementwiseShapeClass(int64_t total) {
  return StrCat("elements<=", std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(total, 1))));
}

uint32_t SelectElementwise(const ElementwiseKernelSpec& spec, int64_t total, const arch::Chip& chip,
                           const Request& request, ElementwiseTiling* tiling, Decision* decision) {
  if ((request.mode == Mode::kOff && !request.explain && decision == nullptr) || total == 0) {
    return patterns::RealizeElementwise(
        total, patterns::HeuristicElementwiseKnobs(spec.inputs, spec.temps, chip), chip, tiling);
  }
  const std::vector<ElementwiseKnobs> knobs =
      patterns::ElementwiseCandidates(total, spec.inputs, spec.temps, chip);
  std::vector<Candidate> candidates;
  for (const ElementwiseKnobs& k : knobs) {
    candidates.push_back({patterns::ElementwiseKnobsLabel(k), Knobs(k)});
  }
  Key key;
  key.op = spec.op;
  key.shape_class = ElementwiseShapeClass(total);
  key.dtype = OpDTypeName(spec.in_dtype[0]);
  for (int i = 1; i < spec.inputs; ++i) key.dtype += StrCat(",", OpDTypeName(spec.in_dtype[i]));
  if (spec.out_dtype != spec.in_dtype[0] || spec.inputs > 1) {
    key.dtype += StrCat("->", OpDTypeName(spec.out_dtype));
  }
  key.chip = chip.name;

  size_t widest = DTypeSize(spec.out_dtype);
  for (int i = 0; i < spec.inputs; ++i) widest = std::max(widest, DTypeSize(spec.in_dtype[i]));
  const int64_t measure_total = std::min<int64_t>(
      total, std::max<int64_t>(patterns::kMinBlockElements,
                               static_cast<int64_t>(kMeasureOperandBytes / widest)));
  // The slice of candidate i: elements and the factor its body time is scaled by.
  auto slice_of = [&](size_t i, double* scale) {
    ElementwiseTiling full;
    const uint32_t blocks = patterns::RealizeElementwise(total, knobs[i], chip, &full);
    const int64_t tiles = (full.per_block + full.tile - 1) / full.tile;
    *scale = 1;
    if (tiles <= kModelTilesPerBlock) return total;
    *scale = static_cast<double>(tiles) / kModelTilesPerBlock;
    return static_cast<int64_t>(blocks) * kModelTilesPerBlock * full.tile;
  };
  Scratch scratch;
  ElementwiseTiling operands;
  bool allocated = false;
  auto operands_for = [&]() {
    if (allocated) return operands;
    int64_t most = request.mode == Mode::kMeasure || request.explain ? measure_total : 0;
    for (size_t i = 0; i < knobs.size(); ++i) {
      double scale;
      most = std::max(most, slice_of(i, &scale));
    }
    for (int i = 0; i < spec.inputs; ++i) {
      operands.in[i] = scratch.Fill(spec.in_dtype[i], most, -3.0f, 3.0f);
      operands.in_dtype[i] = spec.in_dtype[i];
    }
    operands.out = scratch.Zeroed(static_cast<uint64_t>(most) * DTypeSize(spec.out_dtype));
    operands.out_dtype = spec.out_dtype;
    std::copy(spec.scalar, spec.scalar + 4, operands.scalar);
    allocated = true;
    return operands;
  };
  auto run_on = [&](size_t i, int64_t elems, uint32_t* blocks) {
    ElementwiseTiling t = operands_for();
    *blocks = patterns::RealizeElementwise(elems, knobs[i], chip, &t);
    return [t, body = spec.body] { body(t); };
  };
  const Evaluate model = [&](size_t i, double* us) {
    double scale = 1;
    const int64_t elems = slice_of(i, &scale);
    uint32_t blocks = 1;
    auto body = run_on(i, elems, &blocks);
    ModeledTime t;
    Status s = ModelLaunch(spec.kernel, blocks, chip, std::move(body), &t);
    if (!s.ok()) return s;
    *us = t.overhead_us + t.body_us * scale;
    return Status();
  };
  const Evaluate measure = [&](size_t i, double* us) {
    uint32_t blocks = 1;
    auto body = run_on(i, measure_total, &blocks);
    double t = 0;
    Status s = MeasureLaunch(spec.kernel, blocks, chip, body, 3, &t);
    if (!s.ok()) return s;
    *us = t * static_cast<double>(total) / static_cast<double>(measure_total);
    return Status();
  };
  Decision d = Select(std::move(key), std::move(candidates), model, measure, request);
  const uint32_t blocks = patterns::RealizeElementwise(total, knobs[d.chosen], chip, tiling);
  if (decision != nullptr) *decision = std::move(d);
  return blocks;
}

}  // namespace aicore::ops::tune
