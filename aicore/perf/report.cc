// Report writers: text and JSON summaries, the Chrome/Perfetto trace, msprof-style CSV files and
// a self-contained HTML page with inline SVG (summary, triangle, roofline, timeline).
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "aicore/perf/results.h"

namespace aicore::perf {

namespace {

using sim::Pipe;
constexpr int kP = sim::kPipeCount;

std::string F(double v, int prec = 3) {  // "%.*f", through to_chars (no locale, faster)
  if (!std::isfinite(v)) return "0";
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, prec);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : "0";
}

constexpr int kIssueTid = sim::kPipeCount;  // the "S issue" thread of each core

// Appends `v` with `prec` decimals, as F() formats it ("%.*f"), without printf.
void AppendFixed(std::string& o, double v, int prec) {
  if (!std::isfinite(v)) {
    o += '0';
    return;
  }
  char buf[400];  // any double in fixed notation fits
  const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, prec);
  if (r.ec == std::errc()) {
    o.append(buf, r.ptr);
  } else {
    o += '0';
  }
}
void AppendInt(std::string& o, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  o.append(buf, r.ptr);
}
void AppendEsc(std::string& o, const char* s) {  // JSON string body, as Esc()
  for (; *s != '\0'; ++s) {
    const char ch = *s;
    if (ch == '"' || ch == '\\') o += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    o += ch;
  }
}
const char* BaseOf(const char* file) {
  const char* b = std::strrchr(file, '/');
  return b ? b + 1 : file;
}

double Round4(double v) { return std::round(v * 1e4) / 1e4; }

std::string Esc(const std::string& s) {  // JSON string body
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    out += ch;
  }
  return out;
}

std::string Html(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string Base(const char* file) {
  const char* b = std::strrchr(file, '/');
  return b ? b + 1 : file;
}

const char* kPipeColor[] = {"#9e9e9e", "#43a047", "#e53935", "#8e24aa", "#1e88e5", "#fb8c00",
                            "#6d4c41"};

bool IsWork(const Record& r) { return r.op == Op::kCompute || r.op == Op::kCopy; }

constexpr size_t kHotspots = 50;  // source lines kept in summary.json and report.html

}  // namespace

std::string SummaryText(const std::vector<LaunchResult>& results) {
  std::string o;
  for (size_t k = 0; k < results.size(); ++k) {
    const LaunchResult& r = results[k];
    const Triangle& t = r.triangle;
    o += StrCat("kernel ", r.kernel, " on ", r.chip, " (launch ", k, ", blockDim ", r.block_dim,
                ", ", r.instructions, " instructions)\n");
    o += StrCat("  modeled time   ", F(r.kernel_us, 3), " us = body ", F(r.body_us, 3),
                " us + launch overhead ", F(r.launch_overhead_us, 1), " us\n");
    o += StrCat("  cores          ", t.cores_used, " of ", t.cores_available, "\n");
    o += "  pipes         ";
    for (const auto& [name, v] : r.metrics) {
      if (name.size() > 6 && name.substr(name.size() - 6) == "_ratio") {
        o += StrCat(" ", name, "=", F(v, 3));
      }
    }
    o += "\n";
    o += StrCat("  GM             read ", r.gm_read_bytes, " B (", F(100 * r.l2_hit_fraction, 1),
                "% from L2), write ", r.gm_write_bytes, " B, ", F(r.achieved_gbps, 1),
                " GB/s; HBM ", F(r.hbm_gbps, 1), " GB/s (", F(100 * t.bandwidth_utilisation, 1),
                "% of peak)\n");
    o += StrCat("  flops          ", r.flops, " (", F(r.achieved_gflops, 1), " GFLOP/s)\n");
    o += StrCat("  triangle       compute ", F(100 * t.compute_utilisation, 1),
                "% of peak flop/s | memory ", F(100 * t.bandwidth_utilisation, 1),
                "% of HBM bandwidth | parallelism ", t.cores_used, " of ", t.cores_available,
                " cores, pipe overlap ", F(t.pipe_overlap, 2), "\n");
    o += StrCat("  binding        ", t.corner, " corner: ", t.reason, "\n");
    const Roofline& f = r.roofline;
    o += StrCat("  roofline       ", f.roof, ": ", F(f.achieved_flops_per_s / 1e9, 1),
                " GFLOP/s of attainable ", F(f.attainable_flops_per_s / 1e9, 1), " (",
                F(100 * f.fraction_of_roof, 1), "% of roofline, ", f.limit, " roof); ",
                F(f.density, 3), " flop per HBM byte, ", F(f.l2_density, 3),
                " per GM read byte\n");
    o += "  advice:\n";
    for (const auto& a : r.advice) o += StrCat("    - ", a, "\n");
    for (const auto& n : r.notes) o += StrCat("  note: ", n, "\n");
  }
  return o;
}

std::string SummaryJson(const std::vector<LaunchResult>& results) {
  nlohmann::json all = nlohmann::json::array();
  for (const LaunchResult& r : results) {
    nlohmann::json j;
    j["kernel"] = r.kernel;
    j["chip"] = r.chip;
    j["block_dim"] = r.block_dim;
    j["instructions"] = r.instructions;
    j["kernel_us"] = r.kernel_us;
    j["body_us"] = r.body_us;
    j["launch_overhead_us"] = r.launch_overhead_us;
    j["gm_read_bytes"] = r.gm_read_bytes;
    j["gm_write_bytes"] = r.gm_write_bytes;
    j["achieved_gbps"] = r.achieved_gbps;
    j["l2_hit_fraction"] = r.l2_hit_fraction;
    j["hbm_gbps"] = r.hbm_gbps;
    j["flops"] = r.flops;
    j["achieved_gflops"] = r.achieved_gflops;
    for (const auto& [k, v] : r.metrics) j["metrics"][k] = v;
    const Triangle& t = r.triangle;
    j["triangle"] = {{"compute_utilisation", t.compute_utilisation},
                     {"parallelism", t.parallelism}, {"reason", t.reason},
                     {"compute_density", t.compute_density}, {"balance_point", t.balance_point},
                     {"bandwidth_utilisation", t.bandwidth_utilisation},
                     {"cores_used", t.cores_used}, {"cores_available", t.cores_available},
                     {"pipe_overlap", t.pipe_overlap}, {"binding_pipe", t.binding_pipe},
                     {"binding_ratio", t.binding_ratio}, {"corner", t.corner}};
    const Roofline& f = r.roofline;
    j["roofline"] = {{"roof", f.roof}, {"peak_flops_per_s", f.peak_flops_per_s},
                     {"peak_bytes_per_s", f.peak_bytes_per_s}, {"density", f.density},
                     {"achieved_flops_per_s", f.achieved_flops_per_s},
                     {"attainable_flops_per_s", f.attainable_flops_per_s},
                     {"fraction_of_roof", f.fraction_of_roof}, {"flops", f.flops},
                     {"l2_bytes_per_s", f.l2_bytes_per_s}, {"l2_density", f.l2_density},
                     {"hbm_roof_flops_per_s", f.hbm_roof_flops_per_s},
                     {"l2_roof_flops_per_s", f.l2_roof_flops_per_s}, {"limit", f.limit}};
    for (int p = 0; p < kP; ++p) {
      const PipeStalls& ps = r.stalls[p];
      if (ps.busy_us + ps.flag_us + ps.queue_us + ps.buffer_us + ps.barrier_us <= 0) continue;
      j["stalls"][sim::PipeName(static_cast<Pipe>(p))] = {
          {"busy_us", ps.busy_us}, {"hbm_us", ps.hbm_us}, {"flag_us", ps.flag_us},
          {"queue_us", ps.queue_us}, {"buffer_us", ps.buffer_us},
          {"barrier_us", ps.barrier_us}, {"idle_us", ps.idle_us}, {"time_us", ps.time_us}};
    }
    j["hotspots"] = nlohmann::json::array();
    for (size_t h = 0; h < r.hotspots.size() && h < kHotspots; ++h) {
      const Hotspot& hs = r.hotspots[h];
      j["hotspots"].push_back({{"at", hs.at}, {"api", hs.api},
                               {"pipe", sim::PipeName(hs.pipe)}, {"calls", hs.calls},
                               {"exec_us", hs.exec_us}, {"stall_us", hs.stall_us}});
    }
    j["advice"] = r.advice;
    j["notes"] = r.notes;
    j["replay_seconds"] = r.replay_seconds;
    j["cores"] = nlohmann::json::array();
    for (const auto& c : r.cores) {
      nlohmann::json cj = {{"name", c.name}, {"block_idx", c.block_idx},
                           {"physical_core", c.physical_core}, {"begin_us", c.begin_us},
                           {"finish_us", c.finish_us}, {"time_us", c.time_us},
                           {"gm_read_bytes", c.gm_read_bytes}, {"gm_write_bytes", c.gm_write_bytes},
                           {"flops", c.flops}, {"pipe_overlap", c.pipe_overlap}};
      for (int p = 0; p < kP; ++p) {
        cj["pipes"][sim::PipeName(static_cast<Pipe>(p))] = {
            {"busy_us", c.pipes[p].busy_us}, {"ratio", c.pipes[p].ratio},
            {"instructions", c.pipes[p].instructions}};
      }
      j["cores"].push_back(cj);
    }
    all.push_back(j);
  }
  return all.dump(2) + "\n";
}

