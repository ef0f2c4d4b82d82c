// Whether views share memory (aliasing.h).
//
// Note [Aliasing]
// - A view's bytes are { first + sum_k i_k * c_k + j : 0 <= i_k < n_k, 0 <= j < e } with c_k the
//   byte stride of dim k and e the element size. Two views share a byte exactly when some index
//   pair puts their elements less than an element apart: D + sum_k i_k a_k - sum_k j_k b_k lies in
//   (-e_a, e_b), D the distance of their first bytes. A view repeats a location when a nonzero
//   difference vector d (|d_k| < n_k) has |sum_k d_k c_k| < e.
// - Both are bounded integer searches. Dims go largest stride first, and at each the candidate
//   values are only those the remaining dims' reach can still bring into the target, so packed
//   and sliced layouts (strides each above the reach of the smaller ones) take one candidate per
//   dim and interleaved ones (dq, dk, dv as slices of one [B, S, 3H] buffer) a few. A search that
//   exceeds kSearchBudget candidates answers "may overlap": a refusal, never a silent alias.
// - Why outputs only: inputs are only read, so they may share memory freely (q, k and v as one
//   tensor). An output over an input is wrong whenever a block can write an element another block
//   (or a later pass) still reads; it is safe only as the same view, for operators that read each
//   element before writing it and never read it again (elementwise, softmax, the norms' x).
#include "aicore/ops/framework/aliasing.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace aicore::ops {
namespace {

using Wide = __int128;

// Candidates a search may try before it gives up (answering "may overlap").
constexpr int64_t kSearchBudget = 1 << 20;

// A variable of the search: x in [lo, hi] contributing c * x bytes.
struct Term {
  Wide c = 0;
  Wide lo = 0, hi = 0;
};

Wide FloorDiv(Wide a, Wide b) {
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Wide CeilDiv(Wide a, Wide b) { return -FloorDiv(-a, b); }

enum class Found { kNo, kYes, kUndecided };

// Searches for x with target_lo <= sum_k c_k x_k <= target_hi, x_k in [lo_k, hi_k]. With
// `nonzero`, x must not be all zero and its first nonzero entry (largest |c| first) must be
// positive: differences of two indices, up to sign.
class Search {
 public:
  Search(std::vector<Term> terms, Wide target_lo, Wide target_hi, bool nonzero)
      : terms_(std::move(terms)), lo_(target_lo), hi_(target_hi), nonzero_(nonzero) {
    std::sort(terms_.begin(), terms_.end(), [](const Term& x, const Term& y) { return x.c > y.c; });
    reach_lo_.assign(terms_.size() + 1, 0);
    reach_hi_.assign(terms_.size() + 1, 0);
    for (size_t k = terms_.size(); k-- > 0;) {
      reach_lo_[k] = reach_lo_[k + 1] + terms_[k].c * terms_[k].lo;
      reach_hi_[k] = reach_hi_[k + 1] + terms_[k].c * terms_[k].hi;
    }
  }

  Found Run() { return Visit(0, 0, true); }

 private:
  // Terms have c > 0 (Normalize).
  Found Visit(size_t k, Wide sum, bool all_zero) {
    if (k == terms_.size()) {
      return sum >= lo_ && sum <= hi_ && !(nonzero_ && all_zero) ? Found::kYes : Found::kNo;
    }
    const Term& t = terms_[k];
    // c * x must bring sum into the target with what the later dims can still add.
    Wide x_lo = CeilDiv(lo_ - sum - reach_hi_[k + 1], t.c);
    Wide x_hi = FloorDiv(hi_ - sum - reach_lo_[k + 1], t.c);
    x_lo = std::max<Wide>(x_lo, nonzero_ && all_zero ? std::max<Wide>(t.lo, 0) : t.lo);
    x_hi = std::min<Wide>(x_hi, t.hi);
    if (x_lo > x_hi) return Found::kNo;
    if (k + 1 == terms_.size()) {  // every x in range hits; x = 0 alone may be excluded
      return !(nonzero_ && all_zero) || x_hi >= 1 ? Found::kYes : Found::kNo;
    }
    for (Wide x = x_lo; x <= x_hi; ++x) {
      if (++visited_ > kSearchBudget) return Found::kUndecided;
      const Found f = Visit(k + 1, sum + t.c * x, all_zero && x == 0);
      if (f != Found::kNo) return f;
    }
    return Found::kNo;
  }

  std::vector<Term> terms_;
  Wide lo_, hi_;
  bool nonzero_;
  std::vector<Wide> reach_lo_, reach_hi_;  // what dims k.. can add, at least and at most
  int64_t visited_ = 0;
};

// Makes every c positive (c x with x in [lo, hi] is -c y with y in [-hi, -lo]) and merges terms
// of one c (x + y ranges over [lo_x + lo_y, hi_x + hi_y]): valid when any x hits, not for
// Search's `nonzero`.
std::vector<Term> Normalize(std::vector<Term> terms) {
  std::vector<Term> out;
  for (Term t : terms) {
    if (t.c < 0) t = Term{-t.c, -t.hi, -t.lo};
    auto same = std::find_if(out.begin(), out.end(), [&t](const Term& u) { return u.c == t.c; });
    if (same == out.end()) {
      out.push_back(t);
    } else {
      same->lo += t.lo;
      same->hi += t.hi;
    }
  }
  return out;
}

Wide Address(const TensorRef& t) {
  return static_cast<Wide>(reinterpret_cast<uintptr_t>(t.First()));
}

// The dims of `t` that step: size above 1 and a nonzero stride, as byte strides times `sign`.
std::vector<Term> Steps(const TensorRef& t, int sign, bool differences) {
  std::vector<Term> terms;
  const std::vector<int64_t> s = t.Strides();
  const Wide e = static_cast<Wide>(DTypeSize(t.dtype));
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] <= 1 || s[i] == 0) continue;
    Term term;
    term.c = sign * e * s[i];
    term.lo = differences ? -(t.shape[i] - 1) : 0;
    term.hi = t.shape[i] - 1;
    terms.push_back(term);
  }
  return terms;
}

