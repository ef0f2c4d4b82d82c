// Index generation, gathers and scatters inside UB: CreateVecIndex (dst[i] = firstValue + i),
// Gather (dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)], offsets in bytes), Gatherb
// (whole DataBlocks by byte offset) and Scatter (dst byte dstBaseAddr + dstOffset[i] = src[i]).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Writes dst[i] = firstValue + i for i in [0, count). T is half, float, int16_t or int32_t;
// floating values are computed exactly in double and rounded to T once, integers wrap.
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const std::type_identity_t<T>& firstValue,
                    uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>,
                "CreateVecIndex takes half, float, int16_t or int32_t");
  detail::CheckVecOperand(dst, "CreateVecIndex", "dst", loc);
  if (count > dst.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "CreateVecIndex", loc, "count ", count,
                 " is past the dst tensor's ", dst.GetSize(), " elements");
  }
  T* out = dst.data();
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    for (uint32_t i = 0; i < count; ++i) {
      out[i] = static_cast<T>(static_cast<U>(static_cast<U>(firstValue) + static_cast<U>(i)));
    }
  } else {
    const double first = static_cast<float>(firstValue);
    for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<T>(static_cast<float>(first + i));
  }
  auto& core = detail::Core();
  AICORE_ISSUE(
      core, detail::VecInstr(core, "CreateVecIndex", aicore::DTypeOf<T>(), dst.data(),
                             uint64_t{count} * sizeof(T), nullptr, 0, nullptr, 0, count, 0, loc));
}

namespace detail {

// Level-0 CreateVecIndex: element e of repeat r (when the mask selects it) gets
// firstValue + r * (256 / sizeof(T)) + e, its position in the logical vector.
template <typename T>
void CreateVecIndexMasked(const LocalTensor<T>& dst, const T& first, const uint64_t* bit_mask,
                          const uint64_t* cont_mask, uint8_t repeat, uint16_t dst_blk_stride,
                          uint8_t dst_rep_stride, const SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>,
                "CreateVecIndex takes half, float, int16_t or int32_t");
  CheckVecOperand(dst, "CreateVecIndex", "dst", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(true, bit_mask, cont_mask, kPer, "CreateVecIndex", loc);
  const uint32_t repeats = EffectiveRepeats(mask, kPer, repeat);
  if (repeats == 0) return;
  Operand ops[1] = {{reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), dst_blk_stride,
                     dst_rep_stride}};
  CheckLevel0Extent(ops, 1, kPer, mask, repeats, "CreateVecIndex", loc);
  uint64_t n = 0;
  ForEachActive(ops, kPer, mask, repeats, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    const uint64_t i = uint64_t{r} * kPer + e;
    T v;
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      v = static_cast<T>(static_cast<U>(static_cast<U>(first) + static_cast<U>(i)));
    } else {
      v = static_cast<T>(static_cast<float>(static_cast<double>(static_cast<float>(first)) + i));
    }
    std::memcpy(p[0], &v, sizeof(T));
    ++n;
  });
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, "CreateVecIndex", aicore::DTypeOf<T>(), dst.data(), dst.bytes(),
                              nullptr, 0, nullptr, 0, n, repeats, loc));
}

}  // namespace detail

// Level-0 forms: element e of repeat r, when the mask selects it, gets
// firstValue + r * (256 / sizeof(T)) + e; blocks and repeats placed by the DataBlock strides.
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const std::type_identity_t<T>& firstValue,
                    const uint64_t mask[], uint8_t repeatTime, uint16_t dstBlkStride,
                    uint8_t dstRepStride, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CreateVecIndexMasked(dst, firstValue, mask, nullptr, repeatTime, dstBlkStride,
                               dstRepStride, loc);
}
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const std::type_identity_t<T>& firstValue,
                    uint64_t mask, uint8_t repeatTime, uint16_t dstBlkStride, uint8_t dstRepStride,
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CreateVecIndexMasked(dst, firstValue, nullptr, &mask, repeatTime, dstBlkStride,
                               dstRepStride, loc);
}

