// The matmul family (Matmul, Mm, BatchMatMul, Addmm) against the double-precision reference of
// tests/reference/ops_ref.h: awkward sizes (1, primes, tails of every tile), every dtype,
// transposed and strided views read in place, batch broadcasting, empty tensors and K = 0, the
// cubeMathType rules, and the documented status codes with their aclGetRecentErrMsg texts.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "tests/ops/ops_lib_test_util.h"
#include "tests/reference/matmul_ref.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::Gather;
using testing::Inputs;
using testing::MakeOperand;
using testing::Numel;
using testing::Operand;
using testing::OutputUnit;

double RoundTo(DType dt, double v) {
  if (dt == DType::kF16) return static_cast<float>(half(static_cast<float>(v)));
  if (dt == DType::kBF16) return static_cast<float>(bfloat16(static_cast<float>(v)));
  return static_cast<float>(v);
}

// Compares out (read back) with the reference: fp32 accumulation bound plus out's rounding.
void ExpectMatmulNear(const Operand& out, const std::vector<double>& want,
                      const std::vector<double>& abs, int64_t k, const std::string& what) {
  const std::vector<double> got = Gather(out.dev->Read(), out.view);
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol =
        ref::MatmulTolerance(k, abs[i]) + OutputUnit(out.view.dtype) * std::fabs(want[i]) + 1e-30;
    if (!(std::fabs(got[i] - want[i]) <= tol) && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i]
                    << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

std::string Label(const std::vector<int64_t>& a, const std::vector<int64_t>& b, DType dt) {
  return StrCat(ShapeString(a), " @ ", ShapeString(b), " ", OpDTypeName(dt));
}

// Runs Matmul on fresh operands and checks it against MatmulTorchRef.
void CheckMatmul(DType dt, std::vector<int64_t> as, std::vector<int64_t> bs,
                 DType out_dt = DType::kUnknown, std::vector<int64_t> a_strides = {},
                 std::vector<int64_t> b_strides = {}) {
  if (out_dt == DType::kUnknown) out_dt = dt;
  const Operand a = MakeOperand(dt, as, a_strides, 3, 1);
  const Operand b = MakeOperand(dt, bs, b_strides, 5, 2);
  std::vector<int64_t> os;
  std::vector<double> abs;
  const std::vector<double> want = ref::MatmulTorchRef(a.logical, as, b.logical, bs, &os, &abs);
  Operand out = MakeOperand(out_dt, os);
  const std::string what = Label(as, bs, dt);
  const Status s = Matmul(a.view, b.view, out.view);
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  testing::Sync();
  ExpectMatmulNear(out, want, abs, as.back(), what);
}

TEST(MatmulOpsTest, MmAwkwardShapesEveryDtype) {
  const std::vector<std::vector<int64_t>> mnk = {{1, 1, 1},    {1, 7, 13},     {17, 1, 5},
                                                 {31, 37, 41}, {64, 48, 129},  {130, 67, 19},
                                                 {3, 5, 300},  {257, 190, 111}};
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const auto& s : mnk) {
      const Operand a = MakeOperand(dt, {s[0], s[2]}, {}, 0, 3);
      const Operand b = MakeOperand(dt, {s[2], s[1]}, {}, 0, 4);
      Operand out = MakeOperand(dt, {s[0], s[1]});
      std::vector<int64_t> os;
      std::vector<double> abs;
      const auto want =
          ref::MatmulTorchRef(a.logical, a.view.shape, b.logical, b.view.shape, &os, &abs);
      ASSERT_TRUE(Mm(a.view, b.view, out.view).ok());
      testing::Sync();
      ExpectMatmulNear(out, want, abs, s[2], Label(a.view.shape, b.view.shape, dt));
    }
  }
}

