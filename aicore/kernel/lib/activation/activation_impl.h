// The chunked float evaluation behind Gelu/FasterGelu/FasterGeluV2 and Sigmoid: each chunk of the
// source is widened into the scratch, the formula runs as basic vector instructions in float,
// and the result is rounded into dst. dst may alias src (a chunk is read before it is written).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/detail/row_ops.h"

namespace AscendC::lib {

// Returns the elements one chunk holds with `buffers` float buffers in `bytes` of scratch
// (a multiple of 64, at most 2^30; 0 if one repeat does not fit).
constexpr uint32_t ChunkElements(uint32_t bytes, uint32_t buffers) {
  return bytes / (buffers * 4) / kFloatsPerRepeat * kFloatsPerRepeat;
}
// Bytes of scratch for n elements with `buffers` float buffers: {min (one repeat), max (all)}.
constexpr uint32_t ChunkMinBytes(uint32_t buffers) { return buffers * 4 * kFloatsPerRepeat; }
constexpr uint32_t ChunkMaxBytes(uint32_t n, uint32_t buffers) {
  return buffers * 4 * AlignUp(std::max(n, 1u), kFloatsPerRepeat);
}

// Runs fn(y, x, buffers..., count) over [0, n) in chunks; x holds the source in float, y the
// result, and the remaining `kBuffers - 2` are scratch.
template <uint32_t kBuffers, typename T, typename Fn>
void ChunkedFloat(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  const LocalTensor<uint8_t>& tmp, uint32_t n, Fn fn, const detail::SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  if (n > src.GetSize() || n > dst.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, "dataSize ", n, " exceeds src (",
                 src.GetSize(), ") or dst (", dst.GetSize(), ")");
  }
  const uint32_t chunk = ChunkElements(tmp.GetSize(), kBuffers);
  if (chunk == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "sharedTmpBuffer holds ",
                 tmp.GetSize(), " bytes but at least ", ChunkMinBytes(kBuffers),
                 " are needed (see the Get*MaxMinTmpSize helpers)");
  }
  LocalTensor<float> b[kBuffers];
  for (uint32_t i = 0; i < kBuffers; ++i) {
    b[i] = tmp[i * chunk * 4].template ReinterpretCast<float>();
  }
  for (uint32_t at = 0; at < n; at += chunk) {
    const uint32_t c = std::min(chunk, n - at);
    ToFloat(b[0], src[at], c);
    fn(b, static_cast<int32_t>(c));
    FromFloat(dst[at], b[1], c);
  }
}

}  // namespace AscendC::lib