// Writes dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)] for i in [0, count). Offsets
// are bytes from the start of src and must land on an element of src; T is a 16- or 32-bit type.
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
            const uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather takes 16- or 32-bit elements");
  detail::CheckVecOperand(dst, "Gather", "dst", loc);
  detail::CheckVecOperand(src, "Gather", "src", loc);
  detail::CheckVecOperand(srcOffset, "Gather", "srcOffset", loc);
  if (count > dst.GetSize() || count > srcOffset.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Gather", loc, "count ", count, " exceeds dst (",
                 dst.GetSize(), " elements) or srcOffset (", srcOffset.GetSize(), " elements)");
  }
  const uint32_t* off = srcOffset.data();
  const T* in = src.data();
  T* out = dst.data();
  const uint64_t src_bytes = src.bytes();
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t byte = uint64_t{srcBaseAddr} + off[i];
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > src_bytes) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, "Gather", loc, "srcOffset[", i, "] = ", off[i],
                   " bytes (+ srcBaseAddr ", srcBaseAddr, ") ",
                   byte % sizeof(T) != 0 ? "is not a multiple of the element size "
                                         : "is outside src, which holds ",
                   byte % sizeof(T) != 0 ? sizeof(T) : src_bytes, " bytes");
    }
    out[i] = in[byte / sizeof(T)];
  }
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, "Gather", aicore::DTypeOf<T>(), dst.data(),
                                      uint64_t{count} * sizeof(T), src.data(), src_bytes,
                                      srcOffset.data(), uint64_t{count} * 4, count, 0, loc));
}

namespace detail {

// Level-0 Gather: element e of repeat r (when the mask selects it) reads srcOffset[r * per + e]
// and lands at dst byte r * dstRepStride * 32 + e * sizeof(T).
template <typename T>
void GatherMasked(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  const LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr,
                  const uint64_t* bit_mask, const uint64_t* cont_mask, uint8_t repeat,
                  uint16_t dst_rep_stride, const SrcLoc& loc) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather takes 16- or 32-bit elements");
  CheckVecOperand(dst, "Gather", "dst", loc);
  CheckVecOperand(src, "Gather", "src", loc);
  CheckVecOperand(srcOffset, "Gather", "srcOffset", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(true, bit_mask, cont_mask, kPer, "Gather", loc);
  const uint32_t repeats = EffectiveRepeats(mask, kPer, repeat);
  if (repeats == 0) return;
  // dst: dst_rep_stride DataBlocks per repeat, elements contiguous; offsets: kPer per repeat.
  Operand ops[2] = {
      {reinterpret_cast<uint8_t*>(dst.data()), dst.bytes(), sizeof(T), 1, dst_rep_stride},
      {reinterpret_cast<uint8_t*>(srcOffset.data()), srcOffset.bytes(), 4, 1, kPer * 4 / 32}};
  static const char* const kRoles[] = {"dst", "srcOffset"};
  CheckLevel0Extent(ops, 2, kPer, mask, repeats, "Gather", loc, kRoles);
  const T* in = src.data();
  const uint64_t src_bytes = src.bytes();
  uint64_t n = 0;
  ForEachActive(ops, kPer, mask, repeats, [&](uint32_t r, uint32_t e, uint8_t* const* p) {
    uint32_t off;
    std::memcpy(&off, p[1], 4);
    const uint64_t byte = uint64_t{srcBaseAddr} + off;
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > src_bytes) [[unlikely]] {
      Fail(StatusCode::kOutOfRange, "Gather", loc, "srcOffset[", uint64_t{r} * kPer + e,
           "] = ", off, " bytes (+ srcBaseAddr ", srcBaseAddr, ") ",
           byte % sizeof(T) != 0 ? "is not a multiple of the element size "
                                 : "is outside src, which holds ",
           byte % sizeof(T) != 0 ? sizeof(T) : src_bytes, " bytes");
    }
    std::memcpy(p[0], in + byte / sizeof(T), sizeof(T));
    ++n;
  });
  auto& core = Core();
  AICORE_ISSUE(core,
               VecInstr(core, "Gather", aicore::DTypeOf<T>(), dst.data(), dst.bytes(), src.data(),
                        src_bytes, srcOffset.data(), srcOffset.bytes(), n, repeats, loc));
}

}  // namespace detail

