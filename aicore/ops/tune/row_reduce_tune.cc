// RowReduce strategy selection:
// - Candidates: patterns::RowReduceCandidates, the heuristic first.
// - Model: a block of the full plan takes ceil(rows / blocks) rows in T = ceil(rows_per_block /
//   rows_per_tile) tiles (online: rows_per_block rows of 2 * ceil(cols / chunk) chunks). The slice
//   keeps the plan's blocks and gives each min(T, kModelTilesPerBlock) tiles (online: enough rows
//   for that many chunks); its modeled body time is scaled by full tiles over slice tiles and the
//   launch overhead added once. The blocks of the slice load HBM as the full launch does, so the
//   ranking holds, and the replay stays small (a 4096 x 4096 softmax models in milliseconds).
// - Measure: the plan for min(rows, what kMeasureOperandBytes of x holds) rows runs on the host;
//   its time is scaled by rows over measured rows.
#include "aicore/ops/tune/row_reduce_tune.h"

#include <algorithm>
#include <bit>

#include "aicore/ops/tune/run.h"

namespace aicore::ops::tune {

namespace {

using patterns::RowReduceKnobs;
using patterns::RowReducePlan;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The slice of `full` the model runs: its rows and the factor its body time is scaled by.
struct Slice {
  int64_t rows = 0;
  double scale = 1;
};

Slice ModelSlice(const RowReducePlan& full, const RowReduceKnobs& k) {
  const int64_t per_block = full.tiling.rows_per_block;
  Slice s;
  s.rows = full.tiling.rows;
  if (!k.online) {
    const int64_t tiles = CeilDiv(per_block, full.tiling.rows_per_tile);
    if (tiles <= kModelTilesPerBlock) return s;
    s.rows = full.block_dim * kModelTilesPerBlock * full.tiling.rows_per_tile;
    s.scale = static_cast<double>(tiles) / kModelTilesPerBlock;
    return s;
  }
  const int64_t chunks = 2 * CeilDiv(full.tiling.cols, full.tiling.chunk);
  const int64_t rows = std::max<int64_t>(1, CeilDiv(kModelTilesPerBlock, chunks));
  if (per_block <= rows) return s;
  s.rows = full.block_dim * rows;
  s.scale = static_cast<double>(per_block) / rows;
  return s;
}

std::vector<std::pair<std::string, int64_t>> Knobs(const RowReduceKnobs& k) {
  return {{"online", k.online ? 1 : 0},
          {"rows_per_tile", k.rows_per_tile},
          {"chunk", k.chunk},
          {"split", k.split},
          {"depth", k.depth}};
}

std::string DTypeKey(DType in, DType out, bool writes) {
  std::string s = OpDTypeName(in);
  if (writes && out != in) s += std::string("->") + OpDTypeName(out);
  return s;
}

}  // namespace

std::string RowReduceShapeClass(int64_t rows, int64_t cols, uint64_t max_ub_bytes) {
  std::string s = StrCat("cols=", cols, " rows<=", std::bit_ceil(static_cast<uint64_t>(rows)));
  if (max_ub_bytes > 0) s += StrCat(" ub<=", max_ub_bytes);
  return s;
}

RowReducePlan SelectRowReduce(const RowReduceKernelSpec& spec, int64_t rows, int64_t cols,
                              uint64_t max_ub_bytes, const arch::Chip& chip, const Request& request,
                              Decision* decision) {
  patterns::RowReduceStorage storage;
  storage.x_bytes = static_cast<uint32_t>(DTypeSize(spec.x_dtype));
  storage.x2_bytes = spec.has_x2 ? static_cast<uint32_t>(DTypeSize(spec.x2_dtype)) : 0;
  storage.y_bytes = spec.writes_y ? static_cast<uint32_t>(DTypeSize(spec.y_dtype)) : 0;
  storage.params = static_cast<uint32_t>(std::clamp(spec.params, 0, 2));
  if (request.mode == Mode::kOff && !request.explain && decision == nullptr) {
    return patterns::PlanRowReduce(rows, cols, chip, max_ub_bytes, storage);
  }
  const std::vector<RowReduceKnobs> knobs =
      patterns::RowReduceCandidates(rows, cols, chip, max_ub_bytes, storage);
  std::vector<Candidate> candidates;
  for (const RowReduceKnobs& k : knobs) {
    candidates.push_back({patterns::RowReduceKnobsLabel(k), Knobs(k)});
  }
  Key key;
  key.op = spec.op;
  key.shape_class = RowReduceShapeClass(rows, cols, max_ub_bytes);
  key.dtype = DTypeKey(spec.x_dtype, spec.y_dtype, spec.writes_y);
  key.chip = chip.name;

  // Scratch operands for the most rows any run needs, allocated at the first run.
  const uint64_t row_bytes = static_cast<uint64_t>(cols) * DTypeSize(spec.x_dtype);
  const int64_t measure_rows = std::min<int64_t>(
      rows, std::max<int64_t>(BudgetOf(chip).cores,
                              static_cast<int64_t>(kMeasureOperandBytes / row_bytes)));
  Scratch scratch;
  patterns::RowReduceTiling operands;
  bool allocated = false;
  auto operands_for = [&]() {
    if (allocated) return operands;
    int64_t most = request.mode == Mode::kMeasure || request.explain ? measure_rows : 0;
    for (const RowReduceKnobs& k : knobs) {
      most = std::max(most, ModelSlice(patterns::RealizeRowReduce(rows, cols, chip, k), k).rows);
    }
    const int64_t elems = most * cols;
    operands.x = scratch.Fill(spec.x_dtype, elems, -3.0f, 3.0f);
    operands.x_dtype = spec.x_dtype;
    if (spec.has_x2) {
      operands.x2 = scratch.Fill(spec.x2_dtype, elems, 0.0f, 1.0f);
      operands.x2_dtype = spec.x2_dtype;
    }
    if (spec.writes_y) {
      operands.y = scratch.Zeroed(static_cast<uint64_t>(elems) * DTypeSize(spec.y_dtype));
      operands.y_dtype = spec.y_dtype;
    }
    for (int i = 0; i < spec.params && i < 2; ++i) {
      operands.param[i] = scratch.Fill(spec.param_dtype, cols, 0.5f, 1.5f);
      operands.param_dtype[i] = spec.param_dtype;
    }
    for (int i = 0; i < spec.row_outputs && i < 2; ++i) {
      operands.row_out[i] = reinterpret_cast<float*>(scratch.Zeroed(most * 4));
    }
    operands.eps = spec.eps;
    allocated = true;
    return operands;
  };
  auto body_of = [&](const RowReducePlan& p) {
    patterns::RowReduceTiling t = operands_for();
    const patterns::RowReduceTiling& s = p.tiling;
    t.rows = s.rows;
    t.cols = s.cols;
    t.rows_per_block = s.rows_per_block;
    t.online = s.online;
    t.chunk = s.chunk;
    t.rows_per_tile = s.rows_per_tile;
    t.depth = s.depth;
    return [t, body = spec.body] { body(t); };
  };

  const Evaluate model = [&](size_t i, double* us) {
    const RowReducePlan full = patterns::RealizeRowReduce(rows, cols, chip, knobs[i]);
    const Slice slice = ModelSlice(full, knobs[i]);
    const RowReducePlan part = patterns::RealizeRowReduce(slice.rows, cols, chip, knobs[i]);
    ModeledTime t;
    Status s = ModelLaunch(spec.kernel, part.block_dim, chip, body_of(part), &t);
    if (!s.ok()) return s;
    *us = t.overhead_us + t.body_us * slice.scale;
    return Status();
  };
  const Evaluate measure = [&](size_t i, double* us) {
    const RowReducePlan part = patterns::RealizeRowReduce(measure_rows, cols, chip, knobs[i]);
    double t = 0;
    Status s = MeasureLaunch(spec.kernel, part.block_dim, chip, body_of(part), 3, &t);
    if (!s.ok()) return s;
    *us = t * static_cast<double>(rows) / static_cast<double>(measure_rows);
    return Status();
  };
  Decision d = Select(std::move(key), std::move(candidates), model, measure, request);
  const RowReducePlan plan = patterns::RealizeRowReduce(rows, cols, chip, knobs[d.chosen]);
  if (decision != nullptr) *decision = std::move(d);
  return plan;
}

}  // namespace aicore::ops::tune
