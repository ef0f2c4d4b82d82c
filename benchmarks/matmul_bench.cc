// Matmul on one thread: the staged examples (examples/matmul; stages 1-4 take fp16 inputs, stage 5
// is the Matmul API on fp32, fp16 and bf16) next to OpenBLAS and oneDNN sgemm measured in the same
// binary. Rows report GFLOP/s; run_all.py turns them into ratios to machine/fma_fp32_peak,
// machine/fma_bf16_peak and the best BLAS of the same run. Inputs are row-major (ND), C = A * B.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "aicore/core/dtype.h"
#include "aicore/kernel/lib/matmul/matmul.h"
#include "aicore/runtime/gm.h"
#include "tiling/tiling_api.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"

extern "C" {
// The staged example kernels (examples/matmul/matmul_stage*.cpp, linked without their mains).
void matmul_stage1(uint8_t* a, uint8_t* b, uint8_t* c, uint32_t m, uint32_t n, uint32_t k);
void matmul_stage2(uint8_t* a, uint8_t* b, uint8_t* c, uint32_t m, uint32_t n, uint32_t k);
void matmul_stage3(uint8_t* a, uint8_t* b, uint8_t* c, uint32_t m, uint32_t n, uint32_t k);
void matmul_stage4(uint8_t* a, uint8_t* b, uint8_t* c, uint32_t m, uint32_t n, uint32_t k);
void matmul_stage5_fp32(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c, uint8_t* tiling);
void matmul_stage5_bf16(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c, uint8_t* tiling);
void matmul_stage5_fp16(uint8_t* a, uint8_t* b, uint8_t* bias, uint8_t* c, uint8_t* tiling);
}
// Stage 5's host tiling (examples/matmul/matmul_stage5_api.cpp).
int64_t matmul_stage5_tiling(uint32_t m, uint32_t n, uint32_t k, uint32_t cores, const char* dtype,
                             TCubeTiling* tiling);

namespace {

struct Shape {
  int64_t m, n, k;
  std::string Name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  double Flops() const { return 2.0 * m * n * k; }
};
const Shape kShapes[] = {{1024, 1024, 1024}, {128, 4096, 4096}};

// GM buffers of one problem, filled once with small values.
template <typename In>
struct Problem {
  In* a;
  In* b;
  float* c;
  explicit Problem(const Shape& s)
      : a(static_cast<In*>(aicore::GmAlloc(s.m * s.k * sizeof(In)))),
        b(static_cast<In*>(aicore::GmAlloc(s.k * s.n * sizeof(In)))),
        c(static_cast<float*>(aicore::GmAlloc(s.m * s.n * sizeof(float)))) {
    for (int64_t i = 0; i < s.m * s.k; ++i) a[i] = In(0.01f * static_cast<float>(i % 97));
    for (int64_t i = 0; i < s.k * s.n; ++i) b[i] = In(0.02f * static_cast<float>(i % 89) - 0.5f);
  }
  ~Problem() {
    aicore::GmFree(a);
    aicore::GmFree(b);
    aicore::GmFree(c);
  }
};

void SetFlops(benchmark::State& state, const Shape& s) {
  state.counters["flops_per_s"] =
      benchmark::Counter(s.Flops(), benchmark::Counter::kIsIterationInvariantRate);
}

using StageKernel = void (*)(uint8_t*, uint8_t*, uint8_t*, uint32_t, uint32_t, uint32_t);

void BM_Stage(benchmark::State& state, StageKernel kernel, uint32_t blocks, Shape s) {
  aicore::sim::SetWorkerThreads(1);
  Problem<aicore::half> p(s);
  aicore::LaunchOptions o;
  o.mode = aicore::KernelMode::kAic;
  for (auto _ : state) {
    aicore::Status st = aicore::LaunchSync("matmul_stage", kernel, blocks, o, (uint8_t*)p.a,
                                           (uint8_t*)p.b, (uint8_t*)p.c, uint32_t(s.m),
                                           uint32_t(s.n), uint32_t(s.k));
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      return;
    }
  }
  SetFlops(state, s);
}

