// The vector engine on UB-resident data: one count-form call over 4096 elements (Add, Mul, Exp on
// half and float; the vectorized Cast pairs), timed directly on the engine and through the AscendC
// API inside a one-block kernel (argument checks and dispatch included). Reports ns per element.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "aicore/kernel/vector/engine.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using aicore::kernel::engine::Round;
using aicore::kernel::engine::VecOp;

constexpr uint32_t kCount = 4096;

template <typename T>
std::vector<T> Ramp(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(static_cast<float>(i % 97) * 0.0625f - 3.0f);
  return v;
}

void PerElement(benchmark::State& state) {
  state.counters["ns_per_element"] = benchmark::Counter(
      static_cast<double>(kCount),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kCount);
}

template <typename T, VecOp op>
void BM_Engine(benchmark::State& state) {
  auto a = Ramp<T>(kCount), b = Ramp<T>(kCount), d = Ramp<T>(kCount);
  for (auto _ : state) {
    aicore::kernel::engine::Elementwise(op, aicore::DTypeOf<T>(), d.data(), a.data(), b.data(), {},
                                        kCount);
    benchmark::DoNotOptimize(d.data());
  }
  PerElement(state);
  state.SetLabel(aicore::kernel::engine::EngineIsa());
}

template <typename D, typename S, Round r>
void BM_EngineCast(benchmark::State& state) {
  auto s = Ramp<S>(kCount);
  std::vector<D> d(kCount);
  for (auto _ : state) {
    aicore::kernel::engine::Cast(aicore::DTypeOf<D>(), aicore::DTypeOf<S>(), r, d.data(), s.data(),
                                 kCount);
    benchmark::DoNotOptimize(d.data());
  }
  PerElement(state);
  state.SetLabel(aicore::kernel::engine::EngineIsa());
}

// The API call in a kernel: the benchmark loop runs inside the kernel body.
template <typename T, VecOp op>
void BM_Api(benchmark::State& state) {
  aicore::Status st = aicore::RunKernel("engine_bench", 1, aicore::LaunchOptions{}, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kCount * sizeof(T));
    auto a = buf.GetWithOffset<T>(kCount, 0);
    auto b = buf.GetWithOffset<T>(kCount, kCount * sizeof(T));
    auto d = buf.GetWithOffset<T>(kCount, 2 * kCount * sizeof(T));
    AscendC::Duplicate(a, T(0.5f), kCount);
    AscendC::Duplicate(b, T(1.5f), kCount);
    for (auto _ : state) {
      if constexpr (op == VecOp::kAdd) AscendC::Add(d, a, b, kCount);
      if constexpr (op == VecOp::kMul) AscendC::Mul(d, a, b, kCount);
      if constexpr (op == VecOp::kExp) AscendC::Exp(d, a, kCount);
      benchmark::DoNotOptimize(d.data());
    }
  });
  if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  PerElement(state);
}

BENCHMARK(BM_Engine<float, VecOp::kAdd>);
BENCHMARK(BM_Engine<float, VecOp::kMul>);
BENCHMARK(BM_Engine<float, VecOp::kExp>);
BENCHMARK(BM_Engine<aicore::half, VecOp::kAdd>);
BENCHMARK(BM_Engine<aicore::half, VecOp::kMul>);
BENCHMARK(BM_Engine<aicore::half, VecOp::kExp>);
BENCHMARK(BM_Engine<aicore::bfloat16, VecOp::kAdd>);
BENCHMARK(BM_EngineCast<float, aicore::half, Round::kNone>);
BENCHMARK(BM_EngineCast<aicore::half, float, Round::kRint>);
BENCHMARK(BM_EngineCast<aicore::bfloat16, float, Round::kRint>);
BENCHMARK(BM_EngineCast<int32_t, float, Round::kRint>);
BENCHMARK(BM_EngineCast<int32_t, float, Round::kRound>);
BENCHMARK(BM_EngineCast<float, int32_t, Round::kNone>);
BENCHMARK(BM_EngineCast<aicore::half, float, Round::kOdd>);
BENCHMARK(BM_Api<float, VecOp::kAdd>)->UseRealTime();
BENCHMARK(BM_Api<float, VecOp::kExp>)->UseRealTime();
BENCHMARK(BM_Api<aicore::half, VecOp::kAdd>)->UseRealTime();
BENCHMARK(BM_Api<aicore::half, VecOp::kMul>)->UseRealTime();
BENCHMARK(BM_Api<aicore::half, VecOp::kExp>)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
