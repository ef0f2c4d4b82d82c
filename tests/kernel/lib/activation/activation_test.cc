// Gelu, FasterGelu, FasterGeluV2, Sigmoid, Silu and Swish against tests/reference/activation_ref.h
// over lengths that are not multiples of a repeat, both dtypes, min and max scratch, aliasing,
// the no-scratch overloads, and the error cases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/ascendc/tiling/tiling_api.h"
#include "tests/kernel/lib/lib_test_util.h"
#include "tests/reference/activation_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RunOnUb;
using aicore::testing::ToDouble;
using aicore::testing::UbArena;
using aicore::testing::Uniform;
using ::testing::HasSubstr;

const uint32_t kLengths[] = {1, 7, 64, 65, 200, 1000, 4099};

template <typename T>
class ActivationTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(ActivationTest, Types);

// Tolerance: float math rounded to T, plus the input's own rounding for half.
template <typename T>
double Near(double want) {
  return (sizeof(T) == 2 ? 2e-3 : 1e-5) * std::max(1.0, std::fabs(want));
}

enum class Fn { kGelu, kFasterGelu, kFasterGeluV2, kSigmoid };

template <typename T>
void Apply(Fn fn, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
           const AscendC::LocalTensor<uint8_t>& tmp, uint32_t n) {
  switch (fn) {
    case Fn::kGelu: AscendC::Gelu(dst, src, tmp, n); break;
    case Fn::kFasterGelu: AscendC::FasterGelu(dst, src, tmp, n); break;
    case Fn::kFasterGeluV2: AscendC::FasterGeluV2(dst, src, tmp, n); break;
    case Fn::kSigmoid: AscendC::Sigmoid(dst, src, tmp, n); break;
  }
}
double Ref(Fn fn, double x) {
  switch (fn) {
    case Fn::kGelu: return aicore::ref::Gelu(x);
    case Fn::kFasterGelu: return aicore::ref::FasterGelu(x);
    case Fn::kFasterGeluV2: return aicore::ref::FasterGeluV2(x);
    case Fn::kSigmoid: return aicore::ref::Sigmoid(x);
  }
  return 0;
}

TYPED_TEST(ActivationTest, ScratchFormsMatchReference) {
  using T = TypeParam;
  for (Fn fn : {Fn::kGelu, Fn::kFasterGelu, Fn::kFasterGeluV2, Fn::kSigmoid}) {
    for (uint32_t n : kLengths) {
      const AscendC::TensorShape shape({n});
      uint32_t max = 0, min = 0;
      if (fn == Fn::kSigmoid) {
        AscendC::GetSigmoidMaxMinTmpSize(shape, sizeof(T), false, max, min);
      } else {
        AscendC::GetGeluMaxMinTmpSize(shape, sizeof(T), max, min);
        EXPECT_EQ(min, AscendC::GetGeluMinTmpSize(shape, sizeof(T)));
      }
      for (uint32_t bytes : {min, max}) {
        auto x = Uniform<T>(n, n + bytes, -6, 6);
        x[0] = static_cast<T>(0.0f);
        std::vector<T> y;
        const auto st = RunOnUb([&](UbArena& a) {
          auto src = a.Load(x);
          auto dst = a.Get<T>(n);
          Apply(fn, dst, src, a.Get<uint8_t>(bytes), n);
          y = FromTensor(dst, n);
        });
        ASSERT_TRUE(st.ok()) << st.ToString();
        const auto xd = ToDouble(x);
        for (uint32_t i = 0; i < n; ++i) {
          const double want = Ref(fn, xd[i]);
          ASSERT_NEAR(static_cast<float>(y[i]), want, Near<T>(want))
              << "fn " << static_cast<int>(fn) << " n " << n << " i " << i << " x " << xd[i];
        }
      }
    }
  }
}

