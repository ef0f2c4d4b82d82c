// The matmul family: checks, plan and the cube kernel; Addmm's epilogue is the fused one.
// - Every op becomes one batched problem: A (batch.., M, K) @ B (batch.., K, N) -> C (batch..,
//   M, N). A 1-D Matmul operand gets a size-1 dim (K -> (1, K), resp. (K, 1)) that out lacks;
//   batch dims broadcast (NumPy rules) through stride-0 dims, so a broadcast operand is never
//   copied.
// - An operand is read in place when its dtype is the compute dtype and each 2-D slice has a unit
//   stride along one axis with a pitch in [extent, 65535] along the other (the Matmul's ND
//   operand, transposed or not: a transposed view of B is a column-major B). Anything else is
//   staged dense in the workspace (Note [Staging]). C is written in place when it is row-major.
// - The cube kernel runs on the AICs: the (batch, m tile, n tile) items, tiles sized by
//   matmul_tiling::MultiCoreMatmulTiling for the cores one batch gets, go round-robin over the
//   blocks; each item is SetTail + SetTensorA/B + IterateAll of one Matmul object.
// - Addmm is a matmul with a fused epilogue (matmul_epilogue.h, activation none, self as the
//   bias): one mix kernel forms beta * self + alpha * C in out's dtype from each block of C as
//   the AIC produces it (beta = 0 ignores self, as PyTorch does; beta = 0 and alpha = 1 write C
//   straight to out from the cube kernel).
#include "aicore/ops/matmul/matmul.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "aicore/kernel/lib/matmul/matmul.h"
#include "aicore/ops/elementwise/elementwise.h"
#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/matmul/matmul_epilogue.h"
#include "aicore/ops/matmul/matmul_layout.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

namespace {

using AscendC::LocalTensor;
using matmul_detail::BatchOffsets;
using matmul_detail::kMaxPitch;
using matmul_detail::LayoutOf;
using matmul_detail::Product;
using matmul_detail::SliceLayout;
using matmul_detail::SpanOf;
using matmul_detail::StagedColumnMajor;
using matmul_detail::SwapLast2;

// The op as one batched problem.
struct Problem {
  TensorRef a, b;  // (own batch.., M, K), (own batch.., K, N)
  TensorRef c;     // (batch.., M, N): out with the dims a 1-D operand lacks put back
  std::vector<int64_t> batch_shape;
  int64_t m = 0, n = 0, k = 0;
};

const TensorRef& Left(const MatmulArgs& a) {
  return a.kind == MatmulKind::kAddmm ? a.mat1 : a.self;
}
const char* LeftName(const MatmulArgs& a) { return a.kind == MatmulKind::kAddmm ? "mat1" : "self"; }

// Inserts a size-1 dim at `pos` (stride 0: it is never stepped).
TensorRef InsertUnitDim(const TensorRef& t, size_t pos) {
  TensorRef r = t;
  r.strides = t.Strides();
  r.shape.insert(r.shape.begin() + static_cast<int64_t>(pos), 1);
  r.strides.insert(r.strides.begin() + static_cast<int64_t>(pos), 0);
  return r;
}

// Builds the problem of shape-checked args.
Problem ProblemOf(const MatmulArgs& args) {
  Problem p;
  const TensorRef& l = Left(args);
  const bool a_vec = l.Rank() == 1, b_vec = args.mat2.Rank() == 1;
  p.a = a_vec ? InsertUnitDim(l, 0) : l;
  p.b = b_vec ? InsertUnitDim(args.mat2, 1) : args.mat2;
  const size_t ra = p.a.shape.size(), rb = p.b.shape.size();
  p.m = p.a.shape[ra - 2];
  p.k = p.a.shape[ra - 1];
  p.n = p.b.shape[rb - 1];
  std::vector<int64_t> ba(p.a.shape.begin(), p.a.shape.end() - 2);
  std::vector<int64_t> bb(p.b.shape.begin(), p.b.shape.end() - 2);
  BroadcastShapes(ba, bb, &p.batch_shape);
  p.c = args.out;
  const size_t batch_rank = p.batch_shape.size();
  if (a_vec) p.c = InsertUnitDim(p.c, batch_rank);
  if (b_vec) p.c = InsertUnitDim(p.c, batch_rank + 1);
  return p;
}

bool IsFloat(DType dt) { return dt == DType::kF32 || dt == DType::kF16 || dt == DType::kBF16; }

// The dtype the cube multiplies in for inputs promoting to `promoted` (checked).
DType ComputeDType(DType promoted, int8_t cube_math_type, const arch::Chip& chip) {
  if (promoted != DType::kF32) return promoted;
  if (cube_math_type == kUseFp16) return DType::kF16;
  // ALLOW_FP32_DOWN_PRECISION runs fp32 as HF32 on chips whose cube takes fp32 (Chip::cube_fp32,
  // not modelled: fp32 is kept, at least as accurate) and as fp16 on older chips.
  if (cube_math_type == kAllowFp32DownPrecision && !chip.cube_fp32) return DType::kF16;
  return DType::kF32;
}

OpCheck CheckDType(const char* op, const char* what, const TensorRef& t) {
  if (!IsFloat(t.dtype)) {
    return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t.dtype),
                          "; allowed: FLOAT, FLOAT16, BFLOAT16"));
  }
  if (t.data == nullptr && t.NumElements() > 0) {
    return NullArg(StrCat(op, ": ", what, " has null storage"));
  }
  return {};
}

