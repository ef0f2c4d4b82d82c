// The matmul with a fused epilogue on one thread, out = gelu_erf(a @ b + bias) + residual in fp32:
// the fused mix kernel (aicore::ops::MatmulEpilogue), the same math from aicore's separate
// operators through GM (aicore::ops::MatmulEpilogueUnfused: Matmul, Add, GeluV2, Add), and
// oneDNN's matmul primitive with a bias and the post-ops eltwise gelu_erf + binary add, all in
// the same binary. Rows report GFLOP/s (2 M N K per run); run_all.py turns them into
// ratio_to_unfused and ratio_to_onednn_postops. The fused row's ".../2threads" twin runs on two
// worker threads and reports wall time (its flops_per_s is still per process CPU second);
// run_all.py gives its wall-time speedup over the 1-thread row and the CPUs busy (process CPU /
// wall of the 2-thread row).
// The reps measure the steady state: each row's first call in the process is made before its
// first rep and excluded from every rep. That call also pays for the memory a call keeps for the
// next ones: the launch's workspace from the device allocator (the fused kernel's GM slots, the
// unfused chain's fp32 product), the panel cache's arena (Note [Packed panel cache]), oneDNN's
// scratchpad; on the 2-vCPU VM, where fresh pages are slow, 0.1-0.4 s at 4096^3. Its
// process CPU seconds are the counter first_call_s of every rep.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "acl/acl.h"
#include "benchmarks/bench_util.h"
#include "aicore/ops/ops.h"
#include "aicore/sim/scheduler.h"
#include "dnnl.hpp"

