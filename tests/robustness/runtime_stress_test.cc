// A bounded stress test of the runtime's handles: worker threads create streams and events,
// launch kernels, copy, record and wait for events, synchronise and destroy, some launches fail on
// purpose, while other threads synchronise the whole device. Each worker checks its own results
// and that its own stream reports its own kernel errors. Bounded by iterations and by wall time
// (fewer of both under ASan/TSan); run clean under both by `make test-sanitizers`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aicore/runtime/gm.h"
#include "tests/robustness/kernels.h"

namespace {

using robustness::fail_at_known_line;
using robustness::increment;
using Clock = std::chrono::steady_clock;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kIterations = 300;
constexpr auto kBudget = std::chrono::seconds(20);
#else
constexpr int kIterations = 2000;
constexpr auto kBudget = std::chrono::seconds(30);
#endif
constexpr int kWorkers = 4;
constexpr int kDeviceSyncers = 2;
constexpr uint32_t kElems = 64;

struct Tally {
  std::atomic<int> iterations{0};
  std::atomic<int> failures{0};
  std::atomic<int> device_syncs{0};
};

void Expect(bool ok, Tally& tally, const char* what) {
  if (ok) return;
  ++tally.failures;
  std::fprintf(stderr, "stress: %s failed: %s\n", what, aclGetRecentErrMsg());
}

void Worker(int index, Clock::time_point deadline, Tally& tally) {
  auto* host = static_cast<int32_t*>(aicore::GmAlloc(kElems * sizeof(int32_t)));
  std::memset(host, 0, kElems * sizeof(int32_t));
  void* dev = nullptr;
  Expect(aclrtMalloc(&dev, kElems * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS,
         tally, "aclrtMalloc");
  void* bad = nullptr;
  Expect(aclrtMalloc(&bad, 16 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, tally,
         "aclrtMalloc");
  int expected = 0;
  for (int i = 0; i < kIterations && Clock::now() < deadline; ++i) {
    aclrtStream s = nullptr;
    aclrtStream t = nullptr;
    aclrtEvent e = nullptr;
    Expect(aclrtCreateStream(&s) == ACL_SUCCESS, tally, "aclrtCreateStream");
    Expect(aclrtCreateStream(&t) == ACL_SUCCESS, tally, "aclrtCreateStream");
    Expect(aclrtCreateEvent(&e) == ACL_SUCCESS, tally, "aclrtCreateEvent");
    // s: kernel on host memory, then copy to device memory, then record; t waits for the record
    // and copies back.
    Expect(aicore::Launch(increment, 2, s, host, kElems).ok(), tally, "Launch");
    ++expected;
    Expect(aclrtMemcpyAsync(dev, kElems * sizeof(int32_t), host, kElems * sizeof(int32_t),
                            ACL_MEMCPY_HOST_TO_DEVICE, s) == ACL_SUCCESS,
           tally, "aclrtMemcpyAsync");
    Expect(aclrtRecordEvent(e, s) == ACL_SUCCESS, tally, "aclrtRecordEvent");
    Expect(aclrtStreamWaitEvent(t, e) == ACL_SUCCESS, tally, "aclrtStreamWaitEvent");
    const bool fail = (i + index) % 8 == 0;
    if (fail) {
      Expect(ACLRT_LAUNCH_KERNEL(fail_at_known_line)(1, t, bad, 16u) == ACL_SUCCESS, tally,
             "ACLRT_LAUNCH_KERNEL");
    }
    Expect(aclrtSynchronizeEvent(e) == ACL_SUCCESS, tally, "aclrtSynchronizeEvent");
    // Both streams report their own work's outcome whatever the device syncers consumed.
    Expect(aclrtSynchronizeStream(s) == ACL_SUCCESS, tally, "aclrtSynchronizeStream(s)");
    const aclError t_code = aclrtSynchronizeStream(t);
    if (fail) {
      Expect(t_code == ACL_ERROR_RT_AICORE_EXCEPTION &&
                 std::string(aclGetRecentErrMsg()).find("fail_at_known_line") !=
                     std::string::npos,
             tally, "the failing stream's own error");
    } else {
      Expect(t_code == ACL_SUCCESS, tally, "aclrtSynchronizeStream(t)");
    }
    aclrtEventStatus status = ACL_EVENT_STATUS_NOT_READY;
    Expect(aclrtQueryEvent(e, &status) == ACL_SUCCESS && status == ACL_EVENT_STATUS_COMPLETE,
           tally, "aclrtQueryEvent");
    Expect(host[0] == expected && host[kElems - 1] == expected, tally, "kernel result");
    Expect(aclrtDestroyEvent(e) == ACL_SUCCESS, tally, "aclrtDestroyEvent");
    Expect(aclrtDestroyStream(t) == ACL_SUCCESS, tally, "aclrtDestroyStream(t)");
    Expect(aclrtDestroyStream(s) == ACL_SUCCESS, tally, "aclrtDestroyStream(s)");
    ++tally.iterations;
  }
  std::vector<int32_t> back(kElems);
  Expect(aclrtMemcpy(back.data(), kElems * sizeof(int32_t), dev, kElems * sizeof(int32_t),
                     ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS &&
             back[0] == expected,
         tally, "device copy");
  aclrtFree(dev);
  aclrtFree(bad);
  aicore::GmFree(host);
}

TEST(RuntimeStress, ThreadsChurnStreamsAndEventsWhileOthersSynchronizeTheDevice) {
  const auto start = Clock::now();
  const auto deadline = start + kBudget;
  Tally tally;
  std::atomic<bool> stop{false};
  std::vector<std::thread> syncers;
  for (int d = 0; d < kDeviceSyncers; ++d) {
    syncers.emplace_back([&] {
      while (!stop) {
        // Errors here belong to the workers' failing launches; only crashes and hangs matter.
        (void)aclrtSynchronizeDevice();
        ++tally.device_syncs;
      }
    });
  }
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] { Worker(w, deadline, tally); });
  }
  for (auto& t : workers) t.join();
  stop = true;
  for (auto& t : syncers) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("stress: %d iterations, %d device syncs in %.1f s\n", tally.iterations.load(),
              tally.device_syncs.load(), seconds);
  EXPECT_EQ(tally.failures.load(), 0);
  EXPECT_GE(tally.iterations.load(), kWorkers);  // each worker got at least one round in
  EXPECT_LT(seconds, 60.0);
}

}  // namespace