OpCheck CheckRank(const char* op, const char* what, const TensorRef& t, int64_t lo, int64_t hi) {
  if (t.Rank() < lo || t.Rank() > hi) {
    return Invalid(StrCat(op, ": ", what, " has ", t.Rank(), " dims ", ShapeString(t.shape),
                          "; allowed: ", lo == hi ? StrCat(lo) : StrCat(lo, " to ", hi)));
  }
  return {};
}

bool NeedsEpilogue(const MatmulArgs& a) {
  return a.kind == MatmulKind::kAddmm && !(a.beta == 0 && a.alpha == 1);
}

// What the cube kernel needs; offsets and spans in elements.
struct CubeJob {
  AscendC::tiling::TCubeTiling tiling{};
  uint8_t *a = nullptr, *b = nullptr, *c = nullptr;
  uint64_t a_span = 0, b_span = 0, c_span = 0;
  SliceLayout la, lb;
  int64_t ldc = 0;
  int64_t m = 0, n = 0, k = 0, m_tiles = 1, n_tiles = 1, batch = 1;
  std::shared_ptr<const std::vector<int64_t>> a_off, b_off, c_off;  // per batch
};

// One block of the cube kernel: items block, block + blocks, ...
template <typename In, typename Out>
void MatmulBlock(const CubeJob& j) {
  using namespace AscendC;
  using AType = MatmulType<TPosition::GM, CubeFormat::ND, In>;
  using CType = MatmulType<TPosition::GM, CubeFormat::ND, Out>;
  TPipe pipe;
  Matmul<AType, AType, CType> mm;
  mm.Init(&j.tiling, &pipe);
  const int org_m = static_cast<int>(j.la.trans ? j.la.pitch : j.m);
  const int org_ka = static_cast<int>(j.la.trans ? j.k : j.la.pitch);
  const int org_kb = static_cast<int>(j.lb.trans ? j.lb.pitch : j.k);
  const int org_n = static_cast<int>(j.lb.trans ? j.n : j.lb.pitch);
  mm.SetOrgShape(org_m, org_n, org_ka, org_kb, static_cast<int>(j.ldc));
  GlobalTensor<In> gm_a, gm_b;  // (batch.., M, K), (batch.., K, N) in their layouts
  GlobalTensor<Out> gm_c;       // (batch.., M, N), row pitch ldc
  gm_a.SetGlobalBuffer(reinterpret_cast<In*>(j.a), j.a_span);
  gm_b.SetGlobalBuffer(reinterpret_cast<In*>(j.b), j.b_span);
  gm_c.SetGlobalBuffer(reinterpret_cast<Out*>(j.c), j.c_span);
  const int64_t single_m = j.tiling.singleCoreM, single_n = j.tiling.singleCoreN;
  const int64_t tiles = j.m_tiles * j.n_tiles;
  for (int64_t item = GetBlockIdx(); item < j.batch * tiles; item += GetBlockNum()) {
    const int64_t bi = item / tiles, t = item % tiles;
    const int64_t m0 = (t % j.m_tiles) * single_m, n0 = (t / j.m_tiles) * single_n;
    mm.SetTail(static_cast<int>(std::min(single_m, j.m - m0)),
               static_cast<int>(std::min(single_n, j.n - n0)), static_cast<int>(j.k));
    mm.SetTensorA(gm_a[(*j.a_off)[bi] + m0 * (j.la.trans ? 1 : j.la.pitch)], j.la.trans);
    mm.SetTensorB(gm_b[(*j.b_off)[bi] + n0 * (j.lb.trans ? j.lb.pitch : 1)], j.lb.trans);
    mm.IterateAll(gm_c[(*j.c_off)[bi] + m0 * j.ldc + n0]);
    mm.End();
  }
}

