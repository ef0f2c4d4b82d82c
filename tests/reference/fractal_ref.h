// Scalar references for the cube's fractal formats (ascendc-reference.md §3.3): element offsets of
// ND, Nz, Zz, Zn and L0C-Nz, whole-matrix conversions, and the Nd2NzParams copy, as plain loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aicore::ref {

// Rows (M0 = N0) of every fractal.
inline constexpr size_t kFractalRows = 16;
// Bytes of one C0 block, the inner width of Nz/Zz/Zn fractals.
inline constexpr size_t kC0Bytes = 32;

inline constexpr size_t CeilDivRef(size_t a, size_t b) { return (a + b - 1) / b; }
inline constexpr size_t RoundUpRef(size_t a, size_t b) { return CeilDivRef(a, b) * b; }

// Returns K0 = C0 in elements of T: 8 for fp32/int32, 16 for fp16/bf16, 32 for int8.
template <typename T>
constexpr size_t K0Of() {
  return kC0Bytes / sizeof(T);
}

// --- Element offsets (in elements) inside a padded buffer -----------------------------------

// Nz(rows, cols) with inner width c0: fractal columns of c0 elements, each `rows_padded` rows tall
// (rows_padded = M1 * 16 in the documented layout; any row count >= rows is allowed).
inline size_t NzOffset(size_t row, size_t col, size_t rows_padded, size_t c0) {
  return ((col / c0) * rows_padded + row) * c0 + col % c0;
}

// Zz(M, K) (L0A): fractals row-major over (m1, k1), K1 = k_padded / k0; inside, row-major 16 x k0.
inline size_t ZzOffset(size_t m, size_t k, size_t k1_count, size_t k0) {
  return (((m / 16) * k1_count + k / k0) * 16 + m % 16) * k0 + k % k0;
}

// Zn(K, N) (L0B): fractals row-major over (k1, n1), N1 = n_padded / 16; inside, column-major
// (16 n-values, each a run of k0 k-values).
inline size_t ZnOffset(size_t k, size_t n, size_t n1_count, size_t k0) {
  return (((k / k0) * n1_count + n / 16) * 16 + n % 16) * k0 + k % k0;
}

// L0C Nz(M, N) with 16 x 16 fractals: ((n/16 * M1 + m/16) * 16 + m%16) * 16 + n%16.
inline size_t L0cOffset(size_t m, size_t n, size_t m1_count) {
  return (((n / 16) * m1_count + m / 16) * 16 + m % 16) * 16 + n % 16;
}

// --- Whole-matrix conversions (padding is zero) ----------------------------------------------

// Converts an ND (rows, cols) matrix with row pitch `ld` (elements) to Nz with inner width c0
// (default K0 of T), rows padded to 16 and cols to c0. Size RoundUp(rows,16) * RoundUp(cols,c0).
template <typename T>
std::vector<T> NdToNz(const T* nd, size_t rows, size_t cols, size_t ld, size_t c0 = K0Of<T>()) {
  const size_t rp = RoundUpRef(rows, 16);
  std::vector<T> out(rp * RoundUpRef(cols, c0), T{});
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[NzOffset(r, c, rp, c0)] = nd[r * ld + c];
  return out;
}

// Converts Nz (rows_padded tall fractal columns, inner width c0) back to a dense ND (rows, cols).
template <typename T>
std::vector<T> NzToNd(const T* nz, size_t rows, size_t cols, size_t rows_padded,
                      size_t c0 = K0Of<T>()) {
  std::vector<T> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = nz[NzOffset(r, c, rows_padded, c0)];
  return out;
}

// Converts ND A(M, K) (row pitch ld) to Zz; size RoundUp(M,16) * RoundUp(K,K0).
template <typename T>
std::vector<T> NdToZz(const T* nd, size_t m, size_t k, size_t ld) {
  const size_t k0 = K0Of<T>();
  const size_t k1 = CeilDivRef(k, k0);
  std::vector<T> out(RoundUpRef(m, 16) * k1 * k0, T{});
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < k; ++j) out[ZzOffset(i, j, k1, k0)] = nd[i * ld + j];
  return out;
}

