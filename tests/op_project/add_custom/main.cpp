// Calls AddCustom through its generated aclnn entry points, as a CANN application does: float
// (tiling key 1) and half (key 2) on two streams at once, shapes whose split over the cores leaves
// a shorter last core and a partial last tile, checked against a scalar loop; then the error
// paths (a null tensor, a size the tiling function refuses, a wrong output shape, a consumed
// executor). Prints "add_custom: ... check=pass" or "check=FAIL".
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn_add_custom.h"

namespace {

int g_failures = 0;

void Expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s (%s)\n", what, aclGetRecentErrMsg());
    ++g_failures;
  }
}

// A device buffer with an aclTensor over it.
struct Buffer {
  void* dev = nullptr;
  aclTensor* tensor = nullptr;
  size_t bytes = 0;
  Buffer(const std::vector<int64_t>& shape, aclDataType dtype, size_t elem) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    bytes = static_cast<size_t>(n) * elem;
    aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, ACL_FORMAT_ND,
                             shape.data(), shape.size(), dev);
  }
  ~Buffer() {
    aclDestroyTensor(tensor);
    aclrtFree(dev);
  }
};

struct Case {
  std::vector<int64_t> shape;
  bool half;
  aclrtStream stream;
  std::vector<float> x, y;
  Buffer *bx, *by, *bz;
};

