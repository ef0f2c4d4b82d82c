// GatherMask: compacts the elements of src0 whose gather-mask bit is 1 into dst, with a built-in
// pattern (1-7) or a user pattern tensor, in normal or counter mode; reports the kept count.
// See Note [GatherMask semantics].
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Note [GatherMask semantics]
// (The GatherMask docs; per = 256 / sizeof(T) elements make one repeat.)
// - Repeats: reduceMode false (normal): repeatTimes repeats of `per` elements, mask ignored.
//   reduceMode true (counter): repeatTimes repeats of `mask` elements each, the docs'
//   "configuration one" of the A2/A3 rows. aicore's reading: `mask` must then lie in [1, per] (one
//   repeat reads at most 256 bytes); a larger value is an error rather than a guess.
// - src0 element e of repeat r: base + (r * src0RepeatStride + e*sizeof(T)/32 * src0BlockStride) *
//   32 + e*sizeof(T) % 32 (strides in DataBlocks; block stride 0 re-reads block 0).
// - Pattern bit of element e of repeat r: built-in: pattern 1 even e, 2 odd e, 3/4/5/6 e % 4 ==
//   0/1/2/3, 7 every e, the same for every repeat (src1RepeatStride ignored). User tensor: bit e
//   (least significant bit first) of the bytes at src1 + r * src1RepeatStride * 32.
// - Kept elements are written to dst densely, in order, from dst[0]; rsvdCnt is their number. dst
//   may alias src0 (the result is computed before it is stored).
// - Afterwards the mask mode is normal (the docs: the call leaves normal mode set).

struct GatherMaskParams {
  GatherMaskParams() = default;
  GatherMaskParams(uint8_t src0BlockStrideIn, uint16_t repeatTimesIn, uint16_t src0RepeatStrideIn,
                   uint8_t src1RepeatStrideIn)
      : src0BlockStride(src0BlockStrideIn),
        repeatTimes(repeatTimesIn),
        src0RepeatStride(src0RepeatStrideIn),
        src1RepeatStride(src1RepeatStrideIn) {}
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 0;
  uint8_t src1RepeatStride = 0;
};

// Reserved template parameter of GatherMask (the docs: keep the default).
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
inline constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

