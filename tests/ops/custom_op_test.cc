// Running an op project in-process through aicore::ops::CustomOpGetWorkspaceSize / CustomOpRun
// (what a generated aclnn entry point calls): attributes and defaults, the plain-struct tiling
// style, workspace checks, per-launch tiling keys on two streams, repeatable executors, kernel
// errors from the tiling macros and the kernel type, and the aclTensor descriptor checks.
#include "aicore/ops/op_project/custom_op.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "kernel_operator.h"
#include "register/op_def_registry.h"

namespace {

// The plain-struct tiling style: one struct shared by host and kernel.
struct ScaleTiling {
  uint32_t n;
  float alpha;
  int32_t read_extra;  // 1: the kernel reads a bigger struct than the host wrote
  int32_t aic_only;    // 1: the kernel declares KERNEL_TYPE_AIC_ONLY
};
struct BiggerTiling {
  ScaleTiling base;
  uint8_t more[64];
};

}  // namespace

namespace optiling {
static ge::graphStatus ScaleTilingFunc(gert::TilingContext* ctx) {
  const gert::RuntimeAttrs* attrs = ctx->GetAttrs();
  ScaleTiling* t = ctx->GetTilingData<ScaleTiling>();
  if (t == nullptr) return ge::GRAPH_FAILED;
  t->n = static_cast<uint32_t>(ctx->GetInputTensor(0)->GetShapeSize());
  t->alpha = *attrs->GetFloat(0);
  t->read_extra = std::string(attrs->GetStr(2)) == "extra";
  t->aic_only = std::string(attrs->GetStr(2)) == "aic";
  if (t->n == 7) return ge::GRAPH_FAILED;  // a refusal
  ctx->SetTilingKey(static_cast<uint64_t>(*attrs->GetInt(1)));
  ctx->SetBlockDim(2);
  size_t* ws = ctx->GetWorkspaceSizes(2);
  ws[0] = 200;
  ws[1] = 56;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaleCustom : public OpDef {
 public:
  explicit ScaleCustom(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("key_out")
        .ParamType(REQUIRED)
        .DataType({ge::DT_INT32})
        .Format({ge::FORMAT_ND})
        .InitValue(0);
    this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
    this->Attr("key").AttrType(REQUIRED).Int();
    this->Attr("flavor").AttrType(OPTIONAL).String("plain");
    this->AICore().SetTiling(optiling::ScaleTilingFunc).AddConfig("ascend910b");
  }
};
OP_ADD(ScaleCustom);
}  // namespace ops

// y = alpha * x over two blocks; block 0 writes the launch's tiling key to key_out[0].
extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR key_out,
                                                   GM_ADDR workspace, GM_ADDR tiling) {
  REGISTER_TILING_DEFAULT(ScaleTiling);
  GET_TILING_DATA_MEMBER(ScaleTiling, aic_only, aic_only, tiling);
  if (aic_only) KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
  KERNEL_TASK_TYPE(5, KERNEL_TYPE_AIV_ONLY);
  GET_TILING_DATA(t, tiling);
  if (t.read_extra) {
    GET_TILING_DATA_WITH_STRUCT(BiggerTiling, big, tiling);
    (void)big;
  }
  GET_TILING_DATA_PTR_WITH_STRUCT(ScaleTiling, tp, tiling);
  AscendC::GlobalTensor<float> xs, ys;
  xs.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), t.n);
  ys.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), t.n);
  const uint32_t half = (t.n + 1) / 2;
  const uint32_t begin = AscendC::GetBlockIdx() * half;
  const uint32_t end = begin + half < t.n ? begin + half : t.n;
  for (uint32_t i = begin; i < end; ++i) ys.SetValue(i, tp->alpha * xs.GetValue(i));
  if (AscendC::GetBlockIdx() == 0) {
    AscendC::GlobalTensor<int32_t> k;
    k.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(key_out), 1);
    k.SetValue(0, static_cast<int32_t>(TILING_KEY_VAR));
  }
  (void)workspace;
}

