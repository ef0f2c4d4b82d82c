// SoftMax, SimpleSoftMax, SoftmaxFlashV2, LogSoftMax and their host tiling against the double
// references in tests/reference/softmax_ref.h, over many shapes, both dtypes and the min/max
// scratch sizes, plus the error cases.
#include "aicore/kernel/lib/activation/softmax.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "aicore/runtime/ascendc/tiling/tiling_api.h"
#include "tests/kernel/lib/lib_test_util.h"
#include "tests/reference/softmax_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RunOnUb;
using aicore::testing::ToDouble;
using aicore::testing::Tol;
using aicore::testing::UbArena;
using aicore::testing::Uniform;
using ::testing::HasSubstr;

struct Shape {
  uint32_t m, k, valid;
};

// k is a multiple of 16 so every shape is 32-byte padded for half and float.
const Shape kShapes[] = {{1, 16, 16},  {3, 16, 13},    {7, 80, 80},   {13, 208, 199},
                         {5, 1024, 1000}, {2, 2048, 2048}, {37, 32, 32}, {300, 16, 16},
                         {11, 64, 64},  {4, 144, 129}};

template <typename T>
class SoftMaxTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(SoftMaxTest, Types);

// Returns the host scratch size: the minimum or the maximum.
uint32_t TmpSize(const Shape& s, uint32_t stat_size, bool max) {
  AscendC::TensorShape shape({s.m, s.k});
  return max ? AscendC::GetSoftMaxMaxTmpSize(shape, stat_size, false)
             : AscendC::GetSoftMaxMinTmpSize(shape, stat_size, false);
}

template <typename T, typename U>
void CheckSoftMax(const Shape& s, bool use_max, double range, uint32_t seed) {
  constexpr uint32_t blk = 32 / sizeof(U);
  const auto x = Uniform<T>(uint64_t{s.m} * s.k, seed, -range, range);
  // The sizes follow the source's type (see softmax_tiling.h for the mixed form).
  const uint32_t tmp_bytes = TmpSize(s, sizeof(T), use_max);
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({s.m, s.k}), sizeof(T), tmp_bytes, tiling);
  ASSERT_GT(tiling.splitM, 0u);
  if (use_max) {
    EXPECT_EQ(tiling.splitM, s.m);
  }
  std::vector<T> dst;
  std::vector<U> sum, max;
  const auto st = RunOnUb([&](UbArena& a) {
    auto src = a.Load(x);
    auto d = a.Get<T>(s.m * s.k);
    auto su = a.Get<U>(s.m * blk);
    auto mx = a.Get<U>(s.m * blk);
    auto tmp = a.Get<uint8_t>(tmp_bytes);
    AscendC::SoftMaxShapeInfo info = {s.m, s.k, s.m, s.valid};
    if constexpr (std::is_same_v<T, U>) {
      AscendC::SoftMax<T>(d, su, mx, src, tmp, tiling, info);
    } else {
      AscendC::SoftMax<half>(d, su, mx, src, tmp, tiling, info);
    }
    dst = FromTensor(d, s.m * s.k);
    sum = FromTensor(su, s.m * blk);
    max = FromTensor(mx, s.m * blk);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), s.m, s.k, s.valid);
  for (uint32_t i = 0; i < s.m; ++i) {
    for (uint32_t j = 0; j < blk; ++j) {
      ASSERT_EQ(static_cast<double>(static_cast<float>(max[i * blk + j])), ref.max[i]) << i;
      ASSERT_NEAR(static_cast<float>(sum[i * blk + j]), ref.sum[i], Tol<U>() * ref.sum[i]) << i;
    }
    for (uint32_t j = 0; j < s.valid; ++j) {
      ASSERT_NEAR(static_cast<float>(dst[i * s.k + j]), ref.exp[i * s.k + j] / ref.sum[i],
                  Tol<T>())
          << "row " << i << " col " << j << " m " << s.m << " k " << s.k;
    }
  }
}

TYPED_TEST(SoftMaxTest, MatchesReferenceWithMinAndMaxScratch) {
  uint32_t seed = 1;
  for (const Shape& s : kShapes) {
    CheckSoftMax<TypeParam, TypeParam>(s, false, 5.0, seed++);
    CheckSoftMax<TypeParam, TypeParam>(s, true, 5.0, seed++);
  }
}

