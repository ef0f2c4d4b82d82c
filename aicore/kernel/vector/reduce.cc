// Source-geometry checks of the reduction APIs (see reduce.h).
#include "aicore/kernel/vector/reduce.h"

#include <algorithm>

namespace AscendC::detail {

ReduceGeometry MakeGeometry(const RepeatMask& mask, uint32_t per_repeat, uint32_t esize,
                            int64_t repeat, int64_t blk_stride, int64_t rep_stride,
                            uint64_t src_bytes, int64_t max_repeat, const char* api,
                            const SrcLoc& loc) {
  ReduceGeometry g;
  g.mask = mask;
  g.per_repeat = per_repeat;
  if (blk_stride < 0 || blk_stride > 65535) {
    Fail(StatusCode::kInvalidArgument, api, loc, "srcBlkStride ", blk_stride,
         " is outside [0, 65535]");
  }
  if (rep_stride < 0 || rep_stride > 65535) {
    Fail(StatusCode::kInvalidArgument, api, loc, "srcRepStride ", rep_stride,
         " is outside [0, 65535]");
  }
  g.blk_stride = static_cast<uint32_t>(blk_stride);
  g.rep_stride = static_cast<uint32_t>(rep_stride);
  if (mask.counter) {
    // Rounded up without overflow for any count.
    const uint64_t n = mask.count / per_repeat + (mask.count % per_repeat != 0 ? 1 : 0);
    if (max_repeat >= 0 && n > static_cast<uint64_t>(max_repeat)) {
      Fail(StatusCode::kInvalidArgument, api, loc, "counter mode: ", mask.count, " elements need ",
           n, " repeats, more than ", max_repeat);
    }
    g.repeats = static_cast<uint32_t>(n);
  } else {
    if (repeat < 0 || (max_repeat >= 0 && repeat > max_repeat)) {
      Fail(StatusCode::kInvalidArgument, api, loc, "repeatTimes ", repeat, " is outside [0, ",
           max_repeat >= 0 ? max_repeat : int64_t{INT32_MAX}, "]");
    }
    g.repeats = static_cast<uint32_t>(repeat);
  }
  if (g.repeats == 0) return g;
  // The farthest byte read: the last active element of the last repeat, or of the one before
  // it (a counter-mode last repeat may be partial).
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
  const uint32_t per_block = 32 / esize;
  auto end_of = [&](uint64_t r, uint32_t e) {
    return (r * g.rep_stride + e / per_block * g.blk_stride) * 32 + (e % per_block) * esize + esize;
  };
  uint64_t end = end_of(g.repeats - 1, last_final);
  if (g.repeats >= 2) end = std::max(end, end_of(g.repeats - 2, last_any));
  if (end > src_bytes) {
    Fail(StatusCode::kOutOfRange, api, loc, "src: ", g.repeats, " repeats with srcBlkStride ",
         g.blk_stride, " and srcRepStride ", g.rep_stride, " reach byte ", end,
         " but the tensor holds ", src_bytes, " bytes");
  }
  return g;
}

}  // namespace AscendC::detail
