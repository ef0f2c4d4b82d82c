// Element-wise vector APIs in AscendC's three forms: count (`Add(dst, a, b, count)`), level-0 with
// a bit mask (`uint64_t mask[2]`) and level-0 with a continuous mask (`uint64_t mask`), each with
// repeatTimes and Binary/UnaryRepeatParams. Per-element semantics are in engine.h. Scalars are
// taken as the tensor's element type (a float literal converts to half).
#pragma once

#include <type_traits>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

namespace detail {
inline Level0Strides StridesOf(const BinaryRepeatParams& p) {
  Level0Strides s;
  s.blk[0] = p.dstBlkStride; s.blk[1] = p.src0BlkStride; s.blk[2] = p.src1BlkStride;
  s.rep[0] = p.dstRepStride; s.rep[1] = p.src0RepStride; s.rep[2] = p.src1RepStride;
  return s;
}
inline Level0Strides StridesOf(const UnaryRepeatParams& p) {
  Level0Strides s;
  s.blk[0] = p.dstBlkStride; s.blk[1] = p.srcBlkStride;
  s.rep[0] = p.dstRepStride; s.rep[1] = p.srcRepStride;
  return s;
}
template <typename T>
using Same = std::type_identity_t<T>;
}  // namespace detail

// dst = f(src0, src1)
#define AICORE_VEC_BINARY(Name, Op)                                                              \
  template <typename T>                                                                          \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
            const int32_t& count, detail::SrcLoc loc = detail::SrcLoc::current()) {              \
    detail::VecCount<T>(Op, #Name, dst, &src0, &src1, {}, count, loc);                           \
  }                                                                                              \
  template <typename T, bool isSetMask = true>                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
            const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& params,  \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                    \
    detail::VecMasked<T>(Op, #Name, dst, &src0, &src1, {}, isSetMask, mask, nullptr,             \
                         repeatTimes, detail::StridesOf(params), loc);                           \
  }                                                                                              \
  template <typename T, bool isSetMask = true>                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
            uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& params,          \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                    \
    detail::VecMasked<T>(Op, #Name, dst, &src0, &src1, {}, isSetMask, nullptr, &mask,            \
                         repeatTimes, detail::StridesOf(params), loc);                           \
  }

// dst = f(src, scalar)
#define AICORE_VEC_SCALAR(Name, Op)                                                              \
  template <typename T>                                                                          \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                \
            const detail::Same<T>& scalarValue, const int32_t& count,                            \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                    \
    detail::VecCount<T>(Op, #Name, dst, &src, nullptr, detail::MakeScalar<T>(scalarValue),       \
                        count, loc);                                                             \
  }                                                                                              \
  template <typename T, bool isSetMask = true>                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                \
            const detail::Same<T>& scalarValue, const uint64_t mask[], const uint8_t repeatTimes, \
            const UnaryRepeatParams& params, detail::SrcLoc loc = detail::SrcLoc::current()) {   \
    detail::VecMasked<T>(Op, #Name, dst, &src, nullptr, detail::MakeScalar<T>(scalarValue),      \
                         isSetMask, mask, nullptr, repeatTimes, detail::StridesOf(params), loc); \
  }                                                                                              \
  template <typename T, bool isSetMask = true>                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                \
            const detail::Same<T>& scalarValue, uint64_t mask, const uint8_t repeatTimes,        \
            const UnaryRepeatParams& params, detail::SrcLoc loc = detail::SrcLoc::current()) {   \
    detail::VecMasked<T>(Op, #Name, dst, &src, nullptr, detail::MakeScalar<T>(scalarValue),      \
                         isSetMask, nullptr, &mask, repeatTimes, detail::StridesOf(params), loc); \
  }

// dst = f(src)
#define AICORE_VEC_UNARY(Name, Op)                                                               \
  template <typename T>                                                                          \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,          \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                    \
    detail::VecCount<T>(Op, #Name, dst, &src, nullptr, {}, count, loc);                          \
  }                                                                                              \
  template <typename T, bool isSetMask = true>                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],         \
            const uint8_t repeatTimes, const UnaryRepeatParams& params,                          \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                    \
    detail::VecMasked<T>(Op, #Name, dst, &src, nullptr, {}, isSetMask, mask, nullptr,            \
                         repeatTimes, detail::StridesOf(params), loc);                           \
  }                                                                                              \
  template <typename T, bool isSetMask = true>                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                 \
            const uint8_t repeatTimes, const UnaryRepeatParams& params,                          \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                    \
    detail::VecMasked<T>(Op, #Name, dst, &src, nullptr, {}, isSetMask, nullptr, &mask,           \
                         repeatTimes, detail::StridesOf(params), loc);                           \
  }

