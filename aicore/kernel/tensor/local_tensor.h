// LocalTensor<T>: a view of elements in one of the core's local buffers (UB, L1, L0A/B/C, ...).
// Tensors from a TQue carry the buffer's generation, so a tensor used after FreeTensor is caught;
// every tensor carries the capacity of its allocation (SetSize cannot grow past it) and the
// serial of the core that made it, so a tensor kept past its launch or handed to another block
// is caught at its next use.
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/shape_info.h"
#include "aicore/kernel/types.h"

namespace AscendC {

namespace detail {
// One queue buffer's lifetime state; `generation` changes on every FreeTensor.
struct BufferSlot {
  uint32_t generation = 0;
};
// Returns the host address of byte `addr` of the calling core's buffer behind `pos`, after the
// CPU-mode checks of a static tensor: the core has that buffer, addr and bytes are multiples of
// 32, addr + bytes fits in the buffer, and elements > 0. `api` names the caller in errors.
uint8_t* StaticTensorAddr(const char* api, TPosition pos, uint32_t addr, uint64_t bytes,
                          uint32_t elements, const SrcLoc& loc);
}  // namespace detail

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;
  // Used by TPipe/TQue/TBuf: `addr` in the core's buffer for `pos`, `size` elements, in an
  // allocation of `capacity` elements from `addr` (0: `size`). Stamped with the current core.
  LocalTensor(T* addr, uint32_t size, TPosition pos, detail::BufferSlot* slot = nullptr,
              uint32_t capacity = 0)
      : addr_(addr), slot_(slot), size_(size), capacity_(capacity > size ? capacity : size),
        generation_(slot ? slot->generation : 0), owner_(detail::CurrentCoreSerial()),
        pos_(pos) {}
  // A static tensor (no TPipe): `tileSize` elements at byte offset `addr` of the buffer behind
  // `pos` (UB for VECIN/VECOUT/VECCALC, L1 for A1/B1/C1, ...). addr and the byte size must be
  // multiples of 32 and the tensor must fit in the buffer; violations are kernel errors.
  LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize,
              detail::SrcLoc loc = detail::SrcLoc::current())
      : addr_(reinterpret_cast<T*>(detail::StaticTensorAddr(
            "LocalTensor", pos, addr, uint64_t{tileSize} * sizeof(T), tileSize, loc))),
        size_(tileSize), capacity_(tileSize), owner_(detail::CurrentCoreSerial()), pos_(pos) {}

  // Returns the tensor starting `offset` elements in (offset <= GetSize()).
  LocalTensor operator[](detail::IndexAt<uint32_t> at) const {
    const uint32_t offset = at.value;
    const detail::SrcLoc& loc = at.loc;
    CheckLive("LocalTensor::operator[]", loc);
    if (offset > size_) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, "LocalTensor::operator[]", loc, "offset ",
                   offset, " is past the tensor's ", size_, " elements");
    }
    LocalTensor t = *this;
    t.addr_ += offset;
    t.size_ -= offset;
    t.capacity_ -= offset;
    return t;
  }

  // Scalar read on PIPE_S.
  T GetValue(uint32_t index, detail::SrcLoc loc = detail::SrcLoc::current()) const {
    CheckIndex("GetValue", index, loc);
    auto& core = detail::Core();
    AICORE_ISSUE(core, detail::ScalarInstr(core, "GetValue", false, addr_ + index, sizeof(T),
                                           aicore::DTypeOf<T>(), loc));
    return addr_[index];
  }
  // Scalar write on PIPE_S.
  void SetValue(uint32_t index, T value, detail::SrcLoc loc = detail::SrcLoc::current()) const {
    CheckIndex("SetValue", index, loc);
    auto& core = detail::Core();
    AICORE_ISSUE(core, detail::ScalarInstr(core, "SetValue", true, addr_ + index, sizeof(T),
                                           aicore::DTypeOf<T>(), loc));
    addr_[index] = value;
  }
  T& operator()(uint32_t index, detail::SrcLoc loc = detail::SrcLoc::current()) const {
    CheckIndex("LocalTensor::operator()", index, loc);
    return addr_[index];
  }

  uint32_t GetSize() const { return size_; }
  uint32_t GetLength() const { return size_ * sizeof(T); }  // deprecated: bytes
  // Sets the element count; fails past the capacity of the tensor's allocation (the queue
  // buffer or TBuf it came from, less any operator[] offset).
  void SetSize(uint32_t size, detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (size > capacity_) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, "LocalTensor::SetSize", loc, "size ", size,
                   " elements (", uint64_t{size} * sizeof(T), " B) exceeds the tensor's buffer: ",
                   capacity_, " elements (", uint64_t{capacity_} * sizeof(T),
                   " B) from its start; a larger size would overwrite the neighbouring buffer");
    }
    size_ = size;
  }
  TPosition GetPosition() const { return pos_; }
  // Returns the byte offset of the tensor within its physical buffer.
  uint64_t GetPhyAddr() const {
    auto& core = detail::Core();
    return core.Locate(addr_, 0).offset;
  }
  void SetUserTag(int32_t tag) { tag_ = tag; }
  int32_t GetUserTag() const { return tag_; }
  // Attaches a shape for the high-level APIs and DumpTensor; GetShapeInfo returns the last one
  // set (an all-zero ShapeInfo before any).
  void SetShapeInfo(const ShapeInfo& info) { shape_info_ = info; }
  ShapeInfo GetShapeInfo() const { return shape_info_; }

  // Returns a view of the same bytes as elements of U.
  // Size and capacity round down to whole elements of U.
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> t(reinterpret_cast<U*>(addr_),
                     static_cast<uint32_t>(uint64_t{size_} * sizeof(T) / sizeof(U)), pos_, nullptr,
                     static_cast<uint32_t>(uint64_t{capacity_} * sizeof(T) / sizeof(U)));
    t.AdoptSlot(slot_, generation_);
    t.AdoptOwner(owner_);
    return t;
  }

  // --- aicore internals (not AscendC API) ---
  T* data() const { return addr_; }
  uint64_t bytes() const { return uint64_t{size_} * sizeof(T); }
  bool valid() const { return addr_ != nullptr; }
  void AdoptSlot(detail::BufferSlot* slot, uint32_t generation) {
    slot_ = slot;
    generation_ = generation;
  }
  detail::BufferSlot* slot() const { return slot_; }
  uint32_t generation() const { return generation_; }
  // Returns the elements from data() to the end of the tensor's allocation (>= GetSize()).
  uint32_t capacity() const { return capacity_; }
  // Returns the serial of the core that made the tensor (sim::Core::serial()).
  uint32_t owner() const { return owner_; }
  void AdoptOwner(uint32_t owner) { owner_ = owner; }
  // Fails when the tensor was never allocated, its buffer was freed since, or it belongs to
  // another block or an earlier launch.
  void CheckLive(const char* api, const detail::SrcLoc& loc) const {
    if (addr_ == nullptr) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                   "LocalTensor was never allocated (default-constructed)");
    }
    if (slot_ != nullptr && slot_->generation != generation_) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                   "LocalTensor used after FreeTensor (its queue buffer was freed and may have "
                   "been reallocated)");
    }
    if (owner_ != detail::CurrentCoreSerial()) [[unlikely]] detail::FailForeignTensor(api, loc);
  }

 private:
  void CheckIndex(const char* api, uint32_t index, const detail::SrcLoc& loc) const {
    CheckLive(api, loc);
    if (index >= size_) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, "index ", index,
                   " is past the tensor's ", size_, " elements");
    }
  }

  T* addr_ = nullptr;
  detail::BufferSlot* slot_ = nullptr;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;  // elements from addr_ to the end of the allocation
  uint32_t generation_ = 0;
  uint32_t owner_ = 0;     // serial of the core that made the tensor; See CheckLive
  int32_t tag_ = 0;
  TPosition pos_ = TPosition::VECCALC;
  ShapeInfo shape_info_;
};

}  // namespace AscendC
