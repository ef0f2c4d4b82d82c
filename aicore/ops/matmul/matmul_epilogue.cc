// The matmul with a fused epilogue: checks, plan and launch of the mix kernel.
// - The problem: a (batch_a.., M, K) @ b (batch_b.., K, N), the batch dims broadcast (NumPy)
//   to out's (batch.., M, N); bias and residual are broadcast to out's shape as views (stride 0,
//   never copied for that).
// - Operands read in place (Note [Staging] otherwise): a and b when in the cube's dtype with a
//   Matmul slice layout (matmul_layout.h); an addend when its rows have unit stride and a pitch
//   of at least N, or when it is broadcast over M and its one row has unit stride (read as a
//   row); out when its rows have unit stride, a pitch of at least N and no broadcast dims.
// - Blocks: tile_m x tile_n (kTileM x kTileN, halved while there are fewer items than AICs and
//   the block is above kMinTile; tile_n a multiple of 16), one item per (batch, m block, n block), items round-robin over
//   min(items, AICs) groups. The Matmul tiling is the single-core tiling of one block.
// - UB: the AIVs' budget less the bias row, divided by the chunk tiles the configuration needs
//   (patterns::EpilogueTiles), in multiples of 16 floats.
#include "aicore/ops/matmul/matmul_epilogue.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>

#include "aicore/ops/elementwise/elementwise.h"
#include "aicore/ops/matmul/matmul_layout.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

namespace {

using matmul_detail::BatchOffsets;
using matmul_detail::kMaxPitch;
using matmul_detail::LayoutOf;
using matmul_detail::Overlaps;
using matmul_detail::RepeatedDim;
using matmul_detail::Product;
using matmul_detail::SliceLayout;
using matmul_detail::SpanOf;
using matmul_detail::StagedColumnMajor;
using matmul_detail::SwapLast2;
using patterns::EpilogueOperand;

// The block one item computes. The Matmul's fused host path (Note [Matmul fused path]) packs
// the A and B panels of each block anew, so larger blocks amortise the packing: 512 x 512 ran
// the 2048^3 fp32 bias + gelu + residual row in 183 ms of CPU against 212 ms for 256 x 256 (one
// thread, same run), and the two slots of a group (2 x 1 MiB of fp32) still fit a 2 MiB L2 of
// the host core that reads them back.
constexpr int64_t kTileM = 512;
constexpr int64_t kTileN = 512;
constexpr int64_t kMinTile = 64;  // smaller blocks cost more in per-item overhead than they gain
constexpr int64_t kMaxRank = 6;

bool IsFloat(DType dt) { return dt == DType::kF32 || dt == DType::kF16 || dt == DType::kBF16; }

OpCheck CheckTensor(const char* op, const char* what, const TensorRef& t) {
  if (!IsFloat(t.dtype)) {
    return Invalid(StrCat(op, ": ", what, " has dtype ", OpDTypeName(t.dtype),
                          "; allowed: FLOAT, FLOAT16, BFLOAT16"));
  }
  if (t.data == nullptr && t.NumElements() > 0) {
    return NullArg(StrCat(op, ": ", what, " has null storage but ", t.NumElements(), " elements"));
  }
  if (t.Rank() > kMaxRank) {
    return Invalid(StrCat(op, ": ", what, " has ", t.Rank(), " dims ", ShapeString(t.shape),
                          "; at most ", kMaxRank, " are allowed"));
  }
  return {};
}

// The batch dims (all but the last two) of a rank >= 2 shape.
std::vector<int64_t> BatchDims(const TensorRef& t) {
  return std::vector<int64_t>(t.shape.begin(), t.shape.end() - 2);
}

std::vector<int64_t> OutShape(const MatmulEpilogueArgs& args) {
  std::vector<int64_t> batch;
  BroadcastShapes(BatchDims(args.a), BatchDims(args.b), &batch);
  batch.push_back(args.a.shape[args.a.shape.size() - 2]);
  batch.push_back(args.b.shape.back());
  return batch;
}

DType ComputeOf(const MatmulEpilogueArgs& args) {
  return args.compute == DType::kUnknown ? args.a.dtype : args.compute;
}

// An addend broadcast to out's shape, as the kernel will read it: `view` is what is staged or
// read in place (a row view (batch.., 1, N) when `row`).
struct AddendLayout {
  TensorRef view;
  bool row = false;
  bool in_place = false;
};

// `allow_row` false: an addend broadcast over M is staged as a matrix (the kernel reads rows only
// for the bias).
AddendLayout LayoutOfAddend(const TensorRef& t, const std::vector<int64_t>& out_shape,
                            bool allow_row) {
  AddendLayout l;
  l.view = BroadcastTo(t, out_shape);
  const size_t r = out_shape.size();
  const int64_t m = out_shape[r - 2], n = out_shape[r - 1];
  const int64_t sm = l.view.strides[r - 2], sn = l.view.strides[r - 1];
  const bool unit_n = n == 1 || sn == 1;
  l.row = allow_row && (m == 1 || sm == 0);
  if (l.row) {
    l.view.shape[r - 2] = 1;
    l.in_place = unit_n;
  } else {
    l.in_place = unit_n && (m == 1 || sm >= n);
  }
  return l;
}

// True when out can be written where it is: unit-stride rows, a pitch of at least N, no
// broadcast (stride 0) dims that two items would both write.
bool OutInPlace(const TensorRef& out) {
  const std::vector<int64_t> s = out.Strides();
  const size_t r = out.shape.size();
  const int64_t m = out.shape[r - 2], n = out.shape[r - 1];
  if (!(n == 1 || s[r - 1] == 1) || !(m == 1 || s[r - 2] >= n)) return false;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (out.shape[i] > 1 && s[i] == 0) return false;
  }
  return true;
}

