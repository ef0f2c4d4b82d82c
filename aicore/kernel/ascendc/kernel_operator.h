// The AscendC kernel API (clean-room, for the CPU): include this in kernels exactly as with CANN.
#pragma once

#include "aicore/kernel/copy/atomic.h"
#include "aicore/kernel/copy/gm_to_local.h"
#include "aicore/kernel/copy/local_to_gm.h"
#include "aicore/kernel/copy/params.h"
#include "aicore/kernel/copy/ub_to_ub.h"
#include "aicore/kernel/pipe/flags.h"
#include "aicore/kernel/pipe/tpipe.h"
#include "aicore/kernel/sync/sync_all.h"
#include "aicore/kernel/sys.h"
#include "aicore/kernel/tensor/global_tensor.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/types.h"
#include "aicore/kernel/vector/elementwise.h"
#include "aicore/kernel/vector/repeat.h"