// Note [Trace layout]
// One process per core of each launch (pid = launch * 10000 + core + 1, named "<kernel> AIV 3"),
// one thread per pipe (tid = pipe index, named "S", "V", ...). Every recorded instruction is an "X"
// slice; waits show as slices covering the stall on the waiting pipe. Each dependency edge the
// replay honoured (flags, queue events, cross-core flags, SyncAll) is a flow arrow ("s" -> "f")
// from the releasing slice to a zero-length "<wait> done" slice where the wait completed.
// The scalar unit's issue slots are runs of back-to-back issues on an extra thread, "S issue".
// Launches follow one another in time; times are microseconds.
std::string TraceJson(const std::vector<LaunchResult>& results) {
  std::string o = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& ev) {
    if (!first) o += ",\n";
    first = false;
    o += ev;
  };
  double offset_us = 0;
  uint64_t flow_id = 1;
  for (size_t k = 0; k < results.size(); ++k) {
    const LaunchResult& r = results[k];
    const double us = 1.0 / r.clock_mhz;  // microseconds per cycle
    const auto& cores = r.record->cores;
    auto pid = [&](size_t c) { return k * 10000 + c + 1; };
    for (size_t c = 0; c < cores.size(); ++c) {
      emit(StrCat("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":", pid(c),
                  ",\"args\":{\"name\":\"", Esc(r.kernel), " ", cores[c]->name, "\"}}"));
      emit(StrCat("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":", pid(c),
                  ",\"args\":{\"sort_index\":", pid(c), "}}"));
      std::array<bool, kP> used{};
      for (const Record& rec : cores[c]->records) {
        const int p = rec.pipe == Pipe::kAll ? 0 : static_cast<int>(rec.pipe);
        used[p] = true;
      }
      for (int p = 0; p < kP; ++p) {
        if (!used[p]) continue;
        emit(StrCat("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":", pid(c), ",\"tid\":", p,
                    ",\"args\":{\"name\":\"", sim::PipeName(static_cast<Pipe>(p)), "\"}}"));
      }
      emit(StrCat("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":", pid(c), ",\"tid\":",
                  kIssueTid, ",\"args\":{\"name\":\"S issue\"}}"));
      const CoreTimeline& ct = r.timeline.cores[c];
      // The scalar unit's issue slots, merged into runs of back-to-back issues.
      const double step = r.timeline.issue_cycles;
      double run_start = 0, run_end = -1;
      uint64_t run_n = 0;
      auto flush_issue = [&]() {
        if (run_n == 0) return;
        emit(StrCat("{\"name\":\"issue\",\"cat\":\"S\",\"ph\":\"X\",\"pid\":", pid(c),
                    ",\"tid\":", kIssueTid, ",\"ts\":", F(Round4(offset_us + run_start * us), 4),
                    ",\"dur\":",
                    F(Round4(offset_us + run_end * us) - Round4(offset_us + run_start * us), 4),
                    ",\"args\":{\"instructions\":", run_n, "}}"));
        run_n = 0;
      };
      for (size_t i = 0; i < ct.issue.size(); ++i) {
        if (run_n > 0 && ct.issue[i] <= run_end + 1e-9) {
          run_end = ct.issue[i] + step;
          ++run_n;
          continue;
        }
        flush_issue();
        run_start = ct.issue[i];
        run_end = run_start + step;
        run_n = 1;
      }
      flush_issue();
      for (size_t i = 0; i < cores[c]->records.size(); ++i) {
        const Record& rec = cores[c]->records[i];
        const int p = rec.pipe == Pipe::kAll ? 0 : static_cast<int>(rec.pipe);
        // Rounded to 0.1 ns so that neighbouring slices never overlap by a rounding error.
        const double ts = Round4(offset_us + ct.start[i] * us);
        const double dur = std::max(0.0, Round4(offset_us + ct.end[i] * us) - ts);
        // The hot loop of a large trace: appended piece by piece, without a stream per slice.
        if (!first) o += ",\n";
        first = false;
        o += "{\"name\":\"";
        AppendEsc(o, rec.api);
        o += "\",\"cat\":\"";
        o += sim::PipeName(static_cast<Pipe>(p));
        o += "\",\"ph\":\"X\",\"pid\":";
        AppendInt(o, pid(c));
        o += ",\"tid\":";
        AppendInt(o, static_cast<uint64_t>(p));
        o += ",\"ts\":";
        AppendFixed(o, ts, 4);
        o += ",\"dur\":";
        AppendFixed(o, dur, 4);
        o += ",\"args\":{\"op\":\"";
        o += OpName(rec.op);
        o += "\",\"at\":\"";
        AppendEsc(o, BaseOf(rec.file));
        o += ':';
        AppendInt(o, rec.line);
        o += '"';
        if (IsWork(rec)) {
          o += ",\"bytes\":";
          AppendInt(o, rec.bytes);
          o += ",\"elements\":";
          AppendInt(o, rec.elements);
          o += ",\"dtype\":\"";
          o += DTypeName(rec.dtype);
          o += '"';
        }
        o += "}}";
      }
    }
    // Flow arrows run forward in time: from the slice that released the dependency (SetFlag,
    // EnQue, FreeTensor, CrossCoreSetFlag, the last SyncAll) to a zero-length "done" slice at
    // the moment the matching wait completed. The wait slice itself starts when the wait began,
    // usually before the release, so an arrow into it would point backwards.
    std::set<std::pair<uint32_t, uint32_t>> done;
    for (const Edge& e : r.timeline.edges) {
      const Record& from = cores[e.from_core]->records[e.from];
      const Record& to = cores[e.to_core]->records[e.to];
      const int pf = from.pipe == Pipe::kAll ? 0 : static_cast<int>(from.pipe);
      const int pt = to.pipe == Pipe::kAll ? 0 : static_cast<int>(to.pipe);
      const char* cat = e.kind == Edge::kFlag    ? "flag"
                        : e.kind == Edge::kQueue ? "queue"
                        : e.kind == Edge::kCross ? "cross_core"
                                                 : "sync_all";
      const CoreTimeline& tt = r.timeline.cores[e.to_core];
      const double ts_from = Round4(offset_us + r.timeline.cores[e.from_core].start[e.from] * us);
      const double ts_to = Round4(offset_us + tt.end[e.to] * us);
      if (done.insert({e.to_core, e.to}).second) {
        if (!first) o += ",\n";
        first = false;
        o += "{\"name\":\"";
        AppendEsc(o, to.api);
        o += " done\",\"cat\":\"done\",\"ph\":\"X\",\"pid\":";
        AppendInt(o, pid(e.to_core));
        o += ",\"tid\":";
        AppendInt(o, static_cast<uint64_t>(pt));
        o += ",\"ts\":";
        AppendFixed(o, ts_to, 4);
        o += ",\"dur\":0,\"args\":{\"waited_us\":";
        AppendFixed(o, Round4((tt.end[e.to] - tt.start[e.to]) * us), 4);
        o += ",\"released_by\":\"";
        AppendEsc(o, from.api);
        o += "\"}}";
      }
      for (int end = 0; end < 2; ++end) {
        o += ",\n{\"name\":\"";
        AppendEsc(o, from.api);
        o += "\",\"cat\":\"";
        o += cat;
        o += end ? "\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" : "\",\"ph\":\"s\",\"id\":";
        AppendInt(o, flow_id);
        o += ",\"pid\":";
        AppendInt(o, end ? pid(e.to_core) : pid(e.from_core));
        o += ",\"tid\":";
        AppendInt(o, static_cast<uint64_t>(end ? pt : pf));
        o += ",\"ts\":";
        AppendFixed(o, end ? ts_to : ts_from, 4);
        o += '}';
      }
      ++flow_id;
    }
    offset_us += r.kernel_us;
  }
  o += "\n]}\n";
  return o;
}

