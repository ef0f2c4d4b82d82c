// Copy, the masked level-0 UB -> UB copy with CopyRepeatParams: bit and continuous masks, block
// and repeat strides, counter mode (elements per repeat, repeatTime applies), every documented
// dtype, against tests/reference/gather_mask_ref.h; and its errors.
#include "aicore/kernel/copy/ub_to_ub.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/gather_mask_ref.h"

namespace {

using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class CopyTest : public ::testing::Test {};
using CopyTypes =
    ::testing::Types<aicore::half, aicore::bfloat16, float, int16_t, uint16_t, int32_t, uint32_t>;
TYPED_TEST_SUITE(CopyTest, CopyTypes);

TYPED_TEST(CopyTest, MatchesReference) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937_64 rng(47);
  for (int trial = 0; trial < 40; ++trial) {
    const int form = trial % 4;  // 0 bit mask, 1 continuous, 2 counter, 3 isSetMask = false
    const uint32_t repeats = trial == 0 ? 0 : 1 + trial % 13;
    const uint32_t dst_blk = 1 + trial % 3, src_blk = trial % 5 == 0 ? 0 : 1 + trial % 2;
    const uint32_t dst_rep = 8 * dst_blk + trial % 3, src_rep = trial % 7 == 0 ? 0 : 8 + trial % 5;
    uint64_t lo = rng() | 1, hi = sizeof(T) == 2 ? rng() : 0;
    uint32_t count = 1 + static_cast<uint32_t>(rng() % kPer);
    if (form == 1) {
      lo = count >= 64 ? ~0ull : (1ull << count) - 1;
      hi = sizeof(T) == 4 || count <= 64 ? 0 : (count >= 128 ? ~0ull : (1ull << (count - 64)) - 1);
    }
    const uint64_t dst_bytes = (uint64_t{repeats} * dst_rep + 8 * dst_blk) * 32 + 32;
    const uint64_t src_bytes = (uint64_t{repeats} * src_rep + 8 * std::max(src_blk, 1u)) * 32;
    std::vector<uint8_t> src(src_bytes), dst0(dst_bytes);
    for (auto& x : src) x = static_cast<uint8_t>(rng());
    for (auto& x : dst0) x = static_cast<uint8_t>(rng());
    std::vector<uint8_t> want = dst0;
    aicore::ref::MaskedCopy(want.data(), src.data(), sizeof(T), lo, hi, form == 2, count, repeats,
                            dst_blk, src_blk, dst_rep, src_rep);
    std::vector<uint8_t> got(dst_bytes);
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Get<T>(static_cast<uint32_t>(src_bytes / sizeof(T)));
      auto d = ub.Get<T>(static_cast<uint32_t>(dst_bytes / sizeof(T)));
      std::memcpy(s.data(), src.data(), src_bytes);
      std::memcpy(d.data(), dst0.data(), dst_bytes);
      const AscendC::CopyRepeatParams p(
          static_cast<uint16_t>(dst_blk), static_cast<uint16_t>(src_blk),
          static_cast<uint16_t>(dst_rep), static_cast<uint16_t>(src_rep));
      const uint64_t mask[2] = {lo, hi};
      const auto r = static_cast<uint8_t>(repeats);
      if (form == 0) {
        AscendC::Copy(d, s, mask, r, p);
      } else if (form == 1) {
        AscendC::Copy(d, s, uint64_t{count}, r, p);
      } else if (form == 2) {
        AscendC::SetMaskCount();
        AscendC::Copy(d, s, uint64_t{count}, r, p);
        AscendC::SetMaskNorm();
      } else {
        AscendC::SetVectorMask<T>(hi, lo);
        AscendC::Copy<T, false>(d, s, AscendC::MASK_PLACEHOLDER, r, p);
        AscendC::ResetMask();
      }
      std::memcpy(got.data(), d.data(), dst_bytes);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(got == want) << "trial " << trial << " form " << form;
  }
}

std::string ErrorOf(const std::function<void(UbArena&)>& body) {
  auto st = RunOnUb(body);
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(CopyErrors, Messages) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto a = ub.Get<float>(64), b = ub.Get<float>(64);
                AscendC::Copy(a, b, uint64_t{64}, 2, {1, 1, 8, 8});
              }),
              HasSubstr("Copy: dst: 2 repeats with blkStride 1 and repStride 8 reach byte 512"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto a = ub.Get<float>(64), b = ub.Get<float>(64);
                AscendC::Copy(a, b, uint64_t{64}, 1, {1, 1, 4096, 8});
              }),
              HasSubstr("dstRepeatSize 4096 and srcRepeatSize 8 must lie in [0, 4095]"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto a = ub.Get<float>(64), b = ub.Get<float>(64);
                AscendC::SetMaskCount();
                AscendC::Copy(a, b, uint64_t{65}, 1, {1, 1, 8, 8});
              }),
              HasSubstr("counter mode: mask 65 elements per repeat is outside [1, 64]"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto a = ub.Get<half>(128), b = ub.Get<half>(128);
                AscendC::Copy(a, b, uint64_t{129}, 1, {1, 1, 8, 8});
              }),
              HasSubstr("continuous mask 129 is outside [1, 128]"));
}

}  // namespace
