// Index generation and gathers inside UB: CreateVecIndex (dst[i] = firstValue + i) and Gather
// (dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)], offsets in bytes).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Writes dst[i] = firstValue + i for i in [0, count). T is half, float, int16_t or int32_t;
// floating values are computed exactly in double and rounded to T once, integers wrap.
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const std::type_identity_t<T>& firstValue,
                    uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>,
                "CreateVecIndex takes half, float, int16_t or int32_t");
  detail::CheckVecOperand(dst, "CreateVecIndex", "dst", loc);
  if (count > dst.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "CreateVecIndex", loc, "count ", count,
                 " is past the dst tensor's ", dst.GetSize(), " elements");
  }
  T* out = dst.data();
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    for (uint32_t i = 0; i < count; ++i) {
      out[i] = static_cast<T>(static_cast<U>(static_cast<U>(firstValue) + static_cast<U>(i)));
    }
  } else {
    const double first = static_cast<float>(firstValue);
    for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<T>(static_cast<float>(first + i));
  }
  auto& core = detail::Core();
  AICORE_ISSUE(
      core, detail::VecInstr(core, "CreateVecIndex", aicore::DTypeOf<T>(), dst.data(),
                             uint64_t{count} * sizeof(T), nullptr, 0, nullptr, 0, count, 0, loc));
}

namespace detail {

// Level-0 CreateVecIndex: element e of repeat r (when the mask selects it) gets
// firstValue + r * (256 / sizeof(T)) + e, its position in the logical vector.
template <typename T>
void CreateVecIndexMasked(const LocalTensor<T>& dst, const T& first, const uint64_t* bit_mask,
                          const uint64_t* cont_mask, uint8_t repeat, uint16_t dst_blk_stride,
                          uint8_t dst_rep_stride, const SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>,
                "CreateVecIndex takes half, float, int16_t or int32_t");
  CheckVecOperand(dst, "CreateVecIndex", "dst", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(true, bit_mask, cont_mask, kPer, "CreateVecIndex", loc);
  const uint32_t repeats = EffectiveRepeats(mask, kPer, repeat);
  if (repeats == 0) return;
  Operand ops[1] = {{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), dst_blk_stride,
                     dst_rep_stride}};
  CheckLevel0Extent(ops, 1, kPer, mask, repeats, "CreateVecIndex", loc);
  uint64_t n = 0;
  ForEachActive(ops, kPer, mask, repeats, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    const uint64_t i = uint64_t{r} * kPer + e;
    T v;
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      v = static_cast<T>(static_cast<U>(static_cast<U>(first) + static_cast<U>(i)));
    } else {
      v = static_cast<T>(static_cast<float>(static_cast<double>(static_cast<float>(first)) + i));
    }
    std::memcpy(p[0], &v, sizeof(T));
    ++n;
  });
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, "CreateVecIndex", aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                              nullptr, 0, nullptr, 0, n, repeats, loc));
}

}  // namespace detail

// Level-0 forms: element e of repeat r, when the mask selects it, gets
// firstValue + r * (256 / sizeof(T)) + e; blocks and repeats placed by the DataBlock strides.
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const std::type_identity_t<T>& firstValue,
                    const uint64_t mask[], uint8_t repeatTime, uint16_t dstBlkStride,
                    uint8_t dstRepStride, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CreateVecIndexMasked(dst, firstValue, mask, nullptr, repeatTime, dstBlkStride,
                               dstRepStride, loc);
}
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const std::type_identity_t<T>& firstValue,
                    uint64_t mask, uint8_t repeatTime, uint16_t dstBlkStride, uint8_t dstRepStride,
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CreateVecIndexMasked(dst, firstValue, nullptr, &mask, repeatTime, dstBlkStride,
                               dstRepStride, loc);
}

