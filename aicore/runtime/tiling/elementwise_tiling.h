// Host scratch sizes of the element-wise activations (Gelu family, Sigmoid, Silu, Swish) and the
// Sum/Mean reductions ("tiling/tiling_api.h"), from the same constants the kernels carve with.
#pragma once

#include <cstdint>

#include "aicore/runtime/tiling/tensor_shape.h"

namespace AscendC {

// Gelu, FasterGelu and FasterGeluV2 share their sizes: min = one 64-element chunk of three
// float buffers, max = the whole shape at once.
uint32_t GetGeluMaxTmpSize(const TensorShape& srcShape, uint32_t typeSize);
uint32_t GetGeluMinTmpSize(const TensorShape& srcShape, uint32_t typeSize);
void GetGeluMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize, uint32_t& maxValue,
                          uint32_t& minValue);
// Sigmoid: two float buffers per chunk.
void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, uint32_t typeSize, bool isReuseSource,
                             uint32_t& maxValue, uint32_t& minValue);
// Silu and Swish run without scratch: both sizes are 0.
void GetSiluTmpSize(const TensorShape& srcShape, uint32_t typeSize, bool isReuseSource,
                    uint32_t& maxValue, uint32_t& minValue);
void GetSwishTmpSize(const TensorShape& srcShape, uint32_t typeSize, bool isReuseSource,
                     uint32_t& maxValue, uint32_t& minValue);

// Sum over n values of typeSize bytes: ReduceSum's scratch (max == min).
void GetSumMaxMinTmpSize(uint32_t n, uint32_t typeSize, bool isReuseSource, uint32_t& maxSize,
                         uint32_t& minSize);
void GetMeanMaxMinTmpSize(uint32_t n, uint32_t srcTypeSize, uint32_t accTypeSize,
                          bool isReuseSource, uint32_t& maxSize, uint32_t& minSize);

}  // namespace AscendC
