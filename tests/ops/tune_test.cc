// Strategy selection (aicore/ops/tune/): the candidates the patterns enumerate, the choice each
// AICORE_TUNE mode makes, the decision cache (reuse across processes, concurrent writers, a
// corrupt file), a bad AICORE_TUNE, and that every candidate plan computes the same result.
#include "aicore/ops/tune/tune.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "aclnnop/aclnn_softmax.h"
#include "aicore/ops/patterns/elementwise_plan.h"
#include "aicore/ops/patterns/row_reduce_plan.h"
#include "aicore/ops/tune/cache.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"
#include "tests/ops/ops_lib_test_util.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using ::testing::HasSubstr;

// A fresh directory per test for cache files, removed afterwards.
class TuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           StrCat("aicore_tune_test_", ::getpid(), "_",
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ::unsetenv("AICORE_TUNE");
  }
  void TearDown() override {
    ::unsetenv("AICORE_TUNE");
    std::filesystem::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An evaluator returning fixed times and counting its calls.
struct Counted {
  std::vector<double> times;
  std::atomic<int> calls{0};
  tune::Evaluate Fn() {
    return [this](size_t i, double* us) {
      ++calls;
      *us = times[i];
      return Status();
    };
  }
};

std::vector<tune::Candidate> ThreeCandidates() {
  return {{"heuristic", {{"k", 0}}}, {"a", {{"k", 1}}}, {"b", {{"k", 2}}}};
}

tune::Key TestKey() {
  tune::Key k;
  k.op = "test_op";
  k.shape_class = "n<=64";
  k.dtype = "FLOAT";
  k.chip = "ascend910b1";
  return k;
}

TEST_F(TuneTest, ParsesTheThreeModesAndRejectsOthersNamingTheVariable) {
  tune::Mode m = tune::Mode::kOff;
  for (const char* name : {"off", "model", "measure"}) {
    ASSERT_TRUE(tune::ParseMode(name, "AICORE_TUNE", &m).ok()) << name;
    EXPECT_STREQ(tune::ModeName(m), name);
  }
  const Status s = tune::ParseMode("bogus", "AICORE_TUNE", &m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("AICORE_TUNE=bogus"));
  EXPECT_THAT(s.message(), HasSubstr("allowed: off, model, measure"));

  EXPECT_EQ(tune::ModeFromEnv(), tune::Mode::kOff);  // unset
  ::setenv("AICORE_TUNE", "measure", 1);
  EXPECT_EQ(tune::ModeFromEnv(), tune::Mode::kMeasure);
  ::setenv("AICORE_TUNE", "Model", 1);  // case matters, as for every AICORE_* choice
  EXPECT_THROW(tune::ModeFromEnv(), Error);
}

TEST_F(TuneTest, ABadAicoreTuneIsAnErrorFromTheOperatorNotACrash) {
  ::setenv("AICORE_TUNE", "bogus", 1);
  DeviceTensor x(DType::kF32, 64), y(DType::kF32, 64);
  const Status s = Softmax(x.Ref({4, 16}), -1, y.Ref({4, 16}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("AICORE_TUNE=bogus"));
  EXPECT_THAT(s.message(), HasSubstr("off, model, measure"));
  const Status g = Gelu(x.Ref({64}), y.Ref({64}));
  EXPECT_THAT(g.message(), HasSubstr("AICORE_TUNE=bogus"));
  // aclnn phase 1: the inner-error code with the message.
  std::vector<int64_t> shape = {4, 16}, storage = {64};
  aclTensor* tx = aclCreateTensor(shape.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                  storage.data(), 1, x.data());
  aclTensor* ty = aclCreateTensor(shape.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                  storage.data(), 1, y.data());
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(tx, -1, ty, &ws, &e), ACLNN_ERR_INNER);
  EXPECT_THAT(std::string(aclGetRecentErrMsg()), HasSubstr("AICORE_TUNE=bogus"));
  aclDestroyTensor(tx);
  aclDestroyTensor(ty);
}

TEST_F(TuneTest, RowReduceCandidatesStartWithTheHeuristicAndAreDistinct) {
  const arch::Chip& chip = arch::DefaultChip();
  for (const auto& [rows, cols] :
       std::vector<std::pair<int64_t, int64_t>>{{4096, 4096}, {7, 1000}, {1, 33}, {3, 200000}}) {
    const auto c = patterns::RowReduceCandidates(rows, cols, chip);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(c[0], patterns::HeuristicRowReduceKnobs(cols, chip));
    const patterns::RowReducePlan heuristic = patterns::PlanRowReduce(rows, cols, chip);
    const patterns::RowReducePlan realized = patterns::RealizeRowReduce(rows, cols, chip, c[0]);
    EXPECT_EQ(realized.block_dim, heuristic.block_dim);
    EXPECT_EQ(realized.tiling.rows_per_tile, heuristic.tiling.rows_per_tile);
    EXPECT_EQ(realized.tiling.chunk, heuristic.tiling.chunk);
    for (size_t i = 0; i < c.size(); ++i) {
      for (size_t j = i + 1; j < c.size(); ++j) EXPECT_FALSE(c[i] == c[j]) << i << " " << j;
      const auto p = patterns::RealizeRowReduce(rows, cols, chip, c[i]);
      EXPECT_GE(p.block_dim, 1u);
      EXPECT_LE(p.block_dim, static_cast<uint32_t>(rows));
      if (c[i].online) {
        EXPECT_EQ(p.tiling.chunk % 64, 0u);
      }
    }
  }
  // A row that fits: one pass at the budget's rows, smaller tiles, online and half the cores.
  const auto fit = patterns::RowReduceCandidates(4096, 4096, chip);
  EXPECT_FALSE(fit[0].online);
  bool online = false, half = false, smaller = false;
  for (const auto& k : fit) {
    online = online || k.online;
    half = half || k.split == 2;
    smaller = smaller || (!k.online && k.rows_per_tile < fit[0].rows_per_tile);
  }
  EXPECT_TRUE(online);
  EXPECT_TRUE(half);
  // A row longer than UB: online only, three chunks.
  const auto longer = patterns::RowReduceCandidates(3, 200000, chip);
  for (const auto& k : longer) EXPECT_TRUE(k.online);
  EXPECT_GE(longer.size(), 3u);
  // A row that fits UB only single-buffered (the default storage costs 36 bytes per column
  // double-buffered, 28 single): the heuristic goes online, a candidate reads it once.
  const int64_t single_cols = static_cast<int64_t>(BudgetOf(chip).ub_bytes / 32 / 16 * 16);
  const auto single = patterns::RowReduceCandidates(9, single_cols, chip);
  EXPECT_TRUE(single[0].online);
  bool one_pass_depth1 = false;
  for (const auto& k : single) one_pass_depth1 = one_pass_depth1 || (!k.online && k.depth == 1);
  EXPECT_TRUE(one_pass_depth1) << single_cols;
  // A tiny budget keeps every candidate's tiles inside it.
  const auto capped = patterns::RowReduceCandidates(64, 3000, chip, 16 << 10);
  for (const auto& k : capped) EXPECT_TRUE(k.online) << patterns::RowReduceKnobsLabel(k);
}

TEST_F(TuneTest, RowReduceCandidatesFitTheBudgetOfTheirStorage) {
  const arch::Chip& chip = arch::DefaultChip();
  const uint64_t ub = BudgetOf(chip).ub_bytes;
  const std::vector<patterns::RowReduceStorage> storages = {
      {}, {2, 0, 2, 0}, {2, 0, 2, 2}, {4, 0, 2, 1}, {2, 2, 2, 0}, {4, 4, 0, 0}, {2, 4, 4, 2}};
  for (const patterns::RowReduceStorage& s : storages) {
    for (const auto& [rows, cols, cap] : std::vector<std::tuple<int64_t, int64_t, uint64_t>>{
             {4096, 4096, 0}, {65536, 1024, 0}, {1024, 32768, 0}, {7, 1000, 0}, {1, 33, 0},
             {3, 200000, 0}, {64, 3000, 16 << 10}, {9, 6000, 0}}) {
      const uint64_t budget = cap > 0 ? cap : ub;
      for (const auto& k : patterns::RowReduceCandidates(rows, cols, chip, cap, s)) {
        const auto p = patterns::RealizeRowReduce(rows, cols, chip, k);
        EXPECT_LE(patterns::RowReduceUbBytes(s, p.tiling.chunk, p.tiling.rows_per_tile,
                                             p.tiling.depth),
                  budget)
            << rows << "x" << cols << " " << patterns::RowReduceKnobsLabel(k);
      }
    }
  }
  // 16-bit storage holds twice the rows of fp32 (4096 columns: 1 row of fp32 with two
  // parameters, 4 of fp16 softmax).
  const auto f32 = patterns::HeuristicRowReduceKnobs(4096, chip);
  const auto f16 = patterns::HeuristicRowReduceKnobs(4096, chip, 0, {2, 0, 2, 0});
  EXPECT_FALSE(f16.online);
  EXPECT_GE(f16.rows_per_tile, 2 * f32.rows_per_tile);
}

TEST_F(TuneTest, ElementwiseCandidatesStartWithTheHeuristicAndFitTheBudget) {
  const arch::Chip& chip = arch::DefaultChip();
  const auto c = patterns::ElementwiseCandidates(1 << 22, 2, 0, chip);
  ASSERT_GE(c.size(), 5u);
  EXPECT_EQ(c[0], patterns::HeuristicElementwiseKnobs(2, 0, chip));
  ElementwisePlan heuristic;
  PlanSplit(1 << 22, 2, 0, chip, &heuristic);
  patterns::ElementwiseTiling t;
  EXPECT_EQ(patterns::RealizeElementwise(1 << 22, c[0], chip, &t), heuristic.block_dim);
  EXPECT_EQ(t.tile, heuristic.tiling.tile);
  EXPECT_EQ(t.per_block, heuristic.tiling.per_block);
  bool depth1 = false;
  const uint64_t budget = BudgetOf(chip).ub_bytes;
  for (const auto& k : c) {
    depth1 = depth1 || k.depth == 1;
    EXPECT_EQ(k.tile % 64, 0u);
    EXPECT_LE(uint64_t{k.tile} * patterns::ElementwiseBytesPerElement(2, 0, k.depth), budget)
        << patterns::ElementwiseKnobsLabel(k);
  }
  EXPECT_TRUE(depth1);
}

TEST_F(TuneTest, OffRunsNothingModelTakesTheLeastModeledTime) {
  tune::Cache cache(Path("c.json"));
  Counted model, measure;
  model.times = {10, 7, 9};
  measure.times = {5, 5, 5};
  tune::Request off{tune::Mode::kOff, false, &cache};
  tune::Decision d = tune::Select(TestKey(), ThreeCandidates(), model.Fn(), measure.Fn(), off);
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_EQ(model.calls + measure.calls, 0);
  EXPECT_FALSE(std::filesystem::exists(Path("c.json")));  // off stores nothing

  tune::Request req{tune::Mode::kModel, false, &cache};
  d = tune::Select(TestKey(), ThreeCandidates(), model.Fn(), measure.Fn(), req);
  EXPECT_EQ(d.chosen, 1u);
  EXPECT_EQ(model.calls, 3);
  EXPECT_EQ(measure.calls, 0);
  EXPECT_THAT(d.reason, HasSubstr("best modeled time"));
  EXPECT_THAT(tune::FormatDecision(d), HasSubstr("<- chosen"));

  // A tie with the heuristic keeps the heuristic.
  Counted tie;
  tie.times = {7, 7, 7};
  tune::Cache other(Path("other.json"));
  req.cache = &other;
  d = tune::Select(TestKey(), ThreeCandidates(), tie.Fn(), measure.Fn(), req);
  EXPECT_EQ(d.chosen, 0u);
}

TEST_F(TuneTest, MeasureRunsTheBestByModelAndTheHeuristicAndKeepsTheFastest) {
  std::vector<tune::Candidate> six;
  for (int i = 0; i < 6; ++i) six.push_back({StrCat("c", i), {{"k", i}}});
  Counted model, measure;
  model.times = {10, 1, 2, 3, 4, 5};       // the best three by model: 1, 2, 3
  measure.times = {20, 30, 12, 25, 1, 1};  // 4 and 5 are fastest but never measured
  tune::Cache cache(Path("c.json"));
  tune::Request req{tune::Mode::kMeasure, false, &cache};
  const tune::Decision d = tune::Select(TestKey(), six, model.Fn(), measure.Fn(), req);
  EXPECT_EQ(model.calls, 6);
  EXPECT_EQ(measure.calls, static_cast<int>(tune::kMeasureTop) + 1 + 2);  // + the confirmation
  EXPECT_EQ(d.chosen, 2u);
  EXPECT_TRUE(std::isnan(d.evals[4].measured_us));
  EXPECT_THAT(d.reason, HasSubstr("fastest on the host"));

  // A win that does not hold when measured again keeps the heuristic.
  int call = 0;
  const tune::Evaluate flaky = [&](size_t i, double* us) {
    ++call;
    *us = i == 0 ? 20 : (call <= 4 ? 10 : 25);  // candidate 1 wins once, then loses
    return Status();
  };
  tune::Cache other(Path("other.json"));
  const tune::Decision f = tune::Select(TestKey(), ThreeCandidates(), model.Fn(), flaky,
                                        tune::Request{tune::Mode::kMeasure, false, &other});
  EXPECT_EQ(f.chosen, 0u);
  EXPECT_THAT(f.reason, HasSubstr("measured a second time"));
}

TEST_F(TuneTest, FailingCandidatesAreSkippedAndAllFailingKeepsTheHeuristic) {
  tune::Cache cache(Path("c.json"));
  tune::Request req{tune::Mode::kModel, false, &cache};
  const tune::Evaluate fail = [](size_t, double*) {
    return Status(StatusCode::kInternal, "no model here");
  };
  const tune::Decision d = tune::Select(TestKey(), ThreeCandidates(), fail, fail, req);
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_THAT(d.reason, HasSubstr("no model here"));
  EXPECT_EQ(d.evals[2].error, "no model here");
}

TEST_F(TuneTest, ASecondRunReadsTheCacheAndRunsNothing) {
  const std::string path = Path("sub/dir/tune.json");  // directories are created
  Counted model, measure;
  model.times = {10, 7, 9};
  measure.times = {20, 10, 30};
  {
    tune::Cache cache(path);
    tune::Request req{tune::Mode::kMeasure, false, &cache};
    const tune::Decision d =
        tune::Select(TestKey(), ThreeCandidates(), model.Fn(), measure.Fn(), req);
    EXPECT_FALSE(d.from_cache);
    EXPECT_EQ(d.chosen, 1u);
  }
  const int runs = model.calls + measure.calls;
  EXPECT_GT(runs, 0);
  // A new Cache on the same file is what the next process sees.
  tune::Cache next(path);
  tune::Request req{tune::Mode::kMeasure, false, &next};
  const tune::Decision d =
      tune::Select(TestKey(), ThreeCandidates(), model.Fn(), measure.Fn(), req);
  EXPECT_TRUE(d.from_cache);
  EXPECT_EQ(d.chosen, 1u);
  EXPECT_EQ(model.calls + measure.calls, runs);  // no re-measure
  EXPECT_DOUBLE_EQ(d.evals[1].measured_us, 10);
  EXPECT_THAT(d.reason, HasSubstr("cached in " + path));
  // Another mode is another key.
  tune::Request model_req{tune::Mode::kModel, false, &next};
  EXPECT_FALSE(
      tune::Select(TestKey(), ThreeCandidates(), model.Fn(), measure.Fn(), model_req).from_cache);
  // Knobs no candidate has any more are re-tuned.
  std::vector<tune::Candidate> changed = {{"heuristic", {{"k", 0}}}, {"z", {{"k", 9}}}};
  Counted two;
  two.times = {5, 6};
  tune::Cache third(path);
  const tune::Decision re = tune::Select(TestKey(), changed, two.Fn(), two.Fn(),
                                         tune::Request{tune::Mode::kMeasure, false, &third});
  EXPECT_FALSE(re.from_cache);
  EXPECT_GT(two.calls, 0);
}

TEST_F(TuneTest, ConcurrentWritersKeepTheFileValidWithEveryEntry) {
  const std::string path = Path("tune.json");
  constexpr int kWriters = 4, kEach = 20;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      for (int i = 0; i < kEach; ++i) {
        tune::Cache c(path);  // each store as a separate process run would make it
        tune::CacheEntry e;
        e.label = StrCat("w", w, "e", i);
        e.knobs = {{"writer", w}, {"entry", i}};
        e.modeled_us = i;
        if (!c.Store(StrCat("op|w", w, "|e", i), e).ok()) ++bad;
      }
      std::_Exit(bad);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  const nlohmann::json j = nlohmann::json::parse(ReadAll(path), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << ReadAll(path);
  EXPECT_EQ(j["format"], "aicore-tune-1");
  EXPECT_EQ(j["entries"].size(), static_cast<size_t>(kWriters * kEach));
  tune::Cache reader(path);
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kEach; ++i) {
      const auto e = reader.Find(StrCat("op|w", w, "|e", i));
      ASSERT_TRUE(e.has_value()) << w << " " << i;
      EXPECT_EQ(e->knobs[1].second, i);
    }
  }
  // No temporary file is left behind.
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    EXPECT_THAT(f.path().filename().string(), ::testing::Not(HasSubstr(".tmp.")));
  }
}