// The staging of one launch: operand indices in the Staging's add order.
struct EpilogueStaging {
  Staging st;
  int a = -1, b = -1, bias = -1, residual = -1, out = -1;
  AddendLayout bias_layout, residual_layout;
};

void StageAll(const MatmulEpilogueArgs& args, DType compute, EpilogueStaging* e) {
  const std::vector<int64_t> out_shape = args.out.shape;
  for (const auto& [t, index] :
       {std::pair<const TensorRef*, int*>{&args.a, &e->a}, {&args.b, &e->b}}) {
    const bool in_place = t->dtype == compute && LayoutOf(*t).has_value();
    *index =
        e->st.AddInput(!in_place && StagedColumnMajor(*t) ? SwapLast2(*t) : *t, compute, in_place);
  }
  if (args.bias) {
    e->bias_layout = LayoutOfAddend(*args.bias, out_shape, true);
    e->bias = e->st.AddInput(e->bias_layout.view, args.bias->dtype, e->bias_layout.in_place);
  }
  if (args.residual) {
    e->residual_layout = LayoutOfAddend(*args.residual, out_shape, false);
    e->residual =
        e->st.AddInput(e->residual_layout.view, args.residual->dtype, e->residual_layout.in_place);
  }
  e->out = e->st.AddOutput(args.out, args.out.dtype, OutInPlace(args.out));
}

// The view the Matmul reads input `view` (a or b) through once it is at `dense`.
TensorRef MatmulView(const Staging& st, int i, const TensorRef& view, DType dt, uint8_t* dense) {
  if (st.staged(i)) {
    if (StagedColumnMajor(view)) return SwapLast2(DenseRef(dense, dt, SwapLast2(view).shape));
    return DenseRef(dense, dt, view.shape);
  }
  TensorRef t = view;
  t.strides = view.Strides();
  t.data = dense;
  t.offset = 0;
  return t;
}

// The view an addend or out is read or written through once it is at `dense`.
TensorRef DenseOrInPlace(const Staging& st, int i, const TensorRef& view, uint8_t* dense) {
  if (st.staged(i)) return DenseRef(dense, view.dtype, view.shape);
  TensorRef t = view;
  t.strides = view.Strides();
  t.data = dense;
  t.offset = 0;
  return t;
}

EpilogueOperand OperandOf(const TensorRef& t, bool row, const std::vector<int64_t>& batch_shape) {
  EpilogueOperand op;
  op.data = t.First();
  op.dtype = t.dtype;
  op.row = row;
  const size_t r = t.shape.size();
  op.pitch = t.shape[r - 2] == 1 ? t.shape[r - 1] : t.Strides()[r - 2];
  op.span = SpanOf(t);
  op.batch_offsets = BatchOffsets(t, batch_shape);
  return op;
}

