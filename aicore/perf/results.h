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

// Why a pipe was not doing work, or why its work took longer than at its own rate. Times are
// summed over the cores of a launch, in microseconds (see docs/profiling.md, "Stall reasons").
struct PipeStalls {
  double busy_us = 0;     // executing instructions (includes hbm_us)
  double flag_us = 0;     // blocked in WaitFlag (and CrossCoreWaitFlag)
  double queue_us = 0;    // blocked in DeQue: the producer's EnQue had not happened
  double buffer_us = 0;   // blocked in AllocTensor: the buffer's FreeTensor had not happened
  double barrier_us = 0;  // blocked in PipeBarrier<PIPE_ALL> or SyncAll
  double hbm_us = 0;      // part of busy: GM copies slowed below the pipe's rate by the HBM share
  double idle_us = 0;     // the rest of the cores' time: nothing issued to the pipe
  double time_us = 0;     // the cores' time (the sum of the above without hbm_us)
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

// The performance triangle: three utilisations, each 0..1, and the corner that binds. See
// docs/profiling.md.
struct Triangle {
  double compute_utilisation = 0;    // achieved flops/s over the roof's peak flops/s
  double bandwidth_utilisation = 0;  // achieved HBM bytes/s over the HBM's
  double parallelism = 0;            // cores used / cores available
  double compute_density = 0;        // flops per HBM byte (the roofline's intensity)
  double balance_point = 0;          // the chip's peak flops per HBM byte
  int cores_used = 0;
  int cores_available = 0;
  double pipe_overlap = 0;           // mean over cores: sum of busy / critical path
  std::string binding_pipe;          // the busiest pipe ("MTE2")
  double binding_ratio = 0;          // its busy ratio
  std::string corner;                // "compute", "memory" or "parallelism"
  std::string reason;                // the corner in words, quoting the numbers
};

// A hierarchical roofline point. The kernel's flops (of the roof's unit: cube flops for a cube
// roof, vector element operations for a vector roof) against three ceilings: the unit's peak,
// the HBM roof (intensity over HBM bytes x HBM bandwidth) and the L2 roof (intensity over GM
// read bytes x the cores' L2 read bandwidth). The attainable rate is the lowest of them, so
// fraction_of_roof <= 1 whenever the model keeps to its own rates (Note [Roofline] in
// results.cc).
struct Roofline {
  std::string roof;                  // "vector f16" or "cube f16"
  double flops = 0;                  // the roof unit's flops
  double peak_flops_per_s = 0;       // all cores of the roof's type
  double peak_bytes_per_s = 0;       // HBM
  double l2_bytes_per_s = 0;         // L2 read bandwidth of the cores (0: no L2 in the preset)
  double density = 0;                // flops per HBM byte (writes + reads L2 did not serve)
  double l2_density = 0;             // flops per GM read byte (what L2 serves or forwards)
  double achieved_flops_per_s = 0;   // over the kernel body
  double hbm_roof_flops_per_s = 0;   // density * HBM bandwidth
  double l2_roof_flops_per_s = 0;    // l2_density * L2 bandwidth (infinite without L2: 0 here)
  double attainable_flops_per_s = 0; // min(peak, HBM roof, L2 roof)
  std::string limit;                 // which ceiling is lowest: "peak", "HBM" or "L2"
  double fraction_of_roof = 0;       // achieved / attainable
};

// Time per source line and pipe, summed over the cores (the hotspot table).
struct Hotspot {
  std::string at;    // "add_custom.cpp:42"
  std::string api;   // the API of the line's most time ("DataCopy")
  sim::Pipe pipe = sim::Pipe::kS;
  uint64_t calls = 0;
  double exec_us = 0;   // instructions executing
  double stall_us = 0;  // waits (WaitFlag, DeQue, AllocTensor, barriers) blocking the pipe
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
  std::array<PipeStalls, sim::kPipeCount> stalls{};  // per pipe, over all cores
  std::vector<Hotspot> hotspots;  // by exec + stall time, longest first
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

// Returns whether `r` blocks its pipe waiting on another instruction (WaitFlag, DeQue,
// AllocTensor, PipeBarrier, SyncAll, CrossCoreWaitFlag): its duration is stall time.
bool IsStall(const Record& r);

// Report writers (report.cc). WriteReports creates `dir` and writes summary.txt, summary.json,
// trace.json, pipe_utilization.csv, memory.csv, instructions.csv and report.html.
std::string SummaryText(const std::vector<LaunchResult>& results);
std::string SummaryJson(const std::vector<LaunchResult>& results);
std::string TraceJson(const std::vector<LaunchResult>& results);
std::string PipeUtilizationCsv(const std::vector<LaunchResult>& results);
std::string MemoryCsv(const std::vector<LaunchResult>& results);
std::string InstructionsCsv(const std::vector<LaunchResult>& results);
std::string ReportHtml(const std::vector<LaunchResult>& results);
// Returns the side-by-side comparison of two summary.json documents (SummaryJson's format):
// per launch the modeled time, its ratio and delta, per-pipe ratios and HBM bandwidth. Launches
// are matched by kernel name in order. `html` selects a page instead of text. Fails
// (InvalidArgument, naming the missing field) on a document that is not a summary.
Status CompareSummaries(const nlohmann::json& before, const nlohmann::json& after,
                        const std::string& before_name, const std::string& after_name, bool html,
                        std::string* out);
Status WriteReports(const std::vector<LaunchResult>& results, const std::string& dir);

}  // namespace aicore::perf