TEST_F(TuneTest, ACorruptCacheWarnsIsIgnoredAndIsReplaced) {
  const std::string path = Path("tune.json");
  for (const char* text :
       {"{not json", "[1, 2]", "{\"format\": \"other\"}",
        "{\"format\": \"aicore-tune-1\", \"entries\": {\"k\": {\"knobs\": 3}}}"}) {
    {
      std::ofstream out(path, std::ios::trunc);
      out << text;
    }
    tune::Cache cache(path);
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.Find("anything").has_value());
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_THAT(err, HasSubstr("tune cache " + path)) << text;
    EXPECT_THAT(err, HasSubstr("ignoring it")) << text;
    // The next decision replaces it with a valid file.
    Counted model;
    model.times = {3, 2, 1};
    tune::Request req{tune::Mode::kModel, false, &cache};
    EXPECT_EQ(tune::Select(TestKey(), ThreeCandidates(), model.Fn(), model.Fn(), req).chosen, 2u);
    tune::Key stored = TestKey();
    stored.mode = tune::Mode::kModel;
    tune::Cache again(path);
    ::testing::internal::CaptureStderr();
    EXPECT_TRUE(again.Find(stored.ToString()).has_value()) << text;
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  }
}

// `aicore tune` explains (no lookup) and then stores: the store that replaces a corrupt file
// gives the one warning, a second store none.
TEST_F(TuneTest, AStoreOverACorruptCacheWarnsOnce) {
  const std::string path = Path("tune.json");
  {
    std::ofstream out(path, std::ios::trunc);
    out << "{bad";
  }
  tune::Cache cache(path);
  Counted model;
  model.times = {3, 2, 1};
  tune::Request req{tune::Mode::kModel, /*explain=*/true, &cache};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(tune::Select(TestKey(), ThreeCandidates(), model.Fn(), model.Fn(), req).chosen, 2u);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("tune cache " + path + " is not valid JSON; ignoring it"));
  EXPECT_EQ(err.find("tune cache", err.find("tune cache") + 1), std::string::npos) << err;
  ::testing::internal::CaptureStderr();
  tune::Key other = TestKey();
  other.op = "other";
  tune::Select(other, ThreeCandidates(), model.Fn(), model.Fn(), req);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  const nlohmann::json j = nlohmann::json::parse(ReadAll(path), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << ReadAll(path);
  EXPECT_EQ(j["entries"].size(), 2u);
}

