// `aicore check [--tool=memcheck|racecheck|synccheck|initcheck|all] PROGRAM [ARGS]`: runs a host
// program with AICORE_CHECK set, so every kernel it launches runs under the sanitizer (reports go
// to the program's stderr). Exit status (docs/errors.md): 0 clean; 1 defects found - sanitizer
// reports or failed launches (the program's AICORE_CHECK handler exits kDefectExitCode for
// either); 2 usage; otherwise the program's own status (128 + N when killed by signal N, 127 when
// it could not be run).
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "aicore/check/sanitizer.h"

namespace {

int CheckUsage() {
  std::fprintf(stderr,
               "usage: aicore check [--tool=memcheck|racecheck|synccheck|initcheck|all] "
               "[--differential[=SEED]] PROGRAM [ARGS...]\n"
               "  runs PROGRAM with the sanitizer attached to every kernel launch (default: all "
               "tools;\n  a comma-separated list selects several); exits 0 when clean, 1 when "
               "defects\n  (sanitizer reports or failed kernel launches) are found, 2 for usage "
               "errors,\n  else with the program's own status\n"
               "  --differential defers the transfer pipes' work until a sync consumes it, so a\n"
               "  missing sync also gives wrong numbers (the program's own check fails)\n");
  return 2;
}

}  // namespace

int CmdCheck(int argc, char** argv) {
  std::string tools = "all";
  std::string seed;  // differential mode when not empty
  int i = 2;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    if (std::strncmp(argv[i], "--tool=", 7) == 0) {
      tools = argv[i] + 7;
    } else if (std::strcmp(argv[i], "--differential") == 0) {
      seed = "1";
    } else if (std::strncmp(argv[i], "--differential=", 15) == 0) {
      seed = argv[i] + 15;
      if (seed.empty() || std::strtoull(seed.c_str(), nullptr, 0) == 0) {
        std::fprintf(stderr, "aicore check: --differential=%s: the seed must be a non-zero "
                     "number\n", seed.c_str());
        return 2;
      }
    } else if (std::strcmp(argv[i], "--") == 0) {
      ++i;
      break;
    } else {
      std::fprintf(stderr, "aicore check: unknown option %s\n", argv[i]);
      return CheckUsage();
    }
  }
  if (i >= argc) return CheckUsage();
  uint32_t mask = 0;
  if (!aicore::check::ParseTools(tools, &mask)) {
    std::fprintf(stderr, "aicore check: --tool=%s is not one of memcheck, racecheck, synccheck, "
                 "initcheck, all\n", tools.c_str());
    return 2;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("aicore check: fork");
    return 2;
  }
  if (pid == 0) {
    setenv("AICORE_CHECK", tools.c_str(), 1);
    if (!seed.empty()) setenv("AICORE_DIFFERENTIAL", seed.c_str(), 1);
    execvp(argv[i], argv + i);
    std::fprintf(stderr, "aicore check: cannot run %s: %s\n", argv[i], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      std::perror("aicore check: waitpid");
      return 2;
    }
  }
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "aicore check: %s was killed by signal %d\n", argv[i], WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code == aicore::check::kDefectExitCode) {
    std::fprintf(stderr, "aicore check: defects found in %s (tools: %s)\n", argv[i],
                 tools.c_str());
    return 1;
  }
  if (code != 0) {
    std::fprintf(stderr, "aicore check: %s exited with status %d\n", argv[i], code);
  }
  return code;
}