std::string PipeUtilizationCsv(const std::vector<LaunchResult>& results) {
  std::string o = "launch,kernel,core,core_type,block_idx,physical_core,time(us)";
  for (int p = 0; p < kP; ++p) {
    const char* n = MetricPipeName(static_cast<Pipe>(p));
    o += StrCat(",", n, "_time(us),", n, "_ratio,", n, "_instructions");
  }
  o += ",pipe_overlap\n";
  for (size_t k = 0; k < results.size(); ++k) {
    for (const auto& c : results[k].cores) {
      o += StrCat(k, ",", results[k].kernel, ",", c.name, ",", MetricPrefix(c.type), ",",
                  c.block_idx, ",", c.physical_core, ",", F(c.time_us, 4));
      for (int p = 0; p < kP; ++p) {
        o += StrCat(",", F(c.pipes[p].busy_us, 4), ",", F(c.pipes[p].ratio, 4), ",",
                    c.pipes[p].instructions);
      }
      o += StrCat(",", F(c.pipe_overlap, 4), "\n");
    }
  }
  return o;
}

std::string MemoryCsv(const std::vector<LaunchResult>& results) {
  std::string o = "launch,kernel,core,gm_read_bytes,gm_write_bytes,gm_to_local_bw(GB/s),"
                  "local_to_gm_bw(GB/s),time(us)\n";
  for (size_t k = 0; k < results.size(); ++k) {
    for (const auto& c : results[k].cores) {
      const double s = c.time_us * 1e-6;
      o += StrCat(k, ",", results[k].kernel, ",", c.name, ",", c.gm_read_bytes, ",",
                  c.gm_write_bytes, ",", F(s > 0 ? c.gm_read_bytes / s / 1e9 : 0, 3), ",",
                  F(s > 0 ? c.gm_write_bytes / s / 1e9 : 0, 3), ",", F(c.time_us, 4), "\n");
    }
  }
  return o;
}

std::string InstructionsCsv(const std::vector<LaunchResult>& results) {
  std::string o = "launch,kernel,code,api,pipe,dtype,calls,cycles,running_time(us),"
                  "exec_time(us),stall_time(us),queued_time(us),bytes,elements\n";
  for (size_t k = 0; k < results.size(); ++k) {
    const LaunchResult& r = results[k];
    struct Agg {
      uint64_t calls = 0, bytes = 0, elements = 0;
      double cycles = 0, stall = 0, queued = 0;
    };
    // Keyed by the call site's string literals first (no string per record), then by their text
    // so that the rows come out in the same order every run.
    struct SiteHash {
      size_t operator()(const std::tuple<const char*, uint32_t, const char*, int, int>& k) const {
        const auto& [f, l, a, p, d] = k;
        return std::hash<const void*>()(f) ^ (std::hash<const void*>()(a) * 31) ^
               (size_t{l} << 20) ^ (size_t(p) << 8) ^ size_t(d);
      }
    };
    std::unordered_map<std::tuple<const char*, uint32_t, const char*, int, int>, Agg, SiteHash>
        by_site;
    for (size_t c = 0; c < r.record->cores.size(); ++c) {
      const auto& recs = r.record->cores[c]->records;
      const CoreTimeline& ct = r.timeline.cores[c];
      for (size_t i = 0; i < recs.size(); ++i) {
        const Record& rec = recs[i];
        auto& a = by_site[{rec.file, rec.line, rec.api, static_cast<int>(rec.pipe),
                           static_cast<int>(rec.dtype)}];
        ++a.calls;
        const double d = ct.end[i] - ct.start[i];
        a.cycles += d;
        if (IsStall(rec)) a.stall += d;
        if (IsWork(rec)) a.queued += std::max(0.0, ct.start[i] - ct.issue[i]);
        a.bytes += rec.bytes;
        a.elements += rec.elements;
      }
    }
    std::map<std::tuple<std::string, std::string, int, int>, Agg> agg;
    for (const auto& [k, a] : by_site) {
      const auto& [file, line, api, pipe, dt] = k;
      Agg& t = agg[{StrCat(Base(file), ":", line), api, pipe, dt}];
      t.calls += a.calls;
      t.bytes += a.bytes;
      t.elements += a.elements;
      t.cycles += a.cycles;
      t.stall += a.stall;
      t.queued += a.queued;
    }
    const double mhz = r.clock_mhz;
    for (const auto& [key, a] : agg) {
      const auto& [code, api, pipe, dt] = key;
      o += StrCat(k, ",", r.kernel, ",", code, ",", api, ",",
                  sim::PipeName(static_cast<Pipe>(pipe)), ",",
                  DTypeName(static_cast<DType>(dt)), ",", a.calls, ",", F(a.cycles, 2), ",",
                  F(a.cycles / mhz, 4), ",", F((a.cycles - a.stall) / mhz, 4), ",",
                  F(a.stall / mhz, 4), ",", F(a.queued / mhz, 4), ",", a.bytes, ",", a.elements,
                  "\n");
    }
  }
  return o;
}

