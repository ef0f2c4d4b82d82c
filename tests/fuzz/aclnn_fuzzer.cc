// libFuzzer target: the aclnn descriptor API. The input describes up to three tensors (view
// shape, element strides or none, offset, storage shape, dtype, format, a storage buffer or
// none), an int array, a scalar, and which operators see them (aclnnSoftmax, aclnnAdd,
// aclnnLayerNorm phase 1; phase 2 on the default stream when every tensor has real storage).
// Invariants: nothing crashes, overflows, leaks or reads outside a storage buffer (ASan, UBSan,
// LeakSanitizer); aclCreateTensor accepts exactly the descriptors the independent check below
// calls valid — in particular a view that reaches outside its storage is rejected with
// nullptr and "[aclnnStatus 161002]" in aclGetRecentErrMsg — and the getters return what was
// given; every phase 1 result is a documented status with an executor exactly on success.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "aicore/runtime/launch.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "aclnn_fuzzer: %s (aclGetRecentErrMsg: %s)\n", what,
                 aclGetRecentErrMsg());
    __builtin_trap();
  }
}

// Storage buffers phase 2 may touch at most; larger storages get no buffer.
constexpr int64_t kMaxStorageBytes = int64_t{1} << 16;
constexpr int64_t kMaxPhase2Elements = 4096;

struct Spec {
  std::vector<int64_t> view, strides, storage;
  bool has_strides = false;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  bool null_view = false, null_storage = false;  // a null pointer with a count above 0
};

size_t ItemSize(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32:
      return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: case ACL_COMPLEX32:
      return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: case ACL_HIFLOAT8: case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN: case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

int64_t Dim(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return in.ConsumeIntegral<int64_t>();  // anything: negative, huge
    case 1:
      return int64_t{1} << in.ConsumeIntegralInRange<int>(20, 62);
    default:
      return in.ConsumeIntegralInRange<int64_t>(0, 33);
  }
}

Spec MakeSpec(FuzzedDataProvider& in) {
  Spec s;
  const bool wide = in.ConsumeIntegralInRange<int>(0, 15) == 0;
  const size_t rank = in.ConsumeIntegralInRange<size_t>(0, wide ? 27 : 4);
  for (size_t i = 0; i < rank; ++i) s.view.push_back(Dim(in));
  s.has_strides = in.ConsumeBool();
  if (s.has_strides) {
    for (size_t i = 0; i < rank; ++i) s.strides.push_back(Dim(in));
  }
  s.offset = in.ConsumeBool() ? 0 : Dim(in);
  if (in.ConsumeBool()) {
    // Storage of exactly the contiguous view (the common case), saturated on overflow.
    int64_t n = 1;
    for (int64_t d : s.view) n = __builtin_mul_overflow(n, d, &n) ? INT64_MAX : n;
    s.storage.push_back(n);
  } else {
    const size_t srank = in.ConsumeIntegralInRange<size_t>(0, wide ? 27 : 3);
    for (size_t i = 0; i < srank; ++i) s.storage.push_back(Dim(in));
  }
  static constexpr aclDataType kCommon[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT32};
  s.dtype = in.ConsumeBool() ? kCommon[in.ConsumeIntegralInRange<int>(0, 3)]
                             : static_cast<aclDataType>(in.ConsumeIntegralInRange<int>(-2, 40));
  s.format = in.ConsumeBool() ? ACL_FORMAT_ND
                              : static_cast<aclFormat>(in.ConsumeIntegralInRange<int>(-2, 60));
  s.null_view = !s.view.empty() && in.ConsumeIntegralInRange<int>(0, 31) == 0;
  s.null_storage = !s.storage.empty() && in.ConsumeIntegralInRange<int>(0, 31) == 0;
  return s;
}

// The contract, computed independently with 128-bit arithmetic: at most 25 dims each, known
// dtype, no negative dim, stride or offset, the non-zero dims of the storage and of the view
// multiplying to at most INT64_MAX bytes each, and (for a non-empty view) a last element inside
// the storage.
bool Valid(const Spec& s) {
  using I = __int128;
  const I kMax = INT64_MAX;
  if (s.null_view || s.null_storage || s.view.size() > 25 || s.storage.size() > 25) return false;
  const size_t item = ItemSize(s.dtype);
  if (item == 0 || s.offset < 0) return false;
  for (int64_t d : s.view) if (d < 0) return false;
  for (int64_t d : s.storage) if (d < 0) return false;
  for (int64_t d : s.strides) if (d < 0) return false;
  // Returns the product of the non-zero dims, saturated past kMax, and whether a dim is 0.
  auto nonzero = [kMax](const std::vector<int64_t>& dims, bool* empty) {
    I p = 1;
    *empty = false;
    for (int64_t d : dims) {
      if (d == 0) {
        *empty = true;
      } else {
        p = p * d > kMax ? kMax + 1 : p * d;
      }
    }
    return p;
  };
  bool storage_empty, view_empty;
  const I storage_nz = nonzero(s.storage, &storage_empty);
  const I view_nz = nonzero(s.view, &view_empty);
  if (storage_nz * item > kMax || view_nz * item > kMax) return false;
  if (view_empty) return true;
  const I storage = storage_empty ? 0 : storage_nz;
  I last = s.offset;
  I stride = 1;
  for (size_t i = s.view.size(); i-- > 0;) {
    const I st = s.has_strides ? I(s.strides[i]) : stride;
    last += I(s.view[i] - 1) * st;
    if (last > kMax) return false;
    stride *= s.view[i];
  }
  return last < storage;
}

