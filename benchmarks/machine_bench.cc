// The machine's own ceilings, measured on one thread: peak fp32 FMA throughput and STREAM copy /
// add bandwidth. Kernel rows (vector_bench) are reported as ratios to these, measured in the same
// run. See benchmarks/README.md.
//
// - fma_fp32_peak: 16 independent vector accumulators (enough to cover FMA latency x two FMA
//   ports), each step acc = acc * a + b; the AVX-512 or AVX2 version is compiled with target
//   attributes and chosen at run time from the ISA the library uses (AICORE_ISA lowers it).
// - stream_copy / stream_add: STREAM's Copy (c = a) and Add (c = a + b) on double arrays each at
//   least 4x the last-level cache, counting bytes as STREAM does (16 and 24 per element: writes
//   count once, write-allocate traffic is not counted). Plain loops, compiled at the binary's
//   baseline ISA without turning them into memcpy calls (see CMakeLists.txt).
// - stream_copy_nt: the same Copy with non-temporal (streaming) stores, 64 bytes per store where
//   the library runs AVX-512 (else 16), then one sfence: the destination lines are not read
//   first (no write-allocate), so a read-once/write-once kernel that streams its output can beat
//   stream_copy. Bytes are counted as stream_copy counts them.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "aicore/core/cpu.h"
#include "benchmarks/bench_util.h"
#include "benchmarks/stream_kernels.h"

namespace {

using aicore::bench::StreamAdd;
using aicore::bench::StreamCopy;
using aicore::bench::StreamCopyNt;

constexpr int kAccumulators = 16;
constexpr int64_t kFmaSteps = 1 << 20;  // steps per accumulator per benchmark iteration

#if defined(__x86_64__)
// Returns the sum of the lanes of `v` (the result only keeps the loops alive). Through memory:
// GCC 12's _mm512_reduce_add_ps extracts halves with _mm256_undefined_pd(), whose self-initialised
// placeholder its -Wmaybe-uninitialized reports (GCC PR 105593).
__attribute__((target("avx512f"))) float LaneSum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float s = 0;
  for (float x : lanes) s += x;
  return s;
}