// Converts Zz back to dense ND A(M, K); k_padded is K1 * K0 of the buffer.
template <typename T>
std::vector<T> ZzToNd(const T* zz, size_t m, size_t k, size_t k_padded) {
  const size_t k0 = K0Of<T>();
  std::vector<T> out(m * k);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < k; ++j) out[i * k + j] = zz[ZzOffset(i, j, k_padded / k0, k0)];
  return out;
}

// Converts ND B(K, N) (row pitch ld) to Zn; size RoundUp(K,K0) * RoundUp(N,16).
template <typename T>
std::vector<T> NdToZn(const T* nd, size_t k, size_t n, size_t ld) {
  const size_t k0 = K0Of<T>();
  const size_t n1 = CeilDivRef(n, 16);
  std::vector<T> out(RoundUpRef(k, k0) * n1 * 16, T{});
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < n; ++j) out[ZnOffset(i, j, n1, k0)] = nd[i * ld + j];
  return out;
}

// Converts Zn back to dense ND B(K, N); n_padded is N1 * 16 of the buffer.
template <typename T>
std::vector<T> ZnToNd(const T* zn, size_t k, size_t n, size_t n_padded) {
  const size_t k0 = K0Of<T>();
  std::vector<T> out(k * n);
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < n; ++j) out[i * n + j] = zn[ZnOffset(i, j, n_padded / 16, k0)];
  return out;
}

// Converts ND C(M, N) (row pitch ld) to L0C Nz (16 x 16 fractals); size
// RoundUp(M,16)*RoundUp(N,16).
template <typename T>
std::vector<T> NdToL0c(const T* nd, size_t m, size_t n, size_t ld) {
  const size_t m1 = CeilDivRef(m, 16);
  std::vector<T> out(m1 * 16 * RoundUpRef(n, 16), T{});
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) out[L0cOffset(i, j, m1)] = nd[i * ld + j];
  return out;
}

// Converts L0C Nz (M1 = m_padded / 16) back to dense ND C(M, N).
template <typename T>
std::vector<T> L0cToNd(const T* nz, size_t m, size_t n, size_t m_padded) {
  std::vector<T> out(m * n);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) out[i * n + j] = nz[L0cOffset(i, j, m_padded / 16)];
  return out;
}

// --- DataCopy GM -> L1 with Nd2NzParams ------------------------------------------------------

// Applies DataCopy(dst, src, Nd2NzParams) to a copy of `dst` (elements of T) and returns it.
// For matrix i, ND element (r, c) at src[i*src_nd_matrix_stride + r*src_d_value + c] goes to
// dst[i*dst_nz_matrix_stride + (c/C0)*dst_nz_c0_stride*C0 + r*dst_nz_n_stride*C0 + c%C0];
// the tail of a partial last C0 block of every row is zero.
template <typename T>
std::vector<T> Nd2NzRef(std::vector<T> dst, const std::vector<T>& src, size_t nd_num,
                        size_t n_value, size_t d_value, size_t src_nd_matrix_stride,
                        size_t src_d_value, size_t dst_nz_c0_stride, size_t dst_nz_n_stride,
                        size_t dst_nz_matrix_stride) {
  const size_t c0 = K0Of<T>();
  for (size_t i = 0; i < nd_num; ++i)
    for (size_t r = 0; r < n_value; ++r)
      for (size_t c = 0; c < RoundUpRef(d_value, c0); ++c) {
        const size_t d = i * dst_nz_matrix_stride + (c / c0) * dst_nz_c0_stride * c0 +
                         r * dst_nz_n_stride * c0 + c % c0;
        dst[d] = c < d_value ? src[i * src_nd_matrix_stride + r * src_d_value + c] : T{};
      }
  return dst;
}

}  // namespace aicore::ref
