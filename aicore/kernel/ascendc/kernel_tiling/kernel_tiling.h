// Kernel-side tiling structs of the high-level APIs ("kernel_tiling/kernel_tiling.h"): the
// AscendC::tiling POD structs, also under their global names (TCubeTiling, SoftMaxTiling,
// LogSoftMaxTiling, LayerNormTiling, LayerNormSeparateTiling, RmsNormTiling,
// LayerNormGradTiling, LayerNormGradBetaTiling).
#pragma once

#include "aicore/kernel/lib/matmul/matmul_tiling_data.h"
#include "aicore/kernel/lib/activation/softmax_utils.h"
#include "aicore/kernel/lib/normalization/norm_utils.h"