TEST(MatmulOpsTest, TransposedAndSlicedViewsReadInPlace) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    // A^T: (M, K) = (9, 20) as a view of a (20, 11) storage (pitch 11 > M); B^T: (K, N) =
    // (20, 6) with column pitch 23.
    CheckMatmul(dt, {9, 20}, {20, 6}, dt, {1, 11}, {1, 23});
    // Row-major slices with pitches above the extents.
    CheckMatmul(dt, {9, 20}, {20, 6}, dt, {24, 1}, {8, 1});
    // Strided 1-D operands: x (K) with stride 3 and a transposed 2-D partner.
    CheckMatmul(dt, {20}, {20, 6}, dt, {3}, {1, 21});
    // Batches with gaps between them, B transposed per batch.
    CheckMatmul(dt, {3, 5, 13}, {3, 13, 7}, dt, {150, 13, 1}, {100, 1, 13});
  }
}

TEST(MatmulOpsTest, TransposedBIsNotCopiedThroughAclnn) {
  const int64_t m = 5, k = 7, n = 3;
  const Operand a = MakeOperand(DType::kF32, {m, k});
  const Operand bt = MakeOperand(DType::kF32, {k, n}, {1, k});  // B^T stored (n, k)
  Operand out = MakeOperand(DType::kF32, {m, n});
  auto tensor = [](const TensorRef& t) {
    const std::vector<int64_t> s = t.Strides();
    const int64_t storage = 1 << 10;
    return aclCreateTensor(t.shape.data(), t.shape.size(), ACL_FLOAT, s.data(), t.offset,
                           ACL_FORMAT_ND, &storage, 1, t.data);
  };
  aclTensor* ta = tensor(a.view);
  aclTensor* tb = tensor(bt.view);
  aclTensor* to = tensor(out.view);
  uint64_t ws = 1;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(ta, tb, to, 0, &ws, &e), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u) << "a transposed B must be read in place, not staged";
  ASSERT_EQ(aclnnMm(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclDestroyTensor(ta);
  aclDestroyTensor(tb);
  aclDestroyTensor(to);
  testing::Sync();
  std::vector<int64_t> os;
  std::vector<double> abs;
  const auto want = ref::MatmulTorchRef(a.logical, {m, k}, bt.logical, {k, n}, &os, &abs);
  ExpectMatmulNear(out, want, abs, k, "Mm with B^T");
}

TEST(MatmulOpsTest, MatmulBroadcastingRules) {
  CheckMatmul(DType::kF32, {13}, {13});                           // dot product: 0-d out
  CheckMatmul(DType::kF32, {13}, {13, 7});                        // (K) @ (K, N) -> (N)
  CheckMatmul(DType::kF16, {9, 13}, {13});                        // (M, K) @ (K) -> (M)
  CheckMatmul(DType::kF32, {2, 1, 5, 13}, {3, 13, 7});            // batch (2, 1) x (3) -> (2, 3)
  CheckMatmul(DType::kBF16, {4, 5, 13}, {13, 7});                 // 2-D B broadcast over the batch
  CheckMatmul(DType::kF32, {13}, {2, 3, 13, 7});                  // 1-D A against a batch
  CheckMatmul(DType::kF16, {1, 2, 1, 2, 3, 4}, {2, 1, 2, 4, 5});  // 6 dims
}

TEST(MatmulOpsTest, BatchMatMulBroadcastsABatchOfOne) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    const Operand a = MakeOperand(dt, {3, 17, 11});
    const Operand b = MakeOperand(dt, {1, 11, 19}, {}, 0, 7);
    Operand out = MakeOperand(dt, {3, 17, 19});
    std::vector<int64_t> os;
    std::vector<double> abs;
    const auto want =
        ref::MatmulTorchRef(a.logical, {3, 17, 11}, b.logical, {1, 11, 19}, &os, &abs);
    ASSERT_TRUE(BatchMatMul(a.view, b.view, out.view).ok());
    testing::Sync();
    ExpectMatmulNear(out, want, abs, 11, Label({3, 17, 11}, {1, 11, 19}, dt));
  }
}

