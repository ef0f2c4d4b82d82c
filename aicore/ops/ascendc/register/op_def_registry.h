// "register/op_def_registry.h": ops::OpDef and OP_ADD, the gert contexts (TilingContext,
// InferShapeContext, InferDataTypeContext), ge types, the tiling-data macros and the platform.
#pragma once

#include "aicore/ops/register/graph_types.h"
#include "aicore/ops/register/op_def.h"
#include "aicore/ops/register/tiling_context.h"
#include "aicore/ops/register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