// A created tensor with its storage buffer (or none).
struct Made {
  Spec spec;
  aclTensor* tensor = nullptr;
  std::unique_ptr<uint8_t[]> storage;
  int64_t numel = 0;
};

Made Create(FuzzedDataProvider& in) {
  Made m;
  m.spec = MakeSpec(in);
  const Spec& s = m.spec;
  const bool valid = Valid(s);
  int64_t storage_bytes = -1;
  if (valid) {  // both fit int64 then, but a partial product need not (a 0 dim comes last)
    __int128 bytes = ItemSize(s.dtype), numel = 1;
    for (int64_t d : s.storage) bytes = bytes > INT64_MAX ? bytes * (d != 0) : bytes * d;
    for (int64_t d : s.view) numel = numel > INT64_MAX ? numel * (d != 0) : numel * d;
    storage_bytes = static_cast<int64_t>(bytes);
    m.numel = static_cast<int64_t>(numel);
  }
  // Exactly the storage's bytes, so ASan sees any access past it.
  if (valid && storage_bytes > 0 && storage_bytes <= kMaxStorageBytes && in.ConsumeBool()) {
    m.storage.reset(new uint8_t[storage_bytes]);
    std::memset(m.storage.get(), 0, storage_bytes);
  }
  aicore::detail::SetRecentErrMsg("");
  m.tensor = aclCreateTensor(s.null_view ? nullptr : s.view.data(), s.view.size(), s.dtype,
                             s.has_strides ? s.strides.data() : nullptr, s.offset, s.format,
                             s.null_storage ? nullptr : s.storage.data(), s.storage.size(),
                             m.storage.get());
  Check((m.tensor != nullptr) == valid, valid ? "a valid descriptor was rejected"
                                              : "an invalid descriptor was accepted");
  if (m.tensor == nullptr) {
    const std::string msg = aclGetRecentErrMsg();
    Check(msg.rfind("aclCreateTensor: ", 0) == 0, "the error does not name aclCreateTensor");
    Check(msg.find("[aclnnStatus 161002]") != std::string::npos, "the error is not 161002");
    return m;
  }
  int64_t* got = nullptr;
  uint64_t n = 0;
  Check(aclGetViewShape(m.tensor, &got, &n) == ACLNN_SUCCESS, "aclGetViewShape failed");
  Check(n == s.view.size() && std::equal(s.view.begin(), s.view.end(), got), "view shape");
  delete[] got;
  Check(aclGetViewStrides(m.tensor, &got, &n) == ACLNN_SUCCESS, "aclGetViewStrides failed");
  Check(n == s.view.size(), "stride count");
  if (s.has_strides) Check(std::equal(s.strides.begin(), s.strides.end(), got), "strides");
  delete[] got;
  Check(aclGetStorageShape(m.tensor, &got, &n) == ACLNN_SUCCESS, "aclGetStorageShape failed");
  Check(n == s.storage.size() && std::equal(s.storage.begin(), s.storage.end(), got), "storage");
  delete[] got;
  int64_t offset = -1;
  aclDataType dt;
  aclFormat fmt;
  Check(aclGetViewOffset(m.tensor, &offset) == ACLNN_SUCCESS && offset == s.offset, "offset");
  Check(aclGetDataType(m.tensor, &dt) == ACLNN_SUCCESS && dt == s.dtype, "dtype");
  Check(aclGetFormat(m.tensor, &fmt) == ACLNN_SUCCESS && fmt == s.format, "format");
  return m;
}

bool Documented(aclnnStatus s) {
  return s == ACLNN_SUCCESS || s == ACLNN_ERR_PARAM_NULLPTR || s == ACLNN_ERR_PARAM_INVALID ||
         s == ACLNN_ERR_RUNTIME_ERROR || (s >= ACLNN_ERR_INNER && s <= 561119);
}

