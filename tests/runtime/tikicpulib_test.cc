// The CPU-debug compatibility path: GmAlloc/GmFree, ICPU_RUN_KF (results, errors as exceptions),
// SetKernelMode's mapping to launch modes, ICPU_SET_TILING_KEY, and the tik2 spelling.
#include "tikicpulib.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "aicore/runtime/stream.h"
#include "kernel_operator.h"
#include "tests/runtime/kernels.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using runtime_test::add_half;
using runtime_test::affine_float;
using runtime_test::read_past_end;

// Counts, per core type, how often each block index ran, and records GetBlockNum (block 0 of
// each core type writes it: blocks run concurrently, so one writer per element).
extern "C" __global__ __aicore__ void census(GM_ADDR aiv_hits, GM_ADDR aic_hits, GM_ADDR nums) {
  AscendC::GlobalTensor<int32_t> gm_hits;  // (64,)
  gm_hits.SetGlobalBuffer((__gm__ int32_t*)(ASCEND_IS_AIV ? aiv_hits : aic_hits), 64);
  gm_hits.SetValue(AscendC::GetBlockIdx(), gm_hits.GetValue(AscendC::GetBlockIdx()) + 1);
  AscendC::GlobalTensor<int32_t> gm_nums;  // (2,): block num seen by AIV, by AIC
  gm_nums.SetGlobalBuffer((__gm__ int32_t*)nums, 2);
  if (AscendC::GetBlockIdx() == 0) {
    gm_nums.SetValue(ASCEND_IS_AIV ? 0 : 1, static_cast<int32_t>(AscendC::GetBlockNum()));
  }
}

// Cube-only work: every line under ASCEND_IS_AIC (a scalar GM write stands for the cube code).
extern "C" __global__ __aicore__ void aic_only_body(GM_ADDR out) {
  if ASCEND_IS_AIC {
    AscendC::GlobalTensor<int32_t> gm_out;  // (1,)
    gm_out.SetGlobalBuffer((__gm__ int32_t*)out, 1);
    if (AscendC::GetBlockIdx() == 0) gm_out.SetValue(0, 7);  // one writer: no data race
  }
}

// Vector-only work under ASCEND_IS_AIV.
extern "C" __global__ __aicore__ void aiv_only_body(GM_ADDR out) {
  if ASCEND_IS_AIV {
    AscendC::GlobalTensor<int32_t> gm_out;  // (1,)
    gm_out.SetGlobalBuffer((__gm__ int32_t*)out, 1);
    if (AscendC::GetBlockIdx() == 0) gm_out.SetValue(0, 9);  // one writer: no data race
  }
}

// A vector kernel that leaves the AIC at once, as mix-safe vector kernels do.
extern "C" __global__ __aicore__ void aic_returns_early(GM_ADDR out) {
  if ASCEND_IS_AIC {
    return;
  }
  AscendC::GlobalTensor<int32_t> gm_out;  // (1,)
  gm_out.SetGlobalBuffer((__gm__ int32_t*)out, 1);
  if (AscendC::GetBlockIdx() == 0) gm_out.SetValue(0, 5);  // one writer: no data race
}

// Writes the tiling key branch it took.
extern "C" __global__ __aicore__ void keyed(GM_ADDR out) {
  AscendC::GlobalTensor<int32_t> gm_out;  // (1,)
  gm_out.SetGlobalBuffer((__gm__ int32_t*)out, 1);
  if (TILING_KEY_IS(1)) {
    gm_out.SetValue(0, 100);
  } else if (TILING_KEY_IS(2)) {
    gm_out.SetValue(0, 200);
  } else {
    gm_out.SetValue(0, -1);
  }
}