// Writes dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)] for i in [0, count). Offsets
// are bytes from the start of src and must land on an element of src; T is a 16- or 32-bit type.
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
            const uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather takes 16- or 32-bit elements");
  detail::CheckVecOperand(dst, "Gather", "dst", loc);
  detail::CheckVecOperand(src, "Gather", "src", loc);
  detail::CheckVecOperand(srcOffset, "Gather", "srcOffset", loc);
  if (count > dst.GetSize() || count > srcOffset.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Gather", loc, "count ", count, " exceeds dst (",
                 dst.GetSize(), " elements) or srcOffset (", srcOffset.GetSize(), " elements)");
  }
  const uint32_t* off = srcOffset.data();
  const T* in = src.data();
  T* out = dst.data();
  const uint64_t src_bytes = src.bytes();
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t byte = uint64_t{srcBaseAddr} + off[i];
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > src_bytes) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, "Gather", loc, "srcOffset[", i, "] = ", off[i],
                   " bytes (+ srcBaseAddr ", srcBaseAddr, ") ",
                   byte % sizeof(T) != 0 ? "is not a multiple of the element size "
                                         : "is outside src, which holds ",
                   byte % sizeof(T) != 0 ? sizeof(T) : src_bytes, " bytes");
    }
    out[i] = in[byte / sizeof(T)];
  }
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, "Gather", aicore::DTypeOf<T>(), dst.data(),
                                      uint64_t{count} * sizeof(T), src.data(), src_bytes,
                                      srcOffset.data(), uint64_t{count} * 4, count, 0, loc));
}

namespace detail {

// Level-0 Gather: element e of repeat r (when the mask selects it) reads srcOffset[r * per + e]
// and lands at dst byte r * dstRepStride * 32 + e * sizeof(T).
template <typename T>
void GatherMasked(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  const LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr,
                  const uint64_t* bit_mask, const uint64_t* cont_mask, uint8_t repeat,
                  uint16_t dst_rep_stride, const SrcLoc& loc) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather takes 16- or 32-bit elements");
  CheckVecOperand(dst, "Gather", "dst", loc);
  CheckVecOperand(src, "Gather", "src", loc);
  CheckVecOperand(srcOffset, "Gather", "srcOffset", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(true, bit_mask, cont_mask, kPer, "Gather", loc);
  const uint32_t repeats = EffectiveRepeats(mask, kPer, repeat);
  if (repeats == 0) return;
  // dst: dst_rep_stride DataBlocks per repeat, elements contiguous; offsets: kPer per repeat.
  Operand ops[2] = {
      {reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), 1, dst_rep_stride},
      {reinterpret_cast<uint8_t*>(srcOffset.data()), srcOffset.bytes(), 4, 1, kPer * 4 / 32}};
  static const char* const kRoles[] = {"dst", "srcOffset"};
  CheckLevel0Extent(ops, 2, kPer, mask, repeats, "Gather", loc, kRoles);
  const T* in = src.data();
  const uint64_t src_bytes = src.bytes();
  uint64_t n = 0;
  ForEachActive(ops, kPer, mask, repeats, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    uint32_t off;
    std::memcpy(&off, p[1], 4);
    const uint64_t byte = uint64_t{srcBaseAddr} + off;
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > src_bytes) [[unlikely]] {
      Fail(StatusCode::kOutOfRange, "Gather", loc, "srcOffset[", uint64_t{r} * kPer + e,
           "] = ", off, " bytes (+ srcBaseAddr ", srcBaseAddr, ") ",
           byte % sizeof(T) != 0 ? "is not a multiple of the element size "
                                 : "is outside src, which holds ",
           byte % sizeof(T) != 0 ? sizeof(T) : src_bytes, " bytes");
    }
    std::memcpy(p[0], in + byte / sizeof(T), sizeof(T));
    ++n;
  });
  auto& core = Core();
  AICORE_ISSUE(core,
               VecInstr(core, "Gather", aicore::DTypeOf<T>(), dst.data(), dst.bytes(), src.data(),
                        src_bytes, srcOffset.data(), srcOffset.bytes(), n, repeats, loc));
}

}  // namespace detail

// Level-0 forms: per repeat, the mask-selected elements e read srcOffset[r * (256 / sizeof(T))
// + e]; repeat r of dst starts dstRepStride DataBlocks after repeat r - 1.
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
            const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstRepStride,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::GatherMasked(dst, src, srcOffset, srcBaseAddr, mask, nullptr, repeatTime, dstRepStride,
                       loc);
}
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint64_t mask,
            const uint8_t repeatTime, const uint16_t dstRepStride,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::GatherMasked(dst, src, srcOffset, srcBaseAddr, nullptr, &mask, repeatTime, dstRepStride,
                       loc);
}

}  // namespace AscendC