// Level-0 forms: per repeat, the mask-selected elements e read srcOffset[r * (256 / sizeof(T))
// + e]; repeat r of dst starts dstRepStride DataBlocks after repeat r - 1.
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
            const uint64_t mask[], const uint8_t repeatTime, const uint16_t dstRepStride,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::GatherMasked(dst, src, srcOffset, srcBaseAddr, mask, nullptr, repeatTime, dstRepStride,
                       loc);
}
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
            const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint64_t mask,
            const uint8_t repeatTime, const uint16_t dstRepStride,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::GatherMasked(dst, src, srcOffset, srcBaseAddr, nullptr, &mask, repeatTime, dstRepStride,
                       loc);
}

// Parameters of Gatherb: dst DataBlock strides (the other fields are reserved by the docs and
// ignored). A dstBlkStride of 0 counts as 1, as documented.
struct GatherRepeatParams {
  GatherRepeatParams() = default;
  GatherRepeatParams(uint16_t dstBlkStrideIn, uint16_t dstRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
  uint8_t blockNumber = 8;
  uint16_t src0BlkStride = 1;
  uint16_t src1BlkStride = 1;
  uint16_t src0RepStride = 8;
  uint16_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

// Gathers whole 32-byte DataBlocks: for repeat i and block j in [0, 8), copies the 32 bytes at
// src + offset[i * 8 + j] (bytes, 32-aligned) to dst block (i * dstRepStride + j * dstBlkStride).
// T is uint16_t or uint32_t (the A2/A3 rows of the docs); dst must not be src.
template <typename T>
void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<uint32_t>& offset, const uint8_t repeatTime,
             const GatherRepeatParams& repeatParams,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>,
                "Gatherb takes uint16_t or uint32_t");
  constexpr const char* kApi = "Gatherb";
  detail::CheckVecOperand(dst, kApi, "dst", loc);
  detail::CheckVecOperand(src, kApi, "src", loc);
  detail::CheckVecOperand(offset, kApi, "offset", loc);
  if (repeatTime == 0) return;
  if (dst.data() == src.data()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, kApi, loc,
                 "dst and src are the same memory; the docs forbid it");
  }
  const uint64_t blocks = uint64_t{repeatTime} * 8;
  if (blocks > offset.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, kApi, loc, "offset holds ", offset.GetSize(),
                 " elements but ", static_cast<int>(repeatTime), " repeats read ", blocks);
  }
  const uint64_t blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
  const uint64_t dst_end =
      ((repeatTime - 1) * uint64_t{repeatParams.dstRepStride} + 7 * blk) * 32 + 32;
  if (dst_end > dst.bytes()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, kApi, loc, "dst: ", static_cast<int>(repeatTime),
                 " repeats with dstBlkStride ", blk, " and dstRepStride ",
                 repeatParams.dstRepStride, " reach byte ", dst_end, " but the tensor holds ",
                 dst.bytes(), " bytes");
  }
  const uint32_t* off = offset.data();
  const uint8_t* in = reinterpret_cast<const uint8_t*>(src.data());
  uint8_t* out = reinterpret_cast<uint8_t*>(dst.data());
  for (uint64_t k = 0; k < blocks; ++k) {
    if (off[k] % 32 != 0 || uint64_t{off[k]} + 32 > src.bytes()) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kOutOfRange, kApi, loc, "offset[", k, "] = ", off[k],
                   " bytes ",
                   off[k] % 32 != 0 ? "is not 32-byte aligned" : "is outside src, which holds ",
                   off[k] % 32 != 0 ? 0 : src.bytes(), off[k] % 32 != 0 ? "" : " bytes");
    }
  }
  for (uint64_t k = 0; k < blocks; ++k) {
    const uint64_t i = k / 8, j = k % 8;
    std::memcpy(out + (i * repeatParams.dstRepStride + j * blk) * 32, in + off[k], 32);
  }
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(), dst_end,
                                      src.data(), src.bytes(), offset.data(), blocks * 4,
                                      blocks * 32 / sizeof(T), repeatTime, loc));
}

