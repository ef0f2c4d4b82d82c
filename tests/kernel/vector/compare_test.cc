// Compare, CompareScalar, Select and the CMPMASK register against scalar references: every
// CMPMODE and dtype in the count form, the level-0 forms with masks and strides, the three
// SELMODEs, and the errors (count not a multiple of 256 B, scalar/mode mismatch, short dst).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel/vector/vector_test_util.h"

namespace aicore::testing {
namespace {

using AscendC::BinaryRepeatParams;
using AscendC::CMPMODE;
using AscendC::LocalTensor;
using AscendC::SELMODE;
using AscendC::UnaryRepeatParams;
using kernel::engine::VecOp;
using ::testing::HasSubstr;

constexpr CMPMODE kModes[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ,
                              CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};

// Random values with many exact ties between the two inputs and some NaNs for floats.
template <typename T>
std::vector<T> CompareData(size_t n, std::mt19937& rng, const std::vector<T>* other) {
  auto v = RandomFor<T>(VecOp::kAdd, n, rng);
  std::uniform_int_distribution<int> pick(0, 9);
  for (size_t i = 0; i < n; ++i) {
    const int p = pick(rng);
    if (other && p < 3) v[i] = (*other)[i];
    if constexpr (ref::kIsFloat<T>) {
      if (p == 9) v[i] = ref::FromD<T>(std::numeric_limits<double>::quiet_NaN());
    }
  }
  return v;
}

template <typename T>
void CheckCompareCount() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(5);
  Mismatches bad;
  uint64_t checked = 0;
  Status st = RunVectorKernel([&] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    for (uint32_t n : {kPer, 2 * kPer, 17 * kPer, 40 * kPer}) {
      for (CMPMODE mode : kModes) {
        ub.Reset();
        auto a = ub.Get<T>(n), b = ub.Get<T>(n);
        auto bits = ub.Get<uint8_t>(n / 8);
        const auto va = CompareData<T>(n, rng, nullptr);
        const auto vb = CompareData<T>(n, rng, &va);
        Fill(a, va);
        Fill(b, vb);
        AscendC::Compare(bits, a, b, mode, n);
        auto got = Read(bits, n / 8);
        const T s = vb[n / 2];
        for (uint32_t i = 0; i < n; ++i) {
          const bool want = ref::CompareOne(va[i], vb[i], static_cast<int>(mode));
          bad.Check(ref::BitAt(got.data(), i) == want,
                    "Compare mode " + std::to_string(static_cast<int>(mode)) +
                        " n=" + std::to_string(n) + " i=" + std::to_string(i) +
                        " a=" + Show(va[i]) + " b=" + Show(vb[i]),
                    int(ref::BitAt(got.data(), i)), int(want));
          ++checked;
        }
        AscendC::CompareScalar(bits, a, s, mode, n);
        got = Read(bits, n / 8);
        for (uint32_t i = 0; i < n; ++i) {
          const bool want = ref::CompareOne(va[i], s, static_cast<int>(mode));
          bad.Check(ref::BitAt(got.data(), i) == want,
                    "CompareScalar mode " + std::to_string(static_cast<int>(mode)) +
                        " i=" + std::to_string(i) + " a=" + Show(va[i]) + " s=" + Show(s),
                    int(ref::BitAt(got.data(), i)), int(want));
        }
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT(checked, 0u);
  bad.Expect(std::string("Compare on ") + DTypeName(DTypeOf<T>()));
}

TEST(CompareCount, Half) { CheckCompareCount<half>(); }
TEST(CompareCount, Bfloat16) { CheckCompareCount<bfloat16>(); }
TEST(CompareCount, Float) { CheckCompareCount<float>(); }
TEST(CompareCount, Int16) { CheckCompareCount<int16_t>(); }
TEST(CompareCount, Int32) { CheckCompareCount<int32_t>(); }

TEST(CompareCount, BitOrderIsLsbFirst) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto a = ub.Get<float>(64), b = ub.Get<float>(64);
    auto bits = ub.Get<uint8_t>(32);
    AscendC::Duplicate(a, 0.0f, 64);
    AscendC::Duplicate(b, 1.0f, 64);
    a.SetValue(0, 5.0f);   // element 0: a > b
    a.SetValue(9, 5.0f);   // element 9: byte 1, bit 1
    a.SetValue(63, 5.0f);  // element 63: byte 7, bit 7
    AscendC::Compare(bits, a, b, CMPMODE::GT, 64);
    EXPECT_EQ(bits.GetValue(0), 0x01);
    EXPECT_EQ(bits.GetValue(1), 0x02);
    EXPECT_EQ(bits.GetValue(7), 0x80);
    for (int i = 2; i < 7; ++i) EXPECT_EQ(bits.GetValue(i), 0) << i;
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// Level-0 Compare and CompareScalar: bits of repeat r start at bit r * (256 / sizeof(T)); masked
// elements keep their old bits.
template <typename T>
void CheckCompareLevel0() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(17);
  Mismatches bad;
  struct Case {
    int kind;  // 0 bits, 1 continuous, 2 counter
    uint64_t hi, lo;
    uint32_t len;
    uint8_t repeat;
    uint8_t blk0, blk1, rep0, rep1;
  };
  const std::vector<Case> cases = {
      {0, ~0ull, ~0ull, 0, 3, 1, 1, 8, 8},
      {0, 0x0123456789abcdefull, 0xfedcba9876543210ull, 0, 5, 2, 1, 16, 4},
      {1, 0, 0, kPer / 2 + 1, 4, 1, 2, 8, 16},
      {1, 0, 0, 1, 255, 1, 1, 0, 1},
      {2, 0, 0, kPer * 5 + 3, 9, 1, 1, 8, 8},
  };
  Status st = RunVectorKernel([&] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    for (const Case& c : cases) {
      for (CMPMODE mode : {CMPMODE::LT, CMPMODE::EQ, CMPMODE::GE, CMPMODE::NE}) {
        const ref::Level0Mask m = c.kind == 0   ? ref::BitMask(c.hi, c.lo)
                                  : c.kind == 1 ? ref::ContinuousMask(c.len)
                                                : ref::CounterMask(c.len);
        const ref::Level0Operand o0{sizeof(T), c.blk0, c.rep0}, o1{sizeof(T), c.blk1, c.rep1};
        const uint64_t n0 = ref::Level0Extent(o0, m, kPer, c.repeat) / sizeof(T);
        const uint64_t n1 = ref::Level0Extent(o1, m, kPer, c.repeat) / sizeof(T);
        const uint32_t reps = ref::Level0Repeats(m, kPer, c.repeat);
        const uint64_t nbytes = (uint64_t{reps} * kPer + 7) / 8;
        ub.Reset();
        auto a = ub.Get<T>(n0), b = ub.Get<T>(n1);
        auto bits = ub.Get<uint8_t>(nbytes);
        const auto va = CompareData<T>(n0, rng, nullptr);
        auto vb = CompareData<T>(n1, rng, nullptr);
        for (size_t i = 0; i < std::min(n0, n1); i += 3) vb[i] = va[i];
        Fill(a, va);
        Fill(b, vb);
        std::vector<uint8_t> old(nbytes);
        for (auto& x : old) x = static_cast<uint8_t>(rng());
        const T s = va[0];
        for (int scalar = 0; scalar < 2; ++scalar) {
          Fill(bits, old);
          std::vector<uint8_t> want = old;
          ref::Level0ForEach(m, kPer, c.repeat, [&](uint32_t r, uint32_t e) {
            const T x = va[ref::Level0Offset(o0, r, e) / sizeof(T)];
            const T y = scalar ? s : vb[ref::Level0Offset(o1, r, e) / sizeof(T)];
            const uint64_t bit = uint64_t{r} * kPer + e;
            const bool v = ref::CompareOne(x, y, static_cast<int>(mode));
            want[bit / 8] = static_cast<uint8_t>((want[bit / 8] & ~(1u << (bit % 8))) |
                                                 (unsigned(v) << (bit % 8)));
          });
          const BinaryRepeatParams bp(1, c.blk0, c.blk1, 8, c.rep0, c.rep1);
          const UnaryRepeatParams up(1, c.blk0, 8, c.rep0);
          if (c.kind == 2) AscendC::SetMaskCount();
          if (c.kind == 0) {
            const uint64_t mask[2] = {c.lo, c.hi};
            if (scalar) {
              AscendC::CompareScalar(bits, a, s, mode, mask, c.repeat, up);
            } else {
              AscendC::Compare(bits, a, b, mode, mask, c.repeat, bp);
            }
          } else {
            if (scalar) {
              AscendC::CompareScalar(bits, a, s, mode, uint64_t{c.len}, c.repeat, up);
            } else {
              AscendC::Compare(bits, a, b, mode, uint64_t{c.len}, c.repeat, bp);
            }
          }
          if (c.kind == 2) AscendC::SetMaskNorm();
          const auto got = Read(bits, nbytes);
          for (size_t i = 0; i < nbytes; ++i) {
            bad.Check(got[i] == want[i],
                      std::string(scalar ? "CompareScalar" : "Compare") +
                          " kind=" + std::to_string(c.kind) + " mode=" +
                          std::to_string(static_cast<int>(mode)) + " byte " + std::to_string(i),
                      int(got[i]), int(want[i]));
          }
        }
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  bad.Expect(std::string("level-0 Compare on ") + DTypeName(DTypeOf<T>()));
}

TEST(CompareLevel0, Half) { CheckCompareLevel0<half>(); }
TEST(CompareLevel0, Float) { CheckCompareLevel0<float>(); }
TEST(CompareLevel0, Int32) { CheckCompareLevel0<int32_t>(); }

// ---- Select ----

template <typename T>
void CheckSelectCount() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(23);
  Mismatches bad;
  Status st = RunVectorKernel([&] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    for (uint32_t n : {1u, 15u, 16u, 127u, 128u, 129u, 255u, 1000u, 4096u + 17}) {
      ub.Reset();
      auto d = ub.Get<T>(n), a = ub.Get<T>(n), b = ub.Get<T>(n);
      auto sel = ub.Get<uint8_t>((n + 7) / 8 + 32);
      auto reg = ub.Get<uint8_t>(32);
      const auto va = RandomFor<T>(VecOp::kAdd, n, rng), vb = RandomFor<T>(VecOp::kAdd, n, rng);
      std::vector<uint8_t> vs((n + 7) / 8 + 32), vr(32);
      for (auto& x : vs) x = static_cast<uint8_t>(rng());
      for (auto& x : vr) x = static_cast<uint8_t>(rng());
      Fill(a, va);
      Fill(b, vb);
      Fill(sel, vs);
      Fill(reg, vr);
      const T s = RandomScalar<T>(VecOp::kAdds, rng);
      for (SELMODE mode : {SELMODE::VSEL_TENSOR_TENSOR_MODE, SELMODE::VSEL_TENSOR_SCALAR_MODE,
                           SELMODE::VSEL_CMPMASK_SPR}) {
        if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) {
          AscendC::Select(d, sel, a, s, mode, n);
        } else {
          AscendC::SetCmpMask(reg);
          AscendC::Select(d, sel, a, b, mode, n);
        }
        const auto got = Read(d, n);
        for (uint32_t i = 0; i < n; ++i) {
          // Mode 0 reuses selMask's first kPer bits every repeat (Note [Select modes]).
          const bool pick0 = mode == SELMODE::VSEL_CMPMASK_SPR ? ref::BitAt(vs.data(), i % kPer)
                                                               : ref::BitAt(vs.data(), i);
          const T want = pick0 ? va[i] : (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE ? s : vb[i]);
          bad.Check(ref::SameValue(got[i], want),
                    "mode " + std::to_string(static_cast<int>(mode)) + " n=" + std::to_string(n) +
                        " i=" + std::to_string(i),
                    got[i], want);
        }
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  bad.Expect(std::string("Select on ") + DTypeName(DTypeOf<T>()));
}

TEST(SelectCount, Half) { CheckSelectCount<half>(); }
TEST(SelectCount, Float) { CheckSelectCount<float>(); }
TEST(SelectCount, Int32) { CheckSelectCount<int32_t>(); }
TEST(SelectCount, Bfloat16) { CheckSelectCount<bfloat16>(); }

template <typename T>
void CheckSelectLevel0() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(29);
  Mismatches bad;
  struct Case {
    bool cont;
    uint64_t hi, lo;
    uint32_t len;
    uint8_t repeat;
    BinaryRepeatParams p;
  };
  const std::vector<Case> cases = {
      {false, ~0ull, ~0ull, 0, 3, BinaryRepeatParams()},
      {false, 0xaaaa5555aaaa5555ull, 0x00ff00ff00ff00ffull, 0, 6,
       BinaryRepeatParams(2, 1, 2, 16, 8, 16)},
      {true, 0, 0, kPer - 5, 4, BinaryRepeatParams(1, 2, 1, 8, 16, 4)},
      {true, 0, 0, 3, 200, BinaryRepeatParams(1, 1, 1, 1, 1, 0)},
  };
  Status st = RunVectorKernel([&] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    for (const Case& c : cases) {
      for (SELMODE mode : {SELMODE::VSEL_TENSOR_TENSOR_MODE, SELMODE::VSEL_TENSOR_SCALAR_MODE,
                           SELMODE::VSEL_CMPMASK_SPR}) {
        const ref::Level0Mask m = c.cont ? ref::ContinuousMask(c.len) : ref::BitMask(c.hi, c.lo);
        const ref::Level0Operand od{sizeof(T), c.p.dstBlkStride, c.p.dstRepStride};
        const ref::Level0Operand o0{sizeof(T), c.p.src0BlkStride, c.p.src0RepStride};
        const ref::Level0Operand o1{sizeof(T), c.p.src1BlkStride, c.p.src1RepStride};
        const uint64_t nd = ref::Level0Extent(od, m, kPer, c.repeat) / sizeof(T);
        const uint64_t n0 = ref::Level0Extent(o0, m, kPer, c.repeat) / sizeof(T);
        const uint64_t n1 = ref::Level0Extent(o1, m, kPer, c.repeat) / sizeof(T);
        const uint64_t nsel = (uint64_t{c.repeat} * kPer + 7) / 8;
        ub.Reset();
        auto d = ub.Get<T>(nd), a = ub.Get<T>(n0), b = ub.Get<T>(n1);
        auto sel = ub.Get<uint8_t>(nsel);
        auto reg = ub.Get<uint8_t>(32);
        const auto vd = RandomFor<T>(VecOp::kAdd, nd, rng);
        const auto va = RandomFor<T>(VecOp::kAdd, n0, rng);
        const auto vb = RandomFor<T>(VecOp::kAdd, n1, rng);
        std::vector<uint8_t> vs(nsel), vr(32);
        for (auto& x : vs) x = static_cast<uint8_t>(rng());
        for (auto& x : vr) x = static_cast<uint8_t>(rng());
        Fill(d, vd);
        Fill(a, va);
        Fill(b, vb);
        Fill(sel, vs);
        Fill(reg, vr);
        AscendC::SetCmpMask(reg);
        const T s = RandomScalar<T>(VecOp::kAdds, rng);
        std::vector<T> want = vd;
        ref::Level0ForEach(m, kPer, c.repeat, [&](uint32_t r, uint32_t e) {
          const bool pick0 = mode == SELMODE::VSEL_CMPMASK_SPR
                                 ? ref::BitAt(vs.data(), e)
                                 : ref::BitAt(vs.data(), uint64_t{r} * kPer + e);
          const T x = va[ref::Level0Offset(o0, r, e) / sizeof(T)];
          const T y = mode == SELMODE::VSEL_TENSOR_SCALAR_MODE
                          ? s
                          : vb[ref::Level0Offset(o1, r, e) / sizeof(T)];
          want[ref::Level0Offset(od, r, e) / sizeof(T)] = pick0 ? x : y;
        });
        const uint64_t mask[2] = {c.lo, c.hi};
        if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) {
          if (c.cont) {
            AscendC::Select(d, sel, a, s, mode, uint64_t{c.len}, c.repeat, c.p);
          } else {
            AscendC::Select(d, sel, a, s, mode, mask, c.repeat, c.p);
          }
        } else if (c.cont) {
          AscendC::Select(d, sel, a, b, mode, uint64_t{c.len}, c.repeat, c.p);
        } else {
          AscendC::Select(d, sel, a, b, mode, mask, c.repeat, c.p);
        }
        const auto got = Read(d, nd);
        for (uint64_t i = 0; i < nd; ++i) {
          bad.Check(ref::SameValue(got[i], want[i]),
                    "mode " + std::to_string(static_cast<int>(mode)) + " repeat " +
                        std::to_string(c.repeat) + " i=" + std::to_string(i),
                    got[i], want[i]);
        }
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  bad.Expect(std::string("level-0 Select on ") + DTypeName(DTypeOf<T>()));
}

TEST(SelectLevel0, Half) { CheckSelectLevel0<half>(); }
TEST(SelectLevel0, Float) { CheckSelectLevel0<float>(); }

// Regression: mode 0 selected by the CMPMASK register and ignored selMask. The docs' mode-0
// float sample: selMask's first 64 bits choose in every repeat, the rest of selMask is unused.
TEST(SelectRegression, CmpMaskSprUsesSelMaskFirstRepeatBits) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    constexpr int kN = 256;
    auto a = ub.Get<float>(kN), b = ub.Get<float>(kN), d = ub.Get<float>(kN);
    auto sel = ub.Get<uint8_t>(32), reg = ub.Get<uint8_t>(32);
    for (int i = 0; i < kN; ++i) {
      a.SetValue(i, static_cast<float>(i));
      b.SetValue(i, static_cast<float>(-i));
    }
    const uint8_t bytes[8] = {60, 32, 10, 7, 42, 52, 38, 26};
    for (int i = 0; i < 32; ++i) sel.SetValue(i, i < 8 ? bytes[i] : uint8_t{0xff});
    for (int i = 0; i < 32; ++i) reg.SetValue(i, uint8_t{0});
    AscendC::SetCmpMask(reg);  // a stale all-zero register must not matter
    auto expect = [&](const char* form) {
      for (int i = 0; i < kN; ++i) {
        const bool pick0 = (bytes[(i % 64) / 8] >> (i % 8)) & 1;
        EXPECT_EQ(d.GetValue(i), pick0 ? float(i) : float(-i)) << form << " i=" << i;
      }
    };
    AscendC::Select(d, sel, a, b, SELMODE::VSEL_CMPMASK_SPR, kN);
    expect("count");
    AscendC::Duplicate(d, 0.0f, kN);
    AscendC::Select(d, sel, a, b, SELMODE::VSEL_CMPMASK_SPR, uint64_t{64}, 4, BinaryRepeatParams{});
    expect("continuous mask");
    AscendC::Duplicate(d, 0.0f, kN);
    const uint64_t mask[2] = {~0ull, 0};
    AscendC::Select(d, sel, a, b, SELMODE::VSEL_CMPMASK_SPR, mask, 4, BinaryRepeatParams{});
    expect("bit mask");
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// The register forms: SetCmpMask(selMask) for mode 0, SetCmpMask(scalar) for mode 1, and
// SetCmpMask(address of selMask) for mode 2, each with the mask from SetVectorMask.
TEST(SelectRegisterForms, AllModes) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    constexpr int kN = 256;
    auto a = ub.Get<float>(kN), b = ub.Get<float>(kN), d = ub.Get<float>(kN);
    auto sel = ub.Get<uint8_t>(32);
    auto reg = ub.Get<uint64_t>(4);
    std::mt19937 rng(5);
    std::vector<uint8_t> vs(32);
    for (auto& x : vs) x = static_cast<uint8_t>(rng());
    for (int i = 0; i < 32; ++i) sel.SetValue(i, vs[i]);
    for (int i = 0; i < kN; ++i) {
      a.SetValue(i, static_cast<float>(i));
      b.SetValue(i, static_cast<float>(-i));
    }
    const BinaryRepeatParams p{};
    for (SELMODE mode : {SELMODE::VSEL_CMPMASK_SPR, SELMODE::VSEL_TENSOR_SCALAR_MODE,
                         SELMODE::VSEL_TENSOR_TENSOR_MODE}) {
      AscendC::Duplicate(d, 7.0f, kN);
      AscendC::SetVectorMask<float>(0, (1ull << 40) - 1);  // 40 of 64 elements per repeat
      if (mode == SELMODE::VSEL_CMPMASK_SPR) {
        AscendC::SetCmpMask(sel);
        AscendC::Select<float, SELMODE::VSEL_CMPMASK_SPR>(d, a, b, 4, p);
      } else if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        auto scalar = reg.ReinterpretCast<float>();
        scalar.SetValue(0, 2.5f);
        AscendC::SetCmpMask(scalar);
        AscendC::Select<float, SELMODE::VSEL_TENSOR_SCALAR_MODE>(d, sel, a, 4, p);
      } else {
        reg.SetValue(0, sel.GetPhyAddr());
        AscendC::SetCmpMask(reg);
        AscendC::Select<float, SELMODE::VSEL_TENSOR_TENSOR_MODE>(d, a, b, 4, p);
      }
      AscendC::ResetMask();
      for (int i = 0; i < kN; ++i) {
        const int e = i % 64;
        float want = 7.0f;
        if (e < 40) {
          const int bit = mode == SELMODE::VSEL_CMPMASK_SPR ? e : i;
          const bool pick0 = ref::BitAt(vs.data(), bit);
          want = pick0 ? float(i) : (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE ? 2.5f : float(-i));
        }
        EXPECT_EQ(d.GetValue(i), want) << "mode " << int(mode) << " i=" << i;
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// SetCmpMask takes a 16-byte-aligned tensor (its docs), not only 32-byte-aligned ones.
TEST(CmpMask, SetCmpMaskTakesSixteenByteAlignment) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto buf = ub.Get<uint8_t>(64), out = ub.Get<uint8_t>(32);
    for (int i = 0; i < 64; ++i) buf.SetValue(i, static_cast<uint8_t>(i));
    AscendC::SetCmpMask(buf[16]);
    AscendC::GetCmpMask(out);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(out.GetValue(i), 16 + i) << i;
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto buf = ub.Get<uint8_t>(64);
    AscendC::SetCmpMask(buf[8]);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("not on a 16-byte boundary"));
}

// Compare into the CMPMASK register, read it back, and select with it.
TEST(CmpMask, CompareToRegisterThenSelect) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto a = ub.Get<float>(64), b = ub.Get<float>(64), d = ub.Get<float>(64);
    auto reg = ub.Get<uint8_t>(32), zero = ub.Get<uint8_t>(32);
    for (int i = 0; i < 64; ++i) {
      a.SetValue(i, static_cast<float>(i));
      b.SetValue(i, 31.5f);
    }
    AscendC::Duplicate(zero.ReinterpretCast<int16_t>(), int16_t{0}, 16);
    AscendC::SetCmpMask(zero);
    AscendC::Compare(a, b, CMPMODE::GT, uint64_t{64}, BinaryRepeatParams{});
    AscendC::GetCmpMask(reg);
    uint64_t lo = 0;
    std::memcpy(&lo, reg.data(), 8);
    EXPECT_EQ(lo, 0xffffffff00000000ull);
    AscendC::Select(d, reg, a, b, SELMODE::VSEL_CMPMASK_SPR, uint64_t{64}, 1, BinaryRepeatParams{});
    for (int i = 0; i < 64; ++i) EXPECT_EQ(d.GetValue(i), i > 31 ? float(i) : 31.5f) << i;
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// ---- Compares (compare with a scalar, the newer name) ----

template <typename T>
void CheckCompares() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(31);
  Mismatches bad;
  Status st = RunVectorKernel([&] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    for (uint32_t n : {kPer, 3 * kPer, 33 * kPer}) {
      for (CMPMODE mode : kModes) {
        if (std::is_same_v<T, int32_t> && mode != CMPMODE::EQ) continue;
        ub.Reset();
        auto a = ub.Get<T>(n);
        auto bits = ub.Get<uint8_t>(n / 8), bits0 = ub.Get<uint8_t>(n / 8);
        auto va = CompareData<T>(n, rng, nullptr);
        const T s = va[n / 2];  // a value present in the data, so EQ hits
        Fill(a, va);
        AscendC::Compares(bits, a, s, mode, n);
        // Level-0: the docs call the mask reserved on A2, so every element is compared.
        const uint64_t mask[2] = {0x5ull, 0};
        AscendC::Compares(bits0, a, s, mode, mask, static_cast<uint8_t>(n / kPer),
                          UnaryRepeatParams{});
        const auto got = Read(bits, n / 8), got0 = Read(bits0, n / 8);
        for (uint32_t i = 0; i < n; ++i) {
          const bool want = ref::CompareOne(va[i], s, static_cast<int>(mode));
          bad.Check(ref::BitAt(got.data(), i) == want,
                    "count n=" + std::to_string(n) + " i=" + std::to_string(i),
                    int(ref::BitAt(got.data(), i)), int(want));
          bad.Check(ref::BitAt(got0.data(), i) == want,
                    "level-0 n=" + std::to_string(n) + " i=" + std::to_string(i),
                    int(ref::BitAt(got0.data(), i)), int(want));
        }
      }
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  bad.Expect(std::string("Compares on ") + DTypeName(DTypeOf<T>()));
}

TEST(Compares, Half) { CheckCompares<half>(); }
TEST(Compares, Float) { CheckCompares<float>(); }
TEST(Compares, Int32EqOnly) { CheckCompares<int32_t>(); }

TEST(CompareErrors, Messages) {
  auto expect_error = [](const std::function<void(UbArena&)>& body, const std::string& text) {
    Status st = RunVectorKernel([&] {
      AscendC::TPipe pipe;
      UbArena ub(pipe);
      body(ub);
    });
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_THAT(st.message(), HasSubstr(text));
  };
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<half>(256);
        auto bits = ub.Get<uint8_t>(64);
        AscendC::Compare(bits, a, a, CMPMODE::LT, 100);
      },
      "count 100 elements of 2 B is 200 B, not a multiple of 256 B");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256);
        auto bits = ub.Get<uint8_t>(16);
        AscendC::Compare(bits, a, a, CMPMODE::LT, 256);
      },
      "dst holds 16 B (32 B needed)");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<float>(128);
        auto bits = ub.Get<uint8_t>(16);
        AscendC::CompareScalar(bits, a, 1.0f, CMPMODE::LT, 256);
      },
      "count 256 exceeds the operands: src0 holds 128");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64);
        auto sel = ub.Get<uint8_t>(32);
        AscendC::Select(a, sel, a, 1.0f, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
      },
      "a scalar src1 needs VSEL_TENSOR_SCALAR_MODE");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64);
        auto sel = ub.Get<uint8_t>(32);
        AscendC::Select(a, sel, a, a, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
      },
      "VSEL_TENSOR_SCALAR_MODE takes a scalar src1");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<half>(1024);
        auto sel = ub.Get<uint8_t>(32);
        AscendC::Select(a, sel, a, a, SELMODE::VSEL_TENSOR_TENSOR_MODE, 1024);
      },
      "selMask holds 32 B but the selection reads 128 B");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<int32_t>(64);
        auto bits = ub.Get<uint8_t>(32);
        AscendC::Compares(bits, a, 3, CMPMODE::LT, 64);
      },
      "Compares: int32_t supports CMPMODE::EQ only, got LT");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64), d = ub.Get<float>(64);
        auto reg = ub.Get<uint64_t>(4);
        reg.SetValue(0, uint64_t{17});
        AscendC::SetCmpMask(reg);
        AscendC::Select<float, SELMODE::VSEL_TENSOR_TENSOR_MODE>(d, a, a, 1, BinaryRepeatParams{});
      },
      "the CMPMASK register holds 17, which is not a 32-byte-aligned UB address");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<half>(512);
        auto bits = ub.Get<uint8_t>(32);
        AscendC::Compare(bits, a, a, CMPMODE::EQ, uint64_t{128}, 4, BinaryRepeatParams{});
      },
      "dst: 4 repeats of 128 result bits need 64 B but the tensor holds 32 B");
  expect_error(
      [](UbArena& ub) {
        auto a = ub.Get<half>(256);
        auto bits = ub.Get<uint8_t>(64);
        AscendC::Compare(bits, a, a, CMPMODE::EQ, uint64_t{128}, 3, BinaryRepeatParams{});
      },
      "src0: 3 repeats");
}

}  // namespace
}  // namespace aicore::testing
