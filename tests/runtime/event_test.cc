// Events: record/query/synchronize, cross-stream waits, elapsed time, stale handles.
#include "aicore/runtime/event.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"
#include "tests/runtime/kernels.h"

namespace aicore::rt {
namespace {

using ::testing::HasSubstr;

// Blocks a stream until Release() so tests control when its work completes.
class Gate {
 public:
  void Block(Stream* s) {
    ASSERT_TRUE(LaunchHostFunc(s, [this] {
                  while (!open_) std::this_thread::sleep_for(std::chrono::microseconds(200));
                }).ok());
  }
  void Release() { open_ = true; }

 private:
  std::atomic<bool> open_{false};
};

class EventTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(CreateStream(&a_).ok());
    ASSERT_TRUE(CreateStream(&b_).ok());
    ASSERT_TRUE(CreateEvent(&e_).ok());
  }
  void TearDown() override {
    EXPECT_TRUE(DestroyEvent(e_).ok());
    EXPECT_TRUE(DestroyStream(a_).ok());
    EXPECT_TRUE(DestroyStream(b_).ok());
  }
  Stream* a_ = nullptr;
  Stream* b_ = nullptr;
  Event* e_ = nullptr;
};

TEST_F(EventTest, NeverRecordedEventIsComplete) {
  bool complete = false;
  ASSERT_TRUE(EventQuery(e_, &complete).ok());
  EXPECT_TRUE(complete);
  EXPECT_TRUE(EventSynchronize(e_).ok());
  EXPECT_TRUE(StreamWaitEvent(a_, e_).ok());
  EXPECT_TRUE(StreamSynchronize(a_).ok());
}

TEST_F(EventTest, QueryFollowsTheStream) {
  Gate gate;
  gate.Block(a_);
  ASSERT_TRUE(RecordEvent(e_, a_).ok());
  bool complete = true;
  ASSERT_TRUE(EventQuery(e_, &complete).ok());
  EXPECT_FALSE(complete);
  gate.Release();
  ASSERT_TRUE(EventSynchronize(e_).ok());
  ASSERT_TRUE(EventQuery(e_, &complete).ok());
  EXPECT_TRUE(complete);
}

TEST_F(EventTest, StreamWaitEventOrdersWorkAcrossStreams) {
  for (int round = 0; round < 20; ++round) {
    Gate gate;
    std::atomic<int> produced{0};
    int seen = -1;
    gate.Block(a_);
    ASSERT_TRUE(LaunchHostFunc(a_, [&] { produced = round + 1; }).ok());
    ASSERT_TRUE(RecordEvent(e_, a_).ok());
    ASSERT_TRUE(StreamWaitEvent(b_, e_).ok());
    ASSERT_TRUE(LaunchHostFunc(b_, [&] { seen = produced; }).ok());
    // b_ must still be waiting: its callback has not run although b_ has nothing else to do.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    bool idle = true;
    ASSERT_TRUE(StreamQuery(b_, &idle).ok());
    EXPECT_FALSE(idle);
    gate.Release();
    ASSERT_TRUE(StreamSynchronize(b_).ok());
    EXPECT_EQ(seen, round + 1);
    ASSERT_TRUE(StreamSynchronize(a_).ok());
  }
}

// A kernel on stream a produces data; stream b waits on the event and runs a kernel that
// consumes it.
TEST_F(EventTest, KernelProducerConsumerAcrossStreams) {
  const uint32_t n = 3000;
  std::vector<float> host(n);
  for (uint32_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float* dev = static_cast<float*>(DeviceMalloc(n * sizeof(float), a_));
  ASSERT_TRUE(MemcpyAsync(dev, host.data(), n * sizeof(float), a_).ok());
  ASSERT_TRUE(Launch(runtime_test::affine_float, 5, a_, dev, n, 2.0f, 0.0f).ok());
  ASSERT_TRUE(RecordEvent(e_, a_).ok());
  ASSERT_TRUE(StreamWaitEvent(b_, e_).ok());
  ASSERT_TRUE(Launch(runtime_test::affine_float, 3, b_, dev, n, 1.0f, 7.0f).ok());
  std::vector<float> out(n);
  ASSERT_TRUE(MemcpyAsync(out.data(), dev, n * sizeof(float), b_).ok());
  ASSERT_TRUE(StreamSynchronize(b_).ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], host[i] * 2.0f + 7.0f) << i;
  DeviceFree(dev);
}

