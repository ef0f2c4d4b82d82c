// LocalMemAllocator: the static-Tensor programming style's allocator, a bump pointer over one
// local buffer (UB, L1, L0A, L0B, L0C, BiasTable or Fixpipe buffer) starting at byte 0.
//
// As documented, Alloc rounds nothing and frees nothing: each call advances the pointer by
// exactly sizeof(T) * tileSize bytes. The CPU-mode checks of the static LocalTensor constructor
// apply to every tensor it hands out (start and size multiples of 32 bytes, inside the buffer,
// tileSize > 0). Beyond the documentation aicore also reports, instead of letting tensors alias:
// a second live allocator for the same buffer, and an allocator and a TPipe sharing a buffer
// (whichever comes second fails).
#pragma once

#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/pipe/tpipe.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/types.h"

namespace AscendC {

// The physical memories of an AI Core, as LocalMemAllocator names them.
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

namespace detail {

// Returns the arch buffer of a local Hardware value (kNone for GM and MAX).
constexpr aicore::arch::Buffer HardwareBuffer(Hardware h) {
  using aicore::arch::Buffer;
  switch (h) {
    case Hardware::UB: return Buffer::kUb;
    case Hardware::L1: return Buffer::kL1;
    case Hardware::L0A: return Buffer::kL0A;
    case Hardware::L0B: return Buffer::kL0B;
    case Hardware::L0C: return Buffer::kL0C;
    case Hardware::BIAS: return Buffer::kBt;
    case Hardware::FIXBUF: return Buffer::kFb;
    default: return Buffer::kNone;
  }
}

// The position tensors from an allocator get when Alloc names none.
constexpr TPosition DefaultPosition(Hardware h) {
  switch (h) {
    case Hardware::L1: return TPosition::A1;
    case Hardware::L0A: return TPosition::A2;
    case Hardware::L0B: return TPosition::B2;
    case Hardware::L0C: return TPosition::CO1;
    case Hardware::BIAS: return TPosition::C2;
    case Hardware::FIXBUF: return TPosition::C2PIPE2GM;
    default: return TPosition::VECCALC;
  }
}

// Registers an allocator for `b` on the calling core; fails if one is live or a TPipe uses `b`.
void RegisterAllocator(const void* allocator, aicore::arch::Buffer b, const SrcLoc& loc);
// Forgets the registration (only if `allocator` is the registered one).
void UnregisterAllocator(const void* allocator, aicore::arch::Buffer b);
// Fails unless `pos` lives in `b` on this chip, or when the current TPipe has carved `b`.
void CheckAllocatorPosition(aicore::arch::Buffer b, TPosition pos, const SrcLoc& loc);

}  // namespace detail

template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
  static_assert(hard != Hardware::GM && hard != Hardware::MAX,
                "LocalMemAllocator manages a local buffer: UB, L1, L0A, L0B, L0C, BIAS or FIXBUF");
  static constexpr aicore::arch::Buffer kBuffer = detail::HardwareBuffer(hard);

 public:
  // Starts at byte 0 of the buffer. Fails when another allocator for it is live.
  explicit LocalMemAllocator(detail::SrcLoc loc = detail::SrcLoc::current()) {
    detail::RegisterAllocator(this, kBuffer, loc);
  }
  ~LocalMemAllocator() { detail::UnregisterAllocator(this, kBuffer); }
  LocalMemAllocator(const LocalMemAllocator&) = delete;
  LocalMemAllocator& operator=(const LocalMemAllocator&) = delete;

  // Returns the byte offset the next Alloc starts at.
  uint32_t GetCurAddr() const { return cur_; }

  // Returns `tileSize` elements of T at the current address and advances past them.
  template <typename T, uint32_t tileSize>
  LocalTensor<T> Alloc(detail::SrcLoc loc = detail::SrcLoc::current()) {
    return Take<T>(detail::DefaultPosition(hard), tileSize, loc);
  }
  template <TPosition pos, typename T, uint32_t tileSize>
  LocalTensor<T> Alloc(detail::SrcLoc loc = detail::SrcLoc::current()) {
    return Take<T>(pos, tileSize, loc);
  }
  template <typename T>
  LocalTensor<T> Alloc(uint32_t tileSize, detail::SrcLoc loc = detail::SrcLoc::current()) {
    return Take<T>(detail::DefaultPosition(hard), tileSize, loc);
  }
  template <TPosition pos, typename T>
  LocalTensor<T> Alloc(uint32_t tileSize, detail::SrcLoc loc = detail::SrcLoc::current()) {
    return Take<T>(pos, tileSize, loc);
  }

 private:
  template <typename T>
  LocalTensor<T> Take(TPosition pos, uint32_t tile_size, const detail::SrcLoc& loc) {
    detail::CheckAllocatorPosition(kBuffer, pos, loc);
    LocalTensor<T> t(pos, cur_, tile_size, loc);
    cur_ += static_cast<uint32_t>(uint64_t{tile_size} * sizeof(T));
    return t;
  }

  uint32_t cur_ = 0;
};

}  // namespace AscendC
