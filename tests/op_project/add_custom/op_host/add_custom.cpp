// Host side of AddCustom (z = x + y, float or half): the tiling function splits the elements over
// the vector cores with a shorter last core and picks tiling key 1 (float) or 2 (half); InferShape
// and InferDataType make z like x; the OpDef declares the two dtype combinations.
#include <algorithm>

#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t kMaxTile = 2048;  // elements per tile (8 KiB of float per buffer)

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
  const uint32_t align = dtype == ge::DT_FLOAT ? 8 : 16;  // elements per 32-byte block
  const uint32_t total = context->GetInputTensor(0)->GetShapeSize();
  if (total == 0 || total % align != 0) return ge::GRAPH_FAILED;
  platform_ascendc::PlatformAscendC platform(context->GetPlatformInfo());
  const uint32_t cores = platform.GetCoreNumAiv();
  uint32_t per_core = (total + cores - 1) / cores;
  per_core = (per_core + align - 1) / align * align;
  const uint32_t used = (total + per_core - 1) / per_core;

  AddCustomTilingData tiling;
  tiling.set_usedCores(static_cast<uint8_t>(used));
  tiling.set_totalLength(total);
  tiling.split.set_blockLength(per_core);
  tiling.split.set_tailLength(total - (used - 1) * per_core);
  tiling.split.set_tileLength(std::min(per_core, kMaxTile));
  context->SetBlockDim(used);
  context->SetTilingKey(dtype == ge::DT_FLOAT ? 1 : 2);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t* workspace = context->GetWorkspaceSizes(1);
  workspace[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
  *context->GetOutputShape(0) = *context->GetInputShape(0);
  return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context) {
  context->SetOutputDataType(0, context->GetInputDataType(0));
  return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
 public:
  explicit AddCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};
OP_ADD(AddCustom);
}  // namespace ops
