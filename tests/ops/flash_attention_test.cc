// Flash attention through the C++ API and aclnn against the double references of
// tests/reference/attention_ref.h: every layout, GQA/MQA, every sparse mode and mask shape,
// fully masked rows, shapes of 1, primes and tails, Sq != Skv, every dtype; the backward against
// the reference gradient and finite differences; the checks' codes and messages.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "aicore/arch/chip.h"
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
  double scale = -1;  // -1: 1 / sqrt(d)
  bool mask_all_row = false;  // mask out every column of row 0 (a fully masked row)
};

std::string Name(const Case& c) {
  return StrCat(c.layout, " ", OpDTypeName(c.dtype), " B=", c.b, " Nq=", c.nq, " Nkv=", c.nkv,
                " Sq=", c.sq, " Skv=", c.skv, " D=", c.d, " Dv=", c.dv, " sparse=", c.sparse,
                " mask=", static_cast<int>(c.mask), " pre=", c.pre, " next=", c.next);
}

// The shape of a (b, n, s, d) tensor in `layout` and the offset of element (b, n, s, d).
std::vector<int64_t> LayoutShape(const std::string& l, int64_t b, int64_t n, int64_t s,
                                 int64_t d) {
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
  t.qv = FromLayout(c.layout, t.q->Fill(ToLayout(c.layout, Inputs(nq, -2, 2, 1), c.b, c.nq, c.sq, c.d)),
                    c.b, c.nq, c.sq, c.d);
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
  const Status s = FlashAttentionForward(
      t.q->Ref(LayoutShape(c.layout, c.b, c.nq, c.sq, c.d)),
      t.k->Ref(LayoutShape(c.layout, c.b, c.nkv, c.skv, c.d)),
      t.v->Ref(LayoutShape(c.layout, c.b, c.nkv, c.skv, c.dv)), t.mask ? &mask_ref : nullptr,
      AttrsOf(c), t.smax->Ref({c.b, c.nq, c.sq, 8}), t.ssum->Ref({c.b, c.nq, c.sq, 8}),
      t.out->Ref(LayoutShape(c.layout, c.b, c.nq, c.sq, c.dv)));
  ASSERT_TRUE(s.ok()) << s.ToString();
  testing::Sync();
  ref::AttentionForward want = ref::AttentionForwardRef(pr.p, t.qv, t.kv, t.vv);
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

}  // namespace
}  // namespace aicore::ops
