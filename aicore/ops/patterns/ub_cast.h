// Kernel-side helpers the operator patterns share: storage dtype <-> fp32 conversion of UB tiles
// (operators compute in fp32 whatever they store) and the scalar result of a count-form
// reduction, read on the scalar pipe after a V -> S flag as on the device.
#pragma once

#include <cstdint>

#include "aicore/core/dtype.h"
#include "kernel_operator.h"

namespace aicore::ops::patterns {

// Storage dtypes the patterns load and store.
inline bool IsPatternDType(DType dt) {
  return dt == DType::kF32 || dt == DType::kF16 || dt == DType::kBF16;
}

// Returns `raw` (bytes of `n` elements of dtype `dt`) as fp32: the same memory when `dt` is F32,
// else `scratch` after a Cast into it. `scratch` holds at least `n` floats.
inline AscendC::LocalTensor<float> ToFloat(const AscendC::LocalTensor<uint8_t>& raw, DType dt,
                                           const AscendC::LocalTensor<float>& scratch, uint32_t n) {
  using namespace AscendC;
  if (dt == DType::kF32) return raw.ReinterpretCast<float>();
  if (dt == DType::kF16) {
    Cast(scratch, raw.ReinterpretCast<half>(), RoundMode::CAST_NONE, n);
  } else {
    Cast(scratch, raw.ReinterpretCast<bfloat16_t>(), RoundMode::CAST_NONE, n);
  }
  return scratch;
}

// Writes `n` fp32 values of `src` to `raw` as dtype `dt` (round to nearest even). For F32, `src`
// must already be raw's memory (see FloatView).
inline void FromFloat(const AscendC::LocalTensor<uint8_t>& raw, DType dt,
                      const AscendC::LocalTensor<float>& src, uint32_t n) {
  using namespace AscendC;
  if (dt == DType::kF16) {
    Cast(raw.ReinterpretCast<half>(), src, RoundMode::CAST_RINT, n);
  } else if (dt == DType::kBF16) {
    Cast(raw.ReinterpretCast<bfloat16_t>(), src, RoundMode::CAST_RINT, n);
  }
}

// Returns where fp32 results for `raw` of dtype `dt` are computed: raw itself for F32, else
// `scratch` (then FromFloat converts).
inline AscendC::LocalTensor<float> FloatView(const AscendC::LocalTensor<uint8_t>& raw, DType dt,
                                             const AscendC::LocalTensor<float>& scratch) {
  return dt == DType::kF32 ? raw.ReinterpretCast<float>() : scratch;
}

// The elements ReduceSum / ReduceMax need in sharedTmpBuffer for `count` fp32 inputs.
inline uint32_t ReduceTmpFloats(uint32_t count) {
  const uint32_t repeats = (count + 63) / 64;
  return (2 * repeats + 7) / 8 * 8 + 8;
}

enum class ReduceOp { kSum, kMax };

// Reduces the first `count` floats of `src` and returns the result on the scalar pipe. `result`
// holds 8 floats, `tmp` ReduceTmpFloats(count). The flags make the scalar read wait for V, and the
// next vector write of `result` wait for the read.
inline float ReduceToScalar(ReduceOp op, const AscendC::LocalTensor<float>& src,
                            const AscendC::LocalTensor<float>& result,
                            const AscendC::LocalTensor<float>& tmp, uint32_t count) {
  using namespace AscendC;
  if (op == ReduceOp::kSum) {
    ReduceSum(result, src, tmp, static_cast<int32_t>(count));
  } else {
    ReduceMax(result, src, tmp, static_cast<int32_t>(count));
  }
  SetFlag<HardEvent::V_S>(EVENT_ID0);
  WaitFlag<HardEvent::V_S>(EVENT_ID0);
  const float v = result.GetValue(0);
  SetFlag<HardEvent::S_V>(EVENT_ID0);
  WaitFlag<HardEvent::S_V>(EVENT_ID0);
  return v;
}

}  // namespace aicore::ops::patterns
