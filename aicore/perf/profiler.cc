// The Profiler API and the AICORE_PROFILE environment hook.
//
// Note [Env profiling]
// A static initializer in this file (linked whole into every aicore program, see the top-level
// CMakeLists) checks AICORE_PROFILE. When it names a directory, a Profiler is created and attached
// before main runs, and an atexit handler writes the reports there and prints the summary to
// stderr. The profiler is deliberately never destroyed: at exit other translation units' statics
// (the scheduler's observer list) may already be gone, so the handler only touches its own data.
// AICORE_CHIP selects the chip as for any launch, so the kernel runs and is modelled on it.
#include "aicore/perf/profiler.h"

#include <cstdio>
#include <cstdlib>

#include "aicore/core/env.h"
#include "aicore/sim/funnel.h"

namespace aicore::perf {

Profiler::Profiler() = default;
Profiler::Profiler(const arch::Chip& chip) : chip_(chip) {}

Profiler::~Profiler() { Detach(); }

void Profiler::Attach() {
  if (attached_) return;
  sim::AttachObserver(&recorder_);
  attached_ = true;
}

void Profiler::Detach() {
  if (!attached_) return;
  sim::DetachObserver(&recorder_);
  attached_ = false;
}

const std::vector<LaunchResult>& Profiler::Results() {
  const auto& launches = recorder_.launches();
  while (results_.size() < launches.size()) {
    const auto& l = launches[results_.size()];
    const arch::Chip& chip = chip_ ? *chip_ : *l->chip;
    results_.push_back(Analyze(l, chip));
  }
  return results_;
}

Status Profiler::WriteReports(const std::string& dir) {
  try {
    return perf::WriteReports(Results(), dir);
  } catch (const Error& e) {
    return e.status();
  }
}

void Profiler::Clear() {
  recorder_.Clear();
  results_.clear();
}

namespace {

Profiler* g_env_profiler = nullptr;
std::string* g_env_dir = nullptr;

void WriteEnvReports() {
  Profiler* p = g_env_profiler;
  if (p == nullptr || p->recorder().launches().empty()) return;
  const Status st = p->WriteReports(*g_env_dir);
  if (!st.ok()) {
    std::fprintf(stderr, "aicore profile: %s\n", st.ToString().c_str());
    return;
  }
  const auto& results = p->Results();
  std::fprintf(stderr, "aicore profile: %zu launch%s modelled, reports in %s\n", results.size(),
               results.size() == 1 ? "" : "es", g_env_dir->c_str());
  for (const auto& r : results) {
    std::fprintf(stderr, "  %s on %s: %.3f us modeled (body %.3f us), %s corner, %s busy %.1f%%\n",
                 r.kernel.c_str(), r.chip.c_str(), r.kernel_us, r.body_us,
                 r.triangle.corner.c_str(), r.triangle.binding_pipe.c_str(),
                 100 * r.triangle.binding_ratio);
  }
}

struct EnvHook {
  EnvHook() {
    const auto dir = env::Get("AICORE_PROFILE");
    if (!dir) return;
    g_env_dir = new std::string(*dir);
    g_env_profiler = new Profiler();
    g_env_profiler->Attach();
    std::atexit(WriteEnvReports);
  }
};
const EnvHook g_env_hook;

}  // namespace

Profiler* EnvProfiler() { return g_env_profiler; }

}  // namespace aicore::perf