TEST_F(TuneTest, TheProcessCacheFollowsAicoreTuneCache) {
  ::setenv("AICORE_TUNE_CACHE", Path("a.json").c_str(), 1);
  EXPECT_EQ(tune::CachePath(), Path("a.json"));
  EXPECT_EQ(tune::Cache::Process().path(), Path("a.json"));
  ::setenv("AICORE_TUNE_CACHE", Path("b.json").c_str(), 1);
  EXPECT_EQ(tune::Cache::Process().path(), Path("b.json"));
  ::unsetenv("AICORE_TUNE_CACHE");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg == nullptr || xdg[0] != '/') {
    EXPECT_THAT(tune::CachePath(), HasSubstr(".cache/aicore/tune.json"));
  }
}

// Softmax and LayerNorm under model and measure on real kernels: every candidate is modeled, the
// chosen plan models no slower than the heuristic, and a second plan comes from the cache.
TEST_F(TuneTest, RealOperatorsModelEveryCandidateAndReuseTheDecision) {
  const arch::Chip& chip = arch::DefaultChip();
  DeviceTensor x(DType::kF32, 96 * 1000), y(DType::kF32, 96 * 1000);
  SoftmaxArgs sa;
  sa.self = x.Ref({96, 1000});
  sa.out = y.Ref({96, 1000});
  tune::Cache cache(Path("tune.json"));
  for (tune::Mode mode : {tune::Mode::kModel, tune::Mode::kMeasure}) {
    tune::Decision d;
    const SoftmaxPlan p = Plan(sa, chip, tune::Request{mode, false, &cache}, &d);
    ASSERT_GE(d.candidates.size(), 3u);
    EXPECT_FALSE(d.from_cache);
    for (const tune::Evaluation& e : d.evals) {
      EXPECT_TRUE(std::isfinite(e.modeled_us)) << e.error;
      EXPECT_GT(e.modeled_us, 0);
    }
    if (mode == tune::Mode::kModel) {
      EXPECT_LE(d.evals[d.chosen].modeled_us, d.evals[0].modeled_us);
    } else {
      EXPECT_LE(d.evals[d.chosen].measured_us, d.evals[0].measured_us);
    }
    EXPECT_EQ(d.key.op, "softmax");
    EXPECT_EQ(d.key.shape_class, "cols=1000 rows<=128");
    EXPECT_EQ(d.key.chip, chip.name);
    tune::Decision again;
    tune::Cache next(Path("tune.json"));
    const SoftmaxPlan q = Plan(sa, chip, tune::Request{mode, false, &next}, &again);
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.chosen, d.chosen);
    EXPECT_EQ(q.rows.block_dim, p.rows.block_dim);
    EXPECT_EQ(q.rows.tiling.rows_per_tile, p.rows.tiling.rows_per_tile);
  }
  LayerNormArgs la;
  la.input = x.Ref({96, 1000});
  la.normalized_shape = {1000};
  la.out = y.Ref({96, 1000});
  tune::Decision d;
  Plan(la, chip, tune::Request{tune::Mode::kModel, false, &cache}, &d);
  EXPECT_EQ(d.key.op, "layer_norm");
  EXPECT_LE(d.evals[d.chosen].modeled_us, d.evals[0].modeled_us);
  ElementwiseArgs ea;
  ea.kind = ElementwiseKind::kGeluTanh;
  ea.self = x.Ref({96 * 1000});
  ea.out = y.Ref({96 * 1000});
  Plan(ea, chip, tune::Request{tune::Mode::kModel, false, &cache}, &d);
  EXPECT_EQ(d.key.op, "gelu_tanh");
  EXPECT_GE(d.candidates.size(), 3u);
  EXPECT_LE(d.evals[d.chosen].modeled_us, d.evals[0].modeled_us);
}

