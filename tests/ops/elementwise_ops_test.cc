// The elementwise operators through the C++ API against double-precision references: every dtype,
// sizes with 1, primes and tails, broadcasting, mixed-dtype promotion, a transposed view, ranks
// 1..8, empty tensors and the checks.
#include <gtest/gtest.h>

#include <functional>

#include "ops_lib_test_util.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::ExpectNear;
using testing::Inputs;
using testing::TolFor;

const DType kDTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

void CheckUnary(const char* name, std::function<Status(const TensorRef&, const TensorRef&)> op,
                double (*ref)(double), double lo, double hi) {
  for (DType dt : kDTypes) {
    for (int64_t n : {1, 7, 64, 1031, 100003}) {
      SCOPED_TRACE(testing::DTypeLabel(dt) + std::string(" n=") + std::to_string(n));
      DeviceTensor x(dt, n), y(dt, n);
      const std::vector<double> xv = x.Fill(Inputs(n, lo, hi, n));
      ASSERT_TRUE(op(x.Ref({n}), y.Ref({n})).ok());
      testing::Sync();
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i) want[i] = ref(xv[i]);
      ExpectNear(y.Read(), want, TolFor(dt), name);
    }
  }
}

TEST(ElementwiseOpsTest, SiluMatchesReference) {
  CheckUnary(
      "Silu", [](auto& x, auto& y) { return Silu(x, y); }, ref::SiluRef, -20, 20);
}

TEST(ElementwiseOpsTest, GeluTanhMatchesReference) {
  CheckUnary(
      "Gelu", [](auto& x, auto& y) { return Gelu(x, y); }, ref::GeluTanhRef, -12, 12);
  CheckUnary(
      "GeluV2(1)", [](auto& x, auto& y) { return GeluV2(x, 1, y); }, ref::GeluTanhRef, -6, 6);
}

TEST(ElementwiseOpsTest, GeluErfMatchesReference) {
  CheckUnary(
      "GeluV2(0)", [](auto& x, auto& y) { return GeluV2(x, 0, y); }, ref::GeluErfRef, -12, 12);
}

TEST(ElementwiseOpsTest, AddWithAlphaEveryDTypePair) {
  const int64_t n = 4099;
  for (DType a : kDTypes) {
    for (DType b : kDTypes) {
      SCOPED_TRACE(std::string(testing::DTypeLabel(a)) + "+" + testing::DTypeLabel(b));
      const DType o = PromoteFloat(a, b);
      DeviceTensor x(a, n), y(b, n), z(o, n);
      const auto xv = x.Fill(Inputs(n, -3, 3, 1));
      const auto yv = y.Fill(Inputs(n, -3, 3, 2));
      ASSERT_TRUE(Add(x.Ref({n}), y.Ref({n}), 2.5, z.Ref({n})).ok());
      testing::Sync();
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i) want[i] = xv[i] + 2.5 * yv[i];
      ExpectNear(z.Read(), want, TolFor(o), "Add");
    }
  }
}

TEST(ElementwiseOpsTest, MulBroadcastsRowAndColumn) {
  // (5, 1, 7) * (3, 1) -> (5, 3, 7)
  DeviceTensor x(DType::kF32, 35), y(DType::kF16, 3), z(DType::kF32, 105);
  const auto xv = x.Fill(Inputs(35, -2, 2, 3));
  const auto yv = y.Fill(Inputs(3, -2, 2, 4));
  ASSERT_TRUE(Mul(x.Ref({5, 1, 7}), y.Ref({3, 1}), z.Ref({5, 3, 7})).ok());
  testing::Sync();
  std::vector<double> want(105);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 7; ++k) want[(i * 3 + j) * 7 + k] = xv[i * 7 + k] * yv[j];
  ExpectNear(z.Read(), want, TolFor(DType::kF32), "Mul broadcast");
}

