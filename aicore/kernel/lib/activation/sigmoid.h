// AscendC Sigmoid ("activation/sigmoid.h"): dst = 1 / (1 + exp(-x)), evaluated in float chunks.
#pragma once

#include <cstdint>

#include "aicore/kernel/lib/activation/activation_impl.h"

namespace AscendC {
namespace lib {

inline constexpr uint32_t kSigmoidBuffers = 2;

struct SigmoidBody {
  void operator()(const LocalTensor<float>* b, int32_t n) const {
    Muls(b[1], b[0], -1.0f, n);
    Exp(b[1], b[1], n);
    Adds(b[1], b[1], 1.0f, n);
    Reciprocal(b[1], b[1], n);
  }
};

}  // namespace lib

// dst[i] = sigmoid(src[i]) for i < calCount (src.GetSize() when omitted); dst and src must not
// overlap.
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::CheckNoOverlap("Sigmoid", dstTensor, calCount, srcTensor, calCount, loc);
  lib::ChunkedFloat<lib::kSigmoidBuffers>("Sigmoid", dstTensor, srcTensor, sharedTmpBuffer,
                                          calCount, lib::SigmoidBody{}, loc);
}
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize(), loc);
}
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const uint32_t calCount, detail::SrcLoc loc = detail::SrcLoc::current()) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, lib::PopStackBuffer("Sigmoid", loc), calCount,
                            loc);
}
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, lib::PopStackBuffer("Sigmoid", loc),
                            srcTensor.GetSize(), loc);
}

}  // namespace AscendC
