// The documented include path utils/debug/asc_printf.h: printf, PRINTF, DumpTensor, KERNEL_LOG.
#pragma once

#include "aicore/kernel/debug/print.h"