namespace {

// One number as a JSON/JS literal (finite, compact).
std::string Num(double v, int prec = 1) {
  if (!std::isfinite(v)) return "0";
  std::string t = F(v, prec);
  if (t.find('.') != std::string::npos) {
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
  }
  return t == "-0" ? "0" : t;
}

// Appends Num(v): one decimal, trailing zeros dropped.
void AppendNum(std::string& o, double v) {
  const size_t at = o.size();
  AppendFixed(o, v, 1);
  if (o.size() >= at + 2 && o.compare(o.size() - 2, 2, ".0") == 0) o.resize(o.size() - 2);
  if (o.compare(at, std::string::npos, "-0") == 0) o.replace(at, 2, "0");
}

std::string Legend(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s = "<div class=\"legend\">";
  for (const auto& [color, label] : items) {
    s += StrCat("<span><i style=\"background:", color, "\"></i>", Html(label), "</span>");
  }
  return s + "</div>";
}

std::string TriangleSvg(const LaunchResult& r, size_t k) {
  const Triangle& t = r.triangle;
  // Corners: compute (top), memory (bottom left), parallelism (bottom right); each axis runs
  // from the centre (0% utilised) to its corner (100%).
  const double cx = 190, cy = 140, R = 105;
  const double ang[3] = {-90, 150, 30};
  const char* names[3] = {"compute", "memory", "parallelism"};
  const double val[3] = {std::min(1.0, t.compute_utilisation),
                         std::min(1.0, t.bandwidth_utilisation), std::min(1.0, t.parallelism)};
  const std::string label[3] = {
      StrCat("compute: ", F(100 * t.compute_utilisation, 1), "% of peak flop/s"),
      StrCat("memory: ", F(100 * t.bandwidth_utilisation, 1), "% of HBM bandwidth"),
      StrCat("parallelism: ", t.cores_used, " of ", t.cores_available, " cores")};
  auto pt = [&](int i, double f) {
    const double a = ang[i] * M_PI / 180;
    return std::make_pair(cx + f * R * std::cos(a), cy + f * R * std::sin(a));
  };
  std::string s = StrCat("<svg id=\"triangle-", k, "\" width=\"380\" height=\"310\" "
                         "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\">");
  std::string outer, inner;
  for (int i = 0; i < 3; ++i) {
    auto [x, y] = pt(i, 1);
    outer += StrCat(F(x, 1), ",", F(y, 1), " ");
    auto [ix, iy] = pt(i, std::max(0.02, val[i]));
    inner += StrCat(F(ix, 1), ",", F(iy, 1), " ");
  }
  s += StrCat("<polygon points=\"", outer, "\" fill=\"#f5f5f5\" stroke=\"#555\"/>");
  for (double g : {0.25, 0.5, 0.75}) {
    std::string ring;
    for (int i = 0; i < 3; ++i) {
      auto [x, y] = pt(i, g);
      ring += StrCat(F(x, 1), ",", F(y, 1), " ");
    }
    s += StrCat("<polygon points=\"", ring, "\" fill=\"none\" stroke=\"#ddd\"/>");
  }
  for (int i = 0; i < 3; ++i) {
    auto [x, y] = pt(i, 1);
    s += StrCat("<line x1=\"", cx, "\" y1=\"", cy, "\" x2=\"", F(x, 1), "\" y2=\"", F(y, 1),
                "\" stroke=\"#bbb\"/>");
  }
  s += StrCat("<polygon points=\"", inner, "\" fill=\"#1e88e5\" fill-opacity=\"0.35\" "
              "stroke=\"#1e88e5\"><title>utilisation of each corner</title></polygon>");
  for (int i = 0; i < 3; ++i) {
    auto [x, y] = pt(i, 1);
    const bool bind = t.corner == names[i];
    s += StrCat("<circle cx=\"", F(x, 1), "\" cy=\"", F(y, 1), "\" r=\"", bind ? 8 : 4,
                "\" fill=\"", bind ? "#e53935" : "#555", "\"/>");
    const double ly = i == 0 ? y - 12 : y + 20;
    s += StrCat("<text x=\"", F(x, 1), "\" y=\"", F(ly, 1), "\" text-anchor=\"middle\" "
                "font-weight=\"", bind ? "bold" : "normal", "\">", names[i], "</text>");
    s += StrCat("<text x=\"10\" y=\"", 262 + 15 * i, "\" font-weight=\"",
                bind ? "bold" : "normal", "\">", Html(label[i]), bind ? " (binding)" : "",
                "</text>");
  }
  s += "</svg>";
  s += Legend({{"#1e88e5", "utilisation (centre 0%, corner 100%; rings every 25%)"},
               {"#e53935", StrCat("binding corner: ", t.corner)}});
  return s;
}

std::string RooflineSvg(const LaunchResult& r, size_t k) {
  const Roofline& f = r.roofline;
  const double W = 490, H = 320, L = 64, B = 46, T = 15, Rm = 25;
  const bool l2 = f.l2_bytes_per_s > 0;
  const double balance = f.peak_bytes_per_s > 0 ? f.peak_flops_per_s / f.peak_bytes_per_s : 1;
  const double l2_balance = l2 ? f.peak_flops_per_s / f.l2_bytes_per_s : balance;
  const double xd = f.density > 0 ? f.density : balance / 100;
  const double xl = f.l2_density > 0 ? f.l2_density : xd;
  const double lo = std::min({xd, xl, balance, l2_balance});
  const double hi = std::max({xd, xl, balance, l2_balance});
  const double xmin = std::pow(10, std::floor(std::log10(lo) - 1));
  const double xmax = std::pow(10, std::ceil(std::log10(hi) + 0.5));
  const double ymax = std::pow(10, std::ceil(std::log10(std::max(f.peak_flops_per_s, 1.0)) + 0.3));
  const double ymin = std::pow(10, std::floor(std::log10(std::max(
      1.0, std::min(f.achieved_flops_per_s > 0 ? f.achieved_flops_per_s / 3 : ymax / 1e4,
                    xmin * f.peak_bytes_per_s)))));
  auto X = [&](double x) {
    return L + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) *
                   (W - L - Rm);
  };
  auto Y = [&](double y) {
    return H - B - (std::log10(std::max(y, ymin)) - std::log10(ymin)) /
                       (std::log10(ymax) - std::log10(ymin)) * (H - B - T);
  };
  std::string s = StrCat("<svg id=\"roofline-", k, "\" width=\"", W, "\" height=\"", H,
                         "\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">");
  s += StrCat("<rect x=\"", L, "\" y=\"", T, "\" width=\"", W - L - Rm, "\" height=\"",
              H - B - T, "\" fill=\"#fafafa\" stroke=\"#999\"/>");
  for (double x = xmin; x <= xmax * 1.001; x *= 10) {
    s += StrCat("<text x=\"", F(X(x), 1), "\" y=\"", H - B + 14, "\" text-anchor=\"middle\">",
                x < 1 ? F(x, static_cast<int>(-std::log10(x) + 0.5)) : F(x, 0), "</text>");
  }
  for (double y = ymin; y <= ymax * 1.001; y *= 10) {
    s += StrCat("<text x=\"", L - 4, "\" y=\"", F(Y(y) + 4, 1), "\" text-anchor=\"end\">1e",
                static_cast<int>(std::lround(std::log10(y))), "</text>");
  }
  auto roof = [&](double bw, const char* color, const char* dash) {
    std::string path;
    const int n = 60;
    for (int i = 0; i <= n; ++i) {
      const double x = xmin * std::pow(xmax / xmin, double(i) / n);
      const double y = std::min(f.peak_flops_per_s, x * bw);
      path += StrCat(i == 0 ? "M" : "L", F(X(x), 1), ",", F(Y(y), 1), " ");
    }
    return StrCat("<path d=\"", path, "\" fill=\"none\" stroke=\"", color,
                  "\" stroke-width=\"2\" stroke-dasharray=\"", dash, "\"/>");
  };
  s += roof(f.peak_bytes_per_s, "#333", "none");
  if (l2) s += roof(f.l2_bytes_per_s, "#1e88e5", "6 3");
  s += StrCat("<text x=\"", W - Rm - 4, "\" y=\"", F(Y(f.peak_flops_per_s) - 5, 1),
              "\" text-anchor=\"end\">", Html(f.roof), " peak ", F(f.peak_flops_per_s / 1e12, 2),
              " TFLOP/s</text>");
  if (f.achieved_flops_per_s > 0) {
    s += StrCat("<circle cx=\"", F(X(xd), 1), "\" cy=\"", F(Y(f.achieved_flops_per_s), 1),
                "\" r=\"6\" fill=\"#e53935\"><title>", F(f.achieved_flops_per_s / 1e9, 1),
                " GFLOP/s at ", F(f.density, 3), " flop per HBM byte</title></circle>");
    if (l2 && f.l2_density > 0) {
      s += StrCat("<circle cx=\"", F(X(xl), 1), "\" cy=\"", F(Y(f.achieved_flops_per_s), 1),
                  "\" r=\"5\" fill=\"none\" stroke=\"#1e88e5\" stroke-width=\"2\"><title>",
                  F(f.achieved_flops_per_s / 1e9, 1), " GFLOP/s at ", F(f.l2_density, 3),
                  " flop per GM read byte</title></circle>");
    }
    const double tx = std::min(X(std::max(xd, xl)) + 9, W - Rm - 150);
    s += StrCat("<text x=\"", F(tx, 1), "\" y=\"", F(Y(f.achieved_flops_per_s) + 16, 1), "\">",
                F(100 * f.fraction_of_roof, 1), "% of the ", Html(f.limit), " roof</text>");
  }
  s += StrCat("<text x=\"", (L + W) / 2, "\" y=\"", H - 8,
              "\" text-anchor=\"middle\">arithmetic intensity (flop per byte, log)</text>");
  s += StrCat("<text transform=\"translate(14,", (T + H - B) / 2,
              ") rotate(-90)\" text-anchor=\"middle\">performance (flop/s, log)</text>");
  s += "</svg>";
  std::vector<std::pair<std::string, std::string>> items = {
      {"#333", StrCat("HBM roof: ", F(f.peak_bytes_per_s / 1e9, 0), " GB/s")}};
  if (l2) {
    items.push_back({"#1e88e5", StrCat("L2 roof: ", F(f.l2_bytes_per_s / 1e9, 0),
                                        " GB/s (cores' L2 reads)")});
  }
  items.push_back({"#e53935", "kernel at flop per HBM byte"});
  if (l2) items.push_back({"#90caf9", "kernel at flop per GM read byte (ring)"});
  return s + Legend(items);
}

// The interactive timeline's data: per row (a core's pipe) the work slices and the waits, in
// cycles. Rows hold every core; when a launch has more than `budget` slices, neighbours closer
// than a resolution merge (their count kept), so the page stays loadable. The page's budget,
// kTimelineSlices, is shared among its launches (at least kTimelineMinSlices each).
constexpr size_t kTimelineSlices = 1000000, kTimelineMinSlices = 50000;

std::string TimelineData(const LaunchResult& r, size_t budget) {
  const auto& cores = r.record->cores;
  size_t total = 0, nrows = 0;
  std::vector<std::array<bool, kP>> used(cores.size());
  for (size_t c = 0; c < cores.size(); ++c) {
    used[c] = {};
    for (const Record& rec : cores[c]->records) {
      used[c][rec.pipe == Pipe::kAll ? 0 : static_cast<int>(rec.pipe)] = true;
      ++total;
    }
    for (bool u : used[c]) nrows += u;
  }
  const double body = std::max(1.0, r.timeline.body_cycles);
  const double res = total > budget
                         ? body / (static_cast<double>(budget) / std::max<size_t>(1, nrows))
                         : 0.0;
  std::map<std::string, int> api_index;
  std::vector<std::string> apis;
  std::string rows;
  for (size_t c = 0; c < cores.size(); ++c) {
    const CoreTimeline& ct = r.timeline.cores[c];
    for (int p = 0; p < kP; ++p) {
      if (!used[c][p]) continue;
      std::string work, wait;
      double ws = -1, we = -1, ss = -1, se = -1;
      int wn = 0, sn = 0, wa = 0;
      auto flush_work = [&]() {
        if (wn == 0) return;
        if (!work.empty()) work += ',';
        AppendNum(work, ws);
        work += ',';
        AppendNum(work, we - ws);
        work += ',';
        if (wn == 1) {
          AppendInt(work, static_cast<uint64_t>(wa));
        } else {
          work += '-';
          AppendInt(work, static_cast<uint64_t>(wn));
        }
        wn = 0;
      };
      auto flush_wait = [&]() {
        if (sn == 0) return;
        if (!wait.empty()) wait += ',';
        AppendNum(wait, ss);
        wait += ',';
        AppendNum(wait, se - ss);
        sn = 0;
      };
      for (size_t i = 0; i < cores[c]->records.size(); ++i) {
        const Record& rec = cores[c]->records[i];
        if ((rec.pipe == Pipe::kAll ? 0 : static_cast<int>(rec.pipe)) != p) continue;
        const double t0 = ct.start[i], t1 = ct.end[i];
        if (IsStall(rec)) {
          if (t1 <= t0) continue;
          if (sn > 0 && t0 - se <= res && t1 - ss <= 4 * res) {
            se = std::max(se, t1);
            ++sn;
            continue;
          }
          flush_wait();
          ss = t0, se = t1, sn = 1;
          continue;
        }
        if (!IsWork(rec) && rec.op != Op::kScalar) continue;
        if (wn > 0 && t0 - we <= res && t1 - ws <= 4 * res) {
          we = std::max(we, t1);
          ++wn;
          continue;
        }
        flush_work();
        auto [it, fresh] = api_index.emplace(rec.api, static_cast<int>(apis.size()));
        if (fresh) apis.push_back(rec.api);
        ws = t0, we = t1, wn = 1, wa = it->second;
      }
      flush_work();
      flush_wait();
      rows += StrCat(rows.empty() ? "" : ",\n", "{\"core\":\"", Esc(cores[c]->name),
                     "\",\"pipe\":", p, ",\"w\":[", work, "],\"s\":[", wait, "]}");
    }
  }
  std::string names;
  for (const auto& a : apis) names += StrCat(names.empty() ? "" : ",", "\"", Esc(a), "\"");
  return StrCat("{\"us_per_cycle\":", Num(1.0 / r.clock_mhz, 9), ",\"body\":", Num(body),
                ",\"apis\":[", names, "],\"pipes\":[",
                [] {
                  std::string n;
                  for (int p = 0; p < kP; ++p) {
                    n += StrCat(p ? "," : "", "[\"", sim::PipeName(static_cast<Pipe>(p)),
                                "\",\"", kPipeColor[p], "\"]");
                  }
                  return n;
                }(),
                "],\"rows\":[\n", rows, "]}");
}

// The page's script: draws every timeline canvas from its JSON block; wheel zooms around the
// pointer, drag pans, a filter picks the cores; hovering names the slice. Plain JS, no network.
constexpr const char* kTimelineJs = R"JS(
(function () {
  'use strict';
  function niceStep(span) {
    var raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function parseCores(text, n) {
    text = text.trim();
    if (text === '' || text === 'all') return null;
    var keep = {};
    text.split(',').forEach(function (part) {
      var ab = part.split('-').map(function (x) { return parseInt(x, 10); });
      if (ab.length === 1 && !isNaN(ab[0])) keep[ab[0]] = true;
      if (ab.length === 2 && !isNaN(ab[0]) && !isNaN(ab[1])) {
        for (var i = ab[0]; i <= ab[1] && i < n + 1e6; ++i) keep[i] = true;
      }
    });
    return keep;
  }
  function Timeline(root) {
    var data = JSON.parse(root.querySelector('script.tl-data').textContent);
    var canvas = root.querySelector('canvas'), ctx = canvas.getContext('2d');
    var tip = root.querySelector('.tl-tip'), info = root.querySelector('.tl-view');
    var filter = root.querySelector('input.tl-cores'), waits = root.querySelector('input.tl-waits');
    var ROW = 14, TOP = 22, LEFT = 120;
    var coreNames = [], seen = {};
    data.rows.forEach(function (r) {
      if (!seen[r.core]) { seen[r.core] = 1; coreNames.push(r.core); }
    });
    var rows = data.rows, t0 = 0, t1 = data.body;
    function visibleRows() {
      var keep = parseCores(filter.value, coreNames.length);
      if (!keep) return rows;
      return rows.filter(function (r) { return keep[coreNames.indexOf(r.core)]; });
    }
    var shown = rows;
    function draw() {
      shown = visibleRows();
      var w = Math.max(400, root.clientWidth - 4);
      canvas.width = w;
      canvas.height = TOP + shown.length * ROW + 4;
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.font = '11px sans-serif';
      var sx = (w - LEFT - 8) / (t1 - t0), us = data.us_per_cycle;
      var step = niceStep((t1 - t0) * us) / us;
      ctx.fillStyle = '#555';
      ctx.textAlign = 'center';
      for (var g = Math.ceil(t0 / step) * step; g <= t1; g += step) {
        var gx = LEFT + (g - t0) * sx;
        ctx.fillStyle = '#e0e0e0';
        ctx.fillRect(gx, TOP - 4, 1, canvas.height - TOP);
        ctx.fillStyle = '#555';
        ctx.fillText((g * us).toPrecision(4).replace(/\.?0+$/, '') + ' us', gx, 12);
      }
      ctx.textAlign = 'left';
      shown.forEach(function (r, i) {
        var y = TOP + i * ROW;
        ctx.fillStyle = '#222';
        ctx.fillText(r.core + ' ' + data.pipes[r.pipe][0], 2, y + 10);
        if (waits.checked) {
          ctx.fillStyle = '#cfcfcf';
          for (var k = 0; k < r.s.length; k += 2) {
            var a = r.s[k], d = r.s[k + 1];
            if (a + d < t0 || a > t1) continue;
            ctx.fillRect(LEFT + (a - t0) * sx, y + 4, Math.max(0.5, d * sx), ROW - 9);
          }
        }
        ctx.fillStyle = data.pipes[r.pipe][1];
        for (var j = 0; j < r.w.length; j += 3) {
          var s0 = r.w[j], dd = r.w[j + 1];
          if (s0 + dd < t0 || s0 > t1) continue;
          ctx.fillRect(LEFT + (s0 - t0) * sx, y + 1, Math.max(0.5, dd * sx), ROW - 3);
        }
      });
      info.textContent = 'showing ' + (t0 * us).toFixed(3) + ' - ' + (t1 * us).toFixed(3) +
          ' us, ' + shown.length + ' rows of ' + rows.length;
    }
    function at(ev) {
      var rect = canvas.getBoundingClientRect();
      var x = ev.clientX - rect.left, y = ev.clientY - rect.top;
      return {x: x, y: y, t: t0 + (x - LEFT) / ((canvas.width - LEFT - 8) / (t1 - t0))};
    }
    canvas.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var p = at(ev), f = ev.deltaY < 0 ? 0.8 : 1.25;
      var n0 = p.t - (p.t - t0) * f, n1 = p.t + (t1 - p.t) * f;
      t0 = Math.max(0, n0); t1 = Math.min(data.body, n1);
      if (t1 - t0 < 1) t1 = t0 + 1;
      draw();
    }, {passive: false});
    var drag = null;
    canvas.addEventListener('mousedown', function (ev) { drag = {x: ev.clientX, t0: t0, t1: t1}; });
    window.addEventListener('mouseup', function () { drag = null; });
    canvas.addEventListener('mousemove', function (ev) {
      if (drag) {
        var dt = (ev.clientX - drag.x) / ((canvas.width - LEFT - 8) / (drag.t1 - drag.t0));
        var span = drag.t1 - drag.t0;
        t0 = Math.min(Math.max(0, drag.t0 - dt), data.body - span); t1 = t0 + span;
        draw();
        return;
      }
      var p = at(ev), r = shown[Math.floor((p.y - TOP) / ROW)];
      tip.textContent = '';
      if (!r || p.x < LEFT) return;
      for (var j = 0; j < r.w.length; j += 3) {
        if (p.t >= r.w[j] && p.t <= r.w[j] + r.w[j + 1]) {
          var name = r.w[j + 2] >= 0 ? data.apis[r.w[j + 2]] : (-r.w[j + 2]) + ' instructions';
          tip.textContent = r.core + ' ' + data.pipes[r.pipe][0] + ': ' + name + ' at ' +
              (r.w[j] * data.us_per_cycle).toFixed(4) + ' us for ' +
              (r.w[j + 1] * data.us_per_cycle).toFixed(4) + ' us';
          return;
        }
      }
    });
    root.querySelector('.tl-reset').addEventListener('click', function () {
      t0 = 0; t1 = data.body; draw();
    });
    root.querySelector('.tl-in').addEventListener('click', function () {
      var m = (t0 + t1) / 2, h = (t1 - t0) / 4; t0 = m - h; t1 = m + h; draw();
    });
    filter.addEventListener('change', draw);
    waits.addEventListener('change', draw);
    window.addEventListener('resize', draw);
    draw();
  }
  window.addEventListener('error', function (e) {
    document.body.setAttribute('data-js-error', String(e.message));
  });
  var roots = document.querySelectorAll('.timeline');
  for (var i = 0; i < roots.length; ++i) Timeline(roots[i]);
  document.body.setAttribute('data-timelines', String(roots.length));
})();
)JS";