namespace {

void ScaleEntry(uint8_t* const* a) { scale_custom(a[0], a[1], a[2], a[3], a[4]); }
const aicore::ops::CustomOpKernel kScaleKernel{"scale_custom", &ScaleEntry,
                                               aicore::KernelMode::kAiv};

// alpha 1, key 1, flavor default.
std::vector<std::optional<gert::AttrValue>> PlainAttrs() {
  std::vector<std::optional<gert::AttrValue>> attrs(3);
  attrs[0].emplace(1.0f);
  attrs[1].emplace(int64_t{1});
  return attrs;
}

struct Dev {
  void* p = nullptr;
  aclTensor* t = nullptr;
  Dev(int64_t n, aclDataType dt) {
    EXPECT_EQ(aclrtMalloc(&p, n * 4 + 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    t = aclCreateTensor(&n, 1, dt, nullptr, 0, ACL_FORMAT_ND, &n, 1, p);
  }
  ~Dev() {
    aclDestroyTensor(t);
    aclrtFree(p);
  }
  float* f() { return static_cast<float*>(p); }
  int32_t* i() { return static_cast<int32_t*>(p); }
};

class CustomOpTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS); }

  aclnnStatus Phase1(Dev& x, Dev& y, Dev& k, std::optional<float> alpha, int64_t key,
                     const char* flavor, uint64_t* ws, aclOpExecutor** ex) {
    std::vector<std::optional<gert::AttrValue>> attrs(3);
    if (alpha) attrs[0].emplace(*alpha);
    attrs[1].emplace(key);
    if (flavor) attrs[2].emplace(std::string(flavor));
    return aicore::ops::CustomOpGetWorkspaceSize("aclnnScaleCustomGetWorkspaceSize", "ScaleCustom",
                                                 kScaleKernel, {x.t}, {y.t, k.t}, std::move(attrs),
                                                 ws, ex);
  }
};

TEST_F(CustomOpTest, RunsWithAttributesDefaultsAndWorkspace) {
  Dev x(9, ACL_FLOAT), y(9, ACL_FLOAT), k(1, ACL_INT32);
  for (int i = 0; i < 9; ++i) x.f()[i] = static_cast<float>(i);
  k.i()[0] = -1;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(Phase1(x, y, k, std::nullopt, 5, nullptr, &ws, &ex), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 256u) << "the sum of the tiling function's workspace sizes";
  void* wsp = nullptr;
  ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, 255, ex, nullptr),
            ACLNN_ERR_PARAM_INVALID)
      << "a workspace smaller than asked";
  EXPECT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", nullptr, 256, ex, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  ASSERT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, ex, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (int i = 0; i < 9; ++i) EXPECT_EQ(y.f()[i], static_cast<float>(i)) << "alpha defaults to 1";
  EXPECT_EQ(k.i()[0], 5);
  EXPECT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, ex, nullptr),
            ACLNN_ERR_PARAM_INVALID)
      << "phase 2 consumed the executor";
  EXPECT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, nullptr, nullptr),
            ACLNN_ERR_INNER_NULLPTR);
  aclrtFree(wsp);
}

