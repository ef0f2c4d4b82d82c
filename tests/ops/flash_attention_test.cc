// Flash attention through the C++ API and aclnn against the double references of
// tests/reference/attention_ref.h: every layout, GQA/MQA, every sparse mode and mask shape,
// fully masked rows, shapes of 1, primes and tails, Sq != Skv, every dtype; the backward against
// the reference gradient and finite differences; the checks' codes and messages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>

#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aicore/arch/chip.h"
#include "aicore/check/sanitizer.h"
#include "aicore/kernel/lib/matmul/matmul.h"
#include "ops_lib_test_util.h"
#include "tests/reference/attention_ref.h"

namespace aicore::ops {
namespace {

using testing::DeviceTensor;
using testing::ExpectNear;
using testing::Inputs;

enum class MaskShape { kNone, kSS, kB1SS, k11SS, kBNSS, kCompressed };

struct Case {
  std::string layout = "BNSD";
  DType dtype = DType::kF32;
  int64_t b = 1, nq = 1, nkv = 1, sq = 1, skv = 1, d = 1, dv = -1;  // dv -1: d
  int sparse = 0;
  MaskShape mask = MaskShape::kNone;
  int64_t pre = 2147483647, next = 2147483647;
  double scale = -1;          // -1: 1 / sqrt(d)
  bool mask_all_row = false;  // mask out every column of row 0 (a fully masked row)
  int slot_buffers = 0;       // 1 or 2: through Plan/Launch with that many slots; 0: the C++ API
};

std::string Name(const Case& c) {
  return StrCat(c.layout, " ", OpDTypeName(c.dtype), " B=", c.b, " Nq=", c.nq, " Nkv=", c.nkv,
                " Sq=", c.sq, " Skv=", c.skv, " D=", c.d, " Dv=", c.dv, " sparse=", c.sparse,
                " mask=", static_cast<int>(c.mask), " pre=", c.pre, " next=", c.next,
                " slot_buffers=", c.slot_buffers);
}

// The shape of a (b, n, s, d) tensor in `layout` and the offset of element (b, n, s, d).
std::vector<int64_t> LayoutShape(const std::string& l, int64_t b, int64_t n, int64_t s, int64_t d) {
  if (l == "BNSD") return {b, n, s, d};
  if (l == "BSND") return {b, s, n, d};
  if (l == "BSH") return {b, s, n * d};
  return {s, b, n * d};  // SBH
}
int64_t LayoutIndex(const std::string& l, int64_t B, int64_t N, int64_t S, int64_t D, int64_t b,
                    int64_t n, int64_t s, int64_t d) {
  if (l == "BNSD") return ((b * N + n) * S + s) * D + d;
  if (l == "SBH") return ((s * B + b) * N + n) * D + d;
  return ((b * S + s) * N + n) * D + d;  // BSND, BSH
}
// BNSD values -> the layout's order, and back.
std::vector<double> ToLayout(const std::string& l, const std::vector<double>& bnsd, int64_t B,
                             int64_t N, int64_t S, int64_t D) {
  std::vector<double> r(bnsd.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t d = 0; d < D; ++d)
          r[LayoutIndex(l, B, N, S, D, b, n, s, d)] = bnsd[((b * N + n) * S + s) * D + d];
  return r;
}
std::vector<double> FromLayout(const std::string& l, const std::vector<double>& v, int64_t B,
                               int64_t N, int64_t S, int64_t D) {
  std::vector<double> r(v.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t d = 0; d < D; ++d)
          r[((b * N + n) * S + s) * D + d] = v[LayoutIndex(l, B, N, S, D, b, n, s, d)];
  return r;
}

struct Problem {
  Case c;
  ref::AttentionProblem p;
  std::vector<int64_t> mask_shape;
};

Problem Build(Case c) {
  if (c.dv < 0) c.dv = c.d;
  if (c.scale < 0) c.scale = 1.0 / std::sqrt(static_cast<double>(c.d));
  Problem pr;
  pr.c = c;
  ref::AttentionProblem& p = pr.p;
  p.b = c.b;
  p.nq = c.nq;
  p.nkv = c.nkv;
  p.sq = c.sq;
  p.skv = c.skv;
  p.d = c.d;
  p.dv = c.dv;
  p.scale = static_cast<double>(static_cast<float>(c.scale));
  p.has_mask = c.mask != MaskShape::kNone;
  p.sparse_mode = c.sparse;
  p.pre = c.pre;
  p.next = c.next;
  switch (c.mask) {
    case MaskShape::kSS:
      pr.mask_shape = {c.sq, c.skv};
      break;
    case MaskShape::kB1SS:
      pr.mask_shape = {c.b, 1, c.sq, c.skv};
      p.mb = c.b;
      break;
    case MaskShape::k11SS:
      pr.mask_shape = {1, 1, c.sq, c.skv};
      break;
    case MaskShape::kBNSS:
      pr.mask_shape = {c.b, c.nq, c.sq, c.skv};
      p.mb = c.b;
      p.mn = c.nq;
      break;
    case MaskShape::kCompressed:
      pr.mask_shape = {2048, 2048};
      break;
    case MaskShape::kNone:
      break;
  }
  if (c.mask != MaskShape::kNone && c.mask != MaskShape::kCompressed) {
    p.mask.resize(p.mb * p.mn * c.sq * c.skv);
    uint64_t s = 7;
    for (size_t i = 0; i < p.mask.size(); ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      p.mask[i] = (s >> 60) < 5 ? 1 : 0;  // about 30% masked
    }
    if (c.mask_all_row) {
      for (int64_t j = 0; j < c.skv; ++j) p.mask[j] = 1;  // row 0 of (0, 0)
    }
  }
  return pr;
}

struct Tensors {
  std::unique_ptr<DeviceTensor> q, k, v, out, smax, ssum, mask;
  std::vector<double> qv, kv, vv;  // BNSD, as stored
};

FlashAttentionAttrs AttrsOf(const Case& c) {
  FlashAttentionAttrs a;
  a.scale = c.scale;
  a.pre_tokens = c.pre;
  a.next_tokens = c.next;
  a.head_num = c.nq;
  a.layout = c.layout;
  a.sparse_mode = c.sparse;
  return a;
}

Tensors Upload(const Problem& pr) {
  const Case& c = pr.c;
  Tensors t;
  const int64_t nq = c.b * c.nq * c.sq * c.d, nk = c.b * c.nkv * c.skv * c.d,
                nv = c.b * c.nkv * c.skv * c.dv, no = c.b * c.nq * c.sq * c.dv;
  t.q = std::make_unique<DeviceTensor>(c.dtype, nq);
  t.k = std::make_unique<DeviceTensor>(c.dtype, nk);
  t.v = std::make_unique<DeviceTensor>(c.dtype, nv);
  t.out = std::make_unique<DeviceTensor>(c.dtype, no);
  t.smax = std::make_unique<DeviceTensor>(DType::kF32, c.b * c.nq * c.sq * 8);
  t.ssum = std::make_unique<DeviceTensor>(DType::kF32, c.b * c.nq * c.sq * 8);
  t.qv = FromLayout(c.layout,
                    t.q->Fill(ToLayout(c.layout, Inputs(nq, -2, 2, 1), c.b, c.nq, c.sq, c.d)), c.b,
                    c.nq, c.sq, c.d);
  t.kv = FromLayout(c.layout,
                    t.k->Fill(ToLayout(c.layout, Inputs(nk, -2, 2, 2), c.b, c.nkv, c.skv, c.d)),
                    c.b, c.nkv, c.skv, c.d);
  t.vv = FromLayout(c.layout,
                    t.v->Fill(ToLayout(c.layout, Inputs(nv, -1, 1, 3), c.b, c.nkv, c.skv, c.dv)),
                    c.b, c.nkv, c.skv, c.dv);
  if (!pr.mask_shape.empty()) {
    int64_t n = 1;
    for (int64_t x : pr.mask_shape) n *= x;
    t.mask = std::make_unique<DeviceTensor>(DType::kU8, n);
    uint8_t* m = static_cast<uint8_t*>(t.mask->data());
    if (c.mask == MaskShape::kCompressed) {
      for (int64_t i = 0; i < 2048; ++i)
        for (int64_t j = 0; j < 2048; ++j) m[i * 2048 + j] = j > i ? 1 : 0;
    } else {
      for (int64_t i = 0; i < n; ++i) m[i] = pr.p.mask[i];
    }
  }
  return t;
}

void CheckForward(const Case& c0) {
  const Problem pr = Build(c0);
  const Case& c = pr.c;
  SCOPED_TRACE(Name(c));
  Tensors t = Upload(pr);
  TensorRef mask_ref;
  if (t.mask) mask_ref = t.mask->Ref(pr.mask_shape);
  FlashAttentionArgs a;
  a.query = t.q->Ref(LayoutShape(c.layout, c.b, c.nq, c.sq, c.d));
  a.key = t.k->Ref(LayoutShape(c.layout, c.b, c.nkv, c.skv, c.d));
  a.value = t.v->Ref(LayoutShape(c.layout, c.b, c.nkv, c.skv, c.dv));
  a.has_mask = t.mask != nullptr;
  if (t.mask) a.atten_mask = mask_ref;
  a.attrs = AttrsOf(c);
  a.softmax_max = t.smax->Ref({c.b, c.nq, c.sq, 8});
  a.softmax_sum = t.ssum->Ref({c.b, c.nq, c.sq, 8});
  a.attention_out = t.out->Ref(LayoutShape(c.layout, c.b, c.nq, c.sq, c.dv));
  if (c.slot_buffers == 0) {
    const Status s = FlashAttentionForward(a.query, a.key, a.value, t.mask ? &mask_ref : nullptr,
                                           a.attrs, a.softmax_max, a.softmax_sum,
                                           a.attention_out);
    ASSERT_TRUE(s.ok()) << s.ToString();
  } else {
    const arch::Chip& chip = arch::DefaultChip();
    ASSERT_TRUE(CanImplement(a, chip).ok());
    FlashAttentionPlan plan = Plan(a, chip);
    if (c.layout == "BNSD") {
      // Contiguous operands of every dtype are read in place: the workspace is the slots.
      EXPECT_EQ(plan.workspace_bytes, plan.slots_bytes);
    }
    plan.slot_buffers = c.slot_buffers;
    DeviceTensor ws(DType::kU8, static_cast<int64_t>(plan.workspace_bytes));
    const Status s = Launch(a, plan, ws.data(), nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  testing::Sync();
  ref::AttentionForward want = ref::AttentionForwardRef(pr.p, t.qv, t.kv, t.vv);
  // 16-bit: P is rounded to the input dtype before P V (as the hardware's flash attention does)
  // and the output once from the fp32 accumulator, so |error| <= about 1.5 ulp of the dtype at
  // the output's scale (|V| <= 1): atol half the dtype's rtol.
  testing::Tolerance tol = testing::TolFor(c.dtype);
  tol.atol = std::max(tol.atol, c.dtype == DType::kF32 ? 2e-6 : tol.rtol * 0.5);
  ExpectNear(FromLayout(c.layout, t.out->Read(), c.b, c.nq, c.sq, c.dv), want.out, tol, "out");
  const std::vector<double> mx = t.smax->Read(), sm = t.ssum->Read();
  std::vector<double> mx1(want.max.size()), sm1(want.sum.size());
  bool replicated = true;
  for (size_t r = 0; r < want.max.size(); ++r) {
    mx1[r] = mx[r * 8];
    sm1[r] = sm[r * 8];
    for (int x = 1; x < 8; ++x) replicated &= mx[r * 8 + x] == mx1[r] && sm[r * 8 + x] == sm1[r];
  }
  EXPECT_TRUE(replicated);
  for (size_t r = 0; r < want.max.size(); ++r) {
    if (std::isinf(want.max[r])) {
      EXPECT_TRUE(std::isinf(mx1[r]) && mx1[r] < 0) << "row " << r << " max " << mx1[r];
      EXPECT_EQ(sm1[r], 0.0) << "row " << r;
      mx1[r] = want.max[r] = 0;
    }
  }
  testing::Tolerance stat_tol{2e-5, 2e-5};
  ExpectNear(mx1, want.max, stat_tol, "softmaxMax");
  ExpectNear(sm1, want.sum, {1e-4, 1e-5}, "softmaxSum");
}

TEST(FlashAttentionTest, ShapesAndLayouts) {
  for (const char* l : {"BNSD", "BSND", "BSH", "SBH"}) {
    Case c;
    c.layout = l;
    c.b = 2;
    c.nq = 3;
    c.nkv = 3;
    c.sq = 37;
    c.skv = 141;  // a tail past one kv block
    c.d = 24;
    CheckForward(c);
  }
  for (auto [sq, skv, d] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                            {1, 7, 5},
                            {131, 3, 13},
                            {97, 257, 64},
                            {250, 130, 128}}) {
    Case c;
    c.sq = sq;
    c.skv = skv;
    c.d = d;
    CheckForward(c);
  }
}

TEST(FlashAttentionTest, GroupedQueryHeads) {
  for (auto [nq, nkv] : {std::pair<int64_t, int64_t>{2, 2}, {4, 2}, {8, 1}, {16, 2}}) {
    for (const char* l : {"BSH", "BNSD"}) {
      Case c;
      c.layout = l;
      c.nq = nq;
      c.nkv = nkv;
      c.sq = 19;
      c.skv = 33;
      c.d = 16;
      CheckForward(c);
    }
  }
}

TEST(FlashAttentionTest, SparseModesAndMasks) {
  for (MaskShape m : {MaskShape::kSS, MaskShape::kB1SS, MaskShape::k11SS, MaskShape::kBNSS}) {
    for (int mode : {0, 1}) {
      Case c;
      c.b = 2;
      c.nq = 2;
      c.nkv = 2;
      c.sq = 45;
      c.skv = 150;
      c.d = 8;
      c.sparse = mode;
      c.mask = m;
      c.mask_all_row = true;
      CheckForward(c);
    }
  }
  // Mode 0 pre/next windows (top-left), including one that leaves early rows empty.
  for (auto [pre, next] : {std::pair<int64_t, int64_t>{2147483647, 0}, {10, 3}, {0, 0}, {-5, 40}}) {
    Case c;
    c.sq = 150;
    c.skv = 140;
    c.d = 8;
    c.mask = MaskShape::kSS;
    c.pre = pre;
    c.next = next;
    CheckForward(c);
  }
  for (int mode : {2, 3, 4}) {
    for (auto [sq, skv] : {std::pair<int64_t, int64_t>{150, 150}, {70, 300}, {300, 70}}) {
      Case c;
      c.nq = 2;
      c.nkv = 1;
      c.sq = sq;
      c.skv = skv;
      c.d = 16;
      c.sparse = mode;
      c.mask = MaskShape::kCompressed;
      if (mode == 4) {
        c.pre = 20;
        c.next = 5;
      }
      CheckForward(c);
    }
  }
}

TEST(FlashAttentionTest, Dtypes) {
  for (DType dt : {DType::kF16, DType::kBF16}) {
    for (const char* l : {"BSH", "BNSD"}) {
      Case c;
      c.layout = l;
      c.dtype = dt;
      c.b = 2;
      c.nq = 4;
      c.nkv = 2;
      c.sq = 67;
      c.skv = 133;
      c.d = 32;
      c.sparse = 3;
      c.mask = MaskShape::kCompressed;
      CheckForward(c);
    }
  }
}

// One and two slot buffers (Note [Forward slots]) give the reference's result for every dtype,
// with tails (Skv not a multiple of the kv block, several blocks per q tile, more items than
// groups so the AIC runs ahead across items), windows that skip blocks, an explicit mask with a
// fully masked row, GQA and odd head dims.
TEST(FlashAttentionTest, SlotBuffersOneTwoAndThree) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int slots : {1, 2, 3}) {
      Case c;
      c.dtype = dt;
      c.slot_buffers = slots;
      c.b = 2;
      c.nq = 8;  // 2 x 8 x 2 q tiles: more items than groups
      c.nkv = 2;
      c.sq = 200;
      c.skv = 300;
      c.d = 40;
      CheckForward(c);
      Case causal = c;  // right-down causal through the compressed mask: skipped blocks
      causal.sparse = 3;
      causal.mask = MaskShape::kCompressed;
      CheckForward(causal);
      Case masked = c;  // explicit mask with a fully masked row; one kv head, D odd, Dv != D
      masked.nkv = 1;
      masked.d = 19;
      masked.dv = 24;
      masked.mask = MaskShape::kB1SS;
      masked.mask_all_row = true;
      CheckForward(masked);
      Case band = c;  // a band: rows whose window misses whole blocks
      band.sparse = 4;
      band.mask = MaskShape::kCompressed;
      band.pre = 40;
      band.next = 5;
      band.layout = "BSND";
      CheckForward(band);
    }
  }
}

