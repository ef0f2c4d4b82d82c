// Compare, CompareScalar, Select and the CMPMASK register (SetCmpMask / GetCmpMask).
//
// A comparison writes one bit per element, least significant bit first in each byte: element i
// of a call is bit i % 8 of byte i / 8 of dst. Level-0 forms lay repeats out back to back (element
// e of repeat r is bit r * (256 / sizeof(T)) + e) and leave the bits of masked-out elements
// unchanged; the dst strides of BinaryRepeatParams do not apply to the bit output. NaN compares
// false except under NE. Select picks src0 where its mask bit is 1 and src1 (tensor or scalar)
// where it is 0; in VSEL_CMPMASK_SPR mode the bits come from the CMPMASK register, the same
// 256 / sizeof(T) bits for every repeat.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/vector/elementwise.h"
#include "aicore/kernel/vector/repeat.h"
#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

namespace detail {

inline const char* CmpModeName(CMPMODE m) {
  static const char* const kNames[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  const auto i = static_cast<size_t>(m);
  return i < 6 ? kNames[i] : "<invalid>";
}

template <typename T>
constexpr bool kCompareType =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint16_t> ||
    std::is_same_v<T, uint32_t>;

// The value compared: 16-bit floats widen to float (exact).
template <typename T>
auto CmpValue(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

template <CMPMODE m, typename V>
inline bool CmpOne(V a, V b) {
  if constexpr (m == CMPMODE::LT)
    return a < b;
  else if constexpr (m == CMPMODE::GT)
    return a > b;
  else if constexpr (m == CMPMODE::EQ)
    return a == b;
  else if constexpr (m == CMPMODE::LE)
    return a <= b;
  else if constexpr (m == CMPMODE::GE)
    return a >= b;
  else
    return a != b;
}

inline bool CmpDyn(CMPMODE m, auto a, auto b) {
  switch (m) {
    case CMPMODE::LT:
      return a < b;
    case CMPMODE::GT:
      return a > b;
    case CMPMODE::EQ:
      return a == b;
    case CMPMODE::LE:
      return a <= b;
    case CMPMODE::GE:
      return a >= b;
    case CMPMODE::NE:
      return a != b;
  }
  return false;
}

inline void CheckCmpMode(CMPMODE m, const char* api, const SrcLoc& loc) {
  if (static_cast<uint8_t>(m) > static_cast<uint8_t>(CMPMODE::NE)) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "cmpMode ", static_cast<int>(m),
         " is not a CMPMODE (LT, GT, EQ, LE, GE, NE)");
  }
}

// Packs n (a multiple of 8) comparisons of a[i] against b[i] (or the scalar) into bits.
template <CMPMODE m, bool kScalar, typename T>
void CmpPack(uint8_t* dst, const T* a, const T* b, T s, uint32_t n) {
  const auto sv = CmpValue(s);
  for (uint32_t i = 0; i < n; i += 8) {
    uint8_t byte = 0;
    for (uint32_t j = 0; j < 8; ++j) {
      const auto bv = kScalar ? sv : CmpValue(b[i + j]);
      byte |= static_cast<uint8_t>(CmpOne<m>(CmpValue(a[i + j]), bv)) << j;
    }
    dst[i / 8] = byte;
  }
}

template <bool kScalar, typename T>
void CmpPackDyn(CMPMODE m, uint8_t* dst, const T* a, const T* b, T s, uint32_t n) {
  switch (m) {
    case CMPMODE::LT:
      CmpPack<CMPMODE::LT, kScalar>(dst, a, b, s, n);
      return;
    case CMPMODE::GT:
      CmpPack<CMPMODE::GT, kScalar>(dst, a, b, s, n);
      return;
    case CMPMODE::EQ:
      CmpPack<CMPMODE::EQ, kScalar>(dst, a, b, s, n);
      return;
    case CMPMODE::LE:
      CmpPack<CMPMODE::LE, kScalar>(dst, a, b, s, n);
      return;
    case CMPMODE::GE:
      CmpPack<CMPMODE::GE, kScalar>(dst, a, b, s, n);
      return;
    case CMPMODE::NE:
      CmpPack<CMPMODE::NE, kScalar>(dst, a, b, s, n);
      return;
  }
}

template <typename T, typename U>
void CompareCount(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                  const LocalTensor<T>* src1, T scalar, CMPMODE mode, uint32_t count,
                  const SrcLoc& loc) {
  static_assert(kCompareType<T>, "Compare takes half, bfloat16_t, float, (u)int16_t, (u)int32_t");
  CheckCmpMode(mode, api, loc);
  CheckVecOperand(dst, api, "dst", loc);
  CheckVecOperand(src0, api, "src0", loc);
  if (src1) CheckVecOperand(*src1, api, "src1", loc);
  if ((uint64_t{count} * sizeof(T)) % 256 != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "count ", count, " elements of ", sizeof(T),
         " B is ", uint64_t{count} * sizeof(T),
         " B, not a multiple of 256 B (one repeat); pad the data or use the level-0 form");
  }
  const uint32_t limit = std::min(src0.GetSize(), src1 ? src1->GetSize() : ~0u);
  if (count > limit || uint64_t{count} / 8 > dst.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "count ", count, " exceeds the operands: src0 holds ",
         src0.GetSize(), src1 ? aicore::StrCat(", src1 ", src1->GetSize()) : std::string(),
         " elements, dst holds ",
         dst.bytes(), " B (", count / 8, " B needed)");
  }
  auto* out = reinterpret_cast<uint8_t*>(dst.data());
  if (src1) {
    CmpPackDyn<false>(mode, out, src0.data(), src1->data(), T{}, count);
  } else {
    CmpPackDyn<true>(mode, out, src0.data(), static_cast<const T*>(nullptr), scalar, count);
  }
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), count / 8, src0.data(),
                              uint64_t{count} * sizeof(T), src1 ? src1->data() : nullptr,
                              src1 ? uint64_t{count} * sizeof(T) : 0, count, 0, loc));
}

