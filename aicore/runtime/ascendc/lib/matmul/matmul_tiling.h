// Matmul host tiling ("lib/matmul/bmm_tiling.h", "lib/matmul/matmul_tiling.h"):
// matmul_tiling::MatmulApiTiling and MultiCoreMatmulTiling filling TCubeTiling.
#pragma once

#include "aicore/runtime/tiling/matmul_tiling.h"
#include "aicore/runtime/tiling/platform_ascendc.h"
