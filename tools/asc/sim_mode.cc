// Linked whole into every program aicore-asc links with --run-mode=sim (CMAKE_ASC_RUN_MODE=sim):
// turns on aicore's timing model and profile reports before the profiler's own static
// initializer reads AICORE_PROFILE (See Note [Env profiling] in aicore/perf/profiler.cc). An
// AICORE_PROFILE already set wins; the default directory is ./aicore_profile.
#include <cstdlib>

namespace {

// Priority 101 runs before every C++ static initializer of default priority.
__attribute__((constructor(101))) void EnableSimProfile() {
  setenv("AICORE_PROFILE", "aicore_profile", /*overwrite=*/0);
}

}  // namespace
