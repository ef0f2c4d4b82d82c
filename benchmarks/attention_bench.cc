// Attention: the fused flash-attention operator (aicore::ops::FlashAttentionForward, BNSD fp32 and
// bf16) against the unfused composition of the library's own operators (matmul -> muls -> softmax
// -> matmul through GM, aicore::ops::UnfusedAttentionForward, fp32) on the same inputs,
// non-causal and causal (sparse mode 3 / an additive -inf mask for the unfused one). Rows report
// useful flops_per_s (causal: the visible half) and, from the device allocator's statistics, the
// peak device bytes of the call (peak_bytes: inputs, outputs and everything the op took) and the
// part the op itself took beyond its operands (extra_peak_bytes). The .../2threads rows run the
// fused operator on 2 worker threads (wall time). run_all.py forms ratio_to_fma_peak, the
// fused/unfused ratios, ratio_to_torch_unfused (torch_baselines.py's lean PyTorch composition at
// the same shapes), bf16's ratio to fp32 and the 2-thread scaling.
// Each rep measures the steady state: it makes one untimed call first (counter first_call_s, its
// process CPU seconds), which pays for what a call keeps for the next ones: the workspace from the
// device allocator, first touched in fresh 2 MiB pages (at b1h16_s1024_d64 fp32 those page faults
// were about a quarter of a timed single call), and the packed panel arena.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "aicore/core/dtype.h"
#include "aicore/ops/ops.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"
#include "aicore/sim/scheduler.h"
#include "benchmarks/bench_util.h"

namespace {

using aicore::DType;
using aicore::ops::DenseRef;
using aicore::ops::TensorRef;

struct Shape {
  int64_t b, n, s, d;
  std::string Name() const {
    std::string name = "b";  // appended piecewise: GCC 12 warns (-Wrestrict) on "b" + string
    for (const auto& [sep, v] :
         {std::pair<const char*, int64_t>{"", b}, {"h", n}, {"_s", s}, {"_d", d}}) {
      name += sep;
      name += std::to_string(v);
    }
    return name;
  }
};

float* DeviceFloats(int64_t n, float seed) {
  auto* p = static_cast<float*>(aicore::rt::DeviceMalloc(static_cast<size_t>(n) * 4, nullptr));
  for (int64_t i = 0; i < n; ++i) p[i] = std::sin(seed + 0.37f * static_cast<float>(i % 4099));
  return p;
}

// `n` elements of `dt` (kF32 or kBF16) with DeviceFloats' values.
void* DeviceValues(int64_t n, DType dt, float seed) {
  if (dt == DType::kF32) return DeviceFloats(n, seed);
  auto* p = static_cast<uint16_t*>(aicore::rt::DeviceMalloc(static_cast<size_t>(n) * 2, nullptr));
  for (int64_t i = 0; i < n; ++i) {
    p[i] = aicore::FloatToBfloat16Bits(std::sin(seed + 0.37f * static_cast<float>(i % 4099)));
  }
  return p;
}

// Sets the worker threads for one row and restores the previous count after it.
class ThreadsFor {
 public:
  explicit ThreadsFor(int threads) : saved_(aicore::sim::WorkerThreads()) {
    aicore::sim::SetWorkerThreads(threads);
  }
  ~ThreadsFor() { aicore::sim::SetWorkerThreads(saved_); }
  ThreadsFor(const ThreadsFor&) = delete;
  ThreadsFor& operator=(const ThreadsFor&) = delete;

