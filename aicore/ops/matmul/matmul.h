// The matmul family: Matmul (torch.matmul semantics: 1-D operands, batch broadcasting), Mm
// (2-D), BatchMatMul (3-D, batch 1 broadcasts) and Addmm (beta * self + alpha * mat1 @ mat2) on
// fp32, fp16 and bf16 views, computed by a cube kernel over AscendC's Matmul object with fp32
// accumulation in L0C (aicore/kernel/lib/matmul/matmul.h); Addmm's beta * self + alpha * C is
// the fused epilogue of matmul_epilogue.h. Operands whose 2-D slices have one unit
// stride (row-major or transposed, a pitch up to 65535) are read in place, batch strides and
// batch broadcasting included; other views and dtype changes are staged (Note [Staging]).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/ops/framework/operator.h"
#include "aicore/ops/matmul/matmul_epilogue.h"

namespace aicore::ops {

enum class MatmulKind { kMatmul, kMm, kBatchMatMul, kAddmm };

// cubeMathType values (aclnn's documented enumeration).
inline constexpr int8_t kKeepDtype = 0;
inline constexpr int8_t kAllowFp32DownPrecision = 1;
inline constexpr int8_t kUseFp16 = 2;
inline constexpr int8_t kUseHf32 = 3;
inline constexpr int8_t kUseFp32Add = 4;

struct MatmulArgs {
  MatmulKind kind = MatmulKind::kMatmul;
  const char* op = "aclnnMatmul";
  TensorRef self;  // Matmul, Mm, BatchMatMul: the left operand; Addmm: the added input
  TensorRef mat1;  // Addmm: the left operand (unused otherwise)
  TensorRef mat2;
  TensorRef out;
  double beta = 1;   // Addmm
  double alpha = 1;  // Addmm
  int8_t cube_math_type = kKeepDtype;
  bool in_place = false;  // aclnnInplaceAddmm: out is self; Launch writes through self's storage
};

struct MatmulPlan {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  std::vector<int64_t> batch_shape;
  DType compute = DType::kF32;  // the cube's input dtype (A and B)
  DType c_dtype = DType::kF32;  // the dtype the cube kernel writes C in
  bool epilogue = false;        // Addmm: the fused matmul epilogue computes out (`fused`)
  AscendC::tiling::TCubeTiling tiling{};
  int64_t m_tiles = 1, n_tiles = 1;
  uint32_t block_dim = 1;
  uint64_t staging_bytes = 0;                       // the cube kernel's staging slots
  std::shared_ptr<const MatmulEpiloguePlan> fused;  // Addmm with an epilogue: its whole plan
  uint64_t workspace_bytes = 0;
  const arch::Chip* chip = nullptr;
};

// Checks the documented rules: dtypes (fp32/fp16/bf16; bf16 does not mix with fp16 or fp32),
// ranks (Matmul 1..6, Mm 2, BatchMatMul 3, Addmm 2-D mat1/mat2/out and a 1-D or 2-D self that
// broadcasts to [m, n]), K equal on both sides, batch dims that broadcast, out's shape, the
// cubeMathType (0..4; USE_FP16 refuses bf16, USE_HF32 needs fp32, KEEP_DTYPE refuses fp32 on
// chips before Atlas A2 and an fp32 product written to a 16-bit out).
OpCheck CanImplement(const MatmulArgs& args, const arch::Chip& chip);
// Picks the compute dtype, the in-place layouts, the Matmul tiling (matmul_tiling::
// MultiCoreMatmulTiling) and the split of (batch, m tile, n tile) items over the AICs.
MatmulPlan Plan(const MatmulArgs& args, const arch::Chip& chip);
// Enqueues the staging copies and the cube kernel (AIC mode) on `stream`, or for Addmm with an
// epilogue the fused matmul-epilogue kernel (mix mode). K = 0 fills C with zeros in stream order
// instead of launching the cube.
Status Launch(const MatmulArgs& args, const MatmulPlan& plan, void* workspace, const void* stream);

}  // namespace aicore::ops
