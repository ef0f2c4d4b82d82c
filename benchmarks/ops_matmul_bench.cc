// aclnnMatmul on fp32 next to oneDNN's dnnl_sgemm, measured side by side: every iteration runs
// the aclnn call (GetWorkspaceSize + Matmul + stream synchronisation) and then dnnl_sgemm on the
// same row-major buffers, so both see the same machine load. Rows report aicore's GFLOP/s and,
// as counters, oneDNN's and the ratio; run_all.py prints them (see benchmarks/README.md).
#include <benchmark/benchmark.h>
#include <dnnl.h>
#include <omp.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "aclnnop/aclnn_matmul.h"
#include "aicore/kernel/lib/matmul/host_gemm/panel_cache.h"
#include "aicore/sim/scheduler.h"

namespace {

struct Shape {
  int64_t m, n, k;
  std::string Name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
  double Flops() const { return 2.0 * m * n * k; }
};
const Shape kShapes[] = {{1024, 1024, 1024}, {128, 4096, 4096}, {4096, 4096, 4096}};

double Seconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// A row-major fp32 device tensor filled with small values.
struct Operand {
  Operand(int64_t rows, int64_t cols, int salt) {
    const int64_t shape[2] = {rows, cols};
    const int64_t strides[2] = {cols, 1};
    bytes = rows * cols * 4;
    aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    auto* f = static_cast<float*>(data);
    for (int64_t i = 0; i < rows * cols; ++i) {
      f[i] = 0.01f * static_cast<float>((i + salt) % 97) - 0.4f;
    }
    t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, data);
  }
  ~Operand() {
    aclDestroyTensor(t);
    aclrtFree(data);
  }
  void* data = nullptr;
  int64_t bytes = 0;
  aclTensor* t = nullptr;
};

// Runs C = A * B through aclnnMatmul (cubeMathType 0, KEEP_DTYPE: fp32 stays fp32); returns false
// with the error text in `err` on failure.
bool AclnnMatmul(const Operand& a, const Operand& b, const Operand& c, std::string* err) {
  uint64_t ws_bytes = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnMatmulGetWorkspaceSize(a.t, b.t, c.t, 0, &ws_bytes, &executor) != 0) {
    *err = aclGetRecentErrMsg();
    return false;
  }
  void* ws = nullptr;
  if (ws_bytes > 0) aclrtMalloc(&ws, ws_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  const bool ok = aclnnMatmul(ws, ws_bytes, executor, nullptr) == 0 &&
                  aclrtSynchronizeStream(nullptr) == ACL_SUCCESS;
  if (!ok) *err = aclGetRecentErrMsg();
  if (ws != nullptr) aclrtFree(ws);
  return ok;
}

// Returns oneDNN's version and the ISA dnnl_get_effective_cpu_isa reports, e.g.
// "oneDNN 2.6.3 avx512_core_amx".
std::string OneDnnIsa() {
  const char* isa = "other";
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx512_core_amx: isa = "avx512_core_amx"; break;
    case dnnl_cpu_isa_avx512_core_bf16: isa = "avx512_core_bf16"; break;
    case dnnl_cpu_isa_avx512_core_vnni: isa = "avx512_core_vnni"; break;
    case dnnl_cpu_isa_avx512_core: isa = "avx512_core"; break;
    case dnnl_cpu_isa_avx2_vnni: isa = "avx2_vnni"; break;
    case dnnl_cpu_isa_avx2: isa = "avx2"; break;
    default: break;
  }
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " " + isa;
}

// One row: `threads` aicore worker threads and oneDNN OpenMP threads. One thread: rates per
// process CPU second (time slices lost to other processes do not count, as in bench_matmul);
// two: per wall second, with cpus_busy = process CPU time / wall time of the aicore calls.
// `cache` false turns the packed panel cache off (Note [Packed panel cache]).
void BM_OpsMatmul(benchmark::State& state, Shape s, int threads, bool cache) {
  aicore::sim::SetWorkerThreads(threads);
  omp_set_num_threads(threads);
  aicore::kernel::cube::SetPanelCacheEnabled(cache);
  Operand a(s.m, s.k, 1), b(s.k, s.n, 2), c(s.m, s.n, 0);
  const clockid_t clock = threads == 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
  double t_aicore = 0, t_onednn = 0, cpu_aicore = 0, wall_aicore = 0;
  std::string err;
  for (auto _ : state) {
    const double w0 = Seconds(CLOCK_MONOTONIC), c0 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
    const double t0 = Seconds(clock);
    if (!AclnnMatmul(a, b, c, &err)) {
      state.SkipWithError(err.c_str());
      break;
    }
    const double t1 = Seconds(clock);
    wall_aicore += Seconds(CLOCK_MONOTONIC) - w0;
    cpu_aicore += Seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, static_cast<float*>(a.data), s.k,
                   static_cast<float*>(b.data), s.n, 0.0f, static_cast<float*>(c.data),
                   s.n) != dnnl_success) {
      state.SkipWithError("dnnl_sgemm failed");
      break;
    }
    t_aicore += t1 - t0;
    t_onednn += Seconds(clock) - t1;
  }
  const double iters = static_cast<double>(state.iterations());
  if (t_aicore > 0 && t_onednn > 0) {
    state.counters["flops_per_s"] = s.Flops() * iters / t_aicore;
    state.counters["onednn_flops_per_s"] = s.Flops() * iters / t_onednn;
    state.counters["ratio_to_onednn"] = t_onednn / t_aicore;
    state.counters["wall_flops_per_s"] = s.Flops() * iters / wall_aicore;
    state.counters["cpus_busy"] = cpu_aicore / wall_aicore;
  }
  state.SetLabel(OneDnnIsa());
  aicore::kernel::cube::SetPanelCacheEnabled(true);
  aicore::sim::SetWorkerThreads(0);
}

void Register() {
  benchmark::AddCustomContext("onednn", OneDnnIsa());
  for (const Shape& s : kShapes) {
    for (int threads : {1, 2}) {
      for (bool cache : {true, false}) {
        if (!cache && threads == 2) continue;
        const std::string name =
            std::string(cache ? "ops/matmul/fp32/" : "ops/matmul_no_panel_cache/fp32/") +
            s.Name() + "/threads_" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), BM_OpsMatmul, s, threads, cache)
            ->Unit(benchmark::kMillisecond)->Repetitions(s.m == 4096 ? 3 : 5)  // 4096^3: ~3 s
            ->ReportAggregatesOnly(true)
            ->MinTime(0.5);
      }
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