TYPED_TEST(ActivationTest, GeluAliasAndStackBuffer) {
  using T = TypeParam;
  const uint32_t n = 777;
  const auto x = Uniform<T>(n, 3, -5, 5);
  std::vector<T> y_alias, y_stack;
  const auto st = RunOnUb([&](UbArena& a) {
    auto buf = a.Load(x);
    AscendC::Gelu(buf, buf, a.Get<uint8_t>(AscendC::GetGeluMinTmpSize({n}, sizeof(T))), n);
    y_alias = FromTensor(buf, n);
    auto src = a.Load(x);
    auto dst = a.Get<T>(n);
    AscendC::Gelu(dst, src, n);
    y_stack = FromTensor(dst, n);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (uint32_t i = 0; i < n; ++i) {
    const double want = aicore::ref::Gelu(static_cast<float>(x[i]));
    ASSERT_NEAR(static_cast<float>(y_alias[i]), want, Near<T>(want));
    ASSERT_EQ(static_cast<float>(y_alias[i]), static_cast<float>(y_stack[i]));
  }
}

TYPED_TEST(ActivationTest, SiluSwishAndSigmoidOverloads) {
  using T = TypeParam;
  for (uint32_t n : kLengths) {
    const auto x = Uniform<T>(n, n, -8, 8);
    std::vector<T> silu, swish, sig_count, sig_all;
    const uint32_t padded = (n + 15) / 16 * 16;
    const auto st = RunOnUb([&](UbArena& a) {
      auto src = a.Load(x);
      auto d1 = a.Get<T>(n), d2 = a.Get<T>(n), d3 = a.Get<T>(padded), d4 = a.Get<T>(n);
      AscendC::Silu<T>(d1, src, n);
      AscendC::Swish(d2, src, n, 1.5f);
      AscendC::Sigmoid<T>(d3, src, n);
      AscendC::Sigmoid<T, false>(d4, src);  // count = src.GetSize()
      silu = FromTensor(d1, n);
      swish = FromTensor(d2, n);
      sig_count = FromTensor(d3, n);
      sig_all = FromTensor(d4, n);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto xd = ToDouble(x);
    // Silu/Swish run in T: a few roundings of T.
    const double t_tol = sizeof(T) == 2 ? 8e-3 : 1e-5;
    for (uint32_t i = 0; i < n; ++i) {
      const double s1 = aicore::ref::Swish(xd[i], 1.0), s2 = aicore::ref::Swish(xd[i], 1.5);
      ASSERT_NEAR(static_cast<float>(silu[i]), s1, t_tol * std::max(1.0, std::fabs(s1))) << i;
      ASSERT_NEAR(static_cast<float>(swish[i]), s2, t_tol * std::max(1.0, std::fabs(s2))) << i;
      ASSERT_NEAR(static_cast<float>(sig_count[i]), aicore::ref::Sigmoid(xd[i]), Near<T>(1));
      ASSERT_EQ(static_cast<float>(sig_count[i]), static_cast<float>(sig_all[i]));
    }
  }
  uint32_t max = 1, min = 1;
  AscendC::GetSiluTmpSize({64}, sizeof(T), false, max, min);
  EXPECT_EQ(max + min, 0u);
}

TEST(ActivationErrors, ScratchBelowMinimumAndOverlap) {
  const uint32_t min = AscendC::GetGeluMinTmpSize({128}, 4);
  const auto st = RunOnUb([&](UbArena& a) {
    auto x = a.Get<float>(128);
    AscendC::Duplicate(x, 1.0f, 128);
    AscendC::Gelu(x, x, a.Get<uint8_t>(min - 32), 128);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.ToString(), HasSubstr("sharedTmpBuffer holds"));
  const auto st2 = RunOnUb([&](UbArena& a) {
    auto x = a.Get<float>(128);
    AscendC::Duplicate(x, 1.0f, 128);
    AscendC::Silu<float>(x[8], x, 64);
  });
  ASSERT_FALSE(st2.ok());
  EXPECT_THAT(st2.ToString(), HasSubstr("overlap"));
}

}  // namespace
