// Compare, CompareScalar, Select and the CMPMASK register (SetCmpMask / GetCmpMask).
//
// A comparison writes one bit per element, least significant bit first in each byte: element i
// of a call is bit i % 8 of byte i / 8 of dst. Level-0 forms lay repeats out back to back (element
// e of repeat r is bit r * (256 / sizeof(T)) + e) and leave the bits of masked-out elements
// unchanged; the dst strides of BinaryRepeatParams do not apply to the bit output. NaN compares
// false except under NE. Select picks src0 where its mask bit is 1 and src1 (tensor or scalar)
// where it is 0. See Note [Select modes] for where the bits come from in each SELMODE.
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

// Note [Select modes]
// The Select docs define three modes; per = 256 / sizeof(T) bits make one repeat's selection.
// - VSEL_CMPMASK_SPR (0): the first `per` bits of selMask, the same bits for every repeat (the
//   hardware loads them into the CMPMASK register). The register forms (no selMask, no mask
//   argument) use the register as SetCmpMask(selMask) left it.
// - VSEL_TENSOR_SCALAR_MODE (1): src1 is a scalar; repeat r uses bits [r * per, (r + 1) * per) of
//   selMask. The register form reads the scalar from the first sizeof(T) bytes of the register
//   (SetCmpMask(tensor holding src1)).
// - VSEL_TENSOR_TENSOR_MODE (2): repeat r uses bits [r * per, (r + 1) * per) of selMask. The
//   register form reads selMask's UB address from the first 8 bytes of the register, as the docs'
//   sample stores it (sel.GetPhyAddr(), a UB offset in aicore; a host pointer into UB is also
//   accepted); it must be 32-byte aligned.
// The count form numbers elements as the level-0 form with dense repeats: element i is element
// i % per of repeat i / per.

// Returns the selMask bit of element e of repeat r in `mode` (see Note [Select modes]).
inline uint64_t SelBit(SELMODE mode, uint32_t per, uint64_t r, uint32_t e) {
  return mode == SELMODE::VSEL_CMPMASK_SPR ? e : r * per + e;
}

// Fails unless selMask is a live UB operand holding `needed` bytes.
template <typename U>
void CheckSelMask(const LocalTensor<U>& sel_mask, uint64_t needed, const SrcLoc& loc) {
  static_assert(std::is_same_v<U, uint8_t> || std::is_same_v<U, uint16_t> ||
                    std::is_same_v<U, uint32_t> || std::is_same_v<U, uint64_t>,
                "Select: selMask takes uint8_t, uint16_t, uint32_t or uint64_t");
  CheckVecOperand(sel_mask, "Select", "selMask", loc);
  if (needed > sel_mask.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, "Select", loc, "selMask holds ", sel_mask.bytes(),
         " B but the selection reads ", needed, " B of it");
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
  constexpr uint32_t kPerRepeat = 256 / sizeof(T);
  const bool spr = mode == SELMODE::VSEL_CMPMASK_SPR;
  const uint32_t limit = std::min({dst.GetSize(), src0.GetSize(), src1 ? src1->GetSize() : ~0u});
  if (count > limit) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, "Select", loc, "count ", count,
         " exceeds the operands: dst holds ", dst.GetSize(), ", src0 ", src0.GetSize(),
         src1 ? aicore::StrCat(", src1 ", src1->GetSize()) : std::string(), " elements");
  }
  if (count == 0) return;
  const uint64_t bits_used = spr ? std::min(count, kPerRepeat) : count;
  CheckSelMask(sel_mask, (bits_used + 7) / 8, loc);
  const uint8_t* bits = reinterpret_cast<const uint8_t*>(sel_mask.data());
  T* d = dst.data();
  const T* a = src0.data();
  const T* b = src1 ? src1->data() : nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t bit = SelBit(mode, kPerRepeat, i / kPerRepeat, i % kPerRepeat);
    const T other = b ? b[i] : scalar;
    d[i] = GetBit(bits, bit) ? a[i] : other;
  }
  auto& core = Core();
  AICORE_ISSUE(core, WithSource(VecInstr(core, "Select", aicore::DTypeOf<T>(), dst.data(),
                                         uint64_t{count} * sizeof(T), src0.data(),
                                         uint64_t{count} * sizeof(T), src1 ? src1->data() : nullptr,
                                         src1 ? uint64_t{count} * sizeof(T) : 0, count, 0, loc),
                                core, sel_mask.data(), (bits_used + 7) / 8));
}

