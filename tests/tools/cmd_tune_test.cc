// `aicore tune` end to end on the built binary: the examples of docs/ops.md and
// docs/environment.md, the table and the cache file it writes, and its usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using ::testing::HasSubstr;

struct Outcome {
  int code = -1;
  std::string output;  // stdout, then stderr
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

class CmdTune : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("aicore_cmd_tune_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    cache_ = (dir_ / "tune.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // Runs `aicore <args>` with the cache in this test's directory and AICORE_TUNE unset.
  Outcome Aicore(const std::string& args, const std::string& env = "") {
    return Shell("env -u AICORE_TUNE AICORE_TUNE_CACHE=" + cache_ + " " + env + " " +
                 AICORE_CLI_PATH + " " + args);
  }
  std::string Cache() const {
    std::ifstream in(cache_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
  std::string cache_;
};

TEST_F(CmdTune, TheDocsExamplePrintsEveryCandidateTheWinnerAndWhy) {
  // docs/ops.md, "Strategy selection".
  const Outcome r = Aicore("tune softmax 512x4096 --mode model");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("softmax cols=4096 rows<=512 FLOAT on "));
  EXPECT_THAT(r.output, HasSubstr("AICORE_TUNE=model"));
  EXPECT_THAT(r.output, HasSubstr("modeled_us  measured_us"));
  EXPECT_THAT(r.output, HasSubstr("(heuristic)"));
  EXPECT_THAT(r.output, HasSubstr("online chunk="));
  EXPECT_THAT(r.output, HasSubstr("split=2"));
  EXPECT_THAT(r.output, HasSubstr("<- chosen"));
  EXPECT_THAT(r.output, HasSubstr("\nwhy: "));
  EXPECT_THAT(r.output, HasSubstr("cache: " + cache_ + ", key softmax|cols=4096 rows<=512|"));
  EXPECT_THAT(Cache(), HasSubstr("\"softmax|cols=4096 rows<=512|FLOAT|"));
  EXPECT_THAT(Cache(), HasSubstr("|model\""));
}

TEST_F(CmdTune, TheEnvironmentDocsExampleTakesTheModeFromAicoreTune) {
  // docs/environment.md, the example's first two lines.
  const Outcome r = Shell("export AICORE_TUNE=model AICORE_TUNE_CACHE=" + cache_ + "; " +
                          AICORE_CLI_PATH + " tune softmax 512x4096");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("AICORE_TUNE=model"));
  EXPECT_THAT(Cache(), HasSubstr("\"softmax|cols=4096 rows<=512|FLOAT|"));
}

TEST_F(CmdTune, MeasureModeWithHalfPrecision) {
  const Outcome r = Shell("export AICORE_TUNE=measure AICORE_TUNE_CACHE=" + cache_ + "; " +
                          AICORE_CLI_PATH + " tune layer_norm 64x1000 --dtype fp16");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("layer_norm cols=1000 rows<=64 FLOAT16 on "));
  EXPECT_THAT(r.output, HasSubstr("AICORE_TUNE=measure"));
  EXPECT_THAT(r.output, HasSubstr(" on the host"));
  EXPECT_THAT(Cache(), HasSubstr("|FLOAT16|"));
  EXPECT_THAT(Cache(), HasSubstr("|measure\""));
}

TEST_F(CmdTune, ElementwiseOperatorsAndOffWork) {
  Outcome r = Aicore("tune gelu 100000");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gelu_tanh elements<=131072 FLOAT"));
  EXPECT_THAT(r.output, HasSubstr("depth=1"));
  r = Aicore("tune add 300x300 --mode=off --chip ascend910b4");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("on ascend910b4"));
  EXPECT_THAT(r.output, HasSubstr("AICORE_TUNE=off: the heuristic plan"));
  EXPECT_THAT(r.output, HasSubstr("cache: not written"));
}

TEST_F(CmdTune, MistakesAreUsageErrorsWithTheAllowedValues) {
  Outcome r = Aicore("tune sofmax 64x64");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did you mean 'softmax'?"));
  r = Aicore("tune softmax 64xx64");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("shape '64xx64'"));
  r = Aicore("tune softmax 64x64 --dtype int8");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("allowed: fp32, fp16, bf16"));
  r = Aicore("tune softmax 64x64 --mode fast");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--mode=fast: not a tuning mode; allowed: off, model, measure"));
  r = Aicore("tune softmax 64x64", "AICORE_TUNE=bogus");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("AICORE_TUNE=bogus: not a tuning mode"));
  r = Aicore("tune softmax");
  EXPECT_EQ(r.code, 2) << r.output;
  r = Aicore("tune softmax 64x64 --chip");
  EXPECT_EQ(r.code, 2) << r.output;
  r = Aicore("tune --help");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("usage: aicore tune [OPTIONS] OP SHAPE"));
  EXPECT_FALSE(std::filesystem::exists(cache_));
}

}  // namespace
