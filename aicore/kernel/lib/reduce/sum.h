// AscendC Sum and Mean ("reduce/sum.h", "reduce/mean.h"): last-axis reductions of an
// [outter, inner] source (n <= inner real values per row, inner 32-byte padded), one result per
// row in dst. Sums are ReduceSum's pairwise trees (accumulated in float, see Note [Reduce
// semantics]); Mean with accType = float widens half rows first.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/detail/row_ops.h"

namespace AscendC {

struct SumParams {
  uint32_t outter = 1;
  uint32_t inner;
  uint32_t n;
};
struct MeanParams {
  uint32_t outter = 1;
  uint32_t inner;
  uint32_t n;
};

namespace lib {

// Scratch bytes of one ReduceSum over n elements of `type_size` bytes (Note [Reduce semantics]).
constexpr uint32_t SumScratchBytes(uint32_t n, uint32_t type_size) {
  const uint32_t per = 256 / type_size, epb = 32 / type_size;
  return AlignUp(CeilDiv(n, per), epb) * type_size;
}
// Rows a Mean chunk converts at once when it widens to float.
inline constexpr uint32_t kMeanRows = 64;
// Scratch bytes of Mean: the sum's scratch, plus a float row and kMeanRows float results when
// the accumulation type is wider than the source.
constexpr uint32_t MeanScratchBytes(uint32_t n, uint32_t src_size, uint32_t acc_size) {
  if (acc_size == src_size) return SumScratchBytes(n, src_size);
  return AlignUp(n * 4, kBlockBytes) + SumScratchBytes(n, 4) + kMeanRows * 4;
}

template <typename P>
void CheckReduceParams(const char* api, const P& p, uint32_t type_size, uint32_t src_size,
                       uint32_t dst_size, uint32_t tmp_bytes, uint32_t need_tmp,
                       const detail::SrcLoc& loc) {
  const uint32_t epb = 32 / type_size;
  if (p.n == 0 || p.n > p.inner || p.inner % epb != 0 || p.outter == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "outter ", p.outter, ", inner ",
                 p.inner, ", n ", p.n, ": need outter >= 1, 1 <= n <= inner and inner a "
                 "multiple of ", epb, " (32 bytes)");
  }
  if (uint64_t{p.outter} * p.inner > src_size || p.outter > dst_size) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, "src holds ", src_size,
                 " and dst ", dst_size, " elements; outter x inner = ", p.outter, " x ", p.inner);
  }
  if (tmp_bytes < need_tmp) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "sharedTmpBuffer holds ",
                 tmp_bytes, " bytes but n = ", p.n, " needs ", need_tmp,
                 " (see the Get*MaxMinTmpSize helpers)");
  }
}

}  // namespace lib

// dst[i] = sum of src[i * inner, i * inner + n) for i < outter; no src/dst overlap.
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false,
          bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
         const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams,
         detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  static_assert(reduceDim == -1 && !isBasicBlock, "reduceDim and isBasicBlock keep defaults");
  lib::CheckReduceParams("Sum", sumParams, sizeof(T), srcTensor.GetSize(), dstTensor.GetSize(),
                         sharedTmpBuffer.GetSize(), lib::SumScratchBytes(sumParams.n, sizeof(T)),
                         loc);
  lib::CheckNoOverlap("Sum", dstTensor, sumParams.outter, srcTensor,
                      sumParams.outter * sumParams.inner, loc);
  const LocalTensor<T> work = sharedTmpBuffer.ReinterpretCast<T>();
  for (uint32_t i = 0; i < sumParams.outter; ++i) {
    ReduceSum(dstTensor[i], srcTensor[i * sumParams.inner], work,
              static_cast<int32_t>(sumParams.n), loc);
  }
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false,
          bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
         const SumParams& sumParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  Sum<T, reduceDim, isReuseSource, isBasicBlock>(dstTensor, srcTensor,
                                                 lib::PopStackBuffer("Sum", loc), sumParams, loc);
}

// dst[i] = (sum of src[i * inner, i * inner + n)) / n, accumulated in accType (float for a half
// source widens each row first); no src/dst overlap.
template <typename T, typename accType = T, bool isReuseSource = false,
          bool isBasicBlock = false, int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
          const LocalTensor<uint8_t>& sharedTmpBuffer, const MeanParams& meanParams,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  static_assert(sizeof(accType) >= sizeof(T), "accType must be at least as wide as T");
  static_assert(reduceDim == -1 && !isBasicBlock, "reduceDim and isBasicBlock keep defaults");
  const MeanParams& p = meanParams;
  lib::CheckReduceParams("Mean", p, sizeof(T), srcTensor.GetSize(), dstTensor.GetSize(),
                         sharedTmpBuffer.GetSize(),
                         lib::MeanScratchBytes(p.n, sizeof(T), sizeof(accType)), loc);
  lib::CheckNoOverlap("Mean", dstTensor, p.outter, srcTensor, p.outter * p.inner, loc);
  const float inv_n = 1.0f / static_cast<float>(p.n);
  if constexpr (sizeof(accType) == sizeof(T)) {
    const LocalTensor<T> work = sharedTmpBuffer.ReinterpretCast<T>();
    for (uint32_t i = 0; i < p.outter; ++i) {
      ReduceSum(dstTensor[i], srcTensor[i * p.inner], work, static_cast<int32_t>(p.n), loc);
    }
    Muls(dstTensor, dstTensor, static_cast<T>(inv_n), static_cast<int32_t>(p.outter), loc);
  } else {
    const uint32_t row_bytes = lib::AlignUp(p.n * 4, lib::kBlockBytes);
    const LocalTensor<float> row = sharedTmpBuffer.ReinterpretCast<float>();
    const LocalTensor<float> work = sharedTmpBuffer[row_bytes].ReinterpretCast<float>();
    const LocalTensor<float> sums =
        sharedTmpBuffer[row_bytes + lib::SumScratchBytes(p.n, 4)].ReinterpretCast<float>();
    for (uint32_t r0 = 0; r0 < p.outter; r0 += lib::kMeanRows) {
      const uint32_t rows = std::min(lib::kMeanRows, p.outter - r0);
      for (uint32_t i = 0; i < rows; ++i) {
        lib::ToFloat(row, srcTensor[(r0 + i) * p.inner], p.n);
        ReduceSum(sums[i], row, work, static_cast<int32_t>(p.n), loc);
      }
      Muls(sums, sums, inv_n, static_cast<int32_t>(rows), loc);
      lib::FromFloat(dstTensor[r0], sums, rows);
    }
  }
}
template <typename T, typename accType = T, bool isReuseSource = false,
          bool isBasicBlock = false, int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
          const MeanParams& meanParams, detail::SrcLoc loc = detail::SrcLoc::current()) {
  Mean<T, accType, isReuseSource, isBasicBlock, reduceDim>(
      dstTensor, srcTensor, lib::PopStackBuffer("Mean", loc), meanParams, loc);
}

}  // namespace AscendC
