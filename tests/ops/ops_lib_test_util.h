// Helpers of the operator-library tests: device tensors filled from doubles in any float dtype,
// read back as doubles, dtype tolerances, deterministic inputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aicore/core/dtype.h"
#include "aicore/ops/ops.h"

namespace aicore::ops::testing {

// Device memory holding `elems` elements of `dtype`.
class DeviceTensor {
 public:
  DeviceTensor(DType dtype, int64_t elems) : dtype_(dtype), elems_(elems) {
    const size_t bytes = std::max<size_t>(1, elems * DTypeSize(dtype));
    EXPECT_EQ(aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::memset(data_, 0, bytes);
  }
  ~DeviceTensor() { aclrtFree(data_); }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  void* data() const { return data_; }
  DType dtype() const { return dtype_; }
  // Stores `v` rounded to the dtype; returns the stored values as doubles.
  std::vector<double> Fill(const std::vector<double>& v) {
    std::vector<double> stored(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      Set(i, v[i]);
      stored[i] = Get(i);
    }
    return stored;
  }
  std::vector<double> Read() const {
    std::vector<double> v(elems_);
    for (int64_t i = 0; i < elems_; ++i) v[i] = Get(i);
    return v;
  }
  // A view: contiguous `shape` unless strides are given.
  TensorRef Ref(std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                int64_t offset = 0) const {
    TensorRef t = DenseRef(data_, dtype_, std::move(shape));
    t.strides = std::move(strides);
    t.offset = offset;
    return t;
  }

 private:
  void Set(size_t i, double v) {
    uint8_t* p = static_cast<uint8_t*>(data_) + i * DTypeSize(dtype_);
    if (dtype_ == DType::kF16) {
      const half h(static_cast<float>(v));
      std::memcpy(p, &h, 2);
    } else if (dtype_ == DType::kBF16) {
      const bfloat16 b(static_cast<float>(v));
      std::memcpy(p, &b, 2);
    } else {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    }
  }
  double Get(size_t i) const {
    const uint8_t* p = static_cast<const uint8_t*>(data_) + i * DTypeSize(dtype_);
    if (dtype_ == DType::kF16) {
      half h;
      std::memcpy(&h, p, 2);
      return static_cast<float>(h);
    }
    if (dtype_ == DType::kBF16) {
      bfloat16 b;
      std::memcpy(&b, p, 2);
      return static_cast<float>(b);
    }
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  DType dtype_;
  int64_t elems_;
  void* data_ = nullptr;
};

// |got - want| <= atol + rtol |want|, per output dtype (fp32 compute, one rounding to the dtype).
struct Tolerance {
  double rtol, atol;
};
inline Tolerance TolFor(DType dt) {
  switch (dt) {
    case DType::kF16:
      return {2e-3, 1e-4};
    case DType::kBF16:
      return {1.6e-2, 1e-3};
    default:
      return {2e-5, 1e-6};
  }
}

inline void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                       Tolerance tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - want[i]);
    if (!(err <= tol.atol + tol.rtol * std::fabs(want[i]))) {
      if (++bad <= 5) {
        ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
      }
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements off";
}

// Deterministic values in [lo, hi).
inline std::vector<double> Inputs(int64_t n, double lo, double hi, uint32_t seed = 1) {
  std::vector<double> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  return v;
}

inline void Sync() {
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
}

inline const char* DTypeLabel(DType dt) { return OpDTypeName(dt); }

}  // namespace aicore::ops::testing
