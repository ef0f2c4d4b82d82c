// The operators as the PyTorch extension calls them: each runs one aicore operator
// (aicore/ops/ops.h) on views of memory the caller owns (a CPU tensor's storage: the kernels read
// and write it in place) and waits for it on the current device's default stream. Plain C++, so
// the torch translation units include neither the operator library's kernel templates nor
// pybind11, and the library's translation units never see torch.
//
// Every function throws aicore::Error whose message starts with `op` (the name the user called,
// "aicore::softmax") and names the argument, the value and what is allowed; an error of the
// kernel itself (raised on the stream) is thrown the same way after the wait.
#pragma once

#include <cstdint>
#include <vector>

#include "aicore/core/dtype.h"

namespace aicore::python {

// A strided view: element (i0, .., ik) is at data + sum(i_j * strides[j]) * DTypeSize(dtype).
struct View {
  void* data = nullptr;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // elements; may be 0 (broadcast)
};

// out = softmax (or log_softmax when `log`) of `self` along `dim` (in [-rank, rank)).
void RunSoftmax(const char* op, const View& self, int64_t dim, bool log, const View& out);
// out = layer norm of `input` over its trailing `normalized_shape`; mean and rstd (shape of
// input with 1 on the normalized dims) are written too. weight, bias: nullptr when absent.
void RunLayerNorm(const char* op, const View& input, const std::vector<int64_t>& normalized_shape,
                  const View* weight, const View* bias, double eps, const View& out,
                  const View& mean, const View& rstd);
// out = input * rsqrt(mean(input^2 over weight's dims) + eps) * weight; rstd as for LayerNorm.
void RunRmsNorm(const char* op, const View& input, const View& weight, double eps,
                const View& out, const View& rstd);

enum class UnaryKind { kSilu, kGeluErf, kGeluTanh };
// out = kind(self), elementwise.
void RunUnary(const char* op, UnaryKind kind, const View& self, const View& out);

// out = self @ other with torch.matmul's rules (1-D operands, batch dims broadcast; ranks 1..6),
// computed by aicore's cube Matmul with fp32 accumulation (ops::Matmul).
void RunMatmul(const char* op, const View& self, const View& other, const View& out);
// out (m, n) = beta * self + alpha * mat1 (m, k) @ mat2 (k, n); self broadcasts to (m, n)
// (ops::Addmm).
void RunAddmm(const char* op, const View& self, const View& mat1, const View& mat2, double beta,
              double alpha, const View& out);

enum class EpilogueAct { kNone, kRelu, kGeluErf, kGeluTanh, kSilu };
// out (m, n) = act(a (m, k) @ b (k, n) + bias) in one mix kernel (ops::MatmulEpilogue); bias
// broadcasts to (m, n); a and b may be transposed views (read in place).
void RunMatmulEpilogue(const char* op, const View& a, const View& b, const View& bias,
                       EpilogueAct act, const View& out);

// Flash attention on BNSD views (ops::FlashAttentionForward): out = softmax(scale * q k^T with
// the masked positions removed) v. mask: nullptr, or a U8 view (1 = masked out) shaped [Sq, Skv]
// or [B|1, N|1, Sq, Skv] (sparse mode 1); causal: j <= i (sparse mode 2, the mask ignored).
// softmax_max / softmax_sum: fp32 [B, N, Sq, 8], written for the backward.
void RunFlashAttention(const char* op, const View& q, const View& k, const View& v,
                       const View* mask, bool causal, double scale, const View& softmax_max,
                       const View& softmax_sum, const View& out);
// The gradients of RunFlashAttention's call from its statistics and output
// (ops::FlashAttentionBackward); dq, dk, dv shaped as q, k, v.
void RunFlashAttentionBackward(const char* op, const View& dy, const View& q, const View& k,
                               const View& v, const View* mask, bool causal, double scale,
                               const View& softmax_max, const View& softmax_sum,
                               const View& out, const View& dq, const View& dk, const View& dv);

// out = self + alpha * other (NumPy broadcasting, fp32/fp16/bf16 promotion; ops::Add).
void RunAdd(const char* op, const View& self, const View& other, double alpha, const View& out);
// out = self + alpha * scalar (ops::Adds).
void RunAddScalar(const char* op, const View& self, double scalar, double alpha, const View& out);
// out = self * other, broadcasting (ops::Mul).
void RunMul(const char* op, const View& self, const View& other, const View& out);
// out = self * scalar (ops::Muls).
void RunMulScalar(const char* op, const View& self, double scalar, const View& out);

// out = output * (grad_output - sum_dim(grad_output * output)) (ops::SoftmaxBackward).
void RunSoftmaxBackward(const char* op, const View& grad_output, const View& output, int64_t dim,
                        const View& out);
// The gradients of layer norm from the forward's mean and rstd (ops::LayerNormBackward); weight:
// nullptr for ones; grad_input, grad_weight, grad_bias: nullptr to skip one.
void RunLayerNormBackward(const char* op, const View& grad_out, const View& input,
                          const std::vector<int64_t>& normalized_shape, const View& mean,
                          const View& rstd, const View* weight, const View* grad_input,
                          const View* grad_weight, const View* grad_bias);

}  // namespace aicore::python