template <typename In>
std::function<void()> CubeBody(const CubeJob& j, DType c_dtype) {
  if (c_dtype == DTypeOf<In>()) return [j] { MatmulBlock<In, In>(j); };
  return [j] { MatmulBlock<In, float>(j); };
}

// C in place: a row-major out whose batches are laid out densely or a single batch.
bool COperandInPlace(const Problem& p) {
  if (p.c.IsDense()) return true;
  const std::optional<SliceLayout> l = LayoutOf(p.c);
  return l && !l->trans && Product(p.batch_shape) == 1;
}

// The staging of the cube kernel's operands (inputs A, B; output C) in add order. A staged input
// is gathered row-major, or column-major (through its transposed view) when its rows are longer
// than the Matmul's pitch.
void StageCube(const Problem& p, const MatmulPlan& plan, Staging* st) {
  for (const TensorRef* t : {&p.a, &p.b}) {
    const bool in_place = t->dtype == plan.compute && LayoutOf(*t).has_value();
    st->AddInput(!in_place && StagedColumnMajor(*t) ? SwapLast2(*t) : *t, plan.compute, in_place);
  }
  st->AddOutput(p.c, plan.c_dtype, COperandInPlace(p));
}

// The view the kernel reads operand `i` (0: A, 1: B, 2: C) of `view` through, once staged at
// `dense`.
TensorRef KernelView(const Staging& st, int i, const TensorRef& view, DType dt, uint8_t* dense) {
  if (st.staged(i)) {
    if (i < 2 && StagedColumnMajor(view)) {
      return SwapLast2(DenseRef(dense, dt, SwapLast2(view).shape));
    }
    return DenseRef(dense, dt, view.shape);
  }
  TensorRef t = view;
  t.strides = view.Strides();
  t.data = dense;
  t.offset = 0;
  return t;
}

// Fills view `t` with zeros (in its dtype).
void FillZero(const TensorRef& t) {
  static const float kZero = 0;
  TensorRef zero = DenseRef(const_cast<float*>(&kZero), DType::kF32, t.shape);
  zero.strides.assign(t.shape.size(), 0);
  CopyView(t, zero);
}

// Addmm as a matmul with a fused epilogue: out = alpha * mat1 @ mat2 + beta * self.
MatmulEpilogueArgs FusedArgs(const MatmulArgs& args, const MatmulPlan& plan) {
  MatmulEpilogueArgs e;
  e.op = args.op;
  e.a = args.mat1;
  e.b = args.mat2;
  e.a_name = "mat1";
  e.b_name = "mat2";
  e.bias_name = "self";
  if (args.beta != 0) e.bias = args.self;
  e.alpha = args.alpha;
  e.beta = args.beta;
  e.out = args.out;
  e.compute = plan.compute;
  return e;
}

}  // namespace

