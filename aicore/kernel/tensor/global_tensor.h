// GlobalTensor<T>: a view of GM (host memory) with an optional extent. With a size, copies and
// scalar accesses beyond it are errors; SetGlobalBuffer(ptr) without a size leaves it unchecked
// (GetSize() returns 0, as in AscendC).
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/shape_info.h"
#include "aicore/kernel/types.h"

namespace AscendC {

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;

  GlobalTensor() = default;

  // Views `size` elements starting at `buffer`.
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t size) {
    addr_ = buffer;
    size_ = size;
  }
  // Views memory starting at `buffer` with no known extent (not bounds-checked).
  void SetGlobalBuffer(__gm__ T* buffer) {
    addr_ = buffer;
    size_ = 0;
  }

  // Returns the tensor starting `offset` elements in.
  GlobalTensor operator[](uint64_t offset) const {
    if (size_ != 0 && offset > size_) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, "GlobalTensor::operator[]",
                   detail::SrcLoc::current(), "offset ", offset, " is past the tensor's ", size_,
                   " elements");
    }
    GlobalTensor t = *this;
    t.addr_ += offset;
    if (size_ != 0) t.size_ = size_ - offset;
    if (size_ != 0 && t.size_ == 0) t.exhausted_ = true;
    return t;
  }

  T GetValue(uint64_t offset, detail::SrcLoc loc = detail::SrcLoc::current()) const {
    CheckIndex("GlobalTensor::GetValue", offset, loc);
    auto& core = detail::Core();
    AICORE_ISSUE(core, detail::ScalarInstr(core, "GetValue", false, addr_ + offset, sizeof(T),
                                           aicore::DTypeOf<T>(), loc));
    return addr_[offset];
  }
  void SetValue(uint64_t offset, T value, detail::SrcLoc loc = detail::SrcLoc::current()) const {
    CheckIndex("GlobalTensor::SetValue", offset, loc);
    auto& core = detail::Core();
    AICORE_ISSUE(core, detail::ScalarInstr(core, "SetValue", true, addr_ + offset, sizeof(T),
                                           aicore::DTypeOf<T>(), loc));
    addr_[offset] = value;
  }
  T& operator()(uint64_t offset) const {
    CheckIndex("GlobalTensor::operator()", offset, detail::SrcLoc::current());
    return addr_[offset];
  }

  uint64_t GetSize() const { return size_; }
  __gm__ T* GetPhyAddr() const { return addr_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
  void SetL2CacheHint(CacheMode) {}
  // Attaches a shape (see LocalTensor::SetShapeInfo).
  void SetShapeInfo(const ShapeInfo& info) { shape_info_ = info; }
  ShapeInfo GetShapeInfo() const { return shape_info_; }

  template <typename U>
  GlobalTensor<U> ReinterpretCast() const {
    GlobalTensor<U> t;
    t.SetGlobalBuffer(reinterpret_cast<__gm__ U*>(addr_), size_ * sizeof(T) / sizeof(U));
    return t;
  }

  // --- aicore internals ---
  T* data() const { return addr_; }
  // True when the extent is known (a view at the very end has extent 0 but is still checked).
  bool bounded() const { return size_ != 0 || exhausted_; }

 private:
  void CheckIndex(const char* api, uint64_t offset, const detail::SrcLoc& loc) const {
    if (addr_ == nullptr) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                   "GlobalTensor has no buffer (call SetGlobalBuffer first)");
    }
    if (bounded() && offset >= size_) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, "offset ", offset,
                   " is past the tensor's ", size_, " elements");
    }
  }

  T* addr_ = nullptr;
  uint64_t size_ = 0;
  bool exhausted_ = false;
  ShapeInfo shape_info_;
};

}  // namespace AscendC
