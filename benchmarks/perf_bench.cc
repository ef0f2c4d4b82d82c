// Cost of the profiler: an add_custom-style kernel (double-buffered TQue pipeline, half, 8
// blocks, 4 KiB tiles) timed plain and recorded, in the same run (row perf/profile_overhead,
// counter `factor`; the budget is 3x), and the replay rate of the timing model (row
// perf/replay, counter `instructions_per_second`; the budget is at least 1e7).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "aicore/perf/profiler.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;

constexpr int32_t kBlocks = 8;
constexpr int32_t kTile = 2048;       // elements per tile (4 KiB of half)
constexpr int32_t kTilesPerBlock = 64;
constexpr int32_t kBlockLength = kTile * kTilesPerBlock;
constexpr int32_t kTotal = kBlocks * kBlockLength;

void AddKernel(uint8_t* x, uint8_t* y, uint8_t* z) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> in_x, in_y;
  TQue<QuePosition::VECOUT, 2> out_z;
  pipe.InitBuffer(in_x, 2, kTile * sizeof(half));
  pipe.InitBuffer(in_y, 2, kTile * sizeof(half));
  pipe.InitBuffer(out_z, 2, kTile * sizeof(half));
  GlobalTensor<half> gm_x, gm_y, gm_z;  // (kBlockLength) each
  const int64_t base = int64_t{kBlockLength} * GetBlockIdx();
  gm_x.SetGlobalBuffer(reinterpret_cast<half*>(x) + base, kBlockLength);
  gm_y.SetGlobalBuffer(reinterpret_cast<half*>(y) + base, kBlockLength);
  gm_z.SetGlobalBuffer(reinterpret_cast<half*>(z) + base, kBlockLength);
  for (int32_t i = 0; i < kTilesPerBlock; ++i) {
    LocalTensor<half> ub_x = in_x.AllocTensor<half>();
    LocalTensor<half> ub_y = in_y.AllocTensor<half>();
    DataCopy(ub_x, gm_x[i * kTile], kTile);
    DataCopy(ub_y, gm_y[i * kTile], kTile);
    in_x.EnQue(ub_x);
    in_y.EnQue(ub_y);
    ub_x = in_x.DeQue<half>();
    ub_y = in_y.DeQue<half>();
    LocalTensor<half> ub_z = out_z.AllocTensor<half>();
    Add(ub_z, ub_x, ub_y, kTile);
    out_z.EnQue(ub_z);
    in_x.FreeTensor(ub_x);
    in_y.FreeTensor(ub_y);
    ub_z = out_z.DeQue<half>();
    DataCopy(gm_z[i * kTile], ub_z, kTile);
    out_z.FreeTensor(ub_z);
  }
}

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
