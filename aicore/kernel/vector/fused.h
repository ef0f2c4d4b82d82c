// Three-operand and two-operand compound vector ops: MulAddDst (dst = src0 * src1 + dst),
// FusedMulAdd (dst = src0 * dst + src1), MulAddRelu (dst = max(0, src0 * dst + src1)), AbsSub
// (dst = |src0 - src1|) and Prelu (dst = src0 >= 0 ? src0 : src0 * src1). See
// Note [Fused rounding].
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Note [Fused rounding]
// The docs give the formulas but not the rounding. aicore rounds each result once: float results
// use std::fma (multiply-add) or one float operation; half results are computed in double (the
// product of two halves is exact there) and rounded to half once. MulAddDst also has the
// documented half x half -> float form. Level-0 forms address every operand with the usual
// block/repeat strides (BinaryRepeatParams, src0 and src1 as named there) and process
// 256 / sizeof(dst type) elements per repeat. AbsSub and Prelu are documented for the 950 only
// (count form); aicore runs them on every chip.

namespace detail {

// Rounds a double to the nearest half once: an inexact float step rounds to odd, which keeps the
// second rounding (float -> half, 13 fewer bits) correct.
inline half RoundToHalf(double r) {
  float f = static_cast<float>(r);
  if (static_cast<double>(f) != r && std::isfinite(f)) {
    uint32_t bits = std::bit_cast<uint32_t>(f);
    if (std::fabs(static_cast<double>(f)) > std::fabs(r)) --bits;  // toward zero
    f = std::bit_cast<float>(bits | 1u);
  }
  return half(f);
}

enum class FusedKind : uint8_t { kMulAddDst, kFusedMulAdd, kMulAddRelu, kAbsSub, kPrelu };

inline const char* FusedName(FusedKind k) {
  switch (k) {
    case FusedKind::kMulAddDst:
      return "MulAddDst";
    case FusedKind::kFusedMulAdd:
      return "FusedMulAdd";
    case FusedKind::kMulAddRelu:
      return "MulAddRelu";
    case FusedKind::kAbsSub:
      return "AbsSub";
    case FusedKind::kPrelu:
      return "Prelu";
  }
  return "?";
}

// Returns the result for sources a, b and the old dst value d (see Note [Fused rounding]).
template <typename T, typename U>
T FusedOne(FusedKind k, U a, U b, T d) {
  if constexpr (std::is_same_v<T, float>) {
    const float x = static_cast<float>(a), y = static_cast<float>(b), z = static_cast<float>(d);
    switch (k) {
      case FusedKind::kMulAddDst:
        return std::fma(x, y, z);
      case FusedKind::kFusedMulAdd:
        return std::fma(x, z, y);
      case FusedKind::kMulAddRelu:
        return std::max(0.0f, std::fma(x, z, y));
      case FusedKind::kAbsSub:
        return std::fabs(x - y);
      case FusedKind::kPrelu:
        return x >= 0.0f ? x : x * y;
    }
    return z;
  } else {
    const double x = static_cast<float>(a), y = static_cast<float>(b), z = static_cast<float>(d);
    double r = z;
    switch (k) {
      case FusedKind::kMulAddDst:
        r = x * y + z;
        break;
      case FusedKind::kFusedMulAdd:
        r = x * z + y;
        break;
      case FusedKind::kMulAddRelu:
        r = std::max(0.0, x * z + y);
        break;
      case FusedKind::kAbsSub:
        r = std::fabs(x - y);
        break;
      case FusedKind::kPrelu:
        r = x >= 0.0 ? x : x * y;
        break;
    }
    return RoundToHalf(r);
  }
}

template <typename T, typename U>
constexpr void CheckFusedTypes(FusedKind k) {
  (void)k;
  static_assert((std::is_same_v<T, U> && (std::is_same_v<T, half> || std::is_same_v<T, float>)) ||
                    (std::is_same_v<T, float> && std::is_same_v<U, half>),
                "compound vector ops take half or float (MulAddDst also half x half -> float)");
}

template <typename T, typename U>
void FusedCount(FusedKind k, const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                const LocalTensor<U>& src1, int64_t count, const SrcLoc& loc) {
  CheckFusedTypes<T, U>(k);
  const char* api = FusedName(k);
  CheckVecOperand(dst, api, "dst", loc);
  CheckVecOperand(src0, api, "src0", loc);
  CheckVecOperand(src1, api, "src1", loc);
  const uint32_t limit = std::min({dst.GetSize(), src0.GetSize(), src1.GetSize()});
  if (count < 0 || count > limit) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "count ", count, " is outside [0, ", limit,
         "] (dst holds ", dst.GetSize(), ", src0 ", src0.GetSize(), ", src1 ", src1.GetSize(),
         " elements)");
  }
  T* d = dst.data();
  const U* a = src0.data();
  const U* b = src1.data();
  for (int64_t i = 0; i < count; ++i) d[i] = FusedOne<T, U>(k, a[i], b[i], d[i]);
  auto& core = Core();
  const bool reads_dst =
      k == FusedKind::kMulAddDst || k == FusedKind::kFusedMulAdd || k == FusedKind::kMulAddRelu;
  AICORE_ISSUE(core, WithSource(VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(),
                                         count * sizeof(T), src0.data(), count * sizeof(U),
                                         src1.data(), count * sizeof(U), count, 0, loc),
                                core, reads_dst ? dst.data() : nullptr, count * sizeof(T)));
}

