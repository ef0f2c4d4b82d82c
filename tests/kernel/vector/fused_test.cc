// MulAddDst, FusedMulAdd, MulAddRelu (count and level-0 forms, half, float, and MulAddDst's
// half -> float form), AbsSub and Prelu against tests/reference/fused_ref.h. Inputs lie on a grid
// where every result is exact, so any swapped operand shows as a mismatch.
#include "aicore/kernel/vector/fused.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/fused_ref.h"
#include "tests/reference/vector_ref.h"

namespace {

using aicore::ref::Fused;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T, typename U>
void Call(Fused k, const AscendC::LocalTensor<T>& d, const AscendC::LocalTensor<U>& a,
          const AscendC::LocalTensor<U>& b, int32_t n) {
  switch (k) {
    case Fused::kMulAddDst:
      AscendC::MulAddDst(d, a, b, n);
      break;
    case Fused::kFusedMulAdd:
      AscendC::FusedMulAdd(d, a, b, n);
      break;
    case Fused::kMulAddRelu:
      AscendC::MulAddRelu(d, a, b, n);
      break;
    case Fused::kAbsSub:
    case Fused::kPrelu:
      if constexpr (std::is_same_v<T, U>) {
        if (k == Fused::kAbsSub) AscendC::AbsSub(d, a, b, static_cast<uint32_t>(n));
        if (k == Fused::kPrelu) AscendC::Prelu(d, a, b, static_cast<uint32_t>(n));
      }
      break;
  }
}

template <typename T, typename U>
void CheckCount() {
  const int range = sizeof(T) == 2 ? 8 : 500;  // keeps every half result exact
  for (Fused k : {Fused::kMulAddDst, Fused::kFusedMulAdd, Fused::kMulAddRelu, Fused::kAbsSub,
                  Fused::kPrelu}) {
    if (!std::is_same_v<T, U> && k != Fused::kMulAddDst) continue;
    for (int n : {0, 1, 15, 64, 129, 1000, 4099}) {
      const auto a = RandomValues<U>(n + 1, 3 * n + 1, range);
      const auto b = RandomValues<U>(n + 1, 3 * n + 2, range);
      const auto d0 = RandomValues<T>(n + 1, 3 * n + 3, range);
      std::vector<T> got;
      auto st = RunOnUb([&](UbArena& ub) {
        auto ta = ub.Load(a), tb = ub.Load(b);
        auto td = ub.Load(d0);
        Call(k, td, ta, tb, n);
        got.assign(td.data(), td.data() + n + 1);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (int i = 0; i <= n; ++i) {
        const double want =
            i == n ? static_cast<float>(d0[i])
                   : aicore::ref::FusedResult(k, static_cast<float>(a[i]), static_cast<float>(b[i]),
                                              static_cast<float>(d0[i]));
        EXPECT_EQ(static_cast<float>(got[i]), static_cast<float>(want))
            << "op " << int(k) << " n " << n << " i " << i;
      }
    }
  }
}

TEST(FusedCount, Half) { CheckCount<aicore::half, aicore::half>(); }
TEST(FusedCount, Float) { CheckCount<float, float>(); }
TEST(FusedCount, HalfToFloatMulAddDst) { CheckCount<float, aicore::half>(); }

template <typename T, typename U>
void CheckLevel0() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  const int range = sizeof(T) == 2 ? 8 : 500;
  std::mt19937_64 rng(9);
  struct Case {
    bool cont;
    uint32_t len;
    uint8_t repeat;
    AscendC::BinaryRepeatParams p;
  };
  const std::vector<Case> cases = {
      {true, kPer, 3, AscendC::BinaryRepeatParams()},
      {false, 0, 5, AscendC::BinaryRepeatParams(2, 1, 1, 16, 8, 9)},
      {true, kPer - 3, 4, AscendC::BinaryRepeatParams(1, 2, 1, 8, 17, 8)},
      {true, 5, 20, AscendC::BinaryRepeatParams(1, 1, 1, 1, 1, 0)},
  };
  for (Fused k : {Fused::kMulAddDst, Fused::kFusedMulAdd, Fused::kMulAddRelu}) {
    if (!std::is_same_v<T, U> && k != Fused::kMulAddDst) continue;
    for (const Case& c : cases) {
      const uint64_t hi = sizeof(T) == 2 ? rng() : 0, lo = rng() | 1;
      const auto m = c.cont ? aicore::ref::ContinuousMask(c.len) : aicore::ref::BitMask(hi, lo);
      const aicore::ref::Level0Operand od{sizeof(T), c.p.dstBlkStride, c.p.dstRepStride};
      const aicore::ref::Level0Operand o0{sizeof(U), c.p.src0BlkStride, c.p.src0RepStride};
      const aicore::ref::Level0Operand o1{sizeof(U), c.p.src1BlkStride, c.p.src1RepStride};
      const uint64_t nd = aicore::ref::Level0Extent(od, m, kPer, c.repeat) / sizeof(T);
      const uint64_t n0 = aicore::ref::Level0Extent(o0, m, kPer, c.repeat) / sizeof(U);
      const uint64_t n1 = aicore::ref::Level0Extent(o1, m, kPer, c.repeat) / sizeof(U);
      const auto a = RandomValues<U>(n0, 11 + c.repeat, range);
      const auto b = RandomValues<U>(n1, 12 + c.repeat, range);
      const auto d0 = RandomValues<T>(nd, 13 + c.repeat, range);
      std::vector<double> want(d0.begin(), d0.end());
      // Overlapping dst elements (repStride 1) are updated in execution order, as the kernel does.
      std::vector<T> cur = d0;
      aicore::ref::Level0ForEach(m, kPer, c.repeat, [&](uint32_t r, uint32_t e) {
        const uint64_t id = aicore::ref::Level0Offset(od, r, e) / sizeof(T);
        const double v = aicore::ref::FusedResult(
            k, static_cast<float>(a[aicore::ref::Level0Offset(o0, r, e) / sizeof(U)]),
            static_cast<float>(b[aicore::ref::Level0Offset(o1, r, e) / sizeof(U)]),
            static_cast<float>(cur[id]));
        cur[id] = static_cast<T>(static_cast<float>(v));
      });
      std::vector<T> got;
      auto st = RunOnUb([&](UbArena& ub) {
        auto ta = ub.Load(a), tb = ub.Load(b);
        auto td = ub.Load(d0);
        const uint64_t mask[2] = {lo, hi};
        if (c.cont) {
          const uint64_t len = c.len;
          if (k == Fused::kMulAddDst) AscendC::MulAddDst(td, ta, tb, len, c.repeat, c.p);
          if (k == Fused::kFusedMulAdd) AscendC::FusedMulAdd(td, ta, tb, len, c.repeat, c.p);
          if (k == Fused::kMulAddRelu) AscendC::MulAddRelu(td, ta, tb, len, c.repeat, c.p);
        } else {
          if (k == Fused::kMulAddDst) AscendC::MulAddDst(td, ta, tb, mask, c.repeat, c.p);
          if (k == Fused::kFusedMulAdd) AscendC::FusedMulAdd(td, ta, tb, mask, c.repeat, c.p);
          if (k == Fused::kMulAddRelu) AscendC::MulAddRelu(td, ta, tb, mask, c.repeat, c.p);
        }
        got.assign(td.data(), td.data() + nd);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (uint64_t i = 0; i < nd; ++i) {
        EXPECT_EQ(static_cast<float>(got[i]), static_cast<float>(cur[i]))
            << "op " << int(k) << " repeat " << int(c.repeat) << " i " << i;
      }
    }
  }
}

TEST(FusedLevel0, Half) { CheckLevel0<aicore::half, aicore::half>(); }
TEST(FusedLevel0, Float) { CheckLevel0<float, float>(); }
TEST(FusedLevel0, HalfToFloatMulAddDst) { CheckLevel0<float, aicore::half>(); }

TEST(FusedRounding, HalfResultsRoundOnce) {
  // 1 + 2^-11 + 2^-24 is just above the tie between 1 and 1 + 2^-10: it must round up; a float
  // step first would land on the tie and round to even (1).
  const double r = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -24);
  EXPECT_EQ(static_cast<float>(AscendC::detail::RoundToHalf(r)), 1.0f + std::ldexp(1.0f, -10));
}

TEST(FusedErrors, Messages) {
  auto st = RunOnUb([](UbArena& ub) {
    auto a = ub.Get<float>(64), d = ub.Get<float>(32);
    AscendC::MulAddDst(d, a, a, 64);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("MulAddDst: count 64 is outside [0, 32]"));
  st = RunOnUb([](UbArena& ub) {
    auto a = ub.Get<float>(64), d = ub.Get<float>(64);
    AscendC::FusedMulAdd(d, a, a, uint64_t{64}, 2, AscendC::BinaryRepeatParams());
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("FusedMulAdd: dst: 2 repeats"));
}

}  // namespace