TEST(MatmulOpsTest, StagedViewsAndMixedDtypes) {
  // Neither axis of A has unit stride: staged. fp16 @ fp32 promotes to fp32.
  CheckMatmul(DType::kF32, {6, 10}, {10, 4}, DType::kF32, {40, 2}, {});
  // A strided out (transposed): staged and scattered.
  const Operand a = MakeOperand(DType::kF16, {6, 10});
  const Operand b = MakeOperand(DType::kF32, {10, 4}, {}, 0, 9);
  Operand out = MakeOperand(DType::kF32, {6, 4}, {1, 6});
  std::vector<int64_t> os;
  std::vector<double> abs;
  const auto want = ref::MatmulTorchRef(a.logical, {6, 10}, b.logical, {10, 4}, &os, &abs);
  ASSERT_TRUE(Mm(a.view, b.view, out.view).ok());
  testing::Sync();
  ExpectMatmulNear(out, want, abs, 10, "fp16 @ fp32 into a transposed out");
  // fp16 inputs, fp32 out (ALLOW_FP32_DOWN_PRECISION keeps fp16 as is).
  const Operand h1 = MakeOperand(DType::kF16, {7, 9}), h2 = MakeOperand(DType::kF16, {9, 5});
  Operand o32 = MakeOperand(DType::kF32, {7, 5});
  const auto want2 = ref::MatmulTorchRef(h1.logical, {7, 9}, h2.logical, {9, 5}, &os, &abs);
  ASSERT_TRUE(Mm(h1.view, h2.view, o32.view, kAllowFp32DownPrecision).ok());
  testing::Sync();
  ExpectMatmulNear(o32, want2, abs, 9, "fp16 @ fp16 -> fp32");
}

TEST(MatmulOpsTest, RowsLongerThanTheMatmulPitch) {
  // K = 70001 > 65535: A (2, K) is staged column-major; B (K, 3) is read in place.
  CheckMatmul(DType::kF32, {2, 70001}, {70001, 3});
  // N = 70001: B is staged column-major (pitch K); C's pitch is not limited.
  CheckMatmul(DType::kF16, {3, 5}, {5, 70001}, DType::kF32, {}, {1, 5});
  CheckMatmul(DType::kF16, {3, 5}, {5, 70001}, DType::kF32, {}, {70001 * 2, 2});
}

TEST(MatmulOpsTest, UseFp16RoundsFloatInputs) {
  const Operand a = MakeOperand(DType::kF32, {8, 33});
  const Operand b = MakeOperand(DType::kF32, {33, 6}, {}, 0, 5);
  Operand out = MakeOperand(DType::kF32, {8, 6});
  std::vector<double> ra = a.logical, rb = b.logical;
  for (double& v : ra) v = RoundTo(DType::kF16, v);
  for (double& v : rb) v = RoundTo(DType::kF16, v);
  std::vector<int64_t> os;
  std::vector<double> abs;
  const auto want = ref::MatmulTorchRef(ra, {8, 33}, rb, {33, 6}, &os, &abs);
  ASSERT_TRUE(Mm(a.view, b.view, out.view, kUseFp16).ok());
  testing::Sync();
  ExpectMatmulNear(out, want, abs, 33, "USE_FP16 against fp16-rounded inputs");
}

TEST(MatmulOpsTest, CubeMathTypeBeforeAtlasA2) {
  // ascend310p (npu_arch 2002) has no fp32 cube path: KEEP_DTYPE refuses FLOAT and
  // ALLOW_FP32_DOWN_PRECISION runs it as FLOAT16; on the A2 default chip FLOAT stays FLOAT.
  const arch::Chip old_chip = arch::LoadChip("ascend310p");
  static float host_a[32], host_b[32], host_c[16];  // checked and planned only, never run
  MatmulArgs a;
  a.kind = MatmulKind::kMm;
  a.op = "aclnnMm";
  a.self = DenseRef(host_a, DType::kF32, {4, 8});
  a.mat2 = DenseRef(host_b, DType::kF32, {8, 4});
  a.out = DenseRef(host_c, DType::kF32, {4, 4});
  const OpCheck c = CanImplement(a, old_chip);
  EXPECT_EQ(c.code, 161002);
  EXPECT_NE(c.message.find("needs a chip whose cube multiplies FLOAT (the cube_fp32 capability"),
            std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("; ascend310p multiplies FLOAT only with cubeMathType 1 or 2"),
            std::string::npos)
      << c.message;
  a.cube_math_type = kAllowFp32DownPrecision;
  ASSERT_TRUE(CanImplement(a, old_chip).ok());
  EXPECT_EQ(Plan(a, old_chip).compute, DType::kF16);
  ASSERT_TRUE(CanImplement(a, arch::DefaultChip()).ok());
  EXPECT_EQ(Plan(a, arch::DefaultChip()).compute, DType::kF32);
}

