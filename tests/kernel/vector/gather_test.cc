// Gather against tests/reference/gather_ref.h: random byte offsets, base addresses, lengths and
// element types, and the out-of-range and misaligned offset errors.
#include "aicore/kernel/vector/gather.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/gather_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class GatherTest : public ::testing::Test {};
using GatherTypes =
    ::testing::Types<aicore::half, float, int16_t, uint16_t, int32_t, uint32_t, aicore::bfloat16>;
TYPED_TEST_SUITE(GatherTest, GatherTypes);

TYPED_TEST(GatherTest, MatchesReference) {
  using T = TypeParam;
  std::mt19937 rng(17);
  for (uint32_t count : {1u, 2u, 15u, 16u, 63u, 64u, 65u, 129u, 1000u, 4097u}) {
    for (uint32_t base : {0u, 32u, 4u * static_cast<uint32_t>(sizeof(T))}) {
      const uint32_t src_n = 3000;
      std::vector<T> src = RandomValues<T>(src_n, count + base, 1000);
      std::vector<uint32_t> off(count);
      for (auto& o : off) o = (rng() % (src_n - base / sizeof(T))) * sizeof(T);
      std::vector<T> got;
      auto st = RunOnUb([&](UbArena& ub) {
        auto s = ub.Load(src);
        auto o = ub.Load(off);
        auto d = ub.Get<T>(count);
        AscendC::Gather(d, s, o, base, count);
        got = FromTensor(d, count);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto want = aicore::ref::Gather(src, off, base, count);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), count * sizeof(T)), 0)
          << "count " << count << " base " << base;
    }
  }
}

TYPED_TEST(GatherTest, MaskFormMatchesReference) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 12; ++trial) {
    const uint8_t repeat = 1 + trial % 4;
    const uint16_t dst_rep = 8 + 2 * (trial % 3);
    uint64_t mask[2] = {rng() | 1, kPer > 64 ? rng() : 0};
    const uint32_t src_n = 2048;
    std::vector<T> src = RandomValues<T>(src_n, trial, 1000);
    std::vector<uint32_t> off(repeat * kPer);
    for (auto& o : off) o = (rng() % src_n) * sizeof(T);
    const size_t dst_n = (repeat - 1) * dst_rep * 32 / sizeof(T) + kPer;
    std::vector<T> dst0(dst_n, static_cast<T>(3));
    std::vector<T> got;
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Load(src);
      auto o = ub.Load(off);
      auto d = ub.Load(dst0);
      if (trial % 2 == 0) {
        AscendC::Gather(d, s, o, 0, mask, repeat, dst_rep);
      } else {
        AscendC::Gather(d, s, o, 0, uint64_t{kPer - 3}, repeat, dst_rep);
      }
      got = FromTensor(d, dst_n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    std::vector<T> want = dst0;
    for (uint32_t r = 0; r < repeat; ++r) {
      for (uint32_t e = 0; e < kPer; ++e) {
        const bool active = trial % 2 == 0 ? ((mask[e / 64] >> (e % 64)) & 1) != 0 : e < kPer - 3;
        if (active) want[r * dst_rep * 32 / sizeof(T) + e] = src[off[r * kPer + e] / sizeof(T)];
      }
    }
    EXPECT_EQ(std::memcmp(got.data(), want.data(), dst_n * sizeof(T)), 0) << "trial " << trial;
  }
}

TEST(GatherErrors, OffsetOutsideSourceNamesIndexAndOffset) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(64);
    auto o = ub.Load(std::vector<uint32_t>{0, 4, 8, 256, 12});
    auto d = ub.Get<float>(8);
    AscendC::Gather(d, s, o, 0, 5);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("Gather"), HasSubstr("srcOffset[3] = 256"),
                                  HasSubstr("outside src"), HasSubstr("256 bytes")));
}

TEST(GatherErrors, MisalignedOffsetAndBase) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(64);
    auto o = ub.Load(std::vector<uint32_t>{0, 6});
    auto d = ub.Get<float>(8);
    AscendC::Gather(d, s, o, 0, 2);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("srcOffset[1] = 6"), HasSubstr("element size 4")));
  st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(64);
    auto o = ub.Load(std::vector<uint32_t>{0, 4});
    auto d = ub.Get<float>(8);
    AscendC::Gather(d, s, o, 252, 2);  // 252 + 4 = 256: one past the end
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("srcOffset[1] = 4"), HasSubstr("srcBaseAddr 252")));
}

TEST(GatherErrors, CountPastDestination) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(64);
    auto o = ub.Get<uint32_t>(64);
    auto d = ub.Get<float>(8);
    AscendC::Gather(d, s, o, 0, 9);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("count 9"));
}

TEST(GatherErrors, MaskFormOffsetOutsideSource) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<float>(64);
    std::vector<uint32_t> off(128, 0);
    off[64 + 5] = 1024;
    auto o = ub.Load(off);
    auto d = ub.Get<float>(128);
    AscendC::Gather(d, s, o, 0, uint64_t{64}, 2, 8);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("srcOffset[69] = 1024"), HasSubstr("outside src")));
}

}  // namespace
