// Brcb: each repeat reads 8 consecutive source elements and fills one 32-byte DataBlock of dst
// with each, the blocks placed by BrcbRepeatParams (dstBlkStride, dstRepStride in DataBlocks).
#pragma once

#include <cstdint>
#include <cstring>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

struct BrcbRepeatParams {
  BrcbRepeatParams() = default;
  BrcbRepeatParams(uint16_t dstBlkStrideIn, uint16_t dstRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
};

// For r in [0, repeatTime) and j in [0, 8): fills DataBlock (r * dstRepStride + j * dstBlkStride)
// of dst with src[8 * r + j]. T is a 16- or 32-bit type; src holds 8 * repeatTime elements.
template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
          const BrcbRepeatParams& repeatParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb takes 16- or 32-bit elements");
  detail::CheckVecOperand(dst, "Brcb", "dst", loc);
  detail::CheckVecOperand(src, "Brcb", "src", loc);
  if (repeatTime == 0) return;
  if (repeatParams.dstBlkStride == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "Brcb", loc,
                 "dstBlkStride 0 is undefined (every element would land in the same block)");
  }
  const uint64_t src_need = uint64_t{repeatTime} * 8;
  if (src_need > src.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Brcb", loc, "repeatTime ", int{repeatTime},
                 " reads ", src_need, " src elements but src holds ", src.GetSize());
  }
  const uint64_t dst_end =
      ((uint64_t{repeatTime} - 1) * repeatParams.dstRepStride + 7u * repeatParams.dstBlkStride) *
          32 +
      32;
  if (dst_end > dst.bytes()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Brcb", loc, "dst: ", int{repeatTime},
                 " repeats with dstBlkStride ", repeatParams.dstBlkStride, " and dstRepStride ",
                 repeatParams.dstRepStride, " reach byte ", dst_end, " but the tensor holds ",
                 dst.bytes(), " bytes");
  }
  constexpr uint32_t kPerBlock = 32 / sizeof(T);
  uint8_t* out = reinterpret_cast<uint8_t*>(dst.data());
  const T* in = src.data();
  for (uint32_t r = 0; r < repeatTime; ++r) {
    for (uint32_t j = 0; j < 8; ++j) {
      const T v = in[8 * r + j];
      uint8_t* block =
          out + (uint64_t{r} * repeatParams.dstRepStride + j * repeatParams.dstBlkStride) * 32;
      for (uint32_t e = 0; e < kPerBlock; ++e) std::memcpy(block + e * sizeof(T), &v, sizeof(T));
    }
  }
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, "Brcb", aicore::DTypeOf<T>(), dst.data(), dst_end,
                                      src.data(), src_need * sizeof(T), nullptr, 0,
                                      uint64_t{repeatTime} * 8 * kPerBlock, repeatTime, loc));
}

}  // namespace AscendC
