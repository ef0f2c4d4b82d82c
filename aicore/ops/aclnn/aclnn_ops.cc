// The aclnn entry points of the operator library (aclnnop/aclnn_*.h): phase 1 converts the
// descriptors to TensorRefs (161001 null, 161002 rank above 8 or a dtype without a library
// dtype), runs the operator's CanImplement (its code and message) and Plan, and leaves an
// executor whose run re-reads the tensor addresses (aclSet*TensorAddr may replace them) and calls
// the operator's Launch. Phase 2 is RunExecutor (aclnn/descriptors.h). No exception crosses the C
// boundary.
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_matmul_epilogue.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "aicore/ops/aclnn/descriptors.h"
#include "aicore/ops/aclnn/prepare.h"
#include "aicore/ops/aclnn/tensor_ref.h"
#include "aicore/ops/ops.h"

namespace aicore::ops {
namespace {

aclnnStatus ToScalar(const char* api, const char* what, const aclScalar* s, double* value,
                     DType* dtype) {
  if (s == nullptr) return Report(api, ACLNN_ERR_PARAM_NULLPTR, StrCat(what, " is null"));
  const uint8_t* p = s->value;
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  *dtype = DType::kF32;
  switch (s->dtype) {
    case ACL_FLOAT:
      *value = load(float{});
      break;
    case ACL_FLOAT16:
      *value = load(half{});
      *dtype = DType::kF16;
      break;
    case ACL_BF16:
      *value = load(bfloat16{});
      *dtype = DType::kBF16;
      break;
    case ACL_DOUBLE:
      *value = load(double{});
      break;
    case ACL_INT8:
      *value = load(int8_t{});
      break;
    case ACL_UINT8:
      *value = load(uint8_t{});
      break;
    case ACL_INT16:
      *value = load(int16_t{});
      break;
    case ACL_INT32:
      *value = load(int32_t{});
      break;
    case ACL_INT64:
      *value = load(int64_t{});
      break;
    case ACL_BOOL:
      *value = p[0] != 0 ? 1.0 : 0.0;
      break;
    default:
      return Report(api, ACLNN_ERR_PARAM_INVALID,
                    StrCat(what, " has dtype ", AclDataTypeName(s->dtype),
                           "; allowed: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, UINT8, INT16, "
                           "INT32, INT64, BOOL"));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOutPointers(const char* api, uint64_t* workspace_size, aclOpExecutor** executor) {
  if (workspace_size == nullptr) {
    return Report(api, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize is null");
  }
  if (executor == nullptr) return Report(api, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  return ACLNN_SUCCESS;
}

TensorRef* Opt(std::optional<TensorRef>& t) { return t ? &*t : nullptr; }

aclnnStatus Elementwise(const char* api, ElementwiseKind kind, const aclTensor* self,
                        const aclTensor* other, const aclScalar* scalar, const aclScalar* alpha,
                        bool needs_alpha, const aclTensor* out, uint64_t* ws,
                        aclOpExecutor** executor) {
  ElementwiseArgs a;
  a.kind = kind;
  const bool in_place = out == self;
  const bool xy = std::string(api) == "aclnnGeluV2";
  a.self_name = in_place ? "selfRef" : xy ? "x" : "self";
  a.out_name = in_place ? "selfRef" : xy ? "y" : "out";
  aclnnStatus s = ToRef(api, a.self_name, self, &a.self);
  if (s != ACLNN_SUCCESS) return s;
  const bool binary = kind == ElementwiseKind::kAdd || kind == ElementwiseKind::kMul;
  if (binary && (s = ToRef(api, "other", other, &a.other)) != ACLNN_SUCCESS) return s;
  if (kind == ElementwiseKind::kAdds || kind == ElementwiseKind::kMuls) {
    if ((s = ToScalar(api, "other", scalar, &a.scalar, &a.scalar_dtype)) != ACLNN_SUCCESS) {
      return s;
    }
  }
  if (needs_alpha) {
    DType alpha_dtype;
    if ((s = ToScalar(api, "alpha", alpha, &a.alpha, &alpha_dtype)) != ACLNN_SUCCESS) return s;
  }
  if ((s = ToRef(api, a.out_name, out, &a.out)) != ACLNN_SUCCESS) return s;
  if ((s = CheckOutPointers(api, ws, executor)) != ACLNN_SUCCESS) return s;
  a.in_place = in_place;
  return Prepare<ElementwiseArgs>(
      api, a,
      [binary](ElementwiseArgs& x) {
        return binary ? std::vector<TensorRef*>{&x.self, &x.other}
                      : std::vector<TensorRef*>{&x.self};
      },
      [in_place](ElementwiseArgs& x) {
        // selfRef is input 0 and output 0; Launch writes through input 0's address.
        return std::vector<TensorRef*>{in_place ? nullptr : &x.out};
      },
      ws, executor);
}

aclnnStatus SoftmaxEntry(const char* api, bool log, const aclTensor* self, int64_t dim,
                         const aclTensor* out, uint64_t* ws, aclOpExecutor** executor) {
  SoftmaxArgs a;
  a.log = log;
  a.dim = dim;
  aclnnStatus s = ToRef(api, "self", self, &a.self);
  if (s != ACLNN_SUCCESS) return s;
  if ((s = ToRef(api, "out", out, &a.out)) != ACLNN_SUCCESS) return s;
  if ((s = CheckOutPointers(api, ws, executor)) != ACLNN_SUCCESS) return s;
  return Prepare<SoftmaxArgs>(
      api, a, [](SoftmaxArgs& x) { return std::vector<TensorRef*>{&x.self}; },
      [](SoftmaxArgs& x) { return std::vector<TensorRef*>{&x.out}; }, ws, executor);
}

aclnnStatus MatmulEntry(const char* api, MatmulKind kind, const aclTensor* self,
                        const aclTensor* mat1, const aclTensor* mat2, const aclScalar* beta,
                        const aclScalar* alpha, const aclTensor* out, int8_t cube_math_type,
                        uint64_t* ws, aclOpExecutor** executor) {
  MatmulArgs a;
  a.kind = kind;
  a.cube_math_type = cube_math_type;
  const bool addmm = kind == MatmulKind::kAddmm;
  a.in_place = addmm && out == self;
  aclnnStatus s = ToRef(api, a.in_place ? "selfRef" : "self", self, &a.self);
  if (s != ACLNN_SUCCESS) return s;
  if (addmm && (s = ToRef(api, "mat1", mat1, &a.mat1)) != ACLNN_SUCCESS) return s;
  if ((s = ToRef(api, "mat2", mat2, &a.mat2)) != ACLNN_SUCCESS) return s;
  if (addmm) {
    // Documented scalar dtypes: FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8.
    for (const auto& [what, sc, value] :
         {std::tuple<const char*, const aclScalar*, double*>{"beta", beta, &a.beta},
          {"alpha", alpha, &a.alpha}}) {
      if (sc != nullptr && (sc->dtype == ACL_BF16 || sc->dtype == ACL_BOOL)) {
        return Report(api, ACLNN_ERR_PARAM_INVALID,
                      StrCat(what, " has dtype ", AclDataTypeName(sc->dtype),
                             "; allowed: FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32, INT64, "
                             "UINT8"));
      }
      DType dt;
      if ((s = ToScalar(api, what, sc, value, &dt)) != ACLNN_SUCCESS) return s;
    }
  }
  if (!a.in_place && (s = ToRef(api, "out", out, &a.out)) != ACLNN_SUCCESS) return s;
  if (a.in_place) a.out = a.self;
  if ((s = CheckOutPointers(api, ws, executor)) != ACLNN_SUCCESS) return s;
  return Prepare<MatmulArgs>(
      api, a,
      [addmm](MatmulArgs& x) {
        return addmm ? std::vector<TensorRef*>{&x.self, &x.mat1, &x.mat2}
                     : std::vector<TensorRef*>{&x.self, &x.mat2};
      },
      [in_place = a.in_place](MatmulArgs& x) {
        // selfRef is input 0 and the output; Launch writes through input 0's address.
        return std::vector<TensorRef*>{in_place ? nullptr : &x.out};
      },
      ws, executor);
}

aclnnStatus MatmulEpilogueEntry(const char* api, const aclTensor* a, const aclTensor* b,
                                const aclTensor* bias, const aclTensor* residual, double alpha,
                                double beta, int64_t activation, const aclTensor* out, uint64_t* ws,
                                aclOpExecutor** executor) {
  MatmulEpilogueArgs x;
  aclnnStatus s = ToRef(api, "a", a, &x.a);
  if (s != ACLNN_SUCCESS) return s;
  if ((s = ToRef(api, "b", b, &x.b)) != ACLNN_SUCCESS) return s;
  if ((s = ToOptionalRef(api, "biasOptional", bias, &x.bias)) != ACLNN_SUCCESS) return s;
  if ((s = ToOptionalRef(api, "residualOptional", residual, &x.residual)) != ACLNN_SUCCESS) {
    return s;
  }
  if ((s = ToRef(api, "out", out, &x.out)) != ACLNN_SUCCESS) return s;
  if ((s = CheckOutPointers(api, ws, executor)) != ACLNN_SUCCESS) return s;
  if (activation < ACLNN_AICORE_ACTIVATION_NONE || activation > ACLNN_AICORE_ACTIVATION_SILU) {
    return Report(api, ACLNN_ERR_PARAM_INVALID,
                  StrCat("activation ", activation,
                         " is not one of 0 (none), 1 (relu), 2 (gelu_erf), 3 (gelu_tanh), 4 "
                         "(silu)"));
  }
  x.activation = static_cast<Activation>(activation);
  x.alpha = alpha;
  x.beta = beta;
  x.bias_name = "biasOptional";
  return Prepare<MatmulEpilogueArgs>(
      api, x,
      [](MatmulEpilogueArgs& y) {
        return std::vector<TensorRef*>{&y.a, &y.b, Opt(y.bias), Opt(y.residual)};
      },
      [](MatmulEpilogueArgs& y) { return std::vector<TensorRef*>{&y.out}; }, ws, executor);
}

}  // namespace
}  // namespace aicore::ops

using aicore::ops::ElementwiseKind;
using aicore::ops::MatmulKind;
using aicore::ops::RunExecutor;

extern "C" {

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                     const aclScalar* alpha, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnAdd", ElementwiseKind::kAdd, self, other, nullptr, alpha,
                                  true, out, workspaceSize, executor);
}
aclnnStatus aclnnAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return RunExecutor("aclnnAdd", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                      const aclScalar* alpha, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnAdds", ElementwiseKind::kAdds, self, nullptr, other, alpha,
                                  true, out, workspaceSize, executor);
}
aclnnStatus aclnnAdds(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return RunExecutor("aclnnAdds", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                            const aclScalar* alpha, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnInplaceAdd", ElementwiseKind::kAdd, selfRef, other, nullptr,
                                  alpha, true, selfRef, workspaceSize, executor);
}
aclnnStatus aclnnInplaceAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return RunExecutor("aclnnInplaceAdd", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor* selfRef, const aclScalar* other,
                                             const aclScalar* alpha, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnInplaceAdds", ElementwiseKind::kAdds, selfRef, nullptr,
                                  other, alpha, true, selfRef, workspaceSize, executor);
}
aclnnStatus aclnnInplaceAdds(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return RunExecutor("aclnnInplaceAdds", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnMul", ElementwiseKind::kMul, self, other, nullptr, nullptr,
                                  false, out, workspaceSize, executor);
}
aclnnStatus aclnnMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return RunExecutor("aclnnMul", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnMuls", ElementwiseKind::kMuls, self, nullptr, other,
                                  nullptr, false, out, workspaceSize, executor);
}
aclnnStatus aclnnMuls(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return RunExecutor("aclnnMuls", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnInplaceMul", ElementwiseKind::kMul, selfRef, other, nullptr,
                                  nullptr, false, selfRef, workspaceSize, executor);
}
aclnnStatus aclnnInplaceMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return RunExecutor("aclnnInplaceMul", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnInplaceMuls", ElementwiseKind::kMuls, selfRef, nullptr,
                                  other, nullptr, false, selfRef, workspaceSize, executor);
}
aclnnStatus aclnnInplaceMuls(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return RunExecutor("aclnnInplaceMuls", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnGelu", ElementwiseKind::kGeluTanh, self, nullptr, nullptr,
                                  nullptr, false, out, workspaceSize, executor);
}
aclnnStatus aclnnGelu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return RunExecutor("aclnnGelu", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate, aclTensor* y,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  // Documented: 1 is "tanh"; every other value means "none" (erf), without an error.
  return aicore::ops::Elementwise(
      "aclnnGeluV2", approximate == 1 ? ElementwiseKind::kGeluTanh : ElementwiseKind::kGeluErf, x,
      nullptr, nullptr, nullptr, false, y, workspaceSize, executor);
}
aclnnStatus aclnnGeluV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) {
  return RunExecutor("aclnnGeluV2", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::Elementwise("aclnnSilu", ElementwiseKind::kSilu, self, nullptr, nullptr,
                                  nullptr, false, out, workspaceSize, executor);
}
aclnnStatus aclnnSilu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return RunExecutor("aclnnSilu", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::SoftmaxEntry("aclnnSoftmax", false, self, dim, out, workspaceSize, executor);
}
aclnnStatus aclnnSoftmax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return RunExecutor("aclnnSoftmax", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::SoftmaxEntry("aclnnLogSoftmax", true, self, dim, out, workspaceSize,
                                   executor);
}
aclnnStatus aclnnLogSoftmax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return RunExecutor("aclnnLogSoftmax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLayerNormGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional,
    const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional,
    aclTensor* rstdOutOptional, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aicore::ops;
  constexpr const char* kApi = "aclnnLayerNorm";
  LayerNormArgs a;
  aclnnStatus s = ToRef(kApi, "input", input, &a.input);
  if (s != ACLNN_SUCCESS) return s;
  if (normalizedShape == nullptr) {
    return Report(kApi, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape is null");
  }
  a.normalized_shape = normalizedShape->values;
  if ((s = ToOptionalRef(kApi, "weightOptional", weightOptional, &a.weight)) != ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "biasOptional", biasOptional, &a.bias)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "out", out, &a.out)) != ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "meanOutOptional", meanOutOptional, &a.mean)) != ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "rstdOutOptional", rstdOutOptional, &a.rstd)) != ACLNN_SUCCESS ||
      (s = CheckOutPointers(kApi, workspaceSize, executor)) != ACLNN_SUCCESS) {
    return s;
  }
  a.eps = eps;
  return Prepare<LayerNormArgs>(
      kApi, a,
      [](LayerNormArgs& x) {
        return std::vector<TensorRef*>{&x.input, Opt(x.weight), Opt(x.bias)};
      },
      [](LayerNormArgs& x) {
        return std::vector<TensorRef*>{&x.out, Opt(x.mean), Opt(x.rstd)};
      },
      workspaceSize, executor);
}
aclnnStatus aclnnLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                           aclrtStream stream) {
  return RunExecutor("aclnnLayerNorm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                         const aclTensor* yOut, const aclTensor* rstdOut,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aicore::ops;
  constexpr const char* kApi = "aclnnRmsNorm";
  RmsNormArgs a;
  aclnnStatus s;
  if ((s = ToRef(kApi, "x", x, &a.x)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "gamma", gamma, &a.gamma)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "yOut", yOut, &a.y)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "rstdOut", rstdOut, &a.rstd)) != ACLNN_SUCCESS ||
      (s = CheckOutPointers(kApi, workspaceSize, executor)) != ACLNN_SUCCESS) {
    return s;
  }
  a.epsilon = epsilon;
  return Prepare<RmsNormArgs>(
      kApi, a,
      [](RmsNormArgs& v) {
        return std::vector<TensorRef*>{&v.x, &v.gamma};
      },
      [](RmsNormArgs& v) {
        return std::vector<TensorRef*>{&v.y, &v.rstd};
      },
      workspaceSize, executor);
}
aclnnStatus aclnnRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return RunExecutor("aclnnRmsNorm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
                                        aclTensor* out, int8_t cubeMathType,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::MatmulEntry("aclnnMatmul", MatmulKind::kMatmul, self, nullptr, mat2, nullptr,
                                  nullptr, out, cubeMathType, workspaceSize, executor);
}
aclnnStatus aclnnMatmul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) {
  return RunExecutor("aclnnMatmul", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                    int8_t cubeMathType, uint64_t* workspaceSize,
                                    aclOpExecutor** executor) {
  return aicore::ops::MatmulEntry("aclnnMm", MatmulKind::kMm, self, nullptr, mat2, nullptr, nullptr,
                                  out, cubeMathType, workspaceSize, executor);
}
aclnnStatus aclnnMm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                    aclrtStream stream) {
  return RunExecutor("aclnnMm", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
                                             aclTensor* out, int8_t cubeMathType,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::MatmulEntry("aclnnBatchMatMul", MatmulKind::kBatchMatMul, self, nullptr, mat2,
                                  nullptr, nullptr, out, cubeMathType, workspaceSize, executor);
}
aclnnStatus aclnnBatchMatMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return RunExecutor("aclnnBatchMatMul", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1,
                                       const aclTensor* mat2, const aclScalar* beta,
                                       const aclScalar* alpha, aclTensor* out, int8_t cubeMathType,
                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::MatmulEntry("aclnnAddmm", MatmulKind::kAddmm, self, mat1, mat2, beta, alpha,
                                  out, cubeMathType, workspaceSize, executor);
}
aclnnStatus aclnnAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream) {
  return RunExecutor("aclnnAddmm", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* mat1,
                                              const aclTensor* mat2, const aclScalar* beta,
                                              const aclScalar* alpha, int8_t cubeMathType,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  return aicore::ops::MatmulEntry("aclnnInplaceAddmm", MatmulKind::kAddmm, selfRef, mat1, mat2,
                                  beta, alpha, selfRef, cubeMathType, workspaceSize, executor);
}
aclnnStatus aclnnInplaceAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream) {
  return RunExecutor("aclnnInplaceAddmm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                 const aclTensor* output, int64_t dim,
                                                 aclTensor* out, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor) {
  using namespace aicore::ops;
  constexpr const char* kApi = "aclnnSoftmaxBackward";
  SoftmaxBackwardArgs a;
  a.dim = dim;
  aclnnStatus s;
  if ((s = ToRef(kApi, "gradOutput", gradOutput, &a.grad_output)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "output", output, &a.output)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "out", out, &a.out)) != ACLNN_SUCCESS ||
      (s = CheckOutPointers(kApi, workspaceSize, executor)) != ACLNN_SUCCESS) {
    return s;
  }
  return Prepare<SoftmaxBackwardArgs>(
      kApi, a,
      [](SoftmaxBackwardArgs& x) {
        return std::vector<TensorRef*>{&x.grad_output, &x.output};
      },
      [](SoftmaxBackwardArgs& x) { return std::vector<TensorRef*>{&x.out}; }, workspaceSize,
      executor);
}
aclnnStatus aclnnSoftmaxBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream) {
  return RunExecutor("aclnnSoftmaxBackward", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape,
    const aclTensor* mean, const aclTensor* rstd, const aclTensor* weightOptional,
    const aclTensor* biasOptional, const aclBoolArray* outputMask, aclTensor* gradInputOut,
    aclTensor* gradWeightOut, aclTensor* gradBiasOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aicore::ops;
  constexpr const char* kApi = "aclnnLayerNormBackward";
  LayerNormBackwardArgs a;
  aclnnStatus s;
  if ((s = ToRef(kApi, "gradOut", gradOut, &a.grad_out)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "input", input, &a.input)) != ACLNN_SUCCESS) {
    return s;
  }
  if (normalizedShape == nullptr) {
    return Report(kApi, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape is null");
  }
  a.normalized_shape = normalizedShape->values;
  if ((s = ToRef(kApi, "mean", mean, &a.mean)) != ACLNN_SUCCESS ||
      (s = ToRef(kApi, "rstd", rstd, &a.rstd)) != ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "weightOptional", weightOptional, &a.weight)) != ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "biasOptional", biasOptional, &a.bias)) != ACLNN_SUCCESS) {
    return s;
  }
  if (outputMask == nullptr) return Report(kApi, ACLNN_ERR_PARAM_NULLPTR, "outputMask is null");
  a.output_mask = outputMask->values;
  // An output whose mask entry is false may be null; CanImplement reports a true entry's null.
  if ((s = ToOptionalRef(kApi, "gradInputOut", gradInputOut, &a.grad_input)) != ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "gradWeightOut", gradWeightOut, &a.grad_weight)) !=
          ACLNN_SUCCESS ||
      (s = ToOptionalRef(kApi, "gradBiasOut", gradBiasOut, &a.grad_bias)) != ACLNN_SUCCESS ||
      (s = CheckOutPointers(kApi, workspaceSize, executor)) != ACLNN_SUCCESS) {
    return s;
  }
  return Prepare<LayerNormBackwardArgs>(
      kApi, a,
      [](LayerNormBackwardArgs& x) {
        return std::vector<TensorRef*>{&x.grad_out, &x.input,      &x.mean,
                                       &x.rstd,     Opt(x.weight), Opt(x.bias)};
      },
      [](LayerNormBackwardArgs& x) {
        return std::vector<TensorRef*>{Opt(x.grad_input), Opt(x.grad_weight), Opt(x.grad_bias)};
      },
      workspaceSize, executor);
}
aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return RunExecutor("aclnnLayerNormBackward", workspace, workspaceSize, executor, stream);
}

}  // extern "C"

aclnnStatus aclnnAicoreMatmulEpilogueGetWorkspaceSize(const aclTensor* a, const aclTensor* b,
                                                      const aclTensor* biasOptional,
                                                      const aclTensor* residualOptional,
                                                      double alpha, double beta, int64_t activation,
                                                      aclTensor* out, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor) {
  return aicore::ops::MatmulEpilogueEntry("aclnnAicoreMatmulEpilogue", a, b, biasOptional,
                                          residualOptional, alpha, beta, activation, out,
                                          workspaceSize, executor);
}
aclnnStatus aclnnAicoreMatmulEpilogue(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream) {
  return RunExecutor("aclnnAicoreMatmulEpilogue", workspace, workspaceSize, executor, stream);
}
