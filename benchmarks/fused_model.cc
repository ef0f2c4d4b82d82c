// fused_model: the modeled time on a chip (default ascend910b1; AICORE_CHIP or argv names
// another) of fused against unfused operators, the "Fused vs unfused" table of
// docs/performance.md (scripts/fused_table.py renders it). Each case runs once through the C++ API
// (aicore::ops) under a perf::Profiler:
//   - attention, BNSD, non-causal: FlashAttentionForward (one mix kernel) against the composition
//     Matmul(Q, K^T) -> Muls(scale) -> Softmax -> Matmul(P, V) through GM (fp32:
//     UnfusedAttentionForward; fp16: the same four operators on fp16 scores, composed here
//     because UnfusedAttentionForward takes FLOAT only);
//   - out = gelu_erf(a @ b + bias) + residual: MatmulEpilogue (one mix kernel) against
//     MatmulEpilogueUnfused (Matmul, Add, GeluV2, Add through GM).
// "modeled us" is the sum over the case's launches of each launch's kernel time (body + the
// preset's launch overhead). Pipe ratios are chip-wide: a pipe's busy time summed over the cores
// of its type and over the launches / (the chip's cores of that type x the modeled time), so a
// vector-only launch of the composition counts as idle time of the cube's pipes. "peak MiB" is
// the device allocator's peak (GetDeviceMemoryStats) over the case, operands included; "extra
// MiB" the part the op took beyond its operands (workspace, scores).
//
// A case whose batch is larger than --batch-slice (default 1 for the transformer-sized attention)
// is modeled on that slice of the batch and its time scaled by batch / slice (the launch
// overheads not: the full shape has as many launches): the slice's launches already fill every
// core (the output says so, with the blocks), and the batches are independent. Its peak memory
// comes from a second, unprofiled run at the full shape.
//
//   build/benchmarks/fused_model [chip] [--small] [--batch-slice N] [--json FILE]
//                                [--attention B,N,S,D] [--attention-grad B,N,S,D]
//                                [--epilogue M,N,K] [--fused-only]
//     --small: only the small shapes (a quick run, tests/docs/fused_table_test.py)
//     --attention / --epilogue: only these shapes (both dtypes of attention, fp16 epilogue);
//     --attention-grad: the fused backward (FlashAttentionBackward, its dQ and dK/dV launches,
//     after an unprofiled forward) of this shape, fp32 and fp16, BNSD, non-causal; its per-core
//     line lists each launch's metrics; --hotspots N: each fused launch's N longest source lines
//     (exec + stall time over all cores) under it;
//     --fused-only: skip the unfused compositions. With either shape option, each fused row is
//     followed by its launch's msprof-style per-core metrics (aic_mac_ratio, ...: busy over the
//     time of the cores that ran) and its modeled body time.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aicore/arch/chip.h"
#include "aicore/core/dtype.h"
#include "aicore/ops/ops.h"
#include "aicore/perf/profiler.h"
#include "aicore/runtime/device_memory.h"

