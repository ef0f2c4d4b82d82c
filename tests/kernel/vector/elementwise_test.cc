// Element-wise vector APIs against the scalar references: every op x every dtype in the count
// form over many sizes and in the level-0 forms (bit, continuous and counter masks, block and
// repeat strides, repeat counts up to 255), run in a kernel on UB tensors from a TBuf.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel/vector/vector_test_util.h"

namespace aicore::testing {
namespace {

using AscendC::BinaryRepeatParams;
using AscendC::LocalTensor;
using AscendC::UnaryRepeatParams;
using kernel::engine::VecOp;

enum class Arity { kBinary, kScalar, kUnary, kFill };

// Strides of a level-0 call for dst, src0, src1.
struct Strides {
  uint32_t blk[3] = {1, 1, 1};
  uint32_t rep[3] = {8, 8, 8};
};

inline BinaryRepeatParams Bin(const Strides& s) {
  return BinaryRepeatParams(s.blk[0], s.blk[1], s.blk[2], s.rep[0], s.rep[1], s.rep[2]);
}
inline UnaryRepeatParams Un(const Strides& s) {
  return UnaryRepeatParams(s.blk[0], s.blk[1], s.rep[0], s.rep[1]);
}

// One API in its three forms, type-erased over the arity so tests loop over ops.
template <typename T>
struct Api {
  const char* name;
  VecOp op;
  Arity arity;
  std::function<void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, T,
                     int32_t)>
      count;
  std::function<void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, T,
                     const uint64_t*, uint8_t, const Strides&)>
      bits;
  std::function<void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, T,
                     uint64_t, uint8_t, const Strides&)>
      cont;
  // isSetMask = false: the mask comes from SetVectorMask.
  std::function<void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, T,
                     uint8_t, const Strides&)>
      preset;
};

// Level-0 forms exist for 16- and 32-bit types only; for 8-bit types those entries do nothing.
#define LEVEL0(call)                    \
  do {                                  \
    if constexpr (sizeof(T) >= 2) call; \
  } while (0)

// clang-format off
#define BINARY_API(Name, Op)                                                                \
  Api<T>{#Name, Op, Arity::kBinary,                                                         \
    [](auto& d, auto& a, auto& b, T, int32_t n) { AscendC::Name(d, a, b, n); },             \
    [](auto& d, auto& a, auto& b, T, const uint64_t* m, uint8_t r, const Strides& s) {      \
      LEVEL0(AscendC::Name(d, a, b, m, r, Bin(s)));                                         \
    },                                                                                      \
    [](auto& d, auto& a, auto& b, T, uint64_t m, uint8_t r, const Strides& s) {             \
      LEVEL0(AscendC::Name(d, a, b, m, r, Bin(s)));                                         \
    },                                                                                      \
    [](auto& d, auto& a, auto& b, T, uint8_t r, const Strides& s) {                         \
      LEVEL0((AscendC::Name<T, false>(d, a, b, AscendC::MASK_PLACEHOLDER, r, Bin(s))));     \
    }}
#define SCALAR_API(Name, Op)                                                                \
  Api<T>{#Name, Op, Arity::kScalar,                                                         \
    [](auto& d, auto& a, auto&, T c, int32_t n) { AscendC::Name(d, a, c, n); },             \
    [](auto& d, auto& a, auto&, T c, const uint64_t* m, uint8_t r, const Strides& s) {      \
      LEVEL0(AscendC::Name(d, a, c, m, r, Un(s)));                                          \
    },                                                                                      \
    [](auto& d, auto& a, auto&, T c, uint64_t m, uint8_t r, const Strides& s) {             \
      LEVEL0(AscendC::Name(d, a, c, m, r, Un(s)));                                          \
    },                                                                                      \
    [](auto& d, auto& a, auto&, T c, uint8_t r, const Strides& s) {                         \
      LEVEL0((AscendC::Name<T, false>(d, a, c, AscendC::MASK_PLACEHOLDER, r, Un(s))));      \
    }}
#define UNARY_API(Name, Op)                                                                 \
  Api<T>{#Name, Op, Arity::kUnary,                                                          \
    [](auto& d, auto& a, auto&, T, int32_t n) { AscendC::Name(d, a, n); },                  \
    [](auto& d, auto& a, auto&, T, const uint64_t* m, uint8_t r, const Strides& s) {        \
      LEVEL0(AscendC::Name(d, a, m, r, Un(s)));                                             \
    },                                                                                      \
    [](auto& d, auto& a, auto&, T, uint64_t m, uint8_t r, const Strides& s) {               \
      LEVEL0(AscendC::Name(d, a, m, r, Un(s)));                                             \
    },                                                                                      \
    [](auto& d, auto& a, auto&, T, uint8_t r, const Strides& s) {                           \
      LEVEL0((AscendC::Name<T, false>(d, a, AscendC::MASK_PLACEHOLDER, r, Un(s))));         \
    }}
