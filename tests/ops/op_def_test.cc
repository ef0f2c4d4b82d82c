// ops::OpDef declarations and OP_ADD, the gert contexts (shapes, attributes, tiling data,
// workspace, platform), and the OpType -> file-name rule.
#include <gtest/gtest.h>

#include "aicore/ops/op_project/custom_op.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus ProbeTiling(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }
}  // namespace optiling

namespace ops {
class ProbeCustom : public OpDef {
 public:
  explicit ProbeCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
    this->Input("bias_in").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND}).InitValue(0);
    this->Attr("scale").AttrType(OPTIONAL).Float(2.0f);
    this->Attr("axes").AttrType(REQUIRED).ListInt();
    this->AICore().SetTiling(optiling::ProbeTiling).AddConfig("ascend910b").AddConfig("ascend310p");
  }
};
OP_ADD(ProbeCustom);
}  // namespace ops

namespace {

TEST(OpDefTest, RegistersDeclarationsInOrder) {
  const ops::OpDef* op = ops::OpDefRegistry::Find("ProbeCustom");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op, ops::OpDefRegistry::Find("ProbeCustom")) << "built once";
  ASSERT_EQ(op->inputs().size(), 2u);
  EXPECT_EQ(op->inputs()[1]->name(), "bias_in");
  EXPECT_EQ(op->inputs()[1]->param_type(), ops::OPTIONAL);
  EXPECT_EQ(op->inputs()[0]->dtypes()[1], ge::DT_FLOAT16);
  ASSERT_EQ(op->outputs().size(), 1u);
  EXPECT_EQ(op->outputs()[0]->init_value(), 0u);
  ASSERT_EQ(op->attrs().size(), 2u);
  EXPECT_EQ(op->attrs()[0]->type(), ops::OpAttrDef::Type::kFloat);
  EXPECT_EQ(std::get<float>(*op->attrs()[0]->default_value()), 2.0f);
  EXPECT_FALSE(op->attrs()[1]->default_value().has_value());
  EXPECT_EQ(op->aicore().tiling(), &optiling::ProbeTiling);
  EXPECT_EQ(op->aicore().socs().size(), 2u);
  EXPECT_EQ(ops::OpDefRegistry::Find("NoSuchOp"), nullptr);
}

TEST(OpDefTest, FileNamesFollowTheNamingRule) {
  using aicore::ops::OpTypeToFileName;
  EXPECT_EQ(OpTypeToFileName("AddCustom"), "add_custom");
  EXPECT_EQ(OpTypeToFileName("Conv2DCustom"), "conv2_d_custom");
  EXPECT_EQ(OpTypeToFileName("GRUCell"), "gru_cell");
  EXPECT_EQ(OpTypeToFileName("LeakyReluCustom"), "leaky_relu_custom");
  EXPECT_EQ(aicore::ops::ParamNameToCamel("bias_in"), "biasIn");
  EXPECT_EQ(aicore::ops::ParamNameToCamel("x"), "x");
}

TEST(ShapeTest, DimsSizeAndComparison) {
  gert::Shape s{2, 3, 4};
  EXPECT_EQ(s.GetDimNum(), 3u);
  EXPECT_EQ(s.GetDim(1), 3);
  EXPECT_EQ(s.GetDim(9), 0);
  EXPECT_EQ(s.GetShapeSize(), 24);
  EXPECT_EQ(gert::Shape().GetShapeSize(), 1);
  s.SetDim(2, 0);
  EXPECT_EQ(s.GetShapeSize(), 0);
  EXPECT_EQ(s.ToString(), "[2, 3, 0]");
  EXPECT_NE(s, (gert::Shape{2, 3, 4}));
  EXPECT_EQ(s, (gert::Shape{2, 3, 0}));
}

gert::OpIoInfo ProbeIo(bool with_bias) {
  std::vector<gert::OpIoInfo::Io> in(2), out(1);
  auto io = [](gert::Shape s, ge::DataType dt) {
    gert::OpIoInfo::Io r;
    r.present = true;
    r.shape = gert::StorageShape(s, s);
    r.desc = gert::CompileTimeTensorDesc(dt, ge::FORMAT_ND, ge::FORMAT_ND);
    r.tensor = gert::Tensor(r.shape, r.desc, nullptr);
    return r;
  };
  in[0] = io({4, 8}, ge::DT_FLOAT16);
  if (with_bias) in[1] = io({8}, ge::DT_FLOAT16);
  out[0] = io({4, 8}, ge::DT_FLOAT16);
  std::vector<gert::AttrValue> attrs;
  attrs.emplace_back(0.5f);
  attrs.emplace_back(std::vector<int64_t>{1, -1});
  attrs.emplace_back(std::string("bsh"));
  attrs.emplace_back(true);
  return gert::OpIoInfo("ProbeCustom", std::move(in), std::move(out), std::move(attrs));
}