__attribute__((target("avx512f,fma"))) float FmaAvx512(int64_t steps) {
  __m512 acc[kAccumulators];
  for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_set1_ps(1.0f + 0.001f * k);
  const __m512 a = _mm512_set1_ps(0.9999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < steps; ++i) {
    for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm512_add_ps(sum, acc[k]);
  return LaneSum(sum);
}

__attribute__((target("avx2,fma"))) float FmaAvx2(int64_t steps) {
  __m256 acc[kAccumulators];
  for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm256_set1_ps(1.0f + 0.001f * k);
  const __m256 a = _mm256_set1_ps(0.9999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < steps; ++i) {
    for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm256_fmadd_ps(acc[k], a, b);
  }
  __m256 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm256_add_ps(sum, acc[k]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}
#endif

// The portable fallback: scalar multiply-adds the compiler may vectorize at the baseline ISA.
float FmaPortable(int64_t steps) {
  float acc[kAccumulators * 4];
  for (int k = 0; k < kAccumulators * 4; ++k) acc[k] = 1.0f + 0.001f * k;
  for (int64_t i = 0; i < steps; ++i) {
    for (float& v : acc) v = v * 0.9999999f + 1e-7f;
  }
  float total = 0;
  for (float v : acc) total += v;
  return total;
}

void BM_FmaPeak(benchmark::State& state) {
  float (*fn)(int64_t) = FmaPortable;
  int lanes = 4;
  const char* isa = "portable";
#if defined(__x86_64__)
  switch (aicore::ActiveIsa()) {
    case aicore::Isa::kAvx512: fn = FmaAvx512; lanes = 16; isa = "avx512"; break;
    case aicore::Isa::kAvx2: fn = FmaAvx2; lanes = 8; isa = "avx2"; break;
    case aicore::Isa::kPortable: break;
  }
#endif
  for (auto _ : state) benchmark::DoNotOptimize(fn(kFmaSteps));
  const double flops_per_iter = 2.0 * lanes * kAccumulators * static_cast<double>(kFmaSteps);
  state.counters["flops_per_s"] =
      benchmark::Counter(flops_per_iter, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(isa);
}
BENCHMARK(BM_FmaPeak)->Name("machine/fma_fp32_peak")->MeasureProcessCPUTime()->Repetitions(5)
    ->ReportAggregatesOnly(true);

#if defined(__x86_64__)
// VDPBF16PS: each instruction multiplies 16 lane pairs of bf16 and adds both products to a float
// lane (64 FLOP); 16 independent accumulators cover its latency on two ports.
__attribute__((target("avx512f,avx512bf16"))) float DpBf16Avx512(int64_t steps) {
  __m512 acc[kAccumulators];
  for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_set1_ps(0.001f * k);
  __m512bh a = (__m512bh)_mm512_set1_epi32(0x3f803f80);  // (1.0, 1.0)
  __m512bh b = (__m512bh)_mm512_set1_epi32(0x33d633d6);  // (1e-7, 1e-7) roughly
  // Opaque operands: GCC folds VDPBF16PS on constants, which deleted the whole loop.
  asm volatile("" : "+v"(a), "+v"(b));
  for (int64_t i = 0; i < steps; ++i) {
    for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_dpbf16_ps(acc[k], a, b);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm512_add_ps(sum, acc[k]);
  return LaneSum(sum);
}
#endif

// Skipped (no row) on CPUs without AVX512_BF16.
void BM_Bf16Peak(benchmark::State& state) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512bf16")) {
    state.SkipWithError("skipped: no AVX512_BF16 on this CPU");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(DpBf16Avx512(kFmaSteps));
  state.counters["flops_per_s"] = benchmark::Counter(
      64.0 * kAccumulators * static_cast<double>(kFmaSteps),
      benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("avx512_bf16 vdpbf16ps");
#else
  state.SkipWithError("skipped: no AVX512_BF16 on this CPU");
#endif
}
BENCHMARK(BM_Bf16Peak)->Name("machine/fma_bf16_peak")->MeasureProcessCPUTime()->Repetitions(5)
    ->ReportAggregatesOnly(true);

// The three STREAM arrays, allocated and touched once for all stream rows.
struct StreamArrays {
  uint64_t n;
  aicore::bench::HostArray a, b, c;
  explicit StreamArrays(uint64_t bytes)
      : n(bytes / sizeof(double)), a(n * sizeof(double)), b(n * sizeof(double)),
        c(n * sizeof(double)) {
    double* pa = a.as<double>();
    double* pb = b.as<double>();
    for (uint64_t i = 0; i < n; ++i) {
      pa[i] = 1.0;
      pb[i] = 2.0;
    }
  }
};

StreamArrays& Arrays() {
  static auto* arrays = new StreamArrays(aicore::bench::StreamArrayBytes());
  return *arrays;
}

void BM_StreamCopy(benchmark::State& state) {
  StreamArrays& s = Arrays();
  for (auto _ : state) {
    StreamCopy(s.c.as<double>(), s.a.as<double>(), s.n);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_s"] = benchmark::Counter(
      2.0 * sizeof(double) * s.n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["array_bytes"] = static_cast<double>(s.n * sizeof(double));
}
BENCHMARK(BM_StreamCopy)->Name("machine/stream_copy")->MeasureProcessCPUTime()->Iterations(1)
    ->Repetitions(7)->ReportAggregatesOnly(true);

void BM_StreamCopyNt(benchmark::State& state) {
  StreamArrays& s = Arrays();
  for (auto _ : state) {
    StreamCopyNt(s.c.as<double>(), s.a.as<double>(), s.n);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_s"] = benchmark::Counter(
      2.0 * sizeof(double) * s.n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["array_bytes"] = static_cast<double>(s.n * sizeof(double));
#if defined(__x86_64__)
  state.SetLabel(aicore::ActiveIsa() == aicore::Isa::kAvx512 ? "avx512 64-byte NT stores"
                                                             : "sse2 16-byte NT stores");
#endif
}
BENCHMARK(BM_StreamCopyNt)->Name("machine/stream_copy_nt")->MeasureProcessCPUTime()
    ->Iterations(1)->Repetitions(7)->ReportAggregatesOnly(true);

void BM_StreamAdd(benchmark::State& state) {
  StreamArrays& s = Arrays();
  for (auto _ : state) {
    StreamAdd(s.c.as<double>(), s.a.as<double>(), s.b.as<double>(), s.n);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_s"] = benchmark::Counter(
      3.0 * sizeof(double) * s.n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["array_bytes"] = static_cast<double>(s.n * sizeof(double));
}
BENCHMARK(BM_StreamAdd)->Name("machine/stream_add")->MeasureProcessCPUTime()->Iterations(1)
    ->Repetitions(7)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