template <class Hooks>
std::function<void()> BodyFor(DType compute, const patterns::MatmulEpilogueTiling& t) {
  switch (compute) {
    case DType::kF16:
      return [t] { patterns::MatmulEpilogueKernel<Hooks, half>(t); };
    case DType::kBF16:
      return [t] { patterns::MatmulEpilogueKernel<Hooks, bfloat16>(t); };
    default:
      return [t] { patterns::MatmulEpilogueKernel<Hooks, float>(t); };
  }
}

std::function<void()> Body(Activation act, DType compute, const patterns::MatmulEpilogueTiling& t) {
  switch (act) {
    case Activation::kRelu:
      return BodyFor<patterns::ReluAct>(compute, t);
    case Activation::kGeluErf:
      return BodyFor<patterns::GeluErfAct>(compute, t);
    case Activation::kGeluTanh:
      return BodyFor<patterns::GeluTanhAct>(compute, t);
    case Activation::kSilu:
      return BodyFor<patterns::SiluAct>(compute, t);
    default:
      return BodyFor<patterns::IdentityAct>(compute, t);
  }
}

int TempsOf(Activation act) {
  switch (act) {
    case Activation::kRelu:
      return patterns::ReluAct::kTemps;
    case Activation::kGeluErf:
      return patterns::GeluErfAct::kTemps;
    case Activation::kGeluTanh:
      return patterns::GeluTanhAct::kTemps;
    case Activation::kSilu:
      return patterns::SiluAct::kTemps;
    default:
      return patterns::IdentityAct::kTemps;
  }
}

uint64_t Align512(uint64_t b) { return (b + 511) / 512 * 512; }

}  // namespace

