// AscendC LayerNormGrad ("normalization/layernormgrad.h"): the gradient of the [B, S, H]
// LayerNorm with respect to its input, from dy, x, the forward's mean and variance, and gamma;
// also resForGamma = (x - mean) * rstd for LayerNormGradBeta. Float arithmetic, row by row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/normalization/norm_utils.h"
#include "aicore/kernel/tensor/shape_info.h"

namespace AscendC {

// The data format of LayerNormGrad's tensors (ND only in aicore).
struct LayerNormGradShapeInfo {
  DataFormat dataFormat = DataFormat::ND;
};

namespace lib {

// Writes block[i * 8 + j] = in[i] (as float) for rows i in [0, rows): the per-row vector in the
// row block form (Note [Row block form]); `vec` holds AlignUp(rows, 8) floats.
template <typename T>
void VectorToBlock(const LocalTensor<float>& block, const LocalTensor<T>& in, uint32_t rows,
                   const LocalTensor<float>& vec) {
  const uint32_t n = AlignUp(rows, kFloatsPerBlock);
  if (n != rows) Duplicate(vec, 0.0f, static_cast<int32_t>(n));
  ToFloat(vec, in, rows);
  for (uint32_t p = 0; p < n; p += kFloatsPerBlock * kMaxRepeat) {
    const uint32_t rep = std::min(kMaxRepeat, (n - p) / kFloatsPerBlock);
    Brcb(block[p * kFloatsPerBlock], vec[p], static_cast<uint8_t>(rep), BrcbRepeatParams(1, 8));
  }
}

// Algorithm, per chunk of r rows (all in float; per-row values in the row block form):
// - rstd = 1 / sqrt(variance + epsilon); x2 = x - mean; pdxl = dy * gamma;
// - pd_var = -0.5 * rstd^3 * sum(pdxl * x2);
//   pd_mean = -rstd * sum(pdxl) - (2 / H) * pd_var * sum(x2)   (the documented formula:
//   sum(x2) is 0 only when mean is the rows' exact mean);
// - pd_x = pdxl * rstd + (2 / H) * pd_var * x2 + pd_mean / H; resForGamma = x2 * rstd.
// The sums run over the originalHLength real values of each row.
template <typename T>
void LayerNormGradRun(const LocalTensor<T>& pd_x, const LocalTensor<T>& res_for_gamma,
                      const LocalTensor<T>& dy, const LocalTensor<T>& x,
                      const LocalTensor<T>& variance, const LocalTensor<T>& mean,
                      const LocalTensor<T>& gamma, const LocalTensor<uint8_t>& tmp, float epsilon,
                      const LayerNormGradTiling& tiling, const detail::SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  constexpr const char* kApi = "LayerNormGrad";
  const uint32_t m = tiling.bLength * tiling.sLength;
  const uint32_t k = tiling.hLength;
  const uint32_t valid = tiling.originalHLength ? tiling.originalHLength : k;
  if (m == 0) return;
  if (k == 0 || valid > k || (k * sizeof(T)) % kBlockBytes != 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, kApi, loc, "row length hLength = ", k,
                 " (originalHLength ", valid,
                 ") must be > 0, a multiple of 32 bytes and >= originalHLength");
  }
  auto need = [&](const char* role, uint32_t have, uint64_t want) {
    if (have < want) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, kApi, loc, role, " holds ", have,
                   " elements but the tiling's shape needs ", want);
    }
  };
  const uint64_t mk = uint64_t{m} * k;
  need("outputPdX", pd_x.GetSize(), mk);
  need("resForGamma", res_for_gamma.GetSize(), mk);
  need("inputDy", dy.GetSize(), mk);
  need("inputX", x.GetSize(), mk);
  need("inputVariance", variance.GetSize(), m);
  need("inputMean", mean.GetSize(), m);
  need("inputGamma", gamma.GetSize(), k);
  // The outputs are written while the inputs are still read.
  CheckNoOverlap(kApi, pd_x, m * k, dy, m * k, loc);
  CheckNoOverlap(kApi, pd_x, m * k, x, m * k, loc);
  CheckNoOverlap(kApi, res_for_gamma, m * k, dy, m * k, loc);
  CheckNoOverlap(kApi, res_for_gamma, m * k, x, m * k, loc);
  CheckNoOverlap(kApi, res_for_gamma, m * k, pd_x, m * k, loc);

  constexpr uint32_t src_size = sizeof(T);
  auto layout = [&](uint32_t r) { return NormGradLayout(r, k, src_size); };
  uint32_t rows = tiling.oneCalSize;
  const bool tiling_fits = rows != 0 && rows <= m && (rows == m || rows % 16 == 0) &&
                           layout(rows).total <= tmp.GetSize();
  if (!tiling_fits) rows = GradRowsFitting(m, tmp.GetSize(), layout);
  if (rows == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, kApi, loc, "sharedTmpBuffer holds ",
                 tmp.GetSize(), " bytes but ", m, " rows of ", k, " need at least ",
                 layout(std::min(m, 16u)).total, " (see GetLayerNormGradMaxMinTmpSize)");
  }
  const NormGradWorkspace w = layout(rows);
  auto f32 = [&](uint32_t off) { return tmp[off].template ReinterpretCast<float>(); };
  const RowScratch s{f32(w.reduce), f32(w.pairs), f32(w.blocks)};
  const LocalTensor<float> b_mean = f32(w.stat[0]), b_rstd = f32(w.stat[1]);
  const LocalTensor<float> b_sum_px = f32(w.stat[2]), b_sum_p = f32(w.stat[3]);
  const LocalTensor<float> b_sum_x2 = f32(w.stat[4]), b_coef = f32(w.stat[5]);
  const LocalTensor<float> vec = f32(w.vec), pdxl = f32(w.pdxl);
  LocalTensor<float> g;
  if constexpr (std::is_same_v<T, float>) {
    g = gamma;
  } else {
    g = f32(w.gamma);
    ToFloat(g, gamma, k);
  }
  const float inv_h = 1.0f / static_cast<float>(valid);
  for (uint32_t r0 = 0; r0 < m; r0 += rows) {
    const uint32_t r = std::min(rows, m - r0);
    const uint32_t base = r0 * k;
    const int32_t n = static_cast<int32_t>(r * k);
    const int32_t nb = static_cast<int32_t>(r * kFloatsPerBlock);
    // Float sources are read in place and the float outputs serve as x2 and the accumulator.
    LocalTensor<float> fx, fdy, x2, acc;
    if constexpr (std::is_same_v<T, float>) {
      fx = x[base];
      fdy = dy[base];
      x2 = res_for_gamma[base];
      acc = pd_x[base];
    } else {
      fx = f32(w.x);
      fdy = f32(w.dy);
      x2 = f32(w.x2);
      acc = f32(w.acc);
      ToFloat(fx, x[base], r * k);
      ToFloat(fdy, dy[base], r * k);
    }
    VectorToBlock(b_mean, mean[r0], r, vec);
    VectorToBlock(b_rstd, variance[r0], r, vec);
    Adds(b_rstd, b_rstd, epsilon, nb);
    Rsqrt(b_rstd, b_rstd, nb);
    RowBroadcast(SubOp{}, x2, fx, b_mean, r, k);   // x2 = x - mean
    RowVector(MulOp{}, pdxl, fdy, g, r, k);        // pdxl = dy * gamma
    Mul(acc, pdxl, x2, n);                          // acc = pdxl * x2 (for the sum only)
    RowStat(RowKind::kSum, b_sum_px, acc, r, k, valid, s);
    RowStat(RowKind::kSum, b_sum_p, pdxl, r, k, valid, s);
    RowStat(RowKind::kSum, b_sum_x2, x2, r, k, valid, s);
    // pd_var = -0.5 * rstd^3 * sum_px (kept in b_sum_px).
    Mul(b_coef, b_rstd, b_rstd, nb);
    Mul(b_coef, b_coef, b_rstd, nb);
    Mul(b_sum_px, b_sum_px, b_coef, nb);
    Muls(b_sum_px, b_sum_px, -0.5f, nb);
    // pd_mean / H = (-rstd * sum_p - (2 / H) * pd_var * sum_x2) / H (kept in b_sum_p).
    Mul(b_sum_p, b_sum_p, b_rstd, nb);
    Mul(b_sum_x2, b_sum_x2, b_sum_px, nb);
    Muls(b_sum_x2, b_sum_x2, 2.0f * inv_h, nb);
    Add(b_sum_p, b_sum_p, b_sum_x2, nb);
    Muls(b_sum_p, b_sum_p, -inv_h, nb);
    // pd_x = pdxl * rstd + ((2 / H) * pd_var) * x2 + pd_mean / H.
    Muls(b_coef, b_sum_px, 2.0f * inv_h, nb);
    RowBroadcast(MulOp{}, acc, pdxl, b_rstd, r, k);
    RowBroadcast(MulOp{}, pdxl, x2, b_coef, r, k);
    Add(acc, acc, pdxl, n);
    RowBroadcast(AddOp{}, acc, acc, b_sum_p, r, k);
    // resForGamma = x2 * rstd.
    RowBroadcast(MulOp{}, x2, x2, b_rstd, r, k);
    if constexpr (!std::is_same_v<T, float>) {
      FromFloat(pd_x[base], acc, r * k);
      FromFloat(res_for_gamma[base], x2, r * k);
    }
  }
}

}  // namespace lib

