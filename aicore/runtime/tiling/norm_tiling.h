// Host tiling of LayerNorm, LayerNormGrad, LayerNormGradBeta and RmsNorm ("tiling/tiling_api.h"):
// scratch sizes and the tiling structs the kernels in kernel/lib/normalization/ read, all from the
// layouts in norm_utils.h.
#pragma once

#include <cstdint>

#include "aicore/kernel/lib/normalization/norm_utils.h"
#include "aicore/runtime/tiling/tensor_shape.h"

namespace AscendC {

// [B, S, H] form: srcShape is {B, S, storageH, originH} (a 3-D {B, S, H} means originH = H).
// min = one chunk of min(B * S, 16) rows, max = all rows at once; typeSize is inputX's.
void GetLayerNormMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize, bool isReuseSource,
                               uint32_t& maxValue, uint32_t& minValue);
// [A, R] form: srcShape is {A, R} (R unpadded; rows are padded to 32 bytes of typeSize).
void GetLayerNormMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize, bool isReuseSource,
                               bool isComputeRstd, bool isOnlyOutput, uint32_t& maxValue,
                               uint32_t& minValue);
// Fills the [B, S, H] tiling for stackBufferSize bytes of scratch (bsCurLength = 0 when that is
// below the minimum: the kernel then fails with the sizes).
void GetLayerNormNDTilingInfo(const TensorShape& srcShape, uint32_t stackBufferSize,
                              uint32_t typeSize, bool isReuseSource, LayerNormTiling& tiling);
void GetLayerNormNDTilingInfo(const TensorShape& srcShape, uint32_t stackBufferSize,
                              uint32_t typeSize, bool isReuseSource, bool isComputeRstd,
                              LayerNormSeparateTiling& tiling);
// The misspelled legacy name of the [B, S, H] form.
[[deprecated("use GetLayerNormNDTilingInfo")]] void GetLayerNormNDTillingInfo(
    const TensorShape& srcShape, uint32_t stackBufferSize, uint32_t typeSize, bool isReuseSource,
    LayerNormTiling& tilling);

// LayerNormGrad: srcShape is {B, S, storageH, originH} (3-D: originH = H); sizes in bytes, min =
// one chunk of min(B * S, 16) rows, max = all rows at once; typeSize is the data's.
void GetLayerNormGradMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize,
                                   bool isReuseSource, uint32_t& maxValue, uint32_t& minValue);
// Fills the tiling for stackBufferSize bytes of scratch (oneCalSize = 0 when that is below the
// minimum: the kernel then fails with the sizes).
void GetLayerNormGradNDTilingInfo(const TensorShape& srcShape, uint32_t stackBufferSize,
                                  uint32_t typeSize, bool isReuseSource,
                                  LayerNormGradTiling& tiling);
// LayerNormGradBeta: srcShape is inputDy's {B, S, storageH, originH}; as above.
void GetLayerNormGradBetaMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize,
                                       bool isReuseSource, uint32_t& maxValue,
                                       uint32_t& minValue);
void GetLayerNormGradBetaNDTilingInfo(const TensorShape& srcShape, uint32_t stackBufferSize,
                                      uint32_t typeSize, bool isReuseSource,
                                      LayerNormGradBetaTiling& tiling);

// srcShape is {B, S, H} with H padded to 32 bytes; returns false when it is not. min = one row,
// max = all rows at once.
bool GetRmsNormMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize, uint32_t& maxValue,
                             uint32_t& minValue, bool isBasicBlock = false);
// originSrcShape is {B, S, originH}; returns false on a bad shape or a buffer below the minimum.
bool GetRmsNormTilingInfo(const TensorShape& srcShape, const TensorShape& originSrcShape,
                          uint32_t stackBufferByteSize, uint32_t typeSize, RmsNormTiling& tiling,
                          bool isBasicBlock = false);

}  // namespace AscendC
