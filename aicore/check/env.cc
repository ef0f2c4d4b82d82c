// AICORE_CHECK=memcheck|racecheck|synccheck|initcheck|all (or a comma-separated list): attaches a
// Sanitizer to every launch of the process from a static initializer, prints each launch's reports
// to stderr when it ends, and at exit checks GM leaks and exits with kDefectExitCode when anything
// was found: a sanitizer report or a failed launch (aicore::LaunchFailureCount).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <string>

#include "aicore/check/sanitizer.h"
#include "aicore/core/env.h"
#include "aicore/runtime/launch.h"

namespace aicore::check {

namespace {

Sanitizer* g_env_sanitizer = nullptr;  // lives until _exit/exit; never destroyed (see AtExit)

void AtExit() {
  Sanitizer& s = *g_env_sanitizer;
  s.CheckLeaks();
  s.PrintNew(stderr);
  const size_t reports = s.reports().size();
  // A launch that failed (a kernel error, a deadlock, a rejected launch) is a defect too, even
  // when the program ignored the error code; its report was printed when it failed.
  const size_t launches = LaunchFailureCount();
  const std::string tools = ToolsName(s.options().tools);
  if (reports == 0 && launches == 0) {
    std::fprintf(stderr, "aicore check (%s): no defects found\n", tools.c_str());
    return;
  }
  std::fprintf(stderr,
               "aicore check (%s): %zu defect(s) found: %zu sanitizer report(s), %zu failed "
               "launch(es)\n",
               tools.c_str(), reports + launches, reports, launches);
  std::fflush(nullptr);
  _exit(kDefectExitCode);
}

struct EnvRegistrar {
  EnvRegistrar() {
    const auto env_value = env::Get("AICORE_CHECK");
    if (!env_value) return;
    const char* value = env_value->c_str();
    uint32_t tools = 0;
    if (!ParseTools(value, &tools)) {
      std::fprintf(stderr,
                   "AICORE_CHECK=%s: expected memcheck, racecheck, synccheck, initcheck or all "
                   "(or a comma-separated list)\n",
                   value);
      std::fflush(stderr);
      _exit(2);
    }
    SanitizerOptions options;
    options.tools = tools;
    options.stream = stderr;
    g_env_sanitizer = new Sanitizer(options);
    std::atexit(AtExit);
  }
};

const EnvRegistrar g_registrar;

}  // namespace

}  // namespace aicore::check