namespace {

namespace ops = aicore::ops;
namespace perf = aicore::perf;
using aicore::DType;
using aicore::Status;

bool g_fused_only = false;  // --fused-only
int g_hotspots = 0;         // --hotspots N

const char* DtName(DType d) {
  return d == DType::kF32 ? "fp32" : d == DType::kF16 ? "fp16" : "bf16";
}

// A device buffer of `n` elements of `dt` holding small values.
void* DeviceValues(int64_t n, DType dt, float seed) {
  const size_t bytes = static_cast<size_t>(n) * aicore::DTypeSize(dt);
  void* p = aicore::rt::DeviceMalloc(bytes > 0 ? bytes : 4, nullptr);
  for (int64_t i = 0; i < n; ++i) {
    const float v = 0.5f * std::sin(seed + 0.37f * static_cast<float>(i % 4099));
    if (dt == DType::kF32) {
      static_cast<float*>(p)[i] = v;
    } else {
      static_cast<uint16_t*>(p)[i] = aicore::FloatToHalfBits(v);
    }
  }
  return p;
}

// The pipes reported, per core type: (metric prefix, pipe name, pipe).
struct PipeColumn {
  const char* label;
  aicore::sim::CoreType type;
  aicore::sim::Pipe pipe;
};
const PipeColumn kPipes[] = {
    {"aic_mac", aicore::sim::CoreType::kAic, aicore::sim::Pipe::kM},
    {"aic_mte1", aicore::sim::CoreType::kAic, aicore::sim::Pipe::kMte1},
    {"aic_mte2", aicore::sim::CoreType::kAic, aicore::sim::Pipe::kMte2},
    {"aic_fixpipe", aicore::sim::CoreType::kAic, aicore::sim::Pipe::kFix},
    {"aic_scalar", aicore::sim::CoreType::kAic, aicore::sim::Pipe::kS},
    {"aiv_vec", aicore::sim::CoreType::kAiv, aicore::sim::Pipe::kV},
    {"aiv_mte2", aicore::sim::CoreType::kAiv, aicore::sim::Pipe::kMte2},
    {"aiv_mte3", aicore::sim::CoreType::kAiv, aicore::sim::Pipe::kMte3},
    {"aiv_scalar", aicore::sim::CoreType::kAiv, aicore::sim::Pipe::kS},
};
constexpr int kPipeColumns = sizeof(kPipes) / sizeof(kPipes[0]);

struct Outcome {
  std::string error;  // empty: ok
  int launches = 0;
  uint32_t max_blocks = 0;
  double modeled_us = 0, overhead_us = 0;
  double ratio[kPipeColumns] = {};
  double peak_bytes = 0, extra_bytes = 0;
  double host_s = 0;
  std::string metrics;  // the last launch's per-core msprof-style ratios
  std::vector<std::string> hotspots;  // --hotspots: each launch's longest source lines
};

// Runs `body` (operands already allocated: `before` bytes live) under a profiler replaying on
// `chip`, and collects the modeled results.
Outcome Measure(const aicore::arch::Chip& chip, const std::function<Status()>& body,
                size_t before, bool every_launch = false) {
  Outcome o;
  perf::Profiler prof(chip);
  const auto t0 = std::chrono::steady_clock::now();
  prof.Attach();
  Status s = body();
  if (s.ok() && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
    s = Status(aicore::StatusCode::kInternal, aclGetRecentErrMsg());
  }
  prof.Detach();
  const auto stats = aicore::rt::GetDeviceMemoryStats(0);
  o.peak_bytes = static_cast<double>(stats.peak_allocated);
  o.extra_bytes = static_cast<double>(stats.peak_allocated - before);
  if (!s.ok()) {
    o.error = s.ToString();
    return o;
  }
  const std::vector<perf::LaunchResult>& results = prof.Results();
  o.host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (results.empty()) {
    o.error = "no launch recorded";
    return o;
  }
  double busy[kPipeColumns] = {};
  // The last launch's metrics; with `every_launch` each launch's, named by its kernel.
  for (size_t l = every_launch ? 0 : results.size() - 1; l < results.size(); ++l) {
    const perf::LaunchResult& r = results[l];
    if (every_launch) o.metrics += (l > 0 ? "; " : "") + r.kernel + ": ";
    bool first = true;
    for (const char* name : {"aic_mac_ratio", "aic_mte1_ratio", "aic_mte2_ratio",
                             "aic_fixpipe_ratio", "aiv_vec_ratio", "aiv_mte2_ratio",
                             "aiv_mte3_ratio"}) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%s%s %.3f", first ? "" : ", ", name, r.Metric(name));
      o.metrics += buf;
      first = false;
    }
    char buf[64];
    std::snprintf(buf, sizeof(buf), ", body_us %.1f", r.body_us);
    o.metrics += buf;
    for (size_t h = 0; h < r.hotspots.size() && h < static_cast<size_t>(g_hotspots); ++h) {
      const perf::Hotspot& hs = r.hotspots[h];
      char line[256];
      std::snprintf(line, sizeof(line), "%s: %s %s, %llu calls, exec %.1f us, stall %.1f us",
                    r.kernel.c_str(), hs.at.c_str(), hs.api.c_str(),
                    static_cast<unsigned long long>(hs.calls), hs.exec_us, hs.stall_us);
      o.hotspots.push_back(line);
    }
  }
  for (const perf::LaunchResult& r : results) {
    ++o.launches;
    o.max_blocks = std::max(o.max_blocks, r.block_dim);
    o.modeled_us += r.kernel_us;
    o.overhead_us += r.launch_overhead_us;
    for (const perf::CoreResult& c : r.cores) {
      for (int k = 0; k < kPipeColumns; ++k) {
        const bool type_matches =
            c.type == kPipes[k].type || (c.type == aicore::sim::CoreType::kCoupled &&
                                         kPipes[k].type == aicore::sim::CoreType::kAic);
        if (type_matches) busy[k] += c.pipes[static_cast<int>(kPipes[k].pipe)].busy_us;
      }
    }
  }
  for (int k = 0; k < kPipeColumns; ++k) {
    const int cores =
        kPipes[k].type == aicore::sim::CoreType::kAiv ? chip.aiv_count : chip.aic_count;
    o.ratio[k] = cores > 0 && o.modeled_us > 0 ? busy[k] / (cores * o.modeled_us) : 0;
  }
  return o;
}

