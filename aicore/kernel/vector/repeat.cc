// Mask resolution and extent checks for level-0 vector calls.
#include "aicore/kernel/vector/repeat.h"

#include <algorithm>
#include <bit>

namespace AscendC::detail {

namespace {

// Returns a lane whose position inside its DataBlock of `per_block` lanes is the highest of the
// active lanes of a normal-mode mask (`last_any`, the highest active lane, when none is active):
// with block stride 0 every DataBlock of a repeat lands on the first, so that position reaches
// farthest.
uint32_t FarthestInBlock(const RepeatMask& mask, uint32_t per_repeat, uint32_t per_block,
                         uint32_t last_any) {
  if (per_repeat <= 128 && per_block <= 64 && 64 % per_block == 0) {
    // Only the position inside the block matters: OR the blocks of the mask together.
    uint64_t lo, hi;
    LaneWords(mask, per_repeat, &lo, &hi);
    uint64_t acc = 0;
    for (uint32_t c = 0; c < 64; c += per_block) acc |= (lo >> c) | (hi >> c);
    if (per_block < 64) acc &= (1ull << per_block) - 1;
    if (acc == 0) return last_any;
    return 63 - static_cast<uint32_t>(std::countl_zero(acc));
  }
  uint32_t far = last_any;
  for (uint32_t e = 0; e < per_repeat; ++e) {
    if (Active(mask, e) && e % per_block > far % per_block) far = e;
  }
  return far;
}

}  // namespace

RepeatMask ResolveMask(bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                       uint32_t per_repeat, const char* api, const SrcLoc& loc) {
  auto& core = Core();
  RepeatMask m;
  m.counter = core.mask_counter_mode;
  if (m.counter) {
    uint64_t count = core.vector_mask[0];
    if (is_set_mask) count = bit_mask ? bit_mask[0] : *cont_mask;
    m.count = count;
    return m;
  }
  if (!is_set_mask) {
    m.bits[0] = core.vector_mask[0];
    m.bits[1] = core.vector_mask[1];
  } else if (bit_mask != nullptr) {
    m.bits[0] = bit_mask[0];
    m.bits[1] = per_repeat > 64 ? bit_mask[1] : 0;
  } else {
    const uint64_t len = *cont_mask;
    if (len == 0 || len > per_repeat) {
      Fail(StatusCode::kInvalidArgument, api, loc, "continuous mask ", len,
           " is outside [1, ", per_repeat, "] for ", per_repeat, " elements per repeat");
    }
    m.bits[0] = len >= 64 ? ~0ull : ((1ull << len) - 1);
    m.bits[1] = len <= 64 ? 0 : (len >= 128 ? ~0ull : ((1ull << (len - 64)) - 1));
  }
  if (per_repeat <= 64) {
    if (per_repeat < 64) m.bits[0] &= (1ull << per_repeat) - 1;
    m.bits[1] = 0;
  }
  if (m.bits[0] == 0 && m.bits[1] == 0) {
    Fail(StatusCode::kInvalidArgument, api, loc, "the mask selects no element of the ",
         per_repeat, "-element repeat");
  }
  return m;
}

void CheckLevel0Extent(const Operand* ops, int n, uint32_t per_repeat, const RepeatMask& mask,
                       uint32_t repeat, const char* api, const SrcLoc& loc,
                       const char* const* roles, bool first_is_dst) {
  static const char* const kDefaultRoles[] = {"dst", "src0", "src1", "src2"};
  const char* const* kRoles = roles != nullptr ? roles : kDefaultRoles;
  if (repeat > 255) {
    Fail(StatusCode::kInvalidArgument, api, loc, "repeatTimes ", repeat,
         " exceeds 255 (in counter mode: ", mask.count, " elements need more than 255 repeats)");
  }
  // The highest active element of a full repeat, and of the last repeat (which in counter mode
  // may be partial). With non-negative strides the farthest byte is in one of the last two.
  uint32_t last_any = 0;
  uint32_t last_final = 0;
  if (mask.counter) {
    last_any = static_cast<uint32_t>(std::min<uint64_t>(per_repeat, mask.count)) - 1;
    last_final = static_cast<uint32_t>((mask.count - 1) % per_repeat);
  } else {
    const uint32_t end = ActiveEnd(mask, per_repeat);
    last_any = end == 0 ? 0 : end - 1;
    last_final = last_any;
  }
  for (int k = 0; k < n; ++k) {
    const Operand& op = ops[k];
    if (op.blk_stride == 0 && k == 0 && first_is_dst) {
      Fail(StatusCode::kInvalidArgument, api, loc, "dst block stride 0 is undefined");
    }
    if (reinterpret_cast<uintptr_t>(op.base) % 32 != 0) {
      Fail(StatusCode::kInvalidArgument, api, loc, kRoles[k],
           " does not start on a 32-byte boundary (vector operands must be 32-byte aligned)");
    }
    auto end_of = [&op](uint64_t r, uint32_t e) {
      const uint64_t byte = uint64_t{e} * op.esize;
      return (r * op.rep_stride + byte / 32 * op.blk_stride) * 32 + byte % 32 + op.esize;
    };
    // With blkStride 0 every DataBlock of a repeat lands on the first one, so the farthest byte
    // is the active element with the highest offset inside its block, not the last element.
    uint32_t far_any = last_any;
    uint32_t far_final = last_final;
    if (op.blk_stride == 0 && op.esize > 0 && op.esize <= 32) {
      const uint32_t per_block = 32 / op.esize;
      if (mask.counter) {
        far_any = std::min(last_any, per_block - 1);
        far_final = std::min(last_final, per_block - 1);
      } else {
        far_any = FarthestInBlock(mask, per_repeat, per_block, last_any);
        far_final = far_any;
      }
    }
    uint64_t end = end_of(repeat - 1, far_final);
    if (repeat >= 2) end = std::max(end, end_of(repeat - 2, far_any));
    if (end > op.bytes) {
      Fail(StatusCode::kOutOfRange, api, loc, kRoles[k], ": ", repeat,
           " repeats with blkStride ", op.blk_stride, " and repStride ", op.rep_stride,
           " reach byte ", end, " but the tensor holds ", op.bytes, " bytes");
    }
  }
}

}  // namespace AscendC::detail
