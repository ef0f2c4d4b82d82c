// Derives the results of a launch from its replayed timeline.
//
// - Per core: pipe busy time and ratio (busy / the core's own time), GM bytes, flops, pipe overlap
//   and the time MTE2 and V (V and MTE3) were busy together (an interval sweep per pipe pair).
// - msprof-like metrics per core type: <prefix>_<pipe>_ratio = sum of busy / sum of core time
//   over the cores of that type; <prefix>_<pipe>_time(us) is the mean busy time per core.
// - Roofline and triangle (Note [Roofline]); the corner is named from the busiest pipe.
// - Stall reasons per pipe and the per-source-line hotspots, from the replayed intervals.
// - Advice: rules that fire on the numbers, each message quoting them.
//
// Note [Roofline]
// A kernel can never run faster than any of three ceilings, so its attainable rate is the least:
// - peak: the roof unit's fastest rate on every core of its type. The cube: 2 x the most MACs
//   per cycle of the dtypes it used x AICs x clock (an Mmad costs flops / (2 x MACs)). The vector
//   unit: the fastest of the vector instructions the kernel ran, 1 / a of its vector_costs row
//   (Adds/Muls at 0.0071 cycles per f16 element beat 256 B/cycle), x AIVs x clock; an
//   instruction of n elements costs at least a x n cycles, so no core exceeds it. A roof over the
//   whole table would let an unused cheap row (Cast's f32 one) set a float kernel's peak.
// - HBM: intensity = roof flops / HBM bytes (writes and the reads L2 did not serve) x the HBM's
//   bandwidth. Using all GM bytes here (as before) put a matmul whose operand re-reads hit L2
//   above its roof (122.8% at 3072^3): its HBM traffic is a fraction of its GM traffic.
// - L2: intensity = roof flops / GM read bytes x the cores' L2 read bandwidth (each core reads at
//   most max(l2_read_bytes_per_cycle, mte2_bytes_per_cycle) per cycle in the model).
// The roof flops are the roof unit's only (cube flops, or vector element operations), so a
// matmul's vector epilogue does not lift it over the cube's peak. The HBM ceiling holds only as
// well as the active HBM sharing keeps the HBM under its bandwidth (a two-step fixed point): a
// launch above it gets a note.
#include "aicore/perf/results.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

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

std::string BaseName(const char* file) {
  const char* b = std::strrchr(file, '/');
  return b ? b + 1 : file;
}

// Returns the fastest rate, in elements per cycle per core, at which the vector unit runs `api`
// on `dt` elements: 1 / a of its vector_costs row, read as CostModel::VectorCost reads it (an
// n-element call costs at least a x n cycles), or the default formula's vector_bytes_per_cycle
// / size for an API without a row.
double PeakVectorRate(const arch::Chip& chip, const CostModel& model, const char* api, DType dt) {
  const double size = std::max<double>(1.0, static_cast<double>(DTypeSize(dt)));
  const double fallback = model.vector_bytes_per_cycle() / size;
  const auto& p = chip.pipes;
  if (!p.contains("vector_costs") || !p["vector_costs"].is_object()) return fallback;
  const auto& rows = p["vector_costs"];
  if (!rows.contains(api) || !rows[api].is_object()) return fallback;
  const auto& row = rows[api];
  const char* key = size <= 2 ? "f16" : "f32";
  if (!row.contains(key) || !row[key].is_array() || row[key].size() != 2) return fallback;
  double a = row[key][0].get<double>();
  if (size <= 1) a *= 0.5;
  if (size > 4) a *= 2;
  return a > 0 ? 1.0 / a : fallback;
}

}  // namespace

