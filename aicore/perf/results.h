// Results of a replayed launch: per-core and per-pipe busy time with msprof-like metric names, GM
// traffic and bandwidth, flops, the performance triangle with its binding corner, a roofline
// point and advice that follows from the numbers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/perf/model.h"
#include "aicore/perf/recorder.h"

namespace aicore::perf {

struct PipeMetrics {
  double busy_us = 0;
  double ratio = 0;  // busy / the core's time
  uint64_t instructions = 0;
};

struct CoreResult {
  std::string name;  // "AIV 3"
  sim::CoreType type = sim::CoreType::kAiv;
  int64_t block_idx = 0;
  int physical_core = 0;
  double begin_us = 0, finish_us = 0, time_us = 0;  // time = finish - begin
  std::array<PipeMetrics, sim::kPipeCount> pipes{};
  uint64_t gm_read_bytes = 0, gm_write_bytes = 0, flops = 0;
  double pipe_overlap = 0;       // sum of non-scalar busy time / time
  double mte2_v_overlap_us = 0;  // time MTE2 and V were busy at once
  double v_mte3_overlap_us = 0;
};

// The performance triangle. See docs/profiling.md.
struct Triangle {
  double compute_density = 0;        // flops per GM byte
  double balance_point = 0;          // the chip's peak flops per HBM byte
  double bandwidth_utilisation = 0;  // achieved GM bytes/s over the HBM's
  int cores_used = 0;
  int cores_available = 0;
  double pipe_overlap = 0;           // mean over cores: sum of busy / critical path
  std::string binding_pipe;          // the busiest pipe ("MTE2")
  double binding_ratio = 0;          // its busy ratio
  std::string corner;                // "compute", "memory" or "parallelism"
};

struct Roofline {
  std::string roof;                  // "vector f16" or "cube f16"
  double peak_flops_per_s = 0;       // all cores of the roof's type
  double peak_bytes_per_s = 0;       // HBM
  double density = 0;                // flops per GM byte
  double achieved_flops_per_s = 0;   // over the kernel body
  double attainable_flops_per_s = 0; // min(peak, density * bandwidth)
  double fraction_of_roof = 0;       // achieved / attainable
};

struct LaunchResult {
  std::string kernel;
  std::string chip;
  uint32_t block_dim = 0;
  double clock_mhz = 0;
  double body_us = 0;              // max over cores of finish
  double launch_overhead_us = 0;
  double kernel_us = 0;            // body + launch overhead: the modeled kernel time
  std::vector<CoreResult> cores;
  // msprof-like metrics, in report order: aiv_vec_ratio, aiv_mte2_ratio, aiv_time(us), ...
  std::vector<std::pair<std::string, double>> metrics;
  uint64_t gm_read_bytes = 0, gm_write_bytes = 0, flops = 0, instructions = 0;
  double achieved_gbps = 0;       // GM bytes over the body time
  double l2_hit_fraction = 0;     // of GM read bytes served by L2 (Note [L2 reuse], model.cc)
  double hbm_gbps = 0;            // HBM bytes (GM bytes less L2 hits) over the body time
  double achieved_gflops = 0;
  Triangle triangle;
  Roofline roofline;
  std::vector<std::string> advice;
  std::vector<std::string> notes;  // model approximations hit during the replay
  double replay_seconds = 0;       // host time the replay took
  std::shared_ptr<const LaunchRecord> record;
  Timeline timeline;

  // Returns metric `name` (e.g. "aiv_mte2_ratio"); NaN when absent.
  double Metric(const std::string& name) const;
};

// Replays `launch` on `chip` and derives every result.
LaunchResult Analyze(std::shared_ptr<const LaunchRecord> launch, const arch::Chip& chip);

// Returns the msprof-style prefix of a core type: "aiv" or "aic" (coupled cores report as aic).
const char* MetricPrefix(sim::CoreType t);
// Returns the msprof-style pipe name: "scalar", "vec", "mac", "mte1", "mte2", "mte3", "fixpipe".
const char* MetricPipeName(sim::Pipe p);

// Report writers (report.cc). WriteReports creates `dir` and writes summary.txt, summary.json,
// trace.json, pipe_utilization.csv, memory.csv, instructions.csv and report.html.
std::string SummaryText(const std::vector<LaunchResult>& results);
std::string SummaryJson(const std::vector<LaunchResult>& results);
std::string TraceJson(const std::vector<LaunchResult>& results);
std::string PipeUtilizationCsv(const std::vector<LaunchResult>& results);
std::string MemoryCsv(const std::vector<LaunchResult>& results);
std::string InstructionsCsv(const std::vector<LaunchResult>& results);
std::string ReportHtml(const std::vector<LaunchResult>& results);
Status WriteReports(const std::vector<LaunchResult>& results, const std::string& dir);

}  // namespace aicore::perf