// Level-0 Select over selection bits `bits` (`bits_bytes` readable; `sel_ptr` is recorded as a
// source when it is UB memory) and src1 (tensor, or `scalar` when null).
template <typename T>
void SelectLevel0(const LocalTensor<T>& dst, const uint8_t* bits, uint64_t bits_bytes,
                  const char* bits_role, const LocalTensor<T>& src0, const LocalTensor<T>* src1,
                  T scalar, SELMODE mode, const RepeatMask& mask, uint32_t repeat,
                  const BinaryRepeatParams& params, const SrcLoc& loc) {
  CheckVecOperand(dst, "Select", "dst", loc);
  CheckVecOperand(src0, "Select", "src0", loc);
  if (src1) CheckVecOperand(*src1, "Select", "src1", loc);
  constexpr uint32_t kPerRepeat = 256 / sizeof(T);
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
  uint64_t needed = 0;
  ForEachActive(ops, kPerRepeat, mask, repeat, [&](uint32_t r, uint32_t e, uint8_t* const*) {
    needed = std::max<uint64_t>(needed, SelBit(mode, kPerRepeat, r, e) / 8 + 1);
  });
  if (needed > bits_bytes) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, "Select", loc, bits_role, ": ", repeat, " repeats of ",
         kPerRepeat, " bits in selMode ", static_cast<int>(mode), " read ", needed, " B but only ",
         bits_bytes, " B are there");
  }
  uint64_t n = 0;
  ForEachActive(ops, kPerRepeat, mask, repeat, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    const T other = src1 ? *reinterpret_cast<const T*>(p[2]) : scalar;
    *reinterpret_cast<T*>(p[0]) =
        GetBit(bits, SelBit(mode, kPerRepeat, r, e)) ? *reinterpret_cast<const T*>(p[1]) : other;
    ++n;
  });
  auto& core = Core();
  const bool bits_in_ub = core.Locate(bits, 0).buffer == aicore::arch::Buffer::kUb;
  AICORE_ISSUE(core,
               WithSource(VecInstr(core, "Select", aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                                   src0.data(), src0.bytes(), src1 ? src1->data() : nullptr,
                                   src1 ? src1->bytes() : 0, n, repeat, loc),
                          core, bits_in_ub ? bits : nullptr, needed));
}

template <typename T, typename U>
void SelectMasked(const LocalTensor<T>& dst, const LocalTensor<U>& sel_mask,
                  const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar, SELMODE mode,
                  bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                  uint32_t repeat, const BinaryRepeatParams& params, const SrcLoc& loc) {
  static_assert(kSelectType<T>, "Select takes half, bfloat16_t, float, (u)int16_t, (u)int32_t");
  CheckSelMode(mode, src1 == nullptr, loc);
  CheckSelMask(sel_mask, 0, loc);
  const RepeatMask mask =
      ResolveMask(is_set_mask, bit_mask, cont_mask, 256 / sizeof(T), "Select", loc);
  SelectLevel0(dst, reinterpret_cast<const uint8_t*>(sel_mask.data()), sel_mask.bytes(), "selMask",
               src0, src1, scalar, mode, mask, repeat, params, loc);
}

// The register forms (no mask argument): the mask comes from SetVectorMask, the selection from
// the CMPMASK register as Note [Select modes] describes.
template <typename T>
void SelectRegister(const LocalTensor<T>& dst, const uint8_t* sel_bits, uint64_t sel_bytes,
                    const LocalTensor<T>& src0, const LocalTensor<T>* src1, SELMODE mode,
                    uint32_t repeat, const BinaryRepeatParams& params, const SrcLoc& loc) {
  static_assert(kSelectType<T>, "Select takes half, bfloat16_t, float, (u)int16_t, (u)int32_t");
  CheckSelMode(mode, src1 == nullptr, loc);
  auto& core = Core();
  const RepeatMask mask = ResolveMask(false, nullptr, nullptr, 256 / sizeof(T), "Select", loc);
  const uint8_t* reg = reinterpret_cast<const uint8_t*>(core.cmp_mask.data());
  if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) {
    T scalar;
    std::memcpy(&scalar, reg, sizeof(T));
    SelectLevel0(dst, sel_bits, sel_bytes, "selMask", src0,
                 static_cast<const LocalTensor<T>*>(nullptr), scalar, mode, mask, repeat, params,
                 loc);
  } else if (mode == SELMODE::VSEL_CMPMASK_SPR) {
    SelectLevel0(dst, reg, 16, "the CMPMASK register", src0, src1, T{}, mode, mask, repeat, params,
                 loc);
  } else {
    uint64_t addr;
    std::memcpy(&addr, reg, 8);
    const uint8_t* ub = core.LocalBase(aicore::arch::Buffer::kUb);
    const uint64_t ub_bytes =
        core.chip().buffers[static_cast<int>(aicore::arch::Buffer::kUb)].bytes;
    // A UB offset (what GetPhyAddr returns), or a host pointer into this core's UB.
    uint64_t offset = addr;
    if (addr >= ub_bytes) {
      const aicore::sim::MemRef where =
          core.Locate(reinterpret_cast<const void*>(static_cast<uintptr_t>(addr)), 0);
      offset = where.buffer == aicore::arch::Buffer::kUb ? where.offset : ub_bytes;
    }
    if (offset >= ub_bytes || offset % 32 != 0) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, "Select", loc,
           "VSEL_TENSOR_TENSOR_MODE: the CMPMASK "
           "register holds ",
           addr,
           ", which is not a 32-byte-aligned UB address (SetCmpMask a "
           "tensor whose first 8 bytes hold selMask.GetPhyAddr())");
    }
    const uint8_t* p = ub + offset;
    SelectLevel0(dst, p, ub_bytes - offset, "selMask (from the CMPMASK register)", src0, src1, T{},
                 mode, mask, repeat, params, loc);
  }
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