bool SameView(const TensorRef& a, const TensorRef& b) {
  if (a.First() != b.First() || DTypeSize(a.dtype) != DTypeSize(b.dtype) || a.shape != b.shape) {
    return false;
  }
  const std::vector<int64_t> sa = a.Strides(), sb = b.Strides();
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (a.shape[i] > 1 && sa[i] != sb[i]) return false;
  }
  return true;
}

int64_t ZeroStrideDim(const TensorRef& t) {
  const std::vector<int64_t> s = t.Strides();
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] > 1 && s[i] == 0) return static_cast<int64_t>(i);
  }
  return -1;
}

std::string Layout(const TensorRef& t) {
  return StrCat("shape ", ShapeString(t.shape), ", strides ", ShapeString(t.Strides()));
}

Found InternalOverlap(const TensorRef& t) {
  if (t.NumElements() <= 1) return Found::kNo;
  if (ZeroStrideDim(t) >= 0) return Found::kYes;
  std::vector<Term> terms = Steps(t, 1, true);
  // Two dims of one stride: index (.., i + 1, .., j, ..) and (.., i, .., j + 1, ..) coincide.
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (terms[i].c == terms[j].c) return Found::kYes;
    }
  }
  const Wide e = static_cast<Wide>(DTypeSize(t.dtype));
  return Search(std::move(terms), -e + 1, e - 1, true).Run();
}

}  // namespace

Overlap OverlapOf(const TensorRef& a, const TensorRef& b) {
  if (a.NumElements() == 0 || b.NumElements() == 0) return Overlap::kNone;
  if (SameView(a, b)) return Overlap::kSame;
  std::vector<Term> terms = Steps(a, 1, false);
  for (const Term& t : Steps(b, -1, false)) terms.push_back(t);
  // a's element at byte x and b's at byte y share a byte when -e_a < x - y < e_b.
  const Wide d = Address(a) - Address(b);
  const Wide ea = static_cast<Wide>(DTypeSize(a.dtype));
  const Wide eb = static_cast<Wide>(DTypeSize(b.dtype));
  const Found f = Search(Normalize(std::move(terms)), -ea + 1 - d, eb - 1 - d, false).Run();
  return f == Found::kNo ? Overlap::kNone : Overlap::kPartial;
}

bool HasInternalOverlap(const TensorRef& t) { return InternalOverlap(t) != Found::kNo; }

OpCheck CheckOutputs(const char* op, const std::vector<Operand>& outputs,
                     const std::vector<Operand>& inputs) {
  for (const Operand& o : outputs) {
    if (o.ref == nullptr || o.ref->NumElements() == 0) continue;
    const TensorRef& t = *o.ref;
    if (const int64_t dim = ZeroStrideDim(t); dim >= 0) {
      return Invalid(StrCat(op, ": ", o.name, " has stride 0 in dim ", dim, " of size ",
                            t.shape[dim], " (", Layout(t),
                            "): its elements would share one memory location; an output needs "
                            "one location per element"));
    }
    if (const Found f = InternalOverlap(t); f != Found::kNo) {
      return Invalid(StrCat(op, ": ", o.name, " (", Layout(t), ") ",
                            f == Found::kYes
                                ? "puts several elements at one memory location"
                                : "has strides too irregular to show its elements apart",
                            "; an output needs one location per element"));
    }
    const auto describe = [&t, &o](const Operand& other) {
      const Wide apart = Address(*other.ref) - Address(t);
      return StrCat(" (", o.name, ": ", Layout(t), "; ", other.name, ": ", Layout(*other.ref),
                    ", its first element ", static_cast<int64_t>(apart), " bytes from ", o.name,
                    "'s)");
    };
    for (const Operand& in : inputs) {
      if (in.ref == nullptr) continue;
      const Overlap r = OverlapOf(t, *in.ref);
      if (r == Overlap::kNone || (r == Overlap::kSame && o.in_place && in.in_place)) continue;
      const bool may = o.in_place && in.in_place;
      return Invalid(StrCat(op, ": ", o.name, " overlaps ", in.name, " in memory", describe(in),
                            may ? "; an output may share memory with an input only as the same "
                                  "view as the input (in place)"
                                : "; an output must not share memory with an input"));
    }
    for (const Operand& other : outputs) {
      if (&other == &o) break;
      if (other.ref == nullptr || OverlapOf(t, *other.ref) == Overlap::kNone) continue;
      return Invalid(StrCat(op, ": ", o.name, " overlaps ", other.name, " in memory",
                            describe(other), "; each output needs its own memory"));
    }
  }
  return {};
}

}  // namespace aicore::ops
