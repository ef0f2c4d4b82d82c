// The operator library's rows: every operator through the aclnn API (GetWorkspaceSize, launch,
// synchronize: what a framework pays) on one worker thread, measured side by side in one process
// with its baselines on the same device buffers:
// - STREAM Copy (ordinary stores) and Copy with streaming stores over the operator's own bytes
//   (STREAM Add for add), from benchmarks/stream_kernels.h;
// - oneDNN's primitive where oneDNN 2.6 has one: softmax_v2, layer_normalization (forward
//   training with scale and shift: it writes mean and variance as aicore writes mean and rstd),
//   eltwise gelu_tanh, binary add; on one OpenMP thread.
// Each row runs every contender once (warm-up, and a spot check of two rows or 4096 elements of
// the operator's output against a double-precision reference), then AICORE_BENCH_ROUNDS rounds
// (default 5) in rotating order, and reports the median of each contender's process CPU time as
// counters: bytes_per_s (the operator), copy_bytes_per_s, copy_nt_bytes_per_s (or
// add_bytes_per_s), onednn_bytes_per_s. Bytes are counted as STREAM counts them: each element
// read once per input and written once (row statistics and parameter vectors are not counted).
// The .../2threads rows give wall-time scaling from 1 to 2 worker threads beside STREAM Copy
// (Add) split over 2 std::threads. ops/aclnn_overhead_us is the median wall time of a 1-element
// softmax (phase 1 + phase 2 + synchronize). See benchmarks/README.md.
//
// AICORE_BENCH_ARRAY_MB caps each tensor at that many MiB (its rows are cut, the columns kept);
// the label then names the shape measured.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "aicore/core/dtype.h"
#include "aicore/sim/scheduler.h"
#include "benchmarks/stream_kernels.h"