void CheckAddmm(DType dt, int64_t m, int64_t n, int64_t k, std::vector<int64_t> self_shape,
                double beta, double alpha, DType out_dt) {
  const Operand self = MakeOperand(dt, self_shape, {}, 0, 11);
  const Operand m1 = MakeOperand(dt, {m, k}, {}, 0, 12);
  const Operand m2 = MakeOperand(dt, {k, n}, {1, k}, 0, 13);  // mat2 transposed, in place
  Operand out = MakeOperand(out_dt, {m, n}, {}, 0, 14);
  std::vector<int64_t> os;
  std::vector<double> abs;
  std::vector<double> want = ref::MatmulTorchRef(m1.logical, {m, k}, m2.logical, {k, n}, &os, &abs);
  const TensorRef sb = BroadcastTo(self.view, {m, n});
  const std::vector<double> sv = Gather(self.stored, sb);
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = alpha * want[i] + (beta == 0 ? 0.0 : beta * sv[i]);
    abs[i] = std::fabs(alpha) * abs[i] + std::fabs(beta * sv[i]);
  }
  const std::string what = StrCat("Addmm ", ShapeString(self_shape), " beta ", beta, " alpha ",
                                  alpha, " ", OpDTypeName(dt), " -> ", OpDTypeName(out_dt));
  ASSERT_TRUE(Addmm(self.view, m1.view, m2.view, beta, alpha, out.view).ok()) << what;
  testing::Sync();
  ExpectMatmulNear(out, want, abs, k, what);
}

TEST(MatmulOpsTest, AddmmBetaAlphaAndSelfBroadcast) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    CheckAddmm(dt, 13, 7, 29, {13, 7}, 1, 1, dt);
    CheckAddmm(dt, 13, 7, 29, {7}, 0.5, -2, dt);
    CheckAddmm(dt, 13, 7, 29, {13, 1}, 2, 0.25, dt);
    CheckAddmm(dt, 1, 1, 1, {1}, 1, 1, dt);
    CheckAddmm(dt, 13, 7, 29, {7}, 0, 1, dt);  // beta 0: C straight to out
    CheckAddmm(dt, 13, 7, 29, {7}, 0, 3, dt);  // beta 0: alpha * C
  }
  CheckAddmm(DType::kF16, 9, 5, 17, {5}, 1, 1, DType::kF32);
}

TEST(MatmulOpsTest, AddmmBetaZeroIgnoresNan) {
  DeviceTensor self(DType::kF32, 4);
  self.Fill({NAN, NAN, NAN, NAN});
  const Operand m1 = MakeOperand(DType::kF32, {3, 5});
  const Operand m2 = MakeOperand(DType::kF32, {5, 4});
  Operand out = MakeOperand(DType::kF32, {3, 4});
  ASSERT_TRUE(Addmm(self.Ref({4}), m1.view, m2.view, 0, 2, out.view).ok());
  testing::Sync();
  for (double v : out.dev->Read()) EXPECT_FALSE(std::isnan(v));
}

