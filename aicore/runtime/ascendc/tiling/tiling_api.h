// Host tiling APIs ("tiling/tiling_api.h"): matmul_tiling::MatmulApiTiling,
// MultiCoreMatmulTiling, optiling::TCubeTiling, platform_ascendc::PlatformAscendC, the
// high-level APIs' tmp-size and tiling functions (AscendC::TensorShape, GetSoftMaxMinTmpSize, ...)
// and their optiling:: tiling structs (optiling::SoftMaxTiling, LayerNormTiling, ...).
#pragma once

#include "aicore/runtime/tiling/api_tiling_data.h"
#include "aicore/runtime/tiling/elementwise_tiling.h"
#include "aicore/runtime/tiling/matmul_tiling.h"
#include "aicore/runtime/tiling/norm_tiling.h"
#include "aicore/runtime/tiling/platform_ascendc.h"
#include "aicore/runtime/tiling/softmax_tiling.h"
#include "aicore/runtime/tiling/tensor_shape.h"

// CANN's tiling_api.h brings the tiling-data macros (BEGIN_TILING_DATA_DEF ...) that .asc samples
// use beside it; they belong to the ops layer, present in every install.
#if __has_include("register/tilingdata_base.h")
#include "register/tilingdata_base.h"
#endif
