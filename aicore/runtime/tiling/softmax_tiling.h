// Host tiling of the SoftMax family ("tiling/tiling_api.h"): the scratch sizes and the
// SoftMaxTiling/LogSoftMaxTiling the kernels in kernel/lib/activation/softmax.h consume. The
// source shape is [..., k]: m = product of the leading dims, k = the last (32-byte padded) dim.
#pragma once

#include <cstdint>

#include "aicore/kernel/lib/activation/softmax_utils.h"
#include "aicore/runtime/tiling/tensor_shape.h"

namespace AscendC {

// Returns the scratch bytes for one row (min) or all rows at once (max). dataTypeSize is the byte
// size of the source and sum/max; for the mixed SoftMax<half> with float sum/max pass 2 (a half
// source needs a float working copy; 4 sizes for a float source, and the kernel then reports the
// shortfall). isReuseSource does not change aicore's sizes.
uint32_t GetSoftMaxMaxTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize,
                              bool isReuseSource);
uint32_t GetSoftMaxMinTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize,
                              bool isReuseSource);
// Fills softmaxTiling for a kernel given localWorkSpaceSize bytes of scratch (splitM = 0 when
// that is below the minimum: the kernel then fails with the sizes).
void SoftMaxTilingFunc(const TensorShape& srcShape, uint32_t dataTypeSize,
                       uint32_t localWorkSpaceSize, tiling::SoftMaxTiling& softmaxTiling);

// The same for SoftmaxFlashV2; dataTypeSize1 is the source's, dataTypeSize2 sum/max's. isUpdate,
// isBasicBlock and isFlashOutputBrc do not change aicore's sizes.
uint32_t GetSoftMaxFlashV2MaxTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize1,
                                     uint32_t dataTypeSize2, bool isUpdate,
                                     bool isBasicBlock = false, bool isFlashOutputBrc = false);
uint32_t GetSoftMaxFlashV2MinTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize1,
                                     uint32_t dataTypeSize2, bool isUpdate,
                                     bool isBasicBlock = false, bool isFlashOutputBrc = false);
void SoftMaxFlashV2TilingFunc(const TensorShape& srcShape, uint32_t dataTypeSize1,
                              uint32_t dataTypeSize2, uint32_t localWorkSpaceSize,
                              tiling::SoftMaxTiling& softmaxFlashTiling, bool isUpdate,
                              bool isBasicBlock = false, bool isFlashOutputBrc = false);

uint32_t GetLogSoftMaxMaxTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize,
                                 bool isReuseSource);
uint32_t GetLogSoftMaxMinTmpSize(const TensorShape& srcShape, uint32_t dataTypeSize,
                                 bool isReuseSource);
void LogSoftMaxTilingFunc(const TensorShape& srcShape, uint32_t dataTypeSize,
                          uint32_t localWorkSpaceSize, tiling::LogSoftMaxTiling& softmaxTiling);

// Returns true when the tiling's shape meets the documented basic-block rule
// (256 / dataTypeSize <= k < 2048, k % 64 == 0, m % 8 == 0).
bool IsBasicBlockInSoftMax(tiling::SoftMaxTiling& tiling, uint32_t dataTypeSize = 2);

}  // namespace AscendC
