// Report writers: text and JSON summaries, the Chrome/Perfetto trace, msprof-style CSV files and
// a self-contained HTML page with inline SVG (summary, triangle, roofline, timeline).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>

#include "aicore/perf/results.h"

namespace aicore::perf {

namespace {

using sim::Pipe;
constexpr int kP = sim::kPipeCount;

std::string F(double v, int prec = 3) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", prec, v);
  return buf;
}

constexpr int kIssueTid = sim::kPipeCount;  // the "S issue" thread of each core

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
    o += StrCat("  triangle       density ", F(t.compute_density, 3), " flop/B (balance ",
                F(t.balance_point, 1), ") | bandwidth ", F(100 * t.bandwidth_utilisation, 1),
                "% | cores ", t.cores_used, "/", t.cores_available, ", pipe overlap ",
                F(t.pipe_overlap, 2), "\n");
    o += StrCat("  binding        ", t.corner, " corner (busiest pipe ", t.binding_pipe, ", ",
                F(100 * t.binding_ratio, 1), "% busy)\n");
    o += StrCat("  roofline       ", r.roofline.roof, ": ",
                F(r.roofline.achieved_flops_per_s / 1e9, 1), " GFLOP/s of attainable ",
                F(r.roofline.attainable_flops_per_s / 1e9, 1), " (",
                F(100 * r.roofline.fraction_of_roof, 1), "% of roofline)\n");
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
    j["triangle"] = {{"compute_density", t.compute_density}, {"balance_point", t.balance_point},
                     {"bandwidth_utilisation", t.bandwidth_utilisation},
                     {"cores_used", t.cores_used}, {"cores_available", t.cores_available},
                     {"pipe_overlap", t.pipe_overlap}, {"binding_pipe", t.binding_pipe},
                     {"binding_ratio", t.binding_ratio}, {"corner", t.corner}};
    const Roofline& f = r.roofline;
    j["roofline"] = {{"roof", f.roof}, {"peak_flops_per_s", f.peak_flops_per_s},
                     {"peak_bytes_per_s", f.peak_bytes_per_s}, {"density", f.density},
                     {"achieved_flops_per_s", f.achieved_flops_per_s},
                     {"attainable_flops_per_s", f.attainable_flops_per_s},
                     {"fraction_of_roof", f.fraction_of_roof}};
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
// replay honoured (flags, queue events, cross-core flags, SyncAll) is a flow arrow ("s" -> "f").
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
        std::string args = StrCat("\"op\":\"", OpName(rec.op), "\",\"at\":\"",
                                  Esc(Base(rec.file)), ":", rec.line, "\"");
        if (IsWork(rec)) {
          args += StrCat(",\"bytes\":", rec.bytes, ",\"elements\":", rec.elements,
                         ",\"dtype\":\"", DTypeName(rec.dtype), "\"");
        }
        emit(StrCat("{\"name\":\"", Esc(rec.api), "\",\"cat\":\"",
                    sim::PipeName(static_cast<Pipe>(p)), "\",\"ph\":\"X\",\"pid\":", pid(c),
                    ",\"tid\":", p, ",\"ts\":", F(ts, 4), ",\"dur\":", F(dur, 4), ",\"args\":{",
                    args, "}}"));
      }
    }
    for (const Edge& e : r.timeline.edges) {
      const Record& from = cores[e.from_core]->records[e.from];
      const Record& to = cores[e.to_core]->records[e.to];
      const int pf = from.pipe == Pipe::kAll ? 0 : static_cast<int>(from.pipe);
      const int pt = to.pipe == Pipe::kAll ? 0 : static_cast<int>(to.pipe);
      const char* cat = e.kind == Edge::kFlag    ? "flag"
                        : e.kind == Edge::kQueue ? "queue"
                        : e.kind == Edge::kCross ? "cross_core"
                                                 : "sync_all";
      const double ts_from = Round4(offset_us + r.timeline.cores[e.from_core].start[e.from] * us);
      const double ts_to = Round4(offset_us + r.timeline.cores[e.to_core].start[e.to] * us);
      emit(StrCat("{\"name\":\"", Esc(from.api), "\",\"cat\":\"", cat, "\",\"ph\":\"s\",\"id\":",
                  flow_id, ",\"pid\":", pid(e.from_core), ",\"tid\":", pf, ",\"ts\":",
                  F(ts_from, 4), "}"));
      emit(StrCat("{\"name\":\"", Esc(from.api), "\",\"cat\":\"", cat,
                  "\",\"ph\":\"f\",\"bp\":\"e\",\"id\":", flow_id, ",\"pid\":", pid(e.to_core),
                  ",\"tid\":", pt, ",\"ts\":", F(ts_to, 4), "}"));
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
  std::string o = "launch,kernel,code,api,pipe,dtype,calls,cycles,running_time(us),bytes,"
                  "elements\n";
  for (size_t k = 0; k < results.size(); ++k) {
    const LaunchResult& r = results[k];
    struct Agg {
      uint64_t calls = 0, bytes = 0, elements = 0;
      double cycles = 0;
    };
    std::map<std::tuple<std::string, std::string, int, int>, Agg> agg;
    for (size_t c = 0; c < r.record->cores.size(); ++c) {
      const auto& recs = r.record->cores[c]->records;
      const CoreTimeline& ct = r.timeline.cores[c];
      for (size_t i = 0; i < recs.size(); ++i) {
        const Record& rec = recs[i];
        auto& a = agg[{StrCat(Base(rec.file), ":", rec.line), rec.api,
                       static_cast<int>(rec.pipe), static_cast<int>(rec.dtype)}];
        ++a.calls;
        a.cycles += ct.end[i] - ct.start[i];
        a.bytes += rec.bytes;
        a.elements += rec.elements;
      }
    }
    for (const auto& [key, a] : agg) {
      const auto& [code, api, pipe, dt] = key;
      o += StrCat(k, ",", r.kernel, ",", code, ",", api, ",",
                  sim::PipeName(static_cast<Pipe>(pipe)), ",",
                  DTypeName(static_cast<DType>(dt)), ",", a.calls, ",", F(a.cycles, 2), ",",
                  F(a.cycles / r.clock_mhz, 4), ",", a.bytes, ",", a.elements, "\n");
    }
  }
  return o;
}

