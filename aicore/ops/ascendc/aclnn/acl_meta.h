// The aclnn descriptor API ("aclnn/acl_meta.h"): opaque aclTensor / aclScalar / aclIntArray /
// aclFloatArray / aclBoolArray / aclTensorList / aclScalarList / aclOpExecutor, their create,
// destroy and get functions, executor reuse, and the aclnn status codes. Implemented in
// aicore/ops/aclnn/. A failed call returns its code (or nullptr) and leaves a message naming the
// function, the argument, the value and what is allowed in aclGetRecentErrMsg().
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;

typedef int32_t aclnnStatus;
#ifdef __cplusplus
constexpr aclnnStatus OK = 0;
#endif

// Status codes (CANN opdev/op_errno.h values).
#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE 561104
#define ACLNN_ERR_INNER_KEY_CONFLICT 561105
#define ACLNN_ERR_INNER_KEY_CONFILICT ACLNN_ERR_INNER_KEY_CONFLICT
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE 561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED 561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND 561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID 561110
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID 561111
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND 561112
#define ACLNN_ERR_INNER_OP_FILE_INVALID 561113
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND 561114
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH 561115
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE 561116
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL 561117
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID 561118
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID 561119

// Creates a tensor descriptor over device memory `tensorData` (the storage base): element i of
// the view lies at tensorData + (offset + sum(i_k * stride_k)) * itemsize. `stride` nullptr:
// contiguous. Returns nullptr (message in aclGetRecentErrMsg) for a null dims pointer with a
// count above 0, more than 25 dims, a negative dim, stride or offset, an unknown dtype, or a view
// reaching past the storage shape.
aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData);
// Copies the value (one element of dataType) now. nullptr for a null value or unknown dtype.
aclScalar* aclCreateScalar(void* value, aclDataType dataType);
// The arrays copy their values. nullptr for a null value pointer with size above 0.
aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size);
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size);
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size);
// The lists hold the element pointers and destroy the elements when destroyed.
aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size);
aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size);

// Each returns 0; nullptr is accepted.
aclnnStatus aclDestroyTensor(const aclTensor* tensor);
aclnnStatus aclDestroyScalar(const aclScalar* scalar);
aclnnStatus aclDestroyIntArray(const aclIntArray* array);
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array);
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array);
aclnnStatus aclDestroyTensorList(const aclTensorList* array);
aclnnStatus aclDestroyScalarList(const aclScalarList* array);

// The shape and stride getters allocate with new[]; the caller delete[]s. 161001 on a null
// argument.
aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum);
aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum);
aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum);
aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset);
aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format);
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType);
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size);
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size);
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size);
aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size);
aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size);
// Re-describes an existing tensor (same checks as aclCreateTensor; 161002 when they fail).
aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t* stride, int64_t offset,
                          aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                          void* tensorData);
aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr);
aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr);

// Executor reuse: after aclSetAclOpExecutorRepeatable (straight after phase 1) phase 2 may run
// any number of times until aclDestroyAclOpExecutor. 561103 for a null executor.
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor);
// Points input / output `index` (within the inputs or the outputs) of a repeatable executor at
// `addr` (the storage base, as aclCreateTensor's tensorData) and updates `tensor` too.
aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr);
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index,
                                   aclTensor* tensor, void* addr);
// The same with one flattened index: the inputs, then the outputs.
aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr);

#ifdef __cplusplus
}
#endif