TEST(Tikicpulib, GmAllocIsAlignedZeroedAndTracked) {
  const size_t before = aicore::GmLiveBlocks();
  for (size_t bytes : {1u, 31u, 512u, 100000u}) {
    auto* p = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << i;
    EXPECT_EQ(aicore::GmLiveBlocks(), before + 1);
    AscendC::GmFree(p);
  }
  EXPECT_EQ(aicore::GmLiveBlocks(), before);
  int local = 0;
  try {
    AscendC::GmFree(&local);
    FAIL() << "GmFree of a foreign pointer did not throw";
  } catch (const aicore::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a live GmAlloc pointer"));
  }
  AscendC::GmFree(nullptr);  // ignored
}

TEST(Tikicpulib, IcpuRunKfComputesLikeTheScalarReference) {
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
  for (uint32_t blocks : {1u, 3u, 8u, 48u}) {
    const uint32_t n = blocks * runtime_test::kAddTile;
    auto* x = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
    auto* y = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
    auto* z = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = half(static_cast<float>(i % 300) * 0.75f);
      y[i] = half(-static_cast<float>(i % 11));
    }
    ICPU_RUN_KF(add_half, blocks, x, y, z, n);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(float(z[i]), float(half(float(x[i]) + float(y[i])))) << i;
    }
    AscendC::GmFree(x);
    AscendC::GmFree(y);
    AscendC::GmFree(z);
  }
}

// A failing ICPU_RUN_KF prints the kernel's report and ends the program with status 1, as a CANN
// CPU-mode program does (docs/errors.md); it never throws into the caller.
TEST(Tikicpulib, IcpuRunKfFailureExitsWithTheKernelsMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
  auto* x = static_cast<float*>(AscendC::GmAlloc(8 * sizeof(float)));
  EXPECT_EXIT(ICPU_RUN_KF(read_past_end, 2, x, 8u), ::testing::ExitedWithCode(1),
              "ICPU_RUN_KF\\(read_past_end, 2\\) at .*tikicpulib_test.cc:[0-9]+ failed: "
              "OutOfRange: read_past_end AIV [0-9]: GlobalTensor::GetValue");
  EXPECT_EXIT(ICPU_RUN_KF(affine_float, 0, x, 8u, 1.0f, 1.0f), ::testing::ExitedWithCode(1),
              "affine_float.*blockDim 0");
  AscendC::GmFree(x);
}

struct ModeCase {
  AscendC::KernelMode mode;
  aicore::KernelMode expected;
  int aiv_per_block;  // AIV cores per block on a split chip
  int aic_per_block;
};

TEST(Tikicpulib, SetKernelModeSelectsTheLaunchMode) {
  const ModeCase cases[] = {
      {AscendC::KernelMode::AIV_MODE, aicore::KernelMode::kAiv, 1, 0},
      {AscendC::KernelMode::AIC_MODE, aicore::KernelMode::kAic, 0, 1},
      {AscendC::KernelMode::MIX_MODE, aicore::KernelMode::kMix, 2, 1},
  };
  const bool split = aicore::arch::DefaultChip().split();
  for (const ModeCase& c : cases) {
    AscendC::SetKernelMode(c.mode);
    EXPECT_EQ(AscendC::GetKernelMode(), c.mode);
    EXPECT_EQ(AscendC::detail::IcpuOptions().mode, c.expected);
    const int blocks = 5;
    auto* aiv = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
    auto* aic = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
    auto* nums = static_cast<int32_t*>(AscendC::GmAlloc(2 * sizeof(int32_t)));
    ICPU_RUN_KF(census, blocks, aiv, aic, nums);
    const int aiv_cores = split ? blocks * c.aiv_per_block : blocks;
    const int aic_cores = split ? blocks * c.aic_per_block : 0;
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(aiv[i], i < aiv_cores ? 1 : 0) << "AIV " << i << " mode " << int(c.mode);
      EXPECT_EQ(aic[i], i < aic_cores ? 1 : 0) << "AIC " << i << " mode " << int(c.mode);
    }
    if (aiv_cores > 0) {
      EXPECT_EQ(nums[0], aiv_cores);
    }
    if (aic_cores > 0) {
      EXPECT_EQ(nums[1], aic_cores);
    }
    AscendC::GmFree(aiv);
    AscendC::GmFree(aic);
    AscendC::GmFree(nums);
  }
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
}

