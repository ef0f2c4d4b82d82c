// GatherMask (built-in and user patterns, normal and counter mode, strides, in place) and Gatherb
// against the byte-level references in tests/reference/gather_mask_ref.h, for every documented
// dtype, plus the error cases.
#include "aicore/kernel/vector/gather_mask.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/gather_mask_ref.h"

namespace {

using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

std::vector<uint8_t> RandomBytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

template <typename T>
class GatherMaskTest : public ::testing::Test {};
using GatherMaskTypes =
    ::testing::Types<aicore::half, aicore::bfloat16, float, int16_t, uint16_t, int32_t, uint32_t>;
TYPED_TEST_SUITE(GatherMaskTest, GatherMaskTypes);

TYPED_TEST(GatherMaskTest, MatchesReference) {
  using T = TypeParam;
  using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(41);
  int cases = 0;
  for (int trial = 0; trial < 64; ++trial) {
    aicore::ref::GatherMaskArgs a;
    a.esize = sizeof(T);
    a.pattern = static_cast<uint8_t>(trial % 8);  // 0: user pattern
    a.counter = trial % 3 == 1;
    a.mask = a.counter ? 1 + rng() % kPer : 0;
    if (trial % 11 == 0) a.mask = a.counter ? kPer : 0;
    a.repeats = 1 + trial % 7;
    a.src0_blk = trial % 5 == 4 ? 0 : 1 + trial % 2;
    a.src0_rep = (trial % 4) * 4 + (a.src0_blk == 0 ? 1 : 8 * a.src0_blk);
    a.src1_rep = trial % 2 == 0 ? 0 : 1 + trial % 3;
    const bool in_place = trial % 9 == 0 && a.src0_blk == 1 && a.src0_rep == 8;
    const uint64_t src_bytes = uint64_t{a.repeats} * a.src0_rep * 32 + 8 * 32 * 3;
    const uint64_t pat_bytes = uint64_t{a.repeats} * a.src1_rep * 32 + 32;
    const std::vector<uint8_t> src = RandomBytes(src_bytes, rng);
    const std::vector<uint8_t> pat = RandomBytes(pat_bytes, rng);
    a.user_bits = pat.data();
    const std::vector<uint8_t> want = aicore::ref::GatherMask(src.data(), a);
    std::vector<uint8_t> got;
    uint64_t cnt = 0;
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Get<T>(static_cast<uint32_t>(src_bytes / sizeof(T)));
      std::memcpy(s.data(), src.data(), src_bytes);
      auto p = ub.Get<U>(static_cast<uint32_t>(pat_bytes / sizeof(U)));
      std::memcpy(p.data(), pat.data(), pat_bytes);
      auto d = in_place ? s : ub.Get<T>(a.repeats * kPer);
      const AscendC::GatherMaskParams params(
          static_cast<uint8_t>(a.src0_blk), static_cast<uint16_t>(a.repeats),
          static_cast<uint16_t>(a.src0_rep), static_cast<uint8_t>(a.src1_rep));
      if (a.pattern == 0) {
        AscendC::GatherMask(d, s, p, a.counter, a.mask, params, cnt);
      } else {
        AscendC::GatherMask(d, s, a.pattern, a.counter, a.mask, params, cnt);
      }
      got.resize(cnt * sizeof(T));
      std::memcpy(got.data(), d.data(), got.size());
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(cnt * sizeof(T), want.size()) << "trial " << trial;
    EXPECT_TRUE(got == want) << "trial " << trial << " pattern " << int(a.pattern);
    ++cases;
  }
  EXPECT_EQ(cases, 64);
}

// The docs' example: pattern 2 over 4 repeats of 64 floats in place keeps the odd elements.
TEST(GatherMask, DocsExampleOddElementsInPlace) {
  std::vector<float> got;
  uint64_t cnt = 0;
  auto st = RunOnUb([&](UbArena& ub) {
    auto s = ub.Get<float>(256);
    for (int i = 0; i < 256; ++i) s.SetValue(i, float(i + 1));
    AscendC::GatherMask(s, s, uint8_t{2}, false, 0, {1, 4, 8, 0}, cnt);
    got.assign(s.data(), s.data() + 128);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(cnt, 128u);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(got[i], float(2 * i + 2)) << i;
}

TEST(GatherMask, LeavesNormalMaskMode) {
  auto st = RunOnUb([&](UbArena& ub) {
    auto s = ub.Get<float>(64);
    auto d = ub.Get<float>(64);
    uint64_t cnt = 0;
    AscendC::SetMaskCount();
    AscendC::GatherMask(d, s, uint8_t{7}, true, 10, {1, 1, 8, 0}, cnt);
    EXPECT_EQ(cnt, 10u);
    EXPECT_FALSE(aicore::sim::CurrentCore().mask_counter_mode);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

std::string ErrorOf(const std::function<void(UbArena&)>& body) {
  auto st = RunOnUb(body);
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(GatherMaskErrors, Messages) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<float>(64);
                uint64_t c;
                AscendC::GatherMask(s, s, uint8_t{8}, false, 0, {1, 1, 8, 0}, c);
              }),
              HasSubstr("GatherMask: src1Pattern 8 is not a built-in pattern (1-7)"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<float>(64);
                uint64_t c;
                AscendC::GatherMask(s, s, uint8_t{1}, true, 65, {1, 1, 8, 0}, c);
              }),
              HasSubstr("mask 65 is outside [1, 64]"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<float>(64);
                uint64_t c;
                AscendC::GatherMask(s, s, uint8_t{1}, false, 0, {1, 2, 8, 0}, c);
              }),
              HasSubstr("src0: 2 repeats of 64 elements"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<float>(128);
                auto p = ub.Get<uint32_t>(2);
                uint64_t c;
                AscendC::GatherMask(s, s, p, false, 0, {1, 2, 8, 1}, c);
              }),
              HasSubstr("src1Pattern: 2 repeats of 64 bits with src1RepeatStride 1 read 40 B"));
}

