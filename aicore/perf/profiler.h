// The profiler's entry point: attach it, run kernels, then read the modeled results or write the
// reports. The same machinery runs for any host program when AICORE_PROFILE=<dir> is set (the
// reports are written to <dir> at exit), and behind `aicore profile`.
//
//   aicore::perf::Profiler prof;          // replays on each launch's chip (AICORE_CHIP)
//   prof.Attach();
//   aicore::RunKernel("add", 8, {}, body);
//   prof.Detach();
//   const auto& r = prof.Results()[0];    // r.kernel_us, r.triangle.corner, r.advice, ...
//   prof.WriteReports("out/");            // summary, trace.json, CSV, report.html
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"
#include "aicore/perf/recorder.h"
#include "aicore/perf/results.h"

namespace aicore::perf {

class Profiler {
 public:
  // Replays every launch on the chip it ran on.
  Profiler();
  // Replays every launch on `chip` instead (the kernels still run with their own chip's buffers).
  explicit Profiler(const arch::Chip& chip);
  // Detaches if attached.
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Starts recording every launch that begins after this call. Idempotent.
  void Attach();
  // Stops recording (launches already recorded are kept). Idempotent.
  void Detach();
  bool attached() const { return attached_; }

  // Returns the results of every launch recorded so far, replaying the new ones. Not while a
  // launch is running. Throws aicore::Error when the chip lacks a cost constant.
  const std::vector<LaunchResult>& Results();
  // Writes summary.txt, summary.json, trace.json, pipe_utilization.csv, memory.csv,
  // instructions.csv and report.html for every recorded launch into `dir` (created).
  Status WriteReports(const std::string& dir);
  // Forgets every recorded launch and result.
  void Clear();

  const Recorder& recorder() const { return recorder_; }

 private:
  Recorder recorder_;
  std::optional<arch::Chip> chip_;
  std::vector<LaunchResult> results_;
  bool attached_ = false;
};

// Returns the profiler AICORE_PROFILE started for this process, or nullptr when it is unset.
Profiler* EnvProfiler();

}  // namespace aicore::perf
