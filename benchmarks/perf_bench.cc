// Cost of the profiler: an add_custom-style kernel (double-buffered TQue pipeline, half, 8
// blocks, 4 KiB tiles) timed plain and recorded, in the same run (row perf/profile_overhead,
// counter `factor`; the budget is 3x), the same with the replay, the analysis and every
// report rendered (row perf/profile_overhead_with_report, counter `factor`), the replay rate of
// the timing model (row perf/replay, counter `instructions_per_second`; the budget is at least
// 1e7) and the rate of rendering the reports (row perf/write_reports, counter
// `instructions_per_second`: summary, trace.json, CSV files and report.html, in memory).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "aicore/perf/profiler.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "benchmarks/add_tiles_kernel.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;

using namespace aicore::bench;  // NOLINT

struct Gm {
  Gm() {
    const size_t bytes = size_t{kTotal} * sizeof(half);
    x = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
    y = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
    z = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
  }
  ~Gm() {
    aicore::GmFree(x);
    aicore::GmFree(y);
    aicore::GmFree(z);
  }
  uint8_t *x, *y, *z;
};

double TimeLaunch(benchmark::State& state, const Gm& gm) {
  const auto t0 = std::chrono::steady_clock::now();
  const aicore::Status st = aicore::RunKernel("add_custom", kBlocks, aicore::LaunchOptions{},
                                              [&] { AddKernel(gm.x, gm.y, gm.z); });
  const auto t1 = std::chrono::steady_clock::now();
  if (!st.ok()) state.SkipWithError(st.message().c_str());
  return std::chrono::duration<double>(t1 - t0).count();
}

void BM_ProfileOverhead(benchmark::State& state) {
  Gm gm;
  TimeLaunch(state, gm);  // warm up: worker threads, pages
  double plain = 0, recorded = 0;
  for (auto _ : state) {
    plain += TimeLaunch(state, gm);
    aicore::perf::Profiler prof;
    prof.Attach();
    recorded += TimeLaunch(state, gm);
    prof.Detach();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["plain_ms"] = plain / n * 1e3;
  state.counters["profiled_ms"] = recorded / n * 1e3;
  state.counters["factor"] = recorded / plain;
}
BENCHMARK(BM_ProfileOverhead)->Name("perf/profile_overhead")->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);

// Renders every report file in memory (what WriteReports writes, without the disk).
size_t RenderReports(const std::vector<aicore::perf::LaunchResult>& r) {
  return aicore::perf::SummaryText(r).size() + aicore::perf::SummaryJson(r).size() +
         aicore::perf::TraceJson(r).size() + aicore::perf::PipeUtilizationCsv(r).size() +
         aicore::perf::MemoryCsv(r).size() + aicore::perf::InstructionsCsv(r).size() +
         aicore::perf::ReportHtml(r).size();
}

void BM_ProfileOverheadWithReport(benchmark::State& state) {
  Gm gm;
  TimeLaunch(state, gm);  // warm up: worker threads, pages
  double plain = 0, profiled = 0;
  for (auto _ : state) {
    plain += TimeLaunch(state, gm);
    const auto t0 = std::chrono::steady_clock::now();
    aicore::perf::Profiler prof;
    prof.Attach();
    TimeLaunch(state, gm);
    prof.Detach();
    benchmark::DoNotOptimize(RenderReports(prof.Results()));
    profiled += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["plain_ms"] = plain / n * 1e3;
  state.counters["profiled_ms"] = profiled / n * 1e3;
  state.counters["factor"] = profiled / plain;
}
BENCHMARK(BM_ProfileOverheadWithReport)->Name("perf/profile_overhead_with_report")
    ->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_WriteReports(benchmark::State& state) {
  Gm gm;
  aicore::perf::Profiler prof;
  prof.Attach();
  TimeLaunch(state, gm);
  prof.Detach();
  const auto& results = prof.Results();
  uint64_t instructions = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(RenderReports(results));
    instructions += results.at(0).instructions;
  }
  state.counters["instructions_per_second"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WriteReports)->Name("perf/write_reports")->Unit(benchmark::kMillisecond)
    ->MinTime(1.0)->UseRealTime();

void BM_Replay(benchmark::State& state) {
  Gm gm;
  aicore::perf::Profiler prof;
  prof.Attach();
  TimeLaunch(state, gm);
  prof.Detach();
  const auto& launch = *prof.recorder().launches().at(0);
  const aicore::perf::CostModel model(*launch.chip);
  uint64_t instructions = 0;
  for (auto _ : state) {
    const aicore::perf::Timeline tl = aicore::perf::Replay(launch, model);
    benchmark::DoNotOptimize(tl.body_cycles);
    instructions += launch.Instructions();
  }
  state.counters["instructions_per_second"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Replay)->Name("perf/replay")->Unit(benchmark::kMillisecond)->MinTime(1.0)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
