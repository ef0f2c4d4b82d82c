// The matmul with a fused epilogue: checks, plan and launch of the mix kernel.
// - The problem: a (batch_a.., M, K) @ b (batch_b.., K, N), the batch dims broadcast (NumPy)
//   to out's (batch.., M, N); bias and residual are broadcast to out's shape as views (stride 0,
//   never copied for that).
// - Operands read in place (Note [Staging] otherwise): a and b when in the cube's dtype with a
//   Matmul slice layout (matmul_layout.h); an addend when its rows have unit stride and a pitch
//   of at least N, or when it is broadcast over M and its one row has unit stride (read as a
//   row); out when its rows have unit stride, a pitch of at least N and no broadcast dims.
// - Blocks: tile_m x tile_n (Note [Epilogue block size]: balanced over the AICs), one item per
//   (batch, m block, n block), contiguous runs of items on min(items, AICs) groups. The Matmul
//   tiling is the single-core tiling of one block.
// - UB: the AIVs' budget less the bias row, divided by the chunk tiles the configuration needs
//   (patterns::EpilogueTiles), in multiples of 16 floats.
#include "aicore/ops/matmul/matmul_epilogue.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "aicore/ops/elementwise/elementwise.h"
#include "aicore/ops/framework/aliasing.h"
#include "aicore/ops/matmul/matmul_layout.h"
#include "aicore/ops/patterns/matmul_epilogue_ub.h"
#include "aicore/runtime/stream.h"