OpCheck CanImplement(const MatmulArgs& args, const arch::Chip& chip) {
  const char* op = args.op;
  const TensorRef& l = Left(args);
  const char* lname = LeftName(args);
  // aclnnInplaceAddmm has no out: selfRef is the output.
  const char* oname = args.in_place ? "selfRef" : "out";
  OpCheck c;
  if (!(c = CheckDType(op, lname, l)).ok() || !(c = CheckDType(op, "mat2", args.mat2)).ok() ||
      !(c = CheckDType(op, oname, args.out)).ok()) {
    return c;
  }
  if (args.kind == MatmulKind::kAddmm && !(c = CheckDType(op, "self", args.self)).ok()) return c;
  switch (args.kind) {
    case MatmulKind::kMatmul:
      if (!(c = CheckRank(op, lname, l, 1, 6)).ok() ||
          !(c = CheckRank(op, "mat2", args.mat2, 1, 6)).ok()) {
        return c;
      }
      break;
    case MatmulKind::kMm:
      if (!(c = CheckRank(op, lname, l, 2, 2)).ok() ||
          !(c = CheckRank(op, "mat2", args.mat2, 2, 2)).ok()) {
        return c;
      }
      break;
    case MatmulKind::kBatchMatMul:
      if (!(c = CheckRank(op, lname, l, 3, 3)).ok() ||
          !(c = CheckRank(op, "mat2", args.mat2, 3, 3)).ok()) {
        return c;
      }
      break;
    case MatmulKind::kAddmm:
      if (!(c = CheckRank(op, lname, l, 2, 2)).ok() ||
          !(c = CheckRank(op, "mat2", args.mat2, 2, 2)).ok() ||
          !(c = CheckRank(op, "self", args.self, 1, 2)).ok() ||
          !(c = CheckRank(op, oname, args.out, 2, 2)).ok()) {
        return c;
      }
      break;
  }
  // dtypes: bf16 pairs only with itself (A2 refuses bf16 x fp16 and bf16 x fp32).
  const DType da = l.dtype, db = args.mat2.dtype;
  if (da != db && (da == DType::kBF16 || db == DType::kBF16)) {
    return Invalid(StrCat(op, ": ", lname, " is ", OpDTypeName(da), " and mat2 is ",
                          OpDTypeName(db), "; BFLOAT16 multiplies only with BFLOAT16"));
  }
  const DType promoted = PromoteFloat(da, db);
  const bool both_vectors =
      args.kind == MatmulKind::kMatmul && l.Rank() == 1 && args.mat2.Rank() == 1;
  const int8_t cmt = args.cube_math_type;
  if (!both_vectors) {  // documented: cubeMathType is ignored for 1-D @ 1-D
    if (cmt < kKeepDtype || cmt > kUseFp32Add) {
      return Invalid(StrCat(op, ": cubeMathType ", int{cmt},
                            " is not one of 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 "
                            "(USE_FP16), 3 (USE_HF32), 4 (USE_FP32_ADD)"));
    }
    if (cmt == kUseFp16 && promoted == DType::kBF16) {
      return Invalid(StrCat(op, ": cubeMathType 2 (USE_FP16) does not take BFLOAT16 inputs"));
    }
    if (cmt == kUseHf32 && promoted != DType::kF32) {
      return Invalid(StrCat(op, ": cubeMathType 3 (USE_HF32) takes FLOAT inputs only; got ",
                            OpDTypeName(promoted)));
    }
    if (cmt == kKeepDtype && promoted == DType::kF32 && !chip.cube_fp32) {
      return Invalid(StrCat(op,
                            ": cubeMathType 0 (KEEP_DTYPE) with FLOAT inputs needs a chip whose "
                            "cube multiplies FLOAT (the cube_fp32 capability: Atlas A2, "
                            "ascend950); ",
                            chip.name, " multiplies FLOAT only with cubeMathType 1 or 2"));
    }
    if (cmt == kKeepDtype && promoted == DType::kF32 && args.out.dtype != DType::kF32) {
      return Invalid(StrCat(op,
                            ": cubeMathType 0 (KEEP_DTYPE) with FLOAT inputs computes in "
                            "FLOAT; out must be FLOAT, not ",
                            OpDTypeName(args.out.dtype)));
    }
  }
  // shapes
  const TensorRef& r = args.mat2;
  const int64_t ka = l.shape.back();
  const int64_t kb = r.Rank() == 1 ? r.shape[0] : r.shape[r.shape.size() - 2];
  if (ka != kb) {
    return Invalid(StrCat(op, ": ", lname, " ", ShapeString(l.shape), " and mat2 ",
                          ShapeString(r.shape), " do not multiply: ", lname, "'s last dim ", ka,
                          " must equal mat2's ", r.Rank() == 1 ? "only" : "second-to-last", " dim ",
                          kb));
  }
  std::vector<int64_t> want;
  if (args.kind == MatmulKind::kMatmul || args.kind == MatmulKind::kBatchMatMul) {
    std::vector<int64_t> ba, bb;
    if (l.Rank() > 2) ba.assign(l.shape.begin(), l.shape.end() - 2);
    if (r.Rank() > 2) bb.assign(r.shape.begin(), r.shape.end() - 2);
    if (!BroadcastShapes(ba, bb, &want)) {
      return Invalid(StrCat(op, ": the batch dims ", ShapeString(ba), " of ", lname, " and ",
                            ShapeString(bb),
                            " of mat2 do not broadcast (each must be equal or 1)"));
    }
  }
  if (l.Rank() >= 2) want.push_back(l.shape[l.shape.size() - 2]);
  if (r.Rank() >= 2) want.push_back(r.shape.back());
  if (args.out.shape != want) {
    return Invalid(StrCat(op, ": ", oname, " has shape ", ShapeString(args.out.shape), "; ",
                          lname, " ", ShapeString(l.shape), " @ mat2 ", ShapeString(r.shape),
                          " is ", ShapeString(want)));
  }
  if (args.kind == MatmulKind::kAddmm) {
    std::vector<int64_t> b;
    if (!BroadcastShapes(args.self.shape, want, &b) || b != want) {
      return Invalid(StrCat(op, ": self has shape ", ShapeString(args.self.shape),
                            "; it must broadcast to mat1 @ mat2's shape ", ShapeString(want)));
    }
  }
  const int64_t m = l.Rank() >= 2 ? l.shape[l.shape.size() - 2] : 1;
  const int64_t n = r.Rank() >= 2 ? r.shape.back() : 1;
  if ((m > kMaxPitch && ka > kMaxPitch) || (ka > kMaxPitch && n > kMaxPitch)) {
    return Invalid(StrCat(op, ": M = ", m, ", K = ", ka, ", N = ", n, ": ",
                          m > kMaxPitch ? lname : "mat2",
                          " has both dims above 65535, the longest row the Matmul reads"));
  }
  if (std::max({m, n, ka}) > std::numeric_limits<int32_t>::max()) {
    return Invalid(StrCat(op, ": M = ", m, ", N = ", n, ", K = ", ka,
                          "; the Matmul takes sizes up to 2^31 - 1"));
  }
  // The cube reads A and B while it writes C: out must not share bytes with them. Addmm's self
  // is read for each tile of C before the tile is written: out may be its view (InplaceAddmm).
  const bool addmm = args.kind == MatmulKind::kAddmm;
  return CheckOutputs(op, {{oname, &args.out, true}},
                      {{lname, &l},
                       {"mat2", &args.mat2},
                       {args.in_place ? "selfRef" : "self", addmm ? &args.self : nullptr, true}});
}

