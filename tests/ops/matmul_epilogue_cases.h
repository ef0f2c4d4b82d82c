// The cases and the check the matmul epilogue tests share (matmul_epilogue_test.cc on the GM
// workspace, matmul_epilogue_ub_test.cc on the L0C -> UB path): a case's shapes, views, dtypes
// and epilogue parameters; Check runs it (fused, with the strategy the case forces, or the
// unfused composition) and compares out with the double reference of
// tests/reference/matmul_epilogue_ref.h; and the case tables both run.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aicore/ops/framework/run_op.h"
#include "aicore/ops/matmul/matmul_epilogue.h"
#include "aicore/ops/ops.h"
#include "tests/ops/ops_lib_test_util.h"
#include "tests/reference/matmul_epilogue_ref.h"

namespace aicore::ops::epilogue_cases {

// One case: shapes, views, dtypes and the epilogue's parameters.
struct Case {
  DType dt = DType::kF32;
  DType out_dt = DType::kUnknown;  // kUnknown: dt
  std::vector<int64_t> as, bs;
  std::vector<int64_t> a_strides, b_strides;
  std::optional<std::vector<int64_t>> bias_shape, residual_shape;
  std::vector<int64_t> bias_strides, residual_strides, out_strides;
  DType bias_dt = DType::kUnknown, residual_dt = DType::kUnknown;  // kUnknown: dt
  double alpha = 1, beta = 1;
  ref::EpilogueAct act = ref::EpilogueAct::kNone;
  bool unfused = false;  // run MatmulEpilogueUnfused instead
  // The strategy forced (MatmulEpilogueArgs::strategy), which Check expects the plan to take;
  // absent: the plan's choice.
  std::optional<EpilogueStrategy> strategy;
};

inline std::string Label(const Case& c) {
  return StrCat(ShapeString(c.as), " @ ", ShapeString(c.bs), " ", OpDTypeName(c.dt), " -> ",
                OpDTypeName(c.out_dt == DType::kUnknown ? c.dt : c.out_dt), " act ",
                static_cast<int>(c.act), " bias ",
                c.bias_shape ? ShapeString(*c.bias_shape) : std::string("none"), " residual ",
                c.residual_shape ? ShapeString(*c.residual_shape) : std::string("none"), " alpha ",
                c.alpha, " beta ", c.beta, c.unfused ? " unfused" : "",
                c.strategy == EpilogueStrategy::kL0cToUb ? " kL0cToUb" : "");
}

// The arguments of the case without storage (for Plan and CanImplement): a, b and out dense.
inline MatmulEpilogueArgs ShapeArgs(const Case& c) {
  // Plan and CanImplement read no storage: addresses 1 TiB apart keep out from overlapping a
  // or b (an error) whatever the shapes.
  const auto at = [](uintptr_t i) { return reinterpret_cast<void*>(i << 40); };
  MatmulEpilogueArgs args;
  args.a = DenseRef(at(1), c.dt, c.as);
  args.b = DenseRef(at(2), c.dt, c.bs);
  std::vector<int64_t> os(c.as.begin(), c.as.end() - 1);
  os.push_back(c.bs.back());
  args.out = DenseRef(at(3), c.out_dt == DType::kUnknown ? c.dt : c.out_dt, os);
  args.strategy = c.strategy;
  return args;
}

// Runs the case on the default chip and checks it against the reference (and, when the case
// forces a strategy, that the plan takes it).
inline void Check(const Case& c) {
  const std::string what = Label(c);
  if (c.strategy) {
    ASSERT_EQ(Plan(ShapeArgs(c), arch::DefaultChip()).strategy, *c.strategy) << what;
  }
  const DType out_dt = c.out_dt == DType::kUnknown ? c.dt : c.out_dt;
  const testing::Operand a = testing::MakeOperand(c.dt, c.as, c.a_strides, 3, 1);
  const testing::Operand b = testing::MakeOperand(c.dt, c.bs, c.b_strides, 5, 2);
  std::vector<int64_t> os;
  BroadcastShapes(std::vector<int64_t>(c.as.begin(), c.as.end() - 2),
                  std::vector<int64_t>(c.bs.begin(), c.bs.end() - 2), &os);
  os.push_back(c.as[c.as.size() - 2]);
  os.push_back(c.bs.back());
  std::optional<testing::Operand> bias, residual;
  std::vector<double> bias_full, residual_full;
  if (c.bias_shape) {
    bias = testing::MakeOperand(c.bias_dt == DType::kUnknown ? c.dt : c.bias_dt, *c.bias_shape,
                                c.bias_strides, 1, 7, -2, 2);
    bias_full = ref::BroadcastRef(bias->logical, *c.bias_shape, os);
  }
  if (c.residual_shape) {
    residual = testing::MakeOperand(c.residual_dt == DType::kUnknown ? c.dt : c.residual_dt,
                                    *c.residual_shape, c.residual_strides, 2, 9);
    residual_full = ref::BroadcastRef(residual->logical, *c.residual_shape, os);
  }
  testing::Operand out = testing::MakeOperand(out_dt, os, c.out_strides, 0, 11);
  const ref::MatmulEpilogueRefResult want = ref::MatmulEpilogueRef(
      a.logical, c.as, b.logical, c.bs, bias_full, residual_full, c.alpha, c.beta, c.act);
  const auto act = static_cast<Activation>(static_cast<int>(c.act));
  const TensorRef* bias_ref = bias ? &bias->view : nullptr;
  const TensorRef* res_ref = residual ? &residual->view : nullptr;
  Status s;
  if (c.unfused) {
    s = MatmulEpilogueUnfused(a.view, b.view, bias_ref, res_ref, c.alpha, c.beta, act, out.view);
  } else {
    MatmulEpilogueArgs args;
    args.op = "aicore::ops::MatmulEpilogue";
    args.a = a.view;
    args.b = b.view;
    if (bias) args.bias = bias->view;
    if (residual) args.residual = residual->view;
    args.alpha = c.alpha;
    args.beta = c.beta;
    args.activation = act;
    args.out = out.view;
    args.strategy = c.strategy;
    s = RunOp(args, nullptr);
  }
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  testing::Sync();
  const std::vector<double> got = testing::Gather(out.dev->Read(), out.view);
  ASSERT_EQ(got.size(), want.out.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = want.tol[i] + testing::OutputUnit(out_dt) * std::fabs(want.out[i]) +
                       1e-7;  // fp16 subnormals
    if (!(std::fabs(got[i] - want.out[i]) <= tol) && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want.out[i]
                    << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

inline constexpr ref::EpilogueAct kActs[] = {ref::EpilogueAct::kNone, ref::EpilogueAct::kRelu,
                                             ref::EpilogueAct::kGeluErf,
                                             ref::EpilogueAct::kGeluTanh, ref::EpilogueAct::kSilu};

// The case tables. Each checks its cases with `base`'s strategy.

// Every activation with bias (none, a row, a matrix) and residual on and off, alpha and beta.
inline void EveryActivationWithAndWithoutBiasAndResidual(const Case& base) {
  const int64_t m = 37, k = 29, n = 45;
  const std::vector<std::optional<std::vector<int64_t>>> biases = {
      std::nullopt, std::vector<int64_t>{n}, std::vector<int64_t>{m, n}};
  for (ref::EpilogueAct act : kActs) {
    for (const auto& bias : biases) {
      for (bool residual : {false, true}) {
        Case c = base;
        c.as = {m, k};
        c.bs = {k, n};
        c.act = act;
        c.bias_shape = bias;
        if (residual) c.residual_shape = std::vector<int64_t>{m, n};
        c.alpha = bias ? 0.75 : 1;
        c.beta = residual ? -1.5 : 1;
        Check(c);
      }
    }
  }
}

// Every input dtype with out in it or FLOAT, and addends in other dtypes than the product.
inline void EveryDtypeWithOutInTheInputDtypeOrFloat(const Case& base) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (DType out_dt : {dt, DType::kF32}) {
      for (ref::EpilogueAct act : {ref::EpilogueAct::kGeluErf, ref::EpilogueAct::kSilu}) {
        Case c = base;
        c.dt = dt;
        c.out_dt = out_dt;
        c.as = {41, 70};
        c.bs = {70, 33};
        c.bias_shape = std::vector<int64_t>{33};
        c.residual_shape = std::vector<int64_t>{41, 33};
        c.act = act;
        Check(c);
        c.bias_dt = dt == DType::kF32 ? DType::kBF16 : DType::kF32;
        c.residual_dt = dt == DType::kF16 ? DType::kF32 : DType::kF16;
        c.bias_shape = std::vector<int64_t>{41, 33};
        Check(c);
      }
    }
  }
}

// Transposed and strided a, b, bias, residual and out, read or written in place or staged.
inline void TransposedAndStridedViews(const Case& base) {
  for (DType dt : {DType::kF32, DType::kF16}) {
    Case c = base;
    c.dt = dt;
    c.act = ref::EpilogueAct::kGeluTanh;
    c.as = {19, 23};
    c.bs = {23, 31};
    // A^T stored (K, pitch 21 >= M) and B^T stored (N, pitch 25 >= K), as torch passes x @ w.t().
    c.a_strides = {1, 21};
    c.b_strides = {1, 25};
    c.bias_shape = std::vector<int64_t>{31};
    c.bias_strides = {2};  // a strided row: staged
    c.residual_shape = std::vector<int64_t>{19, 31};
    c.residual_strides = {40, 1};  // a pitch above N: read in place
    c.out_strides = {36, 1};       // out rows with a pitch: written in place
    Check(c);
    // A bias broadcast along N (one value per row), a transposed residual, a transposed out.
    c.bias_shape = std::vector<int64_t>{19, 1};
    c.bias_strides = {};
    c.residual_strides = {1, 19};
    c.out_strides = {1, 19};
    c.alpha = -0.5;
    c.beta = 2;
    Check(c);
    // Row-major slices with pitches above the extents; a scalar bias; a residual broadcast
    // over M (staged).
    c.a_strides = {30, 1};
    c.b_strides = {40, 1};
    c.bias_shape = std::vector<int64_t>{1};
    c.residual_shape = std::vector<int64_t>{1, 31};
    c.residual_strides = {};
    c.out_strides = {};
    Check(c);
  }
}

}  // namespace aicore::ops::epilogue_cases