// ---- Gatherb ----

template <typename T>
class GatherbTest : public ::testing::Test {};
using GatherbTypes = ::testing::Types<uint16_t, uint32_t>;
TYPED_TEST_SUITE(GatherbTest, GatherbTypes);

TYPED_TEST(GatherbTest, MatchesReference) {
  using T = TypeParam;
  std::mt19937 rng(43);
  for (int trial = 0; trial < 24; ++trial) {
    const uint32_t repeats = trial == 0 ? 0 : 1 + trial % 9;
    const uint32_t blk = trial % 4;  // 0 counts as 1
    const uint32_t rep = (blk == 0 ? 8 : 8 * blk) + trial % 3;
    const uint32_t src_blocks = 40;
    const std::vector<uint8_t> src = RandomBytes(src_blocks * 32, rng);
    std::vector<uint32_t> off(repeats * 8 + 8);
    for (auto& o : off) o = static_cast<uint32_t>(rng() % src_blocks) * 32;
    const uint64_t dst_bytes = (uint64_t{repeats} * rep + 8 * std::max(blk, 1u)) * 32 + 64;
    std::vector<uint8_t> want(dst_bytes, 0xab);
    aicore::ref::Gatherb(want.data(), src.data(), off.data(), repeats, blk, rep);
    std::vector<uint8_t> got(dst_bytes);
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Get<T>(static_cast<uint32_t>(src.size() / sizeof(T)));
      std::memcpy(s.data(), src.data(), src.size());
      auto o = ub.Load(off);
      auto d = ub.Get<T>(static_cast<uint32_t>(dst_bytes / sizeof(T)));
      std::memset(d.data(), 0xab, dst_bytes);
      AscendC::Gatherb(
          d, s, o, static_cast<uint8_t>(repeats),
          AscendC::GatherRepeatParams(static_cast<uint16_t>(blk), static_cast<uint16_t>(rep)));
      std::memcpy(got.data(), d.data(), dst_bytes);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(got == want) << "trial " << trial;
  }
}

TEST(GatherbErrors, Messages) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<uint16_t>(128);
                auto d = ub.Get<uint16_t>(128);
                auto o = ub.Get<uint32_t>(8);
                for (int i = 0; i < 8; ++i) o.SetValue(i, i == 3 ? 17u : 0u);
                AscendC::Gatherb(d, s, o, 1, {1, 8});
              }),
              HasSubstr("Gatherb: offset[3] = 17 bytes is not 32-byte aligned"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<uint16_t>(128);
                auto d = ub.Get<uint16_t>(128);
                auto o = ub.Get<uint32_t>(8);
                for (int i = 0; i < 8; ++i) o.SetValue(i, 0u);
                AscendC::Gatherb(d, s, o, 2, {1, 8});
              }),
              HasSubstr("offset holds 8 elements but 2 repeats read 16"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<uint16_t>(128);
                auto o = ub.Get<uint32_t>(8);
                for (int i = 0; i < 8; ++i) o.SetValue(i, 0u);
                AscendC::Gatherb(s, s, o, 1, {1, 8});
              }),
              HasSubstr("dst and src are the same memory"));
}

}  // namespace
