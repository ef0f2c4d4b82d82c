// AICORE_CHECK=memcheck|racecheck|synccheck|initcheck|all (or a comma-separated list): attaches a
// Sanitizer to every launch of the process from a static initializer, prints each launch's reports
// to stderr when it ends, and at exit checks GM leaks and exits with kDefectExitCode when anything
// was found.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "aicore/check/sanitizer.h"
#include "aicore/core/env.h"

namespace aicore::check {

namespace {

Sanitizer* g_env_sanitizer = nullptr;  // lives until _exit/exit; never destroyed (see AtExit)

void AtExit() {
  Sanitizer& s = *g_env_sanitizer;
  s.CheckLeaks();
  s.PrintNew(stderr);
  const size_t n = s.reports().size();
  if (n == 0) {
    std::fprintf(stderr, "aicore check (%s): no defects found\n",
                 ToolsName(s.options().tools).c_str());
    return;
  }
  std::fprintf(stderr, "aicore check (%s): %zu defect(s) found\n",
               ToolsName(s.options().tools).c_str(), n);
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
