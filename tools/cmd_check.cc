// `aicore check [--tool=memcheck|racecheck|synccheck|initcheck|all] PROGRAM [ARGS]`: runs a host
// program (or a bundled example, by name) with AICORE_CHECK set, so every kernel it launches runs
// under the sanitizer (reports go to the program's stderr). Exit status (docs/errors.md): 0 clean; 1 defects found - sanitizer
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
#include "tools/cli.h"

namespace {

int CheckUsage() {
  std::fprintf(stderr,
               "usage: aicore check [--tool=memcheck|racecheck|synccheck|initcheck|all] "
               "[--differential[=SEED]] PROGRAM|EXAMPLE [ARGS...]\n"
               "see 'aicore check --help'\n");
  return aicore::cli::kUsageExitCode;
}

}  // namespace

namespace aicore::cli {

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
    } else if (aicore::cli::IsHelpFlag(argv[i])) {
      aicore::cli::PrintCommandHelp(*aicore::cli::FindCommand("check"), stdout);
      return 0;
    } else {
      return aicore::cli::UnknownOption("check", argv[i]);
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
    const std::string program = aicore::cli::ResolveProgram(argv[i]);  // or a bundled example
    argv[i] = const_cast<char*>(program.c_str());
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

}  // namespace aicore::cli