// Launches without explicit options (aicore::Launch, ACLRT_LAUNCH_KERNEL) follow SetKernelMode.
TEST(Tikicpulib, SetKernelModeAlsoSetsTheDefaultLaunchOptions) {
  const bool split = aicore::arch::DefaultChip().split();
  AscendC::SetKernelMode(AscendC::KernelMode::MIX_MODE);
  EXPECT_EQ(aicore::DefaultLaunchOptions().mode, aicore::KernelMode::kMix);
  auto* aiv = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
  auto* aic = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
  auto* nums = static_cast<int32_t*>(AscendC::GmAlloc(2 * sizeof(int32_t)));
  ASSERT_TRUE(aicore::Launch(census, 3, nullptr, aiv, aic, nums).ok());
  ASSERT_TRUE(aicore::rt::StreamSynchronize(nullptr).ok());
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(aiv[i], i < (split ? 6 : 3) ? 1 : 0) << i;
    EXPECT_EQ(aic[i], i < (split ? 3 : 0) ? 1 : 0) << i;
  }
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
  EXPECT_EQ(aicore::DefaultLaunchOptions().mode, aicore::KernelMode::kAiv);
  AscendC::GmFree(aiv);
  AscendC::GmFree(aic);
  AscendC::GmFree(nums);
}

// Without SetKernelMode, ICPU_RUN_KF runs CANN's default MIX_MODE (1 AIC + 2 AIVs per block);
// launches that name no mode elsewhere (aicore::Launch, ACLRT_LAUNCH_KERNEL) stay AIV only.
TEST(Tikicpulib, DefaultKernelModeIsMixForIcpuRunKf) {
  AscendC::detail::ResetKernelMode();
  EXPECT_FALSE(AscendC::detail::KernelModeWasSet());
  EXPECT_EQ(AscendC::GetKernelMode(), KernelMode::MIX_MODE);
  EXPECT_EQ(AscendC::detail::IcpuOptions().mode, aicore::KernelMode::kMix);
  EXPECT_EQ(aicore::DefaultLaunchOptions().mode, aicore::KernelMode::kAiv);
  const bool split = aicore::arch::DefaultChip().split();
  auto* aiv = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
  auto* aic = static_cast<int32_t*>(AscendC::GmAlloc(64 * sizeof(int32_t)));
  auto* nums = static_cast<int32_t*>(AscendC::GmAlloc(2 * sizeof(int32_t)));
  ICPU_RUN_KF(census, 4, aiv, aic, nums);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(aiv[i], i < (split ? 8 : 4) ? 1 : 0) << i;
    EXPECT_EQ(aic[i], i < (split ? 4 : 0) ? 1 : 0) << i;
  }
  AscendC::GmFree(aiv);
  AscendC::GmFree(aic);
  AscendC::GmFree(nums);
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
}

// A vector kernel launched by ICPU_RUN_KF without SetKernelMode(AIV_MODE) runs on the AICs too,
// where its UB queue fails; the report names the default and the call that fixes it.
TEST(Tikicpulib, VectorKernelUnderTheDefaultMixModeFailsWithTheFix) {
  if (!aicore::arch::DefaultChip().split()) GTEST_SKIP() << "coupled chip: every core has UB";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const uint32_t n = 2 * runtime_test::kAddTile;
  auto* x = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
  auto* y = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
  auto* z = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
  EXPECT_EXIT(
      {
        AscendC::detail::ResetKernelMode();
        ICPU_RUN_KF(add_half, 1, x, y, z, n);
      },
      ::testing::ExitedWithCode(1),
      "add_half AIC 0: .*AllocTensor.*kernel type: mix 1:2, from ICPU_RUN_KF's default "
      "MIX_MODE.*SetKernelMode\\(KernelMode::AIV_MODE\\)");
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
}