inline void SetBit(uint8_t* bits, uint64_t i, bool v) {
  const uint8_t m = static_cast<uint8_t>(1u << (i % 8));
  bits[i / 8] = v ? static_cast<uint8_t>(bits[i / 8] | m) : static_cast<uint8_t>(bits[i / 8] & ~m);
}
inline bool GetBit(const uint8_t* bits, uint64_t i) { return (bits[i / 8] >> (i % 8)) & 1u; }

// Level-0 Compare/CompareScalar. `dst_bits` null: the result goes to the CMPMASK register (one
// repeat).
template <typename T>
void CompareMasked(const char* api, uint8_t* dst_bits, uint64_t dst_bytes,
                   const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar, CMPMODE mode,
                   bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                   uint32_t repeat, uint32_t blk0, uint32_t rep0, uint32_t blk1, uint32_t rep1,
                   const SrcLoc& loc) {
  static_assert(kCompareType<T>, "Compare takes half, bfloat16_t, float, (u)int16_t, (u)int32_t");
  CheckCmpMode(mode, api, loc);
  CheckVecOperand(src0, api, "src0", loc);
  if (src1) CheckVecOperand(*src1, api, "src1", loc);
  constexpr uint32_t kPerRepeat = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPerRepeat, api, loc);
  repeat = EffectiveRepeats(mask, kPerRepeat, repeat);
  if (repeat == 0) return;
  static const char* const kRoles[] = {"src0", "src1"};
  Operand ops[2] = {
      Operand{reinterpret_cast<uint8_t*>(src0.data()), src0.bytes(), sizeof(T), blk0, rep0},
      src1 ? Operand{reinterpret_cast<uint8_t*>(src1->data()), src1->bytes(), sizeof(T), blk1, rep1}
           : Operand{reinterpret_cast<uint8_t*>(src0.data()), src0.bytes(), sizeof(T), blk0, rep0}};
  CheckLevel0Extent(ops, 2, kPerRepeat, mask, repeat, api, loc, kRoles, false);
  uint64_t needed = 0;  // bytes of dst up to the last bit written
  ForEachActive(ops, kPerRepeat, mask, repeat, [&](uint32_t r, uint32_t e, uint8_t* const*) {
    needed = std::max<uint64_t>(needed, (uint64_t{r} * kPerRepeat + e) / 8 + 1);
  });
  uint8_t reg[16];
  if (dst_bits == nullptr) {
    if (repeat != 1 || mask.counter) {
      Fail(StatusCode::kInvalidArgument, api, loc,
           "the form without dst writes the CMPMASK register and runs exactly one repeat in "
           "normal mask mode");
    }
    std::memcpy(reg, Core().cmp_mask.data(), 16);
    dst_bits = reg;
    dst_bytes = 16;
  }
  if (needed > dst_bytes) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "dst: ", repeat, " repeats of ", kPerRepeat,
         " result bits need ", needed, " B but the tensor holds ", dst_bytes, " B");
  }
  ForEachActive(ops, kPerRepeat, mask, repeat, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    const auto a = CmpValue(*reinterpret_cast<const T*>(p[0]));
    const auto b = src1 ? CmpValue(*reinterpret_cast<const T*>(p[1])) : CmpValue(scalar);
    SetBit(dst_bits, uint64_t{r} * kPerRepeat + e, CmpDyn(mode, a, b));
  });
  auto& core = Core();
  if (dst_bits == reg) std::memcpy(core.cmp_mask.data(), reg, 16);
  AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst_bits == reg ? nullptr : dst_bits,
                              needed, src0.data(), src0.bytes(), src1 ? src1->data() : nullptr,
                              src1 ? src1->bytes() : 0, repeat * kPerRepeat, repeat, loc));
}

