// GlobalTensor<T>: a view of GM (host memory) with an extent. With a size, copies and scalar
// accesses beyond it are errors. Without one (SetGlobalBuffer(ptr)), GetSize() returns 0 as in
// AscendC and the extent comes from the GmAlloc or device allocation containing `ptr`, so those
// accesses are checked too; a pointer into a freed allocation makes every use an error, and a
// pointer nobody allocated through aicore stays unchecked. See Note [GM extents].
#pragma once

#include <cstdint>
#include <string>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/shape_info.h"
#include "aicore/kernel/types.h"
#include "aicore/sim/gm_copies.h"
#include "aicore/sim/gm_registry.h"

namespace AscendC {

namespace detail {

// What a GlobalTensor knows about the bytes behind it.
enum class GmExtent : uint8_t {
  kUnknown,  // no size given and no registered allocation: accesses are not checked
  kBounded,  // extent_bytes() bytes from data() may be accessed (0 is a valid, empty view)
  kFreed,    // data() lies in an allocation freed before SetGlobalBuffer: every use fails
};

// Returns the extent in bytes of a view of `requested` bytes at `p` (UINT64_MAX: no size), the
// state, and the registered allocation that bounds it (See Note [GM extents]).
struct GmView {
  GmExtent state;
  uint64_t bytes;
};
inline GmView ResolveGmView(const void* p, uint64_t requested) {
  const aicore::sim::GmBlock b = aicore::sim::FindGmBlock(p);
  switch (b.state) {
    case aicore::sim::GmBlockState::kLive:
      // A size larger than the allocation is bounded by the allocation.
      return {GmExtent::kBounded, std::min(requested, b.BytesFrom(p))};
    case aicore::sim::GmBlockState::kFreed:
      return {GmExtent::kFreed, 0};
    case aicore::sim::GmBlockState::kUnknown:
      break;
  }
  return requested == UINT64_MAX ? GmView{GmExtent::kUnknown, 0}
                                 : GmView{GmExtent::kBounded, requested};
}

// Returns a sentence naming where the extent of a view at `p` comes from (for error messages).
// `sized`: the view was given a size (`size` elements, possibly 0 after a ReinterpretCast).
std::string DescribeGmExtent(const void* p, uint64_t extent_bytes, bool sized, uint64_t size,
                             uint32_t elem, GmExtent state);

}  // namespace detail

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;

  GlobalTensor() = default;

