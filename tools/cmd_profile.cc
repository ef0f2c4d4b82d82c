// `aicore profile [--chip X] [--out DIR] <binary|example> [args]`: runs a host program with
// AICORE_PROFILE=DIR and AICORE_CHIP=X, so every kernel it launches is recorded and modelled
// (see Note [Env profiling] in aicore/perf/profiler.cc), then prints the summary it wrote.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"

namespace {

bool IsFile(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Resolves a bare example name ("add_custom") to the example binary next to this tool:
// <dir of aicore>/../examples/<name>.
std::string ResolveProgram(const std::string& arg) {
  if (arg.find('/') != std::string::npos || IsFile(arg)) return arg;
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    for (const std::string& cand : {dir + "/../examples/" + arg, dir + "/../examples/" + arg +
                                                                     "/" + arg}) {
      if (IsFile(cand)) return cand;
    }
  }
  return arg;  // let execvp search PATH
}

int ProfileUsage() {
  std::fprintf(stderr,
               "usage: aicore profile [--chip NAME|FILE.json] [--out DIR] <program|example> "
               "[args...]\n"
               "  runs the program with every kernel launch recorded and replayed through the\n"
               "  timing model of the chip; writes summary.txt, summary.json, trace.json,\n"
               "  pipe_utilization.csv, memory.csv, instructions.csv and report.html to DIR\n"
               "  (default ./aicore-profile)\n");
  return 2;
}

}  // namespace

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
    } else if (a == "--help" || a == "-h") {
      return ProfileUsage();
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "aicore profile: unknown option %s\n", a.c_str());
      return ProfileUsage();
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
