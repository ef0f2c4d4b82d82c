// Cast against the scalar reference: every supported pair in every RoundMode, exhaustively for
// 8- and 16-bit sources and on random bit patterns, ties, overflow and NaN for 32-bit ones; the
// level-0 mask forms with strides; and the errors for unsupported pairs and modes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel/vector/vector_test_util.h"

namespace aicore::testing {
namespace {

using AscendC::LocalTensor;
using AscendC::RoundMode;
using ::testing::HasSubstr;

constexpr RoundMode kModes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT,  RoundMode::CAST_FLOOR,
                                RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC,
                                RoundMode::CAST_ODD};

ref::Rm ToRef(RoundMode m) { return static_cast<ref::Rm>(static_cast<int>(m)); }

bool Supported(DType d, DType s, RoundMode m) {
  return kernel::engine::CastSupports(d, s, static_cast<kernel::engine::Round>(m));
}

// Source values for S: every bit pattern for 8/16-bit types; for 32-bit types random bit
// patterns plus ties, boundaries, overflow and NaN.
template <typename S>
std::vector<S> Sources() {
  std::vector<S> v;
  if constexpr (sizeof(S) <= 2) {
    for (uint32_t b = 0; b < (1u << (8 * sizeof(S))); ++b) {
      if constexpr (std::is_integral_v<S>) {
        v.push_back(static_cast<S>(b));
      } else {
        v.push_back(S::FromBits(static_cast<uint16_t>(b)));
      }
    }
  } else if constexpr (std::is_same_v<S, float>) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> bits;
    for (int i = 0; i < 20000; ++i) v.push_back(std::bit_cast<float>(bits(rng)));
    std::uniform_real_distribution<float> small(-300.0f, 300.0f);
    for (int i = 0; i < 8000; ++i) v.push_back(small(rng));
    for (int k = -70; k <= 70; ++k) {
      v.push_back(k + 0.5f);  // integral ties
      v.push_back(k + 0.25f);
      v.push_back(k - 0.75f);
    }
    // Half ties and near-ties: midpoints between neighbouring halves, and one float ulp off.
    for (uint16_t b = 0; b < 0x7c00; b += 37) {
      const float lo = half::FromBits(b), hi = half::FromBits(static_cast<uint16_t>(b + 1));
      const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);
      for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
        v.push_back(x);
        v.push_back(-x);
      }
      // bfloat16 ties at the same magnitude.
      const float blo = bfloat16(lo);
      const float bhi = bfloat16::FromBits(static_cast<uint16_t>(bfloat16(lo).bits + 1));
      v.push_back(static_cast<float>((static_cast<double>(blo) + bhi) / 2));
    }
    const float kSpecial[] = {0.0f,
                              -0.0f,
                              65504.0f,
                              65519.996f,
                              65520.0f,
                              65536.0f,
                              1e10f,
                              -1e10f,
                              2147483520.0f,
                              2147483648.0f,
                              -2147483648.0f,
                              3e38f,
                              32767.5f,
                              -32768.5f,
                              255.5f,
                              -128.5f,
                              6e-8f,
                              3e-8f,
                              2.98e-8f,
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(),
                              1e-45f,
                              std::numeric_limits<float>::max()};
    for (float x : kSpecial) {
      v.push_back(x);
      v.push_back(-x);
    }
  } else {  // int32_t
    std::mt19937 rng(11);
    std::uniform_int_distribution<int32_t> all(std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max());
    std::uniform_int_distribution<int32_t> mid(-100000, 100000);
    for (int i = 0; i < 10000; ++i) v.push_back(all(rng));
    for (int i = 0; i < 10000; ++i) v.push_back(mid(rng));
    for (int32_t x : {0,
                      1,
                      -1,
                      2047,
                      2049,
                      2051,
                      4097,
                      65504,
                      65519,
                      65520,
                      65535,
                      32767,
                      32768,
                      -32768,
                      -32769,
                      (1 << 24) + 1,
                      (1 << 24) + 3,
                      (1 << 25) + 2,
                      (1 << 25) + 6,
                      std::numeric_limits<int32_t>::max(),
                      std::numeric_limits<int32_t>::min()}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  return v;
}

template <typename D, typename S>
void CheckPairCount() {
  const auto src = Sources<S>();
  for (RoundMode mode : kModes) {
    if (!Supported(DTypeOf<D>(), DTypeOf<S>(), mode)) continue;
    Mismatches bad;
    Status st = RunVectorKernel([&] {
      AscendC::TPipe pipe;
      UbArena ub(pipe);
      constexpr uint32_t kTile = 4096 + 17;
      auto ub_src = ub.Get<S>(kTile);
      auto ub_dst = ub.Get<D>(kTile);
      for (size_t off = 0; off < src.size(); off += kTile) {
        const uint32_t n = static_cast<uint32_t>(std::min<size_t>(kTile, src.size() - off));
        std::memcpy(ub_src.data(), src.data() + off, n * sizeof(S));
        AscendC::Cast(ub_dst, ub_src, mode, n);
        const auto got = Read(ub_dst, n);
        for (uint32_t i = 0; i < n; ++i) {
          const D want = ref::CastOne<D, S>(src[off + i], ToRef(mode));
          bad.Check(Matches(got[i], want, 0), "src=" + Show(src[off + i]), got[i], want);
        }
      }
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    bad.Expect(std::string("Cast ") + DTypeName(DTypeOf<S>()) + " -> " + DTypeName(DTypeOf<D>()) +
               " " + kernel::engine::RoundName(static_cast<kernel::engine::Round>(mode)) +
               " (engine " + kernel::engine::EngineIsa() + ")");
  }
}

TEST(CastCount, HalfToFloat) { CheckPairCount<float, half>(); }
TEST(CastCount, Bfloat16ToFloat) { CheckPairCount<float, bfloat16>(); }
TEST(CastCount, Int32ToFloat) { CheckPairCount<float, int32_t>(); }
TEST(CastCount, Int16ToFloat) { CheckPairCount<float, int16_t>(); }
TEST(CastCount, FloatToFloat) { CheckPairCount<float, float>(); }
TEST(CastCount, FloatToHalf) { CheckPairCount<half, float>(); }
TEST(CastCount, Int32ToHalf) { CheckPairCount<half, int32_t>(); }
TEST(CastCount, Int16ToHalf) { CheckPairCount<half, int16_t>(); }
TEST(CastCount, Int8ToHalf) { CheckPairCount<half, int8_t>(); }
TEST(CastCount, Uint8ToHalf) { CheckPairCount<half, uint8_t>(); }
TEST(CastCount, FloatToBfloat16) { CheckPairCount<bfloat16, float>(); }
TEST(CastCount, FloatToInt32) { CheckPairCount<int32_t, float>(); }
TEST(CastCount, HalfToInt32) { CheckPairCount<int32_t, half>(); }
TEST(CastCount, Bfloat16ToInt32) { CheckPairCount<int32_t, bfloat16>(); }
TEST(CastCount, Int16ToInt32) { CheckPairCount<int32_t, int16_t>(); }
TEST(CastCount, FloatToInt16) { CheckPairCount<int16_t, float>(); }
TEST(CastCount, HalfToInt16) { CheckPairCount<int16_t, half>(); }
TEST(CastCount, Int32ToInt16) { CheckPairCount<int16_t, int32_t>(); }
TEST(CastCount, HalfToInt8) { CheckPairCount<int8_t, half>(); }
TEST(CastCount, HalfToUint8) { CheckPairCount<uint8_t, half>(); }

// Spot checks of the documented semantics, independent of the reference.
TEST(CastCount, DocumentedExamples) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(8);
    auto i = ub.Get<int32_t>(8);
    auto h = ub.Get<half>(16);
    const float kIn[8] = {2.5f, -2.5f, 3.5f, -0.5f, 1e10f, -1e10f, NAN, 0.7f};
    std::memcpy(f.data(), kIn, sizeof(kIn));
    AscendC::Cast(i, f, RoundMode::CAST_RINT, 8);
    EXPECT_EQ(Read(i, 8), (std::vector<int32_t>{2, -2, 4, 0, 2147483647, -2147483647 - 1, 0, 1}));
    AscendC::Cast(i, f, RoundMode::CAST_ROUND, 8);
    EXPECT_EQ(Read(i, 8), (std::vector<int32_t>{3, -3, 4, -1, 2147483647, -2147483647 - 1, 0, 1}));
    AscendC::Cast(i, f, RoundMode::CAST_FLOOR, 8);
    EXPECT_EQ(Read(i, 8), (std::vector<int32_t>{2, -3, 3, -1, 2147483647, -2147483647 - 1, 0, 0}));
    AscendC::Cast(i, f, RoundMode::CAST_CEIL, 8);
    EXPECT_EQ(Read(i, 8), (std::vector<int32_t>{3, -2, 4, 0, 2147483647, -2147483647 - 1, 0, 1}));
    AscendC::Cast(i, f, RoundMode::CAST_TRUNC, 8);
    EXPECT_EQ(Read(i, 8), (std::vector<int32_t>{2, -2, 3, 0, 2147483647, -2147483647 - 1, 0, 0}));
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: RINT keeps 1 (even), ODD takes the odd one.
    f.SetValue(0, 1.0f + 0x1p-11f);
    f.SetValue(1, 70000.0f);
    AscendC::Cast(h, f, RoundMode::CAST_RINT, 2);
    EXPECT_EQ(h.GetValue(0).bits, 0x3c00);
    EXPECT_EQ(h.GetValue(1).bits, 0x7c00);  // overflow to inf
    AscendC::Cast(h, f, RoundMode::CAST_ODD, 2);
    EXPECT_EQ(h.GetValue(0).bits, 0x3c01);
    EXPECT_EQ(h.GetValue(1).bits, 0x7bff);  // round to odd never overflows to inf
    AscendC::Cast(h, f, RoundMode::CAST_TRUNC, 2);
    EXPECT_EQ(h.GetValue(1).bits, 0x7bff);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// Level-0 Cast: repeats hold 256 / max(sizeof(D), sizeof(S)) elements; strides per operand.
template <typename D, typename S>
void CheckPairLevel0(RoundMode mode) {
  constexpr uint32_t kPer = 256 / std::max(sizeof(D), sizeof(S));
  const auto pool = Sources<S>();
  struct Case {
    int kind;  // 0 bits, 1 continuous, 2 counter
    uint64_t hi, lo;
    uint32_t len;
    uint8_t repeat;
    AscendC::UnaryRepeatParams p;
  };
  const uint16_t dst_rep = static_cast<uint16_t>(kPer * sizeof(D) / 32);
  const uint16_t src_rep = static_cast<uint16_t>(kPer * sizeof(S) / 32);
  const std::vector<Case> cases = {
      {0, ~0ull, ~0ull, 0, 4,
       AscendC::UnaryRepeatParams(1, 1, static_cast<uint8_t>(dst_rep),
                                  static_cast<uint8_t>(src_rep))},
      {0, 0x5555555555555555ull, 0xf0f0f0f0f0f0f0f1ull, 0, 3,
       AscendC::UnaryRepeatParams(1, 2, static_cast<uint8_t>(dst_rep * 2),
                                  static_cast<uint8_t>(src_rep * 2))},
      {1, 0, 0, kPer - 3, 5,
       AscendC::UnaryRepeatParams(2, 1, static_cast<uint8_t>(dst_rep * 2),
                                  static_cast<uint8_t>(src_rep))},
      {1, 0, 0, 1, 255, AscendC::UnaryRepeatParams(1, 1, 1, 1)},
      {2, 0, 0, kPer * 7 + 5, 1,
       AscendC::UnaryRepeatParams(1, 1, static_cast<uint8_t>(dst_rep),
                                  static_cast<uint8_t>(src_rep))},
  };
  Mismatches bad;
  Status st = RunVectorKernel([&] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    size_t next = 0;
    for (const Case& c : cases) {
      const ref::Level0Mask m = c.kind == 0   ? ref::BitMask(c.hi, c.lo)
                                : c.kind == 1 ? ref::ContinuousMask(c.len)
                                              : ref::CounterMask(c.len);
      const ref::Level0Operand od{sizeof(D), c.p.dstBlkStride, c.p.dstRepStride};
      const ref::Level0Operand os{sizeof(S), c.p.srcBlkStride, c.p.srcRepStride};
      const uint64_t nd = (ref::Level0Extent(od, m, kPer, c.repeat) + sizeof(D) - 1) / sizeof(D);
      const uint64_t ns = (ref::Level0Extent(os, m, kPer, c.repeat) + sizeof(S) - 1) / sizeof(S);
      ub.Reset();
      auto t_dst = ub.Get<D>(nd);
      auto t_src = ub.Get<S>(ns);
      std::vector<S> vs(ns);
      for (auto& x : vs) x = pool[next++ % pool.size()];
      std::vector<D> vd(nd);
      for (size_t i = 0; i < nd; ++i) vd[i] = static_cast<D>(static_cast<int>(i % 100));
      Fill(t_src, vs);
      Fill(t_dst, vd);
      std::vector<D> want = vd;
      ref::Level0ForEach(m, kPer, c.repeat, [&](uint32_t r, uint32_t e) {
        want[ref::Level0Offset(od, r, e) / sizeof(D)] =
            ref::CastOne<D, S>(vs[ref::Level0Offset(os, r, e) / sizeof(S)], ToRef(mode));
      });
      if (c.kind == 0) {
        const uint64_t mask[2] = {c.lo, c.hi};
        AscendC::Cast(t_dst, t_src, mode, mask, c.repeat, c.p);
      } else if (c.kind == 1) {
        AscendC::Cast(t_dst, t_src, mode, uint64_t{c.len}, c.repeat, c.p);
      } else {
        AscendC::SetMaskCount();
        AscendC::Cast(t_dst, t_src, mode, uint64_t{c.len}, c.repeat, c.p);
        AscendC::SetMaskNorm();
      }
      const auto got = Read(t_dst, nd);
      for (size_t i = 0; i < nd; ++i) {
        bad.Check(Matches(got[i], want[i], 0),
                  "case kind=" + std::to_string(c.kind) + " i=" + std::to_string(i), got[i],
                  want[i]);
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  bad.Expect(std::string("level-0 Cast ") + DTypeName(DTypeOf<S>()) + " -> " +
             DTypeName(DTypeOf<D>()));
}

TEST(CastLevel0, HalfToFloat) { CheckPairLevel0<float, half>(RoundMode::CAST_NONE); }
TEST(CastLevel0, FloatToHalf) { CheckPairLevel0<half, float>(RoundMode::CAST_ODD); }
TEST(CastLevel0, FloatToInt32) { CheckPairLevel0<int32_t, float>(RoundMode::CAST_FLOOR); }
TEST(CastLevel0, HalfToInt8) { CheckPairLevel0<int8_t, half>(RoundMode::CAST_ROUND); }
TEST(CastLevel0, Int32ToInt16) { CheckPairLevel0<int16_t, int32_t>(RoundMode::CAST_NONE); }
TEST(CastLevel0, Bfloat16ToFloat) { CheckPairLevel0<float, bfloat16>(RoundMode::CAST_RINT); }

TEST(CastErrors, UnsupportedPairAndMode) {
  auto run = [](auto body) { return RunVectorKernel(body); };
  Status st = run([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(64);
    auto i8 = ub.Get<int8_t>(64);
    AscendC::Cast(f, i8, RoundMode::CAST_NONE, 64);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("Cast from int8_t to float is not a supported conversion"));
  st = run([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(64);
    auto i = ub.Get<int32_t>(64);
    AscendC::Cast(i, f, RoundMode::CAST_ODD, 64);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("does not support CAST_ODD"));
  st = run([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(64);
    auto h = ub.Get<half>(32);
    AscendC::Cast(f, h, RoundMode::CAST_NONE, 64);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("count 64 is outside [0, 32]"));
  st = run([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(64);
    auto h = ub.Get<half>(64);
    AscendC::Cast(f, h[3], RoundMode::CAST_NONE, 32);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("not on a 32-byte boundary"));
  st = run([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(64);
    auto h = ub.Get<half>(64);
    AscendC::Cast(h, f, RoundMode::CAST_NONE, uint64_t{65}, 1,
                  AscendC::UnaryRepeatParams(1, 1, 4, 8));
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("continuous mask 65 is outside [1, 64]"));
  st = run([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto f = ub.Get<float>(128);
    auto h = ub.Get<half>(128);
    AscendC::Cast(f, h, RoundMode::CAST_NONE, uint64_t{64}, 3,
                  AscendC::UnaryRepeatParams(1, 1, 8, 4));
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("dst: 3 repeats"));
}

}  // namespace
}  // namespace aicore::testing
