// Runtime concurrency: stream and event handles used, synchronised and destroyed from several
// threads at once; per-stream errors that another thread's device sync cannot consume;
// synchronising a stream from kernel code; launches of a null kernel pointer. Each case was a
// crash, a hang, a use-after-free or a lost error before the runtime held its streams by shared
// ownership (docs/errors.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/event.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "aicore/runtime/stream.h"
#include "tests/robustness/kernels.h"
#include "tests/robustness/subprocess.h"
#include "tests/runtime/kernels.h"

namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// In the parent: reruns the current test in a fresh process and returns its outcome. In that
// child: runs `fn` under a `seconds` alarm (so a hang fails the test instead of stalling the
// suite) and exits with its failure count.
robustness::ChildResult RunBounded(unsigned seconds, const std::function<int()>& fn) {
  if (robustness::InChild()) {
    alarm(seconds);
    const int failures = fn();
    std::fflush(nullptr);
    _exit(failures);
  }
  return robustness::RerunThisTest();
}

TEST(StreamLifetime, DeviceSyncWhileOtherThreadsCreateAndDestroyStreams) {
  const auto r = RunBounded(60, [] {
    std::atomic<bool> stop{false};
    std::atomic<int> failures{0};
    std::vector<std::thread> churners;
    for (int t = 0; t < 3; ++t) {
      churners.emplace_back([&] {
        for (int i = 0; i < 300 && !stop; ++i) {
          aclrtStream s = nullptr;
          if (aclrtCreateStream(&s) != ACL_SUCCESS) ++failures;
          if (aicore::rt::LaunchHostFunc(s, [] {}).ok() == false) ++failures;
          if (aclrtDestroyStream(s) != ACL_SUCCESS) ++failures;
        }
      });
    }
    const auto end = Clock::now() + std::chrono::seconds(3);
    for (int i = 0; i < 2000 && Clock::now() < end; ++i) {
      if (aclrtSynchronizeDevice() != ACL_SUCCESS) {
        std::fprintf(stderr, "device sync failed: %s\n", aclGetRecentErrMsg());
        ++failures;
      }
    }
    stop = true;
    for (auto& t : churners) t.join();
    return failures.load();
  });
  EXPECT_TRUE(r.exited) << "signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(StreamLifetime, SynchronizeRacingDestroyIsSuccessOrInvalidHandle) {
  for (int i = 0; i < 200; ++i) {
    aclrtStream s = nullptr;
    ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    ASSERT_TRUE(aicore::rt::LaunchHostFunc(s, [] {
                  std::this_thread::sleep_for(std::chrono::microseconds(50));
                }).ok());
    aclError sync_code = ACL_SUCCESS;
    std::string sync_msg;
    std::thread syncer([&] {
      sync_code = aclrtSynchronizeStream(s);
      sync_msg = aclGetRecentErrMsg();
    });
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    syncer.join();
    ASSERT_THAT(sync_code, AnyOf(ACL_SUCCESS, ACL_ERROR_INVALID_RESOURCE_HANDLE)) << sync_msg;
    if (sync_code != ACL_SUCCESS) {
      EXPECT_THAT(sync_msg, AllOf(HasSubstr("aclrtSynchronizeStream"),
                                  HasSubstr("not a live stream")));
    }
  }
}

TEST(StreamLifetime, RecordStreamWithADestroyedStreamIsNotFound) {
  aicore::rt::Stream* s = nullptr;
  ASSERT_TRUE(aicore::rt::CreateStream(&s).ok());
  ASSERT_TRUE(aicore::rt::DestroyStream(s).ok());
  void* p = aicore::rt::DeviceMalloc(256, nullptr);
  try {
    aicore::rt::DeviceRecordStream(p, s);
    ADD_FAILURE() << "DeviceRecordStream accepted a destroyed stream";
  } catch (const aicore::Error& e) {
    EXPECT_EQ(e.status().code(), aicore::StatusCode::kNotFound);
    EXPECT_THAT(e.status().message(),
                AllOf(HasSubstr("DeviceRecordStream"), HasSubstr("not a live stream")));
  }
  aicore::rt::DeviceFree(p);
}