namespace {

std::string TriangleSvg(const LaunchResult& r) {
  const Triangle& t = r.triangle;
  // Corners: compute (top), memory (bottom left), parallelism (bottom right); each axis runs
  // from the centre (0) to its corner (1).
  const double cx = 160, cy = 150, R = 110;
  const double ang[3] = {-90, 150, 30};
  const char* names[3] = {"compute", "memory", "parallelism"};
  const double compute = t.balance_point > 0 ? std::min(1.0, t.compute_density / t.balance_point)
                                             : 0;
  const double par = t.cores_available > 0
                         ? std::min(1.0, double(t.cores_used) / t.cores_available) : 0;
  const double val[3] = {compute,
                         std::min(1.0, t.bandwidth_utilisation), par};
  auto pt = [&](int k, double f) {
    const double a = ang[k] * M_PI / 180;
    return std::make_pair(cx + f * R * std::cos(a), cy + f * R * std::sin(a));
  };
  std::string s = "<svg width=\"320\" height=\"290\" xmlns=\"http://www.w3.org/2000/svg\">";
  std::string outer, inner;
  for (int k = 0; k < 3; ++k) {
    auto [x, y] = pt(k, 1);
    outer += StrCat(F(x, 1), ",", F(y, 1), " ");
    auto [ix, iy] = pt(k, std::max(0.02, val[k]));
    inner += StrCat(F(ix, 1), ",", F(iy, 1), " ");
  }
  s += StrCat("<polygon points=\"", outer, "\" fill=\"#f5f5f5\" stroke=\"#555\"/>");
  for (int k = 0; k < 3; ++k) {
    auto [x, y] = pt(k, 1);
    s += StrCat("<line x1=\"", cx, "\" y1=\"", cy, "\" x2=\"", F(x, 1), "\" y2=\"", F(y, 1),
                "\" stroke=\"#bbb\"/>");
  }
  s += StrCat("<polygon points=\"", inner, "\" fill=\"#1e88e5\" fill-opacity=\"0.35\" "
              "stroke=\"#1e88e5\"/>");
  for (int k = 0; k < 3; ++k) {
    auto [x, y] = pt(k, 1);
    const bool bind = t.corner == names[k];
    s += StrCat("<circle cx=\"", F(x, 1), "\" cy=\"", F(y, 1), "\" r=\"", bind ? 9 : 5,
                "\" fill=\"", bind ? "#e53935" : "#555", "\"/>");
    const double ly = k == 0 ? y - 14 : y + 24;
    s += StrCat("<text x=\"", F(x, 1), "\" y=\"", F(ly, 1), "\" text-anchor=\"middle\" "
                "font-size=\"13\" font-weight=\"", bind ? "bold" : "normal", "\">", names[k], " ",
                F(100 * val[k], 0), "%</text>");
  }
  s += "</svg>";
  return s;
}

std::string RooflineSvg(const LaunchResult& r) {
  const Roofline& f = r.roofline;
  const double W = 420, H = 280, L = 60, B = 40, T = 15, Rm = 15;
  const double balance = f.peak_bytes_per_s > 0 ? f.peak_flops_per_s / f.peak_bytes_per_s : 1;
  const double xd = f.density > 0 ? f.density : balance / 100;
  double xmin = std::pow(10, std::floor(std::log10(std::min(xd, balance)) - 1));
  double xmax = std::pow(10, std::ceil(std::log10(std::max(xd, balance)) + 1));
  const double ymax = std::pow(10, std::ceil(std::log10(std::max(f.peak_flops_per_s, 1.0)) + 0.3));
  const double ymin = std::pow(10, std::floor(std::log10(std::max(
      1.0, std::min(f.achieved_flops_per_s > 0 ? f.achieved_flops_per_s : ymax / 1e4,
                    xmin * f.peak_bytes_per_s)))));
  auto X = [&](double x) {
    return L + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) *
                   (W - L - Rm);
  };
  auto Y = [&](double y) {
    return H - B - (std::log10(std::max(y, ymin)) - std::log10(ymin)) /
                       (std::log10(ymax) - std::log10(ymin)) * (H - B - T);
  };
  std::string s = StrCat("<svg width=\"", W, "\" height=\"", H,
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
  // Roof: bandwidth slope up to the balance point, then flat.
  std::string path;
  const int n = 60;
  for (int i = 0; i <= n; ++i) {
    const double x = xmin * std::pow(xmax / xmin, double(i) / n);
    const double y = std::min(f.peak_flops_per_s, x * f.peak_bytes_per_s);
    path += StrCat(i == 0 ? "M" : "L", F(X(x), 1), ",", F(Y(y), 1), " ");
  }
  s += StrCat("<path d=\"", path, "\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\"/>");
  s += StrCat("<text x=\"", W - Rm - 4, "\" y=\"", F(Y(f.peak_flops_per_s) - 5, 1),
              "\" text-anchor=\"end\">", Html(f.roof), " peak ", F(f.peak_flops_per_s / 1e12, 1),
              " TFLOP/s</text>");
  if (f.achieved_flops_per_s > 0) {
    s += StrCat("<circle cx=\"", F(X(xd), 1), "\" cy=\"", F(Y(f.achieved_flops_per_s), 1),
                "\" r=\"6\" fill=\"#e53935\"><title>", F(f.achieved_flops_per_s / 1e9, 1),
                " GFLOP/s at ", F(f.density, 3), " flop/B</title></circle>");
    s += StrCat("<text x=\"", F(X(xd) + 9, 1), "\" y=\"", F(Y(f.achieved_flops_per_s) + 4, 1),
                "\">", Html(r.kernel), " (", F(100 * f.fraction_of_roof, 0), "% of roof)</text>");
  }
  s += StrCat("<text x=\"", (L + W) / 2, "\" y=\"", H - 6,
              "\" text-anchor=\"middle\">flops per GM byte</text>");
  s += "</svg>";
  return s;
}

std::string TimelineSvg(const LaunchResult& r) {
  // One row per (core, pipe) with work or waits; at most 16 cores; rects thinner than half a
  // pixel merge with their neighbour so the page stays small.
  constexpr int kMaxCores = 16;
  const double W = 1100, L = 110, row_h = 14;
  const auto& cores = r.record->cores;
  const double total = std::max(1.0, r.timeline.body_cycles);
  const double sx = (W - L - 10) / total;
  std::string rows;
  int row = 0;
  for (size_t c = 0; c < cores.size() && c < static_cast<size_t>(kMaxCores); ++c) {
    const CoreTimeline& ct = r.timeline.cores[c];
    for (int p = 0; p < kP; ++p) {
      std::string rects;
      double open_x = -1, open_end = -1;
      int open_n = 0;
      std::string open_api;
      auto flush = [&]() {
        if (open_n == 0) return;
        rects += StrCat("<rect x=\"", F(open_x, 1), "\" y=\"", F(row * row_h + 20, 1),
                        "\" width=\"", F(std::max(0.5, open_end - open_x), 1), "\" height=\"",
                        row_h - 3, "\" fill=\"", kPipeColor[p], "\">");
        rects += StrCat("<title>", open_n == 1 ? Html(open_api) : StrCat(open_n, " instructions"),
                        "</title></rect>");
        open_n = 0;
      };
      bool any = false;
      for (size_t i = 0; i < cores[c]->records.size(); ++i) {
        const Record& rec = cores[c]->records[i];
        if (!IsWork(rec) || static_cast<int>(rec.pipe) != p) continue;
        any = true;
        const double x0 = L + ct.start[i] * sx, x1 = L + ct.end[i] * sx;
        if (open_n > 0 && x0 - open_end < 0.5 && x1 - open_x < 2.0) {
          open_end = x1;
          ++open_n;
          continue;
        }
        flush();
        open_x = x0;
        open_end = x1;
        open_n = 1;
        open_api = rec.api;
      }
      flush();
      if (!any) continue;
      rows += StrCat("<text x=\"4\" y=\"", F(row * row_h + 30, 1), "\" font-size=\"11\">",
                     Html(cores[c]->name), " ", sim::PipeName(static_cast<Pipe>(p)), "</text>");
      rows += rects;
      ++row;
    }
  }
  std::string s = StrCat("<svg width=\"", W, "\" height=\"", row * row_h + 40,
                         "\" xmlns=\"http://www.w3.org/2000/svg\">");
  s += rows;
  const double us = total / r.clock_mhz;
  for (int k = 0; k <= 10; ++k) {
    const double x = L + k * (W - L - 10) / 10;
    s += StrCat("<line x1=\"", F(x, 1), "\" y1=\"16\" x2=\"", F(x, 1), "\" y2=\"",
                row * row_h + 20, "\" stroke=\"#ddd\"/><text x=\"", F(x, 1),
                "\" y=\"12\" font-size=\"10\" text-anchor=\"middle\">", F(us * k / 10, 2),
                " us</text>");
  }
  s += "</svg>";
  if (cores.size() > static_cast<size_t>(kMaxCores)) {
    s += StrCat("<p>First ", kMaxCores, " of ", cores.size(),
                " cores shown; trace.json has them all.</p>");
  }
  return s;
}

}  // namespace

