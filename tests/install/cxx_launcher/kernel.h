// A __mix__(1, 1) kernel: each AIC writes its group index into out[2 * g], each AIV the number
// of sub-blocks of its group (1 at a 1:1 ratio) into out[2 * g + 1].
#pragma once

#include "kernel_operator.h"

__global__ __mix__(1, 1) __aicore__ void who_runs(GM_ADDR out);