TYPED_TEST(SoftMaxTest, LargeMagnitudesDoNotOverflow) {
  CheckSoftMax<TypeParam, TypeParam>({9, 64, 64}, false, 1e4, 7);
  CheckSoftMax<TypeParam, TypeParam>({3, 512, 500}, true, 1e4, 8);
}

TEST(SoftMaxMixed, HalfDataFloatSumMax) {
  uint32_t seed = 40;
  for (const Shape& s : kShapes) CheckSoftMax<half, float>(s, false, 4.0, seed++);
}

TYPED_TEST(SoftMaxTest, WithoutSumMaxAndStackBuffer) {
  using T = TypeParam;
  const Shape s{6, 96, 96};
  const auto x = Uniform<T>(s.m * s.k, 3, -3, 3);
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({s.m, s.k}), sizeof(T),
                             TmpSize(s, sizeof(T), false), tiling);
  std::vector<T> d1, d2;
  const auto st = RunOnUb([&](UbArena& a) {
    auto src = a.Load(x);
    auto o1 = a.Get<T>(s.m * s.k);
    auto o2 = a.Get<T>(s.m * s.k);
    AscendC::SoftMax<T>(o1, src, a.Get<uint8_t>(TmpSize(s, sizeof(T), false)), tiling);
    AscendC::SoftMax<T>(o2, src, tiling);  // scratch from the UB after the TPipe's buffers
    d1 = FromTensor(o1, s.m * s.k);
    d2 = FromTensor(o2, s.m * s.k);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), s.m, s.k, s.k);
  for (uint32_t i = 0; i < s.m * s.k; ++i) {
    ASSERT_NEAR(static_cast<float>(d1[i]), ref.exp[i] / ref.sum[i / s.k], Tol<T>());
    ASSERT_EQ(static_cast<float>(d1[i]), static_cast<float>(d2[i]));
  }
}

TYPED_TEST(SoftMaxTest, SimpleSoftMaxUsesGivenSumAndMax) {
  using T = TypeParam;
  constexpr uint32_t blk = 32 / sizeof(T);
  for (const Shape& s : {Shape{5, 48, 40}, Shape{17, 256, 256}}) {
    const auto x = Uniform<T>(s.m * s.k, 11, -4, 4);
    const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), s.m, s.k, s.valid);
    std::vector<T> in_max(s.m * blk), in_sum(s.m * blk);
    for (uint32_t i = 0; i < s.m * blk; ++i) {
      in_max[i] = static_cast<T>(static_cast<float>(ref.max[i / blk]));
      in_sum[i] = static_cast<T>(static_cast<float>(ref.sum[i / blk]));
    }
    AscendC::SoftMaxTiling tiling;
    AscendC::SoftMaxTilingFunc(AscendC::TensorShape({s.m, s.k}), sizeof(T),
                               TmpSize(s, sizeof(T), false), tiling);
    std::vector<T> dst;
    const auto st = RunOnUb([&](UbArena& a) {
      auto src = a.Load(x);
      auto d = a.Get<T>(s.m * s.k);
      AscendC::SimpleSoftMax<T>(d, a.Load(in_sum), a.Load(in_max), src,
                                a.Get<uint8_t>(TmpSize(s, sizeof(T), false)), tiling,
                                {s.m, s.k, s.m, s.valid});
      dst = FromTensor(d, s.m * s.k);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    for (uint32_t i = 0; i < s.m; ++i) {
      for (uint32_t j = 0; j < s.valid; ++j) {
        ASSERT_NEAR(static_cast<float>(dst[i * s.k + j]), ref.exp[i * s.k + j] / ref.sum[i],
                    2 * Tol<T>());
      }
    }
  }
}

