// Host tiling APIs ("tiling/tiling_api.h"): matmul_tiling::MatmulApiTiling,
// MultiCoreMatmulTiling, optiling::TCubeTiling and platform_ascendc::PlatformAscendC.
#pragma once

#include "aicore/runtime/tiling/matmul_tiling.h"
#include "aicore/runtime/tiling/platform_ascendc.h"
