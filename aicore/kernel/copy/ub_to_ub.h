// DataCopy UB -> UB on the vector pipe (count and DataCopyParams forms) and Copy, the masked
// level-0 UB -> UB copy with CopyRepeatParams. Local copies whose
// destination is the BiasTable or the Fixpipe buffer go to aicore/kernel/cube/cube_copy.h.
#pragma once

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"
#include "aicore/kernel/cube/cube_copy.h"
#include "aicore/kernel/vector/repeat.h"
#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Copies `count` elements within UB; count * sizeof(T) must be a multiple of 32.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (detail::IsCubeParamDst(dst)) return detail::CubeParamCopy(dst, src, count, loc);
  detail::BlockedCopy(dst, src, detail::ContiguousShape<T>(count, loc), loc);
}

// Strided copy within UB in DataBlocks (see DataCopyParams).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  if (detail::IsCubeParamDst(dst)) return detail::CubeParamCopy(dst, src, params, loc);
  detail::BlockedCopy(dst, src,
                      detail::BlockShape(params.blockCount, params.blockLen, params.srcStride,
                                         params.dstStride),
                      loc);
}

// Strides of Copy, in 32-byte DataBlocks: within a repeat (dstStride, srcStride, [0, 65535]) and
// between repeats (dstRepeatSize, srcRepeatSize, [0, 4095]).
struct CopyRepeatParams {
  CopyRepeatParams() = default;
  CopyRepeatParams(uint16_t dstStrideIn, uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                   uint16_t srcRepeatSizeIn)
      : dstStride(dstStrideIn),
        srcStride(srcStrideIn),
        dstRepeatSize(dstRepeatSizeIn),
        srcRepeatSize(srcRepeatSizeIn) {}
  uint16_t dstStride = 1;
  uint16_t srcStride = 1;
  uint16_t dstRepeatSize = 8;
  uint16_t srcRepeatSize = 8;
};

namespace detail {

// Level-0 Copy. In counter mode the mask is the element count of every repeat and repeatTime
// still applies (the Copy docs' exception to the general counter mode).
template <typename T>
void CopyMasked(const LocalTensor<T>& dst, const LocalTensor<T>& src, bool is_set_mask,
                const uint64_t* bit_mask, const uint64_t* cont_mask, uint8_t repeat,
                const CopyRepeatParams& p, const SrcLoc& loc) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                "Copy moves 16- or 32-bit elements (the A2/A3 rows of the docs)");
  constexpr const char* kApi = "Copy";
  CheckVecOperand(dst, kApi, "dst", loc);
  CheckVecOperand(src, kApi, "src", loc);
  if (p.dstRepeatSize > 4095 || p.srcRepeatSize > 4095) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "dstRepeatSize ", p.dstRepeatSize,
         " and srcRepeatSize ", p.srcRepeatSize, " must lie in [0, 4095]");
  }
  constexpr uint32_t kPer = 256 / sizeof(T);
  RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPer, kApi, loc);
  if (mask.counter) {
    if (mask.count == 0 || mask.count > kPer) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, kApi, loc, "counter mode: mask ", mask.count,
           " elements per repeat is outside [1, ", kPer, "]");
    }
    const uint64_t n = mask.count;
    mask.counter = false;
    mask.bits[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
    mask.bits[1] = n <= 64 ? 0 : (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1));
  }
  if (repeat == 0) return;
  Operand ops[2] = {{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), p.dstStride,
                     p.dstRepeatSize},
                    {reinterpret_cast<uint8_t*>(src.data()), src.bytes(), sizeof(T), p.srcStride,
                     p.srcRepeatSize}};
  const uint64_t n = ForEachRun(
      ops, kPer, mask, repeat, kApi, loc,
      [](uint8_t* const* ptr, uint64_t len) { std::memmove(ptr[0], ptr[1], len * sizeof(T)); });
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(), dst.bytes(), src.data(),
                              src.bytes(), nullptr, 0, n, repeat, loc));
}

}  // namespace detail

// Copies the mask-selected elements of `repeatTime` repeats within UB (bit-mask form).
template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
          const uint8_t repeatTime, const CopyRepeatParams& repeatParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CopyMasked(dst, src, isSetMask, mask, nullptr, repeatTime, repeatParams, loc);
}
// As above with a continuous mask (the first `mask` elements of every repeat).
template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask,
          const uint8_t repeatTime, const CopyRepeatParams& repeatParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CopyMasked(dst, src, isSetMask, nullptr, &mask, repeatTime, repeatParams, loc);
}

}  // namespace AscendC