namespace detail {

// Scatter: element k of the call (src at `src_at(k)`) goes to dst byte dstBaseAddr + off[k].
// Offsets must be element-aligned, inside dst and distinct (the docs leave repeated offsets
// undefined; aicore reports them). `off_index(k)` names the dstOffset entry in messages.
template <typename T, typename SrcAt, typename OffIndex>
void ScatterImpl(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const LocalTensor<uint32_t>& dst_offset, const uint32_t* off, uint64_t n,
                 uint32_t dst_base, uint64_t src_bytes_used, uint32_t repeats, SrcAt&& src_at,
                 OffIndex&& off_index, const SrcLoc& loc) {
  constexpr const char* kApi = "Scatter";
  if (src_bytes_used > src.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, kApi, loc, "src holds ", src.bytes(), " B but the call reads ",
         src_bytes_used, " B");
  }
  const uint64_t dst_bytes = dst.bytes();
  std::vector<uint32_t> owner(dst_bytes / sizeof(T), UINT32_MAX);
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t byte = uint64_t{dst_base} + off[k];
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > dst_bytes) [[unlikely]] {
      Fail(StatusCode::kOutOfRange, kApi, loc, "dstOffset[", off_index(k), "] = ", off[k],
           " bytes (+ dstBaseAddr ", dst_base, ") ",
           byte % sizeof(T) != 0 ? "is not a multiple of the element size "
                                 : "is outside dst, which holds ",
           byte % sizeof(T) != 0 ? sizeof(T) : dst_bytes, " bytes");
    }
    uint32_t& o = owner[byte / sizeof(T)];
    if (o != UINT32_MAX) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, kApi, loc, "dstOffset[", off_index(o), "] and dstOffset[",
           off_index(k), "] both name dst byte ", byte,
           "; the docs leave repeated offsets undefined");
    }
    o = static_cast<uint32_t>(k);
  }
  uint8_t* out = reinterpret_cast<uint8_t*>(dst.data());
  for (uint64_t k = 0; k < n; ++k) std::memcpy(out + dst_base + off[k], src_at(k), sizeof(T));
  auto& core = Core();
  AICORE_ISSUE(core,
               VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(), dst_bytes, src.data(),
                        src_bytes_used, dst_offset.data(), dst_offset.bytes(), n, repeats, loc));
}

template <typename T>
void CheckScatterOperands(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                          const LocalTensor<uint32_t>& dst_offset, const SrcLoc& loc) {
  static_assert(std::is_same_v<T, uint16_t> || std::is_same_v<T, half> ||
                    std::is_same_v<T, uint32_t> || std::is_same_v<T, float> ||
                    std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>,
                "Scatter takes 16- or 32-bit elements (half, float, (u)int16_t, (u)int32_t)");
  CheckVecOperand(dst, "Scatter", "dst", loc);
  CheckVecOperand(src, "Scatter", "src", loc);
  CheckVecOperand(dst_offset, "Scatter", "dstOffset", loc);
}

}  // namespace detail