bool IsStall(const Record& r) {
  return r.op == Op::kWaitFlag || r.op == Op::kQueueWait || r.op == Op::kCrossWait ||
         r.op == Op::kSyncAll || (r.op == Op::kBarrier && r.pipe == Pipe::kAll);
}

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
  std::set<std::pair<const char*, DType>> vec_apis;  // the vector instructions the kernel ran
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
        if (r.op == Op::kCompute && r.pipe == Pipe::kV) {
          vec_elems[r.dtype] += r.elements;
          if (r.elements > 0) vec_apis.insert({r.api, r.dtype});
        }
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
  const double hbm_bytes =
      static_cast<double>(res.gm_read_bytes) * (1 - tl.l2_hit_fraction) +
      static_cast<double>(res.gm_write_bytes) * (1 - tl.l2_write_hit_fraction);
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

  // Roofline (Note [Roofline]): the cube roof when the kernel does cube work, else the vector
  // roof.
  Roofline& rf = res.roofline;
  rf.peak_bytes_per_s = chip.hbm_gbps * 1e9;
  uint64_t cube_total = 0, vec_total = 0;
  DType cube_dt = DType::kF16;
  double macs = 0;
  for (const auto& [dt, f] : cube_flops) {
    if (f > cube_total) cube_dt = dt;
    cube_total = std::max(cube_total, f);
    if (f > 0) macs = std::max(macs, model.CubeMacsPerCycle(dt));
  }
  for (const auto& [dt, e] : vec_elems) vec_total += e;
  if (cube_total > 0) {
    uint64_t all = 0;
    for (const auto& [dt, f] : cube_flops) all += f;
    rf.roof = StrCat("cube ", DTypeName(cube_dt));
    rf.flops = static_cast<double>(all);
    rf.peak_flops_per_s = 2.0 * macs * chip.aic_count * model.clock_hz();
  } else {
    DType vdt = DType::kF16;
    uint64_t most = 0;
    for (const auto& [dt, e] : vec_elems) {
      if (e > most) { most = e; vdt = dt; }
    }
    // Elements per cycle per core of the fastest vector instruction the kernel ran.
    double rate = 0;
    for (const auto& [api, dt] : vec_apis) {
      rate = std::max(rate, PeakVectorRate(chip, model, api, dt));
    }
    if (rate <= 0) rate = model.vector_bytes_per_cycle() / std::max<double>(1, DTypeSize(vdt));
    const int cores = Capacity(chip, chip.split() ? sim::CoreType::kAiv : sim::CoreType::kCoupled);
    rf.roof = StrCat("vector ", DTypeName(vdt));
    rf.flops = static_cast<double>(vec_total);
    rf.peak_flops_per_s = rate * cores * model.clock_hz();
  }
  {  // the L2 roof: every core of the types the launch used reading at its L2 (or MTE2) rate
    std::array<bool, 3> used{};
    for (const auto& cr : res.cores) used[static_cast<int>(cr.type)] = true;
    int reader_cores = 0;
    for (int t = 0; t < 3; ++t) {
      if (used[t]) reader_cores += Capacity(chip, static_cast<sim::CoreType>(t));
    }
    const double per_core = model.l2_read_bytes_per_cycle() > 0
                                ? std::max(model.l2_read_bytes_per_cycle(),
                                           chip.pipes.value("mte2_bytes_per_cycle", 0.0))
                                : 0.0;
    rf.l2_bytes_per_s = per_core * reader_cores * model.clock_hz();
  }
  rf.density = hbm_bytes > 0 ? rf.flops / hbm_bytes : 0;
  rf.l2_density = res.gm_read_bytes > 0 ? rf.flops / static_cast<double>(res.gm_read_bytes) : 0;
  rf.achieved_flops_per_s = body_s > 0 ? rf.flops / body_s : 0;
  rf.hbm_roof_flops_per_s = hbm_bytes > 0 ? rf.density * rf.peak_bytes_per_s
                                          : std::numeric_limits<double>::infinity();
  rf.l2_roof_flops_per_s = rf.l2_bytes_per_s > 0 && res.gm_read_bytes > 0
                               ? rf.l2_density * rf.l2_bytes_per_s
                               : std::numeric_limits<double>::infinity();
  rf.attainable_flops_per_s = rf.peak_flops_per_s;
  rf.limit = "peak";
  if (rf.hbm_roof_flops_per_s < rf.attainable_flops_per_s) {
    rf.attainable_flops_per_s = rf.hbm_roof_flops_per_s;
    rf.limit = "HBM";
  }
  if (rf.l2_roof_flops_per_s < rf.attainable_flops_per_s) {
    rf.attainable_flops_per_s = rf.l2_roof_flops_per_s;
    rf.limit = "L2";
  }
  if (!std::isfinite(rf.hbm_roof_flops_per_s)) rf.hbm_roof_flops_per_s = 0;
  if (!std::isfinite(rf.l2_roof_flops_per_s)) rf.l2_roof_flops_per_s = 0;
  rf.fraction_of_roof =
      rf.attainable_flops_per_s > 0 ? rf.achieved_flops_per_s / rf.attainable_flops_per_s : 0;
  if (rf.fraction_of_roof > 1 + 1e-9) {
    res.notes.push_back(StrCat("the kernel sits ", Pct(rf.fraction_of_roof - 1), " above its ",
                               rf.limit, " roof: the HBM sharing is a two-step fixed point "
                               "(Note [HBM sharing] in model.cc), not an exact one"));
  }

  // Triangle.
  Triangle& tr = res.triangle;
  tr.compute_density = rf.density;
  tr.balance_point = rf.peak_bytes_per_s > 0 ? rf.peak_flops_per_s / rf.peak_bytes_per_s : 0;
  tr.compute_utilisation =
      rf.peak_flops_per_s > 0 ? rf.achieved_flops_per_s / rf.peak_flops_per_s : 0;
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
  tr.parallelism = tr.cores_available > 0 ? double(tr.cores_used) / tr.cores_available : 0;
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
    tr.reason = StrCat("memory-bound: the HBM carries ", Pct(tr.bandwidth_utilisation),
                       " of its bandwidth, so the chip's memory system is the limit");
  } else if (tr.binding_ratio >= kBoundRatio) {
    tr.corner = mem_pipe ? "memory" : "compute";
    tr.reason = bp == Pipe::kS
        ? StrCat("compute-bound on the scalar unit: S is busy ", Pct(tr.binding_ratio),
                 " of the time, issuing one instruction after another (element-wise loops, "
                 "PIPE_S waits)")
        : mem_pipe
        ? StrCat("memory-bound on the cores' copy path: ", tr.binding_pipe, " is busy ",
                 Pct(tr.binding_ratio), " of the time while the HBM carries only ",
                 Pct(tr.bandwidth_utilisation), " of its bandwidth")
        : StrCat("compute-bound: ", tr.binding_pipe, " is busy ", Pct(tr.binding_ratio),
                 " of the time; the ", bp == Pipe::kM ? "cube" : "vector unit",
                 " reaches ", Pct(tr.compute_utilisation), " of the chip's peak flop rate");
  } else {
    tr.corner = "parallelism";
    tr.reason = StrCat("bound by latency and parallelism: no pipe is busy most of the time (the "
                       "busiest, ", tr.binding_pipe, ", ", Pct(tr.binding_ratio),
                       "), so the pipes wait on each other (pipe overlap ",
                       Fmt(tr.pipe_overlap, 2), "), on start-up costs or on too few cores (",
                       tr.cores_used, " of ", tr.cores_available, ")");
  }

  // Stall reasons per pipe and the source-line hotspots.
  {
    // Keyed by the call site's literal and pipe while summing (no string per record).
    struct SpotAcc {
      Hotspot h;
      std::map<std::string, double> api_time;
    };
    std::map<std::tuple<const char*, uint32_t, int>, SpotAcc> acc;
    for (size_t c = 0; c < launch->cores.size(); ++c) {
      const CoreStream& cs = *launch->cores[c];
      const CoreTimeline& ct = tl.cores[c];
      std::tuple<const char*, uint32_t, int> last_key{nullptr, 0, -1};
      SpotAcc* last = nullptr;
      for (size_t i = 0; i < cs.records.size(); ++i) {
        const Record& r = cs.records[i];
        const int p = r.pipe == Pipe::kAll ? 0 : static_cast<int>(r.pipe);
        const double d = (ct.end[i] - ct.start[i]) * us;
        const bool stall = IsStall(r);
        if (stall) {
          PipeStalls& ps = res.stalls[p];
          if (r.op == Op::kWaitFlag || r.op == Op::kCrossWait) {
            ps.flag_us += d;
          } else if (r.op == Op::kQueueWait) {
            (r.channel == 0 ? ps.queue_us : ps.buffer_us) += d;
          } else {
            ps.barrier_us += d;
          }
        }
        const std::tuple<const char*, uint32_t, int> key{r.file, r.line, p};
        if (last == nullptr || key != last_key) {
          last = &acc[key];
          last_key = key;
        }
        ++last->h.calls;
        (stall ? last->h.stall_us : last->h.exec_us) += d;
        last->api_time[r.api] += d;
      }
      for (int p = 0; p < kP; ++p) {
        PipeStalls& ps = res.stalls[p];
        ps.busy_us += ct.busy[p] * us;
        ps.hbm_us += ct.hbm_wait[p] * us;
        ps.time_us += (ct.finish - ct.begin) * us;
      }
    }
    std::map<std::pair<std::string, int>, Hotspot> spots;  // by text: a deterministic order
    for (auto& [key, a] : acc) {
      const auto& [file, line, p] = key;
      Hotspot& h = spots[{StrCat(BaseName(file), ":", line), p}];
      h.calls += a.h.calls;
      h.exec_us += a.h.exec_us;
      h.stall_us += a.h.stall_us;
      double most = -1;
      for (const auto& [api, t] : a.api_time) {
        if (t > most) { most = t; h.api = api; }
      }
    }
    for (PipeStalls& ps : res.stalls) {
      ps.idle_us = std::max(0.0, ps.time_us - ps.busy_us - ps.flag_us - ps.queue_us -
                                     ps.buffer_us - ps.barrier_us);
    }
    for (auto& [key, h] : spots) {
      h.at = key.first;
      h.pipe = static_cast<Pipe>(key.second);
      res.hotspots.push_back(std::move(h));
    }
    std::stable_sort(res.hotspots.begin(), res.hotspots.end(),
                     [](const Hotspot& a, const Hotspot& b) {
                       return a.exec_us + a.stall_us > b.exec_us + b.stall_us;
                     });
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