MatmulPlan Plan(const MatmulArgs& args, const arch::Chip& chip) {
  MatmulPlan plan;
  plan.chip = &chip;
  const Problem p = ProblemOf(args);
  plan.batch_shape = p.batch_shape;
  plan.batch = Product(p.batch_shape);
  plan.m = p.m;
  plan.n = p.n;
  plan.k = p.k;
  const DType promoted = PromoteFloat(Left(args).dtype, args.mat2.dtype);
  const bool both_vectors =
      args.kind == MatmulKind::kMatmul && Left(args).Rank() == 1 && args.mat2.Rank() == 1;
  plan.compute = ComputeDType(promoted, both_vectors ? kKeepDtype : args.cube_math_type, chip);
  plan.epilogue = NeedsEpilogue(args);
  plan.c_dtype = args.out.dtype == plan.compute ? plan.compute : DType::kF32;
  if (plan.batch == 0 || plan.m == 0 || plan.n == 0) return plan;  // an empty out
  if (plan.epilogue) {
    plan.fused = std::make_shared<const MatmulEpiloguePlan>(Plan(FusedArgs(args, plan), chip));
    plan.workspace_bytes = plan.fused->workspace_bytes;
    return plan;
  }

  Staging cube;
  StageCube(p, plan, &cube);
  plan.staging_bytes = cube.WorkspaceBytes();
  plan.workspace_bytes = plan.staging_bytes;
  if (plan.k == 0) return plan;  // C is zeros: no cube kernel

  const int64_t aics = std::max(1, chip.aic_count);  // AICs (AI Cores on coupled chips)
  // Each batch gets its share of the cores; the tiling splits M and N over that share.
  const int64_t dim = std::clamp<int64_t>((aics + plan.batch - 1) / plan.batch, 1, aics);
  // The layouts the kernel reads (KernelView's, without addresses).
  const bool a_trans = LayoutOf(KernelView(cube, 0, p.a, plan.compute, nullptr))->trans;
  const bool b_trans = LayoutOf(KernelView(cube, 1, p.b, plan.compute, nullptr))->trans;
  plan.tiling = matmul_detail::CubeTiling(chip, static_cast<int32_t>(dim), plan.m, plan.n, plan.k,
                                          plan.compute, plan.c_dtype, a_trans, b_trans, args.op);
  plan.m_tiles = (plan.m + plan.tiling.singleCoreM - 1) / plan.tiling.singleCoreM;
  plan.n_tiles = (plan.n + plan.tiling.singleCoreN - 1) / plan.tiling.singleCoreN;
  plan.block_dim =
      static_cast<uint32_t>(std::min<int64_t>(plan.batch * plan.m_tiles * plan.n_tiles, aics));
  return plan;
}