namespace aicore::ops {

namespace {

using matmul_detail::BatchOffsets;
using matmul_detail::kMaxPitch;
using matmul_detail::LayoutOf;
using matmul_detail::Product;
using matmul_detail::SliceLayout;
using matmul_detail::SpanOf;
using matmul_detail::StagedColumnMajor;
using matmul_detail::SwapLast2;
using patterns::EpilogueOperand;

// Note [Epilogue block size]
// The block one item computes is the tile_m x tile_n that minimises an estimate, in AIC cycles,
// of the slowest group's time: rounds x (block elements x cube cycles per element +
// kItemCyclesPerK x K) + block elements x kEpilogueCycles, with rounds = ceil(items / groups)
// (the groups' runs differ by at most one item), the middle term each block's start and drain
// and the last the epilogue of the last block, which nothing overlaps. Cube cycles per element:
// the larger of 2 K flops at the AIC's rate (8192 flops a cycle for 16-bit inputs, a quarter for
// fp32) and the Matmul's copies of A and B, which it streams along K once per base block of C
// (K x (1 / base_m + 1 / base_n) elements at kMte2BytesPerCycle, base_m = min(tile_m, 128),
// base_n = min(tile_n, 256): ascend910b1, where MTE2 is the AIC's busier pipe at 16-bit and a
// 128 x 256 base). Candidates: whole base blocks (tile_m a multiple of 128 up to kMaxTileM,
// tile_n of 256 up to kMaxTileN; a partial base block, as in 256 x 688 or 2048^3 fp32's 256 x
// 240, costs nearly a whole one), or up to half a base block the balanced extents (the dim split
// evenly, rounded up to 16). Block sizes that leave one round (items <= groups) are dropped
// when another gives two: a single round overlaps no block's epilogue with the next one's cube
// (1024^3 fp16 would get 384 x 128 in one round; it gets 128 x 256, two).
// Ties (within 3%) go to fewer items: fewer Matmul starts and flag handoffs per group (the
// Matmul's fused host path packs A and B once per launch whatever the block size: the blocks
// share the packed panels, Note [Packed panel cache]). Modeled on ascend910b1, fp16 gelu_erf +
// bias + residual:
// 2048^3 had 256 x 512 blocks, 32 items on 24 AICs (190 us); now 384 x 256, two rounds of 24
// (145 us); 4096^3 512 x 512, 64 items (780 us), now 384 x 512, 88 items (651 us; 512-row
// blocks modeled 10-20% slower at the same number of base blocks per group, hence kMaxTileM).
// The two fp32 slots of a group (2 x 768 KiB) fit a 2 MiB L2 of the host core that reads them.
constexpr int64_t kMaxTileM = 384;
constexpr int64_t kMaxTileN = 512;
constexpr int64_t kBaseM = 128;  // the Matmul's base block for large blocks on ascend910b1
constexpr int64_t kBaseN = 256;
constexpr double kMte2BytesPerCycle = 80;
constexpr double kItemCyclesPerK = 10;
constexpr double kEpilogueCycles = 0.3;
constexpr int64_t kMaxRank = 6;

// Returns the candidate block extents along a dim of `size`: whole multiples of `base` up to
// `limit`, and up to half of `base` the balanced extents (size split into equal parts, rounded
// up to 16) of each multiple of 16; Round16(size) when that is smaller; none beyond it.
std::vector<int64_t> BlockExtents(int64_t size, int64_t base, int64_t limit) {
  std::vector<int64_t> out;
  const int64_t whole = patterns::EpilogueRound16(size);
  for (int64_t want = 16; want < base && want < whole + 16; want += 16) {
    const int64_t parts = (size + want - 1) / want;
    const int64_t e = std::min(patterns::EpilogueRound16((size + parts - 1) / parts), whole);
    // Above half a base block, a partial one costs about a whole one: take the whole one.
    if (e > base / 2 && e < whole) continue;
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  for (int64_t e = base; e <= limit && e < whole + base; e += base) {
    const int64_t c = std::min(e, whole);
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

// The block size of Note [Epilogue block size].
std::pair<int64_t, int64_t> BlockSize(int64_t batch, int64_t m, int64_t n, int64_t k, DType in,
                                      int64_t aics) {
  const double kd = static_cast<double>(k);
  const double mac = 2.0 * kd / (in == DType::kF32 ? 2048.0 : 8192.0);
  const double esize = static_cast<double>(DTypeSize(in));
  struct Candidate {
    int64_t tm, tn, items;
    double cost;
  };
  std::vector<Candidate> all;
  double least = 0;
  for (const int64_t tm : BlockExtents(m, kBaseM, kMaxTileM)) {
    for (const int64_t tn : BlockExtents(n, kBaseN, kMaxTileN)) {
      const int64_t items = batch * ((m + tm - 1) / tm) * ((n + tn - 1) / tn);
      const int64_t rounds = (items + aics - 1) / aics;
      const double elems = static_cast<double>(std::min(tm, m) * std::min(tn, n));
      const double copy = kd * esize *
                          (1.0 / static_cast<double>(std::min<int64_t>(tm, kBaseM)) +
                           1.0 / static_cast<double>(std::min<int64_t>(tn, kBaseN))) /
                          kMte2BytesPerCycle;
      const double cost = static_cast<double>(rounds) * (elems * std::max(mac, copy) +
                                                         kItemCyclesPerK * kd) +
                          elems * kEpilogueCycles;
      all.push_back({tm, tn, items, cost});
    }
  }
  // One round overlaps no epilogue with the cube: only when no block size gives two.
  const int64_t min_items =
      std::max_element(all.begin(), all.end(), [](const Candidate& x, const Candidate& y) {
        return x.items < y.items;
      })->items > aics ? aics + 1 : 0;
  std::erase_if(all, [&](const Candidate& c) { return c.items < min_items; });
  for (const Candidate& c : all) {
    if (c.cost < least || least == 0) least = c.cost;
  }
  int64_t best_m = 16, best_n = 16, best_items = 0;
  double best_cost = 0;
  for (const Candidate& c : all) {
    if (c.cost > 1.03 * least) continue;
    if (best_items == 0 || c.items < best_items ||
        (c.items == best_items && c.cost < best_cost)) {
      best_m = c.tm;
      best_n = c.tn;
      best_items = c.items;
      best_cost = c.cost;
    }
  }
  return {std::min(best_m, m), best_n};
}

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

template <class Hooks>
std::function<void()> UbBodyFor(DType compute, const patterns::MatmulEpilogueTiling& t) {
  switch (compute) {
    case DType::kF16:
      return [t] { patterns::MatmulEpilogueUbKernel<Hooks, half>(t); };
    case DType::kBF16:
      return [t] { patterns::MatmulEpilogueUbKernel<Hooks, bfloat16>(t); };
    default:
      return [t] { patterns::MatmulEpilogueUbKernel<Hooks, float>(t); };
  }
}

template <class Hooks>
std::function<void()> StrategyBody(EpilogueStrategy s, DType compute,
                                   const patterns::MatmulEpilogueTiling& t) {
  return s == EpilogueStrategy::kL0cToUb ? UbBodyFor<Hooks>(compute, t)
                                         : BodyFor<Hooks>(compute, t);
}

std::function<void()> Body(Activation act, EpilogueStrategy s, DType compute,
                           const patterns::MatmulEpilogueTiling& t) {
  switch (act) {
    case Activation::kRelu:
      return StrategyBody<patterns::ReluAct>(s, compute, t);
    case Activation::kGeluErf:
      return StrategyBody<patterns::GeluErfAct>(s, compute, t);
    case Activation::kGeluTanh:
      return StrategyBody<patterns::GeluTanhAct>(s, compute, t);
    case Activation::kSilu:
      return StrategyBody<patterns::SiluAct>(s, compute, t);
    default:
      return StrategyBody<patterns::IdentityAct>(s, compute, t);
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
  if (args.strategy == EpilogueStrategy::kL0cToUb && !chip.fixpipe_to_ub) {
    return Invalid(StrCat(op, ": strategy kL0cToUb (the AIC's Fixpipe writing L0C into its AIV's "
                          "UB) needs a chip with the fixpipe_to_ub capability (ascend950); ",
                          chip.name, " has no L0C -> UB path: use kGmWorkspace or leave the "
                          "strategy to the plan"));
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
  // The cube reads a and b while the epilogue writes out; residual is read for each tile of out
  // before the tile is written, so out may be its view.
  const auto opt = [](const std::optional<TensorRef>& t) { return t ? &*t : nullptr; };
  return CheckOutputs(op, {{"out", &args.out, true}},
                      {{args.a_name, &args.a},
                       {args.b_name, &args.b},
                       {args.bias_name, opt(args.bias)},
                       {"residual", opt(args.residual), true}});
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

  // Block size: Note [Epilogue block size].
  const int64_t aics = std::max(1, chip.aic_count);
  const auto [tm, tn] = BlockSize(t.batch, t.m, t.n, t.k, plan.compute, aics);
  const auto items = [&, tm = tm, tn = tn] {
    return t.batch * ((t.m + tm - 1) / tm) * ((t.n + tn - 1) / tn);
  };
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
  // Note [Epilogue strategy]
  // The plan takes kGmWorkspace unless the caller forces kL0cToUb (MatmulEpilogueArgs::
  // strategy): the timing model puts the L0C -> UB kernel behind the GM-workspace one on
  // ascend950 (595 vs 498 us for fp16 gelu_erf(a @ b + bias) + residual at 4096^3, docs/ops.md:
  // one AIV per AIC and narrower blocks cost more than the GM round trip saves), and the
  // strategy-selection framework (ops/tune) ranks AIV kernels only, not the two mix kernels, so
  // there is no modeled-cost comparison to pick by per shape; the faster-by-model default stays.
  //
  // The L0C -> UB strategy: the AIV's UB holds one fp32 Matmul base block (the slot) besides
  // the chunk tiles. The block above is kept when its base block fits; otherwise the block is
  // narrowed (N to 256 then 128, then M likewise) until one does: on ascend950's 256 KB L0C the
  // tiling picks 256 x 256 bases for large blocks, 256 KB of fp32 [model choice].
  if (args.strategy == EpilogueStrategy::kL0cToUb && chip.fixpipe_to_ub && t.k > 0) {
    const bool a_trans = LayoutOf(MatmulView(e.st, e.a, args.a, plan.compute, nullptr))->trans;
    const bool b_trans = LayoutOf(MatmulView(e.st, e.b, args.b, plan.compute, nullptr))->trans;
    for (const int64_t cap_m : {tm, int64_t{256}, int64_t{128}}) {
      for (const int64_t cap_n : {tn, int64_t{256}, int64_t{128}}) {
        const int64_t um = std::min(tm, cap_m), un = std::min(tn, cap_n);
        const AscendC::tiling::TCubeTiling cube =
            um == tm && un == tn
                ? t.cube
                : matmul_detail::CubeTiling(chip, 1, std::min(t.m, um), std::min(t.n, un), t.k,
                                            plan.compute, DType::kF32, a_trans, b_trans, args.op);
        const uint64_t slot = patterns::EpilogueUbSlotBytes(cube);
        const uint64_t left = budget > slot ? budget - slot : 0;
        const uint64_t ub_chunk = left / (4ull * tiles) / 16 * 16;
        if (ub_chunk < static_cast<uint64_t>(patterns::EpilogueRound16(cube.baseN))) continue;
        plan.strategy = EpilogueStrategy::kL0cToUb;
        t.cube = cube;
        t.tile_m = um;
        t.tile_n = un;
        t.m_tiles = (t.m + um - 1) / um;
        t.n_tiles = (t.n + un - 1) / un;
        plan.block_dim =
            static_cast<uint32_t>(std::min<int64_t>(t.batch * t.m_tiles * t.n_tiles, aics));
        t.chunk = static_cast<uint32_t>(ub_chunk);
        plan.workspace_bytes = plan.staging_bytes;
        return plan;
      }
    }
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
    const bool ub = plan.strategy == EpilogueStrategy::kL0cToUb;
    t.workspace = ub ? nullptr : ws + plan.staging_bytes;
    LaunchOptions options;
    options.mode = ub ? KernelMode::kMix1To1 : KernelMode::kMix;
    options.chip = plan.chip;
    return rt::LaunchKernelAsync(stream, "ops_matmul_epilogue", plan.block_dim, options,
                                 Body(args.activation, plan.strategy, plan.compute, t));
  });
}

}  // namespace aicore::ops