std::string TimelineHtml(const LaunchResult& r, size_t k, size_t budget) {
  std::vector<std::pair<std::string, std::string>> items;
  std::array<bool, kP> used{};
  for (const auto& c : r.record->cores) {
    for (const Record& rec : c->records) used[rec.pipe == Pipe::kAll ? 0 : int(rec.pipe)] = true;
  }
  for (int p = 0; p < kP; ++p) {
    if (used[p]) items.push_back({kPipeColor[p], sim::PipeName(static_cast<Pipe>(p))});
  }
  items.push_back({"#cfcfcf", "waiting (WaitFlag, DeQue, AllocTensor, barriers)"});
  std::string s = StrCat("<div class=\"timeline\" id=\"timeline-", k, "\">");
  s += Legend(items);
  s += "<div class=\"tl-controls\">cores (indices, e.g. 0-3,7; empty = all): <input "
       "class=\"tl-cores\" size=\"12\"> <label><input type=\"checkbox\" class=\"tl-waits\" "
       "checked> waits</label> <button class=\"tl-in\">zoom in</button> <button "
       "class=\"tl-reset\">reset</button> <span class=\"tl-view\"></span> &middot; wheel zooms, "
       "drag pans</div>";
  s += StrCat("<div class=\"tl-scroll\"><canvas id=\"timeline-canvas-", k,
              "\"></canvas></div><div class=\"tl-tip\">&nbsp;</div>");
  // "</" cannot appear inside the script element: the data escapes it.
  std::string data = TimelineData(r, budget);
  std::string safe;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '<') {
      safe += "\\u003c";
    } else {
      safe += data[i];
    }
  }
  s += "<script type=\"application/json\" class=\"tl-data\">" + safe + "</script></div>";
  return s;
}