// Runs `args` with `plan` and returns the output.
template <class Args, class P>
std::vector<double> RunWith(const Args& args, const P& plan, const DeviceTensor& out) {
  void* ws = nullptr;
  if (plan.workspace_bytes > 0) ws = rt::DeviceMalloc(plan.workspace_bytes, nullptr);
  EXPECT_TRUE(Launch(args, plan, ws, nullptr).ok());
  EXPECT_TRUE(rt::StreamSynchronize(nullptr).ok());
  if (ws != nullptr) rt::DeviceFree(ws);
  return out.Read();
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) > tol * (1 + std::abs(want[i]))) ++bad;
  }
  EXPECT_EQ(bad, 0u) << what;
}

TEST_F(TuneTest, EveryRowReduceCandidateComputesTheSameResult) {
  const arch::Chip& chip = arch::DefaultChip();
  for (DType dt : {DType::kF32, DType::kF16}) {
    const double tol = dt == DType::kF32 ? 2e-6 : 2e-3;
    const int64_t single_cols =
        static_cast<int64_t>(BudgetOf(chip).ub_bytes / 40 / 16 * 16) + 3;  // fits depth 1 only
    for (const auto& [rows, cols, cap] : std::vector<std::tuple<int64_t, int64_t, uint64_t>>{
             {37, 1000, 0}, {5, 3001, 16 << 10}, {130, 77, 0}, {9, single_cols, 0}}) {
      const int64_t n = rows * cols;
      DeviceTensor x(dt, n), y(dt, n), mean(DType::kF32, rows), rstd(DType::kF32, rows);
      std::vector<double> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = 4 * std::sin(0.37 * i) + 100;
      x.Fill(v);
      SoftmaxArgs sa;
      sa.self = x.Ref({rows, cols});
      sa.out = y.Ref({rows, cols});
      sa.max_ub_bytes = cap;
      LayerNormArgs la;
      la.input = x.Ref({rows, cols});
      la.normalized_shape = {cols};
      la.out = y.Ref({rows, cols});
      la.mean = mean.Ref({rows, 1});
      la.rstd = rstd.Ref({rows, 1});
      la.max_ub_bytes = cap;
      SoftmaxPlan sp = Plan(sa, chip);
      NormPlan lp = Plan(la, chip);
      const std::vector<double> s0 = RunWith(sa, sp, y), l0 = RunWith(la, lp, y);
      const std::vector<double> m0 = mean.Read(), r0 = rstd.Read();
      const auto cands = patterns::RowReduceCandidates(rows, cols, chip, cap);
      for (const auto& k : cands) {
        const std::string what =
            StrCat(OpDTypeName(dt), " ", rows, "x", cols, " ", patterns::RowReduceKnobsLabel(k));
        sp.rows = patterns::RealizeRowReduce(rows, cols, chip, k);
        ExpectClose(RunWith(sa, sp, y), s0, tol, "softmax " + what);
        lp.rows = patterns::RealizeRowReduce(rows, cols, chip, k);
        ExpectClose(RunWith(la, lp, y), l0, tol * 4, "layer_norm " + what);
        ExpectClose(mean.Read(), m0, 1e-6, "mean " + what);
        ExpectClose(rstd.Read(), r0, 1e-4, "rstd " + what);
      }
    }
  }
}