OpCheck CanImplement(const MatmulEpilogueArgs& args, const arch::Chip& chip) {
  const char* op = args.op;
  OpCheck c;
  if (!(c = CheckTensor(op, args.a_name, args.a)).ok() ||
      !(c = CheckTensor(op, args.b_name, args.b)).ok() ||
      !(c = CheckTensor(op, "out", args.out)).ok()) {
    return c;
  }
  if (args.bias && !(c = CheckTensor(op, args.bias_name, *args.bias)).ok()) return c;
  if (args.residual && !(c = CheckTensor(op, "residual", *args.residual)).ok()) return c;
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{args.a_name, &args.a}, {args.b_name, &args.b}}) {
    if (t->Rank() < 2) {
      return Invalid(StrCat(op, ": ", what, " has ", t->Rank(), " dims ", ShapeString(t->shape),
                            "; allowed: 2 to ", kMaxRank));
    }
  }
  if (args.compute == DType::kUnknown && args.a.dtype != args.b.dtype) {
    return Invalid(StrCat(op, ": ", args.a_name, " is ", OpDTypeName(args.a.dtype), " and ",
                          args.b_name, " is ", OpDTypeName(args.b.dtype),
                          "; they must have the same dtype"));
  }
  const DType compute = ComputeOf(args);
  if (args.compute == DType::kUnknown && args.out.dtype != compute &&
      args.out.dtype != DType::kF32) {
    return Invalid(StrCat(op, ": out has dtype ", OpDTypeName(args.out.dtype),
                          "; allowed: ", OpDTypeName(compute), " (", args.a_name, "'s) or FLOAT"));
  }
  if (args.activation < Activation::kNone || args.activation > Activation::kSilu) {
    return Invalid(StrCat(op, ": activation ", static_cast<int>(args.activation),
                          " is not one of 0 (none), 1 (relu), 2 (gelu_erf), 3 (gelu_tanh), 4 "
                          "(silu)"));
  }
  const int64_t ka = args.a.shape.back(), kb = args.b.shape[args.b.shape.size() - 2];
  if (ka != kb) {
    return Invalid(StrCat(op, ": ", args.a_name, " ", ShapeString(args.a.shape), " and ",
                          args.b_name, " ", ShapeString(args.b.shape),
                          " do not multiply: ", args.a_name, "'s last dim ", ka, " must equal ",
                          args.b_name, "'s second-to-last dim ", kb));
  }
  std::vector<int64_t> batch;
  if (!BroadcastShapes(BatchDims(args.a), BatchDims(args.b), &batch)) {
    return Invalid(StrCat(op, ": the batch dims ", ShapeString(BatchDims(args.a)), " of ",
                          args.a_name, " and ", ShapeString(BatchDims(args.b)), " of ", args.b_name,
                          " do not broadcast (each must be equal or 1)"));
  }
  const std::vector<int64_t> want = OutShape(args);
  if (args.out.shape != want) {
    return Invalid(StrCat(op, ": out has shape ", ShapeString(args.out.shape), "; ", args.a_name,
                          " ", ShapeString(args.a.shape), " @ ", args.b_name, " ",
                          ShapeString(args.b.shape), " is ", ShapeString(want)));
  }
  for (const auto& [what, t] :
       {std::pair<const char*, const std::optional<TensorRef>*>{args.bias_name, &args.bias},
        {"residual", &args.residual}}) {
    std::vector<int64_t> s;
    if (*t && (!BroadcastShapes((*t)->shape, want, &s) || s != want)) {
      return Invalid(StrCat(op, ": ", what, " has shape ", ShapeString((*t)->shape),
                            "; it must broadcast to out's shape ", ShapeString(want)));
    }
  }
  if (!chip.split()) {
    return Invalid(StrCat(op, ": runs as a mix kernel (Matmul on the AIC, epilogue on the AIVs); ",
                          chip.name,
                          " has no separate AIC and AIV cores (use a split chip such "
                          "as ascend910b1)"));
  }
  const int64_t m = want[want.size() - 2], n = want.back();
  if ((m > kMaxPitch && ka > kMaxPitch) || (ka > kMaxPitch && n > kMaxPitch)) {
    return Invalid(StrCat(op, ": M = ", m, ", K = ", ka, ", N = ", n, ": ",
                          m > kMaxPitch ? args.a_name : args.b_name,
                          " has both dims above 65535, the longest row the Matmul reads"));
  }
  if (std::max({m, n, ka}) > std::numeric_limits<int32_t>::max()) {
    return Invalid(StrCat(op, ": M = ", m, ", N = ", n, ", K = ", ka,
                          "; the Matmul takes sizes up to 2^31 - 1"));
  }
  if (const int64_t dim = RepeatedDim(args.out); dim >= 0) {
    return Invalid(StrCat(op, ": out has stride 0 in dim ", dim, " of size ", args.out.shape[dim],
                          ": its elements would share one memory location"));
  }
  for (const auto& [what, t] :
       {std::pair<const char*, const TensorRef*>{args.a_name, &args.a}, {args.b_name, &args.b}}) {
    if (Overlaps(args.out, *t)) {
      return Invalid(StrCat(op, ": out overlaps ", what,
                            " in memory; it must not alias an input of the product"));
    }
  }
  return {};
}

