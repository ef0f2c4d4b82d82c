// The aclnn descriptor API: creation with validation, getters, destruction, executor reuse, and
// aclnnInit / aclnnFinalize. No exception crosses the C boundary.
#include <atomic>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "aclnn/aclnn_base.h"
#include "aicore/core/log.h"
#include "aicore/ops/aclnn/descriptors.h"
#include "aicore/runtime/launch.h"

namespace aicore::ops {

namespace {

constexpr uint64_t kMaxTensorDims = 25;  // gert::Shape::kMaxDimNum
constexpr uint64_t kMaxOpRank = 8;

std::mutex g_live_mu;
std::unordered_set<const aclOpExecutor*>& Live() {
  static auto* live = new std::unordered_set<const aclOpExecutor*>();
  return *live;
}
bool IsLive(const aclOpExecutor* e) {
  std::lock_guard<std::mutex> lk(g_live_mu);
  return Live().count(e) != 0;
}
// Note [Executor quarantine]
// A consumed or destroyed executor leaves the live set at once, but its memory is freed only
// after kQuarantine later ones: until then the heap cannot hand its address to a new executor, so
// a stale handle (phase 2 twice with another phase 1 in between) is refused as "already run"
// instead of running whatever executor took its place. The held shells are emptied first.
constexpr size_t kQuarantine = 4096;

std::deque<aclOpExecutor*>& Quarantine() {
  static auto* q = new std::deque<aclOpExecutor*>();
  return *q;
}

// Makes `e` dead and quarantines it (it must be live).
void Retire(aclOpExecutor* e) {
  e->run = nullptr;
  e->recheck = nullptr;
  e->input_bases.clear();
  e->output_bases.clear();
  aclOpExecutor* oldest = nullptr;
  {
    std::lock_guard<std::mutex> lk(g_live_mu);
    Live().erase(e);
    Quarantine().push_back(e);
    if (Quarantine().size() > kQuarantine) {
      oldest = Quarantine().front();
      Quarantine().pop_front();
    }
  }
  delete oldest;
}

std::string Dims(const int64_t* d, uint64_t n) {
  std::string s = "[";
  for (uint64_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// Stores the product of dims[0, n) (each >= 0) in `*count` and returns true, or returns false
// when the product of the non-zero dims exceeds `limit`. Bounding the non-zero dims (not only the
// product, which a zero dim makes 0) keeps every partial product of the dims, in any order and
// with any subset, inside int64 for the code that computes them later (strides, row counts).
bool CountElements(const int64_t* dims, uint64_t n, int64_t limit, int64_t* count) {
  int64_t c = 1;
  bool empty = false;
  for (uint64_t i = 0; i < n; ++i) {
    if (dims[i] == 0) {
      empty = true;
    } else if (__builtin_mul_overflow(c, dims[i], &c) || c > limit) {
      return false;
    }
  }
  *count = empty ? 0 : c;
  return true;
}

// Fills `t` from aclCreateTensor's arguments, or returns the reason they are invalid.
std::string Describe(aclTensor& t, const int64_t* view_dims, uint64_t view_n, aclDataType dtype,
                     const int64_t* stride, int64_t offset, aclFormat format,
                     const int64_t* storage_dims, uint64_t storage_n, void* data) {
  if (view_dims == nullptr && view_n > 0) {
    return StrCat("viewDims is null but viewDimsNum is ", view_n);
  }
  if (storage_dims == nullptr && storage_n > 0) {
    return StrCat("storageDims is null but storageDimsNum is ", storage_n);
  }
  if (view_n > kMaxTensorDims || storage_n > kMaxTensorDims) {
    return StrCat("a tensor has at most ", kMaxTensorDims, " dims; viewDimsNum is ", view_n,
                  ", storageDimsNum ", storage_n);
  }
  if (AclDataTypeSize(dtype) == 0) {
    return StrCat("dataType ", AclDataTypeName(dtype), " is not supported (no byte size)");
  }
  for (uint64_t i = 0; i < view_n; ++i) {
    if (view_dims[i] < 0)
      return StrCat("viewDims ", Dims(view_dims, view_n), " has a negative dim");
  }
  for (uint64_t i = 0; i < storage_n; ++i) {
    if (storage_dims[i] < 0) {
      return StrCat("storageDims ", Dims(storage_dims, storage_n), " has a negative dim");
    }
  }
  if (offset < 0) return StrCat("offset ", offset, " is negative");
  // Nothing is multiplied out unchecked: a storage or a view of more than INT64_MAX bytes cannot
  // exist, and the view's last element is computed with overflow checks.
  const int64_t limit = INT64_MAX / static_cast<int64_t>(AclDataTypeSize(dtype));
  int64_t storage_elems = 0;
  if (!CountElements(storage_dims, storage_n, limit, &storage_elems)) {
    return StrCat("storageDims ", Dims(storage_dims, storage_n), " of ", AclDataTypeName(dtype),
                  " hold more than ", INT64_MAX, " bytes (counting the non-zero dims)");
  }
  int64_t view_elems = 0;
  if (!CountElements(view_dims, view_n, limit, &view_elems)) {
    return StrCat("viewDims ", Dims(view_dims, view_n), " of ", AclDataTypeName(dtype),
                  " hold more than ", INT64_MAX, " bytes (counting the non-zero dims)");
  }
  t.view_dims.assign(view_dims, view_dims + view_n);
  t.strides.assign(view_n, 1);
  if (stride != nullptr) {
    for (uint64_t i = 0; i < view_n; ++i) {
      if (stride[i] < 0) return StrCat("stride ", Dims(stride, view_n), " has a negative stride");
      t.strides[i] = stride[i];
    }
  } else {
    // Suffix products of the dims: inside int64 by CountElements.
    for (uint64_t i = view_n; i-- > 1;) t.strides[i - 1] = t.strides[i] * view_dims[i];
  }
  t.storage_dims.assign(storage_dims, storage_dims + storage_n);
  t.offset = offset;
  t.dtype = dtype;
  t.format = format;
  t.data = data;
  // The view must stay inside the storage (an empty view touches nothing).
  if (view_elems > 0) {
    int64_t last = offset;
    bool overflow = false;
    for (uint64_t i = 0; i < view_n && !overflow; ++i) {
      int64_t step = 0;
      overflow = __builtin_mul_overflow(view_dims[i] - 1, t.strides[i], &step) ||
                 __builtin_add_overflow(last, step, &last);
    }
    if (overflow || last >= storage_elems) {
      return StrCat("the view ", Dims(view_dims, view_n), " with strides ",
                    Dims(t.strides.data(), view_n), " and offset ", offset, " reaches element ",
                    overflow ? std::string("beyond INT64_MAX") : std::to_string(last),
                    ", past the storage shape ", Dims(storage_dims, storage_n), " (",
                    storage_elems, " elements)");
    }
  }
  return "";
}

template <typename T, typename V>
T* MakeArray(const char* api, const V* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    Report(api, ACLNN_ERR_PARAM_NULLPTR, StrCat("value is null but size is ", size));
    return nullptr;
  }
  auto* a = new T();
  a->values.assign(value, value + size);
  return a;
}

template <typename T>
aclnnStatus Size(const char* api, const T* obj, uint64_t* size, uint64_t n) {
  if (obj == nullptr || size == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_NULLPTR,
                  obj == nullptr ? "the array is null" : "size is null");
  }
  *size = n;
  return ACLNN_SUCCESS;
}

aclnnStatus CopyOut(const char* api, const aclTensor* t, const std::vector<int64_t>& v,
                    int64_t** out, uint64_t* n) {
  if (t == nullptr || out == nullptr || n == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_NULLPTR, "tensor and both output pointers must be non-null");
  }
  *out = new int64_t[v.empty() ? 1 : v.size()];
  std::copy(v.begin(), v.end(), *out);
  *n = v.size();
  return ACLNN_SUCCESS;
}

aclnnStatus SetAddr(const char* api, aclOpExecutor* e, size_t index, bool output, aclTensor* t,
                    void* addr) {
  if (e == nullptr) return Report(api, ACLNN_ERR_INNER_NULLPTR, "the executor is null");
  if (!IsLive(e)) {
    return Report(api, ACLNN_ERR_PARAM_INVALID, "the executor was already run or destroyed");
  }
  std::vector<void*>& bases = output ? e->output_bases : e->input_bases;
  if (index >= bases.size()) {
    return Report(api, ACLNN_ERR_PARAM_INVALID,
                  StrCat(output ? "output" : "input", " index ", index, " is out of range (",
                         e->api, " has ", bases.size(), ")"));
  }
  if (bases[index] == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_INVALID,
                  StrCat(output ? "output " : "input ", index, " was null in phase 1"));
  }
  if (addr == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_NULLPTR,
                  StrCat("addr is null; ", output ? "output " : "input ", index,
                         " had storage in phase 1 and needs an address"));
  }
  if (bases[index] != addr) e->rebound = true;
  bases[index] = addr;
  if (t != nullptr) t->data = addr;
  return ACLNN_SUCCESS;
}

