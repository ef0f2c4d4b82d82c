// The kernel's declaration, shared by the kernel source and the host program.
#pragma once

#include "kernel_operator.h"

constexpr int32_t SCALE_TILE = 1024;  // elements per tile

// y = x * alpha + beta over `totalLength` floats split evenly over the blocks; the per-block
// length must be a multiple of SCALE_TILE.
extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, float alpha, float beta,
                                                   uint32_t totalLength);