// oneDNN here runs on OpenMP (libgomp, loaded with libdnnl); weak, so a build without it links.
extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace {

using aicore::bench::StreamAdd;
using aicore::bench::StreamCopy;
using aicore::bench::StreamCopyNt;

enum class Op { kSoftmax, kLayerNorm, kRmsNorm, kGelu, kAdd };
enum class Dt { kF32, kF16, kBF16 };

const char* DtName(Dt d) { return d == Dt::kF32 ? "fp32" : d == Dt::kF16 ? "fp16" : "bf16"; }
uint64_t DtSize(Dt d) { return d == Dt::kF32 ? 4 : 2; }
aclDataType AclDt(Dt d) {
  return d == Dt::kF32 ? ACL_FLOAT : d == Dt::kF16 ? ACL_FLOAT16 : ACL_BF16;
}

void Check(aclnnStatus s, const char* what) {
  if (s != 0) {
    throw std::runtime_error(std::string(what) + " failed: " + std::to_string(s) + " " +
                             aclGetRecentErrMsg());
  }
}

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int Rounds() {
  if (const char* env = std::getenv("AICORE_BENCH_ROUNDS")) {
    const int r = std::atoi(env);
    if (r > 0) return r;
  }
  return 5;
}

// The per-tensor cap from AICORE_BENCH_ARRAY_MB in bytes, 0 when unset.
uint64_t TensorCapBytes() {
  if (const char* env = std::getenv("AICORE_BENCH_ARRAY_MB")) {
    const uint64_t mb = std::strtoull(env, nullptr, 10);
    if (mb > 0) return mb << 20;
  }
  return 0;
}

// Device buffers shared by every row, sized for the largest tensor: x and x2 (inputs), y (the
// output every contender writes), per-column params and per-row statistics.
struct Buffers {
  uint64_t bytes = 0;
  void* x = nullptr;
  void* x2 = nullptr;
  void* y = nullptr;
  void* gamma = nullptr;
  void* beta = nullptr;
  void* mean = nullptr;
  void* rstd = nullptr;
  std::string filled;  // what x and x2 hold now ("fp32 ..."), refilled when a row needs other
};

constexpr uint64_t kMaxCols = 32768;
constexpr uint64_t kMaxRows = 65536;

Buffers& Bufs(uint64_t need) {
  static Buffers b;
  if (b.bytes < need) {
    for (void* p : {b.x, b.x2, b.y, b.gamma, b.beta, b.mean, b.rstd}) {
      if (p) aclrtFree(p);
    }
    b.bytes = need;
    for (void** p : {&b.x, &b.x2, &b.y}) {
      Check(aclrtMalloc(p, need, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    }
    for (void** p : {&b.gamma, &b.beta}) {
      Check(aclrtMalloc(p, kMaxCols * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    }
    for (void** p : {&b.mean, &b.rstd}) {
      Check(aclrtMalloc(p, kMaxRows * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    }
    auto* g = static_cast<float*>(b.gamma);
    auto* be = static_cast<float*>(b.beta);
    for (uint64_t c = 0; c < kMaxCols; ++c) {
      g[c] = 1.0f + 0.001f * static_cast<float>(c % 97);
      be[c] = 0.01f * static_cast<float>(c % 13);
    }
    b.filled.clear();
  }
  return b;
}

float InputValue(uint64_t i, int which) {
  // Deterministic values in [-4, 4) without a libm call per element.
  const uint64_t h = (i * 2654435761u + which * 40503u) % 8192u;
  return static_cast<float>(h) / 1024.0f - 4.0f;
}

template <typename T>
void FillAs(void* p, uint64_t n, int which) {
  T* t = static_cast<T*>(p);
  for (uint64_t i = 0; i < n; ++i) t[i] = T(InputValue(i, which));
}

float Load(const void* p, Dt d, uint64_t i) {
  switch (d) {
    case Dt::kF32: return static_cast<const float*>(p)[i];
    case Dt::kF16: return static_cast<float>(static_cast<const aicore::half*>(p)[i]);
    case Dt::kBF16: return static_cast<float>(static_cast<const aicore::bfloat16*>(p)[i]);
  }
  return 0;
}

void Fill(Buffers& b, Dt d, uint64_t n, int inputs) {
  const std::string tag = std::string(DtName(d)) + " " + std::to_string(n) + " " +
                          std::to_string(inputs);
  if (b.filled == tag) return;
  for (int k = 0; k < inputs; ++k) {
    void* p = k == 0 ? b.x : b.x2;
    if (d == Dt::kF32) FillAs<float>(p, n, k);
    if (d == Dt::kF16) FillAs<aicore::half>(p, n, k);
    if (d == Dt::kBF16) FillAs<aicore::bfloat16>(p, n, k);
  }
  b.filled = tag;
}

struct Row {
  Op op;
  Dt dt;
  uint64_t rows, cols;  // (1, n) for the elementwise ops
  bool two_threads = false;
};

const char* OpName(Op op) {
  switch (op) {
    case Op::kSoftmax: return "softmax";
    case Op::kLayerNorm: return "layer_norm";
    case Op::kRmsNorm: return "rms_norm";
    case Op::kGelu: return "gelu";
    case Op::kAdd: return "add";
  }
  return "";
}
bool Elementwise(Op op) { return op == Op::kGelu || op == Op::kAdd; }

std::string ShapeName(const Row& r) {
  return Elementwise(r.op) ? std::to_string(r.cols)
                           : std::to_string(r.rows) + "x" + std::to_string(r.cols);
}
std::string RowName(const Row& r) {
  return std::string("ops/") + OpName(r.op) + "/" + DtName(r.dt) + "/" + ShapeName(r) +
         (r.two_threads ? "/2threads" : "");
}

// The row as measured: rows (or elements) cut to the AICORE_BENCH_ARRAY_MB cap.
Row Measured(const Row& r) {
  Row m = r;
  const uint64_t cap = TensorCapBytes();
  if (cap == 0) return m;
  if (Elementwise(r.op)) {
    m.cols = std::min<uint64_t>(r.cols, std::max<uint64_t>(64, cap / 4));
  } else {
    m.rows = std::min<uint64_t>(r.rows, std::max<uint64_t>(1, cap / (4 * r.cols)));
  }
  return m;
}

aclTensor* Tensor2d(const void* p, Dt d, int64_t rows, int64_t cols) {
  const int64_t shape[2] = {rows, cols};
  const int64_t strides[2] = {cols, 1};
  return aclCreateTensor(shape, 2, AclDt(d), strides, 0, ACL_FORMAT_ND, shape, 2,
                         const_cast<void*>(p));
}
aclTensor* Tensor1d(const void* p, aclDataType d, int64_t n) {
  const int64_t shape[1] = {n};
  const int64_t strides[1] = {1};
  return aclCreateTensor(shape, 1, d, strides, 0, ACL_FORMAT_ND, shape, 1, const_cast<void*>(p));
}

// One aclnn call of the row's operator on the shared buffers: phase 1, workspace, phase 2, sync.
class AclnnRunner {
 public:
  AclnnRunner(const Row& r, const Buffers& b, aclrtStream stream) : r_(r), stream_(stream) {
    if (Elementwise(r.op)) {
      x_ = Tensor1d(b.x, AclDt(r.dt), r.cols);
      x2_ = Tensor1d(b.x2, AclDt(r.dt), r.cols);
      y_ = Tensor1d(b.y, AclDt(r.dt), r.cols);
      float one = 1.0f;
      alpha_ = aclCreateScalar(&one, ACL_FLOAT);
    } else {
      x_ = Tensor2d(b.x, r.dt, r.rows, r.cols);
      y_ = Tensor2d(b.y, r.dt, r.rows, r.cols);
      gamma_ = Tensor1d(b.gamma, ACL_FLOAT, r.cols);
      beta_ = Tensor1d(b.beta, ACL_FLOAT, r.cols);
      mean_ = Tensor2d(b.mean, Dt::kF32, r.rows, 1);
      rstd_ = Tensor2d(b.rstd, Dt::kF32, r.rows, 1);
      const int64_t cols = static_cast<int64_t>(r.cols);
      normalized_ = aclCreateIntArray(&cols, 1);
    }
  }
  ~AclnnRunner() {
    for (aclTensor* t : {x_, x2_, y_, gamma_, beta_, mean_, rstd_}) {
      if (t) aclDestroyTensor(t);
    }
    if (alpha_) aclDestroyScalar(alpha_);
    if (normalized_) aclDestroyIntArray(normalized_);
  }
  AclnnRunner(const AclnnRunner&) = delete;
  AclnnRunner& operator=(const AclnnRunner&) = delete;

  void Run() {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    switch (r_.op) {
      case Op::kSoftmax:
        Check(aclnnSoftmaxGetWorkspaceSize(x_, -1, y_, &ws, &ex), "aclnnSoftmaxGetWorkspaceSize");
        break;
      case Op::kLayerNorm:
        Check(aclnnLayerNormGetWorkspaceSize(x_, normalized_, gamma_, beta_, 1e-5, y_, mean_,
                                             rstd_, &ws, &ex),
              "aclnnLayerNormGetWorkspaceSize");
        break;
      case Op::kRmsNorm:
        Check(aclnnRmsNormGetWorkspaceSize(x_, gamma_, 1e-6, y_, rstd_, &ws, &ex),
              "aclnnRmsNormGetWorkspaceSize");
        break;
      case Op::kGelu:
        Check(aclnnGeluGetWorkspaceSize(x_, y_, &ws, &ex), "aclnnGeluGetWorkspaceSize");
        break;
      case Op::kAdd:
        Check(aclnnAddGetWorkspaceSize(x_, x2_, alpha_, y_, &ws, &ex), "aclnnAddGetWorkspaceSize");
        break;
    }
    void* w = nullptr;
    if (ws > 0) Check(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc(workspace)");
    switch (r_.op) {
      case Op::kSoftmax: Check(aclnnSoftmax(w, ws, ex, stream_), "aclnnSoftmax"); break;
      case Op::kLayerNorm: Check(aclnnLayerNorm(w, ws, ex, stream_), "aclnnLayerNorm"); break;
      case Op::kRmsNorm: Check(aclnnRmsNorm(w, ws, ex, stream_), "aclnnRmsNorm"); break;
      case Op::kGelu: Check(aclnnGelu(w, ws, ex, stream_), "aclnnGelu"); break;
      case Op::kAdd: Check(aclnnAdd(w, ws, ex, stream_), "aclnnAdd"); break;
    }
    Check(aclrtSynchronizeStream(stream_), "aclrtSynchronizeStream");
    if (w) aclrtFree(w);
  }

 private:
  Row r_;
  aclrtStream stream_;
  aclTensor *x_ = nullptr, *x2_ = nullptr, *y_ = nullptr, *gamma_ = nullptr, *beta_ = nullptr,
            *mean_ = nullptr, *rstd_ = nullptr;
  aclScalar* alpha_ = nullptr;
  aclIntArray* normalized_ = nullptr;
};

// oneDNN's primitive for the row on the shared buffers, or none (Available() false).
class OnednnRunner {
 public:
  OnednnRunner(const Row& r, Buffers& b) : eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    using dnnl::memory;
    if (r.dt == Dt::kF16) return;  // oneDNN 2.6 has no fp16 softmax / layer norm on CPU
    const memory::data_type dt = r.dt == Dt::kF32 ? memory::data_type::f32
                                                  : memory::data_type::bf16;
    const auto dims2 = memory::dims{static_cast<int64_t>(r.rows), static_cast<int64_t>(r.cols)};
    const memory::desc md = Elementwise(r.op)
                                ? memory::desc({static_cast<int64_t>(r.cols)}, dt,
                                               memory::format_tag::a)
                                : memory::desc(dims2, dt, memory::format_tag::ab);
    memory src(md, eng_, b.x), dst(md, eng_, b.y);
    switch (r.op) {
      case Op::kSoftmax: {
        dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::softmax_accurate, md, md, 1);
        dnnl::softmax_v2_forward::primitive_desc pd(d, eng_, true);
        if (!pd) return;
        prim_ = dnnl::softmax_v2_forward(pd);
        args_ = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        break;
      }
      case Op::kLayerNorm: {
        const memory::desc stat({static_cast<int64_t>(r.rows)}, memory::data_type::f32,
                                memory::format_tag::a);
        const memory::desc vec({static_cast<int64_t>(r.cols)}, memory::data_type::f32,
                               memory::format_tag::a);
        dnnl::layer_normalization_forward::desc d(
            dnnl::prop_kind::forward_training, md, stat, 1e-5f,
            dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
        dnnl::layer_normalization_forward::primitive_desc pd(d, eng_, true);
        if (!pd) return;
        prim_ = dnnl::layer_normalization_forward(pd);
        args_ = {{DNNL_ARG_SRC, src},
                 {DNNL_ARG_DST, dst},
                 {DNNL_ARG_SCALE, memory(vec, eng_, b.gamma)},
                 {DNNL_ARG_SHIFT, memory(vec, eng_, b.beta)},
                 {DNNL_ARG_MEAN, memory(stat, eng_, b.mean)},
                 {DNNL_ARG_VARIANCE, memory(stat, eng_, b.rstd)}};
        break;
      }
      case Op::kGelu: {
        dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::eltwise_gelu_tanh, md, 0.0f, 0.0f);
        dnnl::eltwise_forward::primitive_desc pd(d, eng_, true);
        if (!pd) return;
        prim_ = dnnl::eltwise_forward(pd);
        args_ = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        break;
      }
      case Op::kAdd: {
        dnnl::binary::desc d(dnnl::algorithm::binary_add, md, md, md);
        dnnl::binary::primitive_desc pd(d, eng_, true);
        if (!pd) return;
        prim_ = dnnl::binary(pd);
        args_ = {{DNNL_ARG_SRC_0, src},
                 {DNNL_ARG_SRC_1, memory(md, eng_, b.x2)},
                 {DNNL_ARG_DST, dst}};
        break;
      }
      case Op::kRmsNorm:
        return;  // no RMS norm primitive in oneDNN 2.6
    }
    ok_ = true;
  }
  bool Available() const { return ok_; }
  void Run() {
    prim_.execute(strm_, args_);
    strm_.wait();
  }

 private:
  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  bool ok_ = false;
};

// Checks rows {0, rows - 1} (elementwise: the first and last 4096 elements) of y against a
// double-precision reference; returns "" or what differs.
std::string SpotCheck(const Row& r, const Buffers& b) {
  const double tol = r.dt == Dt::kF32 ? 1e-4 : r.dt == Dt::kF16 ? 4e-3 : 2e-2;
  auto bad = [&](double got, double want, uint64_t i) -> std::string {
    if (std::fabs(got - want) <= tol * (1 + std::fabs(want))) return "";
    return "element " + std::to_string(i) + ": got " + std::to_string(got) + ", want " +
           std::to_string(want);
  };
  if (Elementwise(r.op)) {
    const uint64_t n = r.cols, k = std::min<uint64_t>(4096, n);
    for (uint64_t i : {uint64_t{0}, n - k}) {
      for (uint64_t j = i; j < i + k; ++j) {
        const double x = Load(b.x, r.dt, j);
        double want;
        if (r.op == Op::kAdd) {
          want = x + Load(b.x2, r.dt, j);
        } else {
          want = 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
        }
        const std::string e = bad(Load(b.y, r.dt, j), want, j);
        if (!e.empty()) return e;
      }
    }
    return "";
  }
  const auto* g = static_cast<const float*>(b.gamma);
  const auto* be = static_cast<const float*>(b.beta);
  for (uint64_t row : {uint64_t{0}, r.rows - 1}) {
    const uint64_t base = row * r.cols;
    std::vector<double> x(r.cols);
    for (uint64_t c = 0; c < r.cols; ++c) x[c] = Load(b.x, r.dt, base + c);
    std::vector<double> want(r.cols);
    if (r.op == Op::kSoftmax) {
      const double m = *std::max_element(x.begin(), x.end());
      double s = 0;
      for (double v : x) s += std::exp(v - m);
      for (uint64_t c = 0; c < r.cols; ++c) want[c] = std::exp(x[c] - m) / s;
    } else if (r.op == Op::kLayerNorm) {
      double mu = 0, var = 0;
      for (double v : x) mu += v;
      mu /= r.cols;
      for (double v : x) var += (v - mu) * (v - mu);
      const double rs = 1 / std::sqrt(var / r.cols + 1e-5);
      for (uint64_t c = 0; c < r.cols; ++c) want[c] = (x[c] - mu) * rs * g[c] + be[c];
    } else {
      double ss = 0;
      for (double v : x) ss += v * v;
      const double rs = 1 / std::sqrt(ss / r.cols + 1e-6);
      for (uint64_t c = 0; c < r.cols; ++c) want[c] = x[c] * rs * g[c];
    }
    for (uint64_t c = 0; c < r.cols; ++c) {
      const std::string e = bad(Load(b.y, r.dt, base + c), want[c], base + c);
      if (!e.empty()) return e;
    }
  }
  return "";
}

struct Contender {
  std::string name;     // counters <name>_cpu_s and <name>_wall_s: medians in seconds
  std::string counter;  // bytes/s counter of the 1-thread rows ("" on 2-thread rows)
  std::function<void()> run;
  std::vector<double> cpu, wall;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs every contender once, then `rounds` rounds; round k starts at contender k mod n.
void MeasureSideBySide(std::vector<Contender>& cs, int rounds) {
  for (Contender& c : cs) c.run();
  for (int k = 0; k < rounds; ++k) {
    for (size_t j = 0; j < cs.size(); ++j) {
      Contender& c = cs[(k + j) % cs.size()];
      const double c0 = CpuSeconds(), w0 = WallSeconds();
      c.run();
      c.cpu.push_back(CpuSeconds() - c0);
      c.wall.push_back(WallSeconds() - w0);
    }
  }
}

// Runs fn(lo, hi) over [0, n) split in `threads` contiguous shares (multiples of 8), one thread
// each.
void SplitOver(int threads, uint64_t n, const std::function<void(uint64_t, uint64_t)>& fn) {
  if (threads == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    const uint64_t lo = n * t / threads / 8 * 8;
    const uint64_t hi = t + 1 == threads ? n : n * (t + 1) / threads / 8 * 8;
    ts.emplace_back([&fn, lo, hi] { fn(lo, hi); });
  }
  for (auto& t : ts) t.join();
}

aclrtStream Stream() {
  static aclrtStream s = [] {
    aclrtStream st = nullptr;
    Check(aclInit(nullptr), "aclInit");
    Check(aclrtSetDevice(0), "aclrtSetDevice");
    Check(aclrtCreateStream(&st), "aclrtCreateStream");
    return st;
  }();
  return s;
}

void BM_OpRow(benchmark::State& state, Row row) {
  try {
    const Row r = Measured(row);
    const int inputs = r.op == Op::kAdd ? 2 : 1;
    const uint64_t elements = r.rows * r.cols;
    const uint64_t tensor_bytes = elements * DtSize(r.dt);
    aclrtStream stream = Stream();
    Buffers& b = Bufs(Measured(Row{Op::kAdd, Dt::kF32, 1, 67108864}).cols * 4);
    Fill(b, r.dt, elements, inputs);
    aicore::sim::SetWorkerThreads(1);
    if (omp_set_num_threads) omp_set_num_threads(1);
    AclnnRunner aclnn(r, b, stream);
    const uint64_t words = tensor_bytes / 8;  // doubles per operand for the STREAM loops
    auto* xd = static_cast<double*>(b.x);
    auto* x2d = static_cast<double*>(b.x2);
    auto* yd = static_cast<double*>(b.y);
    auto stream_op = [=](int threads) {
      SplitOver(threads, words, [=](uint64_t lo, uint64_t hi) {
        if (inputs == 2) {
          StreamAdd(yd + lo, xd + lo, x2d + lo, hi - lo);
        } else {
          StreamCopy(yd + lo, xd + lo, hi - lo);
        }
      });
    };
    std::vector<Contender> cs;
    std::optional<OnednnRunner> dnnl;
    cs.push_back({"aicore", row.two_threads ? "" : "bytes_per_s", [&] { aclnn.Run(); }, {}, {}});
    if (!row.two_threads) {
      cs.push_back({"stream", inputs == 2 ? "add_bytes_per_s" : "copy_bytes_per_s",
                    [&] { stream_op(1); }, {}, {}});
      if (inputs == 1) {
        cs.push_back({"stream_nt", "copy_nt_bytes_per_s", [=] { StreamCopyNt(yd, xd, words); },
                      {}, {}});
      }
      dnnl.emplace(r, b);
      if (dnnl->Available()) {
        cs.push_back({"onednn", "onednn_bytes_per_s", [&] { dnnl->Run(); }, {}, {}});
      }
    } else {
      cs.push_back({"aicore2", "", [&] {
                      aicore::sim::SetWorkerThreads(2);
                      aclnn.Run();
                      aicore::sim::SetWorkerThreads(1);
                    }, {}, {}});
      cs.push_back({"stream", "", [&] { stream_op(1); }, {}, {}});
      cs.push_back({"stream2", "", [&] { stream_op(2); }, {}, {}});
    }
    // The operator's result, checked before any baseline overwrites y.
    aclnn.Run();
    const std::string wrong = SpotCheck(r, b);
    if (!wrong.empty()) {
      state.SkipWithError((RowName(row) + ": wrong result, " + wrong).c_str());
      return;
    }
    for (auto _ : state) MeasureSideBySide(cs, Rounds());
    const double bytes = static_cast<double>(tensor_bytes) * (inputs + 1);
    for (const Contender& c : cs) {
      const double cpu = Median(c.cpu);
      if (!c.counter.empty()) state.counters[c.counter] = bytes / cpu;
      state.counters[c.name + "_cpu_s"] = cpu;
      state.counters[c.name + "_wall_s"] = Median(c.wall);
    }
    if (row.two_threads) {
      state.counters["scaling"] = Median(cs[0].wall) / Median(cs[1].wall);
      state.counters["copy_scaling"] = Median(cs[2].wall) / Median(cs[3].wall);
      state.counters["cpu_busy"] = Median(cs[1].cpu) / Median(cs[1].wall);
      state.counters["bytes_per_s"] = bytes / Median(cs[1].wall);
    }
    std::string label = "shape " + ShapeName(r);
    if (r.rows != row.rows || r.cols != row.cols) {
      label += " (cut from " + ShapeName(row) + " by AICORE_BENCH_ARRAY_MB)";
    }
    label += ", " + std::to_string(Rounds()) + " rounds side by side";
    if (!row.two_threads && !(dnnl && dnnl->Available())) label += ", no oneDNN primitive";
    state.SetLabel(label);
  } catch (const std::exception& e) {
    state.SkipWithError((RowName(row) + ": " + e.what()).c_str());
  }
}

// Phase 1 + phase 2 + synchronize of a 1-element fp32 softmax, median wall microseconds.
void BM_AclnnOverhead(benchmark::State& state) {
  try {
    aclrtStream stream = Stream();
    aicore::sim::SetWorkerThreads(1);
    void *x = nullptr, *y = nullptr;
    Check(aclrtMalloc(&x, 64, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    Check(aclrtMalloc(&y, 64, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    aclTensor* tx = Tensor1d(x, ACL_FLOAT, 1);
    aclTensor* ty = Tensor1d(y, ACL_FLOAT, 1);
    std::vector<double> us;
    for (auto _ : state) {
      for (int i = 0; i < 2100; ++i) {
        const double w0 = WallSeconds();
        uint64_t ws = 0;
        aclOpExecutor* ex = nullptr;
        Check(aclnnSoftmaxGetWorkspaceSize(tx, -1, ty, &ws, &ex), "aclnnSoftmaxGetWorkspaceSize");
        void* w = nullptr;
        if (ws > 0) Check(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        Check(aclnnSoftmax(w, ws, ex, stream), "aclnnSoftmax");
        Check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
        if (w) aclrtFree(w);
        if (i >= 100) us.push_back((WallSeconds() - w0) * 1e6);  // 100 warm-up calls
      }
    }
    state.counters["overhead_us"] = Median(us);
    std::sort(us.begin(), us.end());
    state.counters["p90_us"] = us[us.size() * 9 / 10];
    state.SetLabel("median of 2000 calls after 100 warm-up");
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclrtFree(x);
    aclrtFree(y);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Row> rows = {
      {Op::kSoftmax, Dt::kF32, 4096, 4096},    {Op::kSoftmax, Dt::kF32, 65536, 1024},
      {Op::kSoftmax, Dt::kF32, 1024, 32768},   {Op::kLayerNorm, Dt::kF32, 8192, 4096},
      {Op::kRmsNorm, Dt::kF32, 8192, 4096},    {Op::kGelu, Dt::kF32, 1, 67108864},
      {Op::kAdd, Dt::kF32, 1, 67108864},       {Op::kSoftmax, Dt::kBF16, 4096, 4096},
      {Op::kSoftmax, Dt::kF16, 4096, 4096},    {Op::kLayerNorm, Dt::kBF16, 8192, 4096},
      {Op::kLayerNorm, Dt::kF16, 8192, 4096},
  };
  for (Row r : std::vector<Row>{{Op::kSoftmax, Dt::kF32, 4096, 4096},
                                {Op::kLayerNorm, Dt::kF32, 8192, 4096},
                                {Op::kRmsNorm, Dt::kF32, 8192, 4096},
                                {Op::kGelu, Dt::kF32, 1, 67108864},
                                {Op::kAdd, Dt::kF32, 1, 67108864}}) {
    r.two_threads = true;
    rows.push_back(r);
  }
  for (const Row& r : rows) {
    benchmark::RegisterBenchmark(RowName(r).c_str(), BM_OpRow, r)->Iterations(1)
        ->MeasureProcessCPUTime();
  }
  benchmark::RegisterBenchmark("ops/aclnn_overhead_us", BM_AclnnOverhead)->Iterations(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