std::atomic<int> g_inits{0};
std::atomic<int> g_finalizes{0};

}  // namespace

size_t AclDataTypeSize(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_COMPLEX32:
      return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

std::string AclDataTypeName(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT:
      return "ACL_FLOAT";
    case ACL_FLOAT16:
      return "ACL_FLOAT16";
    case ACL_BF16:
      return "ACL_BF16";
    case ACL_INT8:
      return "ACL_INT8";
    case ACL_UINT8:
      return "ACL_UINT8";
    case ACL_INT16:
      return "ACL_INT16";
    case ACL_UINT16:
      return "ACL_UINT16";
    case ACL_INT32:
      return "ACL_INT32";
    case ACL_UINT32:
      return "ACL_UINT32";
    case ACL_INT64:
      return "ACL_INT64";
    case ACL_UINT64:
      return "ACL_UINT64";
    case ACL_DOUBLE:
      return "ACL_DOUBLE";
    case ACL_BOOL:
      return "ACL_BOOL";
    case ACL_COMPLEX64:
      return "ACL_COMPLEX64";
    case ACL_COMPLEX128:
      return "ACL_COMPLEX128";
    default:
      return StrCat("aclDataType ", static_cast<int>(dt));
  }
}

aclnnStatus Report(const char* api, aclnnStatus code, const std::string& message) {
  const std::string text = StrCat(api, ": ", message, " [aclnnStatus ", code, "]");
  detail::SetRecentErrMsg(text);
  AICORE_LOG(kInfo) << text;
  return code;
}

