// Tests of the allocator's reports: history recording, the snapshot's segments and blocks, its
// JSON and pickle forms, and the memory summary text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/memory/pickle.h"

namespace aicore::memory {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr size_t kMiB = size_t{1} << 20;

TEST(PickleWriterTest, ExactBytesOfSmallValues) {
  PickleWriter w;
  w.BeginDict();
  w.String("a");
  w.Int(1);
  w.String("b");
  w.BeginList();
  w.Int(-2);
  w.Int(int64_t{1} << 40);
  w.Bool(true);
  w.None();
  w.EndList();
  w.String("e");
  w.BeginList();
  w.EndList();
  w.EndDict();
  const std::string got = w.Finish();
  static constexpr char kWant[] =
      "\x80\x02}(X\x01\x00\x00\x00"
      "aJ\x01\x00\x00\x00"
      "X\x01\x00\x00\x00"
      "b](J\xfe\xff\xff\xff\x8a\x08\x00\x00\x00\x00\x00\x01\x00\x00\x88Ne"
      "X\x01\x00\x00\x00"
      "e]u.";
  const std::string want(kWant, sizeof(kWant) - 1);
  EXPECT_EQ(got, want);
}

TEST(PickleWriterTest, FloatsAndTuples) {
  PickleWriter w;
  w.Float(1.5);
  w.Int(0);
  w.Int(0);
  w.Tuple2();
  const std::string got = w.Finish();
  EXPECT_EQ(got, std::string("\x80\x02G\x3f\xf8\x00\x00\x00\x00\x00\x00"
                             "J\x00\x00\x00\x00J\x00\x00\x00\x00\x86.",
                             23));
}

class SnapshotTest : public ::testing::Test {
 protected:
  SnapshotTest() : alloc_(0, 256 * kMiB) {}
  CachingAllocator alloc_;
};

TEST_F(SnapshotTest, SegmentsAndBlocksDescribeTheCache) {
  void* a = alloc_.Malloc(1000);
  void* b = alloc_.Malloc(3 * kMiB);
  MemorySnapshot snap = alloc_.Snapshot();
  ASSERT_EQ(snap.segments.size(), 2u);
  size_t total = 0;
  for (const SegmentSnapshot& seg : snap.segments) {
    size_t sum = 0;
    for (const BlockSnapshot& block : seg.blocks) sum += block.size;
    EXPECT_EQ(sum, seg.total_size);
    total += seg.total_size;
    EXPECT_EQ(seg.blocks.size(), 2u);
    EXPECT_STREQ(seg.blocks[0].state, "active_allocated");
    EXPECT_STREQ(seg.blocks[1].state, "inactive");
    EXPECT_EQ(seg.blocks[0].address, seg.address);
  }
  EXPECT_EQ(total, 22 * kMiB);
  alloc_.Free(a);
  alloc_.Free(b);
}

TEST_F(SnapshotTest, HistoryRecordsActionsInOrder) {
  alloc_.RecordHistory(true, 100);
  void* a = alloc_.Malloc(1000);
  alloc_.Free(a);
  alloc_.EmptyCache();
  MemorySnapshot snap = alloc_.Snapshot();
  ASSERT_EQ(snap.device_traces.size(), 1u);
  std::vector<std::string> actions;
  for (const TraceEntry& e : snap.device_traces[0]) actions.push_back(TraceActionName(e.action));
  EXPECT_THAT(actions, ElementsAre("segment_alloc", "alloc", "free_requested", "free_completed",
                                   "segment_free"));
  EXPECT_EQ(snap.device_traces[0][1].size, 1024u);
  EXPECT_EQ(snap.device_traces[0][1].addr, reinterpret_cast<uintptr_t>(a));
  EXPECT_TRUE(snap.device_traces[0][1].has_where);
  EXPECT_THAT(snap.device_traces[0][1].where.file_name(), HasSubstr("snapshot_test.cc"));

  // The ring keeps only the newest entries.
  alloc_.RecordHistory(true, 3);
  EXPECT_EQ(alloc_.Snapshot().device_traces[0].size(), 3u);
  alloc_.RecordHistory(false);
  EXPECT_TRUE(alloc_.Snapshot().device_traces[0].empty());
}

TEST_F(SnapshotTest, OomIsRecorded) {
  CachingAllocator small(2, 8 * kMiB);
  small.RecordHistory(true);
  EXPECT_THROW(small.Malloc(20 * kMiB), OutOfMemoryError);
  MemorySnapshot snap = small.Snapshot();
  ASSERT_EQ(snap.device_traces.size(), 3u);  // indexed by device
  ASSERT_EQ(snap.device_traces[2].size(), 1u);
  EXPECT_EQ(snap.device_traces[2][0].action, TraceEntry::kOom);
  EXPECT_EQ(snap.device_traces[2][0].device_free, 8 * kMiB);
}

TEST_F(SnapshotTest, JsonHasMemoryVizSchema) {
  alloc_.RecordHistory(true);
  void* a = alloc_.Malloc(1000);
  void* b = alloc_.Malloc(5 * kMiB);
  alloc_.Free(a);
  const auto j = nlohmann::json::parse(SnapshotToJson(alloc_.Snapshot()));
  ASSERT_EQ(j["segments"].size(), 2u);
  for (const auto& seg : j["segments"]) {
    for (const char* key :
         {"device", "address", "total_size", "allocated_size", "active_size", "requested_size",
          "stream", "segment_type", "segment_pool_id", "is_expandable", "frames", "blocks"}) {
      EXPECT_TRUE(seg.contains(key)) << key;
    }
    for (const auto& block : seg["blocks"]) {
      for (const char* key : {"address", "size", "requested_size", "state", "frames"}) {
        EXPECT_TRUE(block.contains(key)) << key;
      }
    }
  }
  const auto& small =
      j["segments"][0]["segment_type"] == "small" ? j["segments"][0] : j["segments"][1];
  EXPECT_EQ(small["total_size"], 2 * kMiB);
  EXPECT_EQ(small["allocated_size"], 0);
  const auto& trace = j["device_traces"][0];
  ASSERT_EQ(trace.size(), 6u);
  EXPECT_EQ(trace[1]["action"], "alloc");
  EXPECT_EQ(trace[1]["addr"], reinterpret_cast<uintptr_t>(a));
  EXPECT_EQ(trace[1]["frames"][0]["line"].get<int>() > 0, true);
  EXPECT_THAT(trace[1]["frames"][0]["filename"].get<std::string>(), HasSubstr("snapshot_test"));
  EXPECT_EQ(j["allocator_settings"]["expandable_segments"], false);
  alloc_.Free(b);
}

TEST_F(SnapshotTest, ExpandableSegmentShowsOneSegmentPerMappedRun) {
  AllocatorConfig config;
  ASSERT_TRUE(ParseAllocatorConfig("expandable_segments:True", &config).ok());
  CachingAllocator alloc(0, 256 * kMiB, config);
  void* a = alloc.Malloc(4 * kMiB);
  void* b = alloc.Malloc(4 * kMiB);
  alloc.Free(a);
  alloc.EmptyCache();  // unmaps a's pages: the mapped run starts at b
  MemorySnapshot snap = alloc.Snapshot();
  ASSERT_EQ(snap.segments.size(), 1u);
  EXPECT_TRUE(snap.segments[0].is_expandable);
  EXPECT_EQ(snap.segments[0].address, reinterpret_cast<uintptr_t>(b));
  EXPECT_EQ(snap.segments[0].total_size, 4 * kMiB);
  alloc.Free(b);
}

TEST_F(SnapshotTest, DumpWritesPickleAndJson) {
  alloc_.RecordHistory(true);
  void* a = alloc_.Malloc(1000);
  const std::string dir = ::testing::TempDir();
  const std::string pickle_path = dir + "/aicore_snapshot_test.pickle";
  const std::string json_path = dir + "/aicore_snapshot_test.json";
  DumpSnapshot(alloc_.Snapshot(), pickle_path);
  DumpSnapshot(alloc_.Snapshot(), json_path);
  std::ifstream pickle(pickle_path, std::ios::binary);
  std::stringstream bytes;
  bytes << pickle.rdbuf();
  const std::string p = bytes.str();
  ASSERT_GE(p.size(), 4u);
  EXPECT_EQ(p.substr(0, 3), std::string("\x80\x02}", 3));
  EXPECT_EQ(p.back(), '.');
  EXPECT_THAT(p, HasSubstr("device_traces"));
  std::ifstream json(json_path);
  EXPECT_NO_THROW(nlohmann::json::parse(json));
  EXPECT_THROW(DumpSnapshot(alloc_.Snapshot(), "/nonexistent-dir/x.pickle"), Error);
  alloc_.Free(a);
  unlink(pickle_path.c_str());
  unlink(json_path.c_str());
}

TEST_F(SnapshotTest, MemorySummaryTable) {
  void* a = alloc_.Malloc(1000);
  void* b = alloc_.Malloc(5 * kMiB);
  alloc_.Free(a);
  const std::string text = MemorySummary(alloc_.GetStats(), 0);
  EXPECT_THAT(text, HasSubstr("memory summary, device ID 0"));
  EXPECT_THAT(text, HasSubstr("OOMs: 0"));
  EXPECT_THAT(text, HasSubstr("|        Metric         | Cur Usage  | Peak Usage |"));
  EXPECT_THAT(text, HasSubstr("| Allocated memory      |   5120 KiB |   5121 KiB |   5121 KiB |"
                              "   1024 B   |"));
  EXPECT_THAT(text, HasSubstr("| Reserved memory       |  22528 KiB |  22528 KiB |"));
  EXPECT_THAT(text, HasSubstr("| Allocations           |       1    |       2    |"));
  EXPECT_THAT(text, HasSubstr("from small pool"));
  // Every line has the same width.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) EXPECT_EQ(line.size(), 77u) << line;
  alloc_.Free(b);
}

}  // namespace
}  // namespace aicore::memory
