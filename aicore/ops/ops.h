// The operator library from C++: the aclnn operators as functions on TensorRef views of device
// memory (aclrtMalloc / rt::DeviceMalloc / GmAlloc memory). Each checks its arguments (an
// InvalidArgument Status with the same message aclGetRecentErrMsg would give), plans, takes its
// workspace from the device allocator and enqueues the work on `stream` (nullptr: the default
// stream) without waiting: synchronize the stream before reading the outputs.
#pragma once

#include <cstdint>
#include <vector>

#include "aicore/ops/attention/flash_attention.h"
#include "aicore/ops/elementwise/elementwise.h"
#include "aicore/ops/framework/operator.h"
#include "aicore/ops/matmul/matmul.h"
#include "aicore/ops/matmul/matmul_epilogue.h"
#include "aicore/ops/normalization/norm.h"
#include "aicore/ops/softmax/softmax.h"

namespace aicore::ops {

// out = self + alpha * other (broadcast).
Status Add(const TensorRef& self, const TensorRef& other, double alpha, const TensorRef& out,
           const void* stream = nullptr);
// out = self + alpha * other for a scalar other.
Status Adds(const TensorRef& self, double other, double alpha, const TensorRef& out,
            const void* stream = nullptr);
// out = self * other (broadcast).
Status Mul(const TensorRef& self, const TensorRef& other, const TensorRef& out,
           const void* stream = nullptr);
Status Muls(const TensorRef& self, double other, const TensorRef& out,
            const void* stream = nullptr);
Status Silu(const TensorRef& self, const TensorRef& out, const void* stream = nullptr);
// The tanh form.
Status Gelu(const TensorRef& self, const TensorRef& out, const void* stream = nullptr);
// approximate 1: tanh form; anything else: erf form (as aclnnGeluV2).
Status GeluV2(const TensorRef& x, int64_t approximate, const TensorRef& y,
              const void* stream = nullptr);
Status Softmax(const TensorRef& self, int64_t dim, const TensorRef& out,
               const void* stream = nullptr);
Status LogSoftmax(const TensorRef& self, int64_t dim, const TensorRef& out,
                  const void* stream = nullptr);
// weight, bias, mean, rstd: nullptr when absent.
Status LayerNorm(const TensorRef& input, const std::vector<int64_t>& normalized_shape,
                 const TensorRef* weight, const TensorRef* bias, double eps, const TensorRef& out,
                 const TensorRef* mean, const TensorRef* rstd, const void* stream = nullptr);
Status RmsNorm(const TensorRef& x, const TensorRef& gamma, double epsilon, const TensorRef& y,
               const TensorRef& rstd, const void* stream = nullptr);
// The gradient of Softmax along dim: out = output * (grad_output - sum_dim(grad_output * output)).
Status SoftmaxBackward(const TensorRef& grad_output, const TensorRef& output, int64_t dim,
                       const TensorRef& out, const void* stream = nullptr);
// The gradients of LayerNorm from the forward's mean and rstd ([A.., 1..1]); weight nullptr:
// ones. grad_input, grad_weight, grad_bias: nullptr to skip one (outputMask false).
Status LayerNormBackward(const TensorRef& grad_out, const TensorRef& input,
                         const std::vector<int64_t>& normalized_shape, const TensorRef& mean,
                         const TensorRef& rstd, const TensorRef* weight,
                         const TensorRef* grad_input, const TensorRef* grad_weight,
                         const TensorRef* grad_bias, const void* stream = nullptr);
// torch.matmul: 1-D operands get a dim that out lacks, batch dims broadcast (as aclnnMatmul).
// cube_math_type: kKeepDtype (0) .. kUseFp32Add (4), as aclnn's cubeMathType.
Status Matmul(const TensorRef& self, const TensorRef& mat2, const TensorRef& out,
              int8_t cube_math_type = kKeepDtype, const void* stream = nullptr);
// out (m, n) = self (m, k) @ mat2 (k, n).
Status Mm(const TensorRef& self, const TensorRef& mat2, const TensorRef& out,
          int8_t cube_math_type = kKeepDtype, const void* stream = nullptr);
// out (b, m, n) = self (b, m, k) @ mat2 (b, k, n); a batch of 1 broadcasts.
Status BatchMatMul(const TensorRef& self, const TensorRef& mat2, const TensorRef& out,
                   int8_t cube_math_type = kKeepDtype, const void* stream = nullptr);
// out = beta * self + alpha * mat1 @ mat2; self broadcasts to (m, n); beta 0 ignores self.
Status Addmm(const TensorRef& self, const TensorRef& mat1, const TensorRef& mat2, double beta,
             double alpha, const TensorRef& out, int8_t cube_math_type = kKeepDtype,
             const void* stream = nullptr);
// out = act(alpha * a @ b + beta * bias) + residual in one mix kernel (matmul_epilogue.h): a
// (batch.., M, K), b (batch.., K, N) with broadcasting batch dims, fp32 accumulation, out in a's
// dtype or FLOAT. bias, residual: nullptr when absent; each broadcasts to out's shape.
Status MatmulEpilogue(const TensorRef& a, const TensorRef& b, const TensorRef* bias,
                      const TensorRef* residual, double alpha, double beta, Activation activation,
                      const TensorRef& out, const void* stream = nullptr);
// The same result from the library's separate operators through GM, for comparison with the
// fused kernel: t = a @ b (Matmul into an fp32 device buffer), t = alpha * t (Muls, when
// alpha != 1), t = t + beta * bias (Add), t = act(t) (Relu / GeluV2 / Silu), out = t + residual
// (Add; Muls by 1 without a residual). Checks as MatmulEpilogue; the buffer is freed once the
// stream has run the chain.
Status MatmulEpilogueUnfused(const TensorRef& a, const TensorRef& b, const TensorRef* bias,
                             const TensorRef* residual, double alpha, double beta,
                             Activation activation, const TensorRef& out,
                             const void* stream = nullptr);

// Runs any operator's Arguments through CanImplement, Plan and Launch on the default chip.
Status Run(const ElementwiseArgs& args, const void* stream = nullptr);
Status Run(const SoftmaxArgs& args, const void* stream = nullptr);
Status Run(const LayerNormArgs& args, const void* stream = nullptr);
Status Run(const RmsNormArgs& args, const void* stream = nullptr);
Status Run(const MatmulArgs& args, const void* stream = nullptr);
Status Run(const MatmulEpilogueArgs& args, const void* stream = nullptr);
Status Run(const SoftmaxBackwardArgs& args, const void* stream = nullptr);
Status Run(const LayerNormBackwardArgs& args, const void* stream = nullptr);

}  // namespace aicore::ops