aicore::Status RunAs(aicore::KernelMode mode, void (*kernel)(GM_ADDR), int32_t* out) {
  aicore::LaunchOptions options;
  options.mode = mode;
  options.launch_type = "the test";
  return aicore::LaunchSync("guarded", kernel, 2, options, out);
}

// A body that is all `if ASCEND_IS_AIC` launched AIV only would do nothing and succeed; it fails
// and says why. The same for `if ASCEND_IS_AIV` on AIC only. Right launches are untouched.
TEST(Tikicpulib, GuardedBodyOnTheWrongCoreTypeFails) {
  if (!aicore::arch::DefaultChip().split()) GTEST_SKIP() << "coupled chip: both guards hold";
  auto* out = static_cast<int32_t*>(AscendC::GmAlloc(sizeof(int32_t)));
  aicore::Status st = RunAs(aicore::KernelMode::kAiv, aic_only_body, out);
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), AllOf(HasSubstr("kernel guarded: the launch ran on AIV cores only, "
                                            "from the test"),
                                  HasSubstr("under `if ASCEND_IS_AIC` (cube work) never ran"),
                                  HasSubstr("__cube__")));
  EXPECT_EQ(out[0], 0);
  st = RunAs(aicore::KernelMode::kAic, aiv_only_body, out);
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), AllOf(HasSubstr("ran on AIC cores only"),
                                  HasSubstr("under `if ASCEND_IS_AIV` (vector work) never ran")));
  EXPECT_EQ(out[0], 0);

  EXPECT_TRUE(RunAs(aicore::KernelMode::kAic, aic_only_body, out).ok());
  EXPECT_EQ(out[0], 7);
  EXPECT_TRUE(RunAs(aicore::KernelMode::kMix, aiv_only_body, out).ok());
  EXPECT_EQ(out[0], 9);
  EXPECT_TRUE(RunAs(aicore::KernelMode::kAiv, aic_returns_early, out).ok());
  EXPECT_EQ(out[0], 5);
  AscendC::GmFree(out);
}

// Vector APIs on an AIC (a vector kernel launched AIC only) fail naming the core and the API.
TEST(Tikicpulib, VectorKernelOnAnAicFailsClearly) {
  if (!aicore::arch::DefaultChip().split()) GTEST_SKIP() << "coupled chip: every core has UB";
  const uint32_t n = runtime_test::kAddTile;
  auto* x = static_cast<half*>(AscendC::GmAlloc(n * sizeof(half)));
  aicore::LaunchOptions options;
  options.mode = aicore::KernelMode::kAic;
  const aicore::Status st = aicore::LaunchSync("add_half", add_half, 1, options, x, x, x, n);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("add_half AIC 0"), HasSubstr("AllocTensor"),
                                  HasSubstr("AIV")));
  AscendC::GmFree(x);
}

TEST(Tikicpulib, TilingKeySelectsTheBranch) {
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
  auto* out = static_cast<int32_t*>(AscendC::GmAlloc(sizeof(int32_t)));
  ICPU_SET_TILING_KEY(2);
  ICPU_RUN_KF(keyed, 1, out);
  EXPECT_EQ(out[0], 200);
  ICPU_SET_TILING_KEY(1);
  ICPU_RUN_KF(keyed, 1, out);
  EXPECT_EQ(out[0], 100);
  ICPU_SET_TILING_KEY(7);
  ICPU_RUN_KF(keyed, 1, out);
  EXPECT_EQ(out[0], -1);
  ICPU_SET_TILING_KEY(0);
  AscendC::GmFree(out);
}

TEST(Tikicpulib, Tik2NamesAreTheSameFunctions) {
  void* p = tik2::GmAlloc(64);
  EXPECT_NE(p, nullptr);
  tik2::GmFree(p);
#if !defined(__CCE_KT_TEST__) || !defined(ASCENDC_CPU_DEBUG)
  FAIL() << "aicore::aicore must define __CCE_KT_TEST__ and ASCENDC_CPU_DEBUG for host programs";
#endif
}

}  // namespace
