// The Matmul high-level API under its older include path ("lib/matrix/matmul/matmul.h", used by
// the 2024 samples); the same as lib/matmul_intf.h.
#pragma once

#include "aicore/kernel/ascendc/lib/matmul_intf.h"
