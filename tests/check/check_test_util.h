// Helpers for the sanitizer tests: run a kernel with a Sanitizer attached, remember the line of an
// offending call, and pick reports by defect class.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/runtime/launch.h"

namespace aicore::check::testing {

// A source line a kernel records with `line = __LINE__;` on the offending call's line; atomic
// because every block of a launch writes it.
class Line {
 public:
  Line& operator=(uint32_t v) {
    v_.store(v, std::memory_order_relaxed);
    return *this;
  }
  operator uint32_t() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t> v_{0};
};

struct Checked {
  Status status;
  std::vector<Report> reports;
  // Returns the reports of `kind`.
  std::vector<Report> Of(DefectKind kind) const {
    std::vector<Report> out;
    for (const Report& r : reports) {
      if (r.kind == kind) out.push_back(r);
    }
    return out;
  }
  // Returns every report as text, for failure messages.
  std::string Text() const {
    std::string out;
    for (const Report& r : reports) out += r.ToString() + "\n";
    return out.empty() ? "(no reports)" : out;
  }
};

// Runs `body` as kernel `name` on `blocks` blocks with a Sanitizer for `tools` attached.
inline Checked RunChecked(const std::string& name, uint32_t blocks, std::function<void()> body,
                          uint32_t tools = kAllTools,
                          const LaunchOptions& options = LaunchOptions{}) {
  SanitizerOptions so;
  so.tools = tools;
  Sanitizer sanitizer(so);
  Checked out;
  out.status = RunKernel(name, blocks, options, std::move(body));
  out.reports = sanitizer.reports();
  return out;
}

}  // namespace aicore::check::testing