// The Matmul's cube path (what `aicore check` and the profiler see; Note [Matmul fused path])
// reads 16-bit Q, K, V and P the same way.
TEST(FlashAttentionTest, CubePathWithSixteenBitOperands) {
  AscendC::detail::SetMatmulFusedPath(false);
  for (DType dt : {DType::kF16, DType::kF32}) {
    Case c;
    c.dtype = dt;
    c.slot_buffers = 2;
    c.nq = 2;
    c.sq = 70;
    c.skv = 300;
    c.d = 24;
    c.sparse = 3;
    c.mask = MaskShape::kCompressed;
    CheckForward(c);
  }
  AscendC::detail::SetMatmulFusedPath(true);
}

TEST(FlashAttentionTest, SlotBuffersOutOfRangeAreRefused) {
  const Problem pr = Build(Case{});
  Tensors t = Upload(pr);
  FlashAttentionArgs a;
  a.query = t.q->Ref({1, 1, 1, 1});
  a.key = t.k->Ref({1, 1, 1, 1});
  a.value = t.v->Ref({1, 1, 1, 1});
  a.attrs = AttrsOf(pr.c);
  a.softmax_max = t.smax->Ref({1, 1, 1, 8});
  a.softmax_sum = t.ssum->Ref({1, 1, 1, 8});
  a.attention_out = t.out->Ref({1, 1, 1, 1});
  FlashAttentionPlan plan = Plan(a, arch::DefaultChip());
  DeviceTensor ws(DType::kU8, static_cast<int64_t>(plan.workspace_bytes));
  for (int slots : {0, 4}) {
    plan.slot_buffers = slots;
    const Status s = Launch(a, plan, ws.data(), nullptr);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("slot_buffers is " + std::to_string(slots)), std::string::npos)
        << s.ToString();
  }
  // Slots past what Plan reserved (as if slot_buffers were raised after it) are refused.
  plan = Plan(a, arch::DefaultChip());
  plan.slots_bytes /= 2;
  const Status s = Launch(a, plan, ws.data(), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  testing::Sync();
}

