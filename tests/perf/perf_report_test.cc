// The profiler's outputs: the Chrome trace parses and has one track per core and pipe with a
// slice per instruction and flow arrows for the dependencies; the CSV and HTML files; the
// binding corner and advice on kernels known to be memory-, compute- and parallelism-bound; the
// Profiler attach/detach contract.
#include "aicore/perf/profiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <sstream>

#include "tests/perf/perf_test_kernels.h"

namespace perf_test {
namespace {

using aicore::perf::LaunchResult;
using ::testing::Contains;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Expects that on every track of trace `j`, slices either follow one another or nest (what
// Perfetto requires).
void ExpectSlicesNest(const nlohmann::json& j) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const auto& ev : j["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    const double ts = ev["ts"], dur = ev["dur"];
    tracks[{ev["pid"].get<int>(), ev["tid"].get<int>()}].emplace_back(ts, ts + dur);
  }
  for (auto& [track, v] : tracks) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    for (size_t i = 1; i < v.size(); ++i) {
      const bool after = v[i].first >= v[i - 1].second - 1e-9;
      const bool inside = v[i].second <= v[i - 1].second + 1e-9;
      EXPECT_TRUE(after || inside) << track.first << "/" << track.second << " slice " << i;
    }
  }
}

TEST(PerfReportTest, TraceHasATrackPerCoreAndPipeAndASlicePerInstruction) {
  const LaunchResult r = ProfileAdd<2>(3, 4, 512);
  const auto j = nlohmann::json::parse(aicore::perf::TraceJson({r}));
  ASSERT_TRUE(j.contains("traceEvents"));
  std::set<std::string> processes;
  std::set<std::pair<int, std::string>> threads;
  uint64_t slices = 0, starts = 0, finishes = 0;
  std::set<std::string> slice_names;
  for (const auto& ev : j["traceEvents"]) {
    const std::string ph = ev.at("ph");
    if (ph == "M" && ev["name"] == "process_name") processes.insert(ev["args"]["name"]);
    if (ph == "M" && ev["name"] == "thread_name") {
      threads.insert({ev["pid"].get<int>(), ev["args"]["name"].get<std::string>()});
    }
    if (ph == "X" && ev["name"] != "issue" && ev["cat"] != "done") {
      ++slices;
      EXPECT_GE(ev["dur"].get<double>(), 0.0);
      EXPECT_TRUE(ev.contains("ts") && ev.contains("pid") && ev.contains("tid"));
      slice_names.insert(ev["name"]);
    }
    starts += ph == "s";
    finishes += ph == "f";
  }
  EXPECT_EQ(processes, (std::set<std::string>{"add_pipeline AIV 0", "add_pipeline AIV 1",
                                               "add_pipeline AIV 2"}));
  for (int pid = 1; pid <= 3; ++pid) {
    for (const char* pipe : {"S issue", "V", "MTE2", "MTE3"}) {
      EXPECT_TRUE(threads.count({pid, pipe})) << pid << " " << pipe;
    }
  }
  EXPECT_EQ(slices, r.instructions);
  ExpectSlicesNest(j);
  EXPECT_EQ(starts, r.timeline.edges.size());
  EXPECT_EQ(finishes, starts);
  EXPECT_GT(starts, 0u);
  // Every arrow runs forward in time, from its releasing slice to a "done" slice where the wait
  // completed, on the waiting pipe's track.
  std::map<uint64_t, double> start_ts;
  std::set<std::tuple<int, int, double>> done_slices;
  for (const auto& ev : j["traceEvents"]) {
    if (ev["ph"] == "X" && ev["cat"] == "done") {
      EXPECT_EQ(ev["dur"].get<double>(), 0.0);
      done_slices.insert({ev["pid"].get<int>(), ev["tid"].get<int>(), ev["ts"].get<double>()});
    }
    if (ev["ph"] == "s") start_ts[ev["id"].get<uint64_t>()] = ev["ts"].get<double>();
  }
  for (const auto& ev : j["traceEvents"]) {
    if (ev["ph"] != "f") continue;
    const double ts = ev["ts"];
    EXPECT_GE(ts, start_ts.at(ev["id"].get<uint64_t>())) << ev.dump();
    EXPECT_TRUE(done_slices.count({ev["pid"].get<int>(), ev["tid"].get<int>(), ts})) << ev.dump();
  }
  EXPECT_THAT(slice_names, Contains("DataCopy"));
  EXPECT_THAT(slice_names, Contains("Add"));
  EXPECT_THAT(slice_names, Contains("EnQue"));
}

TEST(PerfReportTest, MemoryBoundKernelNamesTheMemoryCorner) {
  // Large double-buffered tiles: MTE2 moves 16 KiB per tile while V adds 8 Ki halves.
  const LaunchResult r = ProfileAdd<2>(8, 8, 8192);
  EXPECT_EQ(r.triangle.corner, "memory");
  EXPECT_EQ(r.triangle.binding_pipe, "MTE2");
  EXPECT_GT(r.Metric("aiv_mte2_ratio"), 0.6);
  EXPECT_GT(r.Metric("aiv_memory_bound"), 1.0);
  EXPECT_LT(r.triangle.compute_density, r.triangle.balance_point);
  EXPECT_THAT(aicore::perf::SummaryText({r}), HasSubstr("memory corner"));
  EXPECT_THAT(r.advice, Contains(HasSubstr("8 of the 48 AIV cores")));
}

TEST(PerfReportTest, FullChipStreamingKernelIsHbmBound) {
  // 48 cores streaming large tiles oversubscribe the HBM (96 streams share it).
  const LaunchResult r = ProfileAdd<2>(48, 8, 8192);
  EXPECT_EQ(r.triangle.corner, "memory");
  EXPECT_GT(r.triangle.bandwidth_utilisation, 0.8);
  EXPECT_LE(r.triangle.bandwidth_utilisation, 1.0 + 1e-9);
  EXPECT_THAT(r.advice, Contains(HasSubstr("of the HBM")));
}

TEST(PerfReportTest, VectorHeavyKernelNamesTheComputeCorner) {
  constexpr int kN = 8192;
  std::vector<float> x(kN, 0.5f), z(kN);
  aicore::perf::Profiler prof;
  prof.Attach();
  float* px = x.data();
  float* pz = z.data();
  auto st = aicore::RunKernel("exp_chain", 1, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, kN * sizeof(float));
    pipe.InitBuffer(b, kN * sizeof(float));
    GlobalTensor<float> gm_x, gm_z;
    gm_x.SetGlobalBuffer(px, kN);
    gm_z.SetGlobalBuffer(pz, kN);
    LocalTensor<float> ub_a = a.Get<float>(), ub_b = b.Get<float>();
    DataCopy(ub_a, gm_x, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    for (int i = 0; i < 20; ++i) {
      Exp(ub_b, ub_a, kN);
      Muls(ub_a, ub_b, 0.1f, kN);
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gm_z, ub_a, kN);
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  EXPECT_EQ(r.triangle.corner, "compute");
  EXPECT_EQ(r.triangle.binding_pipe, "V");
  EXPECT_GT(r.Metric("aiv_vec_ratio"), 0.6);
  EXPECT_EQ(r.flops, 40u * kN);
  EXPECT_EQ(r.roofline.roof, "vector float");
}

TEST(PerfReportTest, TinyKernelGetsLaunchOverheadAndTileSizeAdvice) {
  const LaunchResult r = ProfileAdd<1>(1, 4, 64);
  EXPECT_THAT(r.advice, Contains(HasSubstr("launch overhead")));
  EXPECT_THAT(r.advice, Contains(HasSubstr("per instruction on average")));
}

TEST(PerfReportTest, SerialisedPipesNameTheParallelismCorner) {
  // Copy-in, four Exps and copy-out cost about the same per tile, and PIPE_ALL barriers keep them
  // from overlapping: no pipe is busy most of the time.
  constexpr int kTile = 2048, kTiles = 4;
  std::vector<float> x(kTile * kTiles, 0.1f), z(x.size());
  aicore::perf::Profiler prof;
  prof.Attach();
  float* px = x.data();
  float* pz = z.data();
  auto st = aicore::RunKernel("serial", 1, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, kTile * sizeof(float));
    pipe.InitBuffer(b, kTile * sizeof(float));
    GlobalTensor<float> gm_x, gm_z;
    gm_x.SetGlobalBuffer(px, kTile * kTiles);
    gm_z.SetGlobalBuffer(pz, kTile * kTiles);
    LocalTensor<float> ub_a = a.Get<float>(), ub_b = b.Get<float>();
    for (int t = 0; t < kTiles; ++t) {
      DataCopy(ub_a, gm_x[t * kTile], kTile);
      PipeBarrier<PIPE_ALL>();
      for (int k = 0; k < 2; ++k) {
        Exp(ub_b, ub_a, kTile);
        Exp(ub_a, ub_b, kTile);
      }
      PipeBarrier<PIPE_ALL>();
      DataCopy(gm_z[t * kTile], ub_a, kTile);
      PipeBarrier<PIPE_ALL>();
    }
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const LaunchResult& r = prof.Results().at(0);
  EXPECT_EQ(r.triangle.corner, "parallelism");
  EXPECT_LT(r.triangle.binding_ratio, 0.6);
  EXPECT_LT(r.triangle.pipe_overlap, 1.05);
  EXPECT_THAT(r.advice, Contains(HasSubstr("MTE2 and V never overlap")));
  EXPECT_THAT(r.advice, Contains(HasSubstr("no pipe is busy most of the time")));
  ExpectSlicesNest(nlohmann::json::parse(aicore::perf::TraceJson({r})));
}

TEST(PerfReportTest, WriteReportsProducesEveryFile) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("aicore_perf_report_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  AddBuffers buf(2, 4, 1024);
  aicore::perf::Profiler prof;
  prof.Attach();
  half* x = buf.x.data();
  half* z = buf.z.data();
  ASSERT_TRUE(aicore::RunKernel("first", 2, {}, [=] { AddPipeline<2>(x, z, 4, 1024); }).ok());
  ASSERT_TRUE(aicore::RunKernel("second", 2, {}, [=] { AddPipeline<1>(x, z, 4, 1024); }).ok());
  prof.Detach();
  ASSERT_TRUE(aicore::RunKernel("unrecorded", 1, {}, [=] { AddPipeline<1>(x, z, 1, 64); }).ok());
  ASSERT_EQ(prof.Results().size(), 2u);
  const auto st = prof.WriteReports(dir.string());
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const char* f : {"summary.txt", "summary.json", "trace.json", "pipe_utilization.csv",
                        "memory.csv", "instructions.csv", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  const auto summary = nlohmann::json::parse(ReadFile((dir / "summary.json").string()));
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0]["kernel"], "first");
  EXPECT_EQ(summary[1]["kernel"], "second");
  EXPECT_GT(summary[1]["kernel_us"].get<double>(), summary[0]["kernel_us"].get<double>());
  EXPECT_TRUE(summary[0]["metrics"].contains("aiv_vec_ratio"));
  EXPECT_TRUE(summary[0]["metrics"].contains("aiv_mte2_ratio"));
  EXPECT_TRUE(summary[0]["metrics"].contains("aiv_mte3_ratio"));
  EXPECT_TRUE(summary[0]["metrics"].contains("aiv_scalar_ratio"));
  const auto trace = nlohmann::json::parse(ReadFile((dir / "trace.json").string()));
  EXPECT_GT(trace["traceEvents"].size(), 0u);

  const std::string csv = ReadFile((dir / "pipe_utilization.csv").string());
  EXPECT_THAT(csv, HasSubstr("launch,kernel,core,core_type,block_idx,physical_core,time(us),"
                             "scalar_time(us),scalar_ratio,scalar_instructions,vec_time(us)"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 4);  // header + 2 launches x 2 cores
  EXPECT_THAT(ReadFile((dir / "memory.csv").string()), HasSubstr("first,AIV 1,8192,8192,"));
  EXPECT_THAT(ReadFile((dir / "instructions.csv").string()),
              HasSubstr("perf_test_kernels.h:"));

  const std::string html = ReadFile((dir / "report.html").string());
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_THAT(html, HasSubstr("Performance triangle"));
  EXPECT_THAT(html, HasSubstr("Roofline"));
  EXPECT_THAT(html, HasSubstr("Timeline"));
  EXPECT_THAT(html, HasSubstr("second"));
  EXPECT_THAT(html, HasSubstr("<canvas id=\"timeline-canvas-1\""));
  EXPECT_THAT(html, HasSubstr("id=\"hotspots-0\""));
  EXPECT_THAT(html, HasSubstr("id=\"stalls-0\""));
  EXPECT_THAT(html, HasSubstr("class=\"legend\""));
  EXPECT_THAT(html, HasSubstr("arithmetic intensity"));
  // Self-contained: no external script, style sheet or image.
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<script src")));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<link")));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("src=\"http")));
  std::filesystem::remove_all(dir);
}