MatmulEpiloguePlan Plan(const MatmulEpilogueArgs& args, const arch::Chip& chip) {
  MatmulEpiloguePlan plan;
  plan.chip = &chip;
  plan.compute = ComputeOf(args);
  const std::vector<int64_t>& out_shape = args.out.shape;
  plan.batch_shape.assign(out_shape.begin(), out_shape.end() - 2);
  patterns::MatmulEpilogueTiling& t = plan.tiling;
  t.batch = Product(plan.batch_shape);
  t.m = out_shape[out_shape.size() - 2];
  t.n = out_shape.back();
  t.k = args.a.shape.back();
  t.alpha = static_cast<float>(args.alpha);
  t.beta = static_cast<float>(args.beta);
  if (t.batch == 0 || t.m == 0 || t.n == 0) return plan;  // an empty out

  EpilogueStaging e;
  StageAll(args, plan.compute, &e);
  plan.staging_bytes = e.st.WorkspaceBytes();

  // Block size: as large as kTileM x kTileN, smaller while the AICs would idle.
  const int64_t aics = std::max(1, chip.aic_count);
  int64_t tm = std::min(t.m, kTileM), tn = std::min(patterns::EpilogueRound16(t.n), kTileN);
  const auto items = [&] { return t.batch * ((t.m + tm - 1) / tm) * ((t.n + tn - 1) / tn); };
  while (items() < aics && (tm > kMinTile || tn > kMinTile)) {
    if (tm >= tn && tm > kMinTile) {
      tm = std::max(kMinTile, tm / 2);
    } else {
      tn = std::max(kMinTile, patterns::EpilogueRound16(tn / 2));
    }
  }
  t.tile_m = tm;
  t.tile_n = tn;
  t.m_tiles = (t.m + tm - 1) / tm;
  t.n_tiles = (t.n + tn - 1) / tn;
  plan.block_dim = static_cast<uint32_t>(std::min<int64_t>(items(), aics));

  // The UB chunk of the AIVs.
  const bool bias_matrix = args.bias && !e.bias_layout.row;
  const bool bias_row = args.bias && e.bias_layout.row;
  const uint32_t tiles = patterns::EpilogueTiles(
      bias_matrix, args.bias && args.bias->dtype != DType::kF32, args.residual.has_value(),
      args.residual && args.residual->dtype != DType::kF32, args.out.dtype != DType::kF32,
      TempsOf(args.activation));
  const uint64_t budget = BudgetOf(chip).ub_bytes - (bias_row ? patterns::EpilogueRowBytes(tn) : 0);
  const uint64_t chunk = budget / (4ull * tiles) / 16 * 16;
  t.chunk = static_cast<uint32_t>(
      std::max<uint64_t>(chunk, static_cast<uint64_t>(patterns::EpilogueRound16(tn))));

  if (t.k > 0) {
    const DType c = DType::kF32;
    const bool a_trans = LayoutOf(MatmulView(e.st, e.a, args.a, plan.compute, nullptr))->trans;
    const bool b_trans = LayoutOf(MatmulView(e.st, e.b, args.b, plan.compute, nullptr))->trans;
    t.cube = matmul_detail::CubeTiling(chip, 1, std::min(t.m, tm), std::min(t.n, tn), t.k,
                                       plan.compute, c, a_trans, b_trans, args.op);
  }
  plan.slots_bytes = Align512(static_cast<uint64_t>(plan.block_dim) * patterns::kEpilogueSlots *
                              static_cast<uint64_t>(tm * tn) * 4);
  plan.workspace_bytes = plan.staging_bytes + plan.slots_bytes;
  return plan;
}

Status Launch(const MatmulEpilogueArgs& args, const MatmulEpiloguePlan& plan, void* workspace,
              const void* stream) {
  if (plan.block_dim == 0) return Status();
  EpilogueStaging e;
  StageAll(args, plan.compute, &e);
  uint8_t* const ws = static_cast<uint8_t*>(workspace);
  return e.st.Enqueue(ws, stream, [&](const std::vector<uint8_t*>& dense) -> Status {
    patterns::MatmulEpilogueTiling t = plan.tiling;
    const TensorRef a = MatmulView(e.st, e.a, args.a, plan.compute, dense[e.a]);
    const TensorRef b = MatmulView(e.st, e.b, args.b, plan.compute, dense[e.b]);
    const SliceLayout la = *LayoutOf(a), lb = *LayoutOf(b);
    t.a = a.First();
    t.b = b.First();
    t.a_span = SpanOf(a);
    t.b_span = SpanOf(b);
    t.a_trans = la.trans;
    t.b_trans = lb.trans;
    t.a_pitch = la.pitch;
    t.b_pitch = lb.pitch;
    t.a_offsets = BatchOffsets(a, plan.batch_shape);
    t.b_offsets = BatchOffsets(b, plan.batch_shape);
    if (args.bias) {
      t.bias = OperandOf(DenseOrInPlace(e.st, e.bias, e.bias_layout.view, dense[e.bias]),
                         e.bias_layout.row, plan.batch_shape);
    }
    if (args.residual) {
      t.residual =
          OperandOf(DenseOrInPlace(e.st, e.residual, e.residual_layout.view, dense[e.residual]),
                    e.residual_layout.row, plan.batch_shape);
    }
    t.out = OperandOf(DenseOrInPlace(e.st, e.out, args.out, dense[e.out]), false, plan.batch_shape);
    t.workspace = ws + plan.staging_bytes;
    LaunchOptions options;
    options.mode = KernelMode::kMix;
    options.chip = plan.chip;
    return rt::LaunchKernelAsync(stream, "ops_matmul_epilogue", plan.block_dim, options,
                                 Body(args.activation, plan.compute, t));
  });
}

}  // namespace aicore::ops
