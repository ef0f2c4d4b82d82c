// DataCopyPad: unaligned copies between GM and UB (or L1). GM -> UB on MTE2 pads every copied
// block up to whole 32-byte DataBlocks (optionally with left/right padding elements); UB -> GM
// on MTE3 writes exactly blockLen bytes per block. See Note [DataCopyPad layout].
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicore/kernel/copy/copy_common.h"
#include "aicore/kernel/copy/params.h"

namespace AscendC {

// Note [DataCopyPad layout]
// GM -> UB, block i of blockCount:
//   GM:  blockLen bytes at i * (blockLen + srcStride)              (srcStride in bytes)
//   UB:  a row of Up32(leftPadding*sizeof(T) + blockLen + rightPadding*sizeof(T)) bytes at
//        i * (row + dstStride * 32)                                 (dstStride in DataBlocks)
//        holding leftPadding pad elements, the blockLen data bytes, then pad elements to the
//        end of the row. Pad elements are paddingValue when isPad; else the value of the last
//        SetPadValue<T> on this core, if any; else the block's first element (the hardware's
//        dummy fill; do not rely on it).
// UB -> GM, block i:
//   UB:  blockLen bytes at i * (Up32(blockLen) + srcStride * 32)   (srcStride in DataBlocks)
//   GM:  exactly blockLen bytes at i * (blockLen + dstStride)       (dstStride in bytes)
// blockLen must be a whole number of elements; each padding must fit in 32 bytes. SetAtomicAdd
// and friends apply to UB -> GM as for DataCopy.

namespace detail {

inline uint64_t Up32(uint64_t x) { return (x + 31) / 32 * 32; }

template <typename T>
void PadGmToLocal(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t block_count,
                  uint64_t block_len, uint64_t src_gap, uint64_t dst_gap_blocks, bool is_pad,
                  uint32_t left, uint32_t right, const T& pad_value, const SrcLoc& loc) {
  constexpr const char* kApi = "DataCopyPad";
  if (block_count == 0 || block_len == 0) return;
  if (block_len % sizeof(T) != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "blockLen ", block_len,
         " B is not a whole number of ", sizeof(T), "-byte elements");
  }
  if (left * sizeof(T) > 32 || right * sizeof(T) > 32) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "leftPadding ", left, " and rightPadding ", right,
         " elements of ", sizeof(T), " B must each fit in 32 B");
  }
  const uint64_t row = Up32(left * sizeof(T) + block_len + right * sizeof(T));
  const uint64_t dst_pitch = row + dst_gap_blocks * 32;
  const uint64_t src_pitch = block_len + src_gap;
  const uint64_t dst_span = (block_count - 1) * dst_pitch + row;
  const uint64_t src_span = (block_count - 1) * src_pitch + block_len;
  CheckLocal(dst, dst_span, {aicore::arch::Buffer::kUb, aicore::arch::Buffer::kL1}, kApi, "dst",
             loc);
  CheckGmExtent(src, src_span, kApi, "src", loc);
  uint8_t* out = reinterpret_cast<uint8_t*>(dst.data());
  const uint8_t* in = reinterpret_cast<const uint8_t*>(src.data());
  auto& core = Core();
  const bool pad_set = core.pad_value_set;
  const uint64_t pad_bits = core.pad_value_bits;
  core.Execute(aicore::sim::Pipe::kMte2, [=] {
    const uint64_t row_elems = row / sizeof(T);
    const uint64_t data_begin = left;
    const uint64_t data_end = left + block_len / sizeof(T);
    for (uint32_t b = 0; b < block_count; ++b) {
      uint8_t* r = out + b * dst_pitch;
      const uint8_t* s = in + b * src_pitch;
      T fill = pad_value;
      if (!is_pad) {
        if (pad_set) {
          std::memcpy(&fill, &pad_bits, sizeof(T));
        } else {
          std::memcpy(&fill, s, sizeof(T));
        }
      }
      for (uint64_t e = 0; e < data_begin; ++e) std::memcpy(r + e * sizeof(T), &fill, sizeof(T));
      std::memcpy(r + data_begin * sizeof(T), s, block_len);
      for (uint64_t e = data_end; e < row_elems; ++e) {
        std::memcpy(r + e * sizeof(T), &fill, sizeof(T));
      }
    }
  });
  AICORE_ISSUE(core, CopyInstr(core, kApi, aicore::sim::Pipe::kMte2, aicore::DTypeOf<T>(),
                               dst.data(), dst_span, src.data(), src_span, block_count * block_len,
                               {block_count, static_cast<uint32_t>(row), dst_pitch},
                               {block_count, static_cast<uint32_t>(block_len), src_pitch}, loc));
}