struct Row {
  std::string op, dtype, shape, variant, note;
  Outcome out;
  int scale = 1;
};

struct AttentionShape {
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

// Allocates the operands of one attention forward at `s` in `dt` and returns the call (fused:
// FlashAttentionForward; else the unfused chain), owning its buffers until the device memory is
// released.
std::function<Status()> AttentionCall(const AttentionShape& s, DType dt, bool fused) {
  const std::vector<int64_t> shape = {s.b, s.n, s.s, s.d}, stat_shape = {s.b, s.n, s.s, 8};
  const int64_t elems = s.b * s.n * s.s * s.d;
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  const ops::TensorRef q = ops::DenseRef(DeviceValues(elems, dt, 0.1f), dt, shape),
                       k = ops::DenseRef(DeviceValues(elems, dt, 0.2f), dt, shape),
                       v = ops::DenseRef(DeviceValues(elems, dt, 0.3f), dt, shape),
                       o = ops::DenseRef(DeviceValues(elems, dt, 0), dt, shape);
  if (fused) {
    ops::FlashAttentionAttrs attrs;
    attrs.scale = scale;
    attrs.head_num = s.n;
    attrs.layout = "BNSD";
    const ops::TensorRef mx =
        ops::DenseRef(DeviceValues(s.b * s.n * s.s * 8, DType::kF32, 0), DType::kF32, stat_shape);
    const ops::TensorRef sm =
        ops::DenseRef(DeviceValues(s.b * s.n * s.s * 8, DType::kF32, 0), DType::kF32, stat_shape);
    return [=] { return ops::FlashAttentionForward(q, k, v, nullptr, attrs, mx, sm, o); };
  }
  if (dt == DType::kF32) {
    return [=] { return ops::UnfusedAttentionForward(q, k, v, nullptr, scale, o); };
  }
  // The same chain on scores in the inputs' dtype.
  return [=]() -> Status {
    const uint64_t bytes = static_cast<uint64_t>(s.b * s.n * s.s * s.s) * aicore::DTypeSize(dt);
    void* mem = aicore::rt::DeviceMalloc(bytes, nullptr);
    const ops::TensorRef scores = ops::DenseRef(mem, dt, {s.b, s.n, s.s, s.s});
    ops::TensorRef kt = k;  // (B, N, D, S): a transposed view
    kt.strides = k.Strides();
    std::swap(kt.shape[2], kt.shape[3]);
    std::swap(kt.strides[2], kt.strides[3]);
    Status st = ops::Matmul(q, kt, scores);
    if (st.ok()) st = ops::Muls(scores, scale, scores);
    if (st.ok()) st = ops::Softmax(scores, -1, scores);
    if (st.ok()) st = ops::Matmul(scores, v, o);
    if (st.ok() && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      st = Status(aicore::StatusCode::kInternal, aclGetRecentErrMsg());
    }
    aicore::rt::DeviceFree(mem);
    return st;
  };
}

// Scales `row`, modeled on a slice of `slice_b` batches, by `scale`: the kernel bodies times
// `scale`, the launch overheads once; its note names the slice and where its memory was taken.
void ScaleSlice(const aicore::arch::Chip& chip, int64_t slice_b, int scale,
                const std::string& memory_at, Row* row) {
  const double overhead = row->out.overhead_us;
  row->out.modeled_us = (row->out.modeled_us - overhead) * scale + overhead;
  row->note = "modeled on b" + std::to_string(slice_b) + " (" +
              std::to_string(row->out.max_blocks) + " blocks of " +
              std::to_string(chip.aic_count) + " cube cores), x" + std::to_string(scale) +
              "; memory at " + memory_at;
}

// The backward of one attention at `s` in `dt` (FlashAttentionBackward: the dQ and the dK/dV
// launches), after an unprofiled forward that gives it its output and statistics. BNSD,
// non-causal, as the forward's case. Modeled on `slice` batches of `full` as Attention.
void AttentionGrad(const aicore::arch::Chip& chip, const AttentionShape& full, int64_t slice,
                   DType dt, std::vector<Row>* rows) {
  AttentionShape s = full;
  s.b = std::min(full.b, slice);
  const int scale = static_cast<int>(full.b / s.b);
  aicore::rt::ReleaseDeviceMemory(0);
  const std::vector<int64_t> shape = {s.b, s.n, s.s, s.d}, stat_shape = {s.b, s.n, s.s, 8};
  const int64_t elems = s.b * s.n * s.s * s.d, stats = s.b * s.n * s.s * 8;
  const auto values = [&](float seed) {
    return ops::DenseRef(DeviceValues(elems, dt, seed), dt, shape);
  };
  const ops::TensorRef q = values(0.1f), k = values(0.2f), v = values(0.3f), dy = values(0.4f),
                       o = values(0), dq = values(0), dk = values(0), dv = values(0);
  const ops::TensorRef mx =
      ops::DenseRef(DeviceValues(stats, DType::kF32, 0), DType::kF32, stat_shape);
  const ops::TensorRef sm =
      ops::DenseRef(DeviceValues(stats, DType::kF32, 0), DType::kF32, stat_shape);
  ops::FlashAttentionAttrs attrs;
  attrs.scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  attrs.head_num = s.n;
  attrs.layout = "BNSD";
  Row row{"attention-grad", DtName(dt), full.Name(), "fused", "", {}, scale};
  Status st = ops::FlashAttentionForward(q, k, v, nullptr, attrs, mx, sm, o);
  if (st.ok() && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
    st = Status(aicore::StatusCode::kInternal, aclGetRecentErrMsg());
  }
  if (!st.ok()) {
    row.out.error = "forward: " + st.ToString();
  } else {
    const auto backward = [&] {
      return ops::FlashAttentionBackward(q, k, v, dy, nullptr, mx, sm, o, attrs, dq, dk, dv);
    };
    row.out = Measure(chip, backward, aicore::rt::GetDeviceMemoryStats(0).allocated, true);
  }
  aicore::rt::ReleaseDeviceMemory(0);
  if (scale > 1 && row.out.error.empty()) {
    ScaleSlice(chip, s.b, scale, "b" + std::to_string(s.b), &row);
  }
  rows->push_back(row);
}

// The fused and unfused forward of `full`, modeled on `slice` batches of it (times scaled by
// full.b / slice; the launch overheads, one per launch of the full shape, are not); the peak
// memory of a sliced case comes from a second, unprofiled run at the full shape.
void Attention(const aicore::arch::Chip& chip, const AttentionShape& full, int64_t slice, DType dt,
               std::vector<Row>* rows) {
  AttentionShape s = full;
  s.b = std::min(full.b, slice);
  const int scale = static_cast<int>(full.b / s.b);
  for (bool fused : {true, false}) {
    if (!fused && g_fused_only) continue;
    aicore::rt::ReleaseDeviceMemory(0);  // the peak counts this case only
    std::function<Status()> call = AttentionCall(s, dt, fused);
    Row row{"attention", DtName(dt), full.Name(), fused ? "fused" : "unfused", "", {}, scale};
    row.out = Measure(chip, call, aicore::rt::GetDeviceMemoryStats(0).allocated);
    aicore::rt::ReleaseDeviceMemory(0);
    if (scale > 1 && row.out.error.empty()) {
      ScaleSlice(chip, s.b, scale, "the full shape", &row);
      call = AttentionCall(full, dt, fused);
      const size_t before = aicore::rt::GetDeviceMemoryStats(0).allocated;
      Status st = call();
      if (st.ok() && aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
        st = Status(aicore::StatusCode::kInternal, aclGetRecentErrMsg());
      }
      const size_t peak = aicore::rt::GetDeviceMemoryStats(0).peak_allocated;
      row.out.peak_bytes = static_cast<double>(peak);
      row.out.extra_bytes = static_cast<double>(peak - before);
      if (!st.ok()) row.out.error = "full shape: " + st.ToString();
      aicore::rt::ReleaseDeviceMemory(0);
    }
    rows->push_back(row);
  }
}

void MatmulEpilogue(const aicore::arch::Chip& chip, int64_t m, int64_t n, int64_t k, DType dt,
                    std::vector<Row>* rows) {
  for (bool fused : {true, false}) {
    if (!fused && g_fused_only) continue;
    aicore::rt::ReleaseDeviceMemory(0);
    void* a = DeviceValues(m * k, dt, 0.1f);
    void* b = DeviceValues(k * n, dt, 0.2f);
    void* bias = DeviceValues(n, dt, 0.3f);
    void* res = DeviceValues(m * n, dt, 0.4f);
    void* out = DeviceValues(m * n, dt, 0);
    const ops::TensorRef ta = ops::DenseRef(a, dt, {m, k}), tb = ops::DenseRef(b, dt, {k, n}),
                         tbias = ops::DenseRef(bias, dt, {n}),
                         tres = ops::DenseRef(res, dt, {m, n}),
                         tout = ops::DenseRef(out, dt, {m, n});
    const auto act = ops::Activation::kGeluErf;
    const size_t before = aicore::rt::GetDeviceMemoryStats(0).allocated;
    Row row{"matmul+bias+gelu+residual",
            DtName(dt),
            std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
            fused ? "fused" : "unfused",
            "",
            {},
            1};
    row.out = Measure(
        chip,
        [&] {
          return fused ? ops::MatmulEpilogue(ta, tb, &tbias, &tres, 1, 1, act, tout)
                       : ops::MatmulEpilogueUnfused(ta, tb, &tbias, &tres, 1, 1, act, tout);
        },
        before);
    rows->push_back(row);
    aicore::rt::ReleaseDeviceMemory(0);
  }
}

std::string JsonEscape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r;
}

}  // namespace

