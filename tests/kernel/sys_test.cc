// System variables and small utilities: the raw block_idx/block_num built-ins stay per block while
// blocks share worker threads, InitSocState, the global KernelMode, tik2 as a reopenable
// namespace, the Ceil/DivCeil/AlignUp helpers against a scalar reference, securec's memcpy_s and
// memset_s, the matmul namespace, and the old set_flag/wait_flag/pipe_barrier intrinsics.
#include "aicore/kernel/sys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/kernel/ascendc/lib/matmul_intf.h"
#include "aicore/kernel/ascendc/securec.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"

// User code reopening the 2023 namespace, as old samples do.
namespace tik2 {
inline int32_t BlocksPerRepeat() { return DEFAULT_BLK_NUM; }  // an AscendC name, unqualified
}  // namespace tik2

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

aicore::Status RunMode(uint32_t blocks, aicore::KernelMode mode, std::function<void()> body) {
  aicore::LaunchOptions o;
  o.mode = mode;
  return aicore::RunKernel("sys_test", blocks, o, std::move(body));
}

class BuiltinTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { aicore::sim::SetWorkerThreads(GetParam()); }
  void TearDown() override { aicore::sim::SetWorkerThreads(0); }
};

// Each block reads the built-ins, yields at a SyncAll (other fibers run on the same thread), and
// must read its own values again.
TEST_P(BuiltinTest, BlockIdxIsPerBlockAcrossFiberSwitches) {
  constexpr uint32_t kBlocks = 9;
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> seen;
  auto st = RunMode(kBlocks, aicore::KernelMode::kAiv, [&] {
    const int64_t before = block_idx;
    EXPECT_EQ(block_num, kBlocks);
    SyncAll();
    EXPECT_EQ(block_idx, before);
    EXPECT_EQ(block_idx, GetBlockIdx());
    std::lock_guard<std::mutex> lk(mu);
    seen.emplace_back(block_idx, block_num);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::set<int64_t> ids;
  for (auto [i, n] : seen) {
    ids.insert(i);
    EXPECT_EQ(n, kBlocks);
  }
  EXPECT_EQ(ids.size(), kBlocks);
}

// __mix__(1, 2): both AIVs of a group read the group's block_idx; block_num is numBlocks.
TEST_P(BuiltinTest, MixGroupsShareBlockIdx) {
  constexpr uint32_t kGroups = 3;
  std::mutex mu;
  std::multiset<int64_t> aiv_ids, aic_ids;
  auto st = RunMode(kGroups, aicore::KernelMode::kMix, [&] {
    EXPECT_EQ(block_num, kGroups);
    SyncAll<false>();
    std::lock_guard<std::mutex> lk(mu);
    if (ASCEND_IS_AIV) {
      aiv_ids.insert(block_idx);
      EXPECT_EQ(GetBlockIdx(), block_idx * 2 + GetSubBlockIdx());
    } else {
      aic_ids.insert(block_idx);
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(aiv_ids, (std::multiset<int64_t>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(aic_ids, (std::multiset<int64_t>{0, 1, 2}));
}

INSTANTIATE_TEST_SUITE_P(Threads, BuiltinTest, ::testing::Values(1, 2, 4));

TEST(BuiltinTest, OutsideAKernelTheBuiltinsAreZero) {
  EXPECT_EQ(block_idx, 0);
  EXPECT_EQ(block_num, 0);
}

// After InitSocState a UB -> GM copy overwrites again and the vector mask is whole.
TEST(InitSocStateTest, ResetsAtomicModeAndVectorMask) {
  std::vector<float> gm(8, 1.0f);
  auto st = RunMode(1, aicore::KernelMode::kAiv, [&] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalMemAllocator<Hardware::UB> ub;
    auto t = ub.Alloc<float, 8>();
    Duplicate(t, 2.0f, 8);
    SetAtomicAdd<float>();
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 3);
    InitSocState();
    EXPECT_FALSE(detail::Core().mask_counter_mode);
    EXPECT_EQ(detail::Core().vector_mask[0], ~0ull);
    PipeBarrier<PIPE_ALL>();
    DataCopy(g, t, 8);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (float v : gm) EXPECT_EQ(v, 2.0f);  // 1 + 2 had the atomic add survived
}

TEST(KernelModeTest, GlobalEnumWithFourValuesAndSetKernelModeFromKernelOperator) {
  static_assert(static_cast<int>(KernelMode::MIX_MODE) == 0);
  static_assert(static_cast<int>(::KernelMode::MIX_AIC_1_1) == 3);
  static_assert(std::is_same_v<AscendC::KernelMode, ::KernelMode>);
  const KernelMode old = AscendC::GetKernelMode();
  AscendC::SetKernelMode(KernelMode::AIC_MODE);
  EXPECT_EQ(AscendC::GetKernelMode(), KernelMode::AIC_MODE);
  AscendC::SetKernelMode(KernelMode::MIX_AIC_1_1);  // groups of 1 AIC + 1 AIV
  EXPECT_EQ(AscendC::GetKernelMode(), KernelMode::MIX_AIC_1_1);
  try {
    AscendC::SetKernelMode(static_cast<KernelMode>(7));
    ADD_FAILURE() << "KernelMode 7 accepted";
  } catch (const aicore::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("7 is not a KernelMode"));
  }
  EXPECT_EQ(AscendC::GetKernelMode(), KernelMode::MIX_AIC_1_1);
  AscendC::SetKernelMode(old);
}

TEST(Tik2Test, IsARealNamespaceThatSeesAscendC) {
  EXPECT_EQ(tik2::BlocksPerRepeat(), 8);
  static_assert(std::is_same_v<tik2::LocalTensor<half>, AscendC::LocalTensor<half>>);
  static_assert(tik2::ONE_BLK_SIZE == 32);
}

// Scalar reference: the smallest q with q * b >= a.
int64_t RefCeil(int64_t a, int64_t b) {
  int64_t q = 0;
  while (q * b < a) ++q;
  return q;
}

TEST(ScalarHelpersTest, MatchTheReferenceIncludingMixedTypes) {
  for (int64_t a = 0; a < 200; ++a) {
    for (int64_t b = 1; b < 40; ++b) {
      ASSERT_EQ(CeilDivision(static_cast<int32_t>(a), static_cast<int32_t>(b)), RefCeil(a, b));
      ASSERT_EQ(DivCeil(static_cast<uint32_t>(a), static_cast<int32_t>(b)), RefCeil(a, b));
      ASSERT_EQ(Ceil(static_cast<size_t>(a), 0 + static_cast<int>(b)), RefCeil(a, b));
      ASSERT_EQ(AlignUp(static_cast<uint64_t>(a), static_cast<uint32_t>(b)), RefCeil(a, b) * b);
    }
  }
  EXPECT_EQ(CeilDivision(7, 0), 0);  // documented: a zero divisor gives 0
  static_assert(DivCeil(sizeof(float) * 10, 32) == 2);
  static_assert(std::is_same_v<decltype(DivCeil(uint32_t{1}, int32_t{1})), uint32_t>);
}

TEST(SecurecTest, MemcpySAndMemsetS) {
  char dst[8] = "abcdefg";
  const char src[8] = "1234567";
  EXPECT_EQ(memcpy_s(dst, sizeof(dst), src, 4), 0);
  EXPECT_EQ(std::string(dst), "1234efg");
  EXPECT_NE(memcpy_s(dst, 4, src, 8), 0);  // too long: refused, dest cleared
  EXPECT_EQ(dst[0], 0);
  EXPECT_NE(memcpy_s(dst, sizeof(dst), nullptr, 4), 0);
  EXPECT_NE(memcpy_s(dst, sizeof(dst), dst + 2, 4), 0);  // overlap
  EXPECT_EQ(memset_s(dst, sizeof(dst), 'x', 3), 0);
  EXPECT_EQ(dst[2], 'x');
  EXPECT_NE(memset_s(dst, 2, 'y', 3), 0);
  EXPECT_EQ(dst[1], 'y');
  EXPECT_EQ(dst[2], 'x');
}

TEST(MatmulNamespaceTest, ExposesTheSystemVariableHelpers) {
  std::vector<uint8_t> ws(64);
  auto st = RunMode(2, aicore::KernelMode::kAic, [&] {
    using namespace matmul;  // NOLINT: as the samples write it
    SetSysWorkspace(ws.data());
    EXPECT_EQ(GetSysWorkSpacePtr(), ws.data());
    EXPECT_EQ(GetBlockIdx(), block_idx);
    EXPECT_EQ(AscendC::GetUserWorkspace(ws.data()), ws.data() + (16 << 20));
    EXPECT_EQ(::GetSysWorkSpacePtr(), ws.data());  // samples call it without a namespace
  });
  static_assert(&::CFG_NORM == &AscendC::CFG_NORM && &::CFG_MDL == &AscendC::CFG_MDL);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(LegacyIntrinsicsTest, SetFlagWaitFlagPipeBarrier) {
  auto st = RunMode(1, aicore::KernelMode::kAiv, [&] {
    set_flag(PIPE_V, PIPE_S, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID1);
    pipe_barrier(PIPE_ALL);  // unambiguous under using namespace AscendC
    pipe_barrier<PIPE_V>();
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // never set
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("flag MTE2_V ID 0 was never set"));
}

TEST(LegacyConstantsTest, C0SizeAndKfcWorkspaceQualifier) {
  static_assert(DEFAULT_C0_SIZE == 32);
  static_assert(std::is_same_v<LoadData2dParams, LoadData2DParams>);
  auto kernel = [](__kfc_workspace__ __gm__ uint8_t* ws) { return ws; };
  uint8_t b = 0;
  EXPECT_EQ(kernel(&b), &b);
}

}  // namespace