TEST(ElementwiseOpsTest, AddsAndMulsWithScalars) {
  const int64_t n = 333;
  for (DType dt : kDTypes) {
    DeviceTensor x(dt, n), y(dt, n), z(dt, n);
    const auto xv = x.Fill(Inputs(n, -5, 5, 9));
    ASSERT_TRUE(Adds(x.Ref({n}), 1.5, -2.0, y.Ref({n})).ok());
    ASSERT_TRUE(Muls(x.Ref({n}), 0.75, z.Ref({n})).ok());
    testing::Sync();
    std::vector<double> wa(n), wm(n);
    for (int64_t i = 0; i < n; ++i) {
      wa[i] = xv[i] - 3.0;
      wm[i] = xv[i] * 0.75;
    }
    ExpectNear(y.Read(), wa, TolFor(dt), "Adds");
    ExpectNear(z.Read(), wm, TolFor(dt), "Muls");
  }
}

TEST(ElementwiseOpsTest, TransposedInputAndStridedOutput) {
  // self: a (13, 29) view with strides (1, 13) over a (29, 13) buffer; out: every other column.
  const int64_t r = 13, c = 29;
  DeviceTensor x(DType::kF32, r * c), y(DType::kF32, r * c), z(DType::kF32, r * c * 2);
  const auto xv = x.Fill(Inputs(r * c, -1, 1, 5));
  const auto yv = y.Fill(Inputs(r * c, -1, 1, 6));
  ASSERT_TRUE(Add(x.Ref({r, c}, {1, r}), y.Ref({r, c}), 1.0, z.Ref({r, c}, {2 * c, 2}, 1)).ok());
  testing::Sync();
  const auto zv = z.Read();
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t j = 0; j < c; ++j) {
      ASSERT_NEAR(zv[1 + i * 2 * c + 2 * j], xv[j * r + i] + yv[i * c + j], 1e-6);
      ASSERT_EQ(zv[i * 2 * c + 2 * j], 0.0);  // untouched
    }
  }
}

TEST(ElementwiseOpsTest, RanksOneToEight) {
  for (int rank = 1; rank <= 8; ++rank) {
    std::vector<int64_t> shape(rank, 2);
    shape[0] = 3;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    DeviceTensor x(DType::kBF16, n), y(DType::kBF16, n);
    const auto xv = x.Fill(Inputs(n, -4, 4, rank));
    ASSERT_TRUE(Silu(x.Ref(shape), y.Ref(shape)).ok());
    testing::Sync();
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = ref::SiluRef(xv[i]);
    ExpectNear(y.Read(), want, TolFor(DType::kBF16), "Silu rank " + std::to_string(rank));
  }
}

TEST(ElementwiseOpsTest, EmptyTensorsSucceed) {
  DeviceTensor x(DType::kF32, 1), y(DType::kF32, 1);
  EXPECT_TRUE(Add(x.Ref({0, 3}), x.Ref({3}), 1.0, y.Ref({0, 3})).ok());
  EXPECT_TRUE(Gelu(x.Ref({4, 0}), y.Ref({4, 0})).ok());
  testing::Sync();
}

TEST(ElementwiseOpsTest, BadArgumentsAreNamed) {
  DeviceTensor x(DType::kF32, 12), y(DType::kF32, 12);
  Status s = Add(x.Ref({3, 4}), x.Ref({2, 4}), 1.0, y.Ref({3, 4}));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("aicore::ops::Add: self [3, 4] and other [2, 4] do not broadcast"),
            std::string::npos)
      << s.message();
  s = Silu(x.Ref({3, 4}), y.Ref({4, 3}));
  EXPECT_NE(s.message().find("out has shape [4, 3]; it must be self's shape [3, 4]"),
            std::string::npos)
      << s.message();
  TensorRef bad = x.Ref({12});
  bad.dtype = DType::kI32;
  s = Gelu(bad, y.Ref({12}));
  EXPECT_NE(s.message().find("self has dtype INT32; allowed: FLOAT, FLOAT16, BFLOAT16"),
            std::string::npos)
      << s.message();
  s = Silu(x.Ref({12}), DenseRef(y.data(), DType::kF16, {12}));
  EXPECT_NE(s.message().find("out has dtype FLOAT16; it must equal self's dtype FLOAT"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace aicore::ops
