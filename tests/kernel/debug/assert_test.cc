// Kernel assertions (Note [Kernel assert]): a failing assert, ASSERT or ASCENDC_ASSERT ends the
// launch with the expression and message instead of aborting; Trap likewise; passing asserts and
// host-side asserts behave as the C macro.
// Release builds define NDEBUG, which turns assert off as in CANN; this test checks it on.
#undef NDEBUG

// GoogleTest includes <cassert>, which would bring the one-argument C macro back, so this test
// includes it before the kernel headers (Note [Kernel assert]).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/kernel/debug/assert.h"
#include "aicore/runtime/launch.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

aicore::Status RunAsserting(std::function<void()> body) {
  return aicore::RunKernel("assert_test", 2, aicore::LaunchOptions{}, std::move(body));
}

TEST(KernelAssertTest, MessageFormIsAKernelError) {
  auto st = RunAsserting([] {
    const int64_t n = GetBlockNum();
    assert(n > 2, "need more blocks than %ld, got %s\n", n, "two");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("assert_test AIV "));
  EXPECT_THAT(st.message(), HasSubstr("[ASSERT] assert_test.cc:"));
  EXPECT_THAT(st.message(), HasSubstr("Assertion `n > 2' failed: need more blocks than 2, got two"));
}

TEST(KernelAssertTest, OneArgumentFormsAndPassingAsserts) {
  auto st = RunAsserting([] {
    assert(GetBlockNum() == 2);
    ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");
    ASSERT(GetBlockIdx() == 0 && "only block 0");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("Assertion `GetBlockIdx() == 0 && \"only block 0\"' failed"));
  EXPECT_THAT(st.message(), HasSubstr("AIV 1"));
}

TEST(KernelAssertTest, AscendcAssertRunsItsAction) {
  int actions = 0;
  auto st = RunAsserting([&] {
    ASCENDC_ASSERT(GetBlockNum() != 0, { ++actions; });
    ASCENDC_ASSERT(GetBlockIdx() > 5, { KERNEL_LOG(KERNEL_ERROR, "idx %ld", GetBlockIdx()); });
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(actions, 0);
  EXPECT_THAT(st.message(), HasSubstr("Assertion `GetBlockIdx() > 5' failed"));
}

TEST(KernelAssertTest, TrapStopsTheKernel) {
  auto st = RunAsserting([] { Trap(); });
  EXPECT_THAT(st.message(), HasSubstr("Trap: the kernel called Trap() (at assert_test.cc:"));
}

TEST(KernelAssertDeathTest, HostAssertFailureAbortsAsTheCMacro) {
  assert(1 + 1 == 2);
  EXPECT_DEATH(assert(1 + 1 == 3, "host %d", 7), "Assertion `1 \\+ 1 == 3' failed: host 7");
}

}  // namespace
