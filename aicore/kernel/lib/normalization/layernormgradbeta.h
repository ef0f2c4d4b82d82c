// AscendC LayerNormGradBeta ("normalization/layernormgradbeta.h"): the gradients of LayerNorm's
// gamma and beta, column sums over the [B, S] rows of dy * resForGamma and of dy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/normalization/norm_utils.h"

namespace AscendC {
namespace lib {

// Adds the `rows` rows of k floats at `rows_buf` into acc[0, k) by pairwise halving (log2(rows)
// instructions; rows_buf is overwritten).
inline void AddRowsInto(const LocalTensor<float>& acc, const LocalTensor<float>& rows_buf,
                        uint32_t rows, uint32_t k) {
  while (rows > 1) {
    const uint32_t half = rows / 2;
    Add(rows_buf, rows_buf, rows_buf[(rows - half) * k], static_cast<int32_t>(half * k));
    rows -= half;
  }
  Add(acc, acc, rows_buf, static_cast<int32_t>(k));
}

// Algorithm: gamma and beta accumulate in float over chunks of r rows: the chunk's
// dy * resForGamma rows and dy rows are each halved pairwise into one row and added to the
// accumulator, which is rounded to T once at the end.
template <typename T>
void LayerNormGradBetaRun(const LocalTensor<T>& pd_gamma, const LocalTensor<T>& pd_beta,
                          const LocalTensor<T>& res_for_gamma, const LocalTensor<T>& dy,
                          const LocalTensor<uint8_t>& tmp, const LayerNormGradBetaTiling& tiling,
                          const detail::SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  constexpr const char* kApi = "LayerNormGradBeta";
  const uint32_t m = tiling.bLength * tiling.sLength;
  const uint32_t k = tiling.hLength;
  if (k == 0 || (k * sizeof(T)) % kBlockBytes != 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, kApi, loc, "row length hLength = ", k,
                 " must be > 0 and a multiple of 32 bytes");
  }
  auto need = [&](const char* role, uint32_t have, uint64_t want) {
    if (have < want) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, kApi, loc, role, " holds ", have,
                   " elements but the tiling's shape needs ", want);
    }
  };
  const uint64_t mk = uint64_t{m} * k;
  need("outputPdGamma", pd_gamma.GetSize(), k);
  need("outputPdBeta", pd_beta.GetSize(), k);
  need("resForGamma", res_for_gamma.GetSize(), mk);
  need("inputDy", dy.GetSize(), mk);
  CheckNoOverlap(kApi, pd_gamma, k, pd_beta, k, loc);
  if (m == 0) {  // no rows: both gradients are zero
    Duplicate(pd_gamma, static_cast<T>(0.0f), static_cast<int32_t>(k));
    Duplicate(pd_beta, static_cast<T>(0.0f), static_cast<int32_t>(k));
    return;
  }

  constexpr uint32_t src_size = sizeof(T);
  auto layout = [&](uint32_t r) { return NormGradBetaLayout(r, k, src_size); };
  uint32_t rows = tiling.bsCurLength;
  const bool tiling_fits = rows != 0 && rows <= m && layout(rows).total <= tmp.GetSize();
  if (!tiling_fits) rows = GradRowsFitting(m, tmp.GetSize(), layout);
  if (rows == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, kApi, loc, "sharedTmpBuffer holds ",
                 tmp.GetSize(), " bytes but ", m, " rows of ", k, " need at least ",
                 layout(std::min(m, 16u)).total, " (see GetLayerNormGradBetaMaxMinTmpSize)");
  }
  const NormGradBetaWorkspace w = layout(rows);
  auto f32 = [&](uint32_t off) { return tmp[off].template ReinterpretCast<float>(); };
  const LocalTensor<float> g_acc = f32(w.gamma), b_acc = f32(w.beta), prod = f32(w.prod);
  Duplicate(g_acc, 0.0f, static_cast<int32_t>(k));
  Duplicate(b_acc, 0.0f, static_cast<int32_t>(k));
  for (uint32_t r0 = 0; r0 < m; r0 += rows) {
    const uint32_t r = std::min(rows, m - r0);
    const uint32_t base = r0 * k;
    const int32_t n = static_cast<int32_t>(r * k);
    LocalTensor<float> fdy, fres;
    if constexpr (std::is_same_v<T, float>) {
      fdy = dy[base];
      fres = res_for_gamma[base];
    } else {
      fdy = f32(w.dy);
      fres = f32(w.res);
      ToFloat(fdy, dy[base], r * k);
      ToFloat(fres, res_for_gamma[base], r * k);
    }
    Mul(prod, fdy, fres, n);
    AddRowsInto(g_acc, prod, r, k);
    Muls(prod, fdy, 1.0f, n);
    AddRowsInto(b_acc, prod, r, k);
  }
  FromFloat(pd_gamma, g_acc, k);
  FromFloat(pd_beta, b_acc, k);
}

}  // namespace lib

// Writes outputPdGamma[j] = sum over the bLength * sLength rows of inputDy * resForGamma (column
// j) and outputPdBeta[j] = sum of inputDy (column j), for the hLength columns; resForGamma is
// LayerNormGrad's output. The outputs hold hLength values and must not overlap each other; the
// inputs are not written. sharedTmpBuffer: at least GetLayerNormGradBetaMaxMinTmpSize's minimum.
template <typename T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LocalTensor<uint8_t>& sharedTmpBuffer,
                       const LayerNormGradBetaTiling& tiling,
                       detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::LayerNormGradBetaRun(outputPdGamma, outputPdBeta, resForGamma, inputDy, sharedTmpBuffer,
                            tiling, loc);
}

// The same with the scratch taken from the UB after the live TPipe's buffers.
template <typename T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LayerNormGradBetaTiling& tiling,
                       detail::SrcLoc loc = detail::SrcLoc::current()) {
  LayerNormGradBeta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                      lib::PopStackBuffer("LayerNormGradBeta", loc), tiling, loc);
}

}  // namespace AscendC