namespace {

struct Shape {
  int64_t m, n, k;
  std::string Name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  double Flops() const { return 2.0 * m * n * k; }
};
const Shape kShapes[] = {{2048, 2048, 2048}, {4096, 4096, 4096}};

// Device buffers of one problem, filled once with small values (out with zeros: the first call
// should not be the one that faults its pages in).
struct Problem {
  float *a = nullptr, *b = nullptr, *bias = nullptr, *res = nullptr, *out = nullptr;
  explicit Problem(const Shape& s) {
    for (auto [p, n] : {std::pair<float**, int64_t>{&a, s.m * s.k},
                        {&b, s.k * s.n},
                        {&bias, s.n},
                        {&res, s.m * s.n},
                        {&out, s.m * s.n}}) {
      void* d = nullptr;
      aclrtMalloc(&d, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
      *p = static_cast<float*>(d);
    }
    for (int64_t i = 0; i < s.m * s.k; ++i) a[i] = 0.01f * static_cast<float>(i % 97) - 0.4f;
    for (int64_t i = 0; i < s.k * s.n; ++i) b[i] = 0.002f * static_cast<float>(i % 89) - 0.08f;
    for (int64_t i = 0; i < s.n; ++i) bias[i] = 0.01f * static_cast<float>(i % 13) - 0.06f;
    for (int64_t i = 0; i < s.m * s.n; ++i) res[i] = 0.001f * static_cast<float>(i % 101);
    std::fill(out, out + s.m * s.n, 0.0f);
  }
  ~Problem() {
    for (float* p : {a, b, bias, res, out}) aclrtFree(p);
  }
};

void SetFlops(benchmark::State& state, const Shape& s) {
  state.counters["flops_per_s"] =
      benchmark::Counter(s.Flops(), benchmark::Counter::kIsIterationInvariantRate);
}

using aicore::bench::ProcessCpuSeconds;

// Runs `call` once, untimed, the first time `row` asks, and sets first_call_s to the process CPU
// seconds that first call took. Returns false when the call failed.
template <class Call>
bool WarmUp(benchmark::State& state, const std::string& row, Call call) {
  static std::map<std::string, double> first_call;
  auto it = first_call.find(row);
  if (it == first_call.end()) {
    const double t0 = ProcessCpuSeconds();
    if (!call()) return false;
    it = first_call.emplace(row, ProcessCpuSeconds() - t0).first;
  }
  state.counters["first_call_s"] = it->second;
  return true;
}

void BM_Aicore(benchmark::State& state, Shape s, bool fused, int threads) {
  aicore::sim::SetWorkerThreads(threads);
  Problem p(s);
  using aicore::DType;
  using aicore::ops::DenseRef;
  const aicore::ops::TensorRef a = DenseRef(p.a, DType::kF32, {s.m, s.k});
  const aicore::ops::TensorRef b = DenseRef(p.b, DType::kF32, {s.k, s.n});
  const aicore::ops::TensorRef bias = DenseRef(p.bias, DType::kF32, {s.n});
  const aicore::ops::TensorRef res = DenseRef(p.res, DType::kF32, {s.m, s.n});
  const aicore::ops::TensorRef out = DenseRef(p.out, DType::kF32, {s.m, s.n});
  const auto act = aicore::ops::Activation::kGeluErf;
  std::string error;
  const auto call = [&] {
    const aicore::Status st =
        fused ? aicore::ops::MatmulEpilogue(a, b, &bias, &res, 1, 1, act, out)
              : aicore::ops::MatmulEpilogueUnfused(a, b, &bias, &res, 1, 1, act, out);
    if (!st.ok() || aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      error = st.ok() ? aclGetRecentErrMsg() : st.message();
      return false;
    }
    return true;
  };
  const std::string row = (fused ? "fused/" : "unfused/") + s.Name() + "/" +
                          std::to_string(threads);
  if (!WarmUp(state, row, call)) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    if (!call()) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  SetFlops(state, s);
  aicore::sim::SetWorkerThreads(1);
}

// oneDNN's matmul primitive: dst = gelu_erf(src @ weights + bias) + residual (binary add).
void BM_OneDnnPostOps(benchmark::State& state, Shape s) {
  Problem p(s);
  using dnnl::memory;
  const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const auto f32 = memory::data_type::f32;
  const auto ab = memory::format_tag::ab;
  const memory::desc a_md({s.m, s.k}, f32, ab), b_md({s.k, s.n}, f32, ab),
      bias_md({1, s.n}, f32, ab), c_md({s.m, s.n}, f32, ab);
  dnnl::post_ops po;
  po.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
  po.append_binary(dnnl::algorithm::binary_add, c_md);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, bias_md, c_md), attr, eng);
  const dnnl::matmul prim(pd);
  memory a(a_md, eng, p.a), b(b_md, eng, p.b), bias(bias_md, eng, p.bias), res(c_md, eng, p.res),
      out(c_md, eng, p.out);
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, a},
      {DNNL_ARG_WEIGHTS, b},
      {DNNL_ARG_BIAS, bias},
      {DNNL_ARG_DST, out},
      {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, res}};
  const auto call = [&] {
    prim.execute(strm, args);
    strm.wait();
    return true;
  };
  WarmUp(state, "onednn/" + s.Name(), call);
  for (auto _ : state) call();
  state.SetLabel(pd.impl_info_str());
  SetFlops(state, s);
}

void Register() {
  for (const Shape& s : kShapes) {
    const std::string row = "fp32/" + s.Name() + "_bias_gelu_residual";
    const int reps = s.m >= 4096 ? 2 : 3;
    benchmark::RegisterBenchmark(("ops/matmul_epilogue/" + row).c_str(), BM_Aicore, s, true, 1)
        ->MeasureProcessCPUTime()
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(reps)
        ->ReportAggregatesOnly(true);
    benchmark::RegisterBenchmark(("ops/matmul_epilogue/" + row + "/2threads").c_str(), BM_Aicore,
                                 s, true, 2)
        ->MeasureProcessCPUTime()
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(reps)
        ->ReportAggregatesOnly(true);
    benchmark::RegisterBenchmark(("ops/matmul_epilogue_unfused/" + row).c_str(), BM_Aicore, s,
                                 false, 1)
        ->MeasureProcessCPUTime()
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(reps)
        ->ReportAggregatesOnly(true);
    benchmark::RegisterBenchmark(("baseline/onednn_matmul_postops/" + row).c_str(),
                                 BM_OneDnnPostOps, s)
        ->MeasureProcessCPUTime()
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(reps)
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
