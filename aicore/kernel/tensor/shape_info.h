// ShapeInfo: the shape (and original shape) and data format a LocalTensor or GlobalTensor may
// carry for the high-level APIs and DumpTensor; DataFormat, GetShapeSize and K_MAX_SHAPE_DIM.
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"

// Dimensions a ShapeInfo holds (AscendC's default 8). Define it before including
// kernel_operator.h to shrink every tensor; 0 leaves tensors without shape storage.
#ifndef K_MAX_SHAPE_DIM
#define K_MAX_SHAPE_DIM 8
#endif

namespace AscendC {

enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

struct ShapeInfo {
  // Leaves every field unset, as AscendC's default constructor does (dims read as 0 here).
  ShapeInfo() = default;
  // A `dim`-dimensional `shape` with an `original_dim`-dimensional original shape, both of at most
  // K_MAX_SHAPE_DIM entries (more is a kernel error).
  ShapeInfo(uint8_t dim, const uint32_t shape_in[], uint8_t original_dim,
            const uint32_t original_shape_in[], DataFormat format,
            detail::SrcLoc loc = detail::SrcLoc::current())
      : shapeDim(dim), originalShapeDim(original_dim), dataFormat(format) {
    CheckDim(dim, loc);
    CheckDim(original_dim, loc);
    for (int i = 0; i < dim; ++i) shape[i] = shape_in[i];
    for (int i = 0; i < original_dim; ++i) originalShape[i] = original_shape_in[i];
  }
  // A shape that is its own original shape, in `format`.
  ShapeInfo(uint8_t dim, const uint32_t shape_in[], DataFormat format,
            detail::SrcLoc loc = detail::SrcLoc::current())
      : ShapeInfo(dim, shape_in, dim, shape_in, format, loc) {}
  // An ND shape that is its own original shape.
  ShapeInfo(uint8_t dim, const uint32_t shape_in[], detail::SrcLoc loc = detail::SrcLoc::current())
      : ShapeInfo(dim, shape_in, dim, shape_in, DataFormat::ND, loc) {}

  uint8_t shapeDim = 0;
  uint8_t originalShapeDim = 0;
  uint32_t shape[K_MAX_SHAPE_DIM > 0 ? K_MAX_SHAPE_DIM : 1] = {};
  uint32_t originalShape[K_MAX_SHAPE_DIM > 0 ? K_MAX_SHAPE_DIM : 1] = {};
  DataFormat dataFormat = DataFormat::ND;

 private:
  static void CheckDim(uint8_t dim, const detail::SrcLoc& loc) {
    if (dim > K_MAX_SHAPE_DIM) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "ShapeInfo", loc, "dim ", int{dim},
                   " exceeds K_MAX_SHAPE_DIM (", K_MAX_SHAPE_DIM, ")");
    }
  }
};

// Returns the product of the shape's first shapeDim extents (1 for a 0-dimensional shape).
inline uint64_t GetShapeSize(const ShapeInfo& info) {
  uint64_t n = 1;
  for (int i = 0; i < info.shapeDim && i < K_MAX_SHAPE_DIM; ++i) n *= info.shape[i];
  return n;
}

}  // namespace AscendC
