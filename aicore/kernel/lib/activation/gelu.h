// AscendC Gelu, FasterGelu and FasterGeluV2 ("activation/gelu.h"), evaluated in float chunks:
//   Gelu(x)         = x / (1 + exp(-1.5957691216 * (x + 0.044715 x^3)))   (the tanh form)
//   FasterGelu(x)   = x / (1 + exp(-1.702 x))
//   FasterGeluV2(x) = x * (sign(x) * (-0.1444 * (min(|0.7071 x|, 1.769) - 1.769)^2 + 0.5) + 0.5)
#pragma once

#include <cfloat>
#include <cstdint>

#include "aicore/kernel/lib/activation/activation_impl.h"

namespace AscendC {
namespace lib {

inline constexpr uint32_t kGeluBuffers = 3;

struct GeluBody {
  void operator()(const LocalTensor<float>* b, int32_t n) const {
    const auto &x = b[0], &y = b[1];
    Mul(y, x, x, n);
    Muls(y, y, 0.044715f, n);
    Adds(y, y, 1.0f, n);
    Mul(y, y, x, n);
    Muls(y, y, -1.5957691216f, n);
    Exp(y, y, n);
    Adds(y, y, 1.0f, n);
    Div(y, x, y, n);
  }
};
struct FasterGeluBody {
  void operator()(const LocalTensor<float>* b, int32_t n) const {
    const auto &x = b[0], &y = b[1];
    Muls(y, x, -1.702f, n);
    Exp(y, y, n);
    Adds(y, y, 1.0f, n);
    Div(y, x, y, n);
  }
};
struct FasterGeluV2Body {
  void operator()(const LocalTensor<float>* b, int32_t n) const {
    const auto &x = b[0], &y = b[1], &sign = b[2];
    Abs(y, x, n);
    Maxs(sign, y, FLT_MIN, n);
    Div(sign, x, sign, n);  // sign(x); 0 at x = 0 (then the result is 0 either way)
    Muls(y, y, 0.7071f, n);
    Mins(y, y, 1.769f, n);
    Adds(y, y, -1.769f, n);
    Mul(y, y, y, n);
    Muls(y, y, -0.1444f, n);
    Adds(y, y, 0.5f, n);
    Mul(y, y, sign, n);
    Adds(y, y, 0.5f, n);
    Mul(y, y, x, n);
  }
};

}  // namespace lib

#define AICORE_GELU_API(Name, Body)                                                           \
  /* dst[i] = Name(src[i]) for i < dataSize; dst may alias src. */                            \
  template <typename T, bool highPrecision = false, bool highPerformance = false>             \
  void Name(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                   \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize,             \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                 \
    lib::ChunkedFloat<lib::kGeluBuffers>(#Name, dstLocal, srcLocal, sharedTmpBuffer, dataSize, \
                                         lib::Body{}, loc);                                   \
  }                                                                                           \
  template <typename T, bool highPrecision = false, bool highPerformance = false>             \
  void Name(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                   \
            const uint32_t dataSize, detail::SrcLoc loc = detail::SrcLoc::current()) {        \
    Name<T, highPrecision, highPerformance>(dstLocal, srcLocal,                               \
                                            lib::PopStackBuffer(#Name, loc), dataSize, loc);  \
  }

AICORE_GELU_API(Gelu, GeluBody)
AICORE_GELU_API(FasterGelu, FasterGeluBody)
AICORE_GELU_API(FasterGeluV2, FasterGeluV2Body)
#undef AICORE_GELU_API

}  // namespace AscendC
