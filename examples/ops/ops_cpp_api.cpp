// ops_cpp_api: the operator library from C++ without the aclnn C API: softmax over dim 0 of a
// (rows, cols) bf16 tensor (a non-last dim: the library stages it), RMS norm of its rows, and a
// matmul of the result by a transposed bf16 weight (read in place) into fp32, on device pointers
// described by aicore::ops::TensorRef, checked against double precision.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aicore/ops/ops.h"

int main() {
  using aicore::DType;
  namespace ops = aicore::ops;
  const int64_t rows = 67, cols = 130;
  const int64_t outs = 16;
  void *x, *y, *gamma, *z, *rstd, *w, *o;
  aclrtMalloc(&w, outs * cols * 2, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&o, rows * outs * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  auto* hw = static_cast<aicore::bfloat16*>(w);
  for (int64_t i = 0; i < outs * cols; ++i) hw[i] = aicore::bfloat16(std::cos(0.1f * i));
  aclrtMalloc(&x, rows * cols * 2, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, rows * cols * 2, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&z, rows * cols * 2, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&gamma, cols * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&rstd, rows * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  auto* hx = static_cast<aicore::bfloat16*>(x);
  for (int64_t i = 0; i < rows * cols; ++i) hx[i] = aicore::bfloat16(std::sin(0.3f * i) * 2);
  for (int64_t c = 0; c < cols; ++c) static_cast<float*>(gamma)[c] = 1.0f + 0.01f * c;

  const ops::TensorRef tx = ops::DenseRef(x, DType::kBF16, {rows, cols});
  const ops::TensorRef ty = ops::DenseRef(y, DType::kBF16, {rows, cols});
  const ops::TensorRef tz = ops::DenseRef(z, DType::kBF16, {rows, cols});
  aicore::Status s = ops::Softmax(tx, 0, ty);  // enqueued on the default stream
  if (s.ok()) {
    s = ops::RmsNorm(ty, ops::DenseRef(gamma, DType::kF32, {cols}), 1e-6, tz,
                     ops::DenseRef(rstd, DType::kF32, {rows, 1}));
  }
  // o (rows, outs) = z @ w^T: w is stored (outs, cols); its transpose is a strided view.
  ops::TensorRef wt = ops::DenseRef(w, DType::kBF16, {cols, outs});
  wt.strides = {1, cols};
  if (s.ok()) s = ops::Mm(tz, wt, ops::DenseRef(o, DType::kF32, {rows, outs}));
  if (!s.ok() || aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
    std::printf("ops_cpp_api failed: %s\n", s.ToString().c_str());
    return 1;
  }
  int bad = 0;
  std::vector<double> sm(rows * cols);
  for (int64_t c = 0; c < cols; ++c) {
    double m = -INFINITY, sum = 0;
    for (int64_t r = 0; r < rows; ++r) m = std::fmax(m, float(hx[r * cols + c]));
    for (int64_t r = 0; r < rows; ++r) sum += std::exp(float(hx[r * cols + c]) - m);
    for (int64_t r = 0; r < rows; ++r)
      sm[r * cols + c] = std::exp(float(hx[r * cols + c]) - m) / sum;
  }
  const auto* hy = static_cast<const aicore::bfloat16*>(y);
  const auto* hz = static_cast<const aicore::bfloat16*>(z);
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double v = float(hy[r * cols + c]);  // RmsNorm's input as stored (bf16)
      if (std::fabs(v - sm[r * cols + c]) > 1e-2 * sm[r * cols + c] + 1e-6) ++bad;
      ss += v * v;
    }
    const double rs = 1 / std::sqrt(ss / cols + 1e-6);
    for (int64_t c = 0; c < cols; ++c) {
      const double want = float(hy[r * cols + c]) * rs * (1.0 + 0.01 * c);
      if (std::fabs(float(hz[r * cols + c]) - want) > 1e-2 * std::fabs(want) + 1e-6) ++bad;
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < outs; ++j) {
      double want = 0, mag = 0;
      for (int64_t c = 0; c < cols; ++c) {
        want += double(float(hz[r * cols + c])) * float(hw[j * cols + c]);
        mag += std::fabs(double(float(hz[r * cols + c])) * float(hw[j * cols + c]));
      }
      if (std::fabs(static_cast<float*>(o)[r * outs + j] - want) > 1e-5 * mag + 1e-6) ++bad;
    }
  }
  std::printf("ops_cpp_api: softmax(dim 0) + rms_norm + mm on %lld x %lld bf16, check=%s\n",
              static_cast<long long>(rows), static_cast<long long>(cols),
              bad == 0 ? "pass" : "FAIL");
  for (void* p : {x, y, z, gamma, rstd, w, o}) aclrtFree(p);
  return bad == 0 ? 0 : 1;
}