// Per core type: min / mean / max over the cores of the time and each pipe's busy ratio.
std::string CoreSummaryHtml(const LaunchResult& r, size_t k) {
  std::string s = StrCat("<table id=\"cores-", k, "\"><tr><th>cores</th><th>quantity</th>"
                         "<th>min</th><th>mean</th><th>max</th><th>core at max</th></tr>");
  for (sim::CoreType t : {sim::CoreType::kAic, sim::CoreType::kCoupled, sim::CoreType::kAiv}) {
    std::vector<const CoreResult*> cs;
    for (const auto& c : r.cores) {
      if (c.type == t) cs.push_back(&c);
    }
    if (cs.empty()) continue;
    std::array<bool, kP> used{};
    for (const auto* c : cs) {
      for (int p = 0; p < kP; ++p) used[p] |= c->pipes[p].instructions > 0;
    }
    struct Q {
      std::string name;
      std::function<double(const CoreResult&)> get;
      bool pct;
    };
    std::vector<Q> qs = {{"time (us)", [](const CoreResult& c) { return c.time_us; }, false}};
    for (int p = 0; p < kP; ++p) {
      if (!used[p]) continue;
      qs.push_back({StrCat(sim::PipeName(static_cast<Pipe>(p)), " busy"),
                    [p](const CoreResult& c) { return c.pipes[p].ratio; }, true});
    }
    qs.push_back({"pipe overlap", [](const CoreResult& c) { return c.pipe_overlap; }, false});
    qs.push_back({"GM read (B)",
                  [](const CoreResult& c) { return double(c.gm_read_bytes); }, false});
    bool first = true;
    for (const Q& q : qs) {
      double mn = 1e300, mx = -1e300, sum = 0;
      const CoreResult* slow = cs[0];
      for (const auto* c : cs) {
        const double v = q.get(*c);
        mn = std::min(mn, v);
        sum += v;
        if (v > mx) { mx = v; slow = c; }
      }
      auto cell = [&](double v) {
        return q.pct ? F(100 * v, 1) + "%" : F(v, q.name == "GM read (B)" ? 0 : 3);
      };
      s += StrCat("<tr><td>", first ? StrCat(MetricPrefix(t), " x ", cs.size()) : "", "</td><td>",
                  Html(q.name), "</td><td>", cell(mn), "</td><td>", cell(sum / cs.size()),
                  "</td><td>", cell(mx), "</td><td>", Html(slow->name), "</td></tr>");
      first = false;
    }
  }
  s += "</table>";
  // Every core, folded away.
  s += StrCat("<details><summary>every core (", r.cores.size(), ")</summary><table><tr><th>core"
              "</th><th>physical</th><th>begin (us)</th><th>time (us)</th>");
  for (int p = 0; p < kP; ++p) s += StrCat("<th>", sim::PipeName(static_cast<Pipe>(p)), " %</th>");
  s += "<th>overlap</th></tr>";
  for (const auto& cr : r.cores) {
    s += StrCat("<tr><td>", Html(cr.name), "</td><td>", cr.physical_core, "</td><td>",
                F(cr.begin_us, 3), "</td><td>", F(cr.time_us, 3), "</td>");
    for (int p = 0; p < kP; ++p) s += StrCat("<td>", F(100 * cr.pipes[p].ratio, 1), "</td>");
    s += StrCat("<td>", F(cr.pipe_overlap, 2), "</td></tr>");
  }
  return s + "</table></details>";
}

