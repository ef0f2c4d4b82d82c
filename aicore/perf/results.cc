// Derives the results of a launch from its replayed timeline.
//
// - Per core: pipe busy time and ratio (busy / the core's own time), GM bytes, flops, pipe overlap
//   and the time MTE2 and V (V and MTE3) were busy together (an interval sweep per pipe pair).
// - msprof-like metrics per core type: <prefix>_<pipe>_ratio = sum of busy / sum of core time
//   over the cores of that type; <prefix>_<pipe>_time(us) is the mean busy time per core.
// - Triangle: compute density against the chip's balance point, HBM utilisation, cores used and
//   pipe overlap; the corner is named from the busiest pipe (see Corner below).
// - Advice: rules that fire on the numbers, each message quoting them.
#include "aicore/perf/results.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

namespace aicore::perf {

namespace {

using sim::Pipe;
constexpr int kP = sim::kPipeCount;

// A pipe busy at least this fraction of the core time binds the kernel: the others wait on it.
constexpr double kBoundRatio = 0.6;
// HBM utilisation from which the kernel counts as memory-bound whatever its pipes say.
constexpr double kHbmBound = 0.8;
// Transfers below this size do not reach near-peak bandwidth (ascendc-reference.md 9.5: 16 KB).
constexpr double kLargeTransferBytes = 16384;

std::string Fmt(double v, int prec = 1) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", prec, v);
  return buf;
}
std::string Pct(double v) { return Fmt(100.0 * v, 1) + "%"; }

double Overlap(const std::vector<std::pair<double, double>>& a,
               const std::vector<std::pair<double, double>>& b) {
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) sum += hi - lo;
    if (a[i].second < b[j].second) ++i; else ++j;
  }
  return sum;
}

int Capacity(const arch::Chip& chip, sim::CoreType t) {
  if (t == sim::CoreType::kAiv) return chip.split() ? chip.aiv_count : chip.aic_count;
  return chip.aic_count;
}

}  // namespace

const char* MetricPrefix(sim::CoreType t) { return t == sim::CoreType::kAiv ? "aiv" : "aic"; }

const char* MetricPipeName(Pipe p) {
  switch (p) {
    case Pipe::kS: return "scalar";
    case Pipe::kV: return "vec";
    case Pipe::kM: return "mac";
    case Pipe::kMte1: return "mte1";
    case Pipe::kMte2: return "mte2";
    case Pipe::kMte3: return "mte3";
    case Pipe::kFix: return "fixpipe";
    case Pipe::kAll: return "all";
  }
  return "?";
}

