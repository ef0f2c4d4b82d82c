// Host platform information ("tiling/platform/platform_ascendc.h"): PlatformAscendC and
// PlatformAscendCManager over the aicore chip presets.
#pragma once

#include "aicore/runtime/tiling/platform_ascendc.h"
