// Limits are errors, not crashes: launches beyond the mapping budget still run, address-space
// exhaustion is a ResourceExhausted status, worker threads and stack sizes are clamped or
// rejected with a message, and a kernel that overflows its stack is reported by kernel and block.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "aicore/sim/page_pool.h"
#include "aicore/sim/scheduler.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AICORE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define AICORE_TEST_SANITIZED 1
#endif
#endif

namespace aicore::sim {
namespace {

using ::testing::HasSubstr;

// The worker pool's threads do not survive fork(): every death test re-executes the binary.
#define AICORE_THREADSAFE_DEATH_TESTS() GTEST_FLAG_SET(death_test_style, "threadsafe")

Status Launch(const std::string& name, uint32_t blocks, std::function<void()> body) {
  LaunchSpec spec;
  spec.kernel_name = name;
  spec.block_dim = blocks;
  spec.body = std::move(body);
  return RunKernel(spec);
}

// Every block passes the SyncAll only once all have arrived, so all are alive at once.
Status SyncAllLaunch(uint32_t blocks, std::atomic<int64_t>* after) {
  std::atomic<int64_t> before{0};
  return Launch("sync_all_limits", blocks, [&before, after, blocks] {
    before.fetch_add(1);
    SyncAllCores(true, std::source_location::current());
    if (before.load() == blocks) after->fetch_add(1);
  });
}

// Touches `kBytes` of locals, more than a default 1 MiB fiber stack holds.
template <size_t kBytes>
__attribute__((noinline)) void DeepFrame() {
  volatile char locals[kBytes];
  for (size_t i = 0; i < kBytes; i += 4096) locals[i] = static_cast<char>(i);
  locals[kBytes - 1] = locals[0];
}

TEST(LimitsTest, SyncAllBeyondTheMappingBudgetRunsOnSlabStacks) {
  // A budget just above what the pool holds now: the later blocks get unguarded slab stacks and
  // slab local memories, and the pool never holds more mappings than the budget.
  SetMappingBudget(MappingsInUse() + 64);
  std::atomic<int64_t> after{0};
  const Status st = SyncAllLaunch(3000, &after);
  SetMappingBudget(-1);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(after.load(), 3000);
  EXPECT_LE(MappingsInUse(), MappingBudget());
}

#ifndef AICORE_TEST_SANITIZED
// Only the unsanitized build runs it (AddressSpaceExhaustionIsResourceExhausted).
[[noreturn]] void LaunchWithLimitedAddressSpace() {
  SetMappingBudget(1 << 30);  // only the address space limits
  struct rlimit lim;
  lim.rlim_cur = lim.rlim_max = size_t{4} << 30;
  setrlimit(RLIMIT_AS, &lim);
  std::atomic<int64_t> after{0};
  const Status st = SyncAllLaunch(65535, &after);
  std::fprintf(stderr, "%s\n", st.ToString().c_str());
  std::_Exit(st.code() == StatusCode::kResourceExhausted && after.load() == 0 ? 0 : 1);
}
#endif

TEST(LimitsTest, AddressSpaceExhaustionIsResourceExhausted) {
  AICORE_THREADSAFE_DEATH_TESTS();
#ifdef AICORE_TEST_SANITIZED
  GTEST_SKIP() << "RLIMIT_AS cannot be lowered under a sanitizer's shadow memory";
#else
  // Out of process: with 4 GiB of address space, 65535 blocks waiting in SyncAll cannot all get a
  // stack; the launch must end with ResourceExhausted, the waiting blocks unwound.
  EXPECT_EXIT(LaunchWithLimitedAddressSpace(), ::testing::ExitedWithCode(0),
      "ResourceExhausted: launch of sync_all_limits \\(blockDim 65535\\): cannot start AIV [0-9]+ "
      "with [0-9]+ blocks waiting \\(each holds a 1024 KiB stack and its local memory\\): "
      "cannot map [0-9]+ bytes for a (fiber stack|core's local memory)");
#endif
}

TEST(LimitsTest, SetWorkerThreadsClampsAndTheLaunchRuns) {
  SetWorkerThreads(100000);
  EXPECT_EQ(WorkerThreads(), 1024);
  std::atomic<int> ran{0};
  const Status st = Launch("clamped_threads", 8, [&] { ran.fetch_add(1); });
  SetWorkerThreads(0);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(ran.load(), 8);
}

TEST(LimitsTest, AicoreThreadsAboveTheMaximumIsClampedWithAWarning) {
  AICORE_THREADSAFE_DEATH_TESTS();
  EXPECT_EXIT(
      {
        setenv("AICORE_THREADS", "100000", 1);
        std::_Exit(WorkerThreads() == 1024 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "\\[aicore warn\\] AICORE_THREADS=100000: above the maximum 1024 \\(accepted: an integer in "
      "\\[1, 1024\\]\\); "
      "clamped to 1024");
}

TEST(LimitsTest, AicoreThreadsInvalidValuesWarnAndUseTheHostCores) {
  AICORE_THREADSAFE_DEATH_TESTS();
  for (const char* bad : {"0", "-1", "abc"}) {
    SCOPED_TRACE(bad);
    const std::string expected =
        std::string("\\[aicore warn\\] AICORE_THREADS=") + bad +
        (std::strcmp(bad, "abc") == 0 ? ": not an integer" : ": below the minimum 1");
    EXPECT_EXIT(
        {
          setenv("AICORE_THREADS", bad, 1);
          const int n = WorkerThreads();
          std::_Exit(n >= 1 && n <= 1024 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), expected);
  }
}

TEST(LimitsTest, StackSizeOutsideTheRangeIsRejected) {
  try {
    SetFiberStackKiB(16);
    FAIL() << "SetFiberStackKiB(16) was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.status().message(),
                HasSubstr("SetFiberStackKiB(16): the fiber stack size must be 0 (the default) or "
                          "in [64, 262144] KiB"));
  }
  EXPECT_EQ(FiberStackKiB(), 1024u);
}

TEST(LimitsTest, AicoreStackKbSetsTheStackAndBadValuesWarn) {
  AICORE_THREADSAFE_DEATH_TESTS();
  EXPECT_EXIT(
      {
        setenv("AICORE_STACK_KB", "4096", 1);
        std::_Exit(FiberStackKiB() == 4096 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        setenv("AICORE_STACK_KB", "lots", 1);
        std::_Exit(FiberStackKiB() == 1024 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "AICORE_STACK_KB=lots: not an integer \\(accepted: an integer in \\[64, 262144\\]\\); using "
      "the default 1024");
}

TEST(LimitsTest, ALargerStackRunsADeepKernel) {
  SetFiberStackKiB(8192);
  const Status st = Launch("deep", 2, [] { DeepFrame<(3u << 20)>(); });
  SetFiberStackKiB(0);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(LimitsDeathTest, StackOverflowNamesKernelBlockAndStackSize) {
  AICORE_THREADSAFE_DEATH_TESTS();
#ifdef AICORE_TEST_SANITIZED
  GTEST_SKIP() << "the sanitizer reports stack overflows itself";
#else
  EXPECT_EXIT(
      {
        SetWorkerThreads(1);
        (void)Launch("deep", 3, [] {
          if (CurrentCore().id().block_idx == 2) DeepFrame<(3u << 20)>();
        });
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "\\[aicore error\\] kernel stack overflow in deep block 2 \\(stack 1024 KiB; raise "
      "AICORE_STACK_KB\\)");
  EXPECT_EXIT(
      {
        SetFiberStackKiB(64);
        (void)Launch("deep64", 1, [] { DeepFrame<(256u << 10)>(); });
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "kernel stack overflow in deep64 block 0 \\(stack 64 KiB; raise AICORE_STACK_KB\\)");
#endif
}

TEST(LimitsDeathTest, StackOverflowOnAnUnguardedSlabStackIsReported) {
  AICORE_THREADSAFE_DEATH_TESTS();
#ifdef AICORE_TEST_SANITIZED
  GTEST_SKIP() << "the sanitizer reports stack overflows itself";
#else
  EXPECT_EXIT(
      {
        SetMappingBudget(0);  // every stack from a slab, guarded by its canary only
        (void)Launch("deep_slab", 1, [] { DeepFrame<(1536u << 10)>(); });
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "kernel stack overflow in deep_slab block 0 \\(stack 1024 KiB; raise AICORE_STACK_KB\\)");
#endif
}

}  // namespace
}  // namespace aicore::sim
