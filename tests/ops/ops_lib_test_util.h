// Helpers of the operator-library tests: device tensors filled from doubles in any float dtype,
// read back as doubles, dtype tolerances, deterministic inputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
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

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Returns the values of `view` over storage `stored`, row-major.
inline std::vector<double> Gather(const std::vector<double>& stored, const TensorRef& view) {
  const std::vector<int64_t> s = view.Strides();
  std::vector<double> out;
  const int64_t n = view.NumElements();
  std::vector<int64_t> idx(view.shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = view.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * s[d];
    out.push_back(stored[off]);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < view.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// A device operand: storage filled with values in [lo, hi), a view over it (strides, offset)
// and the view's values in row-major logical order.
struct Operand {
  std::unique_ptr<DeviceTensor> dev;
  std::vector<double> stored;
  TensorRef view;
  std::vector<double> logical;
};

inline Operand MakeOperand(DType dt, std::vector<int64_t> shape,
                           std::vector<int64_t> strides = {}, int64_t offset = 0,
                           uint32_t seed = 1, double lo = -1, double hi = 1) {
  Operand o;
  TensorRef v = DenseRef(nullptr, dt, shape);
  v.strides = strides;
  v.offset = offset;
  const std::vector<int64_t> s = v.Strides();
  int64_t span = 1;
  for (size_t d = 0; d < shape.size(); ++d) span += (shape[d] - 1) * s[d];
  const int64_t elems = Numel(shape) == 0 ? 1 : offset + span;
  o.dev = std::make_unique<DeviceTensor>(dt, elems);
  o.stored = o.dev->Fill(Inputs(elems, lo, hi, seed));
  o.view = o.dev->Ref(shape, strides, offset);
  o.logical = Numel(shape) == 0 ? std::vector<double>{} : Gather(o.stored, o.view);
  return o;
}

// Half an ulp of `dt` relative (the output rounding), with a margin of 2.
inline double OutputUnit(DType dt) {
  switch (dt) {
    case DType::kF16:
      return std::ldexp(1.0, -10);
    case DType::kBF16:
      return std::ldexp(1.0, -7);
    default:
      return std::ldexp(1.0, -23);
  }
}

}  // namespace aicore::ops::testing
