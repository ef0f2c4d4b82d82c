// Converts aclnn tensor arguments to operator views (tensor_ref.h).
#include "aicore/ops/aclnn/tensor_ref.h"

#include <string>
#include <utility>

#include "aicore/ops/aclnn/descriptors.h"

namespace aicore::ops {
namespace {

// Returns the library dtype of `dt` (kUnknown when it has none; BOOL only as a mask).
DType FromAcl(aclDataType dt, TensorRole role) {
  switch (dt) {
    case ACL_FLOAT:
      return DType::kF32;
    case ACL_FLOAT16:
      return DType::kF16;
    case ACL_BF16:
      return DType::kBF16;
    case ACL_INT8:
      return DType::kI8;
    case ACL_UINT8:
      return DType::kU8;
    case ACL_BOOL:  // one byte, nonzero = true
      return role == TensorRole::kMask ? DType::kU8 : DType::kUnknown;
    case ACL_INT16:
      return DType::kI16;
    case ACL_UINT16:
      return DType::kU16;
    case ACL_INT32:
      return DType::kI32;
    case ACL_UINT32:
      return DType::kU32;
    case ACL_INT64:
      return DType::kI64;
    case ACL_UINT64:
      return DType::kU64;
    default:
      return DType::kUnknown;
  }
}

// True for an ND-like format: ND and the public labels (torch_npu also applies them by rank),
// whose element order the view's dims and strides say in full. False for a private one (fractal
// or C0-blocked layouts such as FRACTAL_NZ) and values outside aclFormat.
bool IsNdLike(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return true;
    default:
      return false;
  }
}

// Returns the name of a format IsNdLike refuses.
std::string FormatName(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_NC1HWC0:
      return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
      return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04:
      return "NC1HWC0_C04";
    case ACL_FORMAT_FRACTAL_NZ:
      return "FRACTAL_NZ";
    case ACL_FORMAT_NDC1HWC0:
      return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D:
      return "FRACTAL_Z_3D";
    default:
      return f >= ACL_FORMAT_FRACTAL_NZ_C0_16 && f <= ACL_FORMAT_FRACTAL_NZ_C0_8 ? "FRACTAL_NZ_C0_*"
                                                                                 : "aclFormat";
  }
}

}  // namespace

aclnnStatus ToRef(const char* api, const char* what, const aclTensor* t, TensorRef* ref,
                  TensorRole role) {
  const aclnnStatus s = CheckTensorArg(api, what, t);
  if (s != ACLNN_SUCCESS) return s;
  if (!IsNdLike(t->format)) {
    return Report(
        api, ACLNN_ERR_PARAM_INVALID,
        StrCat(what, " has format ", FormatName(t->format), " (", static_cast<int>(t->format),
               "), a private layout the view does not describe; allowed: ND, NCHW, NHWC, "
               "HWCN, NDHWC, NCDHW, NC, NCL (read as ND)"));
  }
  const DType dt = FromAcl(t->dtype, role);
  if (dt == DType::kUnknown) {
    return Report(api, ACLNN_ERR_PARAM_INVALID,
                  StrCat(what, " has dtype ", AclDataTypeName(t->dtype), "; allowed: ",
                         role == TensorRole::kMask ? "BOOL, UINT8" : "FLOAT, FLOAT16, BFLOAT16"));
  }
  TensorRef r;
  r.data = t->data;
  r.dtype = dt;
  r.shape = t->view_dims;
  r.strides = t->strides;
  r.offset = t->offset;
  *ref = std::move(r);
  return ACLNN_SUCCESS;
}

aclnnStatus ToOptionalRef(const char* api, const char* what, const aclTensor* t,
                          std::optional<TensorRef>* ref, TensorRole role) {
  if (t == nullptr) {
    ref->reset();
    return ACLNN_SUCCESS;
  }
  TensorRef r;
  const aclnnStatus s = ToRef(api, what, t, &r, role);
  if (s == ACLNN_SUCCESS) *ref = std::move(r);
  return s;
}

}  // namespace aicore::ops