// Runs the forward and the backward through the C++ API; returns (dq, dk, dv) as BNSD doubles.
struct BackwardRun {
  std::vector<double> dq, dk, dv, dout;
};
BackwardRun RunBackward(const Problem& pr, Tensors& t) {
  const Case& c = pr.c;
  TensorRef mask_ref;
  if (t.mask) mask_ref = t.mask->Ref(pr.mask_shape);
  const TensorRef* m = t.mask ? &mask_ref : nullptr;
  const auto qs = LayoutShape(c.layout, c.b, c.nq, c.sq, c.d);
  const auto ks = LayoutShape(c.layout, c.b, c.nkv, c.skv, c.d);
  const auto vs = LayoutShape(c.layout, c.b, c.nkv, c.skv, c.dv);
  const auto os = LayoutShape(c.layout, c.b, c.nq, c.sq, c.dv);
  const FlashAttentionAttrs attrs = AttrsOf(c);
  Status s = FlashAttentionForward(t.q->Ref(qs), t.k->Ref(ks), t.v->Ref(vs), m, attrs,
                                   t.smax->Ref({c.b, c.nq, c.sq, 8}),
                                   t.ssum->Ref({c.b, c.nq, c.sq, 8}), t.out->Ref(os));
  EXPECT_TRUE(s.ok()) << s.ToString();
  const int64_t no = c.b * c.nq * c.sq * c.dv;
  DeviceTensor dy(c.dtype, no), dq(c.dtype, c.b * c.nq * c.sq * c.d),
      dk(c.dtype, c.b * c.nkv * c.skv * c.d), dv(c.dtype, c.b * c.nkv * c.skv * c.dv);
  BackwardRun r;
  r.dout =
      FromLayout(c.layout, dy.Fill(ToLayout(c.layout, Inputs(no, -1, 1, 9), c.b, c.nq, c.sq, c.dv)),
                 c.b, c.nq, c.sq, c.dv);
  if (c.slot_buffers == 0) {
    s = FlashAttentionBackward(t.q->Ref(qs), t.k->Ref(ks), t.v->Ref(vs), dy.Ref(os), m,
                               t.smax->Ref({c.b, c.nq, c.sq, 8}), t.ssum->Ref({c.b, c.nq, c.sq, 8}),
                               t.out->Ref(os), attrs, dq.Ref(qs), dk.Ref(ks), dv.Ref(vs));
  } else {
    FlashAttentionGradArgs a;
    a.query = t.q->Ref(qs);
    a.key = t.k->Ref(ks);
    a.value = t.v->Ref(vs);
    a.dy = dy.Ref(os);
    a.has_mask = m != nullptr;
    if (m != nullptr) a.atten_mask = *m;
    a.softmax_max = t.smax->Ref({c.b, c.nq, c.sq, 8});
    a.softmax_sum = t.ssum->Ref({c.b, c.nq, c.sq, 8});
    a.attention_in = t.out->Ref(os);
    a.attrs = attrs;
    a.dq = dq.Ref(qs);
    a.dk = dk.Ref(ks);
    a.dv = dv.Ref(vs);
    const arch::Chip& chip = arch::DefaultChip();
    EXPECT_TRUE(CanImplement(a, chip).ok());
    FlashAttentionPlan plan = Plan(a, chip);
    if (c.layout == "BNSD") {
      // Contiguous operands of every dtype are read and written in place: the workspace is the
      // slots and the (B, N, Sq, 8) rowsum(dO * O), bounded by the operands, never Sq x Skv.
      const uint64_t dsum = static_cast<uint64_t>(c.b * c.nq * c.sq * 8 * 4);
      EXPECT_EQ(plan.workspace_bytes, plan.slots_bytes + (dsum + 511) / 512 * 512);
    }
    plan.slot_buffers = c.slot_buffers;
    DeviceTensor ws(DType::kU8, static_cast<int64_t>(plan.workspace_bytes));
    s = Launch(a, plan, ws.data(), nullptr);
  }
  EXPECT_TRUE(s.ok()) << s.ToString();
  testing::Sync();
  r.dq = FromLayout(c.layout, dq.Read(), c.b, c.nq, c.sq, c.d);
  r.dk = FromLayout(c.layout, dk.Read(), c.b, c.nkv, c.skv, c.d);
  r.dv = FromLayout(c.layout, dv.Read(), c.b, c.nkv, c.skv, c.dv);
  return r;
}

