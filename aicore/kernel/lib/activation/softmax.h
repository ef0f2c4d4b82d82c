// The AscendC SoftMax family on rows of an [m, k] source ("activation/softmax.h"): SoftMax,
// SimpleSoftMax, SoftmaxFlashV2, LogSoftMax and AdjustSoftMaxRes. Every step is a basic vector
// instruction on float data (half sources are widened), chunked by the rows the scratch holds.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aicore/kernel/lib/activation/softmax_utils.h"
#include "aicore/kernel/pipe/flags.h"

namespace AscendC {
namespace lib {

enum class SoftMaxKind { kSoftMax, kSimple, kFlash, kFlashUpdate, kLog };

// The optional operands of one SoftMax-family call (null = absent).
template <typename T, typename U>
struct SoftMaxArgs {
  const LocalTensor<T>* dst = nullptr;
  const LocalTensor<T>* src = nullptr;
  const LocalTensor<U>* sum_out = nullptr;
  const LocalTensor<U>* max_out = nullptr;
  const LocalTensor<U>* exp_max_out = nullptr;
  const LocalTensor<U>* in_sum = nullptr;
  const LocalTensor<U>* in_max = nullptr;
  const LocalTensor<half>* exp_max_half = nullptr;  // the mixed FlashV2 form's half expMax
};

// Returns the rows per chunk: the tiling's when its shape matches and they fit the buffer, else
// as many as fit (a tail tile, or a tiling computed by other rules: the split is recomputed on
// the device); fails when not even one row fits.
template <typename Tiling>
uint32_t ResolveSoftMaxRows(const char* api, uint32_t m, uint32_t k, uint32_t src_size,
                            const LocalTensor<uint8_t>& tmp, const Tiling& tiling,
                            const detail::SrcLoc& loc) {
  const bool matches = tiling.srcM == m && tiling.srcK == k;
  if (matches && tiling.splitM != 0 && tiling.splitM <= m &&
      SoftMaxLayout(tiling.splitM, k, src_size).total <= tmp.GetSize()) {
    return tiling.splitM;
  }
  const uint32_t split = SoftMaxRowsFitting(m, k, src_size, tmp.GetSize());
  if (split == 0) [[unlikely]] {
    const uint32_t min = SoftMaxLayout(1, k, src_size).total;
    if (matches && tiling.splitM == 0) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "the tiling for ", m, " x ", k,
                   " has splitM 0: its localWorkSpaceSize was below the minimum of ", min,
                   " bytes, and sharedTmpBuffer holds ", tmp.GetSize());
    }
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "sharedTmpBuffer holds ",
                 tmp.GetSize(), " bytes but one row of ", k, " columns needs ", min,
                 " (see the GetSoftMax*MinTmpSize helpers)");
  }
  return split;
}

template <typename T>
void CheckSoftMaxTensor(const char* api, const char* role, const LocalTensor<T>& t,
                        uint64_t need, const detail::SrcLoc& loc) {
  if (t.GetSize() < need) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kOutOfRange, api, loc, role, " holds ", t.GetSize(),
                 " elements but the shape needs ", need);
  }
}

