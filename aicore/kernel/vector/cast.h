// Cast: element-type conversion between UB tensors with a RoundMode, in the count form and the
// level-0 mask forms. Supported pairs, rounding and saturation are listed at engine::Cast:
// conversions to an integer type saturate to its range (NaN gives 0); CAST_NONE rounds like
// CAST_RINT when precision is lost; CAST_ODD is defined for float -> half and float -> bfloat16.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "aicore/kernel/vector/repeat.h"
#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

namespace detail {

inline aicore::kernel::engine::Round ToEngineRound(RoundMode m) {
  return static_cast<aicore::kernel::engine::Round>(static_cast<uint8_t>(m));
}

template <typename T, typename U>
void CheckCastPair(RoundMode mode, const SrcLoc& loc) {
  const aicore::DType dt = aicore::DTypeOf<T>();
  const aicore::DType st = aicore::DTypeOf<U>();
  if (!aicore::kernel::engine::CastSupports(dt, st, ToEngineRound(mode))) [[unlikely]] {
    const bool pair_ok =
        aicore::kernel::engine::CastSupports(dt, st, aicore::kernel::engine::Round::kRint);
    Fail(StatusCode::kInvalidArgument, "Cast", loc, "Cast from ", aicore::DTypeName(st), " to ",
         aicore::DTypeName(dt),
         pair_ok ? aicore::StrCat(" does not support ",
                                  aicore::kernel::engine::RoundName(ToEngineRound(mode)),
                                  " (CAST_ODD is for float to half/bfloat16)")
                 : std::string(" is not a supported conversion"));
  }
}

}  // namespace detail

// Converts the first `count` elements of `src` to dst's type with `round_mode`. dst and src must
// be UB tensors on 32-byte boundaries holding at least `count` elements each, and must not
// overlap.
template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
          const uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckCastPair<T, U>(round_mode, loc);
  detail::CheckVecOperand(dst, "Cast", "dst", loc);
  detail::CheckVecOperand(src, "Cast", "src", loc);
  const uint32_t limit = std::min(dst.GetSize(), src.GetSize());
  if (count > limit) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Cast", loc, "count ", count, " is outside [0, ",
                 limit, "] (dst holds ", dst.GetSize(), ", src ", src.GetSize(), " elements)");
  }
  aicore::kernel::engine::Cast(aicore::DTypeOf<T>(), aicore::DTypeOf<U>(),
                               detail::ToEngineRound(round_mode), dst.data(), src.data(), count);
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, "Cast", aicore::DTypeOf<T>(), dst.data(),
                                      uint64_t{count} * sizeof(T), src.data(),
                                      uint64_t{count} * sizeof(U), nullptr, 0, count, 0, loc));
}

namespace detail {

// Level-0 Cast: each repeat covers 256 / max(sizeof(T), sizeof(U)) elements, so the wider
// operand fills 256 bytes; strides are per operand in 32-byte blocks.
template <typename T, typename U>
void CastMasked(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode mode,
                bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                uint8_t repeat, const UnaryRepeatParams& params, const SrcLoc& loc) {
  CheckCastPair<T, U>(mode, loc);
  CheckVecOperand(dst, "Cast", "dst", loc);
  CheckVecOperand(src, "Cast", "src", loc);
  constexpr uint32_t kPerRepeat = 256 / std::max(sizeof(T), sizeof(U));
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPerRepeat, "Cast", loc);
  Operand ops[2] = {Operand{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T),
                            params.dstBlkStride, params.dstRepStride},
                    Operand{reinterpret_cast<uint8_t*>(src.data()), src.bytes(), sizeof(U),
                            params.srcBlkStride, params.srcRepStride}};
  const auto round = ToEngineRound(mode);
  const uint64_t n =
      ForEachRun(ops, kPerRepeat, mask, repeat, "Cast", loc, [&](uint8_t* const* p, uint64_t len) {
        aicore::kernel::engine::Cast(aicore::DTypeOf<T>(), aicore::DTypeOf<U>(), round, p[0], p[1],
                                     len);
      });
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, "Cast", aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                              src.data(), src.bytes(), nullptr, 0, n, repeat, loc));
}

}  // namespace detail

// Level-0 Cast with a bit mask (mask[0] low elements, mask[1] high elements of a repeat).
template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
          const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CastMasked(dst, src, round_mode, isSetMask, mask, nullptr, repeatTimes, repeatParams,
                     loc);
}

// Level-0 Cast with a continuous mask of `mask` elements per repeat.
template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
          const uint64_t mask, const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CastMasked(dst, src, round_mode, isSetMask, nullptr, &mask, repeatTimes, repeatParams,
                     loc);
}

}  // namespace AscendC