// SoftmaxFlashV2 over column tiles, isUpdate = false on the first and true after, with the
// running sum/max updated in place, equals the softmax of the whole rows.
TYPED_TEST(SoftMaxTest, FlashV2ChainedOverTilesEqualsFullSoftMax) {
  using T = TypeParam;
  constexpr uint32_t blk = 32 / sizeof(T);
  const uint32_t m = 7, kt = 48, tiles = 5, K = kt * tiles;
  const auto x = Uniform<T>(m * K, 21, -6, 6);
  // Tile t is the [m, kt] block of columns [t * kt, (t + 1) * kt).
  std::vector<std::vector<T>> tile(tiles, std::vector<T>(m * kt));
  for (uint32_t t = 0; t < tiles; ++t)
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < kt; ++j) tile[t][i * kt + j] = x[i * K + t * kt + j];
  const AscendC::TensorShape shape({m, kt});
  const uint32_t tmp_bytes =
      AscendC::GetSoftMaxFlashV2MinTmpSize(shape, sizeof(T), sizeof(T), true);
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxFlashV2TilingFunc(shape, sizeof(T), sizeof(T), tmp_bytes, tiling, true);
  std::vector<T> sum, max, last, exp_max;
  const auto st = RunOnUb([&](UbArena& a) {
    auto su = a.Get<T>(m * blk);
    auto mx = a.Get<T>(m * blk);
    auto em = a.Get<T>(m * blk);
    auto d = a.Get<T>(m * kt);
    auto tmp = a.Get<uint8_t>(tmp_bytes);
    auto src = a.Get<T>(m * kt);
    for (uint32_t t = 0; t < tiles; ++t) {
      std::memcpy(src.data(), tile[t].data(), m * kt * sizeof(T));
      if (t == 0) {
        AscendC::SoftmaxFlashV2<T, false>(d, su, mx, src, em, su, mx, tmp, tiling);
      } else {
        AscendC::SoftmaxFlashV2<T, true>(d, su, mx, src, em, su, mx, tmp, tiling);
      }
    }
    sum = FromTensor(su, m * blk);
    max = FromTensor(mx, m * blk);
    last = FromTensor(d, m * kt);
    exp_max = FromTensor(em, m * blk);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), m, K, K);
  for (uint32_t i = 0; i < m; ++i) {
    ASSERT_EQ(static_cast<float>(max[i * blk]), ref.max[i]);
    ASSERT_NEAR(static_cast<float>(sum[i * blk]), ref.sum[i], 3 * Tol<T>() * ref.sum[i]);
    for (uint32_t j = 0; j < kt; ++j) {
      // dst is exp(x - running max), not normalized.
      ASSERT_NEAR(static_cast<float>(last[i * kt + j]), ref.exp[i * K + (tiles - 1) * kt + j],
                  Tol<T>());
    }
  }
}

TYPED_TEST(SoftMaxTest, FlashV2UpdateFormula) {
  using T = TypeParam;
  constexpr uint32_t blk = 32 / sizeof(T);
  const uint32_t m = 3, k = 64;
  const auto x = Uniform<T>(m * k, 5, -2, 2);
  const std::vector<float> prev_max = {1.5f, -3.0f, 0.25f}, prev_sum = {7.0f, 2.0f, 1.0f};
  std::vector<T> in_max(m * blk), in_sum(m * blk);
  for (uint32_t i = 0; i < m * blk; ++i) {
    in_max[i] = static_cast<T>(prev_max[i / blk]);
    in_sum[i] = static_cast<T>(prev_sum[i / blk]);
  }
  AscendC::SoftMaxTiling tiling;
  const AscendC::TensorShape shape({m, k});
  AscendC::SoftMaxFlashV2TilingFunc(
      shape, sizeof(T), sizeof(T),
      AscendC::GetSoftMaxFlashV2MaxTmpSize(shape, sizeof(T), sizeof(T), true), tiling, true);
  std::vector<T> d, su, mx, em;
  const auto st = RunOnUb([&](UbArena& a) {
    auto dst = a.Get<T>(m * k);
    auto sum = a.Get<T>(m * blk);
    auto max = a.Get<T>(m * blk);
    auto exp_max = a.Get<T>(m * blk);
    AscendC::SoftmaxFlashV2<T, true>(dst, sum, max, a.Load(x), exp_max, a.Load(in_sum),
                                     a.Load(in_max), tiling);
    d = FromTensor(dst, m * k);
    su = FromTensor(sum, m * blk);
    mx = FromTensor(max, m * blk);
    em = FromTensor(exp_max, m * blk);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), m, k, k);
  for (uint32_t i = 0; i < m; ++i) {
    const double pm = static_cast<float>(static_cast<T>(prev_max[i]));
    const double nm = std::max(pm, ref.max[i]);
    const double e = std::exp(pm - nm);
    const double s = e * prev_sum[i] + ref.sum[i] * std::exp(ref.max[i] - nm);
    ASSERT_EQ(static_cast<float>(mx[i * blk]), nm);
    ASSERT_NEAR(static_cast<float>(em[i * blk]), e, Tol<T>() * e);
    ASSERT_NEAR(static_cast<float>(su[i * blk]), s, 2 * Tol<T>() * s);
    for (uint32_t j = 0; j < k; ++j)
      ASSERT_NEAR(static_cast<float>(d[i * k + j]), std::exp(ToDouble(x)[i * k + j] - nm),
                  Tol<T>());
  }
}