// Loads the 128-bit CMPMASK register from the first 16 bytes of `src` (a 16-byte-aligned UB
// tensor).
template <typename T>
void SetCmpMask(const LocalTensor<T>& src, detail::SrcLoc loc = detail::SrcLoc::current()) {
  // The SetCmpMask docs ask for 16-byte alignment (not the usual 32).
  detail::CheckUbOperand(src, 16, 16, "SetCmpMask", "src", loc);
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
// selMask; VSEL_CMPMASK_SPR: bit i % (256 / sizeof(T)) of selMask). See Note [Select modes].
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
// Level-0 Select; selMask supplies 256 / sizeof(T) bits per repeat, back to back (modes 1 and
// 2), or the same first 256 / sizeof(T) bits every repeat (mode 0).
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

// Register form, VSEL_TENSOR_SCALAR_MODE: bits from selMask, the scalar src1 from the first
// sizeof(T) bytes of the CMPMASK register (SetCmpMask); mask from SetVectorMask.
template <typename T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& selMask,
            const LocalTensor<T>& src0, uint8_t repeatTime, const BinaryRepeatParams& repeatParams,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckSelMask(selMask, 0, loc);
  detail::SelectRegister(dst, reinterpret_cast<const uint8_t*>(selMask.data()), selMask.bytes(),
                         src0, static_cast<const LocalTensor<T>*>(nullptr), selMode, repeatTime,
                         repeatParams, loc);
}
// Register form, VSEL_CMPMASK_SPR (bits from the register) or VSEL_TENSOR_TENSOR_MODE (the
// register holds selMask's address); mask from SetVectorMask.
template <typename T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            uint8_t repeatTime, const BinaryRepeatParams& repeatParams,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::SelectRegister(dst, nullptr, 0, src0, &src1, selMode, repeatTime, repeatParams, loc);
}

// ---- Compares: dst bits = src0 (cmpMode) scalar (the newer name of CompareScalar) ----

namespace detail {

// Compares' dtypes on the chips aicore models (the A2/A3 rows): half and float with every
// CMPMODE, int32_t with EQ only.
template <typename T>
void CheckComparesType(CMPMODE mode, const SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int32_t>,
                "Compares takes half, float or int32_t (int32_t with CMPMODE::EQ only)");
  if (std::is_same_v<T, int32_t> && mode != CMPMODE::EQ) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, "Compares", loc, "int32_t supports CMPMODE::EQ only, got ",
         CmpModeName(mode));
  }
}

}  // namespace detail

// Compares the first `count` elements with a scalar; count * sizeof(T) must be a multiple of
// 256 B and dst must hold count / 8 bytes.
template <typename T, typename U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
              const detail::Same<T> src1Scalar, CMPMODE cmpMode, uint32_t count,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<U, uint8_t>, "Compares: dst is a uint8_t tensor");
  detail::CheckComparesType<T>(cmpMode, loc);
  detail::CompareCount<T, U>("Compares", dst, src0, nullptr, src1Scalar, cmpMode, count, loc);
}

// Level-0 Compares. On the chips aicore models the docs call the mask "reserved, no effect":
// every element of each of the repeatTime repeats is compared, whatever `mask` (or, with
// isSetMask false, SetVectorMask) holds. Counter mode is refused: the docs do not define it here.
template <typename T, typename U, bool isSetMask = true>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
              const detail::Same<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
              uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<U, uint8_t>, "Compares: dst is a uint8_t tensor");
  (void)mask;
  detail::CheckComparesType<T>(cmpMode, loc);
  if (detail::Core().mask_counter_mode) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "Compares", loc,
                 "the level-0 form in counter mode is not defined by the docs (its mask is "
                 "reserved); call SetMaskNorm first or use the count form");
  }
  detail::CheckVecOperand(dst, "Compares", "dst", loc);
  const uint64_t full = 256 / sizeof(T);
  detail::CompareMasked<T>("Compares", reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), src0,
                           nullptr, src1Scalar, cmpMode, true, nullptr, &full, repeatTime,
                           repeatParams.srcBlkStride, repeatParams.srcRepStride, 1, 8, loc);
}
template <typename T, typename U, bool isSetMask = true>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
              const detail::Same<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask,
              uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  const uint64_t bits[2] = {mask, 0};
  Compares<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, bits, repeatTime, repeatParams, loc);
}

}  // namespace AscendC
