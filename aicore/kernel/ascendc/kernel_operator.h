// The AscendC kernel API (clean-room, for the CPU): include this in kernels exactly as with CANN.
#pragma once

// Standard headers CANN's kernel_operator.h makes visible, which samples use without including.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <type_traits>

#include "aicore/kernel/copy/atomic.h"
#include "aicore/kernel/copy/data_copy_pad.h"
#include "aicore/kernel/copy/gm_to_local.h"
#include "aicore/kernel/copy/local_to_gm.h"
#include "aicore/kernel/copy/params.h"
#include "aicore/kernel/copy/ub_to_ub.h"
#include "aicore/kernel/cube/cube_copy.h"
#include "aicore/kernel/cube/fixpipe.h"
#include "aicore/kernel/cube/load_data.h"
#include "aicore/kernel/cube/mmad.h"
#include "aicore/kernel/cube/nd2nz.h"
#include "aicore/kernel/debug/assert.h"
#include "aicore/kernel/debug/print.h"
#include "aicore/kernel/pipe/flags.h"
#include "aicore/kernel/pipe/local_mem_allocator.h"
#include "aicore/kernel/pipe/tpipe.h"
#include "aicore/kernel/sync/cross_core.h"
#include "aicore/kernel/sync/inter_block.h"
#include "aicore/kernel/sync/sync_all.h"
#include "aicore/kernel/sys.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/tensor/shape_info.h"
#include "aicore/kernel/types.h"
#include "aicore/kernel/utils/scalar.h"
#include "aicore/kernel/vector/axpy.h"
#include "aicore/kernel/vector/brcb.h"
#include "aicore/kernel/vector/cast.h"
#include "aicore/kernel/vector/compare.h"
#include "aicore/kernel/vector/elementwise.h"
#include "aicore/kernel/vector/gather.h"
#include "aicore/kernel/vector/reduce.h"
#include "aicore/kernel/vector/repeat.h"