Status Launch(const MatmulArgs& in_args, const MatmulPlan& plan, void* workspace,
              const void* stream) {
  if (plan.batch == 0 || plan.m == 0 || plan.n == 0) return Status();
  MatmulArgs args = in_args;
  if (args.in_place) args.out.data = args.self.data;  // one storage (aclSetInputTensorAddr)
  const Problem p = ProblemOf(args);
  if (plan.epilogue) return Launch(FusedArgs(args, plan), *plan.fused, workspace, stream);
  uint8_t* const ws = static_cast<uint8_t*>(workspace);
  Staging cube;
  StageCube(p, plan, &cube);
  Status s = cube.Enqueue(ws, stream, [&](const std::vector<uint8_t*>& dense) -> Status {
    const TensorRef a = KernelView(cube, 0, p.a, plan.compute, dense[0]);
    const TensorRef b = KernelView(cube, 1, p.b, plan.compute, dense[1]);
    const TensorRef c = KernelView(cube, 2, p.c, plan.c_dtype, dense[2]);
    if (plan.k == 0) {
      return rt::LaunchHostFunc(stream, [c] { FillZero(c); });
    }
    CubeJob j;
    j.tiling = plan.tiling;
    j.a = a.First();
    j.b = b.First();
    j.c = c.First();
    j.a_span = SpanOf(a);
    j.b_span = SpanOf(b);
    j.c_span = SpanOf(c);
    j.la = *LayoutOf(a);
    j.lb = *LayoutOf(b);
    j.ldc = c.shape[c.shape.size() - 2] == 1 ? plan.n : c.Strides()[c.shape.size() - 2];
    j.m = plan.m;
    j.n = plan.n;
    j.k = plan.k;
    j.m_tiles = plan.m_tiles;
    j.n_tiles = plan.n_tiles;
    j.batch = plan.batch;
    j.a_off = BatchOffsets(a, plan.batch_shape);
    j.b_off = BatchOffsets(b, plan.batch_shape);
    j.c_off = BatchOffsets(c, plan.batch_shape);
    std::function<void()> body;
    switch (plan.compute) {
      case DType::kF16:
        body = CubeBody<half>(j, plan.c_dtype);
        break;
      case DType::kBF16:
        body = CubeBody<bfloat16>(j, plan.c_dtype);
        break;
      default:
        body = CubeBody<float>(j, plan.c_dtype);
        break;
    }
    LaunchOptions options;
    options.mode = KernelMode::kAic;
    options.chip = plan.chip;
    return rt::LaunchKernelAsync(stream, "ops_matmul", plan.block_dim, options, std::move(body));
  });
  return s;
}

}  // namespace aicore::ops