// Runs phase 2 of `executor` when every tensor has small real storage, else destroys it.
void Finish(FuzzedDataProvider& in, aclnnStatus phase1, aclOpExecutor* executor,
            uint64_t workspace_size, const std::vector<const Made*>& tensors,
            aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  Check(Documented(phase1), "phase 1 returned an undocumented status");
  Check((phase1 == ACLNN_SUCCESS) == (executor != nullptr), "an executor without success");
  if (executor == nullptr) {
    Check(std::strlen(aclGetRecentErrMsg()) > 0, "a failure without a message");
    return;
  }
  bool runnable = workspace_size <= (uint64_t{1} << 24) && in.ConsumeBool();
  for (const Made* m : tensors) {
    runnable = runnable && m->storage != nullptr && m->numel <= kMaxPhase2Elements;
  }
  if (!runnable) {
    Check(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor failed");
    return;
  }
  std::vector<uint8_t> workspace(workspace_size);
  const aclnnStatus s = phase2(workspace.data(), workspace_size, executor, nullptr);
  Check(Documented(s), "phase 2 returned an undocumented status");
  (void)aclrtSynchronizeStream(nullptr);  // a kernel error is a result, not a crash
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("AICORE_THREADS", "2", 0);
  setenv("AICORE_LOG_LEVEL", "error", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Made t[3];
  for (Made& m : t) m = Create(in);

  // aclInitTensor on a created tensor: accepted exactly when valid, unchanged when rejected.
  if (t[0].tensor != nullptr && in.ConsumeBool()) {
    const Spec s = MakeSpec(in);
    const aclnnStatus st = aclInitTensor(t[0].tensor, s.null_view ? nullptr : s.view.data(),
                                         s.view.size(), s.dtype,
                                         s.has_strides ? s.strides.data() : nullptr, s.offset,
                                         s.format, s.null_storage ? nullptr : s.storage.data(),
                                         s.storage.size(), nullptr);
    Check((st == ACLNN_SUCCESS) == Valid(s), "aclInitTensor disagrees with aclCreateTensor");
    if (st != ACLNN_SUCCESS) {
      Check(st == ACLNN_ERR_PARAM_INVALID, "aclInitTensor's error is not 161002");
      uint64_t n = 0;
      int64_t* got = nullptr;
      Check(aclGetViewShape(t[0].tensor, &got, &n) == ACLNN_SUCCESS && n == t[0].spec.view.size(),
            "a rejected aclInitTensor changed the tensor");
      delete[] got;
    } else {
      t[0].spec = s;
      t[0].storage.reset();  // the tensor now has no storage buffer
      t[0].numel = kMaxPhase2Elements + 1;
    }
  }

  std::vector<int64_t> ints(in.ConsumeIntegralInRange<size_t>(0, 12));
  for (int64_t& v : ints) v = in.ConsumeIntegralInRange<int64_t>(-3, 40);
  const bool null_ints = !ints.empty() && in.ConsumeIntegralInRange<int>(0, 15) == 0;
  aclIntArray* array = aclCreateIntArray(null_ints ? nullptr : ints.data(), ints.size());
  Check((array == nullptr) == null_ints, "aclCreateIntArray");
  if (array != nullptr) {
    uint64_t n = 0;
    Check(aclGetIntArraySize(array, &n) == ACLNN_SUCCESS && n == ints.size(), "int array size");
  }

  uint8_t value[16] = {};
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(16);
  if (!bytes.empty()) std::memcpy(value, bytes.data(), bytes.size());
  const auto scalar_dtype = in.ConsumeBool()
                                ? ACL_FLOAT
                                : static_cast<aclDataType>(in.ConsumeIntegralInRange<int>(-2, 40));
  const bool null_value = in.ConsumeIntegralInRange<int>(0, 15) == 0;
  aclScalar* scalar = aclCreateScalar(null_value ? nullptr : value, scalar_dtype);
  Check((scalar != nullptr) == (!null_value && ItemSize(scalar_dtype) != 0), "aclCreateScalar");

  const int ops = in.ConsumeIntegralInRange<int>(1, 2);
  for (int k = 0; k < ops; ++k) {
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    const int a = in.ConsumeIntegralInRange<int>(0, 2), b = in.ConsumeIntegralInRange<int>(0, 2);
    aicore::detail::SetRecentErrMsg("");
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: {
        const int64_t dim = in.ConsumeIntegralInRange<int64_t>(-10, 10);
        const aclnnStatus s = aclnnSoftmaxGetWorkspaceSize(t[a].tensor, dim, t[b].tensor, &ws,
                                                           &exec);
        Finish(in, s, exec, ws, {&t[a], &t[b]}, aclnnSoftmax);
        break;
      }
      case 1: {
        const int c = in.ConsumeIntegralInRange<int>(0, 2);
        const aclnnStatus s =
            aclnnAddGetWorkspaceSize(t[a].tensor, t[b].tensor, scalar, t[c].tensor, &ws, &exec);
        Finish(in, s, exec, ws, {&t[a], &t[b], &t[c]}, aclnnAdd);
        break;
      }
      default: {
        const aclnnStatus s = aclnnLayerNormGetWorkspaceSize(
            t[a].tensor, array, in.ConsumeBool() ? t[2].tensor : nullptr, nullptr, 1e-5,
            t[b].tensor, nullptr, nullptr, &ws, &exec);
        Finish(in, s, exec, ws, {&t[a], &t[b], &t[2]}, aclnnLayerNorm);
        break;
      }
    }
  }
  for (Made& m : t) Check(aclDestroyTensor(m.tensor) == ACLNN_SUCCESS, "aclDestroyTensor");
  Check(aclDestroyIntArray(array) == ACLNN_SUCCESS, "aclDestroyIntArray");
  Check(aclDestroyScalar(scalar) == ACLNN_SUCCESS, "aclDestroyScalar");
  return 0;
}