// clang-format on

template <typename T>
std::vector<Api<T>> AllApis() {
  std::vector<Api<T>> apis = {
      BINARY_API(Add, VecOp::kAdd),
      BINARY_API(Sub, VecOp::kSub),
      BINARY_API(Mul, VecOp::kMul),
      BINARY_API(Div, VecOp::kDiv),
      BINARY_API(Max, VecOp::kMax),
      BINARY_API(Min, VecOp::kMin),
      BINARY_API(And, VecOp::kAnd),
      BINARY_API(Or, VecOp::kOr),
      BINARY_API(AddRelu, VecOp::kAddRelu),
      BINARY_API(SubRelu, VecOp::kSubRelu),
      SCALAR_API(Adds, VecOp::kAdds),
      SCALAR_API(Muls, VecOp::kMuls),
      SCALAR_API(Maxs, VecOp::kMaxs),
      SCALAR_API(Mins, VecOp::kMins),
      SCALAR_API(Subs, VecOp::kSubs),
      SCALAR_API(Divs, VecOp::kDivs),
      SCALAR_API(LeakyRelu, VecOp::kLeakyRelu),
      SCALAR_API(ShiftLeft, VecOp::kShiftLeft),
      SCALAR_API(ShiftRight, VecOp::kShiftRight),
      UNARY_API(Exp, VecOp::kExp),
      UNARY_API(Ln, VecOp::kLn),
      UNARY_API(Abs, VecOp::kAbs),
      UNARY_API(Sqrt, VecOp::kSqrt),
      UNARY_API(Rsqrt, VecOp::kRsqrt),
      UNARY_API(Reciprocal, VecOp::kReciprocal),
      UNARY_API(Relu, VecOp::kRelu),
      UNARY_API(Not, VecOp::kNot),
      UNARY_API(Neg, VecOp::kNeg),
      Api<T>{"Duplicate", VecOp::kDuplicate, Arity::kFill,
             [](auto& d, auto&, auto&, T c, int32_t n) { AscendC::Duplicate(d, c, n); },
             [](auto& d, auto&, auto&, T c, const uint64_t* m, uint8_t r, const Strides& s) {
               if constexpr (sizeof(T) >= 2)
                 AscendC::Duplicate(d, c, m, r, static_cast<uint16_t>(s.blk[0]),
                                    static_cast<uint8_t>(s.rep[0]));
             },
             [](auto& d, auto&, auto&, T c, uint64_t m, uint8_t r, const Strides& s) {
               if constexpr (sizeof(T) >= 2)
                 AscendC::Duplicate(d, c, m, r, static_cast<uint16_t>(s.blk[0]),
                                    static_cast<uint8_t>(s.rep[0]));
             },
             [](auto& d, auto&, auto&, T c, uint8_t r, const Strides& s) {
               if constexpr (sizeof(T) >= 2)
                 AscendC::Duplicate<T, false>(d, c, AscendC::MASK_PLACEHOLDER, r,
                                              static_cast<uint16_t>(s.blk[0]),
                                              static_cast<uint8_t>(s.rep[0]));
             }},
  };
  std::vector<Api<T>> supported;
  for (auto& a : apis) {
    if (kernel::engine::VecOpSupports(a.op, DTypeOf<T>())) supported.push_back(a);
  }
  return supported;
}

int Sources(Arity a) { return a == Arity::kBinary ? 2 : (a == Arity::kFill ? 0 : 1); }

// ---- count form ----