 private:
  int saved_;
};

// Sets the op's counters from the stats taken around it.
void MemoryCounters(benchmark::State& state, size_t before) {
  const auto stats = aicore::rt::GetDeviceMemoryStats(0);
  state.counters["peak_bytes"] = static_cast<double>(stats.peak_allocated);
  state.counters["extra_peak_bytes"] = static_cast<double>(stats.peak_allocated - before);
}

// Runs the rep: its untimed first `call` (see the top of this file; counter first_call_s), then
// the timed ones. A failed call skips the row with its message.
template <class Call>
void TimeCalls(benchmark::State& state, Call call) {
  const double t0 = aicore::bench::ProcessCpuSeconds();
  aicore::Status st = call();
  state.counters["first_call_s"] = aicore::bench::ProcessCpuSeconds() - t0;
  for (auto _ : state) {
    if (st.ok()) st = call();
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
}

double UsefulFlops(const Shape& s, bool causal) {
  const double pairs = causal ? s.s * (s.s + 1) / 2.0 : static_cast<double>(s.s) * s.s;
  return 4.0 * s.b * s.n * pairs * s.d;
}

void BM_Flash(benchmark::State& state, Shape s, bool causal, DType dt, int threads) {
  const ThreadsFor threads_for(threads);
  aicore::rt::ReleaseDeviceMemory(0);  // the peak counts this row only
  const int64_t elems = s.b * s.n * s.s * s.d, stats = s.b * s.n * s.s * 8;
  void *q = DeviceValues(elems, dt, 0.1f), *k = DeviceValues(elems, dt, 0.2f),
       *v = DeviceValues(elems, dt, 0.3f), *o = DeviceValues(elems, dt, 0);
  float *mx = DeviceFloats(stats, 0), *sm = DeviceFloats(stats, 0);
  uint8_t* mask = nullptr;  // the compressed causal mask, only when used (it counts in the peak)
  if (causal) {
    mask = static_cast<uint8_t*>(aicore::rt::DeviceMalloc(2048 * 2048, nullptr));
    for (int64_t i = 0; i < 2048; ++i)
      for (int64_t j = 0; j < 2048; ++j) mask[i * 2048 + j] = j > i;
  }
  const TensorRef mask_ref = DenseRef(mask, DType::kU8, {2048, 2048});
  aicore::ops::FlashAttentionAttrs attrs;
  attrs.scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  attrs.head_num = s.n;
  attrs.layout = "BNSD";
  attrs.sparse_mode = causal ? 3 : 0;
  const std::vector<int64_t> shape = {s.b, s.n, s.s, s.d}, stat_shape = {s.b, s.n, s.s, 8};
  const size_t before = aicore::rt::GetDeviceMemoryStats(0).allocated;
  const auto call = [&] {
    const aicore::Status st = aicore::ops::FlashAttentionForward(
        DenseRef(q, dt, shape), DenseRef(k, dt, shape), DenseRef(v, dt, shape),
        causal ? &mask_ref : nullptr, attrs, DenseRef(mx, DType::kF32, stat_shape),
        DenseRef(sm, DType::kF32, stat_shape), DenseRef(o, dt, shape));
    const aicore::Status sync = aicore::rt::StreamSynchronize(nullptr);
    return st.ok() ? sync : st;
  };
  TimeCalls(state, call);
  MemoryCounters(state, before);
  state.counters["flops_per_s"] =
      benchmark::Counter(UsefulFlops(s, causal) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  for (void* p :
       {q, k, v, o, static_cast<void*>(mx), static_cast<void*>(sm), static_cast<void*>(mask)}) {
    if (p != nullptr) aicore::rt::DeviceFree(p);
  }
}

void BM_Unfused(benchmark::State& state, Shape s, bool causal, int threads) {
  const ThreadsFor threads_for(threads);
  aicore::rt::ReleaseDeviceMemory(0);
  const int64_t elems = s.b * s.n * s.s * s.d;
  float *q = DeviceFloats(elems, 0.1f), *k = DeviceFloats(elems, 0.2f),
        *v = DeviceFloats(elems, 0.3f), *o = DeviceFloats(elems, 0);
  float* bias = nullptr;  // (Sq, Skv): -inf above the diagonal, only when used
  if (causal) {
    bias = DeviceFloats(s.s * s.s, 0);
    for (int64_t i = 0; i < s.s; ++i)
      for (int64_t j = 0; j < s.s; ++j) bias[i * s.s + j] = j > i ? -INFINITY : 0.0f;
  }
  const TensorRef bias_ref = DenseRef(bias, DType::kF32, {s.s, s.s});
  const std::vector<int64_t> shape = {s.b, s.n, s.s, s.d};
  const size_t before = aicore::rt::GetDeviceMemoryStats(0).allocated;
  const auto call = [&] {
    return aicore::ops::UnfusedAttentionForward(
        DenseRef(q, DType::kF32, shape), DenseRef(k, DType::kF32, shape),
        DenseRef(v, DType::kF32, shape), causal ? &bias_ref : nullptr,
        1.0 / std::sqrt(static_cast<double>(s.d)), DenseRef(o, DType::kF32, shape));
  };
  TimeCalls(state, call);
  MemoryCounters(state, before);
  state.counters["flops_per_s"] =
      benchmark::Counter(UsefulFlops(s, causal) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  for (void* p : {static_cast<void*>(q), static_cast<void*>(k), static_cast<void*>(v),
                  static_cast<void*>(o), static_cast<void*>(bias)}) {
    if (p != nullptr) aicore::rt::DeviceFree(p);
  }
}

// One row: ops/<flash_attention|attention_unfused>/<fp32|bf16>/<shape>[_causal][/2threads].
void Add(bool fused, Shape s, bool causal, DType dt, int threads, int reps) {
  const std::string name = std::string(fused ? "ops/flash_attention/" : "ops/attention_unfused/") +
                           (dt == DType::kF32 ? "fp32/" : "bf16/") + s.Name() +
                           (causal ? "_causal" : "") + (threads > 1 ? "/2threads" : "");
  benchmark::internal::Benchmark* b =
      fused ? benchmark::RegisterBenchmark(name.c_str(), BM_Flash, s, causal, dt, threads)
            : benchmark::RegisterBenchmark(name.c_str(), BM_Unfused, s, causal, threads);
  b->MeasureProcessCPUTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(reps)
      ->ReportAggregatesOnly(reps > 1);
}

void Register() {
  // The rows: fp32 fused and unfused, non-causal and causal.
  for (const Shape& s : {Shape{1, 16, 1024, 64}, Shape{1, 16, 4096, 128}}) {
    const int reps = s.s > 1024 ? 1 : 3;
    for (bool causal : {false, true}) {
      Add(true, s, causal, DType::kF32, 1, reps);
      Add(false, s, causal, DType::kF32, 1, reps);
    }
    Add(true, s, false, DType::kBF16, 1, reps);  // against the fp32 row
    Add(true, s, false, DType::kF32, 2, reps);   // 2 worker threads (wall time)
  }
  // The fused-vs-unfused table (scripts/fused_table.py): a transformer-sized case and a small,
  // latency-bound one, non-causal.
  Add(true, Shape{8, 16, 2048, 128}, false, DType::kF32, 1, 1);
  Add(false, Shape{8, 16, 2048, 128}, false, DType::kF32, 1, 1);
  Add(true, Shape{1, 8, 512, 64}, false, DType::kF32, 1, 5);
  Add(false, Shape{1, 8, 512, 64}, false, DType::kF32, 1, 5);
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
