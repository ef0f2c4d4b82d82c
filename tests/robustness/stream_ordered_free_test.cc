// Stream-ordered frees (Note [GM epochs]): freeing device memory on the host right after
// enqueuing a kernel that uses it is legal (PyTorch's caching allocator relies on it), also when
// the block is allocated again for later work on the same stream; the kernel must run without a
// use-after-free or out-of-bounds report, in the fast path and under memcheck, and emptying the
// cache meanwhile must not unmap memory the kernel still uses. Memory freed before the launch was
// enqueued is still a use after free. A host callback holds each stream until the frees are done,
// so the order is the same in every run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/launch.h"
#include "aicore/runtime/stream.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

// dst[i] = value for i < n, through a GlobalTensor set up without a size (its extent is the
// allocation's): one block, n a multiple of 8.
__global__ __aicore__ void fill_unsized(GM_ADDR dst, uint32_t n, float value) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, n * sizeof(float));
  GlobalTensor<float> gm_dst;  // (n,) by the allocation
  gm_dst.SetGlobalBuffer((__gm__ float*)dst);
  LocalTensor<float> ub_dst = buf.Get<float>();  // (n,)
  Duplicate(ub_dst, value, n);
  PipeBarrier<PIPE_ALL>();
  DataCopy(gm_dst, ub_dst, n);
}

// Holds a stream's queue at a host callback until Open().
class Gate {
 public:
  explicit Gate(aicore::rt::Stream* stream) {
    EXPECT_TRUE(aicore::rt::LaunchHostFunc(stream, [this] {
                  std::unique_lock<std::mutex> lk(mu_);
                  cv_.wait(lk, [this] { return open_; });
                }).ok());
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

class StreamOrderedFreeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(aicore::rt::CreateStream(&stream_).ok()); }
  void TearDown() override { EXPECT_TRUE(aicore::rt::DestroyStream(stream_).ok()); }

  aicore::Status Fill(void* dst, uint32_t n, float value) {
    aicore::LaunchConfig config;
    config.stream = stream_;
    config.name = "fill_unsized";
    return aicore::Launch(config, fill_unsized, dst, n, value);
  }

  aicore::rt::Stream* stream_ = nullptr;
};

TEST_F(StreamOrderedFreeTest, FreeAfterEnqueueIsNotAUseAfterFree) {
  void* p = aicore::rt::DeviceMalloc(256 * sizeof(float), stream_);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 256, 2.0f).ok());
  aicore::rt::DeviceFree(p);  // the kernel is still queued behind the gate
  gate.Open();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_F(StreamOrderedFreeTest, FreeAndReuseAfterEnqueueKeepsTheFirstKernelsExtent) {
  void* p = aicore::rt::DeviceMalloc(1024 * sizeof(float), stream_);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 1024, 1.0f).ok());  // 4 KiB
  aicore::rt::DeviceFree(p);
  void* q = aicore::rt::DeviceMalloc(64 * sizeof(float), stream_);  // same stream: may reuse p
  ASSERT_TRUE(Fill(q, 64, 3.0f).ok());
  gate.Open();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_TRUE(st.ok()) << st.ToString();
  // Stream order: the second kernel wrote last.
  EXPECT_EQ(static_cast<float*>(q)[63], 3.0f);
  aicore::rt::DeviceFree(q);
}

TEST_F(StreamOrderedFreeTest, MemcheckAcceptsFreeAndReuseAfterEnqueue) {
  aicore::check::SanitizerOptions so;
  so.tools = aicore::check::kMemcheck;
  aicore::check::Sanitizer sanitizer(so);
  void* p = aicore::rt::DeviceMalloc(512 * sizeof(float), stream_);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 512, 1.0f).ok());
  aicore::rt::DeviceFree(p);
  void* q = aicore::rt::DeviceMalloc(128 * sizeof(float), stream_);
  ASSERT_TRUE(Fill(q, 128, 5.0f).ok());
  gate.Open();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_TRUE(st.ok()) << st.ToString();
  const auto reports = sanitizer.reports();
  EXPECT_TRUE(reports.empty()) << reports.front().ToString();
  aicore::rt::DeviceFree(q);
}

TEST_F(StreamOrderedFreeTest, EmptyCacheWaitsForTheKernelBeforeUnmapping) {
  constexpr size_t kBytes = size_t{12} << 20;  // a large-pool segment of its own
  void* p = aicore::rt::DeviceMalloc(kBytes, stream_);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 1024, 4.0f).ok());
  aicore::rt::DeviceFree(p);
  // The gate opens while EmptyCache waits (or before it starts: either order must pass). Unmapping
  // first made the kernel write into unmapped memory: SIGSEGV.
  std::thread opener([&gate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.Open();
  });
  aicore::rt::DeviceEmptyCache(aicore::rt::CurrentDevice());
  opener.join();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_F(StreamOrderedFreeTest, FreeBeforeEnqueueIsStillAUseAfterFree) {
  void* p = aicore::rt::DeviceMalloc(256 * sizeof(float), stream_);
  aicore::rt::DeviceFree(p);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 256, 1.0f).ok());
  gate.Open();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("kernel fill_unsized on stream"));
  EXPECT_THAT(st.message(), HasSubstr("which was freed before the tensor was set up (use after "
                                      "free)"));
}

TEST_F(StreamOrderedFreeTest, FreeBeforeEnqueueAndReuseAfterItIsStillAUseAfterFree) {
  void* p = aicore::rt::DeviceMalloc(256 * sizeof(float), stream_);
  aicore::rt::DeviceFree(p);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 256, 1.0f).ok());  // a stale pointer
  void* q = aicore::rt::DeviceMalloc(256 * sizeof(float), stream_);
  if (q != p) {
    gate.Open();
    (void)aicore::rt::StreamSynchronize(stream_);
    aicore::rt::DeviceFree(q);
    GTEST_SKIP() << "the allocator did not reuse the block";
  }
  gate.Open();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("use after free"));
  aicore::rt::DeviceFree(q);
}

TEST_F(StreamOrderedFreeTest, SynchronousLaunchMeanwhileSeesThePresent) {
  void* p = aicore::rt::DeviceMalloc(64 * sizeof(float), stream_);
  Gate gate(stream_);
  ASSERT_TRUE(Fill(p, 64, 1.0f).ok());
  aicore::rt::DeviceFree(p);
  // While the async launch (pinned before the free) waits, a synchronous one sees the present.
  const aicore::Status sync = aicore::RunKernel(
      "fill_now", 1, aicore::LaunchOptions{},
      aicore::detail::BindKernel(fill_unsized, p, uint32_t{64}, 1.0f));
  EXPECT_EQ(sync.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(sync.message(), HasSubstr("use after free"));
  gate.Open();
  const aicore::Status st = aicore::rt::StreamSynchronize(stream_);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

}  // namespace