// 16-bit inputs: the kernel rounds P and dS to the input dtype (unit roundoff u: 2^-11 fp16,
// 2^-8 bf16) before their fp32-accumulated products, reads the forward's output rounded to it
// (in D = rowsum(dO * O); that output carries the forward's own rounding of P, about u more), and
// rounds each gradient once. Each rounding perturbs a gradient element by at most u times its
// sum of absolute terms (ref::AttentionBackwardRef's magnitude, which includes the D term), so
// |error| <= 4 u (magnitude + |want|) bounds them with room (the worst seen is about 0.9 u);
// the inputs themselves are exact (the reference reads the stored 16-bit values). Below fp16's
// normal range a rounding errs by up to 2^-25 absolute instead: at most Sq + Skv such roundings
// (of P, dS or the result) enter one element, with factors |x| <= 2, so fp16 adds a floor of
// (Sq + Skv) 2^-24. fp32: the forward's and backward's fp32 arithmetic.
double UnitRoundoff(DType dt) { return dt == DType::kF16 ? 0x1p-11 : 0x1p-8; }

void ExpectGradNear(const std::vector<double>& got, const std::vector<double>& want,
                    const std::vector<double>& magnitude, const Case& c, const std::string& what) {
  const DType dt = c.dtype;
  if (dt == DType::kF32) {
    ExpectNear(got, want, {1e-4, 2e-5}, what);
    return;
  }
  ASSERT_EQ(got.size(), want.size()) << what;
  const double u = UnitRoundoff(dt);
  const double floor = dt == DType::kF16 ? static_cast<double>(c.sq + c.skv) * 0x1p-24 : 0.0;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double bound = 4 * u * (magnitude[i] + std::fabs(want[i])) + floor;
    if (!(std::fabs(got[i] - want[i]) <= bound) && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i]
                    << " (bound " << bound << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements off";
}

