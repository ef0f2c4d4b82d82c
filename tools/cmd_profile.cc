// `aicore profile [--chip X] [--out DIR] <program|example> [args]`: runs a host program with
// AICORE_PROFILE=DIR and AICORE_CHIP=X, so every kernel it launches is recorded and modelled
// (see Note [Env profiling] in aicore/perf/profiler.cc), then prints the summary it wrote.
// The child reports what became of the reports through AICORE_PROFILE_STATUS (Note [Profile
// status]), so a crash, or a report that could not be written, is told as such.
// `aicore profile --compare BEFORE AFTER [--out DIR]` prints two profiles side by side.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/perf/results.h"
#include "tools/cli.h"

namespace {

int ProfileUsage() {
  std::fprintf(stderr, "usage: aicore profile [--chip NAME|FILE.json] [--out DIR] "
               "PROGRAM|EXAMPLE [ARGS...]\n       aicore profile --compare BEFORE AFTER "
               "[--out DIR]\nsee 'aicore profile --help'\n");
  return aicore::cli::kUsageExitCode;
}

std::string ReadAll(const std::string& path, bool* ok) {
  std::ifstream f(path);
  *ok = static_cast<bool>(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Creates `dir` (and its parents) and checks a file can be written in it; returns "" or why not.
std::string PrepareOutDir(const std::string& dir) {
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      const std::string p = dir.substr(0, i);
      if (!p.empty() && ::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) {
        return aicore::StrCat("cannot create ", p, ": ", std::strerror(errno));
      }
    }
  }
  const std::string probe = dir + "/.aicore-profile-probe";
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (f == nullptr) return aicore::StrCat("cannot write in ", dir, ": ", std::strerror(errno));
  std::fclose(f);
  std::remove(probe.c_str());
  return "";
}

// Loads `path`/summary.json, or `path` itself when it names a file.
bool LoadSummary(const std::string& path, nlohmann::json* out) {
  struct stat st{};
  const bool is_file = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const std::string file = is_file ? path : path + "/summary.json";
  bool ok = false;
  const std::string text = ReadAll(file, &ok);
  if (!ok) {
    std::fprintf(stderr, "aicore profile --compare: cannot read %s: %s\n", file.c_str(),
                 std::strerror(errno));
    return false;
  }
  try {
    *out = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aicore profile --compare: %s is not JSON: %s\n", file.c_str(),
                 e.what());
    return false;
  }
  return true;
}

int Compare(const std::string& before, const std::string& after, const std::string& out) {
  nlohmann::json b, a;
  if (!LoadSummary(before, &b) || !LoadSummary(after, &a)) return 1;
  std::string text, html;
  aicore::Status st = aicore::perf::CompareSummaries(b, a, before, after, false, &text);
  if (st.ok()) st = aicore::perf::CompareSummaries(b, a, before, after, true, &html);
  if (!st.ok()) {
    std::fprintf(stderr, "aicore profile --compare: %s\n", st.message().c_str());
    return 1;
  }
  std::fputs(text.c_str(), stdout);
  if (!out.empty()) {
    if (const std::string why = PrepareOutDir(out); !why.empty()) {
      std::fprintf(stderr, "aicore profile --compare: %s\n", why.c_str());
      return 1;
    }
    std::ofstream f(out + "/compare.html");
    f << html;
    if (!f) {
      std::fprintf(stderr, "aicore profile --compare: cannot write %s/compare.html\n",
                   out.c_str());
      return 1;
    }
    std::printf("\ncomparison page: %s/compare.html\n", out.c_str());
  }
  return 0;
}

// What the child's status file (Note [Profile status]) says.
struct ChildStatus {
  int crash_signal = 0;
  long crash_launches = -1;
  long written = -1;
  std::string error;
};

ChildStatus ReadStatus(const std::string& path) {
  ChildStatus cs;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (word == "crash") {
      ls >> cs.crash_signal >> cs.crash_launches;
    } else if (word == "written") {
      ls >> cs.written;
    } else if (word == "error") {
      std::getline(ls >> std::ws, cs.error);
    }
  }
  return cs;
}

std::string SignalName(int sig) {
  const char* d = ::strsignal(sig);
  return aicore::StrCat("signal ", sig, d ? aicore::StrCat(" (", d, ")") : "");
}

}  // namespace