double LaunchResult::Metric(const std::string& name) const {
  for (const auto& [k, v] : metrics) {
    if (k == name) return v;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

LaunchResult Analyze(std::shared_ptr<const LaunchRecord> launch, const arch::Chip& chip) {
  const CostModel model(chip);
  const auto t0 = std::chrono::steady_clock::now();
  Timeline tl = Replay(*launch, model);
  const auto t1 = std::chrono::steady_clock::now();

  LaunchResult res;
  res.kernel = launch->kernel;
  res.chip = chip.name;
  res.block_dim = launch->block_dim;
  res.clock_mhz = chip.clock_mhz;
  res.replay_seconds = std::chrono::duration<double>(t1 - t0).count();
  res.instructions = launch->Instructions();
  const double us = 1e6 / model.clock_hz();  // microseconds per cycle
  res.body_us = tl.body_cycles * us;
  res.launch_overhead_us = model.launch_overhead_us();
  res.kernel_us = res.body_us + res.launch_overhead_us;
  res.notes = tl.notes;

  // Per core.
  std::map<DType, uint64_t> vec_elems, cube_flops;
  for (size_t c = 0; c < launch->cores.size(); ++c) {
    const CoreStream& cs = *launch->cores[c];
    const CoreTimeline& ct = tl.cores[c];
    CoreResult cr;
    cr.name = cs.name;
    cr.type = cs.id.type;
    cr.block_idx = cs.id.block_idx;
    cr.physical_core = ct.physical_core;
    cr.begin_us = ct.begin * us;
    cr.finish_us = ct.finish * us;
    cr.time_us = cr.finish_us - cr.begin_us;
    double busy_sum = 0;
    for (int p = 0; p < kP; ++p) {
      cr.pipes[p].busy_us = ct.busy[p] * us;
      cr.pipes[p].ratio = cr.time_us > 0 ? cr.pipes[p].busy_us / cr.time_us : 0;
      cr.pipes[p].instructions = ct.count[p];
      if (p != static_cast<int>(Pipe::kS)) busy_sum += cr.pipes[p].busy_us;
    }
    cr.pipe_overlap = cr.time_us > 0 ? busy_sum / cr.time_us : 0;
    cr.gm_read_bytes = ct.gm_read;
    cr.gm_write_bytes = ct.gm_write;
    cr.flops = ct.flops;
    std::array<std::vector<std::pair<double, double>>, kP> iv;
    for (size_t i = 0; i < cs.records.size(); ++i) {
      const Record& r = cs.records[i];
      if ((r.op == Op::kCompute || r.op == Op::kCopy) && r.pipe != Pipe::kS &&
          r.pipe != Pipe::kAll) {
        iv[static_cast<int>(r.pipe)].emplace_back(ct.start[i], ct.end[i]);
        if (r.op == Op::kCompute && r.pipe == Pipe::kV) vec_elems[r.dtype] += r.elements;
        if (r.op == Op::kCompute && r.pipe == Pipe::kM) cube_flops[r.dtype] += r.flops;
      }
    }
    cr.mte2_v_overlap_us =
        Overlap(iv[static_cast<int>(Pipe::kMte2)], iv[static_cast<int>(Pipe::kV)]) * us;
    cr.v_mte3_overlap_us =
        Overlap(iv[static_cast<int>(Pipe::kV)], iv[static_cast<int>(Pipe::kMte3)]) * us;
    res.gm_read_bytes += cr.gm_read_bytes;
    res.gm_write_bytes += cr.gm_write_bytes;
    res.flops += cr.flops;
    res.cores.push_back(std::move(cr));
  }
  const double gm_bytes = static_cast<double>(res.gm_read_bytes + res.gm_write_bytes);
  const double body_s = res.body_us * 1e-6;
  res.achieved_gbps = body_s > 0 ? gm_bytes / body_s / 1e9 : 0;
  res.l2_hit_fraction = tl.l2_hit_fraction;
  const double hbm_bytes = static_cast<double>(res.gm_read_bytes) * (1 - tl.l2_hit_fraction) +
                           static_cast<double>(res.gm_write_bytes);
  res.hbm_gbps = body_s > 0 ? hbm_bytes / body_s / 1e9 : 0;
  res.achieved_gflops = body_s > 0 ? static_cast<double>(res.flops) / body_s / 1e9 : 0;

  // msprof-like metrics per core type present.
  for (sim::CoreType t : {sim::CoreType::kAic, sim::CoreType::kCoupled, sim::CoreType::kAiv}) {
    std::array<double, kP> busy{};
    double time = 0, max_time = 0;
    int n = 0;
    for (const auto& cr : res.cores) {
      if (cr.type != t) continue;
      ++n;
      time += cr.time_us;
      max_time = std::max(max_time, cr.time_us);
      for (int p = 0; p < kP; ++p) busy[p] += cr.pipes[p].busy_us;
    }
    if (n == 0) continue;
    const std::string pre = MetricPrefix(t);
    std::vector<Pipe> pipes;
    if (t == sim::CoreType::kAiv) {
      pipes = {Pipe::kV, Pipe::kS, Pipe::kMte2, Pipe::kMte3};
    } else if (t == sim::CoreType::kAic) {
      pipes = {Pipe::kM, Pipe::kS, Pipe::kMte1, Pipe::kMte2, Pipe::kMte3, Pipe::kFix};
    } else {
      pipes = {Pipe::kM, Pipe::kV, Pipe::kS, Pipe::kMte1, Pipe::kMte2, Pipe::kMte3, Pipe::kFix};
    }
    res.metrics.emplace_back(pre + "_time(us)", max_time);
    for (Pipe p : pipes) {
      const int k = static_cast<int>(p);
      res.metrics.emplace_back(pre + "_" + MetricPipeName(p) + "_time(us)", busy[k] / n);
      res.metrics.emplace_back(pre + "_" + MetricPipeName(p) + "_ratio",
                               time > 0 ? busy[k] / time : 0);
    }
    const double compute = std::max(busy[static_cast<int>(Pipe::kV)],
                                    busy[static_cast<int>(Pipe::kM)]);
    res.metrics.emplace_back(pre + "_memory_bound",
                             compute > 0 ? busy[static_cast<int>(Pipe::kMte2)] / compute : 0);
  }
  res.metrics.emplace_back("gm_read_bytes", static_cast<double>(res.gm_read_bytes));
  res.metrics.emplace_back("gm_write_bytes", static_cast<double>(res.gm_write_bytes));
  res.metrics.emplace_back("main_mem_bw(GB/s)", res.achieved_gbps);

  // Roofline: the cube roof when the kernel does cube work, else the vector roof.
  Roofline& rf = res.roofline;
  rf.peak_bytes_per_s = chip.hbm_gbps * 1e9;
  uint64_t cube_total = 0;
  DType cube_dt = DType::kF16;
  for (const auto& [dt, f] : cube_flops) {
    if (f > cube_total) cube_dt = dt;
    cube_total = std::max(cube_total, f);
  }
  if (cube_total > 0) {
    rf.roof = StrCat("cube ", DTypeName(cube_dt));
    rf.peak_flops_per_s = 2.0 * model.CubeMacsPerCycle(cube_dt) * chip.aic_count * model.clock_hz();
  } else {
    DType vdt = DType::kF16;
    uint64_t most = 0;
    for (const auto& [dt, e] : vec_elems) {
      if (e > most) { most = e; vdt = dt; }
    }
    const double size = std::max<double>(1, static_cast<double>(DTypeSize(vdt)));
    const int cores = Capacity(chip, chip.split() ? sim::CoreType::kAiv : sim::CoreType::kCoupled);
    rf.roof = StrCat("vector ", DTypeName(vdt));
    rf.peak_flops_per_s = model.vector_bytes_per_cycle() / size * cores * model.clock_hz();
  }
  rf.density = gm_bytes > 0 ? static_cast<double>(res.flops) / gm_bytes : 0;
  rf.achieved_flops_per_s = body_s > 0 ? static_cast<double>(res.flops) / body_s : 0;
  rf.attainable_flops_per_s = std::min(rf.peak_flops_per_s, rf.density * rf.peak_bytes_per_s);
  rf.fraction_of_roof =
      rf.attainable_flops_per_s > 0 ? rf.achieved_flops_per_s / rf.attainable_flops_per_s : 0;

  // Triangle.
  Triangle& tr = res.triangle;
  tr.compute_density = rf.density;
  tr.balance_point = rf.peak_bytes_per_s > 0 ? rf.peak_flops_per_s / rf.peak_bytes_per_s : 0;
  tr.bandwidth_utilisation =
      rf.peak_bytes_per_s > 0 ? res.hbm_gbps * 1e9 / rf.peak_bytes_per_s : 0;
  std::map<int64_t, bool> physical;  // distinct physical cores of the dominant type
  sim::CoreType main_type = sim::CoreType::kAiv;
  if (!res.cores.empty()) main_type = res.cores.back().type;
  for (const auto& cr : res.cores) {
    if (cr.type == main_type) physical[cr.physical_core] = true;
  }
  tr.cores_used = static_cast<int>(physical.size());
  tr.cores_available = Capacity(chip, main_type);
  std::array<double, kP> busy{};
  double time = 0, overlap = 0;
  for (const auto& cr : res.cores) {
    time += cr.time_us;
    overlap += cr.pipe_overlap;
    for (int p = 0; p < kP; ++p) busy[p] += cr.pipes[p].busy_us;
  }
  tr.pipe_overlap = res.cores.empty() ? 0 : overlap / res.cores.size();
  int best = static_cast<int>(Pipe::kS);
  for (int p = 0; p < kP; ++p) {
    if (p != static_cast<int>(Pipe::kS) && busy[p] > busy[best]) best = p;
  }
  tr.binding_pipe = sim::PipeName(static_cast<Pipe>(best));
  tr.binding_ratio = time > 0 ? busy[best] / time : 0;
  const Pipe bp = static_cast<Pipe>(best);
  const bool mem_pipe = bp == Pipe::kMte1 || bp == Pipe::kMte2 || bp == Pipe::kMte3 ||
                        bp == Pipe::kFix;
  if (tr.bandwidth_utilisation >= kHbmBound) {
    tr.corner = "memory";
  } else if (tr.binding_ratio >= kBoundRatio) {
    tr.corner = mem_pipe ? "memory" : "compute";
  } else {
    tr.corner = "parallelism";
  }

  // Advice.
  auto& adv = res.advice;
  const double share = tl.gm_share_bytes_per_cycle;
  if (tr.corner == "memory" && tr.bandwidth_utilisation >= kHbmBound) {
    adv.push_back(StrCat("HBM traffic runs at ", Fmt(res.hbm_gbps), " GB/s, ",
                         Pct(tr.bandwidth_utilisation), " of the HBM's ", Fmt(chip.hbm_gbps, 0),
                         " GB/s: only moving fewer GM bytes helps (fuse neighbouring ops, reuse "
                         "tiles, narrower dtypes)."));
  } else if (tr.corner == "memory") {
    adv.push_back(StrCat(tr.binding_pipe, " is busy ", Pct(tr.binding_ratio),
                         " of the time while the HBM is only ", Pct(tr.bandwidth_utilisation),
                         " used: the per-core copy path binds; spread the data over more cores."));
  } else if (tr.corner == "compute" && bp == Pipe::kS) {
    adv.push_back(StrCat("the scalar unit is busy ", Pct(tr.binding_ratio),
                         " of the time and binds the kernel: element-wise GetValue/SetValue "
                         "loops or scalar waits (PIPE_S flags) serialise it; move the work to "
                         "vector instructions."));
  } else if (tr.corner == "compute") {
    adv.push_back(StrCat(tr.binding_pipe, " is busy ", Pct(tr.binding_ratio),
                         " of the time and binds the kernel: remove redundant ",
                         bp == Pipe::kV ? "vector" : "cube",
                         " instructions or use cheaper ones (e.g. Muls/Adds with a scalar instead "
                         "of a tensor operand), and split the work over more cores."));
  } else {
    adv.push_back(StrCat("no pipe is busy most of the time (the busiest, ", tr.binding_pipe,
                         ", is busy ", Pct(tr.binding_ratio), "; pipe overlap ",
                         Fmt(tr.pipe_overlap, 2),
                         "): the pipes wait on each other, on start-up costs or on the launch."));
  }
  // MTE2/V and V/MTE3 never overlapping on any core that uses both.
  int both = 0, never = 0, both3 = 0, never3 = 0;
  for (const auto& cr : res.cores) {
    const auto& m2 = cr.pipes[static_cast<int>(Pipe::kMte2)];
    const auto& v = cr.pipes[static_cast<int>(Pipe::kV)];
    const auto& m3 = cr.pipes[static_cast<int>(Pipe::kMte3)];
    if (m2.instructions > 1 && v.instructions > 1) {
      ++both;
      never += cr.mte2_v_overlap_us <= 1e-3 * std::min(m2.busy_us, v.busy_us);
    }
    if (m3.instructions > 1 && v.instructions > 1) {
      ++both3;
      never3 += cr.v_mte3_overlap_us <= 1e-3 * std::min(m3.busy_us, v.busy_us);
    }
  }
  if (both > 0 && never == both) {
    adv.push_back("MTE2 and V never overlap: use two buffers per queue (pipe.InitBuffer(que, 2, "
                  "len)) so the copy-in of tile i+1 runs while tile i is computed.");
  }
  if (both3 > 0 && never3 == both3) {
    adv.push_back("V and MTE3 never overlap: give the output queue two buffers so the copy-out of "
                  "tile i runs while tile i+1 is computed.");
  }
  // Small transfers.
  uint64_t mte_n = 0, mte_bytes = 0;
  for (const auto& cs : launch->cores) {
    for (const Record& r : cs->records) {
      if (r.op == Op::kCopy && (r.pipe == Pipe::kMte2 || r.pipe == Pipe::kMte3)) {
        ++mte_n;
        mte_bytes += r.bytes;
      }
    }
  }
  if (mte_n > 0) {
    const double mean = static_cast<double>(mte_bytes) / mte_n;
    const auto& p = chip.pipes;
    const double head = p.value("mte2_head_cycles", 0.0);
    const double bw = std::min(p.value("mte2_bytes_per_cycle", 32.0), share);
    const double head_share = head / (head + mean / bw);
    if (mean < kLargeTransferBytes && head_share > 0.1) {
      adv.push_back(StrCat("DataCopy moves ", Fmt(mean, 0), " B per instruction on average; the "
                           "per-instruction head is ", Pct(head_share), " of each copy. "
                           "Transfers of 16 KB or more reach near-peak bandwidth: use larger "
                           "tiles."));
    }
  }
  // Vector per-call overhead.
  uint64_t v_n = 0, v_elems = 0;
  for (const auto& cs : launch->cores) {
    for (const Record& r : cs->records) {
      if (r.op == Op::kCompute && r.pipe == Pipe::kV) {
        ++v_n;
        v_elems += r.elements;
      }
    }
  }
  if (v_n > 0 && static_cast<double>(v_elems) / v_n < 1024 && tr.corner != "memory") {
    adv.push_back(StrCat("vector instructions process ", Fmt(static_cast<double>(v_elems) / v_n, 0),
                         " elements per call on average, so the fixed per-call cost (about 20 "
                         "cycles) dominates V time: process larger tiles per call."));
  }
  // Cores.
  if (tr.cores_used < tr.cores_available) {
    adv.push_back(StrCat("only ", tr.cores_used, " of the ", tr.cores_available, " ",
                         main_type == sim::CoreType::kAiv ? "AIV" : "AI", " cores of ", chip.name,
                         " are used: a blockDim of ", tr.cores_available,
                         " would split the same work ", Fmt(double(tr.cores_available) /
                                                              std::max(1, tr.cores_used), 1),
                         "x finer."));
  }
  int waves = 1;
  for (const auto& cr : res.cores) {
    if (cr.begin_us > 0) waves = std::max(waves, 2);
  }
  if (waves > 1) {
    adv.push_back(StrCat("blockDim ", res.block_dim, " exceeds the ", tr.cores_available,
                         " cores: blocks run in waves; a multiple of ", tr.cores_available,
                         " or one block per core with a loop balances better."));
  }
  if (res.body_us < res.launch_overhead_us) {
    adv.push_back(StrCat("the kernel body (", Fmt(res.body_us, 2), " us) is shorter than the "
                         "launch overhead (", Fmt(res.launch_overhead_us, 1), " us): give each "
                         "launch more work or fuse it with its neighbours."));
  }
  res.record = std::move(launch);
  res.timeline = std::move(tl);
  return res;
}

}  // namespace aicore::perf
