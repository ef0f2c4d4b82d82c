// AscendC LayerNorm ("normalization/layernorm.h"): the [B, S, H] form with mean and variance
// outputs and LayerNormTiling, and the [A, R] form with mean and rstd outputs, LayerNormPara,
// LayerNormSeparateTiling and LayerNormConfig. Statistics are two-pass in float.
#pragma once

#include <cstdint>

#include "aicore/kernel/lib/normalization/norm_impl.h"

namespace AscendC {

// Normalizes each of the bLength * sLength rows of inputX over its originalHLength real values
// (hLength padded, the padding overwritten): output = (x - mean) / sqrt(var + epsilon) * gamma +
// beta; outputMean/outputVariance get one value per row. output may alias inputX.
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
               LayerNormTiling& tiling, detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::NormArgs<T, T, T> a;
  a.api = "LayerNorm";
  a.dst = &output; a.src = &inputX; a.gamma = &gamma; a.beta = &beta;
  a.mean_out = &outputMean; a.var_out = &outputVariance;
  a.epsilon = static_cast<float>(epsilon);
  a.m = tiling.bLength * tiling.sLength;
  a.k = tiling.hLength;
  a.valid = tiling.originalHLength ? tiling.originalHLength : tiling.hLength;
  a.tiling_rows = tiling.bsCurLength;
  lib::NormRun(a, sharedTmpBuffer, loc);
}
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               LayerNormTiling& tiling, detail::SrcLoc loc = detail::SrcLoc::current()) {
  LayerNorm<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta,
                              lib::PopStackBuffer("LayerNorm", loc), epsilon, tiling, loc);
}

// The [A, R] form: normalizes the aLength rows (rLength real values, rLengthWithPadding apart);
// outputMean gets the means and outputRstd 1 / sqrt(var + epsilon) (the variance when
// config.isOutputRstd is false). U (gamma, beta) is at least as precise as T. No src/dst alias.
template <typename U, typename T, bool isReuseSource = false,
          const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
               const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const LayerNormPara& para,
               const LayerNormSeparateTiling& tiling,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!config.isOnlyOutput, "LayerNormConfig::isOnlyOutput must be false");
  static_assert(sizeof(U) >= sizeof(T), "gamma/beta must be at least as precise as inputX");
  lib::NormArgs<T, U, float> a;
  a.api = "LayerNorm";
  a.dst = &output; a.src = &inputX;
  a.gamma = config.isNoGamma ? nullptr : &gamma;
  a.beta = config.isNoBeta ? nullptr : &beta;
  a.mean_out = &outputMean;
  if (config.isOutputRstd) a.rstd_out = &outputRstd; else a.var_out = &outputRstd;
  a.epsilon = epsilon;
  a.m = para.aLength;
  a.k = para.rLengthWithPadding;
  a.valid = para.rLength;
  a.tiling_rows = lib::TilingRows(
      tiling.rLength == para.rLength && tiling.aLength >= para.aLength, tiling.aCurLength);
  if (a.tiling_rows > a.m) a.tiling_rows = 0;
  lib::NormRun(a, sharedTmpBuffer, loc);
}
template <typename U, typename T, bool isReuseSource = false,
          const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
               const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon,
               const LayerNormPara& para, const LayerNormSeparateTiling& tiling,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  LayerNorm<U, T, isReuseSource, config>(output, outputMean, outputRstd, inputX, gamma, beta,
                                         epsilon, lib::PopStackBuffer("LayerNorm", loc), para,
                                         tiling, loc);
}

}  // namespace AscendC