  // Views `size` elements starting at `buffer`. When `buffer` lies in a GmAlloc or device
  // allocation that ends sooner, the allocation's end bounds the accesses.
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t size) {
    if (aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull()) ++core->work;
    addr_ = buffer;
    size_ = size;
    sized_ = true;
    const uint64_t bytes = size > UINT64_MAX / sizeof(T) ? UINT64_MAX - 1 : size * sizeof(T);
    const detail::GmView v = detail::ResolveGmView(buffer, bytes);
    state_ = v.state;
    extent_bytes_ = v.bytes;
  }
  // Views memory starting at `buffer` with no size (GetSize() returns 0); the extent is the rest
  // of the GmAlloc or device allocation containing `buffer`, or unknown (unchecked).
  void SetGlobalBuffer(__gm__ T* buffer) {
    if (aicore::sim::Core* core = aicore::sim::CurrentCoreOrNull()) ++core->work;
    addr_ = buffer;
    size_ = 0;
    sized_ = false;
    const detail::GmView v = detail::ResolveGmView(buffer, UINT64_MAX);
    state_ = v.state;
    extent_bytes_ = v.bytes;
  }

  // Returns the tensor starting `offset` elements in.
  GlobalTensor operator[](detail::IndexAt<uint64_t> at) const {
    const uint64_t offset = at.value;
    if (state_ != detail::GmExtent::kUnknown) [[unlikely]] {
      if (state_ == detail::GmExtent::kFreed ||
          offset > extent_bytes_ / sizeof(T)) [[unlikely]] {
        FailExtent("GlobalTensor::operator[]", aicore::StrCat("offset ", offset), at.loc);
      }
    }
    GlobalTensor t = *this;
    t.addr_ += offset;
    if (size_ != 0) t.size_ = size_ > offset ? size_ - offset : 0;
    if (state_ == detail::GmExtent::kBounded) t.extent_bytes_ = extent_bytes_ - offset * sizeof(T);
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
    aicore::sim::NoteGmWrite(addr_ + offset, sizeof(T));  // Note [GM copies]
  }
  // The element may be stored through the reference: copies of it are stale from here on.
  T& operator()(uint64_t offset, detail::SrcLoc loc = detail::SrcLoc::current()) const {
    CheckIndex("GlobalTensor::operator()", offset, loc);
    aicore::sim::NoteGmWrite(addr_ + offset, sizeof(T));  // Note [GM copies]
    return addr_[offset];
  }

  uint64_t GetSize() const { return size_; }
  __gm__ T* GetPhyAddr() const { return addr_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
  void SetL2CacheHint(CacheMode) {}
  // Attaches a shape (see LocalTensor::SetShapeInfo).
  void SetShapeInfo(const ShapeInfo& info) { shape_info_ = info; }
  ShapeInfo GetShapeInfo() const { return shape_info_; }

  // Returns a view of the same bytes as elements of U: the size and the extent round down to
  // whole elements of U, so a view smaller than one U is empty (and still checked).
  template <typename U>
  GlobalTensor<U> ReinterpretCast() const {
    GlobalTensor<U> t;
    t.AdoptView(reinterpret_cast<__gm__ U*>(addr_), size_ * sizeof(T) / sizeof(U), sized_,
                state_, extent_bytes_ / sizeof(U) * sizeof(U));
    return t;
  }

  // --- aicore internals ---
  T* data() const { return addr_; }
  // True when the extent is known (a view at the very end has extent 0 but is still checked).
  bool bounded() const { return state_ != detail::GmExtent::kUnknown; }
  // Returns the bytes from data() that may be accessed (0 when not bounded() or freed).
  uint64_t extent_bytes() const { return extent_bytes_; }
  // Returns extent_bytes() in whole elements.
  uint64_t extent() const { return extent_bytes_ / sizeof(T); }
  detail::GmExtent extent_state() const { return state_; }
  // Fails unless bytes [0, need_bytes) from data() exist: the tensor has a buffer and, when its
  // extent is known, holds them and was not freed. `role` names the operand ("src", "dst").
  void CheckExtent(uint64_t need_bytes, const char* api, const char* role,
                   const detail::SrcLoc& loc) const {
    if (addr_ == nullptr) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc, role,
                   " GlobalTensor has no buffer (call SetGlobalBuffer first)");
    }
    if (state_ != detail::GmExtent::kUnknown && need_bytes > extent_bytes_) [[unlikely]] {
      FailExtent(api, aicore::StrCat("the copy reaches byte ", need_bytes), loc, role);
    }
  }
  void AdoptView(T* addr, uint64_t size, bool sized, detail::GmExtent state,
                 uint64_t extent_bytes) {
    addr_ = addr;
    size_ = size;
    sized_ = sized;
    state_ = state;
    extent_bytes_ = extent_bytes;
  }

 private:
  void CheckIndex(const char* api, uint64_t offset, const detail::SrcLoc& loc) const {
    if (addr_ == nullptr) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                   "GlobalTensor has no buffer (call SetGlobalBuffer first)");
    }
    if (state_ != detail::GmExtent::kUnknown &&
        offset >= extent_bytes_ / sizeof(T)) [[unlikely]] {
      FailExtent(api, aicore::StrCat("offset ", offset), loc);
    }
  }
  // Fails with `access` ("offset 7", "the copy reaches byte 64") and where the extent comes from.
  [[noreturn]] void FailExtent(const char* api, const std::string& access,
                               const detail::SrcLoc& loc, const char* role = nullptr) const {
    const std::string what =
        detail::DescribeGmExtent(addr_, extent_bytes_, sized_, size_, sizeof(T), state_);
    const char* sep = role ? " " : "";
    if (state_ == detail::GmExtent::kFreed) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc, role ? role : "", sep,
                   "GlobalTensor: ", what);
    }
    detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, role ? role : "", sep,
                 "GlobalTensor: ", access, " but ", what);
  }

  T* addr_ = nullptr;
  uint64_t size_ = 0;           // the size given to SetGlobalBuffer (GetSize())
  uint64_t extent_bytes_ = 0;   // bytes that may be accessed, when state_ is kBounded
  detail::GmExtent state_ = detail::GmExtent::kUnknown;
  bool sized_ = false;          // SetGlobalBuffer was given a size
  ShapeInfo shape_info_;
};

}  // namespace AscendC