TEST_F(EventTest, WaitCapturesTheLatestRecordAtCallTime) {
  Gate first;
  Gate second;
  first.Block(a_);
  ASSERT_TRUE(RecordEvent(e_, a_).ok());
  second.Block(a_);
  ASSERT_TRUE(RecordEvent(e_, a_).ok());  // the record b_ will wait for
  ASSERT_TRUE(StreamWaitEvent(b_, e_).ok());
  std::atomic<bool> b_ran{false};
  ASSERT_TRUE(LaunchHostFunc(b_, [&] { b_ran = true; }).ok());
  first.Release();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(b_ran);  // the first record completed, the second has not
  second.Release();
  ASSERT_TRUE(StreamSynchronize(b_).ok());
  EXPECT_TRUE(b_ran);
}

TEST_F(EventTest, ElapsedTimeIsNonNegativeAndMeasuresWork) {
  Event* end = nullptr;
  ASSERT_TRUE(CreateEvent(&end).ok());
  ASSERT_TRUE(RecordEvent(e_, a_).ok());
  ASSERT_TRUE(LaunchHostFunc(a_, [] {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
              }).ok());
  ASSERT_TRUE(RecordEvent(end, a_).ok());
  ASSERT_TRUE(EventSynchronize(end).ok());
  float ms = -1.0f;
  ASSERT_TRUE(EventElapsedTime(&ms, e_, end).ok());
  EXPECT_GE(ms, 20.0f);  // sleep_for sleeps at least the duration asked
  // Back-to-back records: elapsed >= 0.
  ASSERT_TRUE(RecordEvent(e_, a_).ok());
  ASSERT_TRUE(RecordEvent(end, a_).ok());
  ASSERT_TRUE(StreamSynchronize(a_).ok());
  ASSERT_TRUE(EventElapsedTime(&ms, e_, end).ok());
  EXPECT_GE(ms, 0.0f);
  EXPECT_TRUE(DestroyEvent(end).ok());
}

TEST_F(EventTest, ElapsedTimeNeedsCompletedRecords) {
  Event* end = nullptr;
  ASSERT_TRUE(CreateEvent(&end).ok());
  float ms = 0.0f;
  Status s = EventElapsedTime(&ms, e_, end);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("start event was never recorded"));
  Gate gate;
  ASSERT_TRUE(RecordEvent(e_, a_).ok());
  gate.Block(a_);
  ASSERT_TRUE(RecordEvent(end, a_).ok());
  ASSERT_TRUE(EventSynchronize(e_).ok());
  s = EventElapsedTime(&ms, e_, end);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("end event has not completed"));
  gate.Release();
  ASSERT_TRUE(EventSynchronize(end).ok());
  EXPECT_TRUE(EventElapsedTime(&ms, e_, end).ok());
  EXPECT_EQ(EventElapsedTime(nullptr, e_, end).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(DestroyEvent(end).ok());
}

TEST_F(EventTest, DestroyWithRecordInFlightIsSafe) {
  Event* tmp = nullptr;
  ASSERT_TRUE(CreateEvent(&tmp).ok());
  Gate gate;
  gate.Block(a_);
  ASSERT_TRUE(RecordEvent(tmp, a_).ok());
  ASSERT_TRUE(StreamWaitEvent(b_, tmp).ok());
  ASSERT_TRUE(DestroyEvent(tmp).ok());
  gate.Release();
  EXPECT_TRUE(StreamSynchronize(a_).ok());
  EXPECT_TRUE(StreamSynchronize(b_).ok());
}

TEST(EventHandles, StaleAndForeignHandlesAreErrors) {
  Event* e = nullptr;
  ASSERT_TRUE(CreateEvent(&e).ok());
  ASSERT_TRUE(DestroyEvent(e).ok());
  for (Event* bad : {e, reinterpret_cast<Event*>(0x40), static_cast<Event*>(nullptr)}) {
    Status s = RecordEvent(bad, nullptr);
    EXPECT_EQ(s.code(), StatusCode::kNotFound);
    EXPECT_THAT(s.message(), HasSubstr("is not a live event"));
    EXPECT_EQ(DestroyEvent(bad).code(), StatusCode::kNotFound);
    EXPECT_EQ(EventSynchronize(bad).code(), StatusCode::kNotFound);
    EXPECT_EQ(StreamWaitEvent(nullptr, bad).code(), StatusCode::kNotFound);
    bool complete = false;
    EXPECT_EQ(EventQuery(bad, &complete).code(), StatusCode::kNotFound);
  }
  ASSERT_TRUE(CreateEvent(&e).ok());
  Status s = RecordEvent(e, reinterpret_cast<Stream*>(0x80));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("is not a live stream"));
  EXPECT_TRUE(DestroyEvent(e).ok());
}

}  // namespace
}  // namespace aicore::rt