aclnnStatus CheckTensorArg(const char* api, const char* what, const aclTensor* t) {
  if (t == nullptr) return Report(api, ACLNN_ERR_PARAM_NULLPTR, StrCat(what, " is null"));
  if (t->view_dims.size() > kMaxOpRank) {
    return Report(
        api, ACLNN_ERR_PARAM_INVALID,
        StrCat(what, " has ", t->view_dims.size(), " dims; at most ", kMaxOpRank, " are allowed"));
  }
  return ACLNN_SUCCESS;
}

aclOpExecutor* AdoptExecutor(aclOpExecutor* executor) {
  std::lock_guard<std::mutex> lk(g_live_mu);
  Live().insert(executor);
  return executor;
}

aclnnStatus RunExecutor(const char* api, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream) {
  if (executor == nullptr) return Report(api, ACLNN_ERR_INNER_NULLPTR, "the executor is null");
  if (!IsLive(executor)) {
    return Report(api, ACLNN_ERR_PARAM_INVALID,
                  "the executor was already run (phase 2 consumes it unless "
                  "aclSetAclOpExecutorRepeatable was called) or destroyed");
  }
  if (workspace_size < executor->workspace_size) {
    return Report(api, ACLNN_ERR_PARAM_INVALID,
                  StrCat("workspaceSize ", workspace_size, " is smaller than the ",
                         executor->workspace_size, " bytes phase 1 asked for"));
  }
  if (executor->workspace_size > 0 && workspace == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_NULLPTR,
                  StrCat("workspace is null but ", executor->workspace_size, " bytes are needed"));
  }
  if (executor->rebound && executor->recheck) {
    aclnnStatus c = ACLNN_SUCCESS;
    try {
      c = executor->recheck(*executor);
    } catch (const std::exception& e) {
      c = Report(api, ACLNN_ERR_INNER, e.what());
    }
    if (c != ACLNN_SUCCESS) return c;
    executor->rebound = false;
  }
  Status s;
  try {
    s = executor->run(*executor, workspace, stream);
  } catch (const Error& e) {
    s = e.status();
  } catch (const std::exception& e) {
    s = Status(StatusCode::kInternal, e.what());
  }
  if (!executor->repeatable) Retire(executor);
  if (!s.ok()) return Report(api, ACLNN_ERR_RUNTIME_ERROR, s.ToString());
  return ACLNN_SUCCESS;
}

}  // namespace aicore::ops

