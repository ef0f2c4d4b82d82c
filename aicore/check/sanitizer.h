// The sanitizer: an instruction-funnel observer that finds what a CPU run hides but hardware
// breaks on: races between concurrently running pipes and between cores (SyncAll and chains of
// CrossCoreSetFlag/CrossCoreWaitFlag are the edges between cores, AIC and AIV alike, so the GM
// handoffs of mix kernels are checked too), unpaired flags and unfreed queue buffers,
// out-of-bounds and overlapping GM writes, reads of uninitialised local memory, and GM leaks.
// See docs/sanitizer.md for each defect class and its report.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "aicore/check/report.h"
#include "aicore/sim/funnel.h"

namespace aicore::check {

// The exit status AICORE_CHECK gives a program in which the sanitizer found defects.
inline constexpr int kDefectExitCode = 66;

struct SanitizerOptions {
  uint32_t tools = kAllTools;     // Tool bitmask
  size_t max_reports = 1000;      // distinct reports kept; later ones are only counted
  // When set, the reports a launch added are printed here when the launch ends.
  std::FILE* stream = nullptr;
};

// Attaches itself to every kernel launch from construction to destruction (RAII). Thread-safe:
// the blocks of a launch report concurrently. Launches run one at a time, so one Sanitizer sees
// whole launches.
class Sanitizer : public sim::Observer {
 public:
  explicit Sanitizer(SanitizerOptions options = {});
  ~Sanitizer() override;
  Sanitizer(const Sanitizer&) = delete;
  Sanitizer& operator=(const Sanitizer&) = delete;

  const SanitizerOptions& options() const { return options_; }
  // Returns the reports so far, in the order first found.
  std::vector<Report> reports() const;
  // Returns how many reports of `kind` were found (distinct reports, not occurrences).
  size_t Count(DefectKind kind) const;
  // Forgets every report.
  void Clear();
  // Adds a kGmLeak report when more GmAlloc blocks are live now than when this Sanitizer was
  // constructed (memcheck only). Returns the number of leaked blocks.
  size_t CheckLeaks();
  // Prints the reports not printed yet to `out`, one per line; returns how many it printed.
  size_t PrintNew(std::FILE* out);

  void OnLaunchBegin(const char* kernel, uint32_t block_dim) override;
  void OnBlockBegin(sim::Core& core) override;
  void OnInstr(sim::Core& core, const sim::Instr& instr) override;
  void OnBlockEnd(sim::Core& core) override;
  void OnLaunchEnd(const char* kernel) override;
  // Forgets the shared GM shadow of the range: its next user is unrelated to the last.
  void OnGmRetire(sim::Core& core, const void* p, uint64_t bytes) override;

  class Impl;

 private:
  SanitizerOptions options_;
  std::unique_ptr<Impl> impl_;
  size_t leak_baseline_ = 0;         // GmAlloc blocks live at construction
  size_t device_leak_baseline_ = 0;  // device memory blocks (aclrtMalloc) live at construction
};

}  // namespace aicore::check