template <typename T, typename U>
void FusedMasked(FusedKind k, const LocalTensor<T>& dst, const LocalTensor<U>& src0,
                 const LocalTensor<U>& src1, bool is_set_mask, const uint64_t* bit_mask,
                 const uint64_t* cont_mask, uint8_t repeat, const BinaryRepeatParams& p,
                 const SrcLoc& loc) {
  CheckFusedTypes<T, U>(k);
  const char* api = FusedName(k);
  CheckVecOperand(dst, api, "dst", loc);
  CheckVecOperand(src0, api, "src0", loc);
  CheckVecOperand(src1, api, "src1", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPer, api, loc);
  const uint32_t repeats = EffectiveRepeats(mask, kPer, repeat);
  if (repeats == 0) return;
  Operand ops[3] = {{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), p.dstBlkStride,
                     p.dstRepStride},
                    {reinterpret_cast<uint8_t*>(src0.data()), src0.bytes(), sizeof(U),
                     p.src0BlkStride, p.src0RepStride},
                    {reinterpret_cast<uint8_t*>(src1.data()), src1.bytes(), sizeof(U),
                     p.src1BlkStride, p.src1RepStride}};
  CheckLevel0Extent(ops, 3, kPer, mask, repeats, api, loc);
  uint64_t n = 0;
  ForEachActive(ops, kPer, mask, repeats, [&](uint32_t, uint32_t, uint8_t* const* ptr) {
    T d;
    U a, b;
    std::memcpy(&d, ptr[0], sizeof(T));
    std::memcpy(&a, ptr[1], sizeof(U));
    std::memcpy(&b, ptr[2], sizeof(U));
    d = FusedOne<T, U>(k, a, b, d);
    std::memcpy(ptr[0], &d, sizeof(T));
    ++n;
  });
  auto& core = Core();
  AICORE_ISSUE(core, WithSource(VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                                         src0.data(), src0.bytes(), src1.data(), src1.bytes(), n,
                                         repeats, loc),
                                core, dst.data(), dst.bytes()));
}

}  // namespace detail

#define AICORE_FUSED_API(Name, Kind)                                                               \
  template <typename T, typename U = T>                                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,     \
            const int32_t& count, detail::SrcLoc loc = detail::SrcLoc::current()) {                \
    detail::FusedCount<T, U>(Kind, dst, src0, src1, count, loc);                                   \
  }                                                                                                \
  template <typename T, typename U = T, bool isSetMask = true>                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,     \
            const uint64_t mask[], const uint8_t repeatTime,                                       \
            const BinaryRepeatParams& repeatParams,                                                \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                      \
    detail::FusedMasked<T, U>(Kind, dst, src0, src1, isSetMask, mask, nullptr, repeatTime,         \
                              repeatParams, loc);                                                  \
  }                                                                                                \
  template <typename T, typename U = T, bool isSetMask = true>                                     \
  void Name(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,     \
            const uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                      \
    detail::FusedMasked<T, U>(Kind, dst, src0, src1, isSetMask, nullptr, &mask, repeatTime,        \
                              repeatParams, loc);                                                  \
  }

// dst = src0 * src1 + dst (half, float, or half sources into a float dst).
AICORE_FUSED_API(MulAddDst, detail::FusedKind::kMulAddDst)
// dst = src0 * dst + src1 (half or float).
AICORE_FUSED_API(FusedMulAdd, detail::FusedKind::kFusedMulAdd)
// dst = max(0, src0 * dst + src1) (half or float).
AICORE_FUSED_API(MulAddRelu, detail::FusedKind::kMulAddRelu)
#undef AICORE_FUSED_API

// dst = |src0 - src1| over the first `count` elements (half or float).
template <typename T>
void AbsSub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::FusedCount<T, T>(detail::FusedKind::kAbsSub, dst, src0, src1, count, loc);
}
// dst = src0 >= 0 ? src0 : src0 * src1 over the first `count` elements (half or float).
template <typename T>
void Prelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::FusedCount<T, T>(detail::FusedKind::kPrelu, dst, src0, src1, count, loc);
}

}  // namespace AscendC