template <typename T, typename U, typename Tiling>
void SoftMaxRun(SoftMaxKind kind, const char* api, const SoftMaxArgs<T, U>& a,
                const LocalTensor<uint8_t>& tmp, const Tiling& tiling,
                const SoftMaxShapeInfo& info, const SoftmaxConfig& cfg,
                const detail::SrcLoc& loc) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "T must be half or float");
  static_assert(std::is_same_v<U, half> || std::is_same_v<U, float>,
                "sum/max must be half or float");
  const uint32_t m = info.srcM ? info.srcM : tiling.srcM;
  const uint32_t k = info.srcK ? info.srcK : tiling.srcK;
  const uint32_t valid = info.oriSrcK ? info.oriSrcK : (cfg.oriSrcK ? cfg.oriSrcK : k);
  if (cfg.mode != SoftmaxMode::SOFTMAX_NORMAL) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kUnimplemented, api, loc,
                 "SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC ([m, 1] sum/max) is not implemented "
                 "in aicore; use SOFTMAX_NORMAL ([m, 32 / sizeof] blocks)");
  }
  if (m == 0 || k == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "the shape is ", m, " x ", k,
                 ": pass a SoftMaxShapeInfo or a tiling with srcM and srcK (the tensor "
                 "ShapeInfo fallback is not implemented)");
  }
  if ((k * sizeof(T)) % kBlockBytes != 0 || valid > k || valid == 0) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc, "srcK ", k, " (",
                 k * sizeof(T), " bytes) must be a multiple of 32 bytes and oriSrcK ", valid,
                 " in [1, srcK]");
  }
  constexpr uint32_t blk = kBlockBytes / sizeof(U);
  CheckSoftMaxTensor(api, "src", *a.src, uint64_t{m} * k, loc);
  CheckSoftMaxTensor(api, "dst", *a.dst, uint64_t{m} * k, loc);
  for (const LocalTensor<U>* s : {a.sum_out, a.max_out, a.exp_max_out, a.in_sum, a.in_max}) {
    if (s) CheckSoftMaxTensor(api, "a sum/max tensor", *s, uint64_t{m} * blk, loc);
  }
  const uint32_t split = ResolveSoftMaxRows(api, m, k, sizeof(T), tmp, tiling, loc);
  const SoftMaxWorkspace w = SoftMaxLayout(split, k, sizeof(T));
  auto f32 = [&](uint32_t off) { return tmp[off].template ReinterpretCast<float>(); };
  const RowScratch s{f32(w.reduce), f32(w.pairs), f32(w.blocks)};
  const LocalTensor<float> s0 = f32(w.stat[0]), s1 = f32(w.stat[1]), s2 = f32(w.stat[2]);
  const LocalTensor<float> vec = f32(w.vec);
  const LocalTensor<half> half_vec = tmp[w.half_vec].template ReinterpretCast<half>();
  const float kLog10E = 0.43429448190325182f;

  for (uint32_t r0 = 0; r0 < m; r0 += split) {
    const uint32_t rows = std::min(split, m - r0);
    const uint32_t n = rows * k;
    const LocalTensor<T> src = (*a.src)[r0 * k];
    const LocalTensor<T> dst = (*a.dst)[r0 * k];
    auto stat = [&](const LocalTensor<U>* t) { return (*t)[r0 * blk]; };
    // x: the rows in float; work: where the result is formed (dst itself when T is float, so
    // no copy-out pass is needed; dst may alias src, which every step below tolerates).
    LocalTensor<float> x, work;
    if constexpr (std::is_same_v<T, float>) {
      x = src;
      work = dst;
    } else {
      work = f32(w.work);
      ToFloat(work, src, n);
      x = work;
    }
    switch (kind) {
      case SoftMaxKind::kSimple:
        StatToBlock(s0, stat(a.in_max), rows);
        StatToBlock(s1, stat(a.in_sum), rows);
        RowBroadcast(SubOp{}, work, x, s0, rows, k);
        Exp(work, work, static_cast<int32_t>(n));
        RowBroadcast(DivOp{}, work, work, s1, rows, k);
        break;
      case SoftMaxKind::kSoftMax:
      case SoftMaxKind::kFlash:
      case SoftMaxKind::kLog:
        RowStat(RowKind::kMax, s0, x, rows, k, valid, s);
        RowBroadcast(SubOp{}, work, x, s0, rows, k);
        Exp(work, work, static_cast<int32_t>(n));
        RowStat(RowKind::kSum, s1, work, rows, k, valid, s);
        if (a.max_out) BlockToStat(stat(a.max_out), s0, rows, s, vec, half_vec);
        if (a.sum_out) BlockToStat(stat(a.sum_out), s1, rows, s, vec, half_vec);
        if (kind == SoftMaxKind::kSoftMax) RowBroadcast(DivOp{}, work, work, s1, rows, k);
        if (kind == SoftMaxKind::kLog) {
          // log10(exp(x - max) / sum) = (x - (max + ln sum)) * log10(e), without the division.
          Ln(s2, s1, static_cast<int32_t>(rows * 8));
          Add(s2, s2, s0, static_cast<int32_t>(rows * 8));
          if constexpr (!std::is_same_v<T, float>) ToFloat(work, src, n);
          RowBroadcast(SubOp{}, work, std::is_same_v<T, float> ? x : work, s2, rows, k);
          Muls(work, work, kLog10E, static_cast<int32_t>(n));
        }
        break;
      case SoftMaxKind::kFlashUpdate:
        RowStat(RowKind::kMax, s0, x, rows, k, valid, s);
        StatToBlock(s1, stat(a.in_max), rows);
        Max(s0, s0, s1, static_cast<int32_t>(rows * 8));           // new max
        Sub(s2, s1, s0, static_cast<int32_t>(rows * 8));
        Exp(s2, s2, static_cast<int32_t>(rows * 8));               // exp(inMax - max)
        RowBroadcast(SubOp{}, work, x, s0, rows, k);
        Exp(work, work, static_cast<int32_t>(n));
        RowStat(RowKind::kSum, s1, work, rows, k, valid, s);
        BlockToStat(stat(a.max_out), s0, rows, s, vec, half_vec);  // inMax was read above
        StatToBlock(s0, stat(a.in_sum), rows);
        Mul(s0, s0, s2, static_cast<int32_t>(rows * 8));
        Add(s0, s0, s1, static_cast<int32_t>(rows * 8));
        BlockToStat(stat(a.sum_out), s0, rows, s, vec, half_vec);
        if (a.exp_max_out) {
          BlockToStat(stat(a.exp_max_out), s2, rows, s, vec, half_vec);
        } else {
          BlockToStat((*a.exp_max_half)[r0 * 16], s2, rows, s, vec, half_vec);
        }
        break;
    }
    if constexpr (!std::is_same_v<T, float>) FromFloat(dst, work, n);
  }
}

}  // namespace lib

