// Runs a program, or the current test alone, in a child process and captures what a user would see: the exit
// status and everything written to stdout and stderr. The robustness tests assert on process
// outcomes (a kernel error inside ICPU_RUN_KF ends the program) with it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace robustness {

struct ChildResult {
  bool exited = false;  // ended by exit/_exit (else by a signal)
  int code = -1;        // exit status when `exited`
  int signal = 0;       // terminating signal otherwise
  std::string out;      // everything written to stdout
  std::string err;      // everything written to stderr
};

namespace internal {

// Reads a file whole ("" when absent).
inline std::string Slurp(const std::string& path) {
  std::string text;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

inline ChildResult Wait(pid_t pid, const std::string& out_path, const std::string& err_path) {
  ChildResult r;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return r;
}

// Makes a unique temporary file path and returns an fd open for writing on it.
inline int TempFile(std::string* path) {
  char templ[] = "/tmp/aicore_robustness_XXXXXX";
  const int fd = mkstemp(templ);
  *path = templ;
  return fd;
}

}  // namespace internal

// Runs `argv[0]` with `argv` and extra environment entries ("NAME=value").
inline ChildResult RunProgram(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env = {}) {
  std::string out_path;
  std::string err_path;
  const int out_fd = internal::TempFile(&out_path);
  const int err_fd = internal::TempFile(&err_path);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    unsetenv("AICORE_CHECK");
    unsetenv("AICORE_ROBUSTNESS_CHILD");
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_fd);
  close(err_fd);
  return internal::Wait(pid, out_path, err_path);
}

// True in the fresh process RerunThisTest starts.
inline bool InChild() { return std::getenv("AICORE_ROBUSTNESS_CHILD") != nullptr; }

// Runs the current GoogleTest test again, alone, in a fresh process (the same binary, stdout and
// stderr redirected to files, AICORE_ROBUSTNESS_CHILD=1 and `env` set) and returns its outcome.
// A fresh process inherits no runtime threads, which a fork of a threaded process would lose.
inline ChildResult RerunThisTest(const std::vector<std::string>& env = {}) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::vector<std::string> all_env = env;
  all_env.push_back("AICORE_ROBUSTNESS_CHILD=1");
  // Exceptions are not caught, so the child ends as a plain main() would.
  return RunProgram({"/proc/self/exe",
                     std::string("--gtest_filter=") + info->test_suite_name() + "." + info->name(),
                     "--gtest_catch_exceptions=0"},
                    all_env);
}

}  // namespace robustness
