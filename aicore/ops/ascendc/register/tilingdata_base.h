// "register/tilingdata_base.h": the tiling-data macros (see aicore/ops/register/tilingdata_base.h).
#pragma once

#include "aicore/ops/register/tilingdata_base.h"