TEST(TilingContextTest, InputsByPresentAndByIrIndex) {
  gert::TilingContext ctx(ProbeIo(false), 1024, fe::PlatFormInfos{});
  EXPECT_EQ(ctx.GetComputeNodeInputNum(), 1u);
  ASSERT_NE(ctx.GetInputShape(0), nullptr);
  EXPECT_EQ(ctx.GetInputShape(0)->GetStorageShape().GetDim(1), 8);
  EXPECT_EQ(ctx.GetInputShape(1), nullptr) << "the absent optional input is not counted";
  EXPECT_EQ(ctx.GetOptionalInputShape(1), nullptr);
  EXPECT_EQ(ctx.GetInputTensor(0)->GetShapeSize(), 32);
  EXPECT_EQ(ctx.GetInputDesc(0)->GetDataType(), ge::DT_FLOAT16);
  EXPECT_EQ(ctx.GetOutputShape(0)->GetOriginShape().GetShapeSize(), 32);
  EXPECT_EQ(ctx.GetOutputShape(1), nullptr);
  gert::TilingContext with(ProbeIo(true), 1024, fe::PlatFormInfos{});
  EXPECT_EQ(with.GetOptionalInputShape(1)->GetOriginShape().GetDim(0), 8);
  EXPECT_EQ(with.GetInputShape(1)->GetOriginShape().GetDim(0), 8);
  EXPECT_STREQ(with.GetNodeType(), "ProbeCustom");
}

TEST(TilingContextTest, AttrsByDeclarationOrder) {
  gert::TilingContext ctx(ProbeIo(false), 1024, fe::PlatFormInfos{});
  const gert::RuntimeAttrs* a = ctx.GetAttrs();
  ASSERT_EQ(a->GetAttrNum(), 4u);
  EXPECT_FLOAT_EQ(*a->GetFloat(0), 0.5f);
  EXPECT_EQ(a->GetInt(0), nullptr) << "wrong type gives nullptr";
  const gert::TypedContinuousVector<int64_t>* axes = a->GetListInt(1);
  ASSERT_NE(axes, nullptr);
  ASSERT_EQ(axes->GetSize(), 2u);
  EXPECT_EQ(axes->GetData()[1], -1);
  EXPECT_STREQ(a->GetStr(2), "bsh");
  EXPECT_TRUE(*a->GetBool(3));
  EXPECT_EQ(*a->GetAttrPointer<float>(0), 0.5f);
  EXPECT_EQ(a->GetFloat(9), nullptr);
}

TEST(TilingContextTest, KeyBlockDimWorkspaceAndTilingData) {
  gert::TilingContext ctx(ProbeIo(false), 64, fe::PlatFormInfos{});
  ctx.SetTilingKey(3);
  ctx.SetBlockDim(7);
  EXPECT_EQ(ctx.GetTilingKey(), 3u);
  EXPECT_EQ(ctx.GetSimdNumBlocks(), 7u);
  ctx.SetSimdNumBlocks(9);
  EXPECT_EQ(ctx.GetBlockDim(), 9u);
  size_t* ws = ctx.GetWorkspaceSizes(2);
  ASSERT_NE(ws, nullptr);
  ws[0] = 100;
  ws[1] = 28;
  EXPECT_EQ(ctx.GetWorkspaceNum(), 2u);
  EXPECT_EQ(ctx.GetWorkspaceSizes(17), nullptr);
  struct Plain {
    uint32_t a;
    uint32_t b;
  };
  Plain* p = ctx.GetTilingData<Plain>();
  ASSERT_NE(p, nullptr);
  p->b = 5;
  EXPECT_EQ(ctx.GetRawTilingData()->GetDataSize(), sizeof(Plain));
  struct Big {
    uint8_t bytes[65];
  };
  EXPECT_EQ(ctx.GetTilingData<Big>(), nullptr);
  gert::TilingData* raw = ctx.GetRawTilingData();
  raw->SetDataSize(56);
  EXPECT_EQ(raw->Append<uint64_t>(1), ge::GRAPH_SUCCESS);
  EXPECT_EQ(raw->Append<uint8_t>(1), ge::GRAPH_FAILED);
  EXPECT_EQ(raw->GetDataSize(), 64u);
}

TEST(TilingContextTest, PlatformIsTheDefaultChip) {
  gert::TilingContext ctx(ProbeIo(false), 64, fe::PlatFormInfos{});
  platform_ascendc::PlatformAscendC p(ctx.GetPlatformInfo());
  const platform_ascendc::PlatformAscendC def;
  EXPECT_EQ(p.GetCoreNumAiv(), def.GetCoreNumAiv());
  EXPECT_GT(p.GetCoreNum(), 0u);
  uint64_t ub = 0;
  p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  EXPECT_GT(ub, 0u);
}

TEST(InferContextTest, ShapesAndDataTypes) {
  gert::InferShapeContext s(ProbeIo(false));
  EXPECT_EQ(s.GetInputShape(0)->GetDim(0), 4);
  *s.GetOutputShape(0) = *s.GetInputShape(0);
  EXPECT_EQ(s.GetOutputShape(0)->GetShapeSize(), 32);
  EXPECT_EQ(s.GetOutputShape(1), nullptr);
  gert::InferDataTypeContext d(ProbeIo(false));
  EXPECT_EQ(d.GetInputDataType(0), ge::DT_FLOAT16);
  EXPECT_EQ(d.SetOutputDataType(0, ge::DT_FLOAT), ge::GRAPH_SUCCESS);
  EXPECT_EQ(d.GetOutputDataType(0), ge::DT_FLOAT);
  EXPECT_EQ(d.SetOutputDataType(1, ge::DT_FLOAT), ge::GRAPH_FAILED);
}

}  // namespace
