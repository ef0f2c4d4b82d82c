// The op-project generator (GenerateAclnnSources): aclnn prototypes with CANN's parameter naming
// and attribute types, and the kernel-side structs of macro tiling classes (padding, arrays,
// nested structs, TCubeTiling, SoftMaxTiling), DTYPE_<ARG> macros and the kernel type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "aicore/ops/op_project/custom_op.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GenInner)
  TILING_DATA_FIELD_DEF(uint16_t, a);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(GenTiling)
  TILING_DATA_FIELD_DEF(uint8_t, flag);
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 3, dims);
  TILING_DATA_FIELD_DEF_STRUCT(GenInner, inner);
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cube);
  TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmax);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(GenProbeCustom, GenTiling)
REGISTER_TILING_DATA_CLASS(GenProbeCustom_2, GenInner)
static ge::graphStatus GenTilingFunc(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }
}  // namespace optiling

namespace ops {
class GenProbeCustom : public OpDef {
 public:
  explicit GenProbeCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
    this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
    this->Output("y_val").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
    this->Output("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
    this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
    this->Attr("num_heads").AttrType(REQUIRED).Int();
    this->Attr("layout").AttrType(OPTIONAL).String("BSH");
    this->Attr("keep").AttrType(REQUIRED).Bool();
    this->Attr("axes").AttrType(OPTIONAL).ListInt({0});
    this->AICore().SetTiling(optiling::GenTilingFunc);
  }
};
OP_ADD(GenProbeCustom);
}  // namespace ops

namespace {

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GeneratorTest, WritesEntryPointsAndKernelStructs) {
  const auto dir = std::filesystem::temp_directory_path() / "aicore_generator_test";
  std::filesystem::remove_all(dir);
  std::string out = dir.string();
  std::string k1 = "gen_probe_custom=KERNEL_TYPE_MIX_AIC_1_2=gen_probe_custom";
  char a0[] = "gen", a2[] = "--kernel";
  char* argv[] = {a0, out.data(), a2, k1.data()};
  ASSERT_EQ(aicore::ops::GenerateAclnnSources(4, argv), 0);

  const std::string h = Slurp(dir / "include" / "aclnn_gen_probe_custom.h");
  EXPECT_NE(h.find("aclnnStatus aclnnGenProbeCustomGetWorkspaceSize(const aclTensor* x, "
                   "const aclTensor* biasOptional, double alpha, int64_t numHeads, "
                   "char* layoutOptional, bool keep, const aclIntArray* axesOptional, "
                   "const aclTensor* yValOut, const aclTensor* xRef, uint64_t* workspaceSize, "
                   "aclOpExecutor** executor);"),
            std::string::npos) << h;
  EXPECT_NE(h.find("aclnnStatus aclnnGenProbeCustom(void* workspace, uint64_t workspaceSize, "
                   "aclOpExecutor* executor, aclrtStream stream);"),
            std::string::npos);
  const std::string c = Slurp(dir / "src" / "aclnn_gen_probe_custom.cpp");
  EXPECT_NE(c.find("aicore::KernelMode::kMix"), std::string::npos) << c;
  EXPECT_NE(c.find("gen_probe_custom(a[0], a[1], a[2], a[3], a[4], a[5])"), std::string::npos);

  const std::string k = Slurp(dir / "kernel" / "gen_probe_custom_tiling_defs.h");
  EXPECT_NE(k.find("#define DTYPE_X half"), std::string::npos) << k;
  EXPECT_NE(k.find("#define DTYPE_Y_VAL half"), std::string::npos);
  EXPECT_NE(k.find("struct GenInner {\n  uint16_t a;\n  uint8_t aicore_pad0[6];\n};"),
            std::string::npos) << k;
  EXPECT_NE(k.find("  uint8_t flag;\n  uint8_t aicore_pad0[3];\n  uint32_t dims[3];\n"
                   "  GenInner inner;\n  AscendC::tiling::TCubeTiling cube;\n"),
            std::string::npos) << k;
  EXPECT_NE(k.find("static_assert(offsetof(GenTiling, cube) == 24);"), std::string::npos) << k;
  EXPECT_NE(k.find("#include \"aicore/kernel/lib/matmul/matmul_tiling_data.h\""), std::string::npos);
  // A high-level API's tiling struct is the kernel's POD, declared by its own header.
  EXPECT_NE(k.find("  AscendC::tiling::SoftMaxTiling softmax;\n"), std::string::npos) << k;
  EXPECT_NE(k.find("#include \"aicore/kernel/lib/activation/softmax_utils.h\""),
            std::string::npos);
  EXPECT_NE(k.find("using AicoreDefaultTilingData = GenTiling;"), std::string::npos);
  optiling::GenTiling host;
  EXPECT_NE(k.find("static_assert(sizeof(GenTiling) == " + std::to_string(host.GetDataSize())),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
