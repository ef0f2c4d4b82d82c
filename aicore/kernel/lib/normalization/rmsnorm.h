// AscendC RmsNorm ("normalization/rmsnorm.h"): dst = x / sqrt(mean(x^2) + epsilon) * gamma over
// each row of a [B, S, H] source, the mean taken in float over the originalHLength real values.
#pragma once

#include <cstdint>

#include "aicore/kernel/lib/normalization/norm_impl.h"

namespace AscendC {

// src and dst are [bLength * sLength, hLength] (hLength padded to 32 bytes, the padding
// overwritten), gamma [hLength]; dst must not alias gamma.
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
             const RmsNormTiling& tiling, detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (dst.data() == gamma.data()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "RmsNorm", loc,
                 "dst must not alias gamma");
  }
  lib::NormArgs<T, T, T> a;
  a.kind = lib::NormKind::kRmsNorm;
  a.api = "RmsNorm";
  a.dst = &dst; a.src = &src; a.gamma = &gamma;
  a.epsilon = static_cast<float>(epsilon);
  a.m = tiling.bLength * tiling.sLength;
  a.k = tiling.hLength;
  a.valid = tiling.originalHLength ? tiling.originalHLength : tiling.hLength;
  a.tiling_rows = tiling.mainBsLength;
  lib::NormRun(a, sharedTmpBuffer, loc);
}
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
             const T epsilon, const RmsNormTiling& tiling,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  RmsNorm<T, isBasicBlock>(dst, src, gamma, lib::PopStackBuffer("RmsNorm", loc), epsilon, tiling,
                           loc);
}

}  // namespace AscendC