int64_t aclTensor::NumElements() const {
  int64_t n = 1;
  for (int64_t d : view_dims) n *= d;
  return n;
}

bool aclTensor::IsContiguous() const {
  int64_t expect = 1;
  for (size_t i = view_dims.size(); i-- > 0;) {
    if (view_dims[i] != 1 && strides[i] != expect) return false;
    expect *= view_dims[i];
  }
  return true;
}

using aicore::StrCat;
using aicore::ops::Report;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  auto* t = new aclTensor();
  const std::string why = aicore::ops::Describe(*t, viewDims, viewDimsNum, dataType, stride, offset,
                                                format, storageDims, storageDimsNum, tensorData);
  if (!why.empty()) {
    delete t;
    Report("aclCreateTensor", ACLNN_ERR_PARAM_INVALID, why);
    return nullptr;
  }
  return t;
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t* stride, int64_t offset,
                          aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                          void* tensorData) {
  if (tensor == nullptr) return Report("aclInitTensor", ACLNN_ERR_PARAM_NULLPTR, "tensor is null");
  aclTensor t;
  const std::string why = aicore::ops::Describe(t, viewDims, viewDimsNum, dataType, stride, offset,
                                                format, storageDims, storageDimsNum, tensorData);
  if (!why.empty()) return Report("aclInitTensor", ACLNN_ERR_PARAM_INVALID, why);
  *tensor = std::move(t);
  return ACLNN_SUCCESS;
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  if (value == nullptr) {
    Report("aclCreateScalar", ACLNN_ERR_PARAM_NULLPTR, "value is null");
    return nullptr;
  }
  const size_t n = aicore::ops::AclDataTypeSize(dataType);
  if (n == 0) {
    Report("aclCreateScalar", ACLNN_ERR_PARAM_INVALID,
           StrCat("dataType ", aicore::ops::AclDataTypeName(dataType), " is not supported"));
    return nullptr;
  }
  auto* s = new aclScalar();
  s->dtype = dataType;
  std::memcpy(s->value, value, n);
  return s;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return aicore::ops::MakeArray<aclIntArray>("aclCreateIntArray", value, size);
}
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return aicore::ops::MakeArray<aclFloatArray>("aclCreateFloatArray", value, size);
}
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return aicore::ops::MakeArray<aclBoolArray>("aclCreateBoolArray", value, size);
}
aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    Report("aclCreateTensorList", ACLNN_ERR_PARAM_NULLPTR,
           StrCat("value is null but size is ", size));
    return nullptr;
  }
  auto* l = new aclTensorList();
  l->tensors.assign(value, value + size);
  return l;
}
aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    Report("aclCreateScalarList", ACLNN_ERR_PARAM_NULLPTR,
           StrCat("value is null but size is ", size));
    return nullptr;
  }
  auto* l = new aclScalarList();
  l->scalars.assign(value, value + size);
  return l;
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  delete scalar;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  if (array != nullptr) {
    for (const aclTensor* t : array->tensors) delete t;
  }
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  if (array != nullptr) {
    for (const aclScalar* s : array->scalars) delete s;
  }
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return aicore::ops::CopyOut("aclGetViewShape", tensor,
                              tensor ? tensor->view_dims : std::vector<int64_t>{}, viewDims,
                              viewDimsNum);
}
aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  return aicore::ops::CopyOut("aclGetStorageShape", tensor,
                              tensor ? tensor->storage_dims : std::vector<int64_t>{}, storageDims,
                              storageDimsNum);
}
aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  return aicore::ops::CopyOut("aclGetViewStrides", tensor,
                              tensor ? tensor->strides : std::vector<int64_t>{}, stridesValue,
                              stridesNum);
}
aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (tensor == nullptr || offset == nullptr) {
    return Report("aclGetViewOffset", ACLNN_ERR_PARAM_NULLPTR,
                  "tensor and offset must be non-null");
  }
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (tensor == nullptr || format == nullptr) {
    return Report("aclGetFormat", ACLNN_ERR_PARAM_NULLPTR, "tensor and format must be non-null");
  }
  *format = tensor->format;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (tensor == nullptr || dataType == nullptr) {
    return Report("aclGetDataType", ACLNN_ERR_PARAM_NULLPTR,
                  "tensor and dataType must be non-null");
  }
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return aicore::ops::Size("aclGetIntArraySize", array, size, array ? array->values.size() : 0);
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return aicore::ops::Size("aclGetFloatArraySize", array, size, array ? array->values.size() : 0);
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return aicore::ops::Size("aclGetBoolArraySize", array, size, array ? array->values.size() : 0);
}
aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  return aicore::ops::Size("aclGetTensorListSize", tensorList, size,
                           tensorList ? tensorList->tensors.size() : 0);
}
aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  return aicore::ops::Size("aclGetScalarListSize", scalarList, size,
                           scalarList ? scalarList->scalars.size() : 0);
}
aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (tensor == nullptr)
    return Report("aclSetRawTensorAddr", ACLNN_ERR_PARAM_NULLPTR, "tensor is null");
  tensor->data = addr;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  if (tensor == nullptr || addr == nullptr) {
    return Report("aclGetRawTensorAddr", ACLNN_ERR_PARAM_NULLPTR,
                  "tensor and addr must be non-null");
  }
  *addr = tensor->data;
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (executor == nullptr) {
    return Report("aclSetAclOpExecutorRepeatable", ACLNN_ERR_INNER_NULLPTR, "the executor is null");
  }
  if (!aicore::ops::IsLive(executor)) {
    return Report("aclSetAclOpExecutorRepeatable", ACLNN_ERR_PARAM_INVALID,
                  "the executor was already run or destroyed");
  }
  executor->repeatable = true;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) {
    return Report("aclDestroyAclOpExecutor", ACLNN_ERR_INNER_NULLPTR, "the executor is null");
  }
  if (!aicore::ops::IsLive(executor)) {
    return Report("aclDestroyAclOpExecutor", ACLNN_ERR_PARAM_INVALID,
                  "the executor was already run (not repeatable) or destroyed");
  }
  aicore::ops::Retire(executor);
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  return aicore::ops::SetAddr("aclSetInputTensorAddr", executor, index, false, tensor, addr);
}
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  return aicore::ops::SetAddr("aclSetOutputTensorAddr", executor, index, true, tensor, addr);
}
aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  const size_t inputs = executor != nullptr ? executor->input_bases.size() : 0;
  if (index < inputs) {
    return aicore::ops::SetAddr("aclSetTensorAddr", executor, index, false, tensor, addr);
  }
  return aicore::ops::SetAddr("aclSetTensorAddr", executor, index - inputs, true, tensor, addr);
}

aclnnStatus aclnnInit(const char* configPath) {
  if (aicore::ops::g_inits.fetch_add(1) > 0) {
    return Report("aclnnInit", ACLNN_ERR_PARAM_INVALID, "aclnnInit may be called once per process");
  }
  if (configPath != nullptr && configPath[0] != '\0') {
    std::ifstream in(configPath);
    if (!in) {
      return Report("aclnnInit", ACLNN_ERR_PARAM_INVALID,
                    StrCat("configPath '", configPath, "' cannot be opened"));
    }
    try {
      const nlohmann::json parsed = nlohmann::json::parse(in);
      (void)parsed;
    } catch (const std::exception& e) {
      return Report("aclnnInit", ACLNN_ERR_PARAM_INVALID,
                    StrCat("configPath '", configPath, "' is not valid JSON: ", e.what()));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void) {
  if (aicore::ops::g_finalizes.fetch_add(1) > 0) {
    return Report("aclnnFinalize", ACLNN_ERR_PARAM_INVALID,
                  "aclnnFinalize may be called once per process");
  }
  return ACLNN_SUCCESS;
}

}  // extern "C"