// Computes, for each of the bLength * sLength rows of hLength values (originalHLength real):
//   pd_xl = dy * gamma, rstd = (variance + epsilon)^-0.5,
//   pd_var = sum(-0.5 * pd_xl * (x - mean) * rstd^3),
//   pd_mean = sum(-pd_xl * rstd) + pd_var / H * sum(-2 * (x - mean)),
//   outputPdX = pd_xl * rstd + pd_var * 2 / H * (x - mean) + pd_mean / H,
//   resForGamma = (x - mean) * rstd,
// with H = originalHLength and the sums over a row's real values. inputVariance and inputMean
// hold one value per row (the forward LayerNorm's outputs), inputGamma hLength values. The outputs
// must not overlap the inputs or each other. sharedTmpBuffer: at least
// GetLayerNormGradMaxMinTmpSize's minimum. ND only.
template <typename T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                   const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                   const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, const LocalTensor<uint8_t>& sharedTmpBuffer,
                   T epsilon, LayerNormGradTiling& tiling,
                   const LayerNormGradShapeInfo& shapeInfo = {},
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (shapeInfo.dataFormat != DataFormat::ND) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kUnimplemented, "LayerNormGrad", loc,
                 "dataFormat ", static_cast<int>(shapeInfo.dataFormat),
                 " is not supported (ND only)");
  }
  lib::LayerNormGradRun(outputPdX, resForGamma, inputDy, inputX, inputVariance, inputMean,
                        inputGamma, sharedTmpBuffer, static_cast<float>(epsilon), tiling, loc);
}

// The same with the scratch taken from the UB after the live TPipe's buffers.
template <typename T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                   const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                   const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, T epsilon, LayerNormGradTiling& tiling,
                   const LayerNormGradShapeInfo& shapeInfo = {},
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  LayerNormGrad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance,
                                  inputMean, inputGamma, lib::PopStackBuffer("LayerNormGrad", loc),
                                  epsilon, tiling, shapeInfo, loc);
}

}  // namespace AscendC
