// Scatter (count and level-0 forms) against tests/reference/gather_mask_ref.h with random
// permutations of offsets, for 16- and 32-bit types; and its errors (alignment, range, repeats).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "aicore/kernel/vector/gather.h"
#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/gather_mask_ref.h"

namespace {

using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class ScatterTest : public ::testing::Test {};
using ScatterTypes = ::testing::Types<aicore::half, float, uint16_t, int32_t, uint32_t, int16_t>;
TYPED_TEST_SUITE(ScatterTest, ScatterTypes);

TYPED_TEST(ScatterTest, MatchesReference) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(61);
  for (int trial = 0; trial < 16; ++trial) {
    const bool level0 = trial % 2 == 1;
    const uint32_t repeats = 1 + trial % 5;
    const uint32_t src_rep = 8 + trial % 3;
    const uint32_t count = level0 ? repeats * kPer : 1 + rng() % 700;
    const uint32_t base = (trial % 3) * 32;
    const uint32_t dst_n = count + 64 + base / sizeof(T);
    std::vector<uint32_t> slots(dst_n - base / sizeof(T));
    std::iota(slots.begin(), slots.end(), 0u);
    std::shuffle(slots.begin(), slots.end(), rng);
    std::vector<uint32_t> off(count);
    for (uint32_t k = 0; k < count; ++k) off[k] = slots[k] * sizeof(T);
    const uint64_t src_bytes = level0 ? uint64_t{repeats} * src_rep * 32 + 256 : count * sizeof(T);
    std::vector<uint8_t> src(src_bytes), dst0(dst_n * sizeof(T));
    for (auto& x : src) x = static_cast<uint8_t>(rng());
    for (auto& x : dst0) x = static_cast<uint8_t>(rng());
    const uint64_t lo = rng() | 1, hi = sizeof(T) == 2 ? rng() : 0;
    // The reference: which element goes where.
    std::vector<const uint8_t*> elems;
    std::vector<uint32_t> used;
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t r = k / kPer, e = k % kPer;
      const bool on = !level0 || (e < 64 ? (lo >> e) & 1 : (hi >> (e - 64)) & 1);
      if (!on) continue;
      elems.push_back(src.data() + (level0 ? uint64_t{r} * src_rep * 32 + e * sizeof(T)
                                           : uint64_t{k} * sizeof(T)));
      used.push_back(off[k]);
    }
    std::vector<uint8_t> want = dst0;
    aicore::ref::Scatter(want.data(), elems, used, base, sizeof(T));
    std::vector<uint8_t> got(want.size());
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Get<T>(static_cast<uint32_t>(src_bytes / sizeof(T) + 1));
      std::memcpy(s.data(), src.data(), src_bytes);
      auto d = ub.Get<T>(dst_n);
      std::memcpy(d.data(), dst0.data(), dst0.size());
      auto o = ub.Load(off);
      if (level0) {
        const uint64_t mask[2] = {lo, hi};
        AscendC::Scatter(d, s, o, base, mask, static_cast<uint8_t>(repeats),
                         static_cast<uint8_t>(src_rep));
      } else {
        AscendC::Scatter(d, s, o, base, count);
      }
      std::memcpy(got.data(), d.data(), got.size());
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(got == want) << "trial " << trial;
  }
}

std::string ErrorOf(const std::function<void(UbArena&)>& body) {
  auto st = RunOnUb(body);
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(ScatterErrors, Messages) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto d = ub.Get<float>(64), s = ub.Get<float>(64);
                auto o = ub.Get<uint32_t>(8);
                for (int i = 0; i < 8; ++i) o.SetValue(i, uint32_t(i * 4 + (i == 5 ? 2 : 0)));
                AscendC::Scatter(d, s, o, 0, 8);
              }),
              HasSubstr("Scatter: dstOffset[5] = 22 bytes (+ dstBaseAddr 0) is not a multiple"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto d = ub.Get<float>(64), s = ub.Get<float>(64);
                auto o = ub.Get<uint32_t>(8);
                for (int i = 0; i < 8; ++i) o.SetValue(i, uint32_t(i == 6 ? 8 : i * 4));
                AscendC::Scatter(d, s, o, 0, 8);
              }),
              HasSubstr("dstOffset[2] and dstOffset[6] both name dst byte 8"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto d = ub.Get<float>(64), s = ub.Get<float>(64);
                auto o = ub.Get<uint32_t>(8);
                for (int i = 0; i < 8; ++i) o.SetValue(i, uint32_t(i * 4));
                AscendC::Scatter(d, s, o, 256, 8);
              }),
              HasSubstr("is outside dst, which holds 256 bytes"));
}

}  // namespace