TYPED_TEST(SoftMaxTest, LogSoftMaxIsLog10OfSoftMax) {
  using T = TypeParam;
  constexpr uint32_t blk = 32 / sizeof(T);
  for (const Shape& s : {Shape{4, 32, 32}, Shape{9, 160, 150}, Shape{2, 1024, 1024}}) {
    const auto x = Uniform<T>(s.m * s.k, 31, -8, 8);
    const AscendC::TensorShape shape({s.m, s.k});
    const uint32_t tmp_bytes = AscendC::GetLogSoftMaxMinTmpSize(shape, sizeof(T), false);
    AscendC::LogSoftMaxTiling tiling;
    AscendC::LogSoftMaxTilingFunc(shape, sizeof(T), tmp_bytes, tiling);
    std::vector<T> dst, sum;
    const auto st = RunOnUb([&](UbArena& a) {
      auto d = a.Get<T>(s.m * s.k);
      auto su = a.Get<T>(s.m * blk);
      auto mx = a.Get<T>(s.m * blk);
      AscendC::LogSoftMax<T>(d, su, mx, a.Load(x), a.Get<uint8_t>(tmp_bytes), tiling,
                             {s.m, s.k, s.m, s.valid});
      dst = FromTensor(d, s.m * s.k);
      sum = FromTensor(su, s.m * blk);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), s.m, s.k, s.valid);
    for (uint32_t i = 0; i < s.m; ++i) {
      ASSERT_NEAR(static_cast<float>(sum[i * blk]), ref.sum[i], Tol<T>() * ref.sum[i]);
      for (uint32_t j = 0; j < s.valid; ++j) {
        const double want = std::log10(ref.exp[i * s.k + j] / ref.sum[i]);
        ASSERT_NEAR(static_cast<float>(dst[i * s.k + j]), want, Tol<T>() * std::max(1.0, -want));
      }
    }
  }
}

TEST(SoftMaxMixed, FlashV2UpdateWithFloatSumMaxAndHalfExpMax) {
  const uint32_t m = 5, kt = 32, tiles = 3, K = kt * tiles;
  const auto x = Uniform<half>(m * K, 91, -5, 5);
  const AscendC::TensorShape shape({m, kt});
  const uint32_t tmp_bytes = AscendC::GetSoftMaxFlashV2MinTmpSize(shape, 2, 4, true);
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxFlashV2TilingFunc(shape, 2, 4, tmp_bytes, tiling, true);
  std::vector<float> sum, max;
  std::vector<half> exp_max;
  const auto st = RunOnUb([&](UbArena& a) {
    auto su = a.Get<float>(m * 8);
    auto mx = a.Get<float>(m * 8);
    auto em = a.Get<half>(m * 16);
    auto d = a.Get<half>(m * kt);
    auto tmp = a.Get<uint8_t>(tmp_bytes);
    auto src = a.Get<half>(m * kt);
    for (uint32_t t = 0; t < tiles; ++t) {
      for (uint32_t i = 0; i < m; ++i)
        std::memcpy(src.data() + i * kt, x.data() + i * K + t * kt, kt * sizeof(half));
      if (t == 0) {
        AscendC::SoftmaxFlashV2<half, false>(d, su, mx, src, em, su, mx, tmp, tiling);
      } else {
        AscendC::SoftmaxFlashV2<half, true>(d, su, mx, src, em, su, mx, tmp, tiling);
      }
    }
    sum = FromTensor(su, m * 8);
    max = FromTensor(mx, m * 8);
    exp_max = FromTensor(em, m * 16);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), m, K, K);
  for (uint32_t i = 0; i < m; ++i) {
    ASSERT_EQ(max[i * 8 + 7], ref.max[i]);
    ASSERT_NEAR(sum[i * 8 + 7], ref.sum[i], 1e-5 * ref.sum[i]);
    ASSERT_LE(static_cast<float>(exp_max[i * 16 + 15]), 1.0f);
  }
}