template <typename T>
constexpr bool kSelectType =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint16_t> ||
    std::is_same_v<T, uint32_t>;

inline void CheckSelMode(SELMODE m, bool scalar, const SrcLoc& loc) {
  if (static_cast<uint8_t>(m) > static_cast<uint8_t>(SELMODE::VSEL_TENSOR_TENSOR_MODE))
      [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "Select", loc, "selMode ", static_cast<int>(m),
         " is not a SELMODE");
  }
  if (scalar && m != SELMODE::VSEL_TENSOR_SCALAR_MODE) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "Select", loc,
         "a scalar src1 needs VSEL_TENSOR_SCALAR_MODE, got selMode ", static_cast<int>(m));
  }
  if (!scalar && m == SELMODE::VSEL_TENSOR_SCALAR_MODE) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "Select", loc,
         "VSEL_TENSOR_SCALAR_MODE takes a scalar src1, but a tensor was given");
  }
}

template <typename T, typename U>
void SelectCount(const LocalTensor<T>& dst, const LocalTensor<U>& sel_mask,
                 const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar, SELMODE mode,
                 uint32_t count, const SrcLoc& loc) {
  static_assert(kSelectType<T>, "Select takes half, bfloat16_t, float, (u)int16_t, (u)int32_t");
  CheckSelMode(mode, src1 == nullptr, loc);
  CheckVecOperand(dst, "Select", "dst", loc);
  CheckVecOperand(src0, "Select", "src0", loc);
  if (src1) CheckVecOperand(*src1, "Select", "src1", loc);
  const bool spr = mode == SELMODE::VSEL_CMPMASK_SPR;
  if (!spr) CheckVecOperand(sel_mask, "Select", "selMask", loc);
  const uint32_t limit = std::min({dst.GetSize(), src0.GetSize(), src1 ? src1->GetSize() : ~0u});
  if (count > limit || (!spr && (uint64_t{count} + 7) / 8 > sel_mask.bytes())) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, "Select", loc, "count ", count,
         " exceeds the operands: dst holds ", dst.GetSize(), ", src0 ", src0.GetSize(),
         src1 ? aicore::StrCat(", src1 ", src1->GetSize()) : std::string(), " elements, selMask ",
         sel_mask.bytes(),
         " B (", (count + 7) / 8, " B needed)");
  }
  constexpr uint32_t kPerRepeat = 256 / sizeof(T);
  const uint8_t* bits = spr ? reinterpret_cast<const uint8_t*>(Core().cmp_mask.data())
                            : reinterpret_cast<const uint8_t*>(sel_mask.data());
  T* d = dst.data();
  const T* a = src0.data();
  const T* b = src1 ? src1->data() : nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t bit = spr ? i % kPerRepeat : i;
    const T other = b ? b[i] : scalar;
    d[i] = GetBit(bits, bit) ? a[i] : other;
  }
  auto& core = Core();
  AICORE_ISSUE(
      core, VecInstr(core, "Select", aicore::DTypeOf<T>(), dst.data(), uint64_t{count} * sizeof(T),
                     src0.data(), uint64_t{count} * sizeof(T), src1 ? src1->data() : nullptr,
                     src1 ? uint64_t{count} * sizeof(T) : 0, count, 0, loc));
}