using aicore::kernel::engine::VecOp;

AICORE_VEC_BINARY(Add, VecOp::kAdd)
AICORE_VEC_BINARY(Sub, VecOp::kSub)
AICORE_VEC_BINARY(Mul, VecOp::kMul)
AICORE_VEC_BINARY(Div, VecOp::kDiv)
AICORE_VEC_BINARY(Max, VecOp::kMax)
AICORE_VEC_BINARY(Min, VecOp::kMin)
AICORE_VEC_BINARY(And, VecOp::kAnd)
AICORE_VEC_BINARY(Or, VecOp::kOr)
AICORE_VEC_BINARY(AddRelu, VecOp::kAddRelu)
AICORE_VEC_BINARY(SubRelu, VecOp::kSubRelu)

AICORE_VEC_SCALAR(Adds, VecOp::kAdds)
AICORE_VEC_SCALAR(Muls, VecOp::kMuls)
AICORE_VEC_SCALAR(Maxs, VecOp::kMaxs)
AICORE_VEC_SCALAR(Mins, VecOp::kMins)
AICORE_VEC_SCALAR(Subs, VecOp::kSubs)
AICORE_VEC_SCALAR(Divs, VecOp::kDivs)
AICORE_VEC_SCALAR(LeakyRelu, VecOp::kLeakyRelu)
AICORE_VEC_SCALAR(ShiftLeft, VecOp::kShiftLeft)
AICORE_VEC_SCALAR(ShiftRight, VecOp::kShiftRight)

AICORE_VEC_UNARY(Exp, VecOp::kExp)
AICORE_VEC_UNARY(Ln, VecOp::kLn)
AICORE_VEC_UNARY(Abs, VecOp::kAbs)
AICORE_VEC_UNARY(Sqrt, VecOp::kSqrt)
AICORE_VEC_UNARY(Rsqrt, VecOp::kRsqrt)
AICORE_VEC_UNARY(Reciprocal, VecOp::kReciprocal)
AICORE_VEC_UNARY(Relu, VecOp::kRelu)
AICORE_VEC_UNARY(Not, VecOp::kNot)
AICORE_VEC_UNARY(Neg, VecOp::kNeg)

#undef AICORE_VEC_BINARY
#undef AICORE_VEC_SCALAR
#undef AICORE_VEC_UNARY

// dst[i] = scalar for the first `count` elements.
template <typename T>
void Duplicate(const LocalTensor<T>& dst, const detail::Same<T>& scalarValue, const int32_t& count,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::VecCount<T>(VecOp::kDuplicate, "Duplicate", dst, nullptr, nullptr,
                      detail::MakeScalar<T>(scalarValue), count, loc);
}
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const detail::Same<T>& scalarValue, const uint64_t mask[],
               const uint8_t repeatTimes, const uint16_t dstBlockStride,
               const uint8_t dstRepeatStride, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::Level0Strides st;
  st.blk[0] = dstBlockStride;
  st.rep[0] = dstRepeatStride;
  detail::VecMasked<T>(VecOp::kDuplicate, "Duplicate", dst, nullptr, nullptr,
                       detail::MakeScalar<T>(scalarValue), isSetMask, mask, nullptr, repeatTimes,
                       st, loc);
}
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const detail::Same<T>& scalarValue, uint64_t mask,
               const uint8_t repeatTimes, const uint16_t dstBlockStride,
               const uint8_t dstRepeatStride, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::Level0Strides st;
  st.blk[0] = dstBlockStride;
  st.rep[0] = dstRepeatStride;
  detail::VecMasked<T>(VecOp::kDuplicate, "Duplicate", dst, nullptr, nullptr,
                       detail::MakeScalar<T>(scalarValue), isSetMask, nullptr, &mask, repeatTimes,
                       st, loc);
}

}  // namespace AscendC