void CheckBackward(const Case& c0) {
  const Problem pr = Build(c0);
  const Case& c = pr.c;
  SCOPED_TRACE(Name(c));
  Tensors t = Upload(pr);
  const BackwardRun r = RunBackward(pr, t);
  ref::AttentionGrads mag;
  const ref::AttentionGrads want = ref::AttentionBackwardRef(pr.p, t.qv, t.kv, t.vv, r.dout, &mag);
  for (const auto& [name, got, ref, m] :
       {std::tuple<const char*, const std::vector<double>*, const std::vector<double>*,
                   const std::vector<double>*>{"dq", &r.dq, &want.dq, &mag.dq},
        {"dk", &r.dk, &want.dk, &mag.dk},
        {"dv", &r.dv, &want.dv, &mag.dv}}) {
    ExpectGradNear(*got, *ref, *m, c, name);
    for (double x : *got) ASSERT_TRUE(std::isfinite(x)) << name;
  }
}

TEST(FlashAttentionBackwardTest, MatchesTheReferenceGradient) {
  for (const char* l : {"BNSD", "BSH", "SBH", "BSND"}) {
    Case c;
    c.layout = l;
    c.b = 2;
    c.nq = 2;
    c.nkv = 1;
    c.sq = 37;
    c.skv = 141;
    c.d = 24;
    CheckBackward(c);
  }
  for (auto [sq, skv, d] :
       {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {131, 3, 13}, {150, 260, 64}}) {
    Case c;
    c.sq = sq;
    c.skv = skv;
    c.d = d;
    CheckBackward(c);
  }
}

TEST(FlashAttentionBackwardTest, SparseModesMasksAndGqa) {
  for (int mode : {0, 1}) {
    Case c;
    c.b = 2;
    c.nq = 4;
    c.nkv = 2;
    c.sq = 45;
    c.skv = 150;
    c.d = 8;
    c.sparse = mode;
    c.mask = mode == 0 ? MaskShape::kB1SS : MaskShape::kBNSS;
    c.mask_all_row = true;
    if (mode == 0) {
      c.pre = 30;
      c.next = 60;
    }
    CheckBackward(c);
  }
  for (int mode : {2, 3, 4}) {
    Case c;
    c.nq = 8;
    c.nkv = 1;
    c.sq = 140;
    c.skv = 70;
    c.d = 16;
    c.sparse = mode;
    c.mask = MaskShape::kCompressed;
    c.pre = 20;
    c.next = 5;
    CheckBackward(c);
  }
  for (DType dt : {DType::kF16, DType::kBF16}) {
    Case c;
    c.dtype = dt;
    c.layout = "BSH";
    c.nq = 2;
    c.nkv = 2;
    c.sq = 67;
    c.skv = 133;
    c.d = 32;
    c.sparse = 3;
    c.mask = MaskShape::kCompressed;
    CheckBackward(c);
  }
}

// One and two slot sets (Note [Backward slots]) for every dtype, read in place (BNSD) or
// through strides (BSND), against the reference gradient: causal with Sq != Skv and tails
// (S not a multiple of the tile), an explicit mask with a fully masked row, odd D and Dv != D,
// a band whose rows miss whole blocks, GQA group sizes 1, 2 and 8, more items than groups so
// the AIC runs ahead across items.
TEST(FlashAttentionBackwardTest, SlotBuffersOneAndTwo) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int slots : {1, 2}) {
      Case causal;  // GQA 1; 3 x 4 x 3 q tiles and kv blocks: more items than the 24 groups
      causal.dtype = dt;
      causal.slot_buffers = slots;
      causal.b = 3;
      causal.nq = 4;
      causal.nkv = 4;
      causal.sq = 260;
      causal.skv = 300;
      causal.d = 16;
      causal.sparse = 3;
      causal.mask = MaskShape::kCompressed;
      CheckBackward(causal);
      Case masked = causal;  // GQA 2, D odd, Dv != D, row 0 fully masked
      masked.b = 2;
      masked.nq = 4;
      masked.nkv = 2;
      masked.sq = 90;
      masked.skv = 170;
      masked.d = 19;
      masked.dv = 24;
      masked.sparse = 0;
      masked.mask = MaskShape::kB1SS;
      masked.mask_all_row = true;
      CheckBackward(masked);
      Case band = causal;  // GQA 8, Sq > Skv, strided BSND operands
      band.layout = "BSND";
      band.b = 1;
      band.nq = 8;
      band.nkv = 1;
      band.sq = 300;
      band.skv = 170;
      band.d = 16;
      band.sparse = 4;
      band.pre = 40;
      band.next = 5;
      CheckBackward(band);
    }
  }
}

// Runs longer than a product chunk (Note [Backward chunks]: at most 512 q rows per product of
// the dK/dV pass, 16-bit inputs) split into several chunks, the last one short: 5 q tiles of a
// kv block, runs cut by a q head change (GQA 2) and by a band window (runs starting
// mid-sequence), with one and two slot sets.
TEST(FlashAttentionBackwardTest, ProductChunksSplitLongRuns) {
  for (DType dt : {DType::kF16, DType::kBF16}) {
    for (int slots : {1, 2}) {
      Case c;
      c.dtype = dt;
      c.slot_buffers = slots;
      c.nq = 2;
      c.nkv = 1;
      c.sq = 600;
      c.skv = 150;
      c.d = 16;
      CheckBackward(c);
      Case band = c;
      band.sparse = 4;
      band.mask = MaskShape::kCompressed;
      band.pre = 330;
      band.next = 20;
      CheckBackward(band);
    }
  }
}