TEST(MatmulOpsTest, EmptyTensorsAndKZero) {
  // M = 0, N = 0, a batch of 0: nothing to do.
  for (const auto& [as, bs] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{0, 4}, {4, 3}}, {{2, 4}, {4, 0}}, {{0, 2, 4}, {4, 3}}}) {
    const Operand a = MakeOperand(DType::kF32, as), b = MakeOperand(DType::kF32, bs);
    std::vector<int64_t> os;
    std::vector<double> abs;
    ref::MatmulTorchRef({}, as, {}, bs, &os, &abs);
    Operand out = MakeOperand(DType::kF32, os);
    EXPECT_TRUE(Matmul(a.view, b.view, out.view).ok()) << ShapeString(as);
  }
  testing::Sync();
  // K = 0: zeros (out held other values before), and for Addmm beta * self.
  for (DType dt : {DType::kF32, DType::kBF16}) {
    const Operand a = MakeOperand(dt, {3, 0}), b = MakeOperand(dt, {0, 4});
    Operand out = MakeOperand(dt, {3, 4});
    ASSERT_TRUE(Mm(a.view, b.view, out.view).ok());
    const Operand self = MakeOperand(dt, {4});
    Operand out2 = MakeOperand(DType::kF32, {3, 4});
    ASSERT_TRUE(Addmm(self.view, a.view, b.view, 2, 1, out2.view).ok());
    testing::Sync();
    for (double v : out.dev->Read()) EXPECT_EQ(v, 0.0);
    const std::vector<double> got = out2.dev->Read();
    for (int i = 0; i < 12; ++i) EXPECT_NEAR(got[i], 2 * self.stored[i % 4], 1e-6);
  }
}

// --- the aclnn entry points: status codes and messages ---

struct AclOperand {
  explicit AclOperand(std::vector<int64_t> shape, aclDataType dt = ACL_FLOAT) : shape_(shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    EXPECT_EQ(aclrtMalloc(&data, std::max<int64_t>(n, 1) * 4, ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    std::memset(data, 0, std::max<int64_t>(n, 1) * 4);
    t = aclCreateTensor(shape.data(), shape.size(), dt, nullptr, 0, ACL_FORMAT_ND, shape.data(),
                        shape.size(), data);
  }
  ~AclOperand() {
    aclDestroyTensor(t);
    aclrtFree(data);
  }
  std::vector<int64_t> shape_;
  void* data = nullptr;
  aclTensor* t = nullptr;
};

std::string Msg() { return aclGetRecentErrMsg(); }
#define EXPECT_MSG(needle) EXPECT_NE(Msg().find(needle), std::string::npos) << Msg()

TEST(MatmulAclnnTest, NullArgumentsAre161001) {
  AclOperand a({2, 3}), b({3, 4}), out({2, 4});
  uint64_t ws;
  aclOpExecutor* e;
  EXPECT_EQ(aclnnMatmulGetWorkspaceSize(nullptr, b.t, out.t, 0, &ws, &e), 161001);
  EXPECT_MSG("aclnnMatmul: self is null");
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, nullptr, out.t, 0, &ws, &e), 161001);
  EXPECT_MSG("aclnnMm: mat2 is null");
  EXPECT_EQ(aclnnBatchMatMulGetWorkspaceSize(a.t, b.t, nullptr, 0, &ws, &e), 161001);
  EXPECT_MSG("aclnnBatchMatMul: out is null");
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 0, nullptr, &e), 161001);
  EXPECT_MSG("workspaceSize is null");
  AclOperand self({4});
  float one = 1;
  aclScalar* s1 = aclCreateScalar(&one, ACL_FLOAT);
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(self.t, a.t, b.t, nullptr, s1, out.t, 0, &ws, &e), 161001);
  EXPECT_MSG("aclnnAddmm: beta is null");
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(self.t, nullptr, b.t, s1, s1, out.t, 0, &ws, &e), 161001);
  EXPECT_MSG("aclnnAddmm: mat1 is null");
  aclDestroyScalar(s1);
}

