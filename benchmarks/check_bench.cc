// Cost of the sanitizer: an add_custom-style kernel (double-buffered TQue pipeline, half, 8
// blocks) timed unchecked and with every tool on, in the same run. Row check/overhead reports the
// ratio as counter `factor` (the budget is 20x).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "aicore/check/sanitizer.h"
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
