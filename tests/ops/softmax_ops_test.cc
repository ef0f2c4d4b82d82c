// Softmax and LogSoftmax through the C++ API against double-precision references: every dtype,
// rows of 1, primes and tails, rows longer than UB (the online pass), dims negative and positive,
// a transposed view, ranks 0..8, magnitudes around 1e4, empty tensors and the checks.
#include <gtest/gtest.h>

#include "aicore/arch/chip.h"
#include "ops_lib_test_util.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::ExpectNear;
using testing::Inputs;
using testing::TolFor;

const DType kDTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

void CheckLastDim(DType in, DType out, int64_t rows, int64_t cols, bool log, double lo, double hi,
                  uint64_t max_ub = 0) {
  SCOPED_TRACE(StrCat(OpDTypeName(in), "->", OpDTypeName(out), " rows=", rows, " cols=", cols,
                      log ? " log" : "", max_ub ? " capped UB" : ""));
  DeviceTensor x(in, rows * cols), y(out, rows * cols);
  const auto xv = x.Fill(Inputs(rows * cols, lo, hi, static_cast<uint32_t>(cols)));
  SoftmaxArgs a;
  a.self = x.Ref({rows, cols});
  a.out = y.Ref({rows, cols});
  a.dim = -1;
  a.log = log;
  a.max_ub_bytes = max_ub;
  const SoftmaxPlan plan = Plan(a, arch::DefaultChip());
  if (max_ub) {
    EXPECT_TRUE(plan.rows.tiling.online);
  }
  ASSERT_TRUE(ops::Run(a).ok());
  testing::Sync();
  testing::Tolerance tol = TolFor(out);
  if (log) tol.atol = std::max(tol.atol, tol.rtol);  // log-softmax near 0
  ExpectNear(y.Read(), ref::SoftmaxRowsRef(xv, rows, cols, log), tol, "softmax");
}

TEST(SoftmaxOpsTest, OnePassShapes) {
  for (DType dt : kDTypes) {
    for (auto [r, c] :
         {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {97, 101}, {1027, 64}, {5, 1003}}) {
      CheckLastDim(dt, dt, r, c, false, -5, 5);
      CheckLastDim(dt, dt, r, c, true, -5, 5);
    }
  }
}

TEST(SoftmaxOpsTest, SixteenBitRowsPackSeveralPerTileUpToTheUbBudget) {
  // 16-bit queue slots hold 4 rows of 4096 columns in 192 KiB (fp32: 2); enough rows that every
  // block takes a full tile and a tail. The kernel fails the launch if UB is exceeded.
  const arch::Chip& chip = arch::DefaultChip();
  const int64_t rows = 4 * BudgetOf(chip).cores + 5, cols = 4096;
  for (DType dt : kDTypes) {
    SoftmaxArgs a;
    a.self = DenseRef(nullptr, dt, {rows, cols});
    a.out = a.self;
    const SoftmaxPlan p = Plan(a, chip);
    EXPECT_FALSE(p.rows.tiling.online);
    EXPECT_GE(p.rows.tiling.rows_per_tile, dt == DType::kF32 ? 2u : 4u) << OpDTypeName(dt);
    CheckLastDim(dt, dt, rows, cols, false, -6, 6);
    CheckLastDim(dt, dt, rows, cols, true, -6, 6);
  }
  CheckLastDim(DType::kF16, DType::kF32, rows, cols, false, -6, 6);
  CheckLastDim(DType::kF32, DType::kBF16, rows, cols, true, -6, 6);
}

TEST(SoftmaxOpsTest, RowsLongerThanUbTakeTheOnlinePass) {
  // 20011 fp32 columns do not fit 192 KiB of UB with double buffering; 3001 do not fit 16 KiB.
  const SoftmaxPlan p = [] {
    SoftmaxArgs a;
    a.self = DenseRef(nullptr, DType::kF32, {3, 20011});
    a.out = a.self;
    return Plan(a, arch::DefaultChip());
  }();
  EXPECT_TRUE(p.rows.tiling.online);
  for (DType dt : kDTypes) {
    CheckLastDim(dt, dt, 3, 20011, false, -8, 8);
    CheckLastDim(dt, dt, 2, 3001, true, -8, 8, 16 * 1024);
  }
  CheckLastDim(DType::kF32, DType::kF32, 37, 3001, false, -8, 8, 16 * 1024);
}

TEST(SoftmaxOpsTest, LargeMagnitudesDoNotOverflow) {
  CheckLastDim(DType::kF32, DType::kF32, 9, 513, false, -1e4, 1e4);
  CheckLastDim(DType::kF32, DType::kF32, 2, 4099, true, 9e3, 1e4, 8 * 1024);
  CheckLastDim(DType::kF16, DType::kF16, 9, 77, false, -1e4, 1e4);
}

