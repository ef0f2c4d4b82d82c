// `aicore profile [--chip X] [--out DIR] <program|example> [args]`: runs a host program with
// AICORE_PROFILE=DIR and AICORE_CHIP=X, so every kernel it launches is recorded and modelled
// (see Note [Env profiling] in aicore/perf/profiler.cc), then prints the summary it wrote.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "tools/cli.h"

namespace {

int ProfileUsage() {
  std::fprintf(stderr, "usage: aicore profile [--chip NAME|FILE.json] [--out DIR] "
               "PROGRAM|EXAMPLE [ARGS...]\nsee 'aicore profile --help'\n");
  return aicore::cli::kUsageExitCode;
}

}  // namespace

namespace aicore::cli {

int CmdProfile(int argc, char** argv) {
  std::string chip, out = "aicore-profile";
  int i = 2;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--chip" || a == "--out") && i + 1 < argc) {
      (a == "--chip" ? chip : out) = argv[++i];
    } else if (a.rfind("--chip=", 0) == 0) {
      chip = a.substr(7);
    } else if (a.rfind("--out=", 0) == 0) {
      out = a.substr(6);
    } else if (IsHelpFlag(a)) {
      PrintCommandHelp(*FindCommand("profile"), stdout);
      return 0;
    } else if (a == "--chip" || a == "--out") {
      return UsageError("profile", a + " needs a value");
    } else if (a == "--") {
      ++i;
      break;
    } else if (a[0] == '-') {
      return UnknownOption("profile", a);
    } else {
      break;
    }
  }
  if (i >= argc) return ProfileUsage();
  if (!chip.empty()) aicore::arch::LoadChip(chip);  // fail early, listing the presets
  const std::string program = ResolveProgram(argv[i]);
  std::vector<char*> args;
  args.push_back(const_cast<char*>(program.c_str()));
  for (int k = i + 1; k < argc; ++k) args.push_back(argv[k]);
  args.push_back(nullptr);
  std::remove((out + "/summary.txt").c_str());

  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("aicore profile: fork");
    return 1;
  }
  if (pid == 0) {
    ::setenv("AICORE_PROFILE", out.c_str(), 1);
    if (!chip.empty()) ::setenv("AICORE_CHIP", chip.c_str(), 1);
    ::execvp(program.c_str(), args.data());
    std::fprintf(stderr, "aicore profile: cannot run %s: %s\n", program.c_str(),
                 std::strerror(errno));
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream summary(out + "/summary.txt");
  if (!summary) {
    std::fprintf(stderr, "aicore profile: %s launched no kernel (exit status %d); no report\n",
                 program.c_str(), rc);
    return rc != 0 ? rc : 1;
  }
  std::stringstream ss;
  ss << summary.rdbuf();
  std::printf("%s\nreports: %s/report.html, trace.json (open in ui.perfetto.dev), *.csv\n",
              ss.str().c_str(), out.c_str());
  return rc;
}

}  // namespace aicore::cli