// Writes src[i] to dst byte dstBaseAddr + dstOffset[i] for i in [0, count); offsets in bytes,
// element-aligned, inside dst and distinct.
template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<uint32_t>& dstOffset, const uint32_t dstBaseAddr,
             const uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckScatterOperands(dst, src, dstOffset, loc);
  if (count > dstOffset.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, "Scatter", loc, "dstOffset holds ",
                 dstOffset.GetSize(), " elements but count is ", count);
  }
  const uint8_t* in = reinterpret_cast<const uint8_t*>(src.data());
  detail::ScatterImpl(
      dst, src, dstOffset, dstOffset.data(), count, dstBaseAddr, uint64_t{count} * sizeof(T), 0,
      [in](uint64_t k) { return in + k * sizeof(T); }, [](uint64_t k) { return k; }, loc);
}

namespace detail {

// Level-0 Scatter: the active elements e of repeat r read src + r * srcRepStride * 32 + e *
// sizeof(T) and dstOffset[r * (256 / sizeof(T)) + e] (aicore's reading, the mirror of Gather's
// level-0 form).
template <typename T>
void ScatterMasked(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<uint32_t>& dst_offset, uint32_t dst_base,
                   const uint64_t* bit_mask, const uint64_t* cont_mask, uint8_t repeat,
                   uint8_t src_rep_stride, const SrcLoc& loc) {
  CheckScatterOperands(dst, src, dst_offset, loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(true, bit_mask, cont_mask, kPer, "Scatter", loc);
  const uint32_t repeats = EffectiveRepeats(mask, kPer, repeat);
  if (repeats == 0) return;
  // Gather the active (offset index, src address) pairs, then scatter them as the count form.
  std::vector<uint32_t> offs;
  std::vector<uint64_t> index;  // the dstOffset entry of each active element
  std::vector<const uint8_t*> srcs;
  uint64_t src_end = 0;
  const uint8_t* in = reinterpret_cast<const uint8_t*>(src.data());
  for (uint32_t r = 0; r < repeats; ++r) {
    for (uint32_t e = 0; e < kPer; ++e) {
      const bool on = mask.counter ? uint64_t{r} * kPer + e < mask.count : Active(mask, e);
      if (!on) continue;
      const uint64_t k = uint64_t{r} * kPer + e;
      if (k >= dst_offset.GetSize()) [[unlikely]] {
        Fail(StatusCode::kOutOfRange, "Scatter", loc, "dstOffset holds ", dst_offset.GetSize(),
             " elements but repeat ", r, " element ", e, " reads dstOffset[", k, "]");
      }
      const uint64_t sb = uint64_t{r} * src_rep_stride * 32 + uint64_t{e} * sizeof(T);
      src_end = std::max(src_end, sb + sizeof(T));
      offs.push_back(dst_offset.data()[k]);
      index.push_back(k);
      srcs.push_back(in + sb);
    }
  }
  if (src_end > src.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, "Scatter", loc, "src: ", repeats, " repeats with srcRepStride ",
         static_cast<int>(src_rep_stride), " reach byte ", src_end, " but the tensor holds ",
         src.bytes(), " bytes");
  }
  ScatterImpl(
      dst, src, dst_offset, offs.data(), offs.size(), dst_base, src_end, repeats,
      [&srcs](uint64_t k) { return srcs[k]; }, [&index](uint64_t k) { return index[k]; }, loc);
}

}  // namespace detail

// Level-0 Scatter with a bit mask (see detail::ScatterMasked for the addressing).
template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<uint32_t>& dstOffset, const uint32_t dstBaseAddr,
             const uint64_t mask[], const uint8_t repeatTime, const uint8_t srcRepStride,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ScatterMasked(dst, src, dstOffset, dstBaseAddr, mask, nullptr, repeatTime, srcRepStride,
                        loc);
}
// Level-0 Scatter with a continuous mask.
template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<uint32_t>& dstOffset, const uint32_t dstBaseAddr,
             const uint64_t mask, const uint8_t repeatTime, const uint8_t srcRepStride,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ScatterMasked(dst, src, dstOffset, dstBaseAddr, nullptr, &mask, repeatTime, srcRepStride,
                        loc);
}

}  // namespace AscendC
