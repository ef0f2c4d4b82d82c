// The `aicore` command's conventions, end to end on the built binary: --help, -h and help exit 0
// and list every command and option; every command has --help; unknown commands and options exit
// 2 with a suggestion; --version; bundled examples by name; bash completion; debug logs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int code = -1;
  std::string output;  // stdout, then stderr when `merge`
};

Outcome Shell(const std::string& command, bool merge = true) {
  Outcome r;
  std::FILE* p = popen((command + (merge ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

Outcome Aicore(const std::string& args, bool merge = true) {
  return Shell(std::string(AICORE_CLI_PATH) + " " + args, merge);
}

const char* const kCommands[] = {"check", "profile", "chips", "info", "examples", "help",
                                 "completion"};

TEST(CliHelp, TopLevelHelpExitsZeroOnStdoutAndListsEverything) {
  for (const char* spelling : {"--help", "-h", "help"}) {
    const Outcome r = Aicore(spelling, /*merge=*/false);
    EXPECT_EQ(r.code, 0) << spelling << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("usage: aicore")) << spelling;
    for (const char* command : kCommands) {
      EXPECT_THAT(r.output, HasSubstr("\n  " + std::string(command) + " ")) << spelling;
    }
    EXPECT_THAT(r.output, HasSubstr("--version")) << spelling;
    EXPECT_THAT(r.output, AllOf(HasSubstr("--tool=TOOLS"), HasSubstr("--differential[=SEED]"),
                                HasSubstr("--chip NAME|FILE.json"), HasSubstr("--out DIR")))
        << spelling;
    EXPECT_THAT(r.output, HasSubstr("-h, --help")) << spelling;
  }
}

TEST(CliHelp, NoCommandIsAUsageError) {
  const Outcome r = Aicore("");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("usage: aicore"));
  EXPECT_EQ(Aicore("", /*merge=*/false).output, "");  // the usage goes to stderr
}

TEST(CliHelp, EveryCommandHasHelp) {
  for (const char* command : kCommands) {
    for (const std::string& form : {std::string(command) + " --help",
                                    std::string(command) + " -h", "help " + std::string(command)}) {
      const Outcome r = Aicore(form, /*merge=*/false);
      EXPECT_EQ(r.code, 0) << form << "\n" << r.output;
      EXPECT_THAT(r.output, HasSubstr("usage: aicore " + std::string(command))) << form;
      EXPECT_THAT(r.output, HasSubstr("Options:\n")) << form;
      EXPECT_THAT(r.output, HasSubstr("-h, --help")) << form;
    }
  }
}

TEST(CliHelp, CommandHelpListsItsOptions) {
  EXPECT_THAT(Aicore("check --help").output,
              AllOf(HasSubstr("--tool=TOOLS"), HasSubstr("--differential[=SEED]"),
                    HasSubstr("EXAMPLE")));
  EXPECT_THAT(Aicore("profile --help").output,
              AllOf(HasSubstr("--chip NAME|FILE.json"), HasSubstr("--out DIR"),
                    HasSubstr("modelled chip time")));
}

TEST(CliErrors, UnknownCommandSuggestsTheClosest) {
  Outcome r = Aicore("chekc");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("aicore: unknown command 'chekc'"));
  EXPECT_THAT(r.output, HasSubstr("did you mean 'check'?"));
  r = Aicore("prof");  // a unique prefix
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did you mean 'profile'?"));
  r = Aicore("frobnicate");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown command 'frobnicate'"));
  EXPECT_THAT(r.output, Not(HasSubstr("did you mean")));
  EXPECT_THAT(r.output, HasSubstr("see 'aicore --help'"));
  r = Aicore("help chipz");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did you mean 'chips'?"));
}

TEST(CliErrors, UnknownOptionSuggestsTheClosest) {
  struct Case {
    const char* args;
    const char* unknown;
    const char* suggestion;
  };
  for (const Case& c : {Case{"check --tol=racecheck /bin/true", "'--tol=racecheck'", "'--tool'"},
                        Case{"check --diferential /bin/true", "'--diferential'",
                             "'--differential'"},
                        Case{"profile --chp ascend910b4 /bin/true", "'--chp'", "'--chip'"},
                        Case{"--verison", "'--verison'", "'--version'"},
                        Case{"chips --hlep", "'--hlep'", "'--help'"},
                        Case{"info --hepl", "'--hepl'", "'--help'"}}) {
    const Outcome r = Aicore(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("unknown option ") + c.unknown)) << c.args;
    EXPECT_THAT(r.output, HasSubstr(std::string("did you mean ") + c.suggestion)) << c.args;
    EXPECT_THAT(r.output, HasSubstr("--help'")) << c.args;
  }
  const Outcome r = Aicore("check --quux /bin/true");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("did you mean")));
}

