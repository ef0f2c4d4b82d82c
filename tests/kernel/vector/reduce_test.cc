// Reductions (reduce.h) against the scalar references in tests/reference/reduce_ref.h, over many
// lengths, masks, strides and both dtypes, plus the error cases.
#include "aicore/kernel/vector/reduce.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/reduce_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
std::vector<float> ToFloat(const std::vector<T>& v) {
  return std::vector<float>(v.begin(), v.end());
}

// Reads the index stored in T's bits.
template <typename T>
uint32_t IndexOf(T bits) {
  if constexpr (sizeof(T) == 2) {
    uint16_t u;
    std::memcpy(&u, &bits, 2);
    return u;
  } else {
    uint32_t u;
    std::memcpy(&u, &bits, 4);
    return u;
  }
}

// The tolerance of a sum rounded once to T after float accumulation.
template <typename T>
double SumTolerance(double ref, double abs_sum) {
  const double ulp = sizeof(T) == 2
                         ? std::ldexp(1.0, std::ilogb(std::max(std::fabs(ref), 1e-3)) - 10)
                         : std::ldexp(1.0, std::ilogb(std::max(std::fabs(ref), 1e-30)) - 23);
  return ulp + 1e-6 * abs_sum;
}

template <typename T>
class ReduceTest : public ::testing::Test {};
using ReduceTypes = ::testing::Types<aicore::half, float>;
TYPED_TEST_SUITE(ReduceTest, ReduceTypes);