template <typename T, typename U>
void SelectMasked(const LocalTensor<T>& dst, const LocalTensor<U>& sel_mask,
                  const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar, SELMODE mode,
                  bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                  uint32_t repeat, const BinaryRepeatParams& params, const SrcLoc& loc) {
  static_assert(kSelectType<T>, "Select takes half, bfloat16_t, float, (u)int16_t, (u)int32_t");
  CheckSelMode(mode, src1 == nullptr, loc);
  CheckVecOperand(dst, "Select", "dst", loc);
  CheckVecOperand(src0, "Select", "src0", loc);
  if (src1) CheckVecOperand(*src1, "Select", "src1", loc);
  const bool spr = mode == SELMODE::VSEL_CMPMASK_SPR;
  if (!spr) CheckVecOperand(sel_mask, "Select", "selMask", loc);
  constexpr uint32_t kPerRepeat = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPerRepeat, "Select", loc);
  repeat = EffectiveRepeats(mask, kPerRepeat, repeat);
  if (repeat == 0) return;
  const Operand src1_op = src1 ? Operand{reinterpret_cast<uint8_t*>(src1->data()), src1->bytes(),
                                         sizeof(T), params.src1BlkStride, params.src1RepStride}
                               : Operand{reinterpret_cast<uint8_t*>(src0.data()), src0.bytes(),
                                         sizeof(T), params.src0BlkStride, params.src0RepStride};
  Operand ops[3] = {Operand{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T),
                            params.dstBlkStride, params.dstRepStride},
                    Operand{reinterpret_cast<uint8_t*>(src0.data()), src0.bytes(), sizeof(T),
                            params.src0BlkStride, params.src0RepStride},
                    src1_op};
  CheckLevel0Extent(ops, 3, kPerRepeat, mask, repeat, "Select", loc);
  const uint8_t* bits = spr ? reinterpret_cast<const uint8_t*>(Core().cmp_mask.data())
                            : reinterpret_cast<const uint8_t*>(sel_mask.data());
  if (!spr) {
    uint64_t needed = 0;
    ForEachActive(ops, kPerRepeat, mask, repeat, [&](uint32_t r, uint32_t e, uint8_t* const*) {
      needed = std::max<uint64_t>(needed, (uint64_t{r} * kPerRepeat + e) / 8 + 1);
    });
    if (needed > sel_mask.bytes()) [[unlikely]] {
      Fail(StatusCode::kOutOfRange, "Select", loc, "selMask: ", repeat, " repeats of ", kPerRepeat,
           " bits need ", needed, " B but the tensor holds ", sel_mask.bytes(), " B");
    }
  }
  uint64_t n = 0;
  ForEachActive(ops, kPerRepeat, mask, repeat, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    const uint64_t bit = spr ? e : uint64_t{r} * kPerRepeat + e;
    const T other = src1 ? *reinterpret_cast<const T*>(p[2]) : scalar;
    *reinterpret_cast<T*>(p[0]) = GetBit(bits, bit) ? *reinterpret_cast<const T*>(p[1]) : other;
    ++n;
  });
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, "Select", aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                              src0.data(), src0.bytes(), src1 ? src1->data() : nullptr,
                              src1 ? src1->bytes() : 0, n, repeat, loc));
}

}  // namespace detail