// The backward of every dtype with one and two slot sets is clean under every sanitizer tool
// (races between the AIC's slots and the AIVs' reads, flags, bounds, uninitialized reads).
TEST(FlashAttentionBackwardTest, CleanUnderTheSanitizer) {
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int slots : {1, 2}) {
      Case c;
      c.dtype = dt;
      c.slot_buffers = slots;
      c.nq = 2;
      c.nkv = 1;
      c.sq = dt == DType::kF16 ? 600 : 40;  // fp16: dK/dV chunks split (Note [Backward chunks])
      c.skv = 150;                           // two kv blocks, one a tail
      c.d = 24;
      c.mask = MaskShape::kSS;
      c.mask_all_row = true;
      check::Sanitizer sanitizer;
      CheckBackward(c);  // also the results of the Matmul's cube path, which the sanitizer sees
      for (const check::Report& rep : sanitizer.reports()) ADD_FAILURE() << rep.ToString();
      EXPECT_TRUE(sanitizer.reports().empty());
    }
  }
}

TEST(FlashAttentionBackwardTest, SlotBuffersOutOfRangeAreRefused) {
  const Problem pr = Build(Case{});
  Tensors t = Upload(pr);
  DeviceTensor dy(DType::kF32, 1), dq(DType::kF32, 1), dk(DType::kF32, 1), dv(DType::kF32, 1);
  FlashAttentionGradArgs a;
  a.query = t.q->Ref({1, 1, 1, 1});
  a.key = t.k->Ref({1, 1, 1, 1});
  a.value = t.v->Ref({1, 1, 1, 1});
  a.dy = dy.Ref({1, 1, 1, 1});
  a.softmax_max = t.smax->Ref({1, 1, 1, 8});
  a.softmax_sum = t.ssum->Ref({1, 1, 1, 8});
  a.attention_in = t.out->Ref({1, 1, 1, 1});
  a.attrs = AttrsOf(pr.c);
  a.dq = dq.Ref({1, 1, 1, 1});
  a.dk = dk.Ref({1, 1, 1, 1});
  a.dv = dv.Ref({1, 1, 1, 1});
  FlashAttentionPlan plan = Plan(a, arch::DefaultChip());
  DeviceTensor ws(DType::kU8, static_cast<int64_t>(plan.workspace_bytes));
  for (int slots : {0, 4}) {
    plan.slot_buffers = slots;
    const Status s = Launch(a, plan, ws.data(), nullptr);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("slot_buffers is " + std::to_string(slots)), std::string::npos)
        << s.ToString();
  }
  // Slots past what Plan reserved (as if slot_buffers were raised after it) are refused.
  plan = Plan(a, arch::DefaultChip());
  plan.slots_bytes /= 2;
  const Status s = Launch(a, plan, ws.data(), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("raise slot_buffers before Plan"), std::string::npos) << s.ToString();
  testing::Sync();
}

// The kernel's gradient against central differences of the double forward reference.
TEST(FlashAttentionBackwardTest, MatchesFiniteDifferences) {
  Case c;
  c.layout = "BNSD";
  c.nq = 2;
  c.nkv = 1;
  c.sq = 5;
  c.skv = 7;
  c.d = 3;
  c.sparse = 0;
  c.mask = MaskShape::kSS;
  const Problem pr = Build(c);
  Tensors t = Upload(pr);
  const BackwardRun r = RunBackward(pr, t);
  const auto loss = [&](const std::vector<double>& q, const std::vector<double>& k,
                        const std::vector<double>& v) {
    const ref::AttentionForward f = ref::AttentionForwardRef(pr.p, q, k, v);
    double l = 0;
    for (size_t i = 0; i < f.out.size(); ++i) l += f.out[i] * r.dout[i];
    return l;
  };
  const double h = 1e-5;
  for (int which = 0; which < 3; ++which) {
    std::vector<double> q = t.qv, k = t.kv, v = t.vv;
    std::vector<double>& x = which == 0 ? q : which == 1 ? k : v;
    const std::vector<double>& got = which == 0 ? r.dq : which == 1 ? r.dk : r.dv;
    for (size_t i = 0; i < x.size(); ++i) {
      const double x0 = x[i];
      x[i] = x0 + h;
      const double up = loss(q, k, v);
      x[i] = x0 - h;
      const double down = loss(q, k, v);
      x[i] = x0;
      EXPECT_NEAR(got[i], (up - down) / (2 * h), 1e-4) << "operand " << which << " element " << i;
    }
  }
}

// D at the documented limit, and a value head dim below the query's.
TEST(FlashAttentionTest, LargeAndUnequalHeadDims) {
  for (auto [d, dv, l] : {std::tuple<int64_t, int64_t, const char*>{768, 768, "BNSD"},
                          {24, 40, "BSH"},
                          {40, 8, "SBH"}}) {
    Case c;
    c.layout = l;
    c.nq = 2;
    c.nkv = 1;
    c.sq = 20;
    c.skv = 150;
    c.d = d;
    c.dv = dv;
    c.sparse = 3;
    c.mask = MaskShape::kCompressed;
    CheckForward(c);
    CheckBackward(c);
  }
}

TEST(FlashAttentionTest, EmptyKeysGiveFullyMaskedRows) {
  Case c;
  c.sq = 5;
  c.skv = 0;
  c.d = 8;
  CheckForward(c);
}

// The unfused composition of the library's operators computes the same forward.
TEST(FlashAttentionTest, UnfusedCompositionAgrees) {
  for (bool causal : {false, true}) {
    Case c;
    c.b = 2;
    c.nq = c.nkv = 3;
    c.sq = 70;
    c.skv = 70;
    c.d = 32;
    if (causal) {
      c.sparse = 3;
      c.mask = MaskShape::kCompressed;
    }
    const Problem pr = Build(c);
    SCOPED_TRACE(Name(pr.c));
    Tensors t = Upload(pr);
    DeviceTensor bias(DType::kF32, c.sq * c.skv), out(DType::kF32, c.b * c.nq * c.sq * c.d);
    std::vector<double> bv(c.sq * c.skv, 0.0);
    for (int64_t i = 0; i < c.sq; ++i)
      for (int64_t j = i + 1; j < c.skv; ++j) bv[i * c.skv + j] = -INFINITY;
    bias.Fill(bv);
    const TensorRef bias_ref = bias.Ref({c.sq, c.skv});
    const auto shape = LayoutShape("BNSD", c.b, c.nq, c.sq, c.d);
    const Status s =
        UnfusedAttentionForward(t.q->Ref(shape), t.k->Ref(shape), t.v->Ref(shape),
                                causal ? &bias_ref : nullptr, pr.p.scale, out.Ref(shape));
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectNear(out.Read(), ref::AttentionForwardRef(pr.p, t.qv, t.kv, t.vv).out, {2e-5, 2e-6},
               "unfused out");
  }
}