TEST(PerfReportTest, ReplayOnAnotherChipUsesItsConstants) {
  AddBuffers buf(1, 2, 1024);
  const aicore::arch::Chip b4 = aicore::arch::LoadChip("ascend910b4");
  aicore::perf::Profiler on_b1, on_b4(b4);
  on_b1.Attach();
  on_b4.Attach();
  half* x = buf.x.data();
  half* z = buf.z.data();
  ASSERT_TRUE(aicore::RunKernel("k", 1, {}, [=] { AddPipeline<2>(x, z, 2, 1024); }).ok());
  on_b1.Detach();
  on_b4.Detach();
  const auto& r1 = on_b1.Results().at(0);
  const auto& r4 = on_b4.Results().at(0);
  EXPECT_EQ(r1.chip, aicore::arch::DefaultChip().name);
  EXPECT_EQ(r4.chip, "ascend910b4");
  EXPECT_EQ(r1.instructions, r4.instructions);
  EXPECT_EQ(r4.triangle.cores_available, b4.aiv_count);
  EXPECT_NEAR(r4.body_us * b4.clock_mhz, r4.timeline.body_cycles, 1e-6);
}

TEST(PerfReportTest, WriteReportsFailsOnAnUnwritableDirectory) {
  aicore::perf::Profiler prof;
  const auto st = prof.WriteReports("/proc/aicore_no_such_dir/x");
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("cannot create report directory"));
}

