// Mmad alone, one thread: GFLOP/s per shape and dtype of the compute kernel (RunMmad on L0-sized
// host buffers) and of the AscendC API (Mmad called repeatedly inside one cube kernel), next to
// an FMA peak loop and a VDPBF16PS peak loop measured in the same binary; each row reports its
// fraction of the matching peak (pct_of_fma_peak / pct_of_bf16_peak). Times are CPU time, so the
// ratios hold on a shared machine; the peaks are the best of ~0.3 s of thread CPU time.
//
//   build-rel/benchmarks/bench_mmad --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "aicore/core/cpu.h"
#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/kernel/cube/mmad_kernels.h"
#include "aicore/runtime/launch.h"
#include "benchmarks/bench_util.h"

namespace {

namespace cube = aicore::kernel::cube;

// --- Peak loops: 24 independent accumulators (4-cycle latency x 2 ports x 3 of slack) --------

constexpr int kAccumulators = 24;
// Read through a volatile so the compiler cannot fold or hoist the peak loops.
volatile int64_t g_peak_steps = 1 << 18;

#if defined(__x86_64__)
// Returns lane 0 (the reduce intrinsics trip GCC 12's -Wuninitialized in its own header).
__attribute__((target("avx512f"))) float Lane0(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  return lanes[0];
}

__attribute__((target("avx512f,fma"))) float FmaLoop(int64_t steps) {
  __m512 acc[kAccumulators];
  for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_set1_ps(1.0f + 0.001f * k);
  const __m512 a = _mm512_set1_ps(0.9999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < steps; ++i) {
#pragma GCC unroll 24
    for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm512_add_ps(sum, acc[k]);
  return Lane0(sum);
}

__attribute__((target("avx512f,avx512bf16"))) float DpBf16Loop(int64_t steps) {
  __m512 acc[kAccumulators];
  for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_set1_ps(0.001f * k);
  const __m512bh a = (__m512bh)_mm512_set1_epi32(0x3f803f80);
  const __m512bh b = (__m512bh)_mm512_set1_epi32(0x33d633d6);
  for (int64_t i = 0; i < steps; ++i) {
#pragma GCC unroll 24
    for (int k = 0; k < kAccumulators; ++k) acc[k] = _mm512_dpbf16_ps(acc[k], a, b);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm512_add_ps(sum, acc[k]);
  return Lane0(sum);
}
#endif

bool HasAvx512() { return aicore::DetectedIsa() >= aicore::Isa::kAvx512; }
bool HasBf16Dot() {
#if defined(__x86_64__)
  return HasAvx512() && __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Returns the best GFLOP/s of `loop` (`flops` per step and accumulator) over ~0.3 s of this
// thread's CPU time, so other processes on a shared machine do not lower it.
double BestGflops(float (*loop)(int64_t), double flops) {
  double best = 0;
  const double start = ThreadSeconds();
  while (ThreadSeconds() - start < 0.3) {
    const int64_t steps = g_peak_steps;
    const double t0 = ThreadSeconds();
    benchmark::DoNotOptimize(loop(steps));
    const double s = ThreadSeconds() - t0;
    best = std::max(best, flops * kAccumulators * static_cast<double>(steps) / s * 1e-9);
  }
  return best;
}

// The peaks the ratios use, measured once per run (best of ~0.3 s; 0 when unavailable).
double FmaPeakGflops() {
#if defined(__x86_64__)
  static const double peak = HasAvx512() ? BestGflops(FmaLoop, 32.0) : 0.0;
  return peak;
#else
  return 0;
#endif
}
double Bf16PeakGflops() {
#if defined(__x86_64__)
  static const double peak = HasBf16Dot() ? BestGflops(DpBf16Loop, 64.0) : 0.0;
  return peak;
#else
  return 0;
#endif
}

void BM_FmaPeak(benchmark::State& state) {
#if defined(__x86_64__)
  if (!HasAvx512()) return state.SkipWithError("skipped: no AVX-512");
  const int64_t steps = g_peak_steps;
  for (auto _ : state) benchmark::DoNotOptimize(FmaLoop(g_peak_steps));
  state.counters["GFLOPS"] = benchmark::Counter(32.0 * kAccumulators * steps * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("vfmadd231ps zmm");
#else
  state.SkipWithError("skipped: not x86-64");
#endif
}
BENCHMARK(BM_FmaPeak)->Name("mmad/peak/fma_fp32");

void BM_Bf16Peak(benchmark::State& state) {
#if defined(__x86_64__)
  if (!HasBf16Dot()) return state.SkipWithError("skipped: no AVX512_BF16");
  const int64_t steps = g_peak_steps;
  for (auto _ : state) benchmark::DoNotOptimize(DpBf16Loop(g_peak_steps));
  state.counters["GFLOPS"] = benchmark::Counter(64.0 * kAccumulators * steps * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("vdpbf16ps zmm");
#else
  state.SkipWithError("skipped: not x86-64");
#endif
}
BENCHMARK(BM_Bf16Peak)->Name("mmad/peak/dpbf16");

// --- Mmad rows ---------------------------------------------------------------------------------

template <typename S>
constexpr cube::MmadType TypeOf() {
  if constexpr (std::is_same_v<S, aicore::half>)
    return cube::MmadType::kF16;
  else if constexpr (std::is_same_v<S, aicore::bfloat16>)
    return cube::MmadType::kBF16;
  else if constexpr (std::is_same_v<S, int8_t>)
    return cube::MmadType::kI8;
  else
    return cube::MmadType::kF32;
}

template <typename S>
void FillRandom(S* p, size_t n) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> d(-64, 64);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<S>(static_cast<float>(d(rng)) / 64.0f);
}

void SetRateCounters(benchmark::State& state, double flops_per_iter, cube::MmadType type) {
  state.counters["GFLOPS"] =
      benchmark::Counter(flops_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  // Float rows against the FMA peak; bf16 rows also against the VDPBF16PS peak (int8: GOPS).
  auto pct = [&](const char* name, double peak) {
    if (peak <= 0) return;
    state.counters[name] = benchmark::Counter(100.0 * flops_per_iter * 1e-9 / peak,
                                              benchmark::Counter::kIsIterationInvariantRate);
  };
  if (type != cube::MmadType::kI8) pct("pct_of_fma_peak", FmaPeakGflops());
  if (type == cube::MmadType::kBF16) pct("pct_of_bf16_peak", Bf16PeakGflops());
  state.SetLabel(cube::MmadKernelName(type));
}

// Fills `n` values cheaply (a pattern on a 1/64 grid in [-1, 1]).
template <typename S>
void FillPattern(S* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    p[i] = static_cast<S>(static_cast<float>(int(i * 37 % 129) - 64) / 64.0f);
}

// The compute kernel alone on host buffers laid out as L0A/L0B/L0C (C accumulated: the k-loop
// of a matmul calls Mmad with cmatrixInitVal false after the first step).
template <typename S>
void BM_MmadKernel(benchmark::State& state) {
  const auto m = static_cast<uint32_t>(state.range(0));
  const auto n = static_cast<uint32_t>(state.range(1));
  const auto k = static_cast<uint32_t>(state.range(2));
  constexpr uint32_t kK0 = 32 / sizeof(S);
  const uint32_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + kK0 - 1) / kK0;
  aicore::bench::HostArray a(uint64_t{m1} * k1 * 512), b(uint64_t{k1} * n1 * 512),
      c(uint64_t{m1} * n1 * 1024);
  FillRandom(a.as<S>(), a.bytes() / sizeof(S));
  FillRandom(b.as<S>(), b.bytes() / sizeof(S));
  cube::MmadJob job;
  job.type = TypeOf<S>();
  job.init = cube::MmadInit::kAccumulate;
  job.m = m, job.n = n, job.k = k, job.m1 = m1, job.n1 = n1, job.a_k1 = k1, job.b_k1 = k1;
  job.a = a.as<S>();
  job.b = b.as<S>();
  job.c = c.as<float>();
  for (auto _ : state) {
    cube::RunMmad(job);
    benchmark::ClobberMemory();
  }
  SetRateCounters(state, 2.0 * m * n * k, job.type);
}

// The AscendC API: 64 Mmad calls per launch of a one-block cube kernel on TBuf tensors.
template <typename S>
void BM_MmadApi(benchmark::State& state) {
  using Acc = std::conditional_t<std::is_same_v<S, int8_t>, int32_t, float>;
  const auto m = static_cast<uint16_t>(state.range(0));
  const auto n = static_cast<uint16_t>(state.range(1));
  const auto k = static_cast<uint16_t>(state.range(2));
  constexpr uint32_t kK0 = 32 / sizeof(S);
  const uint32_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + kK0 - 1) / kK0;
  constexpr int kCalls = 64;
  for (auto _ : state) {
    const auto st = aicore::RunKernel("bench_mmad", 1, {.mode = aicore::KernelMode::kAic}, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<AscendC::TPosition::A2> a_buf;
      AscendC::TBuf<AscendC::TPosition::B2> b_buf;
      AscendC::TBuf<AscendC::TPosition::CO1> c_buf;
      pipe.InitBuffer(a_buf, m1 * k1 * 512);
      pipe.InitBuffer(b_buf, k1 * n1 * 512);
      pipe.InitBuffer(c_buf, m1 * n1 * 1024);
      auto l0a = a_buf.Get<S>();
      auto l0b = b_buf.Get<S>();
      auto l0c = c_buf.Get<Acc>();
      FillPattern(l0a.data(), l0a.GetSize());
      FillPattern(l0b.data(), l0b.GetSize());
      AscendC::MmadParams p;
      p.m = m;
      p.n = n;
      p.k = k;
      for (int i = 0; i < kCalls; ++i) {
        p.cmatrixInitVal = i == 0;
        AscendC::Mmad(l0c, l0a, l0b, p);
      }
    });
    if (!st.ok()) return state.SkipWithError(st.message().c_str());
  }
  SetRateCounters(state, 2.0 * m * n * k * kCalls, TypeOf<S>());
}

// The 16 x 48 rows keep A, B and C in L1: the kernel's own ceiling without cache effects.
void KernelShapes(benchmark::internal::Benchmark* b) {
  b->Args({128, 128, 64})
      ->Args({128, 256, 64})
      ->Args({64, 256, 128})
      ->Args({128, 256, 128})
      ->Args({256, 256, 256})
      ->Args({100, 100, 100})
      ->Args({16, 48, 64})
      ->Args({16, 48, 256});
}
// Shapes whose operands fit L0A/L0B (64 KB) and L0C (128 KB) for the dtype.
// The kernel runs on a worker thread: process CPU time (the launching thread sleeps).
void ApiShapesF32(benchmark::internal::Benchmark* b) {
  b->Args({128, 128, 64})->Args({128, 256, 64})->Args({64, 256, 64})->MeasureProcessCPUTime();
}
void ApiShapes16(benchmark::internal::Benchmark* b) {
  b->Args({128, 128, 64})
      ->Args({128, 256, 64})
      ->Args({64, 256, 128})
      ->Args({128, 256, 128})
      ->MeasureProcessCPUTime();
}

BENCHMARK(BM_MmadKernel<float>)->Name("mmad/kernel/fp32")->Apply(KernelShapes);
BENCHMARK(BM_MmadKernel<aicore::bfloat16>)->Name("mmad/kernel/bf16")->Apply(KernelShapes);
BENCHMARK(BM_MmadKernel<aicore::half>)->Name("mmad/kernel/fp16")->Apply(KernelShapes);
BENCHMARK(BM_MmadKernel<int8_t>)->Name("mmad/kernel/int8")->Args({128, 256, 128});
BENCHMARK(BM_MmadApi<float>)->Name("mmad/api/fp32")->Apply(ApiShapesF32);
BENCHMARK(BM_MmadApi<aicore::bfloat16>)->Name("mmad/api/bf16")->Apply(ApiShapes16);
BENCHMARK(BM_MmadApi<aicore::half>)->Name("mmad/api/fp16")->Apply(ApiShapes16);

// --- LoadData: a 64 KB fill of L0A/L0B (128 fractals, 255 max per call: one call) ------------

// The fractal moves of one LoadData call (detail::LoadFractals, what the API runs on MTE1).
template <typename T>
void BM_LoadData(benchmark::State& state) {
  using AscendC::detail::LoadDst;
  const auto dst_kind = static_cast<LoadDst>(state.range(0));
  const bool transpose = state.range(1) != 0;
  constexpr uint32_t kFracs = 128;
  aicore::bench::HostArray src(kFracs * 512), dst(kFracs * 512);
  FillPattern(src.as<T>(), src.bytes() / sizeof(T));
  AscendC::detail::LoadJob job;
  job.esize = sizeof(T);
  job.b_order = AscendC::detail::l0::BOrderOf<T>();
  job.dst_kind = dst_kind;
  job.transpose = transpose;
  // LoadDataWithTranspose of 32- and 8-bit types moves two-fractal squares.
  job.fracs_per_repeat = transpose && sizeof(T) != 2 ? 2 : 1;
  job.repeat = kFracs / job.fracs_per_repeat;
  AscendC::detail::PlanLoad(job, "LoadData", 0, 1, job.fracs_per_repeat - 1, 0, 0,
                            AscendC::detail::SrcLoc::current());
  for (auto _ : state) {
    AscendC::detail::LoadFractals(dst.as<uint8_t>(), src.as<uint8_t>(), job);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kFracs * 512);
}

void BM_Memcpy64K(benchmark::State& state) {
  aicore::bench::HostArray src(65536), dst(65536);
  for (auto _ : state) {
    std::memcpy(dst.as<uint8_t>(), src.as<uint8_t>(), 65536);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 65536);
}

// Args: destination (1 = L0A, 2 = L0B), transpose (ifTranspose for 16-bit types, else the
// LoadDataWithTranspose squares).
BENCHMARK(BM_Memcpy64K)->Name("mmad/load_data/memcpy_64KiB");
BENCHMARK(BM_LoadData<float>)
    ->Name("mmad/load_data/fp32_64KiB")
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1});
BENCHMARK(BM_LoadData<aicore::half>)
    ->Name("mmad/load_data/fp16_64KiB")
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({2, 0})
    ->Args({2, 1});
BENCHMARK(BM_LoadData<aicore::bfloat16>)
    ->Name("mmad/load_data/bf16_64KiB")
    ->Args({2, 0})
    ->Args({2, 1});
BENCHMARK(BM_LoadData<int8_t>)
    ->Name("mmad/load_data/int8_64KiB")
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1});

}  // namespace

BENCHMARK_MAIN();