// ---- Compare: dst bits = src0 (cmpMode) src1 ----

// Compares the first `count` elements; count * sizeof(T) must be a multiple of 256 B and dst
// must hold count / 8 bytes.
template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CompareCount<T, U>("Compare", dst, src0, &src1, T{}, cmpMode, count, loc);
}
// Level-0 Compare with a bit mask; dst receives 256 / sizeof(T) bits per repeat.
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, const uint64_t mask[], uint8_t repeatTimes,
             const BinaryRepeatParams& repeatParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckVecOperand(dst, "Compare", "dst", loc);
  detail::CompareMasked<T>("Compare", reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), src0,
                           &src1, T{}, cmpMode, isSetMask, mask, nullptr, repeatTimes,
                           repeatParams.src0BlkStride, repeatParams.src0RepStride,
                           repeatParams.src1BlkStride, repeatParams.src1RepStride, loc);
}
// Level-0 Compare with a continuous mask.
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
             CMPMODE cmpMode, const uint64_t mask, uint8_t repeatTimes,
             const BinaryRepeatParams& repeatParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckVecOperand(dst, "Compare", "dst", loc);
  detail::CompareMasked<T>("Compare", reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), src0,
                           &src1, T{}, cmpMode, isSetMask, nullptr, &mask, repeatTimes,
                           repeatParams.src0BlkStride, repeatParams.src0RepStride,
                           repeatParams.src1BlkStride, repeatParams.src1RepStride, loc);
}
// One repeat compared into the CMPMASK register (read it with GetCmpMask, use it with Select in
// VSEL_CMPMASK_SPR mode). Masked-out bits keep their previous register value.
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask[], const BinaryRepeatParams& repeatParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CompareMasked<T>("Compare", nullptr, 0, src0, &src1, T{}, cmpMode, isSetMask, mask,
                           nullptr, 1, repeatParams.src0BlkStride, repeatParams.src0RepStride,
                           repeatParams.src1BlkStride, repeatParams.src1RepStride, loc);
}
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask, const BinaryRepeatParams& repeatParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CompareMasked<T>("Compare", nullptr, 0, src0, &src1, T{}, cmpMode, isSetMask, nullptr,
                           &mask, 1, repeatParams.src0BlkStride, repeatParams.src0RepStride,
                           repeatParams.src1BlkStride, repeatParams.src1RepStride, loc);
}

// ---- CompareScalar: dst bits = src0 (cmpMode) scalar ----

// Same contract as the count-form Compare.
template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                   const detail::Same<T> src1Scalar, CMPMODE cmpMode, uint32_t count,
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CompareCount<T, U>("CompareScalar", dst, src0, nullptr, src1Scalar, cmpMode, count, loc);
}
template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                   const detail::Same<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                   uint8_t repeatTimes, const UnaryRepeatParams& repeatParams,
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckVecOperand(dst, "CompareScalar", "dst", loc);
  detail::CompareMasked<T>("CompareScalar", reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(),
                           src0, nullptr, src1Scalar, cmpMode, isSetMask, mask, nullptr,
                           repeatTimes, repeatParams.srcBlkStride, repeatParams.srcRepStride, 1, 8,
                           loc);
}
template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                   const detail::Same<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask,
                   uint8_t repeatTimes, const UnaryRepeatParams& repeatParams,
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckVecOperand(dst, "CompareScalar", "dst", loc);
  detail::CompareMasked<T>("CompareScalar", reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(),
                           src0, nullptr, src1Scalar, cmpMode, isSetMask, nullptr, &mask,
                           repeatTimes, repeatParams.srcBlkStride, repeatParams.srcRepStride, 1, 8,
                           loc);
}