std::string ReportHtml(const std::vector<LaunchResult>& results) {
  std::string o =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>aicore profile</title><style>"
      "body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}"
      "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px}"
      "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
      "td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}"
      "th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
      ".big{font-size:28px;font-weight:bold}.corner{color:#e53935;font-weight:bold}"
      ".charts{display:flex;gap:30px;flex-wrap:wrap;align-items:flex-start}"
      "li{margin:4px 0}</style></head><body><h1>aicore profile</h1>";
  for (size_t k = 0; k < results.size(); ++k) {
    const LaunchResult& r = results[k];
    const Triangle& t = r.triangle;
    o += StrCat("<h2>", Html(r.kernel), " on ", Html(r.chip), " (launch ", k, ", blockDim ",
                r.block_dim, ")</h2>");
    o += StrCat("<p><span class=\"big\">", F(r.kernel_us, 2), " us</span> modeled = body ",
                F(r.body_us, 2), " us + launch overhead ", F(r.launch_overhead_us, 1),
                " us. Binding corner: <span class=\"corner\">", t.corner, "</span> (", 
                t.binding_pipe, " busy ", F(100 * t.binding_ratio, 1), "%).</p>");
    o += "<h3>Advice</h3><ul>";
    for (const auto& a : r.advice) o += StrCat("<li>", Html(a), "</li>");
    o += "</ul>";
    o += "<table><tr><th>quantity</th><th>value</th></tr>";
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
    row("compute density", StrCat(F(t.compute_density, 3), " flop/B (balance point ",
                                  F(t.balance_point, 1), ")"));
    row("pipe overlap", F(t.pipe_overlap, 2));
    row("roofline", StrCat(F(100 * r.roofline.fraction_of_roof, 1), "% of attainable (",
                           r.roofline.roof, ")"));
    for (const auto& [name, v] : r.metrics) row(name, F(v, 4));
    o += "</table>";
    o += "<div class=\"charts\"><div><h3>Performance triangle</h3>" + TriangleSvg(r) +
         "</div><div><h3>Roofline</h3>" + RooflineSvg(r) + "</div></div>";
    o += "<h3>Per core</h3><table><tr><th>core</th><th>time (us)</th>";
    for (int p = 0; p < kP; ++p) {
      o += StrCat("<th>", sim::PipeName(static_cast<Pipe>(p)), " %</th>");
    }
    o += "<th>overlap</th></tr>";
    for (size_t c = 0; c < r.cores.size() && c < 64; ++c) {
      const auto& cr = r.cores[c];
      o += StrCat("<tr><td>", Html(cr.name), "</td><td>", F(cr.time_us, 3), "</td>");
      for (int p = 0; p < kP; ++p) o += StrCat("<td>", F(100 * cr.pipes[p].ratio, 1), "</td>");
      o += StrCat("<td>", F(cr.pipe_overlap, 2), "</td></tr>");
    }
    o += "</table><h3>Timeline</h3>" + TimelineSvg(r);
    for (const auto& n : r.notes) o += StrCat("<p>note: ", Html(n), "</p>");
  }
  o += "<p style=\"color:#777;font-size:12px\">Open trace.json in https://ui.perfetto.dev or "
       "chrome://tracing for the full instruction timeline with flag arrows.</p></body></html>\n";
  return o;
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