std::string StallsHtml(const LaunchResult& r, size_t k) {
  std::string s = StrCat(
      "<table id=\"stalls-", k, "\"><tr><th>pipe</th><th>busy</th><th>of it: slowed by HBM "
      "share</th><th>waiting on a flag</th><th>waiting on a queue (DeQue)</th><th>waiting for a "
      "buffer (AllocTensor)</th><th>barrier / SyncAll</th><th>idle</th><th>stacked</th></tr>");
  for (int p = 0; p < kP; ++p) {
    const PipeStalls& ps = r.stalls[p];
    if (ps.busy_us + ps.flag_us + ps.queue_us + ps.buffer_us + ps.barrier_us <= 0) continue;
    const double T = ps.time_us > 0 ? ps.time_us : 1;
    auto pc = [&](double v) { return StrCat("<td>", F(100 * v / T, 1), "%</td>"); };
    const double parts[] = {ps.busy_us - ps.hbm_us, ps.hbm_us, ps.flag_us, ps.queue_us,
                            ps.buffer_us, ps.barrier_us, ps.idle_us};
    const char* colors[] = {kPipeColor[p], "#ffb74d", "#7e57c2", "#26a69a", "#ef5350",
                            "#78909c", "#eeeeee"};
    std::string bar = "<svg width=\"200\" height=\"12\" xmlns=\"http://www.w3.org/2000/svg\">";
    double x = 0;
    for (int i = 0; i < 7; ++i) {
      const double w = std::max(0.0, 200 * parts[i] / T);
      bar += StrCat("<rect x=\"", F(x, 1), "\" width=\"", F(w, 1), "\" height=\"12\" fill=\"",
                    colors[i], "\"/>");
      x += w;
    }
    bar += "</svg>";
    s += StrCat("<tr><td>", sim::PipeName(static_cast<Pipe>(p)), "</td>", pc(ps.busy_us),
                pc(ps.hbm_us), pc(ps.flag_us), pc(ps.queue_us), pc(ps.buffer_us),
                pc(ps.barrier_us), pc(ps.idle_us), "<td>", bar, "</td></tr>");
  }
  s += "</table>";
  s += Legend({{"#9e9e9e", "busy at the pipe's own rate (the pipe's colour)"},
               {"#ffb74d", "busy, slowed by the HBM share"}, {"#7e57c2", "flag"},
               {"#26a69a", "queue"}, {"#ef5350", "buffer"}, {"#78909c", "barrier / SyncAll"},
               {"#eeeeee", "idle"}});
  return s;
}

std::string HotspotsHtml(const LaunchResult& r, size_t k) {
  double total = 0;
  for (const auto& h : r.hotspots) total += h.exec_us + h.stall_us;
  std::string s = StrCat("<table id=\"hotspots-", k, "\"><tr><th>source line</th><th>pipe</th>"
                         "<th>API</th><th>calls</th><th>executing (us)</th><th>stalled (us)"
                         "</th><th>share of pipe time</th></tr>");
  for (size_t i = 0; i < r.hotspots.size() && i < kHotspots / 2; ++i) {
    const Hotspot& h = r.hotspots[i];
    if (h.exec_us + h.stall_us <= 0) break;
    s += StrCat("<tr><td>", Html(h.at), "</td><td>", sim::PipeName(h.pipe), "</td><td>",
                Html(h.api), "</td><td>", h.calls, "</td><td>", F(h.exec_us, 3), "</td><td>",
                F(h.stall_us, 3), "</td><td>",
                F(total > 0 ? 100 * (h.exec_us + h.stall_us) / total : 0, 1), "%</td></tr>");
  }
  return s + "</table>";
}

}  // namespace

std::string ReportHtml(const std::vector<LaunchResult>& results) {
  std::string o =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>aicore profile</title><style>"
      "body{font-family:sans-serif;margin:24px;color:#222;max-width:1250px}"
      "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px}"
      "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
      "td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}"
      "th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
      ".big{font-size:28px;font-weight:bold}.corner{color:#e53935;font-weight:bold}"
      ".charts{display:flex;gap:30px;flex-wrap:wrap;align-items:flex-start}"
      ".legend{font-size:12px;margin:4px 0}.legend span{margin-right:14px;white-space:nowrap}"
      ".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;"
      "vertical-align:middle;border:1px solid #999}"
      ".tl-scroll{max-height:620px;overflow:auto;border:1px solid #ddd}"
      ".tl-controls{font-size:12px;margin:4px 0}.tl-tip{font-size:12px;min-height:16px}"
      "canvas{display:block;cursor:crosshair}li{margin:4px 0}</style></head><body>"
      "<h1>aicore profile</h1><p>Modeled times on the chip below, not the CPU's; "
      "docs/profiling.md explains every number.</p>";
  for (size_t k = 0; k < results.size(); ++k) {
    const LaunchResult& r = results[k];
    const Triangle& t = r.triangle;
    const Roofline& f = r.roofline;
    o += StrCat("<h2 id=\"launch-", k, "\">", Html(r.kernel), " on ", Html(r.chip), " (launch ",
                k, ", blockDim ", r.block_dim, ")</h2>");
    o += StrCat("<p><span class=\"big\">", F(r.kernel_us, 2), " us</span> modeled = body ",
                F(r.body_us, 2), " us + launch overhead ", F(r.launch_overhead_us, 1),
                " us.</p><p>Binding corner: <span class=\"corner\">", t.corner, "</span> &mdash; ",
                Html(t.reason), ".</p>");
    o += "<h3>Advice</h3><ul>";
    for (const auto& a : r.advice) o += StrCat("<li>", Html(a), "</li>");
    o += "</ul>";
    o += StrCat("<table id=\"numbers-", k, "\"><tr><th>quantity</th><th>value</th></tr>");
    auto row = [&](const std::string& a, const std::string& b) {
      o += StrCat("<tr><td>", Html(a), "</td><td>", Html(b), "</td></tr>");
    };
    row("cores used / available", StrCat(t.cores_used, " / ", t.cores_available));
    row("instructions", StrCat(r.instructions));
    row("GM read / write", StrCat(r.gm_read_bytes, " B / ", r.gm_write_bytes, " B"));
    row("GM bandwidth", StrCat(F(r.achieved_gbps, 1), " GB/s; ", F(100 * r.l2_hit_fraction, 1),
                               "% of reads from L2"));
    row("HBM bandwidth", StrCat(F(r.hbm_gbps, 1), " GB/s (", F(100 * t.bandwidth_utilisation, 1),
                                "% of peak)"));
    row("flops", StrCat(r.flops, " (", F(r.achieved_gflops, 1), " GFLOP/s)"));
    row("compute utilisation", StrCat(F(100 * t.compute_utilisation, 1), "% of the ", f.roof,
                                      " peak ", F(f.peak_flops_per_s / 1e12, 2), " TFLOP/s"));
    row("arithmetic intensity", StrCat(F(f.density, 3), " flop per HBM byte (balance point ",
                                       F(t.balance_point, 1), "); ", F(f.l2_density, 3),
                                       " flop per GM read byte"));
    row("pipe overlap", F(t.pipe_overlap, 2));
    row("roofline", StrCat(F(100 * f.fraction_of_roof, 1), "% of attainable ",
                           F(f.attainable_flops_per_s / 1e9, 1), " GFLOP/s (", f.limit,
                           " roof, ", f.roof, ")"));
    for (const auto& [name, v] : r.metrics) row(name, F(v, 4));
    o += "</table>";
    o += "<div class=\"charts\"><div><h3>Performance triangle</h3>" + TriangleSvg(r, k) +
         "</div><div><h3>Roofline</h3>" + RooflineSvg(r, k) + "</div></div>";
    o += "<h3>Per core</h3>" + CoreSummaryHtml(r, k);
    o += "<h3>Stall reasons per pipe</h3><p>Share of the cores' time (summed over cores) each "
         "pipe spent working or blocked, and why.</p>" + StallsHtml(r, k);
    o += "<h3>Source-line hotspots</h3><p>Time per call site and pipe, summed over the cores "
         "(instructions.csv has every line).</p>" + HotspotsHtml(r, k);
    o += "<h3>Timeline</h3>" +
         TimelineHtml(r, k, std::max(kTimelineMinSlices, kTimelineSlices / results.size()));
    for (const auto& n : r.notes) o += StrCat("<p>note: ", Html(n), "</p>");
  }
  o += "<p style=\"color:#777;font-size:12px\">Open trace.json in https://ui.perfetto.dev or "
       "chrome://tracing for every instruction with its arguments and the dependency arrows."
       "</p><script>";
  o += kTimelineJs;
  o += "</script></body></html>\n";
  return o;
}