// Stage 5: the Matmul API (C = A * B + bias) with the tiling its host code picks for `cores` AICs;
// `fused` false runs IterateAll through the cube path (Note [Matmul fused path]).
template <typename In>
void BM_Stage5(benchmark::State& state, uint32_t cores, Shape s, bool fused) {
  aicore::sim::SetWorkerThreads(1);
  AscendC::detail::SetMatmulFusedPath(fused);
  constexpr bool kBf16 = std::is_same_v<In, aicore::bfloat16>;
  constexpr bool kF16 = std::is_same_v<In, aicore::half>;
  const char* dtype = kBf16 ? "bf16" : kF16 ? "fp16" : "fp32";
  Problem<In> p(s);
  auto* bias = static_cast<float*>(aicore::GmAlloc(s.n * sizeof(float)));
  auto* tiling = static_cast<TCubeTiling*>(aicore::GmAlloc(sizeof(TCubeTiling)));
  if (matmul_stage5_tiling(s.m, s.n, s.k, cores, dtype, tiling) != 0) {
    state.SkipWithError("no tiling");
    return;
  }
  aicore::LaunchOptions o;
  o.mode = aicore::KernelMode::kAic;
  const auto kernel = kBf16 ? matmul_stage5_bf16 : kF16 ? matmul_stage5_fp16 : matmul_stage5_fp32;
  for (auto _ : state) {
    aicore::Status st = aicore::LaunchSync("matmul_stage5", kernel, tiling->usedCoreNum, o,
                                           (uint8_t*)p.a, (uint8_t*)p.b, (uint8_t*)bias,
                                           (uint8_t*)p.c, (uint8_t*)tiling);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      break;
    }
  }
  state.SetLabel("base " + std::to_string(tiling->baseM) + "x" + std::to_string(tiling->baseN) +
                 "x" + std::to_string(tiling->baseK) + ", " +
                 std::to_string(tiling->usedCoreNum) + " blocks");
  SetFlops(state, s);
  aicore::GmFree(bias);
  aicore::GmFree(tiling);
  AscendC::detail::SetMatmulFusedPath(true);
}

void BM_OpenBlas(benchmark::State& state, Shape s) {
  openblas_set_num_threads(1);
  Problem<float> p(s);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f, p.a, s.k, p.b, s.n,
                0.0f, p.c, s.n);
  }
  state.SetLabel(openblas_get_corename());
  SetFlops(state, s);
}

void BM_OneDnn(benchmark::State& state, Shape s) {
  Problem<float> p(s);
  for (auto _ : state) {
    if (dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, p.a, s.k, p.b, s.n, 0.0f, p.c, s.n) !=
        dnnl_success) {
      state.SkipWithError("dnnl_sgemm failed");
      return;
    }
  }
  SetFlops(state, s);
}

void Register() {
  const StageKernel stages[] = {matmul_stage1, matmul_stage2, matmul_stage3, matmul_stage4};
  for (const Shape& s : kShapes) {
    for (int i = 0; i < 4; ++i) {
      const uint32_t blocks = i == 3 ? 24 : 1;  // stage 4 splits C over a 910B1's 24 AICs
      benchmark::RegisterBenchmark(
          ("matmul/stage" + std::to_string(i + 1) + "/fp16/" + s.Name()).c_str(), BM_Stage,
          stages[i], blocks, s)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(3)
          ->ReportAggregatesOnly(true);
    }
    benchmark::RegisterBenchmark(("matmul/stage5/fp32/" + s.Name()).c_str(), BM_Stage5<float>,
                                 24u, s, true)
        ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(5)
        ->ReportAggregatesOnly(true);
    if (s.m == 1024) {
      benchmark::RegisterBenchmark(("matmul/stage5_cube_path/fp32/" + s.Name()).c_str(),
                                   BM_Stage5<float>, 24u, s, false)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(3)
          ->ReportAggregatesOnly(true);
      benchmark::RegisterBenchmark(("matmul/stage5/fp16/" + s.Name()).c_str(),
                                   BM_Stage5<aicore::half>, 24u, s, true)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(3)
          ->ReportAggregatesOnly(true);
      benchmark::RegisterBenchmark(("matmul/stage5/bf16/" + s.Name()).c_str(),
                                   BM_Stage5<aicore::bfloat16>, 24u, s, true)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(5)
          ->ReportAggregatesOnly(true);
      // The cube path's bf16 (AMX Mmad on every base block, with its fractal copies).
      benchmark::RegisterBenchmark(("matmul/stage5_cube_path/bf16/" + s.Name()).c_str(),
                                   BM_Stage5<aicore::bfloat16>, 24u, s, false)
          ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(5)
          ->ReportAggregatesOnly(true);
    }
    benchmark::RegisterBenchmark(("baseline/openblas_sgemm/" + s.Name()).c_str(), BM_OpenBlas, s)
        ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(5)
        ->ReportAggregatesOnly(true);
    benchmark::RegisterBenchmark(("baseline/onednn_sgemm/" + s.Name()).c_str(), BM_OneDnn, s)
        ->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Repetitions(5)
        ->ReportAggregatesOnly(true);
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
