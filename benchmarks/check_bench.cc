// Cost of the sanitizer: an add_custom-style kernel (double-buffered TQue pipeline, half, 8
// blocks) timed unchecked and with every tool on, in the same run. Row check/overhead reports the
// ratio as counter `factor` (the budget is 20x).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "aicore/check/sanitizer.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "benchmarks/add_tiles_kernel.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;

using namespace aicore::bench;  // NOLINT

double TimeLaunch(benchmark::State& state, uint8_t* x, uint8_t* y, uint8_t* z) {
  const auto t0 = std::chrono::steady_clock::now();
  const aicore::Status st = aicore::RunKernel("add_custom", kBlocks, aicore::LaunchOptions{},
                                              [&] { AddKernel(x, y, z); });
  const auto t1 = std::chrono::steady_clock::now();
  if (!st.ok()) state.SkipWithError(st.message().c_str());
  return std::chrono::duration<double>(t1 - t0).count();
}

void BM_CheckOverhead(benchmark::State& state) {
  const size_t bytes = size_t{kTotal} * sizeof(half);
  auto* x = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
  auto* y = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
  auto* z = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
  TimeLaunch(state, x, y, z);  // warm up: worker threads, pages
  double plain = 0, checked = 0;
  for (auto _ : state) {
    plain += TimeLaunch(state, x, y, z);
    aicore::check::Sanitizer sanitizer;
    checked += TimeLaunch(state, x, y, z);
    if (!sanitizer.reports().empty()) state.SkipWithError("the sanitizer reported a clean kernel");
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["unchecked_ms"] = plain / n * 1e3;
  state.counters["checked_ms"] = checked / n * 1e3;
  state.counters["factor"] = checked / plain;
  aicore::GmFree(x);
  aicore::GmFree(y);
  aicore::GmFree(z);
}
BENCHMARK(BM_CheckOverhead)->Name("check/overhead")->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