// ---- CMPMASK register ----

// Loads the 128-bit CMPMASK register from the first 16 bytes of `src` (a UB tensor).
template <typename T>
void SetCmpMask(const LocalTensor<T>& src, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckVecOperand(src, "SetCmpMask", "src", loc);
  if (src.bytes() < 16) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "SetCmpMask", loc, "src holds ", src.bytes(),
                 " B; the CMPMASK register takes 16 B");
  }
  auto& core = detail::Core();
  std::memcpy(core.cmp_mask.data(), src.data(), 16);
  AICORE_ISSUE(core, detail::VecInstr(core, "SetCmpMask", aicore::DTypeOf<T>(), nullptr, 0,
                                      src.data(), 16, nullptr, 0, 0, 0, loc));
}
// Stores the 128-bit CMPMASK register into the first 16 bytes of `dst` (a UB tensor).
template <typename T>
void GetCmpMask(const LocalTensor<T>& dst, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckVecOperand(dst, "GetCmpMask", "dst", loc);
  if (dst.bytes() < 16) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "GetCmpMask", loc, "dst holds ", dst.bytes(),
                 " B; the CMPMASK register is 16 B");
  }
  auto& core = detail::Core();
  std::memcpy(dst.data(), core.cmp_mask.data(), 16);
  AICORE_ISSUE(core, detail::VecInstr(core, "GetCmpMask", aicore::DTypeOf<T>(), dst.data(), 16,
                                      nullptr, 0, nullptr, 0, 0, 0, loc));
}

// ---- Select: dst = bit ? src0 : src1 ----

// Selects over the first `count` elements with two tensors (VSEL_TENSOR_TENSOR_MODE: bit i of
// selMask; VSEL_CMPMASK_SPR: bit i % (256 / sizeof(T)) of the CMPMASK register, selMask unused).
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectCount<T, U>(dst, selMask, src0, &src1, T{}, selMode, count, loc);
}
// Selects with a scalar src1 (selMode must be VSEL_TENSOR_SCALAR_MODE).
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const detail::Same<T> src1, SELMODE selMode, uint32_t count,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectCount<T, U>(dst, selMask, src0, nullptr, src1, selMode, count, loc);
}
// Level-0 Select; selMask supplies 256 / sizeof(T) bits per repeat, back to back.
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[], uint8_t repeatTimes,
            const BinaryRepeatParams& repeatParams,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectMasked<T, U>(dst, selMask, src0, &src1, T{}, selMode, isSetMask, mask, nullptr,
                             repeatTimes, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask, uint8_t repeatTimes,
            const BinaryRepeatParams& repeatParams,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectMasked<T, U>(dst, selMask, src0, &src1, T{}, selMode, isSetMask, nullptr, &mask,
                             repeatTimes, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const detail::Same<T> src1, SELMODE selMode, const uint64_t mask[], uint8_t repeatTimes,
            const BinaryRepeatParams& repeatParams,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectMasked<T, U>(dst, selMask, src0, nullptr, src1, selMode, isSetMask, mask, nullptr,
                             repeatTimes, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const detail::Same<T> src1, SELMODE selMode, const uint64_t mask, uint8_t repeatTimes,
            const BinaryRepeatParams& repeatParams,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectMasked<T, U>(dst, selMask, src0, nullptr, src1, selMode, isSetMask, nullptr, &mask,
                             repeatTimes, repeatParams, loc);
}

}  // namespace AscendC