namespace detail {

template <typename T>
inline constexpr bool kGatherMaskType =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, uint32_t>;

// Returns true when built-in pattern `p` (1-7) keeps element e.
inline bool PatternKeeps(uint8_t p, uint32_t e) {
  switch (p) {
    case 1:
      return e % 2 == 0;
    case 2:
      return e % 2 == 1;
    case 3:
    case 4:
    case 5:
    case 6:
      return e % 4 == static_cast<uint32_t>(p - 3);
    default:
      return true;
  }
}

// `pattern_bits` null: built-in `pattern`; else the user pattern of `pattern_bytes` bytes.
template <typename T>
void GatherMaskImpl(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                    const uint8_t* pattern_bits, uint64_t pattern_bytes, uint8_t pattern,
                    bool reduce_mode, uint32_t mask, const GatherMaskParams& p, uint64_t& rsvd_cnt,
                    const SrcLoc& loc) {
  static_assert(kGatherMaskType<T>,
                "GatherMask takes half, bfloat16_t, float, (u)int16_t or (u)int32_t");
  constexpr const char* kApi = "GatherMask";
  constexpr uint32_t kPer = 256 / sizeof(T);
  CheckVecOperand(dst, kApi, "dst", loc);
  CheckVecOperand(src0, kApi, "src0", loc);
  if (pattern_bits == nullptr && (pattern < 1 || pattern > 7)) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "src1Pattern ", static_cast<int>(pattern),
         " is not a built-in pattern (1-7)");
  }
  if (reduce_mode && (mask == 0 || mask > kPer)) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "counter mode (reduceMode true): mask ", mask,
         " is outside [1, ", kPer, "], the elements of one repeat");
  }
  const uint32_t per = reduce_mode ? mask : kPer;
  const uint32_t repeats = p.repeatTimes;
  auto& core = Core();
  core.mask_counter_mode = false;
  rsvd_cnt = 0;
  if (repeats == 0) return;
  constexpr uint32_t kPerBlock = 32 / sizeof(T);
  auto src_off = [&](uint64_t r, uint32_t e) {
    return (r * p.src0RepeatStride + e / kPerBlock * uint64_t{p.src0BlockStride}) * 32 +
           (e % kPerBlock) * sizeof(T);
  };
  const uint64_t src_end =
      std::max(src_off(repeats - 1, per - 1) + sizeof(T), src_off(0, per - 1) + sizeof(T));
  if (src_end > src0.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, kApi, loc, "src0: ", repeats, " repeats of ", per,
         " elements with src0BlockStride ", static_cast<int>(p.src0BlockStride),
         " and src0RepeatStride ", p.src0RepeatStride, " reach byte ", src_end,
         " but the tensor holds ", src0.bytes(), " bytes");
  }
  uint64_t pattern_end = 0;
  if (pattern_bits != nullptr) {
    pattern_end =
        std::max<uint64_t>((repeats - 1) * uint64_t{p.src1RepeatStride} * 32, 0) + (per + 7) / 8;
    if (pattern_end > pattern_bytes) [[unlikely]] {
      Fail(StatusCode::kOutOfRange, kApi, loc, "src1Pattern: ", repeats, " repeats of ", per,
           " bits with src1RepeatStride ", static_cast<int>(p.src1RepeatStride), " read ",
           pattern_end, " B but the tensor holds ", pattern_bytes, " B");
    }
  }
  const uint8_t* in = reinterpret_cast<const uint8_t*>(src0.data());
  std::vector<T> kept;
  kept.reserve(uint64_t{repeats} * per);
  for (uint32_t r = 0; r < repeats; ++r) {
    const uint8_t* bits =
        pattern_bits ? pattern_bits + uint64_t{r} * p.src1RepeatStride * 32 : nullptr;
    for (uint32_t e = 0; e < per; ++e) {
      const bool keep = bits ? ((bits[e / 8] >> (e % 8)) & 1u) != 0 : PatternKeeps(pattern, e);
      if (!keep) continue;
      T v;
      std::memcpy(&v, in + src_off(r, e), sizeof(T));
      kept.push_back(v);
    }
  }
  if (kept.size() > dst.GetSize()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, kApi, loc, "dst holds ", dst.GetSize(), " elements but ",
         kept.size(), " are kept");
  }
  if (!kept.empty()) std::memcpy(dst.data(), kept.data(), kept.size() * sizeof(T));
  rsvd_cnt = kept.size();
  AICORE_ISSUE(core, WithSource(VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(),
                                         kept.size() * sizeof(T), src0.data(), src_end, nullptr, 0,
                                         uint64_t{repeats} * per, repeats, loc),
                                core, pattern_bits, pattern_end));
}

}  // namespace detail

// User pattern: src1Pattern is uint16_t for 16-bit T, uint32_t for 32-bit T (the docs' table).
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                const LocalTensor<U>& src1Pattern, const bool reduceMode, const uint32_t mask,
                const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt,
                detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) == sizeof(T),
                "GatherMask: src1Pattern is uint16_t for 16-bit T and uint32_t for 32-bit T");
  detail::CheckVecOperand(src1Pattern, "GatherMask", "src1Pattern", loc);
  detail::GatherMaskImpl(dst, src0, reinterpret_cast<const uint8_t*>(src1Pattern.data()),
                         src1Pattern.bytes(), 0, reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
}

// Built-in pattern 1-7 (see Note [GatherMask semantics]).
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                const bool reduceMode, const uint32_t mask,
                const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt,
                detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::GatherMaskImpl(dst, src0, nullptr, 0, src1Pattern, reduceMode, mask, gatherMaskParams,
                         rsvdCnt, loc);
}

}  // namespace AscendC
