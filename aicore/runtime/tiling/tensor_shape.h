// AscendC::TensorShape: the shape the high-level APIs' host tiling functions take (ge::Shape in
// CANN): a list of int64 dimensions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace AscendC {

class TensorShape {
 public:
  TensorShape() = default;
  explicit TensorShape(const std::vector<int64_t>& dims) : dims_(dims) {}
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}

  // Returns dimension `idx`, or 0 when idx >= GetDimNum().
  int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
  size_t GetDimNum() const { return dims_.size(); }
  // Returns the product of the dimensions (1 for a scalar shape, 0 if a dimension is <= 0).
  int64_t GetShapeSize() const {
    int64_t n = 1;
    for (int64_t d : dims_) {
      if (d <= 0) return 0;
      n *= d;
    }
    return n;
  }
  void SetDim(size_t idx, int64_t v) {
    if (idx < dims_.size()) dims_[idx] = v;
  }
  const std::vector<int64_t>& GetDims() const { return dims_; }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace AscendC
