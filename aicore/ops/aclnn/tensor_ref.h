// The conversion of an aclnn tensor argument (aclTensor) to the operator library's view
// (ops::TensorRef), shared by every entry point (aclnn_ops.cc, aclnn_attention.cc).
#ifndef AICORE_OPS_ACLNN_TENSOR_REF_H_
#define AICORE_OPS_ACLNN_TENSOR_REF_H_

#include <optional>

#include "aclnn/acl_meta.h"
#include "aicore/ops/framework/operator.h"

namespace aicore::ops {

// What a tensor argument holds, which decides the dtypes ToRef accepts.
enum class TensorRole {
  kData,  // numbers: FLOAT, FLOAT16, BFLOAT16 and the integer types (the operator checks which)
  kMask,  // a mask of one byte per element, nonzero = true: BOOL or UINT8, both read as kU8
};

// Converts tensor argument `what` of `api` ("query" of "aclnnFlashAttentionScore") to a view of
// its storage base, dtype, view shape, strides and offset. Errors (reported for
// aclGetRecentErrMsg, each naming `what`): null 161001; more than 8 dims 161002; a private format
// (FRACTAL_NZ, NC1HWC0, ...: the ND-like labels are read as ND) 161002; a dtype without a library
// dtype 161002 (BOOL for a kData argument, which aicore does not compute with; a
// kMask argument's other dtypes are converted and left to the operator's checks).
aclnnStatus ToRef(const char* api, const char* what, const aclTensor* t, TensorRef* ref,
                  TensorRole role = TensorRole::kData);

// As ToRef for an optional argument: null is absent (`ref` reset, success).
aclnnStatus ToOptionalRef(const char* api, const char* what, const aclTensor* t,
                          std::optional<TensorRef>* ref, TensorRole role = TensorRole::kData);

}  // namespace aicore::ops

#endif  // AICORE_OPS_ACLNN_TENSOR_REF_H_
