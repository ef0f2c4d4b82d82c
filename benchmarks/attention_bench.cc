// Attention: the fused flash-attention operator (aicore::ops::FlashAttentionForward, BNSD fp32)
// against the unfused composition of the library's own operators (matmul -> muls -> softmax ->
// matmul through GM, aicore::ops::UnfusedAttentionForward) on the same inputs, non-causal and
// causal (sparse mode 3 / an additive -inf mask for the unfused one). Rows report useful
// flops_per_s (causal: the visible half) and, from the device allocator's statistics, the peak
// device bytes of the call (peak_bytes: inputs, outputs and everything the op took) and the part
// the op itself took beyond its operands (extra_peak_bytes). run_all.py forms ratio_to_fma_peak
// and the fused/unfused ratios.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "aicore/ops/ops.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"

namespace {

using aicore::DType;
using aicore::ops::DenseRef;
using aicore::ops::TensorRef;

struct Shape {
  int64_t b, n, s, d;
  std::string Name() const {
    return "b" + std::to_string(b) + "h" + std::to_string(n) + "_s" + std::to_string(s) + "_d" +
           std::to_string(d);
  }
};

float* DeviceFloats(int64_t n, float seed) {
  auto* p = static_cast<float*>(aicore::rt::DeviceMalloc(static_cast<size_t>(n) * 4, nullptr));
  for (int64_t i = 0; i < n; ++i) p[i] = std::sin(seed + 0.37f * static_cast<float>(i % 4099));
  return p;
}

// Sets the op's counters from the stats taken around it.
void MemoryCounters(benchmark::State& state, size_t before) {
  const auto stats = aicore::rt::GetDeviceMemoryStats(0);
  state.counters["peak_bytes"] = static_cast<double>(stats.peak_allocated);
  state.counters["extra_peak_bytes"] = static_cast<double>(stats.peak_allocated - before);
}

double UsefulFlops(const Shape& s, bool causal) {
  const double pairs = causal ? s.s * (s.s + 1) / 2.0 : static_cast<double>(s.s) * s.s;
  return 4.0 * s.b * s.n * pairs * s.d;
}

void BM_Flash(benchmark::State& state, Shape s, bool causal) {
  aicore::rt::ReleaseDeviceMemory(0);  // the peak counts this row only
  const int64_t elems = s.b * s.n * s.s * s.d, stats = s.b * s.n * s.s * 8;
  float *q = DeviceFloats(elems, 0.1f), *k = DeviceFloats(elems, 0.2f),
        *v = DeviceFloats(elems, 0.3f), *o = DeviceFloats(elems, 0);
  float *mx = DeviceFloats(stats, 0), *sm = DeviceFloats(stats, 0);
  auto* mask = static_cast<uint8_t*>(aicore::rt::DeviceMalloc(2048 * 2048, nullptr));
  for (int64_t i = 0; i < 2048; ++i)
    for (int64_t j = 0; j < 2048; ++j) mask[i * 2048 + j] = j > i;
  const TensorRef mask_ref = DenseRef(mask, DType::kU8, {2048, 2048});
  aicore::ops::FlashAttentionAttrs attrs;
  attrs.scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  attrs.head_num = s.n;
  attrs.layout = "BNSD";
  attrs.sparse_mode = causal ? 3 : 0;
  const std::vector<int64_t> shape = {s.b, s.n, s.s, s.d}, stat_shape = {s.b, s.n, s.s, 8};
  const size_t before = aicore::rt::GetDeviceMemoryStats(0).allocated;
  for (auto _ : state) {
    const aicore::Status st = aicore::ops::FlashAttentionForward(
        DenseRef(q, DType::kF32, shape), DenseRef(k, DType::kF32, shape),
        DenseRef(v, DType::kF32, shape), causal ? &mask_ref : nullptr, attrs,
        DenseRef(mx, DType::kF32, stat_shape), DenseRef(sm, DType::kF32, stat_shape),
        DenseRef(o, DType::kF32, shape));
    const aicore::Status sync = aicore::rt::StreamSynchronize(nullptr);
    if (!st.ok() || !sync.ok()) {
      state.SkipWithError((st.ok() ? sync : st).ToString().c_str());
      break;
    }
  }
  MemoryCounters(state, before);
  state.counters["flops_per_s"] = benchmark::Counter(
      UsefulFlops(s, causal) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  for (void* p : {static_cast<void*>(q), static_cast<void*>(k), static_cast<void*>(v),
                  static_cast<void*>(o), static_cast<void*>(mx), static_cast<void*>(sm),
                  static_cast<void*>(mask)}) {
    aicore::rt::DeviceFree(p);
  }
}

void BM_Unfused(benchmark::State& state, Shape s, bool causal) {
  aicore::rt::ReleaseDeviceMemory(0);
  const int64_t elems = s.b * s.n * s.s * s.d;
  float *q = DeviceFloats(elems, 0.1f), *k = DeviceFloats(elems, 0.2f),
        *v = DeviceFloats(elems, 0.3f), *o = DeviceFloats(elems, 0);
  float* bias = DeviceFloats(s.s * s.s, 0);  // (Sq, Skv): -inf above the diagonal
  for (int64_t i = 0; i < s.s; ++i)
    for (int64_t j = 0; j < s.s; ++j) bias[i * s.s + j] = j > i ? -INFINITY : 0.0f;
  const TensorRef bias_ref = DenseRef(bias, DType::kF32, {s.s, s.s});
  const std::vector<int64_t> shape = {s.b, s.n, s.s, s.d};
  const size_t before = aicore::rt::GetDeviceMemoryStats(0).allocated;
  for (auto _ : state) {
    const aicore::Status st = aicore::ops::UnfusedAttentionForward(
        DenseRef(q, DType::kF32, shape), DenseRef(k, DType::kF32, shape),
        DenseRef(v, DType::kF32, shape), causal ? &bias_ref : nullptr,
        1.0 / std::sqrt(static_cast<double>(s.d)), DenseRef(o, DType::kF32, shape));
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  MemoryCounters(state, before);
  state.counters["flops_per_s"] = benchmark::Counter(
      UsefulFlops(s, causal) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  for (void* p : {static_cast<void*>(q), static_cast<void*>(k), static_cast<void*>(v),
                  static_cast<void*>(o), static_cast<void*>(bias)}) {
    aicore::rt::DeviceFree(p);
  }
}

void Register() {
  for (const Shape& s : {Shape{1, 16, 1024, 64}, Shape{1, 16, 4096, 128}}) {
    const int reps = s.s > 1024 ? 1 : 3;
    for (bool causal : {false, true}) {
      const std::string suffix = s.Name() + (causal ? "_causal" : "");
      benchmark::RegisterBenchmark(("ops/flash_attention/fp32/" + suffix).c_str(), BM_Flash, s,
                                   causal)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)
          ->Iterations(1)->Repetitions(reps)->ReportAggregatesOnly(reps > 1);
      benchmark::RegisterBenchmark(("ops/attention_unfused/fp32/" + suffix).c_str(), BM_Unfused,
                                   s, causal)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)
          ->Iterations(1)->Repetitions(reps)->ReportAggregatesOnly(reps > 1);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
