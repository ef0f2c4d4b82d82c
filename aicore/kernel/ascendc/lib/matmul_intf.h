// The AscendC Matmul high-level API for kernels ("lib/matmul_intf.h"): Matmul, MatmulType,
// MatmulConfig, REGIST_MATMUL_OBJ, plus the basic API of kernel_operator.h.
#pragma once

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/kernel/lib/matmul/matmul.h"