template <typename T>
void PadLocalToGm(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t block_count,
                  uint64_t block_len, uint64_t src_gap_blocks, uint64_t dst_gap,
                  const SrcLoc& loc) {
  constexpr const char* kApi = "DataCopyPad";
  if (block_count == 0 || block_len == 0) return;
  if (block_len % sizeof(T) != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, kApi, loc, "blockLen ", block_len,
         " B is not a whole number of ", sizeof(T), "-byte elements");
  }
  const uint64_t src_pitch = Up32(block_len) + src_gap_blocks * 32;
  const uint64_t dst_pitch = block_len + dst_gap;
  const uint64_t src_span = (block_count - 1) * src_pitch + block_len;
  const uint64_t dst_span = (block_count - 1) * dst_pitch + block_len;
  CheckLocal(src, src_span, {aicore::arch::Buffer::kUb, aicore::arch::Buffer::kL1}, kApi, "src",
             loc);
  CheckGmExtent(dst, dst_span, kApi, "dst", loc);
  auto& core = Core();
  core.Execute(aicore::sim::Pipe::kMte3,
               [mode = core.atomic_mode, d = reinterpret_cast<uint8_t*>(dst.data()), dst_pitch,
                p = reinterpret_cast<const uint8_t*>(src.data()), src_pitch, block_count,
                block_len] {
                 AtomicCopyBlocks(mode, d, dst_pitch, p, src_pitch, block_count, block_len,
                                  aicore::DTypeOf<T>());
               });
  AICORE_ISSUE(core, CopyInstr(core, kApi, aicore::sim::Pipe::kMte3, aicore::DTypeOf<T>(),
                               dst.data(), dst_span, src.data(), src_span, block_count * block_len,
                               {block_count, static_cast<uint32_t>(block_len), dst_pitch},
                               {block_count, static_cast<uint32_t>(block_len), src_pitch}, loc));
}

}  // namespace detail

// Sets the value DataCopyPad (GM -> VECIN/VECOUT) pads with when its isPad is false; it stays in
// effect on this core until the next SetPadValue. T is the type of the later DataCopyPad (its
// low sizeof(T) bytes are used).
template <typename T, TPosition pos = TPosition::MAX>
void SetPadValue(T paddingValue) {
  static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                "SetPadValue: pos must be TPosition::VECIN, VECOUT or MAX");
  static_assert(sizeof(T) <= 8, "SetPadValue takes an element of at most 8 bytes");
  auto& core = detail::Core();
  core.pad_value_bits = 0;
  std::memcpy(&core.pad_value_bits, &paddingValue, sizeof(T));
  core.pad_value_set = true;
}

// GM -> UB/L1: blockCount blocks of blockLen bytes; see Note [DataCopyPad layout].
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                 const DataCopyExtParams& dataCopyParams, const DataCopyPadExtParams<T>& padParams,
                 detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::PadGmToLocal(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                       dataCopyParams.srcStride, dataCopyParams.dstStride, padParams.isPad,
                       padParams.leftPadding, padParams.rightPadding, padParams.paddingValue, loc);
}

// UB/L1 -> GM: writes exactly blockLen bytes per block; see Note [DataCopyPad layout].
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                 const DataCopyExtParams& dataCopyParams,
                 detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::PadLocalToGm(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                       dataCopyParams.srcStride, dataCopyParams.dstStride, loc);
}

// The older GM -> UB/L1 form: DataCopyParams with blockLen and srcStride in bytes, dstStride in
// DataBlocks; the pad value converts to T.
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                 const DataCopyParams& dataCopyParams, const DataCopyPadParams& padParams,
                 detail::SrcLoc loc = detail::SrcLoc::current()) {
  T pad_value{};
  if constexpr (std::is_arithmetic_v<T>) {
    pad_value = static_cast<T>(padParams.paddingValue);
  } else {
    pad_value = T(static_cast<float>(padParams.paddingValue));
  }
  detail::PadGmToLocal(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                       dataCopyParams.srcStride, dataCopyParams.dstStride, padParams.isPad,
                       padParams.leftPadding, padParams.rightPadding, pad_value, loc);
}

// The older UB/L1 -> GM form: blockLen and dstStride in bytes, srcStride in DataBlocks.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                 const DataCopyParams& dataCopyParams,
                 detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::PadLocalToGm(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                       dataCopyParams.srcStride, dataCopyParams.dstStride, loc);
}

}  // namespace AscendC
