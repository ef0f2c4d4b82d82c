// Transpose (16 x 16, 16-bit types) against the definition dst[c][r] = src[r][c], in place too.
#include "aicore/kernel/vector/transpose.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/kernel/vector/ub_test_util.h"

namespace {

using aicore::testing::RunOnUb;
using aicore::testing::UbArena;

template <typename T>
class TransposeTest : public ::testing::Test {};
using TransposeTypes = ::testing::Types<aicore::half, int16_t, uint16_t>;
TYPED_TEST_SUITE(TransposeTest, TransposeTypes);

TYPED_TEST(TransposeTest, MatchesDefinition) {
  using T = TypeParam;
  std::vector<uint16_t> bits(256);
  for (int i = 0; i < 256; ++i) bits[i] = static_cast<uint16_t>(i * 2654435761u >> 16);
  for (bool in_place : {false, true}) {
    std::vector<uint16_t> got(256);
    auto st = RunOnUb([&](UbArena& ub) {
      auto s = ub.Get<T>(256);
      std::memcpy(s.data(), bits.data(), 512);
      auto d = in_place ? s : ub.Get<T>(256);
      AscendC::Transpose(d, s);
      std::memcpy(got.data(), d.data(), 512);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < 16; ++c) EXPECT_EQ(got[c * 16 + r], bits[r * 16 + c]) << r << "," << c;
    }
  }
}

TEST(TransposeErrors, TooSmall) {
  auto st = RunOnUb([](UbArena& ub) {
    auto s = ub.Get<aicore::half>(128);
    AscendC::Transpose(s, s);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("a 16 x 16 transpose needs 256 each"));
}

}  // namespace