TEST(PerfReportTest, StallReasonsAddUpToTheCoresTime) {
  // Single-buffered: V waits on every copy-in (DeQue), MTE2 waits for the buffer (AllocTensor).
  const LaunchResult r = ProfileAdd<1>(2, 8, 1024);
  double core_time = 0;
  for (const auto& c : r.cores) core_time += c.time_us;
  for (int p = 0; p < aicore::sim::kPipeCount; ++p) {
    const auto& s = r.stalls[p];
    EXPECT_NEAR(s.time_us, core_time, 1e-9 * core_time);
    EXPECT_LE(s.hbm_us, s.busy_us + 1e-12);
    const double sum = s.busy_us + s.flag_us + s.queue_us + s.buffer_us + s.barrier_us + s.idle_us;
    EXPECT_NEAR(sum, s.time_us, 1e-6 * s.time_us) << p;
  }
  const auto& v = r.stalls[static_cast<int>(aicore::sim::Pipe::kV)];
  const auto& m2 = r.stalls[static_cast<int>(aicore::sim::Pipe::kMte2)];
  EXPECT_GT(v.queue_us, 0);     // DeQue of the copied-in tile
  EXPECT_GT(m2.buffer_us, 0);   // AllocTensor of the one input buffer
  EXPECT_NEAR(m2.busy_us, r.cores[0].pipes[static_cast<int>(aicore::sim::Pipe::kMte2)].busy_us +
                              r.cores[1].pipes[static_cast<int>(aicore::sim::Pipe::kMte2)].busy_us,
              1e-9);
  // Hotspots: the DataCopy and Add lines of the kernel, exec and stall time summing to the
  // records' time.
  ASSERT_FALSE(r.hotspots.empty());
  double exec = 0, stall = 0;
  for (const auto& h : r.hotspots) {
    EXPECT_THAT(h.at, HasSubstr(":"));
    exec += h.exec_us;
    stall += h.stall_us;
  }
  EXPECT_NEAR(stall, v.queue_us + v.buffer_us + m2.buffer_us + m2.queue_us +
                         r.stalls[static_cast<int>(aicore::sim::Pipe::kMte3)].queue_us +
                         r.stalls[static_cast<int>(aicore::sim::Pipe::kMte3)].buffer_us +
                         v.flag_us + m2.flag_us,
              1e-6);
  EXPECT_GT(exec, 0);
  EXPECT_GE(r.hotspots[0].exec_us + r.hotspots[0].stall_us,
            r.hotspots.back().exec_us + r.hotspots.back().stall_us);
  // instructions.csv: running = exec + stall per row; a DeQue row is all stall.
  std::istringstream csv(aicore::perf::InstructionsCsv({r}));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "launch,kernel,code,api,pipe,dtype,calls,cycles,running_time(us),"
                  "exec_time(us),stall_time(us),queued_time(us),bytes,elements");
  bool saw_deque = false;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 14u) << line;
    EXPECT_NEAR(std::stod(f[8]), std::stod(f[9]) + std::stod(f[10]), 2e-4) << line;
    if (f[3] == "DeQue") {
      saw_deque = true;
      EXPECT_EQ(std::stod(f[9]), 0.0) << line;
    }
  }
  EXPECT_TRUE(saw_deque);
}

