// Kernel-side tiling structs of the high-level APIs ("kernel_tiling/kernel_tiling.h"): the
// AscendC::tiling POD structs, also under their legacy global names (TCubeTiling).
#pragma once

#include "aicore/kernel/cube/matmul_tiling_data.h"