int Run(int argc, char** argv) {
  const char* chip_name = std::getenv("AICORE_CHIP");
  const char* json_path = nullptr;
  bool small = false;
  int64_t batch_slice = 1;
  bool fused_only = false;
  long long attn[4] = {0, 0, 0, 0}, grad[4] = {0, 0, 0, 0}, epi[3] = {0, 0, 0};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--small") == 0) {
      small = true;
    } else if (std::strcmp(argv[i], "--fused-only") == 0) {
      fused_only = true;
    } else if (std::strcmp(argv[i], "--attention") == 0 && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%lld,%lld,%lld,%lld", &attn[0], &attn[1], &attn[2],
                           &attn[3]) == 4 && attn[0] > 0 && attn[1] > 0 && attn[2] > 0 &&
               attn[3] > 0) {
      ++i;
    } else if (std::strcmp(argv[i], "--attention-grad") == 0 && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%lld,%lld,%lld,%lld", &grad[0], &grad[1], &grad[2],
                           &grad[3]) == 4 && grad[0] > 0 && grad[1] > 0 && grad[2] > 0 &&
               grad[3] > 0) {
      ++i;
    } else if (std::strcmp(argv[i], "--epilogue") == 0 && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%lld,%lld,%lld", &epi[0], &epi[1], &epi[2]) == 3 &&
               epi[0] > 0 && epi[1] > 0 && epi[2] > 0) {
      ++i;
    } else if (std::strcmp(argv[i], "--hotspots") == 0 && i + 1 < argc) {
      g_hotspots = std::max(0, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--batch-slice") == 0 && i + 1 < argc) {
      batch_slice = std::max<int64_t>(1, std::atoll(argv[++i]));
    } else if (argv[i][0] != '-') {
      chip_name = argv[i];
    } else {
      std::fprintf(stderr, "usage: %s [chip] [--small] [--batch-slice N] [--json FILE] "
                   "[--attention B,N,S,D] [--attention-grad B,N,S,D] [--epilogue M,N,K] "
                   "[--fused-only] [--hotspots N]\n", argv[0]);
      return 2;
    }
  }
  if (chip_name == nullptr) chip_name = "ascend910b1";
  setenv("AICORE_CHIP", chip_name, 1);  // the operators plan for the default chip
  const aicore::arch::Chip& chip = aicore::arch::DefaultChip();

  std::vector<Row> rows;
  const bool chosen = attn[0] > 0 || grad[0] > 0 || epi[0] > 0;
  g_fused_only = fused_only;
  const AttentionShape small_attn{1, 8, 512, 64}, big_attn{8, 16, 2048, 128};
  if (chosen) {
    if (attn[0] > 0) {
      const AttentionShape a{attn[0], attn[1], attn[2], attn[3]};
      for (DType dt : {DType::kF32, DType::kF16}) Attention(chip, a, batch_slice, dt, &rows);
    }
    if (grad[0] > 0) {
      const AttentionShape a{grad[0], grad[1], grad[2], grad[3]};
      for (DType dt : {DType::kF32, DType::kF16}) AttentionGrad(chip, a, batch_slice, dt, &rows);
    }
    if (epi[0] > 0) MatmulEpilogue(chip, epi[0], epi[1], epi[2], DType::kF16, &rows);
  } else {
    for (DType dt : {DType::kF32, DType::kF16}) {
      Attention(chip, small_attn, small_attn.b, dt, &rows);
      if (!small) Attention(chip, big_attn, batch_slice, dt, &rows);
    }
  }
  if (chosen) {
  } else if (small) {
    MatmulEpilogue(chip, 256, 256, 256, DType::kF16, &rows);
  } else {
    MatmulEpilogue(chip, 4096, 4096, 4096, DType::kF16, &rows);
    MatmulEpilogue(chip, 4096, 4096, 4096, DType::kF32, &rows);  // the host bench's dtype
  }

  std::printf("| op | dtype | shape | variant | launches | modeled us | peak MiB | extra MiB");
  for (const PipeColumn& p : kPipes) std::printf(" | %s", p.label);
  std::printf(" | note |\n|---|---|---|---|---|---|---|---");
  for (int k = 0; k < kPipeColumns; ++k) std::printf("|---");
  std::printf("|---|\n");
  int failures = 0;
  for (const Row& r : rows) {
    std::printf("| %s | %s | %s | %s |", r.op.c_str(), r.dtype.c_str(), r.shape.c_str(),
                r.variant.c_str());
    if (!r.out.error.empty()) {
      std::printf(" failed: %s |\n", r.out.error.c_str());
      ++failures;
      continue;
    }
    std::printf(" %d | %.1f | %.1f | %.1f", r.out.launches, r.out.modeled_us,
                r.out.peak_bytes / (1 << 20), r.out.extra_bytes / (1 << 20));
    for (double v : r.out.ratio) std::printf(" | %.2f", v);
    std::printf(" | %s |\n", r.note.c_str());
    if (chosen && r.variant == "fused") std::printf("|  per core: %s |\n", r.out.metrics.c_str());
    for (const std::string& h : r.out.hotspots) std::printf("|  hotspot: %s |\n", h.c_str());
  }
  std::printf(
      "\nchip %s: %d AIC + %d AIV at %.0f MHz; modeled us = sum of kernel times incl. "
      "launch overhead; pipe ratios chip-wide (busy / (cores x modeled time))\n",
      chip_name, chip.aic_count, chip.aiv_count, chip.clock_mhz);
  if (json_path != nullptr) {
    FILE* f = std::fopen(json_path, "w");
    if (f == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", json_path);
      return 1;
    }
    for (const Row& r : rows) {
      std::fprintf(f,
                   "{\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", \"variant\": \"%s\", "
                   "\"chip\": \"%s\", \"error\": \"%s\", \"launches\": %d, \"modeled_us\": %.6g, "
                   "\"launch_overhead_us\": %.6g, \"peak_bytes\": %.0f, \"extra_bytes\": %.0f, "
                   "\"scale\": %d, \"host_s\": %.3f, \"note\": \"%s\", \"pipes\": {",
                   r.op.c_str(), r.dtype.c_str(), r.shape.c_str(), r.variant.c_str(), chip_name,
                   JsonEscape(r.out.error).c_str(), r.out.launches, r.out.modeled_us,
                   r.out.overhead_us, r.out.peak_bytes, r.out.extra_bytes, r.scale, r.out.host_s,
                   JsonEscape(r.note).c_str());
      for (int k = 0; k < kPipeColumns; ++k) {
        std::fprintf(f, "%s\"%s\": %.4f", k ? ", " : "", kPipes[k].label, r.out.ratio[k]);
      }
      std::fprintf(f, "}}\n");
    }
    std::fclose(f);
  }
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const aicore::Error& e) {  // an unknown chip, a failed launch: a message, not abort
    std::fprintf(stderr, "fused_model: %s\n", e.what());
    return 1;
  }
}
