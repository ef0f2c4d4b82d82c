// half/bfloat16 conversions against the search-based references, for every half value, the
// rounding boundaries, random floats, and the bulk converters under every ISA the CPU has.
#include "aicore/core/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "tests/reference/dtype_ref.h"

namespace aicore {
namespace {

TEST(HalfTest, EveryHalfRoundTripsExactly) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = static_cast<uint16_t>(b);
    const float f = HalfBitsToFloat(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(ref::HalfValue(h))) << b;
      EXPECT_EQ(FloatToHalfBits(f) & 0x7c00, 0x7c00) << b;
      EXPECT_NE(FloatToHalfBits(f) & 0x3ff, 0) << b;
      continue;
    }
    EXPECT_EQ(static_cast<double>(f), ref::HalfValue(h)) << b;
    EXPECT_EQ(FloatToHalfBits(f), h) << b;
  }
}

TEST(HalfTest, RoundsToNearestEvenAtEveryBoundary) {
  // Midpoints between neighbouring halves, and the floats just either side of them.
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    const double lo = ref::HalfValue(static_cast<uint16_t>(b));
    const double hi = b + 1 == 0x7c00 ? 65536.0 : ref::HalfValue(static_cast<uint16_t>(b + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact: halves have 11 bits
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      ASSERT_EQ(FloatToHalfBits(f), ref::FloatToHalfRef(f)) << f;
      ASSERT_EQ(FloatToHalfBits(-f), ref::FloatToHalfRef(-f)) << -f;
    }
  }
}

TEST(HalfTest, RandomFloatsMatchReference) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const float f = std::bit_cast<float>(bits(rng));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalfBits(f), ref::FloatToHalfRef(f)) << f;
  }
}

TEST(HalfTest, SpecialValues) {
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65519.99f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(INFINITY), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(-INFINITY), 0xfc00);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);  // tie to even (zero)
  EXPECT_EQ(FloatToHalfBits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
}

TEST(HalfTest, ArithmeticIsFloatThenNarrow) {
  half a = 1.0f, b = 0.0009765625f;  // 2^-10: 1 + 2^-10 is the next half after 1
  half c = a + b;
  EXPECT_EQ(c.bits, 0x3c01);
  half d = 2048.0f;
  d += 1.0f;  // 2049 is not representable; ties to even -> 2048
  EXPECT_EQ(float(d), 2048.0f);
  EXPECT_EQ(float(half(3) * 2.0f), 6.0f);
}

TEST(Bfloat16Test, RandomFloatsMatchReference) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const float f = std::bit_cast<float>(bits(rng));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(Bfloat16BitsToFloat(FloatToBfloat16Bits(f))));
      continue;
    }
    ASSERT_EQ(FloatToBfloat16Bits(f), ref::FloatToBfloat16Ref(f)) << f;
  }
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = Bfloat16BitsToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(f)) ASSERT_EQ(FloatToBfloat16Bits(f), b);
  }
}

TEST(BulkConversionTest, MatchesScalarForAllLengths) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
  for (size_t n : {0u, 1u, 7u, 8u, 15u, 16u, 17u, 33u, 1000u}) {
    std::vector<float> src(n), back(n);
    for (auto& v : src) v = dist(rng) * (rng() % 2 ? 1.0f : 1e-6f);
    std::vector<half> h(n);
    ConvertFloatToHalf(h.data(), src.data(), n);
    ConvertHalfToFloat(back.data(), h.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(h[i].bits, ref::FloatToHalfRef(src[i])) << i;
      ASSERT_EQ(back[i], float(h[i]));
    }
    std::vector<bfloat16> bf(n);
    ConvertFloatToBfloat16(bf.data(), src.data(), n);
    ConvertBfloat16ToFloat(back.data(), bf.data(), n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(bf[i].bits, ref::FloatToBfloat16Ref(src[i]));
      ASSERT_EQ(back[i], float(bf[i]));
    }
  }
}

TEST(DTypeTest, NamesAndSizes) {
  EXPECT_STREQ(DTypeName(DTypeOf<half>()), "half");
  EXPECT_EQ(DTypeSize(DTypeOf<bfloat16>()), 2u);
  EXPECT_EQ(DTypeSize(DTypeOf<int32_t>()), 4u);
  EXPECT_EQ(DTypeOf<double>(), DType::kUnknown);
}

}  // namespace
}  // namespace aicore