TEST(PerfReportTest, CompareSummariesPairsLaunchesByKernel) {
  const LaunchResult slow = ProfileAdd<1>(2, 8, 1024);
  const LaunchResult fast = ProfileAdd<2>(2, 8, 1024);
  const auto before = nlohmann::json::parse(aicore::perf::SummaryJson({slow}));
  const auto after = nlohmann::json::parse(aicore::perf::SummaryJson({fast}));
  std::string text;
  ASSERT_TRUE(aicore::perf::CompareSummaries(before, after, "one/", "two/", false, &text).ok());
  EXPECT_THAT(text, HasSubstr("before: one/"));
  EXPECT_THAT(text, HasSubstr("add_pipeline (0/0)"));
  EXPECT_THAT(text, HasSubstr("aiv_vec_ratio"));
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.3fx", fast.kernel_us / slow.kernel_us);
  EXPECT_THAT(text, HasSubstr(ratio));
  std::string html;
  ASSERT_TRUE(aicore::perf::CompareSummaries(before, after, "one/", "two/", true, &html).ok());
  EXPECT_THAT(html, HasSubstr("<table id=\"compare\">"));
  EXPECT_THAT(html, HasSubstr("class=\"better\""));
  // A launch only one side has is listed, not paired.
  auto two = nlohmann::json::parse(aicore::perf::SummaryJson({fast, fast}));
  ASSERT_TRUE(aicore::perf::CompareSummaries(before, two, "a", "b", false, &text).ok());
  EXPECT_THAT(text, HasSubstr("add_pipeline (-/1)"));
  // Not a summary.
  const auto st = aicore::perf::CompareSummaries(nlohmann::json::object(), after, "x.json", "b",
                                                 false, &text);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("x.json: not a profile summary"));
  auto broken = before;
  broken[0].erase("kernel_us");
  EXPECT_THAT(aicore::perf::CompareSummaries(broken, after, "b.json", "a", false, &text).message(),
              HasSubstr("launch 0 has no \"kernel_us\" field"));
}

}  // namespace
}  // namespace perf_test
