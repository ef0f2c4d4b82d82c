// SetPadValue: DataCopyPad (GM -> UB, isPad false) pads with the value SetPadValue set, for every
// element size; isPad true still uses paddingValue; without SetPadValue the dummy fill stays.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "aicore/kernel/copy/data_copy_pad.h"
#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/data_copy_pad_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;

template <typename T>
class SetPadValueTest : public ::testing::Test {};
using PadTypes =
    ::testing::Types<aicore::half, float, int8_t, int16_t, int32_t, uint8_t, aicore::bfloat16>;
TYPED_TEST_SUITE(SetPadValueTest, PadTypes);

TYPED_TEST(SetPadValueTest, DataCopyPadUsesTheRegisterWhenIsPadIsFalse) {
  using T = TypeParam;
  struct Case {
    uint32_t count, elems, left, right;
  };
  const uint32_t max_pad = 32 / sizeof(T);
  for (const Case c :
       {Case{1, 1, 0, 0}, Case{3, 11, 1, 2}, Case{5, 33, max_pad, 0}, Case{2, 40, 0, max_pad}}) {
    const uint32_t len = c.elems * sizeof(T);
    std::vector<T> gm = RandomValues<T>(size_t{c.count} * c.elems, c.elems, 60);
    const uint64_t row = aicore::ref::RoundUp32((c.left + c.right) * sizeof(T) + len);
    const size_t ub_n = c.count * row / sizeof(T);
    std::vector<T> ub0(ub_n, static_cast<T>(9));
    const T reg = static_cast<T>(-3), pad = static_cast<T>(5);
    std::vector<T> got_reg, got_pad, got_dummy;
    auto st = RunOnUb([&](UbArena& ub) {
      AscendC::GlobalTensor<T> g;
      g.SetGlobalBuffer(gm.data(), gm.size());
      const AscendC::DataCopyExtParams params(c.count, len, 0, 0, 0);
      auto u = ub.Load(ub0);
      AscendC::DataCopyPad(u, g, params,
                           AscendC::DataCopyPadExtParams<T>(false, c.left, c.right, pad));
      got_dummy = FromTensor(u, ub_n);
      AscendC::SetPadValue(reg);
      auto v = ub.Load(ub0);
      AscendC::DataCopyPad(v, g, params,
                           AscendC::DataCopyPadExtParams<T>(false, c.left, c.right, pad));
      got_reg = FromTensor(v, ub_n);
      auto w = ub.Load(ub0);
      AscendC::DataCopyPad(w, g, params,
                           AscendC::DataCopyPadExtParams<T>(true, c.left, c.right, pad));
      got_pad = FromTensor(w, ub_n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    auto want = [&](bool is_pad, T value) {
      return aicore::ref::PadGmToUb(ub0, gm, c.count, len, 0, 0, is_pad, c.left, c.right, value);
    };
    EXPECT_EQ(std::memcmp(got_reg.data(), want(true, reg).data(), ub_n * sizeof(T)), 0)
        << "SetPadValue, elems " << c.elems;
    EXPECT_EQ(std::memcmp(got_pad.data(), want(true, pad).data(), ub_n * sizeof(T)), 0)
        << "isPad, elems " << c.elems;
    EXPECT_EQ(std::memcmp(got_dummy.data(), want(false, pad).data(), ub_n * sizeof(T)), 0)
        << "dummy, elems " << c.elems;
  }
}

}  // namespace