TEST(StreamLifetime, EventRecordOnADestroyedStreamIsInvalidHandle) {
  aclrtStream s = nullptr;
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(e, s), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(std::string(aclGetRecentErrMsg()), HasSubstr("not a live stream"));
  EXPECT_EQ(aclrtStreamWaitEvent(s, e), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
}

// Thread T's kernel fails on T's stream; the main thread's device sync reports the error, and
// T's own aclrtSynchronizeStream still reports it too.
TEST(StreamErrors, DeviceSyncDoesNotConsumeAnotherThreadsStreamError) {
  float* dev = static_cast<float*>(aicore::rt::DeviceMalloc(64, nullptr));
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_TRUE(aicore::Launch(runtime_test::read_past_end, 1, s, dev, 4u).ok());
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_THAT(std::string(aclGetRecentErrMsg()), HasSubstr("read_past_end"));
  aclError own = ACL_SUCCESS;
  std::string own_msg;
  std::thread owner([&] {
    own = aclrtSynchronizeStream(s);
    own_msg = aclGetRecentErrMsg();
  });
  owner.join();
  EXPECT_EQ(own, ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_THAT(own_msg, AllOf(HasSubstr("aclrtSynchronizeStream"), HasSubstr("read_past_end"),
                             HasSubstr("GetValue")));
  // Each consumer sees an error once.
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  aicore::rt::DeviceFree(dev);
}

// A kernel on stream A synchronises stream B while B's kernel is queued behind A's launch
// (launches run one at a time): a FailedPrecondition code, not a hang.
TEST(KernelSideSync, SynchronizingAnotherStreamFromAKernelIsAnError) {
  const auto r = RunBounded(30, [] {
    int bad = 0;
    aclrtStream a = nullptr;
    aclrtStream b = nullptr;
    if (aclrtCreateStream(&a) != ACL_SUCCESS || aclrtCreateStream(&b) != ACL_SUCCESS) return 1;
    auto* result = static_cast<int32_t*>(aicore::GmAlloc(sizeof(int32_t)));
    auto* x = static_cast<int32_t*>(aicore::GmAlloc(64 * sizeof(int32_t)));
    *result = -1;
    if (!aicore::Launch(robustness::sync_other_stream, 2, a, b, result).ok()) ++bad;
    if (!aicore::Launch(robustness::increment, 2, b, x, 64u).ok()) ++bad;
    if (aclrtSynchronizeStream(a) != ACL_SUCCESS) ++bad;
    if (aclrtSynchronizeStream(b) != ACL_SUCCESS) ++bad;
    if (*result != ACL_ERROR_FAILURE) {
      std::fprintf(stderr, "kernel-side sync returned %d\n", *result);
      ++bad;
    }
    aicore::GmFree(result);
    aicore::GmFree(x);
    aclrtDestroyStream(a);
    aclrtDestroyStream(b);
    return bad;
  });
  EXPECT_TRUE(r.exited) << "signal " << r.signal << " (14 = SIGALRM: the sync hung)\n" << r.err;
  EXPECT_EQ(r.code, 0) << r.err;
  // The refusal is reported where it happens, naming the kernel and the API.
  EXPECT_THAT(r.err, AllOf(HasSubstr("aclrtSynchronizeStream"), HasSubstr("sync_other_stream"),
                           HasSubstr("kernel code")));
}

TEST(KernelSideSync, DeviceSyncAndEventSyncFromAKernelAreErrors) {
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  std::atomic<int> device_code{-1};
  std::atomic<int> event_code{-1};
  auto body = [&] {
    if (AscendC::GetBlockIdx() != 0) return;
    device_code = aclrtSynchronizeDevice();
    event_code = aclrtSynchronizeEvent(e);
  };
  ASSERT_TRUE(aicore::RunKernel("host_calls", 1, aicore::LaunchOptions{}, body).ok());
  EXPECT_EQ(device_code.load(), ACL_ERROR_FAILURE);
  EXPECT_EQ(event_code.load(), ACL_ERROR_FAILURE);
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
}

TEST(NullKernel, LaunchAndLaunchSyncRejectANullKernelPointer) {
  void (*kernel)(GM_ADDR, uint32_t) = nullptr;
  float* dev = static_cast<float*>(aicore::GmAlloc(64));
  const aicore::Status sync = aicore::LaunchSync("null_kernel", kernel, 1, aicore::LaunchOptions{},
                                                 dev, 4u);
  EXPECT_EQ(sync.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(sync.message(), AllOf(HasSubstr("null_kernel"), HasSubstr("nullptr")));
  const aicore::Status async = aicore::Launch(kernel, 1, nullptr, dev, 4u);
  EXPECT_EQ(async.code(), aicore::StatusCode::kInvalidArgument);
  EXPECT_THAT(async.message(), HasSubstr("nullptr"));
  aicore::LaunchConfig config;
  config.name = "named_null";
  const aicore::Status named = aicore::Launch(config, kernel, dev, 4u);
  EXPECT_THAT(named.message(), AllOf(HasSubstr("named_null"), HasSubstr("nullptr")));
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  aicore::GmFree(dev);
}

}  // namespace
