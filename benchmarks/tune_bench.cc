// Strategy selection against the heuristic: for softmax fp32 4096x4096 and layer_norm fp32
// 8192x4096 on ascend910b1, the plan each AICORE_TUNE mode (off, model, measure) chooses, run on
// the host (rows ops/tune/<op>/<mode>: GB/s over the operator's bytes; ratio_to_off = off's
// host time over this plan's, the two alternating in one loop) with the modeled ascend910b1
// time of that plan and of off's (the tuner's slice model scaled to the whole shape). Tuning
// runs once per (op, mode) before the timed loop, with an in-memory cache so every run tunes
// afresh.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aicore/ops/ops.h"
#include "aicore/ops/tune/cache.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"

namespace {

using aicore::DType;
namespace ops = aicore::ops;
namespace tune = aicore::ops::tune;

const aicore::arch::Chip& Chip() {
  static const aicore::arch::Chip chip = aicore::arch::LoadChip("ascend910b1");
  return chip;
}

// fp32 device memory of `n` elements filled with a fixed pattern.
struct Buffer {
  explicit Buffer(int64_t n) : bytes(static_cast<size_t>(n) * 4) {
    data = aicore::rt::DeviceMalloc(bytes, nullptr);
    float* f = static_cast<float*>(data);
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(std::sin(0.001 * i) * 3);
  }
  ~Buffer() { aicore::rt::DeviceFree(data); }
  size_t bytes;
  void* data;
};

// The modeled time of every candidate of one operator (an explain selection), by label.
using Modeled = std::map<std::string, double>;

template <class Args>
Modeled ModelAll(const Args& args) {
  tune::Cache memory("");
  tune::Decision d;
  ops::Plan(args, Chip(), tune::Request{tune::Mode::kModel, true, &memory}, &d);
  Modeled m;
  for (size_t i = 0; i < d.candidates.size(); ++i) m[d.candidates[i].label] = d.evals[i].modeled_us;
  return m;
}

// Runs the plan `mode` chooses, alternating with the heuristic's (off's) plan in every iteration
// (in ABBA order) so both see the same machine load; the iteration time is the chosen plan's.
template <class Args>
void RunMode(benchmark::State& state, const Args& args, tune::Mode mode, const Modeled& modeled,
             double bytes) {
  tune::Cache memory("");
  tune::Decision d, off_d;
  const auto plan = ops::Plan(args, Chip(), tune::Request{mode, false, &memory}, &d);
  const auto off = ops::Plan(args, Chip(), tune::Request{tune::Mode::kOff, false, &memory}, &off_d);
  const uint64_t ws_bytes = std::max(plan.workspace_bytes, off.workspace_bytes);
  void* ws = ws_bytes > 0 ? aicore::rt::DeviceMalloc(ws_bytes, nullptr) : nullptr;
  auto run = [&](const auto& p) {
    const auto t0 = std::chrono::steady_clock::now();
    aicore::Status s = ops::Launch(args, p, ws, nullptr);
    if (s.ok()) s = aicore::rt::StreamSynchronize(nullptr);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  run(plan);  // first touch of the outputs and the workspace
  run(off);
  double chosen_s = 0, off_s = 0;
  bool off_first = false;  // ABBA order: neither plan always runs right after the other
  for (auto _ : state) {
    const double o1 = off_first ? run(off) : 0;
    const double t = run(plan);
    const double o2 = off_first ? 0 : run(off);
    state.SetIterationTime(t);
    chosen_s += t;
    off_s += o1 + o2;
    off_first = !off_first;
  }
  if (ws != nullptr) aicore::rt::DeviceFree(ws);
  const std::string& label = d.candidates[d.chosen].label;
  state.SetLabel(label + (d.chosen == 0 ? " (the heuristic's)" : ""));
  state.counters["bytes_per_s"] =
      benchmark::Counter(bytes * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["off_ms"] = off_s / std::max<double>(1, state.iterations()) * 1e3;
  state.counters["ratio_to_off"] = chosen_s > 0 ? off_s / chosen_s : 0;
  auto it = modeled.find(label);
  state.counters["modeled_us"] = it == modeled.end() ? std::nan("") : it->second;
  auto off_it = modeled.find(off_d.candidates.empty() ? "" : off_d.candidates[0].label);
  state.counters["off_modeled_us"] = off_it == modeled.end() ? std::nan("") : off_it->second;
}

void Softmax(benchmark::State& state, tune::Mode mode) {
  constexpr int64_t kRows = 4096, kCols = 4096;
  Buffer x(kRows * kCols), y(kRows * kCols);
  ops::SoftmaxArgs a;
  a.self = ops::DenseRef(x.data, DType::kF32, {kRows, kCols});
  a.out = ops::DenseRef(y.data, DType::kF32, {kRows, kCols});
  static const Modeled modeled = ModelAll(a);
  RunMode(state, a, mode, modeled, 2.0 * x.bytes);
}

void LayerNorm(benchmark::State& state, tune::Mode mode) {
  constexpr int64_t kRows = 8192, kCols = 4096;
  Buffer x(kRows * kCols), y(kRows * kCols), gamma(kCols), beta(kCols), mean(kRows), rstd(kRows);
  ops::LayerNormArgs a;
  a.input = ops::DenseRef(x.data, DType::kF32, {kRows, kCols});
  a.normalized_shape = {kCols};
  a.weight = ops::DenseRef(gamma.data, DType::kF32, {kCols});
  a.bias = ops::DenseRef(beta.data, DType::kF32, {kCols});
  a.out = ops::DenseRef(y.data, DType::kF32, {kRows, kCols});
  a.mean = ops::DenseRef(mean.data, DType::kF32, {kRows, 1});
  a.rstd = ops::DenseRef(rstd.data, DType::kF32, {kRows, 1});
  static const Modeled modeled = ModelAll(a);
  RunMode(state, a, mode, modeled, 2.0 * x.bytes);
}

const int kRegistered = [] {
  for (tune::Mode mode : {tune::Mode::kOff, tune::Mode::kModel, tune::Mode::kMeasure}) {
    const std::string m = tune::ModeName(mode);
    benchmark::RegisterBenchmark(("ops/tune/softmax/" + m).c_str(),
                                 [mode](benchmark::State& s) { Softmax(s, mode); })
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->MinTime(1.0);
    benchmark::RegisterBenchmark(("ops/tune/layer_norm/" + m).c_str(),
                                 [mode](benchmark::State& s) { LayerNorm(s, mode); })
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->MinTime(1.0);
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
