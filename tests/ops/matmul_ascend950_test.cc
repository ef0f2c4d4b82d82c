// The matmul family on ascend950 (arch 3510): FLOAT inputs multiply in FLOAT there because the
// preset declares the cube_fp32 capability (Chip::cube_fp32), not because of its arch number; a
// small fp32 Mm and a batched Matmul against the double reference of tests/reference/matmul_ref.h,
// and the same description without the capability refusing KEEP_DTYPE. The binary runs on
// ascend950 (AICORE_CHIP is set before the first launch).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "aicore/ops/matmul/matmul.h"
#include "aicore/ops/ops.h"
#include "tests/ops/ops_lib_test_util.h"
#include "tests/reference/matmul_ref.h"
#include "tests/reference/ops_ref.h"

namespace aicore::ops {
namespace {

// DefaultChip() is loaded at the first launch, after this.
const bool kOnAscend950 = setenv("AICORE_CHIP", "ascend950", 1) == 0;

using testing::Gather;
using testing::MakeOperand;
using testing::Operand;

MatmulArgs Fp32Mm(const std::vector<int64_t>& as, const std::vector<int64_t>& bs) {
  static float host_a[64], host_b[64], host_c[64];  // checked and planned only, never run
  MatmulArgs a;
  a.kind = MatmulKind::kMm;
  a.op = "aclnnMm";
  a.self = DenseRef(host_a, DType::kF32, as);
  a.mat2 = DenseRef(host_b, DType::kF32, bs);
  a.out = DenseRef(host_c, DType::kF32, {as[0], bs[1]});
  return a;
}

TEST(MatmulAscend950Test, KeepDtypeFloatIsAcceptedThroughTheCapability) {
  ASSERT_TRUE(kOnAscend950);
  const arch::Chip& chip = arch::DefaultChip();
  ASSERT_EQ(chip.name, "ascend950");
  EXPECT_TRUE(chip.cube_fp32);
  const MatmulArgs a = Fp32Mm({4, 8}, {8, 4});
  const OpCheck c = CanImplement(a, chip);
  ASSERT_TRUE(c.ok()) << c.message;
  EXPECT_EQ(Plan(a, chip).compute, DType::kF32);
  // The same description without the capability: KEEP_DTYPE refuses FLOAT, whatever the arch.
  nlohmann::json j = chip.raw;
  j["capabilities"]["cube_fp32"] = false;
  const arch::Chip no_fp32 = arch::ParseChip(j.dump(), "ascend950_no_fp32.json");
  ASSERT_EQ(no_fp32.npu_arch, 3510);
  const OpCheck refused = CanImplement(a, no_fp32);
  EXPECT_EQ(refused.code, 161002);
  EXPECT_NE(refused.message.find("the cube_fp32 capability"), std::string::npos)
      << refused.message;
}

TEST(MatmulAscend950Test, SmallFloatMatmulsMatchTheReference) {
  ASSERT_EQ(arch::DefaultChip().name, "ascend950");
  const std::vector<std::vector<std::vector<int64_t>>> cases = {
      {{37, 29}, {29, 45}}, {{1, 1}, {1, 1}}, {{3, 20, 17}, {17, 33}}};
  for (const auto& c : cases) {
    const Operand a = MakeOperand(DType::kF32, c[0], {}, 3, 1);
    const Operand b = MakeOperand(DType::kF32, c[1], {}, 5, 2);
    std::vector<int64_t> os;
    std::vector<double> abs;
    const std::vector<double> want =
        ref::MatmulTorchRef(a.logical, c[0], b.logical, c[1], &os, &abs);
    Operand out = MakeOperand(DType::kF32, os);
    const std::string what = StrCat(ShapeString(c[0]), " @ ", ShapeString(c[1]));
    const Status s = Matmul(a.view, b.view, out.view);  // cubeMathType 0 (KEEP_DTYPE)
    ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
    testing::Sync();
    const std::vector<double> got = Gather(out.dev->Read(), out.view);
    ASSERT_EQ(got.size(), want.size()) << what;
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double tol = ref::MatmulTolerance(c[0].back(), abs[i]) + 1e-30;
      if (!(std::fabs(got[i] - want[i]) <= tol) && ++bad <= 5) {
        ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
      }
    }
    EXPECT_EQ(bad, 0) << what;
  }
}

}  // namespace
}  // namespace aicore::ops