// --- SoftMax: dst = exp(x - rowmax) / rowsum; sum/max get rowsum/rowmax per row. ---

// Computes softmax over each of the srcM rows of src (srcK columns, 32-byte padded; the first
// oriSrcK take part in max and sum). sum and max are [srcM, 32 / sizeof(T)] blocks of one value.
// dst may alias src. The tmp buffer must hold GetSoftMaxMinTmpSize bytes.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sum, const LocalTensor<T>& max,
             const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's SoftMax supports the ND format only");
  lib::SoftMaxArgs<T, T> a{&dst, &src, &sum, &max};
  lib::SoftMaxRun(lib::SoftMaxKind::kSoftMax, "SoftMax", a, sharedTmpBuffer, tiling,
                  softmaxShapeInfo, config, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sum, const LocalTensor<T>& max,
             const LocalTensor<T>& src, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {},
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dst, sum, max, src, lib::PopStackBuffer("SoftMax", loc), tiling, softmaxShapeInfo, loc);
}
// Mixed precision: half data, float sum/max ([srcM, 8]); call as SoftMax<half>(...).
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<half>& dst, const LocalTensor<float>& sum,
             const LocalTensor<float>& max, const LocalTensor<half>& src,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {},
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's SoftMax supports the ND format only");
  lib::SoftMaxArgs<half, float> a{&dst, &src, &sum, &max};
  lib::SoftMaxRun(lib::SoftMaxKind::kSoftMax, "SoftMax", a, sharedTmpBuffer, tiling,
                  softmaxShapeInfo, config, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<half>& dst, const LocalTensor<float>& sum,
             const LocalTensor<float>& max, const LocalTensor<half>& src,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dst, sum, max, src, lib::PopStackBuffer("SoftMax", loc), tiling, softmaxShapeInfo, loc);
}
// Without sum/max outputs.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {},
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::SoftMaxArgs<T, T> a{&dst, &src};
  lib::SoftMaxRun(lib::SoftMaxKind::kSoftMax, "SoftMax", a, sharedTmpBuffer, tiling,
                  softmaxShapeInfo, config, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {},
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  SoftMax<T, isReuseSource, isBasicBlock, config>(
      dst, src, lib::PopStackBuffer("SoftMax", loc), tiling, softmaxShapeInfo, loc);
}

// --- SimpleSoftMax: dst = exp(x - inMax) / inSum with the caller's per-row max and sum. ---

template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& src,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {},
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's SimpleSoftMax supports the ND format only");
  lib::SoftMaxArgs<T, T> a{&dst, &src};
  a.in_sum = &inSumTensor;
  a.in_max = &inMaxTensor;
  lib::SoftMaxRun(lib::SoftMaxKind::kSimple, "SimpleSoftMax", a, sharedTmpBuffer, tiling,
                  softmaxShapeInfo, config, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& src,
                   const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  SimpleSoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dst, inSumTensor, inMaxTensor, src, lib::PopStackBuffer("SimpleSoftMax", loc), tiling,
      softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<half>& dst, const LocalTensor<float>& inSumTensor,
                   const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& src,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {},
                   detail::SrcLoc loc = detail::SrcLoc::current()) {
  lib::SoftMaxArgs<half, float> a{&dst, &src};
  a.in_sum = &inSumTensor;
  a.in_max = &inMaxTensor;
  lib::SoftMaxRun(lib::SoftMaxKind::kSimple, "SimpleSoftMax", a, sharedTmpBuffer, tiling,
                  softmaxShapeInfo, config, loc);
}

// --- SoftmaxFlashV2: the online (flash) update. ---