void Fill(Case& c) {
  int64_t n = 1;
  for (int64_t d : c.shape) n *= d;
  c.x.resize(n);
  c.y.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    c.x[i] = static_cast<float>((i * 7) % 101) * 0.25f - 3.0f;
    c.y[i] = static_cast<float>((i * 13) % 97) * 0.5f + 1.0f;
  }
  const aclDataType dt = c.half ? ACL_FLOAT16 : ACL_FLOAT;
  const size_t elem = c.half ? 2 : 4;
  c.bx = new Buffer(c.shape, dt, elem);
  c.by = new Buffer(c.shape, dt, elem);
  c.bz = new Buffer(c.shape, dt, elem);
  if (c.half) {
    std::vector<aclFloat16> hx(n), hy(n);
    for (int64_t i = 0; i < n; ++i) {
      hx[i] = aclFloatToFloat16(c.x[i]);
      hy[i] = aclFloatToFloat16(c.y[i]);
    }
    aclrtMemcpy(c.bx->dev, c.bx->bytes, hx.data(), c.bx->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(c.by->dev, c.by->bytes, hy.data(), c.by->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  } else {
    aclrtMemcpy(c.bx->dev, c.bx->bytes, c.x.data(), c.bx->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(c.by->dev, c.by->bytes, c.y.data(), c.by->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  aclrtMemset(c.bz->dev, c.bz->bytes, 0xFF, c.bz->bytes);
}

int Verify(const Case& c) {
  const size_t n = c.x.size();
  int bad = 0;
  if (c.half) {
    std::vector<aclFloat16> hz(n);
    aclrtMemcpy(hz.data(), c.bz->bytes, c.bz->dev, c.bz->bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < n; ++i) {
      const float want =
          aclFloat16ToFloat(aclFloatToFloat16(aclFloat16ToFloat(aclFloatToFloat16(c.x[i])) +
                                              aclFloat16ToFloat(aclFloatToFloat16(c.y[i]))));
      if (std::fabs(aclFloat16ToFloat(hz[i]) - want) > 1e-3f * std::fabs(want) + 1e-3f) ++bad;
    }
  } else {
    std::vector<float> z(n);
    aclrtMemcpy(z.data(), c.bz->bytes, c.bz->dev, c.bz->bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < n; ++i) {
      if (z[i] != c.x[i] + c.y[i]) ++bad;
    }
  }
  return bad;
}

}  // namespace

int main() {
  Expect(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  Expect(aclnnInit(nullptr) == ACLNN_SUCCESS, "aclnnInit");
  Expect(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  aclrtStream s1 = nullptr, s2 = nullptr;
  aclrtCreateStream(&s1);
  aclrtCreateStream(&s2);

  // 200000 floats over 48 cores: 47 cores of 4168 and a last core of 4104, tiles of 2048 with a
  // partial last tile; 10016 halves: 46 cores of 224 and a last of 32.
  std::vector<Case> cases = {{{200000}, false, s1, {}, {}, nullptr, nullptr, nullptr},
                             {{313, 32}, true, s2, {}, {}, nullptr, nullptr, nullptr},
                             {{4, 10, 250}, false, s2, {}, {}, nullptr, nullptr, nullptr}};
  for (Case& c : cases) Fill(c);
  // Both phases of every case before any synchronisation: the launches on the two streams run
  // concurrently with different tiling keys.
  for (Case& c : cases) {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclnnStatus st =
        aclnnAddCustomGetWorkspaceSize(c.bx->tensor, c.by->tensor, c.bz->tensor, &ws, &exec);
    Expect(st == ACLNN_SUCCESS, "aclnnAddCustomGetWorkspaceSize");
    Expect(ws == 0, "workspace size 0");
    void* wsp = nullptr;
    if (ws > 0) aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    Expect(aclnnAddCustom(wsp, ws, exec, c.stream) == ACLNN_SUCCESS, "aclnnAddCustom");
  }
  Expect(aclrtSynchronizeStream(s1) == ACL_SUCCESS, "sync s1");
  Expect(aclrtSynchronizeStream(s2) == ACL_SUCCESS, "sync s2");
  int mismatches = 0;
  for (Case& c : cases) mismatches += Verify(c);
  Expect(mismatches == 0, "results match the reference");

  // Error paths.
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  Expect(aclnnAddCustomGetWorkspaceSize(nullptr, cases[0].by->tensor, cases[0].bz->tensor, &ws,
                                        &exec) == ACLNN_ERR_PARAM_NULLPTR,
         "null x -> 161001");
  Expect(std::strstr(aclGetRecentErrMsg(), "x is null") != nullptr, "message names x");
  {
    Buffer a({12}, ACL_FLOAT, 4), b({12}, ACL_FLOAT, 4), z({12}, ACL_FLOAT, 4);
    Expect(aclnnAddCustomGetWorkspaceSize(a.tensor, b.tensor, z.tensor, &ws, &exec) ==
               ACLNN_ERR_INNER_TILING_ERROR,
           "12 floats (not 32-byte aligned) -> 561002");
    Buffer z2({16}, ACL_FLOAT, 4), a2({8}, ACL_FLOAT, 4), b2({8}, ACL_FLOAT, 4);
    Expect(aclnnAddCustomGetWorkspaceSize(a2.tensor, b2.tensor, z2.tensor, &ws, &exec) ==
               ACLNN_ERR_PARAM_INVALID,
           "wrong output shape -> 161002");
    Buffer i1({8}, ACL_INT32, 4), i2({8}, ACL_INT32, 4), i3({8}, ACL_INT32, 4);
    Expect(aclnnAddCustomGetWorkspaceSize(i1.tensor, i2.tensor, i3.tensor, &ws, &exec) ==
               ACLNN_ERR_PARAM_INVALID,
           "int32 (not in the OpDef) -> 161002");
    Expect(aclnnAddCustomGetWorkspaceSize(a2.tensor, b2.tensor, a2.tensor, &ws, &exec) ==
               ACLNN_SUCCESS,
           "8 floats");
    Expect(aclnnAddCustom(nullptr, 0, exec, s1) == ACLNN_SUCCESS, "phase 2");
    Expect(aclnnAddCustom(nullptr, 0, exec, s1) == ACLNN_ERR_PARAM_INVALID,
           "phase 2 twice -> 161002");
    aclrtSynchronizeStream(s1);
  }

  for (Case& c : cases) {
    delete c.bx;
    delete c.by;
    delete c.bz;
  }
  aclrtDestroyStream(s1);
  aclrtDestroyStream(s2);
  aclrtResetDevice(0);
  aclnnFinalize();
  aclFinalize();
  std::printf("add_custom: %zu cases, %d mismatches, %d failed checks, check=%s\n", cases.size(),
              mismatches, g_failures, g_failures == 0 ? "pass" : "FAIL");
  return g_failures == 0 ? 0 : 1;
}