// ---- aclnn ----

struct Buf {
  Buf(aclDataType dt, size_t elems) : n(elems), dt(dt) {
    EXPECT_EQ(aclrtMalloc(&p, std::max<size_t>(elems, 1) * 4, ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    std::memset(p, 0, std::max<size_t>(elems, 1) * 4);
  }
  ~Buf() { aclrtFree(p); }
  float* f() const { return static_cast<float*>(p); }
  // A contiguous view; the storage is the whole buffer (n * 4 bytes) in elements of dt.
  aclTensor* T(std::vector<int64_t> shape) const {
    const int64_t item = dt == ACL_BOOL || dt == ACL_UINT8 ? 1 : 4;
    std::vector<int64_t> storage = {static_cast<int64_t>(n) * 4 / item};
    return aclCreateTensor(shape.data(), shape.size(), dt, nullptr, 0, ACL_FORMAT_ND,
                           storage.data(), 1, p);
  }
  void* p = nullptr;
  size_t n;
  aclDataType dt;
};

std::string Msg() { return aclGetRecentErrMsg(); }

TEST(FlashAttentionAclnnTest, ForwardAndGradMatchTheReference) {
  // BSH, GQA 4:2, causal (sparse mode 3 with the compressed mask), fp32.
  const int64_t B = 2, N = 4, NK = 2, S = 50, SK = 70, D = 16;
  Buf q(ACL_FLOAT, B * S * N * D), k(ACL_FLOAT, B * SK * NK * D), v(ACL_FLOAT, B * SK * NK * D);
  Buf out(ACL_FLOAT, B * S * N * D), mx(ACL_FLOAT, B * N * S * 8), sm(ACL_FLOAT, B * N * S * 8);
  Buf dy(ACL_FLOAT, B * S * N * D), dq(ACL_FLOAT, B * S * N * D), dk(ACL_FLOAT, B * SK * NK * D),
      dv(ACL_FLOAT, B * SK * NK * D), mask(ACL_BOOL, 2048 * 2048 / 4);
  const auto qi = Inputs(q.n, -1, 1, 1), ki = Inputs(k.n, -1, 1, 2), vi = Inputs(v.n, -1, 1, 3),
             di = Inputs(dy.n, -1, 1, 4);
  for (size_t i = 0; i < q.n; ++i) q.f()[i] = static_cast<float>(qi[i]);
  for (size_t i = 0; i < k.n; ++i) k.f()[i] = static_cast<float>(ki[i]);
  for (size_t i = 0; i < v.n; ++i) v.f()[i] = static_cast<float>(vi[i]);
  for (size_t i = 0; i < dy.n; ++i) dy.f()[i] = static_cast<float>(di[i]);
  uint8_t* mb = static_cast<uint8_t*>(mask.p);
  for (int64_t i = 0; i < 2048; ++i)
    for (int64_t j = 0; j < 2048; ++j) mb[i * 2048 + j] = j > i;
  aclTensor *tq = q.T({B, S, N * D}), *tk = k.T({B, SK, NK * D}), *tv = v.T({B, SK, NK * D});
  aclTensor *tout = out.T({B, S, N * D}), *tmx = mx.T({B, N, S, 8}), *tsm = sm.T({B, N, S, 8});
  aclTensor* tmask = mask.T({2048, 2048});
  char layout[] = "BSH";
  const double scale = 0.25;
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnFlashAttentionScoreGetWorkspaceSize(tq, tk, tv, nullptr, nullptr, nullptr, tmask,
                                                     nullptr, scale, 1.0, 2147483647, 0, N, layout,
                                                     0, 3, tmx, tsm, nullptr, tout, &ws, &e),
            ACLNN_SUCCESS)
      << Msg();
  void* wsp = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnFlashAttentionScore(wsp, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  if (wsp) aclrtFree(wsp);
  aclTensor *tdy = dy.T({B, S, N * D}), *tdq = dq.T({B, S, N * D}), *tdk = dk.T({B, SK, NK * D}),
            *tdv = dv.T({B, SK, NK * D});
  ASSERT_EQ(aclnnFlashAttentionScoreGradGetWorkspaceSize(
                tq, tk, tv, tdy, nullptr, nullptr, nullptr, tmask, tmx, tsm, nullptr, tout, nullptr,
                scale, 1.0, 2147483647, 0, N, layout, 0, 3, tdq, tdk, tdv, nullptr, &ws, &e),
            ACLNN_SUCCESS)
      << Msg();
  wsp = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnFlashAttentionScoreGrad(wsp, ws, e, nullptr), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  if (wsp) aclrtFree(wsp);
  for (aclTensor* x : {tq, tk, tv, tout, tmx, tsm, tmask, tdy, tdq, tdk, tdv}) aclDestroyTensor(x);

  ref::AttentionProblem p;
  p.b = B;
  p.nq = N;
  p.nkv = NK;
  p.sq = S;
  p.skv = SK;
  p.d = p.dv = D;
  p.scale = scale;
  p.has_mask = true;
  p.sparse_mode = 3;
  const auto bnsd = [&](const Buf& x, int64_t n, int64_t s) {
    std::vector<double> r(x.n);
    for (size_t i = 0; i < x.n; ++i) r[i] = x.f()[i];
    return FromLayout("BSH", r, B, n, s, D);
  };
  const auto qv = bnsd(q, N, S), kv = bnsd(k, NK, SK), vv = bnsd(v, NK, SK), dov = bnsd(dy, N, S);
  const ref::AttentionForward f = ref::AttentionForwardRef(p, qv, kv, vv);
  ExpectNear(bnsd(out, N, S), f.out, {2e-5, 2e-6}, "out");
  const ref::AttentionGrads g = ref::AttentionBackwardRef(p, qv, kv, vv, dov);
  ExpectNear(bnsd(dq, N, S), g.dq, {1e-4, 2e-5}, "dq");
  ExpectNear(bnsd(dk, NK, SK), g.dk, {1e-4, 2e-5}, "dk");
  ExpectNear(bnsd(dv, NK, SK), g.dv, {1e-4, 2e-5}, "dv");
}

// Bad input: the documented code and a message naming the argument.
TEST(FlashAttentionAclnnTest, BadInputNamesTheArgument) {
  const int64_t B = 1, N = 4, S = 8, D = 16;
  const size_t elems = 2 * 800;  // room for the D = 800 case
  Buf q(ACL_FLOAT, elems), k(ACL_FLOAT, elems), v(ACL_FLOAT, elems), out(ACL_FLOAT, elems);
  Buf mx(ACL_FLOAT, B * N * S * 8), sm(ACL_FLOAT, B * N * S * 8);
  Buf mask(ACL_BOOL, S * S), fmask(ACL_FLOAT, S * S);
  struct Call {
    std::vector<int64_t> qs, ks;
    aclTensor* mask = nullptr;
    int64_t heads = N;
    const char* layout = "BSH";
    double scale = 0.25, keep = 1.0;
    int64_t sparse = 0, pre = 2147483647, next = 2147483647;
    bool null_max = false;
  };
  const auto run = [&](const Call& c) {
    aclTensor* tq = q.T(c.qs.empty() ? std::vector<int64_t>{B, S, N * D} : c.qs);
    aclTensor* tk = k.T(c.ks.empty() ? std::vector<int64_t>{B, S, N * D} : c.ks);
    aclTensor* tv = v.T(c.ks.empty() ? std::vector<int64_t>{B, S, N * D} : c.ks);
    aclTensor* to = out.T(c.qs.empty() ? std::vector<int64_t>{B, S, N * D} : c.qs);
    aclTensor* tmx = mx.T({B, N, S, 8});
    aclTensor* tsm = sm.T({B, N, S, 8});
    std::string layout = c.layout;
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    const aclnnStatus st = aclnnFlashAttentionScoreGetWorkspaceSize(
        tq, tk, tv, nullptr, nullptr, nullptr, c.mask, nullptr, c.scale, c.keep, c.pre, c.next,
        c.heads, layout.data(), 0, c.sparse, c.null_max ? nullptr : tmx, tsm, nullptr, to, &ws, &e);
    if (st == ACLNN_SUCCESS) aclnnFlashAttentionScore(nullptr, 0, e, nullptr);  // consume it
    for (aclTensor* x : {tq, tk, tv, to, tmx, tsm}) aclDestroyTensor(x);
    return st;
  };
  const auto expect = [&](const Call& c, aclnnStatus code, const std::string& needle) {
    EXPECT_EQ(run(c), code) << needle;
    EXPECT_NE(Msg().find(needle), std::string::npos) << Msg();
  };
  Call ok;
  EXPECT_EQ(run(ok), ACLNN_SUCCESS) << Msg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  Call c = ok;
  c.layout = "BNSD";  // 3-D tensors
  expect(c, ACLNN_ERR_PARAM_INVALID, "inputLayout BNSD needs 4-D tensors; query has 3 dims");
  c = ok;
  c.layout = "TND";
  expect(c, ACLNN_ERR_PARAM_INVALID, "inputLayout \"TND\" is not one of");
  c = ok;
  c.heads = 3;
  expect(c, ACLNN_ERR_PARAM_INVALID, "headNum 3 does not divide query's H = 64");
  c = ok;
  c.ks = {B, S, 3 * D};  // 3 K/V heads for 4 query heads
  expect(c, ACLNN_ERR_PARAM_INVALID, "key/value have 3 heads, which does not divide");
  c = ok;
  c.keep = 0.9;
  expect(c, ACLNN_ERR_PARAM_INVALID, "keepProb 0.9 asks for dropout");
  c = ok;
  c.keep = 1.5;
  expect(c, ACLNN_ERR_PARAM_INVALID, "keepProb 1.5 is out of range (0, 1]");
  c = ok;
  c.scale = std::numeric_limits<double>::quiet_NaN();
  expect(c, ACLNN_ERR_PARAM_INVALID, "scaleValue nan is not a finite number");
  c = ok;
  c.sparse = 5;
  expect(c, ACLNN_ERR_PARAM_INVALID, "sparseMode 5 is not supported");
  c = ok;
  c.qs = {1, 2, 800};
  c.ks = {1, 2, 800};
  c.heads = 1;
  expect(c, ACLNN_ERR_PARAM_INVALID, "D = 800 (query/key 800, value 800) is above the documented");
  c = ok;
  aclTensor* m_bad_shape = mask.T({S, S - 1});
  c.mask = m_bad_shape;
  expect(c, ACLNN_ERR_PARAM_INVALID, "attenMaskOptional has shape [8, 7]; allowed:");
  aclTensor* m_bad_dtype = fmask.T({S, S});
  c.mask = m_bad_dtype;
  expect(c, ACLNN_ERR_PARAM_INVALID, "attenMaskOptional has dtype FLOAT; allowed: BOOL, UINT8");
  aclTensor* m_ok = mask.T({S, S});
  c.mask = m_ok;
  c.sparse = 3;
  expect(c, ACLNN_ERR_PARAM_INVALID, "takes the compressed 2048 x 2048 attenMaskOptional");
  c.sparse = 0;
  c.pre = -5;
  c.next = 2;
  expect(c, ACLNN_ERR_PARAM_INVALID, "preTokens -5 and nextTokens 2 leave no column");
  for (aclTensor* x : {m_bad_shape, m_bad_dtype, m_ok}) aclDestroyTensor(x);
  c = ok;
  c.null_max = true;
  expect(c, ACLNN_ERR_PARAM_NULLPTR, "softmaxMaxOut is null");
}

}  // namespace
}  // namespace aicore::ops