TEST(MatmulAclnnTest, BadShapesDtypesAndCubeMathTypeAre161002) {
  uint64_t ws;
  aclOpExecutor* e;
  {
    AclOperand a({2, 3}), b({4, 5}), out({2, 5});
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG(
        "aclnnMm: self [2, 3] and mat2 [4, 5] do not multiply: self's last dim 3 must "
        "equal mat2's second-to-last dim 4");
  }
  {
    AclOperand a({2, 3}), b({3, 5}), out({2, 4});
    EXPECT_EQ(aclnnMatmulGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG("out has shape [2, 4]; self [2, 3] @ mat2 [3, 5] is [2, 5]");
  }
  {
    AclOperand a({2, 3}, ACL_INT32), b({3, 5}), out({2, 5});
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG("self has dtype INT32; allowed: FLOAT, FLOAT16, BFLOAT16");
  }
  {
    AclOperand a({2, 3}, ACL_BF16), b({3, 5}, ACL_FLOAT16), out({2, 5});
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 1, &ws, &e), 161002);
    EXPECT_MSG("BFLOAT16 multiplies only with BFLOAT16");
  }
  {
    AclOperand a({2, 2, 3}), b({3, 5}), out({2, 2, 5});
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG("aclnnMm: self has 3 dims [2, 2, 3]; allowed: 2");
    EXPECT_EQ(aclnnBatchMatMulGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG("aclnnBatchMatMul: mat2 has 2 dims [3, 5]; allowed: 3");
  }
  {
    // Descriptors only: phase 1 refuses them before any storage is touched.
    AclOperand small({4});
    const int64_t big[] = {70000, 70000}, bs[] = {70000, 2}, storage = 70000LL * 70000;
    aclTensor* a =
        aclCreateTensor(big, 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, &storage, 1, small.data);
    aclTensor* b =
        aclCreateTensor(bs, 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, &storage, 1, small.data);
    aclTensor* out =
        aclCreateTensor(bs, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &storage, 1, small.data);
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a, b, out, 1, &ws, &e), 161002);
    EXPECT_MSG("self has both dims above 65535");
    for (aclTensor* t : {a, b, out}) aclDestroyTensor(t);
  }
  {
    AclOperand a({2, 4, 3}), b({3, 3, 5}), out({3, 4, 5});
    EXPECT_EQ(aclnnMatmulGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG("the batch dims [2] of self and [3] of mat2 do not broadcast");
  }
  {
    AclOperand a({2, 3}), b({3, 5}), out({2, 5}), out16({2, 5}, ACL_FLOAT16);
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 7, &ws, &e), 161002);
    EXPECT_MSG("cubeMathType 7 is not one of 0 (KEEP_DTYPE)");
    EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out16.t, 0, &ws, &e), 161002);
    EXPECT_MSG("KEEP_DTYPE) with FLOAT inputs computes in FLOAT; out must be FLOAT, not FLOAT16");
    AclOperand h({2, 3}, ACL_FLOAT16), h2({3, 5}, ACL_FLOAT16), g({2, 3}, ACL_BF16),
        g2({3, 5}, ACL_BF16), g3({2, 5}, ACL_BF16);
    EXPECT_EQ(aclnnMmGetWorkspaceSize(h.t, h2.t, out.t, 3, &ws, &e), 161002);
    EXPECT_MSG("cubeMathType 3 (USE_HF32) takes FLOAT inputs only; got FLOAT16");
    EXPECT_EQ(aclnnMmGetWorkspaceSize(g.t, g2.t, g3.t, 2, &ws, &e), 161002);
    EXPECT_MSG("cubeMathType 2 (USE_FP16) does not take BFLOAT16 inputs");
  }
  {
    AclOperand a({1, 3}), b({3}), out({1});
    // 1-D @ 1-D ignores cubeMathType; (1, 3) @ (3) does not.
    AclOperand v({3}), s({});
    EXPECT_EQ(aclnnMatmulGetWorkspaceSize(v.t, b.t, s.t, 9, &ws, &e), ACLNN_SUCCESS) << Msg();
    EXPECT_EQ(aclnnMatmul(nullptr, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
    EXPECT_EQ(aclnnMatmulGetWorkspaceSize(a.t, b.t, out.t, 9, &ws, &e), 161002);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << Msg();
  }
  {
    AclOperand self({3, 5}), a({2, 3}), b({3, 5}), out({2, 5});
    double two = 2;
    aclScalar* s2 = aclCreateScalar(&two, ACL_DOUBLE);
    EXPECT_EQ(aclnnAddmmGetWorkspaceSize(self.t, a.t, b.t, s2, s2, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG(
        "aclnnAddmm: self has shape [3, 5]; it must broadcast to mat1 @ mat2's shape "
        "[2, 5]");
    bool yes = true;
    aclScalar* sb = aclCreateScalar(&yes, ACL_BOOL);
    AclOperand ok_self({5});
    EXPECT_EQ(aclnnAddmmGetWorkspaceSize(ok_self.t, a.t, b.t, sb, s2, out.t, 0, &ws, &e), 161002);
    EXPECT_MSG("beta has dtype ACL_BOOL");
    aclDestroyScalar(s2);
    aclDestroyScalar(sb);
  }
}

TEST(MatmulAclnnTest, OutAliasingAnInputIs161002) {
  AclOperand a({4, 4}), b({4, 4});
  uint64_t ws;
  aclOpExecutor* e;
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, a.t, 0, &ws, &e), 161002);
  EXPECT_MSG("aclnnMm: out overlaps self in memory");
  EXPECT_EQ(aclnnMatmulGetWorkspaceSize(a.t, b.t, b.t, 0, &ws, &e), 161002);
  EXPECT_MSG("aclnnMatmul: out overlaps mat2 in memory");
}

TEST(MatmulAclnnTest, AddmmTwoPhaseAndInplace) {
  const int64_t m = 6, k = 9, n = 5;
  std::vector<double> av = Inputs(m * k, -1, 1, 3), bv = Inputs(k * n, -1, 1, 4),
                      sv = Inputs(m * n, -1, 1, 5);
  AclOperand a({m, k}), b({k, n}), self({m, n});
  for (int64_t i = 0; i < m * k; ++i) static_cast<float*>(a.data)[i] = float(av[i]);
  for (int64_t i = 0; i < k * n; ++i) static_cast<float*>(b.data)[i] = float(bv[i]);
  for (int64_t i = 0; i < m * n; ++i) static_cast<float*>(self.data)[i] = float(sv[i]);
  for (int i = 0; i < m * k; ++i) av[i] = float(av[i]);
  for (int i = 0; i < k * n; ++i) bv[i] = float(bv[i]);
  std::vector<int64_t> os;
  std::vector<double> abs;
  std::vector<double> want = ref::MatmulTorchRef(av, {m, k}, bv, {k, n}, &os, &abs);
  const int32_t beta = 3;  // integer scalars are documented too
  const float alpha = -0.5f;
  aclScalar* sb = aclCreateScalar(const_cast<int32_t*>(&beta), ACL_INT32);
  aclScalar* sa = aclCreateScalar(const_cast<float*>(&alpha), ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnInplaceAddmmGetWorkspaceSize(self.t, a.t, b.t, sb, sa, 0, &ws, &e), ACLNN_SUCCESS)
      << Msg();
  ASSERT_GT(ws, 0u);  // the fp32 product before the epilogue
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  {
    EXPECT_EQ(aclnnInplaceAddmm(w, ws - 1, e, nullptr), 161002);
    EXPECT_MSG("workspace");
  }
  ASSERT_EQ(aclnnInplaceAddmm(w, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << Msg();
  for (int64_t i = 0; i < m * n; ++i) {
    const double r = alpha * want[i] + beta * double(float(sv[i]));
    EXPECT_NEAR(static_cast<float*>(self.data)[i], r, 1e-5) << i;
  }
  aclrtFree(w);
  aclDestroyScalar(sb);
  aclDestroyScalar(sa);
}

}  // namespace
}  // namespace aicore::ops