TEST(SoftMaxMixed, FloatSizedScratchForAHalfSourceIsAClearError) {
  const Shape s{4, 64, 64};
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({s.m, s.k}), 4, TmpSize(s, 4, false), tiling);
  const auto st = RunOnUb([&](UbArena& a) {
    auto x = a.Get<half>(s.m * s.k);
    AscendC::Duplicate(x, static_cast<half>(1.0f), static_cast<int32_t>(s.m * s.k));
    auto su = a.Get<float>(s.m * 8);
    AscendC::SoftMax<half>(x, su, su, x, a.Get<uint8_t>(TmpSize(s, 4, false)), tiling);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("sharedTmpBuffer holds"));
}

TEST(AdjustSoftMaxRes, RowsWithTheGivenMaxAreSet) {
  const uint32_t m = 4, k = 16;
  std::vector<float> res(m * k, 0.5f), max(m * 8, 1.0f);
  for (uint32_t j = 0; j < 8; ++j) max[2 * 8 + j] = -INFINITY;
  bool changed = false, unchanged = true;
  std::vector<float> out;
  const auto st = RunOnUb([&](UbArena& a) {
    auto r = a.Load(res);
    auto mx = a.Load(max);
    const AscendC::SoftMaxShapeInfo info = {m, k, m, k};
    changed = AscendC::AdjustSoftMaxRes<float, float>(r, mx, 0xFF800000u, 0.0f, info);
    unchanged = AscendC::AdjustSoftMaxRes<float, float>(r, mx, 0x12345678u, 9.0f, info);
    out = FromTensor(r, m * k);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(changed);
  EXPECT_FALSE(unchanged);
  for (uint32_t i = 0; i < m * k; ++i) EXPECT_EQ(out[i], i / k == 2 ? 0.0f : 0.5f) << i;
}

TEST(SoftMaxErrors, ScratchBelowMinimumIsAClearError) {
  const Shape s{4, 64, 64};
  const uint32_t min = TmpSize(s, 4, false);
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({s.m, s.k}), 4, min - 32, tiling);
  EXPECT_EQ(tiling.splitM, 0u);
  auto run = [&](uint32_t bytes, const AscendC::SoftMaxTiling& t) {
    return RunOnUb([&](UbArena& a) {
      auto x = a.Get<float>(s.m * s.k);
      AscendC::Duplicate(x, 1.0f, static_cast<int32_t>(s.m * s.k));
      AscendC::SoftMax<float>(x, x, a.Get<uint8_t>(bytes), t, {s.m, s.k, s.m, s.k});
    });
  };
  const auto st = run(min - 32, tiling);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("below the minimum"));
  AscendC::SoftMaxTiling other;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({8, s.k}), 4, min, other);
  const auto st2 = run(min - 32, other);  // shape differs from the tiling: recomputed, too small
  ASSERT_FALSE(st2.ok());
  EXPECT_THAT(st2.ToString(), HasSubstr("sharedTmpBuffer holds"));
  EXPECT_TRUE(run(min, other).ok());
}

TEST(SoftMaxErrors, UnpaddedKIsRejected) {
  AscendC::SoftMaxTiling tiling;
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({2, 12}), 4, 1 << 14, tiling);
  const auto st = RunOnUb([&](UbArena& a) {
    auto x = a.Get<float>(64);
    AscendC::SoftMax<float>(x, x, a.Get<uint8_t>(1 << 14), tiling);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("multiple of 32 bytes"));
}

TEST(SoftMaxTiling, FieldsAndBasicBlock) {
  AscendC::SoftMaxTiling t;
  const AscendC::TensorShape shape({2, 8, 256});
  const uint32_t min = AscendC::GetSoftMaxMinTmpSize(shape, 4, false);
  AscendC::SoftMaxTilingFunc(shape, 4, 3 * min, t);
  EXPECT_EQ(t.srcM, 16u);
  EXPECT_EQ(t.srcK, 256u);
  EXPECT_EQ(t.outMaxK, 8u);
  EXPECT_GE(t.splitM, 2u);
  EXPECT_EQ(t.rangeM * t.splitM + t.tailM, 16u);
  EXPECT_TRUE(AscendC::IsBasicBlockInSoftMax(t, 4));
  EXPECT_LT(AscendC::GetSoftMaxMinTmpSize(shape, 4, false),
            AscendC::GetSoftMaxMaxTmpSize(shape, 4, false));
}

}  // namespace
