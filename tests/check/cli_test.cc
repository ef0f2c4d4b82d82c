// End-to-end entry points of the sanitizer: `aicore check` and AICORE_CHECK on a host program
// whose kernel misses a flag (tests/check/programs/missing_flag.cpp), and on a clean one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int code = -1;
  std::string output;  // stdout and stderr
};

Outcome Shell(const std::string& command) {
  Outcome r;
  std::FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Returns the line of missing_flag.cpp holding `marker`.
int MarkerLine(const std::string& marker) {
  std::ifstream in(MISSING_FLAG_SOURCE);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(marker) != std::string::npos) return n;
  }
  return -1;
}

TEST(CheckCli, FindsTheMissingFlagAndFails) {
  const Outcome r = Shell(std::string(AICORE_CLI_PATH) + " check " + MISSING_FLAG_PATH);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("missing_flag: check=pass"));  // right numbers on the CPU
  EXPECT_THAT(r.output, HasSubstr("racecheck: RAW race on UB [0x0, 0x800) in kernel missing_flag"));
  EXPECT_THAT(r.output, HasSubstr("block AIV 0: V Muls (missing_flag.cpp:" +
                                      std::to_string(MarkerLine("MISSING_FLAG_USE")) + ")"));
  EXPECT_THAT(r.output, HasSubstr("conflicts with MTE2 DataCopy (missing_flag.cpp:" +
                                      std::to_string(MarkerLine("MISSING_FLAG_LOAD")) + ")"));
  EXPECT_THAT(r.output, HasSubstr("aicore check: defects found"));
}

TEST(CheckCli, OtherToolsRunClean) {
  const Outcome r = Shell(std::string(AICORE_CLI_PATH) +
                          " check --tool=memcheck,initcheck,synccheck " + MISSING_FLAG_PATH);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("race")));
  EXPECT_THAT(r.output, HasSubstr("no defects found"));
}

TEST(CheckCli, RejectsUnknownTool) {
  const Outcome r =
      Shell(std::string(AICORE_CLI_PATH) + " check --tool=leakcheck " + MISSING_FLAG_PATH);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--tool=leakcheck is not one of"));
}

TEST(CheckCli, ReportsAProgramThatCannotStart) {
  const Outcome r = Shell(std::string(AICORE_CLI_PATH) + " check /nonexistent/program");
  EXPECT_EQ(r.code, 127) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot run /nonexistent/program"));
}

TEST(CheckEnv, EnvironmentVariableMakesTheProgramFail) {
  const Outcome r = Shell(std::string("AICORE_CHECK=racecheck ") + MISSING_FLAG_PATH);
  EXPECT_EQ(r.code, 66) << r.output;
  EXPECT_THAT(r.output, HasSubstr("RAW race"));
  EXPECT_THAT(r.output, HasSubstr("aicore check (racecheck): 1 defect(s) found"));
}

TEST(CheckEnv, UnsetMeansNoSanitizer) {
  const Outcome r = Shell(std::string("env -u AICORE_CHECK ") + MISSING_FLAG_PATH);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("aicore check")));
}

TEST(CheckEnv, BadValueIsRejected) {
  const Outcome r = Shell(std::string("AICORE_CHECK=everything ") + MISSING_FLAG_PATH);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("AICORE_CHECK=everything"));
}

}  // namespace
