// The aicore-asc compiler driver: the CPU analogue of CANN's bisheng for .asc (and C++) sources,
// and, given a compiler command first, a launcher (CMAKE_CXX_COMPILER_LAUNCHER) that adds the
// <<<>>> rewrite to it. docs/asc-language.md describes both modes.
#pragma once

#include <string>
#include <vector>

namespace aicore::asc {

// Where the installed aicore lives, as the driver uses it.
struct Install {
  std::string prefix;                        // <prefix>, from the driver's own path
  std::vector<std::string> include_dirs;     // absolute
  std::vector<std::string> whole_libs;       // linked whole (perf, check: static registrations)
  std::vector<std::string> libs;             // the layer archives, in one link group
  std::string sim_lib;                       // linked whole in --run-mode=sim
  std::string host_cxx;                      // the compiler aicore was built with
};

// Returns the installation the running driver belongs to.
Install FindInstall();

// Runs the driver on `args` (argv without argv[0]) and returns its exit code. Diagnostics go to
// stderr, prefixed "aicore-asc: ".
int RunDriver(const std::vector<std::string>& args, const Install& install);

}  // namespace aicore::asc
