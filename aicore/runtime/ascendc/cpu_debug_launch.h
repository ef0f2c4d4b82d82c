// What an .asc file includes under ASCENDC_CPU_DEBUG to launch kernels with <<<>>> on the CPU:
// the launch entry the aicore-asc driver rewrites launches into (aicore::detail::AscLaunch), the
// ACL runtime (streams, device memory) and the CPU-debug host API (GmAlloc, ICPU_RUN_KF).
#pragma once

#include "acl/acl.h"
#include "aicore/runtime/launch.h"
#include "tikicpulib.h"