TEST(CliErrors, UnknownChipSuggestsAPreset) {
  const Outcome r = Aicore("chips ascend910b5");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown chip 'ascend910b5'"));
  EXPECT_THAT(r.output, HasSubstr("did you mean 'ascend910b"));
}

TEST(CliErrors, MissingValuesAndProgramsAreUsageErrors) {
  EXPECT_EQ(Aicore("profile --chip").code, 2);
  EXPECT_EQ(Aicore("profile").code, 2);
  EXPECT_EQ(Aicore("check").code, 2);
  EXPECT_EQ(Aicore("info extra").code, 2);
  EXPECT_EQ(Aicore("completion zsh").code, 2);
}

TEST(CliVersion, PrintsTheProjectVersion) {
  const Outcome r = Aicore("--version", /*merge=*/false);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.output, std::string("aicore ") + AICORE_EXPECTED_VERSION + "\n");
  EXPECT_THAT(Aicore("info").output, HasSubstr(std::string("aicore ") + AICORE_EXPECTED_VERSION));
}

TEST(CliCompletion, BashCompletesCommandsOptionsAndChips) {
  const std::string complete = std::string("bash -c 'source <(") + AICORE_CLI_PATH +
                               " completion bash); COMP_WORDS=(" + AICORE_CLI_PATH + " ";
  const auto words = [&](const std::string& line, int cword) {
    return Shell(complete + line + "); COMP_CWORD=" + std::to_string(cword) +
                 "; _aicore; echo \"${COMPREPLY[*]}\"'");
  };
  Outcome r = words("ch", 1);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "check chips\n");
  r = words("check --t", 2);
  EXPECT_EQ(r.output, "--tool=\n");
  r = words("profile --chip ascend910b", 3);
  EXPECT_THAT(r.output, AllOf(HasSubstr("ascend910b1"), HasSubstr("ascend910b4")));
  r = words("help pro", 2);
  EXPECT_EQ(r.output, "profile\n");
}

#ifdef ADD_CUSTOM_PATH

TEST(CliExamples, CheckFindsExamplesByNameAndExamplesListsThem) {
  Outcome r = Aicore("check add_custom");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("add_custom: blocks="));
  EXPECT_THAT(r.output, HasSubstr("no defects found"));
  r = Aicore("examples");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("add_custom "));
  EXPECT_THAT(r.output, HasSubstr("add_custom_acl "));
}

TEST(CliDebugLog, LogsLaunchesBlocksAndAllocatorSegments) {
  const Outcome r = Shell(std::string("AICORE_LOG_LEVEL=debug AICORE_THREADS=2 ") +
                          ADD_CUSTOM_ACL_PATH);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("[aicore debug] launch add_custom: blockDim 8, mode AIV only, chip "));
  EXPECT_THAT(r.output, HasSubstr("2 worker threads"));
  EXPECT_THAT(r.output, HasSubstr("starts block AIV 7 of add_custom"));
  EXPECT_THAT(r.output, HasSubstr("launch add_custom finished: ok"));
  EXPECT_THAT(r.output, HasSubstr("device 0 allocator: segment_alloc "));
  const Outcome quiet = Shell(std::string("env -u AICORE_LOG_LEVEL ") + ADD_CUSTOM_ACL_PATH);
  EXPECT_EQ(quiet.code, 0) << quiet.output;
  EXPECT_THAT(quiet.output, Not(HasSubstr("[aicore debug]")));
}

TEST(CliDebugLog, LogsSuspensionsWithWhatTheBlockWaitsOn) {
  const Outcome r = Shell(std::string("AICORE_LOG_LEVEL=debug AICORE_THREADS=1 ") +
                          MULTICORE_SYNCALL_PATH);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("blockDim 48, mode AIV only"));
  EXPECT_THAT(r.output, HasSubstr("1 worker thread, "));
  EXPECT_THAT(r.output, HasSubstr("worker 0 suspends block AIV 0 of multicore_syncall: SyncAll at "
                                  "multicore_syncall.cpp:"));
  EXPECT_THAT(r.output, HasSubstr("worker 0 resumes block AIV 0 of multicore_syncall"));
  EXPECT_THAT(r.output, HasSubstr("launch multicore_syncall finished: ok, 47 block suspensions"));
}

#endif  // ADD_CUSTOM_PATH

}  // namespace
