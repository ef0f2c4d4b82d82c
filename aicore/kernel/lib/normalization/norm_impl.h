// The row loop shared by LayerNorm (both forms) and RmsNorm: two-pass statistics in float (the
// mean first, then the mean of squared deviations, so a large mean does not cancel the variance),
// built from the row helpers of lib/detail/row_ops.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/normalization/norm_utils.h"

namespace AscendC::lib {

enum class NormKind { kLayerNorm, kRmsNorm };

// One normalization call: m rows of k (padded) values, `valid` real; the statistics outputs take
// one value per row (null = not wanted).
template <typename T, typename G, typename S>
struct NormArgs {
  NormKind kind = NormKind::kLayerNorm;
  const char* api = "";
  const LocalTensor<T>* dst = nullptr;
  const LocalTensor<T>* src = nullptr;
  const LocalTensor<G>* gamma = nullptr;
  const LocalTensor<G>* beta = nullptr;
  const LocalTensor<S>* mean_out = nullptr;
  const LocalTensor<S>* var_out = nullptr;   // variance before epsilon
  const LocalTensor<S>* rstd_out = nullptr;  // 1 / sqrt(variance + epsilon)
  float epsilon = 0.0f;
  uint32_t m = 0, k = 0, valid = 0;
  uint32_t tiling_rows = 0;  // rows per chunk from a matching tiling (0: recompute)
};

template <typename T, typename G, typename S>
void NormRun(const NormArgs<T, G, S>& a, const LocalTensor<uint8_t>& tmp,
             const detail::SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  if (a.m == 0) return;
  if (a.k == 0 || a.valid == 0 || a.valid > a.k || (a.k * sizeof(T)) % kBlockBytes != 0)
      [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, a.api, loc, "row length ", a.k,
                 " (real ", a.valid, ") must be > 0, a multiple of 32 bytes and >= the real one");
  }
  auto need = [&](const char* role, uint32_t have, uint64_t want) {
    if (have < want) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, a.api, loc, role, " holds ", have,
                   " elements but the shape needs ", want);
    }
  };
  need("src", a.src->GetSize(), uint64_t{a.m} * a.k);
  need("dst", a.dst->GetSize(), uint64_t{a.m} * a.k);
  if (a.gamma) need("gamma", a.gamma->GetSize(), a.k);
  if (a.beta) need("beta", a.beta->GetSize(), a.k);
  for (const LocalTensor<S>* t : {a.mean_out, a.var_out, a.rstd_out}) {
    if (t) need("a mean/variance/rstd tensor", t->GetSize(), a.m);
  }
  // Rows per chunk: the tiling's when they fit the buffer, else as many as do (a tiling computed
  // by other rules, or for another shape); fewer than the minimum is an error.
  constexpr uint32_t src_size = sizeof(T);
  const bool ln = a.kind == NormKind::kLayerNorm;
  uint32_t rows = a.tiling_rows;
  const bool tiling_fits = rows != 0 && rows <= a.m &&
                           (rows == a.m || rows % NormRowStep(ln) == 0) &&
                           NormLayout(rows, a.k, src_size, ln).total <= tmp.GetSize();
  if (!tiling_fits) rows = NormRowsFitting(a.m, a.k, src_size, ln, tmp.GetSize());
  if (rows == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, a.api, loc, "sharedTmpBuffer holds ",
                 tmp.GetSize(), " bytes but ", a.m, " rows of ", a.k, " need at least ",
                 NormLayout(NormMinRows(a.m, ln), a.k, src_size, ln).total,
                 " (see the Get*MaxMinTmpSize helpers)");
  }
  const NormWorkspace w = NormLayout(rows, a.k, src_size, ln);
  auto f32 = [&](uint32_t off) { return tmp[off].template ReinterpretCast<float>(); };
  const LocalTensor<float> d = f32(w.d);
  const LocalTensor<float> s0 = f32(w.stat[0]), s1 = f32(w.stat[1]), vec = f32(w.vec);
  const RowScratch s{f32(w.reduce), f32(w.pairs), f32(w.blocks)};
  // Float gamma/beta are read in place; half ones are widened once.
  LocalTensor<float> g, b;
  if constexpr (std::is_same_v<G, float>) {
    if (a.gamma) g = *a.gamma;
    if (a.beta) b = *a.beta;
  } else {
    g = f32(w.gamma);
    b = f32(w.beta);
    if (a.gamma) ToFloat(g, *a.gamma, a.k);
    if (a.beta) ToFloat(b, *a.beta, a.k);
  }
  const float inv_n = 1.0f / static_cast<float>(a.valid);
  for (uint32_t r0 = 0; r0 < a.m; r0 += rows) {
    const uint32_t r = std::min(rows, a.m - r0);
    const int32_t n = static_cast<int32_t>(r * a.k);
    const int32_t nb = static_cast<int32_t>(r * kFloatsPerBlock);
    // x: the rows in float (the source itself when T is float; never written then).
    LocalTensor<float> x;
    if constexpr (std::is_same_v<T, float>) {
      x = (*a.src)[r0 * a.k];
    } else {
      x = f32(w.x);
      ToFloat(x, (*a.src)[r0 * a.k], r * a.k);
    }
    LocalTensor<float> sq = d;
    if (ln) {
      RowStat(RowKind::kSum, s0, x, r, a.k, a.valid, s);
      Muls(s0, s0, inv_n, nb);  // mean
      RowBroadcast(SubOp{}, d, x, s0, r, a.k);
      // The squares go where x was (a half source's copy) or to dst (float: dst may alias the
      // source, which is no longer read).
      if constexpr (std::is_same_v<T, float>) {
        sq = (*a.dst)[r0 * a.k];
      } else {
        sq = x;
      }
      Mul(sq, d, d, n);
      if (a.mean_out) BlockToVector((*a.mean_out)[r0], s0, r, vec);
    } else {
      Mul(d, x, x, n);
    }
    RowStat(RowKind::kSum, s1, sq, r, a.k, a.valid, s);
    Muls(s1, s1, inv_n, nb);  // variance (LayerNorm) or mean square (RmsNorm)
    if (a.var_out) BlockToVector((*a.var_out)[r0], s1, r, vec);
    Adds(s1, s1, a.epsilon, nb);
    Rsqrt(s1, s1, nb);
    if (a.rstd_out) BlockToVector((*a.rstd_out)[r0], s1, r, vec);
    RowBroadcast(MulOp{}, d, ln ? d : x, s1, r, a.k);
    if (a.gamma) RowVector(MulOp{}, d, d, g, r, a.k);
    if (a.beta) RowVector(AddOp{}, d, d, b, r, a.k);
    FromFloat((*a.dst)[r0 * a.k], d, r * a.k);
  }
}

// Returns the rows per chunk a tiling gives when its geometry matches (else 0: recompute).
constexpr uint32_t TilingRows(bool matches, uint32_t rows) { return matches ? rows : 0; }

}  // namespace AscendC::lib