TYPED_TEST(ReduceTest, CountFormMatchesReference) {
  using T = TypeParam;
  const std::vector<int> counts = {1,   2,   7,   15,  16,  63,   64,   65,
                                   127, 128, 129, 255, 256, 1000, 4095, 20000};
  for (int count : counts) {
    for (bool cal_index : {false, true}) {
      std::vector<T> x = RandomValues<T>(count, 100 + count);
      // Ties: the extreme appears twice, the first occurrence must win.
      if (count > 3) {
        x[count / 3] = static_cast<T>(900.0f);
        x[count - 1] = static_cast<T>(900.0f);
        x[count / 2] = static_cast<T>(-900.0f);
        x[count / 2 + 1] = static_cast<T>(-900.0f);
      }
      std::vector<T> got_max, got_min, got_sum;
      auto st = RunOnUb([&](UbArena& ub) {
        auto src = ub.Load(x);
        auto tmp = ub.Get<T>(4096);
        auto dmax = ub.Get<T>(16);
        auto dmin = ub.Get<T>(16);
        auto dsum = ub.Get<T>(16);
        AscendC::ReduceMax(dmax, src, tmp, count, cal_index);
        AscendC::ReduceMin(dmin, src, tmp, count, cal_index);
        AscendC::ReduceSum(dsum, src, tmp, count);
        got_max = FromTensor(dmax, 2);
        got_min = FromTensor(dmin, 2);
        got_sum = FromTensor(dsum, 1);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto xf = ToFloat(x);
      const auto mx = aicore::ref::FirstExtreme(xf, count, true);
      const auto mn = aicore::ref::FirstExtreme(xf, count, false);
      EXPECT_EQ(static_cast<float>(got_max[0]), mx.value) << "count " << count;
      EXPECT_EQ(static_cast<float>(got_min[0]), mn.value) << "count " << count;
      if (cal_index) {
        EXPECT_EQ(IndexOf(got_max[1]), mx.index) << "count " << count;
        EXPECT_EQ(IndexOf(got_min[1]), mn.index) << "count " << count;
      }
      const double ref = aicore::ref::Sum(xf, count);
      EXPECT_NEAR(static_cast<float>(got_sum[0]), ref,
                  SumTolerance<T>(ref, aicore::ref::AbsSum(xf)))
          << "count " << count;
    }
  }
}

TYPED_TEST(ReduceTest, CalIndexFalseWritesOnlyTheValue) {
  using T = TypeParam;
  std::vector<T> x = RandomValues<T>(300, 7);
  std::vector<T> got;
  auto st = RunOnUb([&](UbArena& ub) {
    auto src = ub.Load(x);
    auto tmp = ub.Get<T>(64);
    auto dst = ub.Load(std::vector<T>(16, static_cast<T>(-3.0f)));
    AscendC::ReduceMax(dst, src, tmp, 300);
    got = FromTensor(dst, 2);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(static_cast<float>(got[1]), -3.0f);
}

TYPED_TEST(ReduceTest, Level0FormsMatchReference) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int repeat = 1 + trial % 7 + (trial == 39 ? 300 : 0);  // > 255 allowed here
    const int rep_stride = (trial % 3 == 0) ? 8 : (trial % 3 == 1 ? 16 : 0);
    uint64_t mask[2] = {rng(), sizeof(T) == 2 ? rng() : 0};
    const bool continuous = trial % 2 == 0;
    const int cont = 1 + static_cast<int>(rng() % kPer);
    if (continuous) {
      mask[0] = cont >= 64 ? ~0ull : (1ull << cont) - 1;
      mask[1] = cont <= 64 ? 0 : (cont >= 128 ? ~0ull : (1ull << (cont - 64)) - 1);
    }
    if (mask[0] == 0 && mask[1] == 0) mask[0] = 1;
    const size_t n = (repeat - 1) * std::max(rep_stride, 1) * 32 / sizeof(T) + kPer;
    std::vector<T> x = RandomValues<T>(n, 50 + trial);
    std::vector<T> got_max, got_min, got_sum;
    auto st = RunOnUb([&](UbArena& ub) {
      auto src = ub.Load(x);
      auto tmp = ub.Get<T>(4096);
      auto dmax = ub.Get<T>(16);
      auto dmin = ub.Get<T>(16);
      auto dsum = ub.Get<T>(16);
      if (continuous) {
        AscendC::ReduceMax(dmax, src, tmp, cont, repeat, rep_stride, true);
        AscendC::ReduceMin(dmin, src, tmp, cont, repeat, rep_stride, true);
        AscendC::ReduceSum(dsum, src, tmp, cont, repeat, rep_stride);
      } else {
        AscendC::ReduceMax(dmax, src, tmp, mask, repeat, rep_stride, true);
        AscendC::ReduceMin(dmin, src, tmp, mask, repeat, rep_stride, true);
        AscendC::ReduceSum(dsum, src, tmp, mask, repeat, rep_stride);
      }
      got_max = FromTensor(dmax, 2);
      got_min = FromTensor(dmin, 2);
      got_sum = FromTensor(dsum, 1);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto reps = aicore::ref::Level0Values(ToFloat(x), sizeof(T), mask, repeat, 1, rep_stride);
    aicore::ref::Extreme mx{-1e30f, 0}, mn{1e30f, 0};
    double sum = 0, abs_sum = 0;
    for (uint32_t r = 0; r < reps.size(); ++r) {
      for (size_t k = 0; k < reps[r].values.size(); ++k) {
        const float v = reps[r].values[k];
        const uint32_t idx = r * kPer + reps[r].positions[k];
        if (v > mx.value) mx = {v, idx};
        if (v < mn.value) mn = {v, idx};
        sum += v;
        abs_sum += std::fabs(v);
      }
    }
    EXPECT_EQ(static_cast<float>(got_max[0]), mx.value) << "trial " << trial;
    EXPECT_EQ(IndexOf(got_max[1]), mx.index) << "trial " << trial;
    EXPECT_EQ(static_cast<float>(got_min[0]), mn.value) << "trial " << trial;
    EXPECT_EQ(IndexOf(got_min[1]), mn.index) << "trial " << trial;
    EXPECT_NEAR(static_cast<float>(got_sum[0]), sum, SumTolerance<T>(sum, abs_sum))
        << "trial " << trial;
  }
}

TYPED_TEST(ReduceTest, WholeReduceMatchesReference) {
  using T = TypeParam;
  std::mt19937_64 rng(11);
  const AscendC::ReduceOrder orders[] = {
      AscendC::ReduceOrder::ORDER_VALUE_INDEX, AscendC::ReduceOrder::ORDER_INDEX_VALUE,
      AscendC::ReduceOrder::ORDER_ONLY_VALUE, AscendC::ReduceOrder::ORDER_ONLY_INDEX};
  for (int trial = 0; trial < 48; ++trial) {
    const int repeat = 1 + trial % 9;
    const int blk = 1 + trial % 3;
    const int rep = blk * 8 + (trial % 4) * 2;
    const int dst_rep = 1 + trial % 3;
    const auto order = orders[trial % 4];
    uint64_t mask[2] = {rng() | 1, sizeof(T) == 2 ? rng() : 0};
    if (trial % 5 == 0) mask[0] = ~0ull, mask[1] = sizeof(T) == 2 ? ~0ull : 0;
    const size_t n = (repeat - 1) * rep * 32 / sizeof(T) + 8 * blk * 32 / sizeof(T);
    std::vector<T> x = RandomValues<T>(n, 900 + trial, 30);  // narrow range: many ties
    const size_t dst_n = 8 * repeat * dst_rep + 32;
    std::vector<T> got_max, got_min, got_sum;
    auto st = RunOnUb([&](UbArena& ub) {
      auto src = ub.Load(x);
      auto dmax = ub.Load(std::vector<T>(dst_n, static_cast<T>(0.0f)));
      auto dmin = ub.Load(std::vector<T>(dst_n, static_cast<T>(0.0f)));
      auto dsum = ub.Load(std::vector<T>(dst_n, static_cast<T>(0.0f)));
      using AscendC::ReduceType;
      if (trial % 2 == 0) {
        AscendC::WholeReduceMax(dmax, src, mask, repeat, dst_rep, blk, rep, order);
        AscendC::WholeReduceMin(dmin, src, mask, repeat, dst_rep, blk, rep, order);
        AscendC::WholeReduceSum(dsum, src, mask, repeat, dst_rep, blk, rep);
      } else {  // the newer name, same instruction
        AscendC::ReduceRepeat<ReduceType::MAX>(dmax, src, mask, repeat, dst_rep, blk, rep, order);
        AscendC::ReduceRepeat<ReduceType::MIN>(dmin, src, mask, repeat, dst_rep, blk, rep, order);
        AscendC::ReduceRepeat<ReduceType::SUM>(dsum, src, mask, repeat, dst_rep, blk, rep);
      }
      got_max = FromTensor(dmax, dst_n);
      got_min = FromTensor(dmin, dst_n);
      got_sum = FromTensor(dsum, dst_n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto reps = aicore::ref::Level0Values(ToFloat(x), sizeof(T), mask, repeat, blk, rep);
    for (int r = 0; r < repeat; ++r) {
      const auto mx = aicore::ref::FirstExtreme(reps[r].values, reps[r].values.size(), true);
      const auto mn = aicore::ref::FirstExtreme(reps[r].values, reps[r].values.size(), false);
      const uint32_t mx_pos = reps[r].positions[mx.index];
      const uint32_t mn_pos = reps[r].positions[mn.index];
      auto check = [&](const std::vector<T>& got, float value, uint32_t pos, const char* what) {
        const uint8_t* bytes = reinterpret_cast<const uint8_t*>(got.data());
        T v, i;
        uint32_t i32;
        switch (order) {
          case AscendC::ReduceOrder::ORDER_VALUE_INDEX:
            std::memcpy(&v, bytes + r * dst_rep * 2 * sizeof(T), sizeof(T));
            std::memcpy(&i, bytes + r * dst_rep * 2 * sizeof(T) + sizeof(T), sizeof(T));
            EXPECT_EQ(static_cast<float>(v), value) << what << " trial " << trial << " r " << r;
            EXPECT_EQ(IndexOf(i), pos) << what << " trial " << trial << " r " << r;
            break;
          case AscendC::ReduceOrder::ORDER_INDEX_VALUE:
            std::memcpy(&i, bytes + r * dst_rep * 2 * sizeof(T), sizeof(T));
            std::memcpy(&v, bytes + r * dst_rep * 2 * sizeof(T) + sizeof(T), sizeof(T));
            EXPECT_EQ(static_cast<float>(v), value) << what << " trial " << trial << " r " << r;
            EXPECT_EQ(IndexOf(i), pos) << what << " trial " << trial << " r " << r;
            break;
          case AscendC::ReduceOrder::ORDER_ONLY_VALUE:
            std::memcpy(&v, bytes + r * dst_rep * sizeof(T), sizeof(T));
            EXPECT_EQ(static_cast<float>(v), value) << what << " trial " << trial << " r " << r;
            break;
          case AscendC::ReduceOrder::ORDER_ONLY_INDEX:
            std::memcpy(&i32, bytes + r * dst_rep * 4, 4);
            EXPECT_EQ(i32, pos) << what << " trial " << trial << " r " << r;
            break;
        }
      };
      check(got_max, mx.value, mx_pos, "max");
      check(got_min, mn.value, mn_pos, "min");
      const double sum = aicore::ref::Sum(reps[r].values, reps[r].values.size());
      EXPECT_NEAR(static_cast<float>(got_sum[r * dst_rep]), sum,
                  SumTolerance<T>(sum, aicore::ref::AbsSum(reps[r].values)))
          << "trial " << trial << " r " << r;
    }
  }
}

TYPED_TEST(ReduceTest, BlockAndPairReduceMatchReference) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  constexpr uint32_t kPerBlock = 32 / sizeof(T);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 30; ++trial) {
    const int repeat = 1 + trial % 6;
    const int blk = 1 + trial % 2;
    const int rep = blk * 8 + trial % 3;
    const int dst_rep = 1 + trial % 2;
    uint64_t mask[2] = {rng(), sizeof(T) == 2 ? rng() : 0};
    mask[0] &= ~0xffull;  // the first DataBlock(s) partly or wholly masked out
    if (trial % 3 == 0) mask[0] = ~0ull, mask[1] = sizeof(T) == 2 ? ~0ull : 0;
    mask[0] |= 1ull << 40;
    const size_t n = (repeat - 1) * rep * 32 / sizeof(T) + 8 * blk * 32 / sizeof(T);
    std::vector<T> x = RandomValues<T>(n, 300 + trial);
    const size_t dst_n = kPer / 2 * repeat * dst_rep + 64;
    const T sentinel = static_cast<T>(-77.0f);
    std::vector<T> bmax, bmin, bsum, psum;
    auto st = RunOnUb([&](UbArena& ub) {
      auto src = ub.Load(x);
      auto dmax = ub.Load(std::vector<T>(dst_n, sentinel));
      auto dmin = ub.Load(std::vector<T>(dst_n, sentinel));
      auto dsum = ub.Load(std::vector<T>(dst_n, sentinel));
      auto dpair = ub.Load(std::vector<T>(dst_n, sentinel));
      using AscendC::ReduceType;
      if (trial % 2 == 0) {
        AscendC::BlockReduceMax(dmax, src, repeat, mask, dst_rep, blk, rep);
        AscendC::BlockReduceMin(dmin, src, repeat, mask, dst_rep, blk, rep);
        AscendC::BlockReduceSum(dsum, src, repeat, mask, dst_rep, blk, rep);
        AscendC::PairReduceSum(dpair, src, repeat, mask, dst_rep, blk, rep);
      } else {  // the newer names, same instructions
        AscendC::ReduceDataBlock<ReduceType::MAX>(dmax, src, mask, repeat, dst_rep, blk, rep);
        AscendC::ReduceDataBlock<ReduceType::MIN>(dmin, src, mask, repeat, dst_rep, blk, rep);
        AscendC::ReduceDataBlock<ReduceType::SUM>(dsum, src, mask, repeat, dst_rep, blk, rep);
        AscendC::ReducePairElem<ReduceType::SUM>(dpair, src, mask, repeat, dst_rep, blk, rep);
      }
      bmax = FromTensor(dmax, dst_n);
      bmin = FromTensor(dmin, dst_n);
      bsum = FromTensor(dsum, dst_n);
      psum = FromTensor(dpair, dst_n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto xf = ToFloat(x);
    for (int r = 0; r < repeat; ++r) {
      for (uint32_t b = 0; b < 8; ++b) {
        std::vector<float> vals;
        for (uint32_t e = b * kPerBlock; e < (b + 1) * kPerBlock; ++e) {
          if (aicore::ref::MaskBit(mask, e)) {
            vals.push_back(xf[aicore::ref::Level0Index(r, e, sizeof(T), blk, rep)]);
          }
        }
        // dstRepStride counts one repeat's output: 8 results (16 B half, 32 B float).
        const size_t at = r * dst_rep * 8 + b;
        if (vals.empty()) {
          EXPECT_EQ(static_cast<float>(bmax[at]), -77.0f);
          continue;
        }
        EXPECT_EQ(static_cast<float>(bmax[at]), *std::max_element(vals.begin(), vals.end()));
        EXPECT_EQ(static_cast<float>(bmin[at]), *std::min_element(vals.begin(), vals.end()));
        const double s = aicore::ref::Sum(vals, vals.size());
        EXPECT_NEAR(static_cast<float>(bsum[at]), s, SumTolerance<T>(s, aicore::ref::AbsSum(vals)));
      }
      for (uint32_t k = 0; k < kPer / 2; ++k) {
        const bool a0 = aicore::ref::MaskBit(mask, 2 * k);
        const bool a1 = aicore::ref::MaskBit(mask, 2 * k + 1);
        const size_t at = r * dst_rep * 128 / sizeof(T) + k;
        if (!a0 && !a1) {
          EXPECT_EQ(static_cast<float>(psum[at]), -77.0f);
          continue;
        }
        const float want = static_cast<float>(static_cast<T>(
            (a0 ? xf[aicore::ref::Level0Index(r, 2 * k, sizeof(T), blk, rep)] : 0.0f) +
            (a1 ? xf[aicore::ref::Level0Index(r, 2 * k + 1, sizeof(T), blk, rep)] : 0.0f)));
        EXPECT_EQ(static_cast<float>(psum[at]), want) << "trial " << trial << " k " << k;
      }
    }
  }
}

TYPED_TEST(ReduceTest, CounterModeWholeReduceSum) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  const int count = kPer * 3 + 5;
  std::vector<T> x = RandomValues<T>(count + kPer, 21);
  std::vector<T> got;
  // isSetMask = false: the element count comes from SetVectorMask in counter mode.
  auto st = RunOnUb([&](UbArena& ub) {
    auto src = ub.Load(x);
    auto dst = ub.Load(std::vector<T>(16, static_cast<T>(0.0f)));
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<T, AscendC::MaskMode::COUNTER>(0, count);
    AscendC::WholeReduceSum<T, false>(dst, src, AscendC::MASK_PLACEHOLDER, 1, 1, 1, 8);
    AscendC::SetMaskNorm();
    got = FromTensor(dst, 16);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto xf = ToFloat(x);
  for (int r = 0; r < 4; ++r) {
    std::vector<float> part(xf.begin() + r * kPer,
                            xf.begin() + std::min<int>(count, (r + 1) * kPer));
    const double s = aicore::ref::Sum(part, part.size());
    EXPECT_NEAR(static_cast<float>(got[r]), s, SumTolerance<T>(s, aicore::ref::AbsSum(part)));
  }
}

// Full repeats of adjacent blocks take BlockOrPairReduce's flag-free path (for float the engine's
// vector loop); counter mode over the same elements takes the per-lane path. Both give the same
// bits, NaNs (all-NaN blocks report their first), signed zeros (the first wins) and infinities
// included, in place too.
TYPED_TEST(ReduceTest, BlockReduceFullRepeatsMatchThePerLanePathBitForBit) {
  using T = TypeParam;
  constexpr uint32_t kPer = 256 / sizeof(T);
  constexpr int kRepeats = 21, kRep = 9;  // srcRepStride 9: repeats not dense
  const size_t n = size_t{kRepeats} * kRep * 32 / sizeof(T);
  std::vector<T> x = RandomValues<T>(n, 77);
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) {
    const size_t block = i / (32 / sizeof(T)), e = i % (32 / sizeof(T));
    float v = static_cast<float>(x[i]);
    switch (block % 7) {
      case 1: v = e % 3 == 0 ? std::nanf("") : v; break;
      case 2: v = std::nanf(""); break;
      case 3: v = e == 1 ? -0.0f : (e == 4 ? 0.0f : -std::fabs(v) - 1.0f); break;
      case 4: v = e == 2 ? 0.0f : (e == 3 ? -0.0f : std::fabs(v) + 1.0f); break;
      case 5: v = e % 2 ? -inf : inf; break;
      default: break;
    }
    x[i] = static_cast<T>(v);
  }
  auto bits = [](const std::vector<T>& v) {
    std::vector<uint32_t> b;
    for (const T& t : v) {
      uint32_t u = 0;
      std::memcpy(&u, &t, sizeof(T));
      b.push_back(u);
    }
    return b;
  };
  const size_t dst_n = size_t{kRepeats} * 8;
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<T> fast, lanes, in_place;
    auto st = RunOnUb([&](UbArena& ub) {
      auto src = ub.Load(x);
      auto d_fast = ub.Load(std::vector<T>(dst_n, static_cast<T>(-5.0f)));
      auto d_lanes = ub.Load(std::vector<T>(dst_n, static_cast<T>(-5.0f)));
      auto run = [&](const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& s,
                     uint64_t mask, int dst_rep) {
        if (kind == 0) AscendC::BlockReduceMax(dst, s, kRepeats, mask, dst_rep, 1, kRep);
        if (kind == 1) AscendC::BlockReduceMin(dst, s, kRepeats, mask, dst_rep, 1, kRep);
        if (kind == 2) AscendC::BlockReduceSum(dst, s, kRepeats, mask, dst_rep, 1, kRep);
      };
      run(d_fast, src, kPer, 1);
      AscendC::SetMaskCount();
      run(d_lanes, src, uint64_t{kRepeats} * kPer, 1);
      AscendC::SetMaskNorm();
      // In place: repeat r's results over its own first elements (dstRepStride counts 8 results).
      run(src, src, kPer, kRep * 4 / static_cast<int>(sizeof(T)));
      fast = FromTensor(d_fast, dst_n);
      lanes = FromTensor(d_lanes, dst_n);
      in_place = FromTensor(src, n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(bits(fast), bits(lanes)) << "kind " << kind;
    for (int r = 0; r < kRepeats; ++r) {
      for (int k = 0; k < 8; ++k) {
        EXPECT_EQ(bits({in_place[r * kRep * 32 / sizeof(T) + k]})[0], bits({fast[r * 8 + k]})[0])
            << "in place, kind " << kind << " repeat " << r << " block " << k;
      }
    }
  }
}

// Regression: BlockReduceSum/ReduceDataBlock on half placed repeat r at r * dstRepStride * 32 B;
// the docs' unit is one repeat's output, 16 B for half. dstRepStride 1 packs the results densely.
TEST(ReduceRegression, DataBlockDstRepStrideIsOneRepeatOfOutput) {
  std::vector<aicore::half> x(128 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<aicore::half>(float(i / 16));
  std::vector<aicore::half> got_old, got_new;
  auto st = RunOnUb([&](UbArena& ub) {
    auto src = ub.Load(x);
    auto d_old = ub.Load(std::vector<aicore::half>(48, static_cast<aicore::half>(-1.0f)));
    auto d_new = ub.Load(std::vector<aicore::half>(48, static_cast<aicore::half>(-1.0f)));
    AscendC::BlockReduceMax(d_old, src, 3, 128, 1, 1, 8);
    AscendC::ReduceDataBlock<AscendC::ReduceType::MAX>(d_new, src, 128, 3, 2, 1, 8);
    got_old = FromTensor(d_old, 48);
    got_new = FromTensor(d_new, 48);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (int i = 0; i < 24; ++i) EXPECT_EQ(static_cast<float>(got_old[i]), float(i)) << i;
  EXPECT_EQ(static_cast<float>(got_old[24]), -1.0f);
  for (int r = 0; r < 3; ++r) {  // dstRepStride 2: 8 results, then a gap of 8
    for (int b = 0; b < 8; ++b) {
      EXPECT_EQ(static_cast<float>(got_new[r * 16 + b]), float(r * 8 + b));
      EXPECT_EQ(static_cast<float>(got_new[r * 16 + 8 + b]), -1.0f);
    }
  }
}

// ReduceRepeat's dst alignment follows its table: a half value-only result is 2-byte aligned.
TEST(ReduceRegression, ReduceRepeatHalfValueOnlyTakesTwoByteAlignedDst) {
  std::vector<aicore::half> x(256, static_cast<aicore::half>(1.0f));
  x[200] = static_cast<aicore::half>(5.0f);
  std::vector<aicore::half> got;
  auto st = RunOnUb([&](UbArena& ub) {
    auto src = ub.Load(x);
    auto dst = ub.Load(std::vector<aicore::half>(16, static_cast<aicore::half>(0.0f)));
    AscendC::ReduceRepeat<AscendC::ReduceType::MAX>(dst[1], src, 128, 2, 1, 1, 8,
                                                    AscendC::ReduceOrder::ORDER_ONLY_VALUE);
    AscendC::RepeatReduceSum(dst[4], src, 2, 128, 0, 1, 1, 8);
    got = FromTensor(dst, 16);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(static_cast<float>(got[1]), 1.0f);
  EXPECT_EQ(static_cast<float>(got[2]), 5.0f);
  EXPECT_EQ(static_cast<float>(got[4]), 128.0f);
  EXPECT_EQ(static_cast<float>(got[5]), 132.0f);  // 127 ones and a 5
}

// --- error cases ---

template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  auto st = RunOnUb(fn);
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(ReduceErrors, SharedTmpBufferTooSmall) {
  // 1000 floats = 16 repeats: 32 elements without index, 32 + 8 + 8 with it.
  EXPECT_THAT(
      ErrorOf([](UbArena& ub) {
        auto src = ub.Get<float>(1000);
        auto tmp = ub.Get<float>(24);
        auto dst = ub.Get<float>(8);
        AscendC::ReduceMax(dst, src, tmp, 1000);
      }),
      AllOf(HasSubstr("ReduceMax"), HasSubstr("sharedTmpBuffer holds 24"), HasSubstr("need 32")));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(1000);
                auto tmp = ub.Get<float>(32);
                auto dst = ub.Get<float>(8);
                AscendC::ReduceMin(dst, src, tmp, 1000, true);
              }),
              AllOf(HasSubstr("with calIndex"), HasSubstr("need 48")));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<aicore::half>(4000);
                auto tmp = ub.Get<aicore::half>(16);
                auto dst = ub.Get<aicore::half>(16);
                AscendC::ReduceSum(dst, src, tmp, 4000);  // 32 repeats need 32
              }),
              HasSubstr("need 32"));
}

TEST(ReduceErrors, CountOutsideSource) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(64);
                auto tmp = ub.Get<float>(64);
                auto dst = ub.Get<float>(8);
                AscendC::ReduceSum(dst, src, tmp, 65);
              }),
              AllOf(HasSubstr("count 65"), HasSubstr("[1, 64]")));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(64);
                auto tmp = ub.Get<float>(64);
                auto dst = ub.Get<float>(8);
                AscendC::ReduceMax(dst, src, tmp, 0);
              }),
              HasSubstr("count 0"));
}

TEST(ReduceErrors, StridesReachPastSource) {
  EXPECT_THAT(
      ErrorOf([](UbArena& ub) {
        auto src = ub.Get<float>(128);
        auto dst = ub.Get<float>(64);
        AscendC::WholeReduceSum(dst, src, 64, 3, 1, 1, 8);
      }),
      AllOf(HasSubstr("WholeReduceSum"), HasSubstr("reach byte 768"), HasSubstr("512 bytes")));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(1024);
                auto dst = ub.Get<float>(64);
                AscendC::BlockReduceMax(dst, src, 256, 64, 1, 1, 0);
              }),
              HasSubstr("repeatTimes 256"));
}

TEST(ReduceErrors, DstTooSmall) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(64 * 4);
                auto dst = ub.Get<float>(4);
                AscendC::WholeReduceMax(dst, src, 64, 4, 1, 1, 8);  // 4 pairs = 8 floats
              }),
              AllOf(HasSubstr("dst holds 4"), HasSubstr("need 8")));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(64);
                auto tmp = ub.Get<float>(64);
                auto dst = ub.Get<float>(64)[1];  // 4-byte aligned only
                AscendC::ReduceMax(dst, src, tmp, 64, true);
              }),
              HasSubstr("not on a 8-byte boundary"));
}

TEST(ReduceErrors, BadMask) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto src = ub.Get<float>(64);
                auto dst = ub.Get<float>(64);
                AscendC::WholeReduceSum(dst, src, 65, 1, 1, 1, 8);
              }),
              HasSubstr("continuous mask 65"));
}

}  // namespace