TEST_F(CustomOpTest, EachLaunchSeesItsOwnTilingKeyAcrossStreams) {
  aclrtStream s[2];
  ASSERT_EQ(aclrtCreateStream(&s[0]), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&s[1]), ACL_SUCCESS);
  constexpr int kRounds = 8;
  std::vector<std::unique_ptr<Dev>> xs, ys, ks;
  void* wsp = nullptr;
  ASSERT_EQ(aclrtMalloc(&wsp, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  for (int r = 0; r < 2 * kRounds; ++r) {
    xs.push_back(std::make_unique<Dev>(64, ACL_FLOAT));
    ys.push_back(std::make_unique<Dev>(64, ACL_FLOAT));
    ks.push_back(std::make_unique<Dev>(1, ACL_INT32));
    for (int i = 0; i < 64; ++i) xs.back()->f()[i] = 1.0f;
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(Phase1(*xs.back(), *ys.back(), *ks.back(), static_cast<float>(r), 100 + r, "plain",
                     &ws, &ex),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, ex, s[r % 2]), ACLNN_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(s[0]), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(s[1]), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (int r = 0; r < 2 * kRounds; ++r) {
    EXPECT_EQ(ks[r]->i()[0], 100 + r) << "launch " << r;
    EXPECT_EQ(ys[r]->f()[63], static_cast<float>(r)) << "launch " << r;
  }
  aclrtFree(wsp);
  aclrtDestroyStream(s[0]);
  aclrtDestroyStream(s[1]);
}

TEST_F(CustomOpTest, RepeatableExecutorWithNewAddresses) {
  Dev x(4, ACL_FLOAT), y(4, ACL_FLOAT), y2(4, ACL_FLOAT), k(1, ACL_INT32);
  for (int i = 0; i < 4; ++i) x.f()[i] = 2.0f;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(Phase1(x, y, k, 3.0f, 1, "plain", &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  void* wsp = nullptr;
  ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, ex, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, y2.t, y2.p), ACLNN_SUCCESS);
  EXPECT_EQ(aclSetOutputTensorAddr(ex, 2, y2.t, y2.p), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, ex, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(y.f()[3], 6.0f);
  EXPECT_EQ(y2.f()[3], 6.0f);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR);
  aclrtFree(wsp);
}

TEST_F(CustomOpTest, KernelErrorsFromTilingMacrosAndKernelType) {
  Dev x(4, ACL_FLOAT), y(4, ACL_FLOAT), k(1, ACL_INT32);
  void* wsp = nullptr;
  ASSERT_EQ(aclrtMalloc(&wsp, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  for (const char* flavor : {"extra", "aic"}) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(Phase1(x, y, k, 1.0f, 1, flavor, &ws, &ex), ACLNN_SUCCESS);
    ASSERT_EQ(aicore::ops::CustomOpRun("aclnnScaleCustom", wsp, ws, ex, nullptr), ACLNN_SUCCESS);
    EXPECT_NE(aclrtSynchronizeDevice(), ACL_SUCCESS);
    const std::string msg = aclGetRecentErrMsg();
    EXPECT_NE(msg.find("scale_custom"), std::string::npos) << msg;
    if (std::string(flavor) == "extra") {
      EXPECT_NE(msg.find("GET_TILING_DATA"), std::string::npos) << msg;
      EXPECT_NE(msg.find("BiggerTiling"), std::string::npos) << msg;
    } else {
      EXPECT_NE(msg.find("KERNEL_TYPE_AIC_ONLY"), std::string::npos) << msg;
    }
  }
  aclrtFree(wsp);
}

TEST_F(CustomOpTest, PhaseOneErrorsHaveTheDocumentedCodes) {
  Dev x(7, ACL_FLOAT), y(7, ACL_FLOAT), k(1, ACL_INT32), i(7, ACL_INT32);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(Phase1(x, y, k, 1.0f, 1, "plain", &ws, &ex), ACLNN_ERR_INNER_TILING_ERROR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("tiling function of ScaleCustom"),
            std::string::npos);
  EXPECT_EQ(Phase1(i, y, k, 1.0f, 1, "plain", &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("x=DT_INT32"), std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(Phase1(x, y, k, 1.0f, 1, "plain", nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR);
  std::vector<std::optional<gert::AttrValue>> attrs(3);
  EXPECT_EQ(aicore::ops::CustomOpGetWorkspaceSize("api", "ScaleCustom", kScaleKernel, {x.t},
                                                  {y.t, k.t}, attrs, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID)
      << "the required attribute key is missing";
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("key"), std::string::npos);
  EXPECT_EQ(aicore::ops::CustomOpGetWorkspaceSize("api", "ScaleCustom", kScaleKernel, {nullptr},
                                                  {y.t, k.t}, attrs, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aicore::ops::CustomOpGetWorkspaceSize("api", "NoSuchCustom", kScaleKernel, {x.t},
                                                  {y.t, k.t}, attrs, &ws, &ex),
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  // Rank 9, and a non-contiguous view.
  std::vector<int64_t> dims9(9, 1);
  aclTensor* r9 =
      aclCreateTensor(dims9.data(), 9, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims9.data(), 9, x.p);
  ASSERT_NE(r9, nullptr);
  EXPECT_EQ(aicore::ops::CustomOpGetWorkspaceSize("api", "ScaleCustom", kScaleKernel, {r9},
                                                  {y.t, k.t}, PlainAttrs(), &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(r9);
  const int64_t view[2] = {2, 3}, strides[2] = {1, 2}, storage[1] = {6};
  aclTensor* tr = aclCreateTensor(view, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, x.p);
  ASSERT_NE(tr, nullptr);
  EXPECT_EQ(aicore::ops::CustomOpGetWorkspaceSize("api", "ScaleCustom", kScaleKernel, {tr},
                                                  {y.t, k.t}, PlainAttrs(), &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not contiguous"), std::string::npos);
  aclDestroyTensor(tr);
}

TEST(AclMetaTest, CreateTensorValidatesAndGettersCopy) {
  float buf[12] = {};
  const int64_t dims[2] = {3, 4};
  const int64_t neg[2] = {3, -4};
  EXPECT_EQ(aclCreateTensor(neg, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, buf), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("negative"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, buf),
            nullptr);
  const int64_t small[1] = {11};
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, small, 1, buf), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("past the storage"), std::string::npos);
  const int64_t bad_stride[2] = {4, -1};
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, bad_stride, 0, ACL_FORMAT_ND, dims, 2, buf),
            nullptr);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, -1, ACL_FORMAT_ND, dims, 2, buf), nullptr);

  // The torch_npu convention: 1-D storage of the storage's element count, view strides, offset.
  const int64_t storage[1] = {14};
  const int64_t strides[2] = {1, 3};
  aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 2, ACL_FORMAT_ND, storage, 1, buf);
  ASSERT_NE(t, nullptr) << aclGetRecentErrMsg();
  int64_t* got = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewStrides(t, &got, &n), ACLNN_SUCCESS);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(got[1], 3);
  delete[] got;
  ASSERT_EQ(aclGetStorageShape(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(got[0], 14);
  delete[] got;
  int64_t off = 0;
  EXPECT_EQ(aclGetViewOffset(t, &off), ACLNN_SUCCESS);
  EXPECT_EQ(off, 2);
  EXPECT_EQ(aclGetViewShape(nullptr, &got, &n), ACLNN_ERR_PARAM_NULLPTR);
  aclDataType dt{};
  EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_FLOAT);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);

  // Contiguous strides when none are given, and 0-d tensors.
  aclTensor* c = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, buf);
  ASSERT_EQ(aclGetViewStrides(c, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(got[0], 4);
  EXPECT_EQ(got[1], 1);
  delete[] got;
  aclDestroyTensor(c);
  aclTensor* scalar0d =
      aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, buf);
  EXPECT_NE(scalar0d, nullptr);
  aclDestroyTensor(scalar0d);
}

TEST(AclMetaTest, ScalarsArraysAndLists) {
  float v = 2.5f;
  aclScalar* s = aclCreateScalar(&v, ACL_FLOAT);
  ASSERT_NE(s, nullptr);
  v = 0;  // copied at creation
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  const int64_t ints[3] = {1, 2, 3};
  aclIntArray* ia = aclCreateIntArray(ints, 3);
  uint64_t n = 0;
  EXPECT_EQ(aclGetIntArraySize(ia, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  const bool bs[2] = {true, false};
  aclBoolArray* ba = aclCreateBoolArray(bs, 2);
  EXPECT_EQ(aclGetBoolArraySize(ba, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 2u);
  aclFloatArray* fa = aclCreateFloatArray(&v, 1);
  float buf[4] = {};
  const int64_t d = 4;
  const aclTensor* elems[2] = {
      aclCreateTensor(&d, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &d, 1, buf),
      aclCreateTensor(&d, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &d, 1, buf)};
  aclTensorList* list = aclCreateTensorList(elems, 2);
  EXPECT_EQ(aclGetTensorListSize(list, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);  // destroys the elements too
  const aclScalar* sl[1] = {s};
  aclScalarList* slist = aclCreateScalarList(sl, 1);
  EXPECT_EQ(aclDestroyScalarList(slist), ACLNN_SUCCESS);
  aclDestroyIntArray(ia);
  aclDestroyBoolArray(ba);
  aclDestroyFloatArray(fa);
}

}  // namespace