Status CompareSummaries(const nlohmann::json& before, const nlohmann::json& after,
                        const std::string& before_name, const std::string& after_name, bool html,
                        std::string* out) {
  auto check = [](const nlohmann::json& doc, const std::string& name) -> Status {
    if (!doc.is_array()) {
      return Status(StatusCode::kInvalidArgument,
                    StrCat(name, ": not a profile summary (summary.json holds an array of "
                                 "launches)"));
    }
    for (size_t i = 0; i < doc.size(); ++i) {
      for (const char* key : {"kernel", "kernel_us", "body_us", "metrics", "triangle"}) {
        if (!doc[i].is_object() || !doc[i].contains(key)) {
          return Status(StatusCode::kInvalidArgument,
                        StrCat(name, ": launch ", i, " has no \"", key, "\" field"));
        }
      }
    }
    return Status::Ok();
  };
  if (Status st = check(before, before_name); !st.ok()) return st;
  if (Status st = check(after, after_name); !st.ok()) return st;
  // Pairs launches by kernel name, the i-th launch of a kernel with its i-th launch.
  std::vector<std::pair<int, int>> pairs;
  std::map<std::string, std::vector<int>> in_after;
  for (size_t i = 0; i < after.size(); ++i) {
    in_after[after[i]["kernel"].get<std::string>()].push_back(static_cast<int>(i));
  }
  std::map<std::string, size_t> used;
  std::vector<bool> matched(after.size(), false);
  for (size_t i = 0; i < before.size(); ++i) {
    const std::string k = before[i]["kernel"];
    auto& v = in_after[k];
    const size_t n = used[k]++;
    const int j = n < v.size() ? v[n] : -1;
    if (j >= 0) matched[j] = true;
    pairs.push_back({static_cast<int>(i), j});
  }
  for (size_t j = 0; j < after.size(); ++j) {
    if (!matched[j]) pairs.push_back({-1, static_cast<int>(j)});
  }
  auto num = [](const nlohmann::json& l, const char* key) {
    return l.contains(key) && l[key].is_number() ? l[key].get<double>() : 0.0;
  };
  auto corner = [](const nlohmann::json& l) {
    const auto& t = l["triangle"];
    return StrCat(t.value("corner", std::string("?")), " (",
                  t.value("binding_pipe", std::string("?")), " ",
                  F(100 * t.value("binding_ratio", 0.0), 1), "%)");
  };
  std::string o;
  if (html) {
    o = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>aicore profile comparison"
        "</title><style>body{font-family:sans-serif;margin:24px}table{border-collapse:collapse;"
        "font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:"
        "right}th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
        ".better{color:#2e7d32}.worse{color:#c62828}</style></head><body>";
    o += StrCat("<h1>aicore profile comparison</h1><p>before: ", Html(before_name),
                "<br>after: ", Html(after_name), "</p><table id=\"compare\"><tr><th>kernel</th>"
                "<th>before (us)</th><th>after (us)</th><th>after / before</th><th>delta (us)"
                "</th><th>corner before</th><th>corner after</th></tr>");
  } else {
    o = StrCat("aicore profile comparison\n  before: ", before_name, "\n  after:  ", after_name,
               "\n\n");
    char line[256];
    std::snprintf(line, sizeof(line), "%-28s %12s %12s %9s %11s\n", "kernel (launch)",
                  "before us", "after us", "ratio", "delta us");
    o += line;
  }
  std::string details;
  for (const auto& [i, j] : pairs) {
    const nlohmann::json* b = i >= 0 ? &before[i] : nullptr;
    const nlohmann::json* a = j >= 0 ? &after[j] : nullptr;
    const std::string kernel = (b ? *b : *a)["kernel"];
    const std::string label = StrCat(kernel, " (", i >= 0 ? StrCat(i) : "-", "/",
                                     j >= 0 ? StrCat(j) : "-", ")");
    const double tb = b ? num(*b, "kernel_us") : 0, ta = a ? num(*a, "kernel_us") : 0;
    const std::string ratio = b && a && tb > 0 ? F(ta / tb, 3) + "x" : "-";
    const std::string delta = b && a ? F(ta - tb, 3) : "-";
    if (html) {
      const char* cls = !(a && b) ? "" : ta < tb ? "better" : ta > tb ? "worse" : "";
      o += StrCat("<tr><td>", Html(label), "</td><td>", b ? F(tb, 3) : "-", "</td><td>",
                  a ? F(ta, 3) : "-", "</td><td class=\"", cls, "\">", ratio, "</td><td class=\"",
                  cls, "\">", delta, "</td><td>", b ? Html(corner(*b)) : "-", "</td><td>",
                  a ? Html(corner(*a)) : "-", "</td></tr>");
    } else {
      char line[512];
      std::snprintf(line, sizeof(line), "%-28s %12s %12s %9s %11s\n", label.c_str(),
                    b ? F(tb, 3).c_str() : "-", a ? F(ta, 3).c_str() : "-", ratio.c_str(),
                    delta.c_str());
      o += line;
    }
    if (!(a && b)) continue;
    // Per-pipe ratios and the bandwidth side by side.
    std::vector<std::tuple<std::string, double, double>> rows;
    std::vector<std::string> names;
    for (const auto& [k, v] : (*b)["metrics"].items()) names.push_back(k);
    for (const auto& [k, v] : (*a)["metrics"].items()) {
      if (!(*b)["metrics"].contains(k)) names.push_back(k);
    }
    for (const auto& k : names) {
      if (k.size() < 6 || k.substr(k.size() - 6) != "_ratio") continue;
      rows.emplace_back(k, (*b)["metrics"].value(k, 0.0), (*a)["metrics"].value(k, 0.0));
    }
    rows.emplace_back("body_us", num(*b, "body_us"), num(*a, "body_us"));
    rows.emplace_back("hbm_gbps", num(*b, "hbm_gbps"), num(*a, "hbm_gbps"));
    rows.emplace_back("l2_hit_fraction", num(*b, "l2_hit_fraction"),
                      num(*a, "l2_hit_fraction"));
    rows.emplace_back("instructions", num(*b, "instructions"), num(*a, "instructions"));
    if (html) {
      details += StrCat("<h2>", Html(label), "</h2><p>corner: ", Html(corner(*b)), " &rarr; ",
                        Html(corner(*a)), "</p><table><tr><th>metric</th><th>before</th>"
                        "<th>after</th><th>delta</th></tr>");
      for (const auto& [k, vb, va] : rows) {
        details += StrCat("<tr><td>", Html(k), "</td><td>", F(vb, 3), "</td><td>", F(va, 3),
                          "</td><td>", va >= vb ? "+" : "", F(va - vb, 3), "</td></tr>");
      }
      details += "</table>";
    } else {
      details += StrCat("\n", label, ": corner ", corner(*b), " -> ", corner(*a), "\n");
      char line[256];
      std::snprintf(line, sizeof(line), "  %-26s %12s %12s %12s\n", "metric", "before", "after",
                    "delta");
      details += line;
      for (const auto& [k, vb, va] : rows) {
        std::snprintf(line, sizeof(line), "  %-26s %12s %12s %12s\n", k.c_str(),
                      F(vb, 3).c_str(), F(va, 3).c_str(),
                      StrCat(va >= vb ? "+" : "", F(va - vb, 3)).c_str());
        details += line;
      }
    }
  }
  if (html) {
    o += "</table>" + details + "</body></html>\n";
  } else {
    o += details;
  }
  *out = std::move(o);
  return Status::Ok();
}

Status WriteReports(const std::vector<LaunchResult>& results, const std::string& dir) {
  std::string path;
  for (size_t i = 0; i <= dir.size(); ++i) {  // mkdir -p
    if (i == dir.size() || dir[i] == '/') {
      path = dir.substr(0, i);
      if (!path.empty() && ::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        return Status(StatusCode::kInvalidArgument,
                      StrCat("cannot create report directory ", path, ": ", std::strerror(errno)));
      }
    }
  }
  const std::pair<const char*, std::string> files[] = {
      {"summary.txt", SummaryText(results)},
      {"summary.json", SummaryJson(results)},
      {"trace.json", TraceJson(results)},
      {"pipe_utilization.csv", PipeUtilizationCsv(results)},
      {"memory.csv", MemoryCsv(results)},
      {"instructions.csv", InstructionsCsv(results)},
      {"report.html", ReportHtml(results)},
  };
  for (const auto& [name, text] : files) {
    const std::string p = dir + "/" + name;
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) {
      return Status(StatusCode::kInvalidArgument, StrCat("cannot write ", p));
    }
  }
  return Status::Ok();
}

}  // namespace aicore::perf