// isUpdate = false: max = rowmax(x), dst = exp(x - max) (not normalized), expSum = rowsum(dst).
// isUpdate = true: max = max(inMax, rowmax(x)), expMax = exp(inMax - max), dst = exp(x - max),
// expSum = expMax * inExpSum + rowsum(dst). In/out max and sum may alias; expMax is unused when
// isUpdate is false.
template <typename T, bool isUpdate = false, bool isReuseSource = false,
          bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                    const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's SoftmaxFlashV2 supports the ND format only");
  lib::SoftMaxArgs<T, T> a{&dst, &src, &expSumTensor, &maxTensor, &expMaxTensor, &inExpSumTensor,
                           &inMaxTensor};
  lib::SoftMaxRun(isUpdate ? lib::SoftMaxKind::kFlashUpdate : lib::SoftMaxKind::kFlash,
                  "SoftmaxFlashV2", a, sharedTmpBuffer, tiling, softmaxShapeInfo, config,
                  loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false,
          bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                    const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  SoftmaxFlashV2<T, isUpdate, isReuseSource, isBasicBlock, isDataFormatNZ, config>(
      dst, expSumTensor, maxTensor, src, expMaxTensor, inExpSumTensor, inMaxTensor,
      lib::PopStackBuffer("SoftmaxFlashV2", loc), tiling, softmaxShapeInfo, loc);
}
// Mixed precision: half data, float sum/max; call as SoftmaxFlashV2<half, isUpdate>(...).
template <typename T, bool isUpdate = false, bool isReuseSource = false,
          bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV2(const LocalTensor<half>& dst, const LocalTensor<float>& expSumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& src,
                    const LocalTensor<half>& expMaxTensor,
                    const LocalTensor<float>& inExpSumTensor,
                    const LocalTensor<float>& inMaxTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's SoftmaxFlashV2 supports the ND format only");
  // expMax is half ([m, 16]) in the mixed form.
  lib::SoftMaxArgs<half, float> a{&dst, &src, &expSumTensor, &maxTensor, nullptr,
                                  &inExpSumTensor, &inMaxTensor};
  a.exp_max_half = &expMaxTensor;
  lib::SoftMaxRun(isUpdate ? lib::SoftMaxKind::kFlashUpdate : lib::SoftMaxKind::kFlash,
                  "SoftmaxFlashV2", a, sharedTmpBuffer, tiling, softmaxShapeInfo, config, loc);
}

// --- LogSoftMax: dst = log10(softmax(x)), as the current AscendC documentation states. ---

// sum and max get the rows' sum of exp(x - max) and max. src and dst must not overlap.
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
void LogSoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor,
                const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const LogSoftMaxTiling& tiling,
                const SoftMaxShapeInfo& softmaxShapeInfo = {},
                detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's LogSoftMax supports the ND format only");
  if (dst.data() == src.data()) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "LogSoftMax", loc,
                 "dst and src must not overlap");
  }
  lib::SoftMaxArgs<T, T> a{&dst, &src, &sumTensor, &maxTensor};
  lib::SoftMaxRun(lib::SoftMaxKind::kLog, "LogSoftMax", a, sharedTmpBuffer, tiling,
                  softmaxShapeInfo, SOFTMAX_DEFAULT_CFG, loc);
}

// --- AdjustSoftMaxRes: rows whose max has the bit pattern `from` are set to `to`. ---

// Returns true when at least one row was adjusted (aicore's reading of the documented bool).
// max is [srcM, 32 / sizeof(T2)]; res is [srcM, srcK]. Reads max on PIPE_S after a V->S sync.
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor,
                      const uint32_t from, const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo,
                      detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(!isDataFormatNZ, "aicore's AdjustSoftMaxRes supports the ND format only");
  const uint32_t m = softmaxShapeInfo.srcM, k = softmaxShapeInfo.srcK;
  constexpr uint32_t blk = stepSizeMode == 0 ? lib::kBlockBytes / sizeof(T2) : 1;
  lib::CheckSoftMaxTensor("AdjustSoftMaxRes", "max", maxTensor, uint64_t{m} * blk, loc);
  lib::CheckSoftMaxTensor("AdjustSoftMaxRes", "softMaxRes", softMaxRes, uint64_t{m} * k, loc);
  // The event ID comes from the live TPipe when there is one, so a flag of the caller's is kept.
  TPipe* pipe = GetTPipePtr();
  const event_t id = pipe ? pipe->AllocEventID<HardEvent::V_S>(loc) : event_t{0};
  SetFlag<HardEvent::V_S>(id, loc);
  WaitFlag<HardEvent::V_S>(id, loc);
  if (pipe) pipe->ReleaseEventID<HardEvent::V_S>(id, loc);
  bool any = false;
  for (uint32_t i = 0; i < m; ++i) {
    const T2 v = maxTensor.GetValue(i * blk, loc);
    uint32_t bits = 0;
    if constexpr (sizeof(T2) == 2) {
      bits = std::bit_cast<uint16_t>(v);
    } else {
      bits = std::bit_cast<uint32_t>(v);
    }
    if (bits != from) continue;
    any = true;
    Duplicate(softMaxRes[i * k], to, static_cast<int32_t>(k), loc);
  }
  return any;
}

}  // namespace AscendC