TEST(SoftmaxOpsTest, OutDtypeMayDiffer) {
  CheckLastDim(DType::kF16, DType::kF32, 17, 259, false, -4, 4);
  CheckLastDim(DType::kF32, DType::kBF16, 17, 259, true, -4, 4);
}

TEST(SoftmaxOpsTest, EveryDimOfARank3TensorNegativeAndPositive) {
  const std::vector<int64_t> shape = {5, 6, 7};
  DeviceTensor x(DType::kF32, 210), y(DType::kF32, 210);
  const auto xv = x.Fill(Inputs(210, -3, 3, 11));
  for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
    SCOPED_TRACE(dim);
    ASSERT_TRUE(Softmax(x.Ref(shape), dim, y.Ref(shape)).ok());
    testing::Sync();
    const int64_t d = dim < 0 ? dim + 3 : dim;
    // Reference: gather rows along d.
    std::vector<int64_t> st = {42, 7, 1};
    std::vector<double> want(210);
    const int64_t len = shape[d];
    for (int64_t base = 0; base < 210; ++base) {
      if ((base / st[d]) % len != 0) continue;  // the first element of each line along d
      std::vector<double> line(len);
      for (int64_t k = 0; k < len; ++k) line[k] = xv[base + k * st[d]];
      const auto out = ref::SoftmaxRowsRef(line, 1, len, false);
      for (int64_t k = 0; k < len; ++k) want[base + k * st[d]] = out[k];
    }
    ExpectNear(y.Read(), want, TolFor(DType::kF32), "softmax dim");
  }
}

TEST(SoftmaxOpsTest, TransposedView) {
  // A (40, 30) view with strides (1, 40) over a (30, 40) buffer; softmax over its last dim.
  DeviceTensor x(DType::kF16, 1200), y(DType::kF16, 1200);
  const auto xv = x.Fill(Inputs(1200, -2, 2, 12));
  ASSERT_TRUE(LogSoftmax(x.Ref({40, 30}, {1, 40}), 1, y.Ref({40, 30})).ok());
  testing::Sync();
  std::vector<double> rows(1200);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 30; ++j) rows[i * 30 + j] = xv[j * 40 + i];
  testing::Tolerance tol = TolFor(DType::kF16);
  tol.atol = 4e-3;
  ExpectNear(y.Read(), ref::SoftmaxRowsRef(rows, 40, 30, true), tol, "transposed");
}

TEST(SoftmaxOpsTest, RanksZeroToEight) {
  DeviceTensor x0(DType::kF32, 1), y0(DType::kF32, 1);
  x0.Fill({3.0});
  ASSERT_TRUE(Softmax(x0.Ref({}), 0, y0.Ref({})).ok());
  testing::Sync();
  EXPECT_EQ(y0.Read()[0], 1.0);
  for (int rank = 1; rank <= 8; ++rank) {
    std::vector<int64_t> shape(rank, 2);
    shape.back() = 5;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    DeviceTensor x(DType::kF32, n), y(DType::kF32, n);
    const auto xv = x.Fill(Inputs(n, -3, 3, rank));
    ASSERT_TRUE(Softmax(x.Ref(shape), -1, y.Ref(shape)).ok());
    testing::Sync();
    ExpectNear(y.Read(), ref::SoftmaxRowsRef(xv, n / 5, 5, false), TolFor(DType::kF32),
               "rank " + std::to_string(rank));
  }
}

TEST(SoftmaxOpsTest, EmptyAndBadArguments) {
  DeviceTensor x(DType::kF32, 8), y(DType::kF32, 8);
  EXPECT_TRUE(Softmax(x.Ref({0, 4}), 1, y.Ref({0, 4})).ok());
  Status s = Softmax(x.Ref({2, 4}), 2, y.Ref({2, 4}));
  EXPECT_NE(s.message().find(
                "aicore::ops::Softmax: dim 2 is out of range for self of 2 dims; allowed: [-2, 1]"),
            std::string::npos)
      << s.message();
  s = Softmax(x.Ref({2, 4}), -3, y.Ref({2, 4}));
  EXPECT_FALSE(s.ok());
  s = LogSoftmax(x.Ref({}), 0, y.Ref({}));
  EXPECT_NE(s.message().find("self has 0 dims; allowed: 1 to 8"), std::string::npos) << s.message();
  s = Softmax(x.Ref({2, 4}), 0, y.Ref({4, 2}));
  EXPECT_NE(s.message().find("out has shape [4, 2]; it must equal self's shape [2, 4]"),
            std::string::npos)
      << s.message();
  testing::Sync();
}

}  // namespace
}  // namespace aicore::ops
