// AscendC Swish and Silu ("activation/swish.h", "activation/silu.h"): dst = x / (1 + exp(-beta x))
// (Silu: beta = 1), computed in T directly on dst without scratch, as documented (no tmp tensor).
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/activation/sigmoid.h"

namespace AscendC {
namespace lib {

template <typename T>
void SwishInPlace(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  uint32_t n, T beta, const detail::SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  if (n > src.GetSize() || n > dst.GetSize()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, "dataSize ", n, " exceeds src (",
                 src.GetSize(), ") or dst (", dst.GetSize(), ")");
  }
  CheckNoOverlap(api, dst, n, src, n, loc);
  const int32_t c = static_cast<int32_t>(n);
  Muls(dst, src, static_cast<T>(-static_cast<float>(beta)), c);
  Exp(dst, dst, c);
  Adds(dst, dst, static_cast<T>(1.0f), c);
  Div(dst, src, dst, c);
}

}  // namespace lib

// dst[i] = src[i] / (1 + exp(-scalarValue * src[i])) for i < dataSize; no overlap.
template <typename T, bool isReuseSource = false>
void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
           const std::type_identity_t<T> scalarValue,
           detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::SwishInPlace("Swish", dstLocal, srcLocal, dataSize, scalarValue, loc);
}

// dst[i] = src[i] / (1 + exp(-src[i])) for i < dataSize; no overlap.
template <typename T, bool isReuseSource = false>
void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
          detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::SwishInPlace("Silu", dstLocal, srcLocal, dataSize, static_cast<T>(1.0f), loc);
}

}  // namespace AscendC
