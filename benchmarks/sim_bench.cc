// Costs of the simulator itself: nanoseconds per AscendC API call inside a kernel with no
// observer attached, and the speedup of a compute-bound launch from one worker thread to two.
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstdint>

#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;

constexpr int32_t kTile = 256;          // elements per API call
constexpr int64_t kCallPairs = 100000;  // DataCopy + Add pairs per launch

// Returns the calling thread's CPU time in ns (other processes sharing the cores do not count).
double ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e9 * static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec);
}

void CheckOk(benchmark::State& state, const aicore::Status& status) {
  if (!status.ok()) state.SkipWithError(status.message().c_str());
}

// Which calls the api-call kernel makes in its timed loop.
enum class Calls { kDataCopyAndAdd, kDataCopy, kAdd };

// Times `kCallPairs` iterations of the selected calls on a 256-element float tile inside one
// block (the launch itself is outside the timed region) and reports thread-CPU ns per call.
void BM_ApiCall(benchmark::State& state, Calls calls) {
  aicore::sim::SetWorkerThreads(1);
  auto* gm = static_cast<uint8_t*>(aicore::GmAlloc(kTile * sizeof(float)));
  double total_ns = 0;
  int64_t total_calls = 0;
  for (auto _ : state) {
    double ns = 0;
    CheckOk(state, aicore::RunKernel("api_call", 1, aicore::LaunchOptions{}, [&] {
      TPipe pipe;
      TBuf<QuePosition::VECCALC> buf;
      pipe.InitBuffer(buf, 3 * kTile * sizeof(float));
      LocalTensor<float> x = buf.Get<float>();         // (kTile)
      LocalTensor<float> y = x[kTile];                  // (kTile)
      LocalTensor<float> z = x[2 * kTile];              // (kTile)
      GlobalTensor<float> gm_x;
      gm_x.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(gm), kTile);
      Duplicate(y, 1.0f, kTile);
      const double t0 = ThreadCpuNs();
      for (int64_t i = 0; i < kCallPairs; ++i) {
        if (calls != Calls::kAdd) DataCopy(x, gm_x, kTile);
        if (calls != Calls::kDataCopy) Add(z, x, y, kTile);
      }
      ns = ThreadCpuNs() - t0;
    }));
    total_ns += ns;
    total_calls += calls == Calls::kDataCopyAndAdd ? 2 * kCallPairs : kCallPairs;
    state.SetIterationTime(ns * 1e-9);
  }
  state.counters["ns_per_call"] = total_ns / static_cast<double>(total_calls);
  aicore::GmFree(gm);
}
BENCHMARK_CAPTURE(BM_ApiCall, datacopy_add, Calls::kDataCopyAndAdd)
    ->Name("sim/api_call_ns")->UseManualTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(BM_ApiCall, datacopy, Calls::kDataCopy)
    ->Name("sim/api_call_ns/DataCopy")->UseManualTime()->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(BM_ApiCall, add, Calls::kAdd)
    ->Name("sim/api_call_ns/Add")->UseManualTime()->Repetitions(5)->ReportAggregatesOnly(true);

constexpr int32_t kScalingLength = 8192;  // floats per block, UB-resident (32 KiB)
constexpr int32_t kScalingPasses = 600;   // Exp passes per block

// Arg 0: worker threads. A launch of 2 blocks, each running many Exp passes over UB-resident
// data; run_all.py divides the 1-thread time by the 2-thread time.
void BM_ComputeScaling(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  aicore::sim::SetWorkerThreads(threads);
  for (auto _ : state) {
    CheckOk(state, aicore::RunKernel("exp_passes", 2, aicore::LaunchOptions{}, [&] {
      TPipe pipe;
      TBuf<QuePosition::VECCALC> buf;
      pipe.InitBuffer(buf, 2 * kScalingLength * sizeof(float));
      LocalTensor<float> x = buf.Get<float>();       // (kScalingLength)
      LocalTensor<float> y = x[kScalingLength];       // (kScalingLength)
      Duplicate(x, 0.5f, kScalingLength);
      for (int32_t pass = 0; pass < kScalingPasses; ++pass) Exp(y, x, kScalingLength);
    }));
  }
  state.counters["elements_per_s"] = benchmark::Counter(
      2.0 * kScalingLength * kScalingPasses, benchmark::Counter::kIsIterationInvariantRate);
  aicore::sim::SetWorkerThreads(0);
}
BENCHMARK(BM_ComputeScaling)->Name("sim/scaling")->Arg(1)->Arg(2)->MeasureProcessCPUTime()
    ->UseRealTime()->MinTime(0.5)->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
