// Every AscendC high-level kernel API aicore implements; kernel_operator.h includes this, as
// CANN's does its adv_api/kernel_api.h.
#pragma once

#include "aicore/kernel/lib/activation/softmax.h"
#include "aicore/kernel/lib/normalization/layernorm.h"
#include "aicore/kernel/lib/normalization/layernormgrad.h"
#include "aicore/kernel/lib/normalization/layernormgradbeta.h"
#include "aicore/kernel/lib/normalization/rmsnorm.h"
#include "aicore/kernel/lib/activation/gelu.h"
#include "aicore/kernel/lib/activation/sigmoid.h"
#include "aicore/kernel/lib/activation/silu.h"
#include "aicore/kernel/lib/activation/swish.h"
#include "aicore/kernel/lib/reduce/mean.h"
#include "aicore/kernel/lib/reduce/sum.h"