namespace aicore::cli {

int CmdProfile(int argc, char** argv) {
  std::string chip, out = "aicore-profile";
  bool out_given = false;
  std::vector<std::string> compare;
  int i = 2;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--chip" || a == "--out") && i + 1 < argc) {
      (a == "--chip" ? chip : out) = argv[++i];
      out_given |= a == "--out";
    } else if (a.rfind("--chip=", 0) == 0) {
      chip = a.substr(7);
    } else if (a.rfind("--out=", 0) == 0) {
      out = a.substr(6);
      out_given = true;
    } else if (a == "--compare") {
      if (i + 2 >= argc) return UsageError("profile", "--compare needs two profile directories");
      compare = {argv[i + 1], argv[i + 2]};
      i += 2;
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
  if (!compare.empty()) {
    if (i < argc) return UsageError("profile", "--compare takes no program");
    return Compare(compare[0], compare[1], out_given ? out : "");
  }
  if (i >= argc) return ProfileUsage();
  if (!chip.empty()) aicore::arch::LoadChip(chip);  // fail early, listing the presets
  if (const std::string why = PrepareOutDir(out); !why.empty()) {
    std::fprintf(stderr, "aicore profile: the reports cannot be written: %s (choose another "
                 "--out)\n", why.c_str());
    return 1;
  }
  const std::string program = ResolveProgram(argv[i]);
  std::vector<char*> args;
  args.push_back(const_cast<char*>(program.c_str()));
  for (int k = i + 1; k < argc; ++k) args.push_back(argv[k]);
  args.push_back(nullptr);
  std::remove((out + "/summary.txt").c_str());
  char status_path[] = "/tmp/aicore-profile-status.XXXXXX";
  const int status_fd = ::mkstemp(status_path);
  if (status_fd < 0) {
    std::perror("aicore profile: mkstemp");
    return 1;
  }
  ::close(status_fd);

  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("aicore profile: fork");
    std::remove(status_path);
    return 1;
  }
  if (pid == 0) {
    ::setenv("AICORE_PROFILE", out.c_str(), 1);
    ::setenv("AICORE_PROFILE_STATUS", status_path, 1);
    if (!chip.empty()) ::setenv("AICORE_CHIP", chip.c_str(), 1);
    ::execvp(program.c_str(), args.data());
    std::fprintf(stderr, "aicore profile: cannot run %s: %s\n", program.c_str(),
                 std::strerror(errno));
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const ChildStatus cs = ReadStatus(status_path);
  std::remove(status_path);
  const std::string how = WIFSIGNALED(status)
                              ? StrCat("was killed by ", SignalName(WTERMSIG(status)))
                              : StrCat("exited with status ", rc);
  bool have = false;
  const std::string summary = ReadAll(out + "/summary.txt", &have);
  if (have && cs.written >= 0) {
    std::printf("%s\nreports: %s/report.html, trace.json (open in ui.perfetto.dev), *.csv\n",
                summary.c_str(), out.c_str());
    if (cs.crash_signal != 0 || WIFSIGNALED(status)) {
      std::fprintf(stderr, "aicore profile: %s %s after %ld completed launch%s; the reports "
                   "hold those launches (a launch running at the crash is lost)\n",
                   program.c_str(), how.c_str(), cs.written, cs.written == 1 ? "" : "es");
    } else if (rc != 0) {
      std::fprintf(stderr, "aicore profile: %s %s; the reports hold its %ld launch%s\n",
                   program.c_str(), how.c_str(), cs.written, cs.written == 1 ? "" : "es");
    }
    return rc;
  }
  if (!cs.error.empty()) {
    std::fprintf(stderr, "aicore profile: %s %s; the reports of its launches could not be "
                 "written: %s\n", program.c_str(), how.c_str(), cs.error.c_str());
    return rc != 0 ? rc : 1;
  }
  if (cs.crash_signal != 0 && cs.crash_launches > 0) {
    std::fprintf(stderr, "aicore profile: %s %s after %ld completed launch%s; writing their "
                 "reports failed in the crashed process, no report\n", program.c_str(),
                 how.c_str(), cs.crash_launches, cs.crash_launches == 1 ? "" : "es");
    return rc != 0 ? rc : 1;
  }
  if (WIFSIGNALED(status) || cs.crash_signal != 0) {
    std::fprintf(stderr, "aicore profile: %s %s before any kernel launch completed; no report\n",
                 program.c_str(), how.c_str());
    return rc != 0 ? rc : 1;
  }
  std::fprintf(stderr, "aicore profile: %s launched no kernel (exit status %d); no report\n",
               program.c_str(), rc);
  return rc != 0 ? rc : 1;
}

}  // namespace aicore::cli