TEST_F(TuneTest, EverySoftmaxBackwardCandidateComputesTheSameResult) {
  const arch::Chip& chip = arch::DefaultChip();
  for (const auto& [rows, cols, cap] : std::vector<std::tuple<int64_t, int64_t, uint64_t>>{
           {29, 700, 0}, {4, 2500, 24 << 10}}) {
    const int64_t n = rows * cols;
    DeviceTensor g(DType::kF32, n), y(DType::kF32, n), out(DType::kF32, n);
    std::vector<double> gv(n), yv(n);
    for (int64_t i = 0; i < n; ++i) {
      gv[i] = std::sin(0.3 * i);
      yv[i] = 1.0 / cols + 1e-4 * std::cos(0.7 * i);
    }
    g.Fill(gv);
    y.Fill(yv);
    SoftmaxBackwardArgs a;
    a.grad_output = g.Ref({rows, cols});
    a.output = y.Ref({rows, cols});
    a.out = out.Ref({rows, cols});
    a.max_ub_bytes = cap;
    SoftmaxPlan p = Plan(a, chip);
    const std::vector<double> want = RunWith(a, p, out);
    const auto cands = patterns::RowReduceCandidates(rows, cols, chip, cap, {4, 4, 4, 0});
    ASSERT_GE(cands.size(), 2u);
    for (const auto& k : cands) {
      p.rows = patterns::RealizeRowReduce(rows, cols, chip, k);
      ExpectClose(RunWith(a, p, out), want, 2e-6, patterns::RowReduceKnobsLabel(k));
    }
    tune::Cache cache(Path("bw.json"));
    tune::Decision d;
    Plan(a, chip, tune::Request{tune::Mode::kModel, false, &cache}, &d);
    EXPECT_EQ(d.key.op, "softmax_backward");
    EXPECT_LE(d.evals[d.chosen].modeled_us, d.evals[0].modeled_us);
  }
}

TEST_F(TuneTest, EveryElementwiseCandidateComputesTheSameResult) {
  const arch::Chip& chip = arch::DefaultChip();
  const int64_t n = 3 * patterns::kMinBlockElements * 7 + 13;
  DeviceTensor a(DType::kF32, n), b(DType::kBF16, n), out(DType::kF32, n);
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::cos(0.1 * i);
  a.Fill(v);
  b.Fill(v);
  ElementwiseArgs ea;
  ea.kind = ElementwiseKind::kAdd;
  ea.self = a.Ref({n});
  ea.other = b.Ref({n});
  ea.alpha = 0.5;
  ea.out = out.Ref({n});
  ElementwisePlan p = Plan(ea, chip);
  const std::vector<double> want = RunWith(ea, p, out);
  for (const auto& k : patterns::ElementwiseCandidates(n, 2, 0, chip)) {
    p.block_dim = patterns::RealizeElementwise(n, k, chip, &p.tiling);
    EXPECT_EQ(RunWith(ea, p, out), want) << patterns::ElementwiseKnobsLabel(k);
  }
}

}  // namespace
}  // namespace aicore::ops
