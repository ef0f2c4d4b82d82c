// Axpy: dst = src * scalar + dst, in the same type (half, float) or mixed (half src, float dst),
// in the count form and the level-0 mask forms. Computed in float; a half dst is rounded once.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

namespace detail {

template <typename T, typename U>
inline constexpr bool kAxpyTypes = (std::is_same_v<T, U> &&
                                    (std::is_same_v<T, half> || std::is_same_v<T, float>)) ||
                                   (std::is_same_v<T, float> && std::is_same_v<U, half>);

// dst[i] = src[i] * s + dst[i] for n contiguous elements.
template <typename T, typename U>
void AxpyRun(T* dst, const U* src, float s, uint64_t n) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<U, float>) {
    for (uint64_t i = 0; i < n; ++i) dst[i] = src[i] * s + dst[i];
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      dst[i] = static_cast<T>(static_cast<float>(src[i]) * s + static_cast<float>(dst[i]));
    }
  }
}

template <typename T, typename U>
void AxpyMasked(const LocalTensor<T>& dst, const LocalTensor<U>& src, float s, bool is_set_mask,
                const uint64_t* bit_mask, const uint64_t* cont_mask, uint8_t repeat,
                const UnaryRepeatParams& p, const SrcLoc& loc) {
  static_assert(kAxpyTypes<T, U>, "Axpy takes half->half, float->float or half->float");
  CheckVecOperand(dst, "Axpy", "dst", loc);
  CheckVecOperand(src, "Axpy", "src", loc);
  // A repeat covers 256 bytes of the wider operand (64 elements in the mixed form).
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPer, "Axpy", loc);
  Operand ops[2] = {{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), p.dstBlkStride,
                     p.dstRepStride},
                    {reinterpret_cast<uint8_t*>(src.data()), src.bytes(), sizeof(U), p.srcBlkStride,
                     p.srcRepStride}};
  const uint64_t n =
      ForEachRun(ops, kPer, mask, repeat, "Axpy", loc, [s](uint8_t* const* ptr, uint64_t len) {
        AxpyRun(reinterpret_cast<T*>(ptr[0]), reinterpret_cast<const U*>(ptr[1]), s, len);
      });
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, "Axpy", aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                              src.data(), src.bytes(), dst.data(), dst.bytes(), n, repeat, loc));
}

}  // namespace detail

// dst[i] = src[i] * scalarValue + dst[i] for i in [0, count).
template <typename T, typename U>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
          const std::type_identity_t<U>& scalarValue, const int32_t& count,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(detail::kAxpyTypes<T, U>, "Axpy takes half->half, float->float or half->float");
  detail::CheckVecOperand(dst, "Axpy", "dst", loc);
  detail::CheckVecOperand(src, "Axpy", "src", loc);
  const uint32_t limit = std::min(dst.GetSize(), src.GetSize());
  if (count < 0 || static_cast<uint32_t>(count) > limit) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Axpy", loc, "count ", count, " is outside [0, ",
                 limit, "] (dst holds ", dst.GetSize(), ", src ", src.GetSize(), " elements)");
  }
  detail::AxpyRun(dst.data(), src.data(), static_cast<float>(scalarValue),
                  static_cast<uint64_t>(count));
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, "Axpy", aicore::DTypeOf<T>(), dst.data(),
                                      count * sizeof(T), src.data(), count * sizeof(U), dst.data(),
                                      count * sizeof(T), count, 0, loc));
}

// Level-0 forms (bit mask or continuous mask), strides in DataBlocks as UnaryRepeatParams.
template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
          const std::type_identity_t<U>& scalarValue, const uint64_t mask[],
          const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::AxpyMasked(dst, src, static_cast<float>(scalarValue), isSetMask, mask, nullptr,
                     repeatTimes, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
          const std::type_identity_t<U>& scalarValue, uint64_t mask, const uint8_t repeatTimes,
          const UnaryRepeatParams& repeatParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::AxpyMasked(dst, src, static_cast<float>(scalarValue), isSetMask, nullptr, &mask,
                     repeatTimes, repeatParams, loc);
}

}  // namespace AscendC