template <typename T>
void CheckCountForm(bool in_place) {
  const std::vector<uint32_t> kSizes = {1, 15, 16, 127, 128, 129, 255, 1000, 4096 + 17};
  std::mt19937 rng(1234);
  for (const Api<T>& api : AllApis<T>()) {
    Mismatches bad;
    const int64_t ulps = ref::UlpBound<T>(api.op);
    Status st = RunVectorKernel([&] {
      AscendC::TPipe pipe;
      UbArena ub(pipe);
      for (uint32_t n : kSizes) {
        ub.Reset();
        auto dst = ub.Get<T>(n), a = ub.Get<T>(n), b = ub.Get<T>(n);
        const auto va = RandomFor<T>(api.op, n, rng), vb = RandomFor<T>(api.op, n, rng);
        const auto vd = RandomFor<T>(VecOp::kAdd, n, rng, false);
        const T s = RandomScalar<T>(api.op, rng);
        Fill(a, va);
        Fill(b, vb);
        Fill(dst, vd);
        const auto& out = in_place && api.arity != Arity::kFill ? a : dst;
        api.count(out, a, b, s, static_cast<int32_t>(n));
        const auto got = Read(out, n);
        for (uint32_t i = 0; i < n; ++i) {
          const T want = ref::Apply<T>(api.op, va[i], vb[i], s);
          bad.Check(Matches(got[i], want, ulps),
                    std::string(api.name) + " n=" + std::to_string(n) + " i=" + std::to_string(i) +
                        " a=" + Show(va[i]) + " b=" + Show(vb[i]) + " s=" + Show(s),
                    got[i], want);
        }
        // Elements past count are untouched.
        if (!in_place && n > 1) {
          api.count(dst, a, b, s, static_cast<int32_t>(n - 1));
          bad.Check(ref::SameValue(Read(dst, n)[n - 1], got[n - 1]),
                    std::string(api.name) + " wrote past count", Read(dst, n)[n - 1], got[n - 1]);
        }
      }
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    bad.Expect(std::string(api.name) + " on " + DTypeName(DTypeOf<T>()) +
               (in_place ? " in place" : "") + " (engine " + kernel::engine::EngineIsa() + ")");
  }
}

TEST(ElementwiseCount, Half) { CheckCountForm<half>(false); }
TEST(ElementwiseCount, Bfloat16) { CheckCountForm<bfloat16>(false); }
TEST(ElementwiseCount, Float) { CheckCountForm<float>(false); }
TEST(ElementwiseCount, Int16) { CheckCountForm<int16_t>(false); }
TEST(ElementwiseCount, Int32) { CheckCountForm<int32_t>(false); }
TEST(ElementwiseCount, Uint16) { CheckCountForm<uint16_t>(false); }
TEST(ElementwiseCount, Int8) { CheckCountForm<int8_t>(false); }
TEST(ElementwiseCount, Uint8) { CheckCountForm<uint8_t>(false); }
TEST(ElementwiseCount, HalfInPlace) { CheckCountForm<half>(true); }
TEST(ElementwiseCount, FloatInPlace) { CheckCountForm<float>(true); }
TEST(ElementwiseCount, Int32InPlace) { CheckCountForm<int32_t>(true); }

TEST(ElementwiseCount, ZeroCountWritesNothing) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto d = ub.Get<float>(64), a = ub.Get<float>(64);
    AscendC::Duplicate(d, 3.0f, 64);
    AscendC::Duplicate(a, 1.0f, 64);
    AscendC::Add(d, a, a, 0);
    EXPECT_EQ(d.GetValue(0), 3.0f);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// ---- level-0 forms ----

enum class MaskKind { kBits, kContinuous, kCounter, kPreset };

struct Level0Case {
  MaskKind kind = MaskKind::kBits;
  uint64_t hi = ~0ull, lo = ~0ull;  // kBits, kPreset
  uint32_t len = 0;                 // kContinuous; kCounter: element count
  uint8_t repeat = 1;
  Strides strides;
  std::string Describe() const {
    std::string s = kind == MaskKind::kBits         ? "bits"
                    : kind == MaskKind::kContinuous ? "cont"
                    : kind == MaskKind::kCounter    ? "counter"
                                                    : "preset";
    s += " hi=" + std::to_string(hi) + " lo=" + std::to_string(lo) + " len=" + std::to_string(len) +
         " repeat=" + std::to_string(repeat) + " blk=" + std::to_string(strides.blk[0]) + "," +
         std::to_string(strides.blk[1]) + "," + std::to_string(strides.blk[2]) +
         " rep=" + std::to_string(strides.rep[0]) + "," + std::to_string(strides.rep[1]) + "," +
         std::to_string(strides.rep[2]);
    return s;
  }
};

template <typename T>
std::vector<Level0Case> Level0Cases(std::mt19937& rng) {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::vector<Level0Case> cases;
  // Full masks over repeat counts and repeat strides.
  for (uint8_t r : {1, 2, 7, 64, 255}) {
    for (uint32_t rep : {8u, 4u, 16u, 0u}) {
      Level0Case c;
      c.repeat = r;
      c.strides.rep[0] = c.strides.rep[1] = c.strides.rep[2] = rep;
      if (rep == 0) c.strides.rep[0] = 8;  // a repeat-stride-0 dst rewrites the same elements
      cases.push_back(c);
    }
  }
  // Block strides 2 on every operand, 0 on sources, mixed repeat strides.
  for (uint32_t blk : {2u, 0u}) {
    Level0Case c;
    c.repeat = 3;
    c.strides.blk[0] = blk == 0 ? 1 : blk;
    c.strides.blk[1] = c.strides.blk[2] = blk;
    c.strides.rep[0] = 16;
    c.strides.rep[1] = 16;
    c.strides.rep[2] = blk == 0 ? 1 : 16;
    cases.push_back(c);
  }
  {
    Level0Case c;  // dst repeat stride 0: later repeats overwrite
    c.repeat = 4;
    c.strides.rep[0] = 0;
    cases.push_back(c);
  }
  // Partial bit masks, including high-half-only masks for 16-bit types.
  std::uniform_int_distribution<uint64_t> bits;
  for (int i = 0; i < 6; ++i) {
    Level0Case c;
    c.lo = bits(rng) | 1;
    c.hi = kPer > 64 ? bits(rng) : 0;
    c.repeat = static_cast<uint8_t>(1 + i * 3);
    c.strides.blk[1] = (i % 2) + 1;
    c.strides.rep[2] = i % 3 == 0 ? 4 : 8;
    cases.push_back(c);
  }
  if (kPer > 64) {
    Level0Case c;
    c.lo = 0;
    c.hi = 0x8000000000000001ull;
    c.repeat = 2;
    cases.push_back(c);
  }
  {
    Level0Case c;  // bits above the repeat width of 32-bit types are ignored
    c.lo = 0xf0f0f0f0f0f0f0f0ull;
    c.hi = kPer > 64 ? 0x0123456789abcdefull : ~0ull;
    c.repeat = 5;
    cases.push_back(c);
  }
  // Continuous masks 1..per_repeat.
  for (uint32_t len : {1u, 2u, 7u, 16u, 31u, 63u, 64u, kPer - 1, kPer}) {
    Level0Case c;
    c.kind = MaskKind::kContinuous;
    c.len = len;
    c.repeat = static_cast<uint8_t>(1 + len % 5);
    c.strides.blk[0] = len % 2 + 1;
    cases.push_back(c);
  }
  // Counter mode: the element count decides the repeats; the repeatTimes argument is ignored.
  for (uint32_t count : {1u, 5u, kPer - 1, kPer, kPer + 1, 3 * kPer + 17, 40 * kPer}) {
    Level0Case c;
    c.kind = MaskKind::kCounter;
    c.len = count;
    c.repeat = 77;
    if (count % 2) c.strides.blk[1] = 2;
    cases.push_back(c);
  }
  // isSetMask = false with SetVectorMask.
  {
    Level0Case c;
    c.kind = MaskKind::kPreset;
    c.lo = 0x00ff00ff00ff00ffull;
    c.hi = kPer > 64 ? 0xff00000000000000ull : 0;
    c.repeat = 9;
    c.strides.rep[1] = 4;
    cases.push_back(c);
  }
  // A source repeating one DataBlock (block stride 0, a per-row value as Brcb spreads it), with
  // row-pitched repeats: one run per repeat in ForEachRun.
  for (uint32_t len : {5u, 40u, 64u, kPer}) {
    Level0Case c;
    c.kind = MaskKind::kContinuous;
    c.len = len;
    c.repeat = 6;
    c.strides.blk[len % 2 + 1] = 0;
    c.strides.rep[len % 2 + 1] = 1;
    c.strides.rep[0] = 12;
    c.strides.rep[2 - len % 2] = 12;
    cases.push_back(c);
  }
  {
    Level0Case c;  // both sources repeat a block, in counter mode over several repeats
    c.kind = MaskKind::kCounter;
    c.len = 2 * kPer + 9;
    c.repeat = 1;
    c.strides.blk[1] = c.strides.blk[2] = 0;
    c.strides.rep[1] = c.strides.rep[2] = 1;
    cases.push_back(c);
  }
  return cases;
}

template <typename T>
void CheckLevel0() {
  constexpr uint32_t kPer = 256 / sizeof(T);
  std::mt19937 rng(99);
  const auto cases = Level0Cases<T>(rng);
  for (const Api<T>& api : AllApis<T>()) {
    Mismatches bad;
    const int64_t ulps = ref::UlpBound<T>(api.op);
    Status st = RunVectorKernel([&] {
      AscendC::TPipe pipe;
      UbArena ub(pipe);
      for (const Level0Case& c : cases) {
        ref::Level0Mask m = c.kind == MaskKind::kContinuous ? ref::ContinuousMask(c.len)
                            : c.kind == MaskKind::kCounter  ? ref::CounterMask(c.len)
                                                            : ref::BitMask(c.hi, c.lo);
        ref::Level0Operand op[3];
        for (int k = 0; k < 3; ++k) op[k] = {sizeof(T), c.strides.blk[k], c.strides.rep[k]};
        const int nsrc = Sources(api.arity);
        uint64_t elems[3] = {0, 0, 0};
        uint64_t total = 0;
        for (int k = 0; k <= nsrc; ++k) {
          elems[k] = (ref::Level0Extent(op[k], m, kPer, c.repeat) + sizeof(T) - 1) / sizeof(T);
          total += (elems[k] * sizeof(T) + 31) / 32 * 32;
        }
        if (total > UbArena::kBytes) continue;  // does not fit UB: covered by smaller cases
        ub.Reset();
        LocalTensor<T> t[3];
        std::vector<T> v[3];
        for (int k = 0; k <= nsrc; ++k) {
          t[k] = ub.Get<T>(elems[k]);
          v[k] = RandomFor<T>(k == 0 ? VecOp::kAdd : api.op, elems[k], rng, k != 0);
          Fill(t[k], v[k]);
        }
        const T s = RandomScalar<T>(api.op, rng);
        std::vector<T> want = v[0];
        ref::Level0ForEach(m, kPer, c.repeat, [&](uint32_t r, uint32_t e) {
          auto at = [&](int k) -> T {
            return k <= nsrc ? v[k][ref::Level0Offset(op[k], r, e) / sizeof(T)] : T{};
          };
          T& d = want[ref::Level0Offset(op[0], r, e) / sizeof(T)];
          d = ref::Apply<T>(api.op, at(1), at(2), s, d);
        });
        const LocalTensor<T>& a = nsrc >= 1 ? t[1] : t[0];
        const LocalTensor<T>& b = nsrc >= 2 ? t[2] : t[0];
        switch (c.kind) {
          case MaskKind::kBits: {
            const uint64_t mask[2] = {c.lo, c.hi};
            api.bits(t[0], a, b, s, mask, c.repeat, c.strides);
            break;
          }
          case MaskKind::kContinuous:
            api.cont(t[0], a, b, s, c.len, c.repeat, c.strides);
            break;
          case MaskKind::kCounter: {
            AscendC::SetMaskCount();
            const uint64_t mask[2] = {c.len, 0};
            // Alternate between the bit-array and the scalar mask argument.
            if (c.len % 2) {
              api.bits(t[0], a, b, s, mask, c.repeat, c.strides);
            } else {
              api.cont(t[0], a, b, s, c.len, c.repeat, c.strides);
            }
            AscendC::SetMaskNorm();
            break;
          }
          case MaskKind::kPreset:
            AscendC::SetVectorMask<T>(c.hi, c.lo);
            api.preset(t[0], a, b, s, c.repeat, c.strides);
            AscendC::ResetMask();
            break;
        }
        const auto got = Read(t[0], elems[0]);
        for (uint64_t i = 0; i < elems[0]; ++i) {
          bad.Check(Matches(got[i], want[i], ulps),
                    std::string(api.name) + " " + c.Describe() + " i=" + std::to_string(i), got[i],
                    want[i]);
        }
      }
    });
    ASSERT_TRUE(st.ok()) << api.name << ": " << st.ToString();
    bad.Expect(std::string(api.name) + " level-0 on " + DTypeName(DTypeOf<T>()) + " (engine " +
               kernel::engine::EngineIsa() + ")");
  }
}

TEST(ElementwiseLevel0, Half) { CheckLevel0<half>(); }
TEST(ElementwiseLevel0, Bfloat16) { CheckLevel0<bfloat16>(); }
TEST(ElementwiseLevel0, Float) { CheckLevel0<float>(); }
TEST(ElementwiseLevel0, Int16) { CheckLevel0<int16_t>(); }
TEST(ElementwiseLevel0, Int32) { CheckLevel0<int32_t>(); }

// Counter mode through SetVectorMask with isSetMask = false.
TEST(ElementwiseLevel0, CounterModeFromSetVectorMask) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    UbArena ub(pipe);
    auto d = ub.Get<float>(512), a = ub.Get<float>(512);
    AscendC::Duplicate(d, -1.0f, 512);
    AscendC::Duplicate(a, 2.0f, 512);
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(0, 130);
    AscendC::Adds<float, false>(d, a, 1.0f, AscendC::MASK_PLACEHOLDER, 1, UnaryRepeatParams{});
    AscendC::SetMaskNorm();
    AscendC::ResetMask();
    for (uint32_t i = 0; i < 512; ++i) {
      EXPECT_EQ(d.GetValue(i), i < 130 ? 3.0f : -1.0f) << i;
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

}  // namespace
}  // namespace aicore::testing
