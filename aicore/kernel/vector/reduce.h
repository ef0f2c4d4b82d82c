// Reductions on half and float: whole-tensor ReduceMax/ReduceMin/ReduceSum (count and level-0
// forms, with a shared scratch buffer), one result per repeat (WholeReduceMax/Min/Sum), one per
// 32-byte DataBlock (BlockReduceMax/Min/Sum) and adjacent pairs (PairReduceSum). See
// Note [Reduce semantics] for the exact encodings.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Note [Reduce semantics]
// - Values are widened to float, reduced in float and rounded to T once at the end (so a half
//   ReduceSum accumulates in float and does not saturate at 65504 as the hardware may).
// - ReduceSum, count form: a binary tree of adjacent pairs inside each 256-byte repeat, then the
//   repeat sums added in order (the A2 count-form method). Level-0 forms and WholeReduceSum: a
//   tree inside each repeat and a tree across repeats. Sums of masked-out elements are omitted.
// - Max/Min: the first (lowest-index) extreme wins ties. NaN inputs are ignored unless all are NaN.
// - Indices are stored in T's bits: a uint16_t for half, a uint32_t for float; read them with
//   `*reinterpret_cast<uint16_t*>` (half) or `*reinterpret_cast<uint32_t*>` (float) as on the
//   hardware. ReduceMax/ReduceMin put the value in dst[0] and the index in dst[1]; the index is the
//   position in the source for the count form and r * elementsPerRepeat + e (repeat r, element e)
//   for the level-0 form. WholeReduceMax/Min report the index inside the repeat.
// - WholeReduceMax/Min dstRepStride unit: 2 * sizeof(T) for ORDER_VALUE_INDEX/ORDER_INDEX_VALUE,
//   sizeof(T) for ORDER_ONLY_VALUE, 4 bytes (a uint32_t index) for ORDER_ONLY_INDEX.
//   WholeReduceSum and RepeatReduceSum: sizeof(T). BlockReduce*/ReduceDataBlock: one repeat's
//   output, 8 * sizeof(T) (16 B for half, 32 B for float). PairReduceSum/ReducePairElem: 128 B.
//   (The ReduceRepeat, ReduceDataBlock and ReducePairElem parameter tables.)
// - dst alignment: ReduceRepeat's table (the unit above: 2 B half sum/value, 4 B half pair or
//   index, 4 B float sum/value/index, 8 B float pair); WholeReduceMax/Min 2 * sizeof(T) for every
//   order (their docs); ReduceDataBlock/BlockReduce* 8 * sizeof(T); ReducePairElem 32 B.
// - A BlockReduce DataBlock, or a PairReduceSum pair, with no active element leaves its dst
//   element unchanged.
// - sharedTmpBuffer (in elements of T, epb = 32 / sizeof(T), per = 256 / sizeof(T),
//   R1 = ceil(n / per) repeats, R(k+1) = ceil(2 * Rk / per), Up(x) = x rounded up to epb):
//   ReduceSum needs Up(R1); ReduceMax/Min need Up(2 * R1), or with calIndex
//   Up(2 * R1) + Up(2 * R2) + Up(2 * R3). The CPU does not use the buffer; it is checked so a
//   kernel that would overrun it on the device fails here.

namespace detail {

template <typename T>
inline constexpr bool kReduceType = std::is_same_v<T, half> || std::is_same_v<T, float>;

enum class ReduceKind : uint8_t { kMax, kMin, kSum };

// Returns `index` stored in the bits of a T (see Note [Reduce semantics]).
template <typename T>
T IndexBits(uint32_t index) {
  if constexpr (sizeof(T) == 2) {
    return std::bit_cast<T>(static_cast<uint16_t>(index));
  } else {
    return std::bit_cast<T>(index);
  }
}

// The elements needed in sharedTmpBuffer; see Note [Reduce semantics].
constexpr uint64_t ReduceTmpElements(ReduceKind kind, uint64_t repeats, uint32_t esize,
                                     bool cal_index) {
  const uint64_t per_block = 32 / esize;
  const uint64_t per_repeat = 256 / esize;
  auto up = [per_block](uint64_t x) { return (x + per_block - 1) / per_block * per_block; };
  if (kind == ReduceKind::kSum) return up(repeats);
  // Each round leaves a (value, index) pair per repeat; the next round reduces those pairs.
  const uint64_t need = up(2 * repeats);
  if (!cal_index) return need;
  const uint64_t r2 = (2 * repeats + per_repeat - 1) / per_repeat;
  const uint64_t r3 = (2 * r2 + per_repeat - 1) / per_repeat;
  return need + up(2 * r2) + up(2 * r3);
}

// Fails unless `t` is a live UB tensor aligned to `align` bytes holding at least `need` elements.
template <typename T>
[[gnu::always_inline]] inline void CheckReduceDst(const LocalTensor<T>& t, uint64_t need,
                                                  uint32_t align, const char* api,
                                                  const SrcLoc& loc) {
  t.CheckLive(api, loc);
  auto& core = Core();
  const auto b = core.chip().BufferOf(ToArch(t.GetPosition()));
  if (b != aicore::arch::Buffer::kUb) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "dst is a ",
         aicore::arch::PositionName(ToArch(t.GetPosition())), " tensor in ",
         aicore::arch::BufferName(b), "; vector instructions write UB only");
  }
  if (reinterpret_cast<uintptr_t>(t.data()) % align != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "dst starts at UB offset ",
         core.Locate(t.data(), 0).offset, ", not on a ", align, "-byte boundary");
  }
  if (need > t.GetSize()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "dst holds ", t.GetSize(),
         " elements but the results need ", need);
  }
}

template <typename T>
[[gnu::always_inline]] inline void CheckTmp(const LocalTensor<T>& tmp, ReduceKind kind,
                                            uint64_t repeats, bool cal_index, const char* api,
                                            const SrcLoc& loc) {
  CheckVecOperand(tmp, api, "sharedTmpBuffer", loc);
  const uint64_t need = ReduceTmpElements(kind, repeats, sizeof(T), cal_index);
  if (tmp.GetSize() < need) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "sharedTmpBuffer holds ", tmp.GetSize(),
         " elements but ", repeats, " repeat(s)", cal_index ? " with calIndex" : "", " need ", need,
         " (see the workspace formula of ", api, ")");
  }
}

// Geometry of a strided level-0 source: which elements of how many repeats are read.
struct ReduceGeometry {
  RepeatMask mask;
  uint32_t per_repeat = 0;
  uint32_t repeats = 0;     // after counter-mode resolution
  uint32_t blk_stride = 1;  // DataBlocks
  uint32_t rep_stride = 8;  // DataBlocks
};

// Returns the geometry after validating strides, repeats and the source extent. `max_repeat`
// is 255 for the per-repeat APIs and unbounded for ReduceMax/Min/Sum.
ReduceGeometry MakeGeometry(const RepeatMask& mask, uint32_t per_repeat, uint32_t esize,
                            int64_t repeat, int64_t blk_stride, int64_t rep_stride,
                            uint64_t src_bytes, int64_t max_repeat, const char* api,
                            const SrcLoc& loc);

// Returns true when element e of repeat r is read.
inline bool ActiveAt(const ReduceGeometry& g, uint32_t r, uint32_t e) {
  if (g.mask.counter) return uint64_t{r} * g.per_repeat + e < g.mask.count;
  return Active(g.mask, e);
}

// Loads repeat r into v[0, per_repeat) (float) and act[] (active flags).
template <typename T>
void LoadRepeat(const LocalTensor<T>& src, const ReduceGeometry& g, uint32_t r, float* v,
                bool* act) {
  const uint8_t* base = reinterpret_cast<const uint8_t*>(src.data());
  constexpr uint32_t kPerBlock = 32 / sizeof(T);
  // The common case, adjacent DataBlocks and every lane active: one contiguous run.
  const bool all_active =
      g.mask.counter ? uint64_t{r + 1} * g.per_repeat <= g.mask.count
                     : g.mask.bits[0] == ~0ull && (g.per_repeat <= 64 || g.mask.bits[1] == ~0ull);
  if (g.blk_stride == 1 && all_active && g.per_repeat >= 64) {
    const uint8_t* row = base + uint64_t{r} * g.rep_stride * 32;
    for (uint32_t e = 0; e < g.per_repeat; ++e) {
      T x;
      std::memcpy(&x, row + uint64_t{e} * sizeof(T), sizeof(T));
      v[e] = static_cast<float>(x);
      act[e] = true;
    }
    return;
  }
  for (uint32_t e = 0; e < g.per_repeat; ++e) {
    act[e] = ActiveAt(g, r, e);
    if (!act[e]) {
      v[e] = 0.0f;
      continue;
    }
    const uint64_t off = (uint64_t{r} * g.rep_stride + e / kPerBlock * g.blk_stride) * 32 +
                         (e % kPerBlock) * sizeof(T);
    T x;
    std::memcpy(&x, base + off, sizeof(T));
    v[e] = static_cast<float>(x);
  }
}

// Sums v[0, n) (n a power of two) by a binary tree of adjacent pairs; v is clobbered.
inline float TreeSum(float* v, uint32_t n) {
  for (uint32_t w = n / 2; w >= 1; w /= 2) {
    for (uint32_t i = 0; i < w; ++i) v[i] = v[2 * i] + v[2 * i + 1];
  }
  return v[0];
}

// Returns true when a should replace the current extreme b (strict, so the first one wins).
inline bool Better(ReduceKind kind, float a, float b, bool have) {
  if (a != a) return false;
  if (!have) return true;
  return kind == ReduceKind::kMax ? a > b : a < b;
}

// The extreme of the active elements of one repeat: value and position (first wins).
struct Extreme {
  float value = 0.0f;
  uint32_t index = 0;
  bool found = false;
};
inline Extreme RepeatExtreme(ReduceKind kind, const float* v, const bool* act, uint32_t n) {
  Extreme x;
  bool any = false;
  for (uint32_t e = 0; e < n; ++e) {
    if (!act[e]) continue;
    if (!any) {
      any = true;
      x.value = v[e];  // an all-NaN repeat reports its first NaN
      x.index = e;
    }
    if (Better(kind, v[e], x.value, x.found)) {
      x.value = v[e];
      x.index = e;
      x.found = true;
    }
  }
  x.found = any;
  return x;
}

template <typename T>
void StoreAt(const LocalTensor<T>& dst, uint64_t byte_off, const T& v) {
  std::memcpy(reinterpret_cast<uint8_t*>(dst.data()) + byte_off, &v, sizeof(T));
}

inline const char* ReduceName(ReduceKind k, const char* max, const char* min, const char* sum) {
  return k == ReduceKind::kMax ? max : (k == ReduceKind::kMin ? min : sum);
}

// Count form of ReduceMax/ReduceMin/ReduceSum over src[0, count).
template <typename T>
void ReduceCount(ReduceKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const LocalTensor<T>& tmp, int32_t count, bool cal_index, const SrcLoc& loc) {
  static_assert(kReduceType<T>, "ReduceMax/ReduceMin/ReduceSum take half or float");
  const char* api = ReduceName(kind, "ReduceMax", "ReduceMin", "ReduceSum");
  CheckVecOperand(src, api, "src", loc);
  if (count <= 0 || static_cast<uint32_t>(count) > src.GetSize()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, "count ", count, " is outside [1, ", src.GetSize(),
         "] (src holds ", src.GetSize(), " elements)");
  }
  const bool with_index = cal_index && kind != ReduceKind::kSum;
  if (with_index && sizeof(T) == 2 && count > 65536) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "calIndex with count ", count,
         ": a half result stores the index in 16 bits, so count must be at most 65536");
  }
  // A (value, index) pair needs 2 * sizeof(T) alignment; a lone value sizeof(T).
  const uint32_t align = kind == ReduceKind::kSum ? sizeof(T) : 2 * sizeof(T);
  CheckReduceDst(dst, with_index ? 2 : 1, align, api, loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const uint64_t repeats = (static_cast<uint64_t>(count) + kPer - 1) / kPer;
  CheckTmp(tmp, kind, repeats, with_index, api, loc);

  const T* s = src.data();
  float v[kPer];
  // float without an index: the engine's vector loops (the same bits as the loops below).
  const bool engine = std::is_same_v<T, float> && !with_index;
  if (engine && kind == ReduceKind::kSum) {
    dst.data()[0] = static_cast<T>(
        aicore::kernel::engine::ReduceSumF32(reinterpret_cast<const float*>(s), count));
  } else if (engine) {
    dst.data()[0] = static_cast<T>(aicore::kernel::engine::ReduceExtremeF32(
        kind == ReduceKind::kMax, reinterpret_cast<const float*>(s), count));
  } else if (kind == ReduceKind::kSum) {
    float total = 0.0f;
    for (uint64_t r = 0; r < repeats; ++r) {
      const uint64_t begin = r * kPer;
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kPer, count - begin));
      for (uint32_t e = 0; e < kPer; ++e) v[e] = e < n ? static_cast<float>(s[begin + e]) : 0.0f;
      total += TreeSum(v, kPer);
    }
    dst.data()[0] = static_cast<T>(total);
  } else {
    float best = static_cast<float>(s[0]);
    uint32_t best_i = 0;
    bool have = best == best;
    for (int32_t i = 1; i < count; ++i) {
      const float x = static_cast<float>(s[i]);
      if (Better(kind, x, best, have)) {
        best = x;
        best_i = static_cast<uint32_t>(i);
        have = true;
      }
    }
    dst.data()[0] = static_cast<T>(best);
    if (with_index) dst.data()[1] = IndexBits<T>(best_i);
  }
  auto& core = Core();
  AICORE_ISSUE(
      core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), (with_index ? 2 : 1) * sizeof(T),
                     src.data(), count * sizeof(T), nullptr, 0, count, 0, loc));
}

// Level-0 form of ReduceMax/ReduceMin/ReduceSum: mask-selected elements of `repeat` repeats
// (block stride 1, repeat stride srcRepStride).
template <typename T>
void ReduceMasked(ReduceKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  const LocalTensor<T>& tmp, const uint64_t* bit_mask, const uint64_t* cont_mask,
                  int32_t repeat, int32_t src_rep_stride, bool cal_index, const SrcLoc& loc) {
  static_assert(kReduceType<T>, "ReduceMax/ReduceMin/ReduceSum take half or float");
  const char* api = ReduceName(kind, "ReduceMax", "ReduceMin", "ReduceSum");
  CheckVecOperand(src, api, "src", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(true, bit_mask, cont_mask, kPer, api, loc);
  const ReduceGeometry g =
      MakeGeometry(mask, kPer, sizeof(T), repeat, 1, src_rep_stride, src.bytes(), -1, api, loc);
  const bool with_index = cal_index && kind != ReduceKind::kSum;
  CheckReduceDst(dst, with_index ? 2 : 1, kind == ReduceKind::kSum ? sizeof(T) : 2 * sizeof(T), api,
                 loc);
  CheckTmp(tmp, kind, g.repeats, with_index, api, loc);
  if (g.repeats == 0) return;
  if (with_index && sizeof(T) == 2 && uint64_t{g.repeats} * kPer > 65536) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "calIndex with ", g.repeats,
         " repeats: a half result stores the index in 16 bits (at most 512 repeats)");
  }
  float v[kPer];
  bool act[kPer];
  uint64_t elements = 0;
  if (kind == ReduceKind::kSum) {
    std::vector<float> sums(g.repeats);
    for (uint32_t r = 0; r < g.repeats; ++r) {
      LoadRepeat(src, g, r, v, act);
      for (uint32_t e = 0; e < kPer; ++e) elements += act[e];
      sums[r] = TreeSum(v, kPer);
    }
    // A tree across repeats: pair neighbours until one value is left.
    for (size_t n = sums.size(); n > 1; n = (n + 1) / 2) {
      for (size_t i = 0; i < n / 2; ++i) sums[i] = sums[2 * i] + sums[2 * i + 1];
      if (n % 2 == 1) sums[n / 2] = sums[n - 1];
    }
    dst.data()[0] = static_cast<T>(sums[0]);
  } else {
    Extreme best;
    uint32_t best_i = 0;
    for (uint32_t r = 0; r < g.repeats; ++r) {
      LoadRepeat(src, g, r, v, act);
      for (uint32_t e = 0; e < kPer; ++e) elements += act[e];
      const Extreme x = RepeatExtreme(kind, v, act, kPer);
      if (!x.found) continue;
      const bool x_nan = x.value != x.value;
      if (!best.found || (best.value != best.value && !x_nan) ||
          (!x_nan && Better(kind, x.value, best.value, true))) {
        best = x;
        best_i = r * kPer + x.index;
      }
    }
    dst.data()[0] = static_cast<T>(best.value);
    if (with_index) dst.data()[1] = IndexBits<T>(best_i);
  }
  auto& core = Core();
  AICORE_ISSUE(
      core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), (with_index ? 2 : 1) * sizeof(T),
                     src.data(), src.bytes(), nullptr, 0, elements, g.repeats, loc));
}

// WholeReduceMax/Min/Sum: one result per repeat.
template <typename T>
void WholeReduce(ReduceKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 bool is_set_mask, const uint64_t* bit_mask, const uint64_t* cont_mask,
                 int32_t repeat, int32_t dst_rep_stride, int32_t src_blk_stride,
                 int32_t src_rep_stride, ReduceOrder order, const SrcLoc& loc,
                 const char* api_name = nullptr) {
  static_assert(kReduceType<T>, "WholeReduceMax/Min/Sum/ReduceRepeat take half or float");
  const char* api = api_name != nullptr
                        ? api_name
                        : ReduceName(kind, "WholeReduceMax", "WholeReduceMin", "WholeReduceSum");
  CheckVecOperand(src, api, "src", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPer, api, loc);
  const ReduceGeometry g = MakeGeometry(mask, kPer, sizeof(T), repeat, src_blk_stride,
                                        src_rep_stride, src.bytes(), 255, api, loc);
  if (dst_rep_stride < 0 || dst_rep_stride > 65535) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "dstRepStride ", dst_rep_stride,
         " is outside [0, 65535]");
  }
  // Bytes per result and the unit of dstRepStride.
  uint32_t unit = sizeof(T);
  if (kind != ReduceKind::kSum) {
    if (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE) {
      unit = 2 * sizeof(T);
    } else if (order == ReduceOrder::ORDER_ONLY_INDEX) {
      unit = 4;
    }
  }
  // ReduceRepeat's table aligns dst to the unit; the WholeReduceMax/Min docs ask 2 * sizeof(T)
  // whatever the order.
  const uint32_t align = api_name == nullptr && kind != ReduceKind::kSum
                             ? std::max<uint32_t>(unit, 2 * sizeof(T))
                             : unit;
  if (g.repeats == 0) {
    CheckReduceDst(dst, 0, align, api, loc);
    return;
  }
  const uint64_t pitch = uint64_t{static_cast<uint32_t>(dst_rep_stride)} * unit;
  const uint64_t dst_end = (g.repeats - 1) * pitch + unit;
  CheckReduceDst(dst, (dst_end + sizeof(T) - 1) / sizeof(T), align, api, loc);
  float v[kPer];
  bool act[kPer];
  uint64_t elements = 0;
  uint8_t* out = reinterpret_cast<uint8_t*>(dst.data());
  for (uint32_t r = 0; r < g.repeats; ++r) {
    LoadRepeat(src, g, r, v, act);
    for (uint32_t e = 0; e < kPer; ++e) elements += act[e];
    uint8_t* o = out + r * pitch;
    if (kind == ReduceKind::kSum) {
      const T s = static_cast<T>(TreeSum(v, kPer));
      std::memcpy(o, &s, sizeof(T));
      continue;
    }
    const Extreme x = RepeatExtreme(kind, v, act, kPer);
    const T value = static_cast<T>(x.value);
    const T index = IndexBits<T>(x.index);
    switch (order) {
      case ReduceOrder::ORDER_VALUE_INDEX:
        std::memcpy(o, &value, sizeof(T));
        std::memcpy(o + sizeof(T), &index, sizeof(T));
        break;
      case ReduceOrder::ORDER_INDEX_VALUE:
        std::memcpy(o, &index, sizeof(T));
        std::memcpy(o + sizeof(T), &value, sizeof(T));
        break;
      case ReduceOrder::ORDER_ONLY_VALUE:
        std::memcpy(o, &value, sizeof(T));
        break;
      case ReduceOrder::ORDER_ONLY_INDEX: {
        const uint32_t i32 = x.index;
        std::memcpy(o, &i32, 4);
        break;
      }
    }
  }
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), dst_end, src.data(),
                              src.bytes(), nullptr, 0, elements, g.repeats, loc));
}

// BlockReduceMax/Min/Sum (one result per DataBlock) and PairReduceSum (kind == kSum, pairs).
template <typename T>
void BlockOrPairReduce(ReduceKind kind, bool pairs, const LocalTensor<T>& dst,
                       const LocalTensor<T>& src, int32_t repeat, bool is_set_mask,
                       const uint64_t* bit_mask, const uint64_t* cont_mask, int32_t dst_rep_stride,
                       int32_t src_blk_stride, int32_t src_rep_stride, const SrcLoc& loc,
                       const char* api_name = nullptr) {
  static_assert(kReduceType<T>, "BlockReduce*/PairReduceSum take half or float");
  const char* api = api_name != nullptr ? api_name
                    : pairs
                        ? "PairReduceSum"
                        : ReduceName(kind, "BlockReduceMax", "BlockReduceMin", "BlockReduceSum");
  CheckVecOperand(src, api, "src", loc);
  constexpr uint32_t kPer = 256 / sizeof(T);
  constexpr uint32_t kPerBlock = 32 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPer, api, loc);
  const ReduceGeometry g = MakeGeometry(mask, kPer, sizeof(T), repeat, src_blk_stride,
                                        src_rep_stride, src.bytes(), 255, api, loc);
  if (dst_rep_stride < 0 || dst_rep_stride > 65535) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "dstRepStride ", dst_rep_stride,
         " is outside [0, 65535]");
  }
  const uint32_t group = pairs ? 2 : kPerBlock;  // source elements per result
  const uint32_t results = kPer / group;
  // One repeat's output: 128 B of pair sums, or 8 block results (see Note [Reduce semantics]).
  const uint64_t pitch =
      uint64_t{static_cast<uint32_t>(dst_rep_stride)} * (pairs ? 128 : results * sizeof(T));
  if (g.repeats == 0) return;
  const uint64_t dst_end = (g.repeats - 1) * pitch + results * sizeof(T);
  CheckReduceDst(dst, dst_end / sizeof(T), pairs ? 32 : results * sizeof(T), api, loc);
  float v[kPer];
  bool act[kPer];
  uint64_t elements = 0;
  const bool all_active =
      !g.mask.counter && g.mask.bits[0] == ~0ull && (kPer <= 64 || g.mask.bits[1] == ~0ull);
  if (!pairs && all_active && g.blk_stride == 1) {
    // Every lane active, adjacent blocks: the block results of a repeat side by side, the same
    // values as the general loop below (sums by TreeSum; an extreme skips NaNs, first wins, and
    // an all-NaN block reports its first element), without its per-lane flags; float in the
    // engine's vector loops.
    if constexpr (std::is_same_v<T, float>) {
      using aicore::kernel::engine::BlockReduceOp;
      aicore::kernel::engine::BlockReduceF32(
          kind == ReduceKind::kSum   ? BlockReduceOp::kSum
          : kind == ReduceKind::kMax ? BlockReduceOp::kMax
                                     : BlockReduceOp::kMin,
          dst.data(), pitch, src.data(), uint64_t{g.rep_stride} * 32, g.repeats);
    } else {
      const auto* base = reinterpret_cast<const uint8_t*>(src.data());
      for (uint32_t r = 0; r < g.repeats; ++r) {
        const uint8_t* row = base + uint64_t{r} * g.rep_stride * 32;
        for (uint32_t e = 0; e < kPer; ++e) {
          T x;
          std::memcpy(&x, row + uint64_t{e} * sizeof(T), sizeof(T));
          v[e] = static_cast<float>(x);
        }
        constexpr uint32_t kResults = kPer / kPerBlock;
        float out[kResults];
        if (kind == ReduceKind::kSum) {
          for (uint32_t k = 0; k < kResults; ++k) out[k] = TreeSum(v + k * kPerBlock, kPerBlock);
        } else {
          bool found[kResults];
          for (uint32_t k = 0; k < kResults; ++k) {
            out[k] = v[k * kPerBlock];
            found[k] = out[k] == out[k];
          }
          for (uint32_t e = 1; e < kPerBlock; ++e) {
            for (uint32_t k = 0; k < kResults; ++k) {
              const float a = v[k * kPerBlock + e];
              const bool better = kind == ReduceKind::kMax ? a > out[k] : a < out[k];
              const bool take = a == a && (!found[k] || better);
              out[k] = take ? a : out[k];
              found[k] = found[k] || take;
            }
          }
        }
        for (uint32_t k = 0; k < kResults; ++k) {
          StoreAt(dst, r * pitch + k * sizeof(T), static_cast<T>(out[k]));
        }
      }
    }
    elements = uint64_t{g.repeats} * kPer;
    auto& core = Core();
    AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), dst_end, src.data(),
                                src.bytes(), nullptr, 0, elements, g.repeats, loc));
    return;
  }
  for (uint32_t r = 0; r < g.repeats; ++r) {
    LoadRepeat(src, g, r, v, act);
    for (uint32_t k = 0; k < results; ++k) {
      const float* gv = v + k * group;
      const bool* ga = act + k * group;
      bool any = false;
      for (uint32_t e = 0; e < group; ++e) any = any || ga[e];
      if (!any) continue;
      float out;
      if (kind == ReduceKind::kSum) {
        float tmp[kPerBlock];
        for (uint32_t e = 0; e < group; ++e) tmp[e] = gv[e];
        out = TreeSum(tmp, group);
      } else {
        out = RepeatExtreme(kind, gv, ga, group).value;
      }
      for (uint32_t e = 0; e < group; ++e) elements += ga[e];
      StoreAt(dst, r * pitch + k * sizeof(T), static_cast<T>(out));
    }
  }
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), dst_end, src.data(),
                              src.bytes(), nullptr, 0, elements, g.repeats, loc));
}

}  // namespace detail

// --- Whole tensor: dst[0] = max/min/sum (dst[1] = index with calIndex). ---

// Reduces src[0, count). sharedTmpBuffer must hold the elements of Note [Reduce semantics].
template <typename T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = false,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ReduceCount(detail::ReduceKind::kMax, dst, src, sharedTmpBuffer, count, calIndex, loc);
}
template <typename T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = false,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ReduceCount(detail::ReduceKind::kMin, dst, src, sharedTmpBuffer, count, calIndex, loc);
}
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ReduceCount(detail::ReduceKind::kSum, dst, src, sharedTmpBuffer, count, false, loc);
}

// Level-0 forms: the mask-selected elements of `repeatTime` repeats, srcRepStride DataBlocks
// apart (repeatTime may exceed 255 here).
#define AICORE_REDUCE_LEVEL0(Name, Kind)                                                           \
  template <typename T>                                                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
            const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[],                          \
            const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false,           \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                      \
    detail::ReduceMasked(Kind, dst, src, sharedTmpBuffer, mask, nullptr, repeatTime, srcRepStride, \
                         calIndex, loc);                                                           \
  }                                                                                                \
  template <typename T>                                                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
            const LocalTensor<T>& sharedTmpBuffer, const int32_t mask, const int32_t repeatTime,   \
            const int32_t srcRepStride, bool calIndex = false,                                     \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                      \
    const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));                          \
    detail::ReduceMasked(Kind, dst, src, sharedTmpBuffer, nullptr, &m, repeatTime, srcRepStride,   \
                         calIndex, loc);                                                           \
  }

AICORE_REDUCE_LEVEL0(ReduceMax, detail::ReduceKind::kMax)
AICORE_REDUCE_LEVEL0(ReduceMin, detail::ReduceKind::kMin)
#undef AICORE_REDUCE_LEVEL0

template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[],
               const int32_t repeatTime, const int32_t srcRepStride,
               detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ReduceMasked(detail::ReduceKind::kSum, dst, src, sharedTmpBuffer, mask, nullptr,
                       repeatTime, srcRepStride, false, loc);
}
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<T>& sharedTmpBuffer, const int32_t mask, const int32_t repeatTime,
               const int32_t srcRepStride, detail::SrcLoc loc = detail::SrcLoc::current()) {
  const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));
  detail::ReduceMasked(detail::ReduceKind::kSum, dst, src, sharedTmpBuffer, nullptr, &m, repeatTime,
                       srcRepStride, false, loc);
}

// --- Per repeat: one (value, index) pair or sum per repeat, dstRepStride results apart. ---

#define AICORE_WHOLE_REDUCE_MINMAX(Name, Kind)                                                 \
  template <typename T, bool isSetMask = true>                                                 \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],       \
            const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride, \
            const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,    \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                  \
    detail::WholeReduce(Kind, dst, src, isSetMask, mask, nullptr, repeatTimes, dstRepStride,   \
                        srcBlkStride, srcRepStride, order, loc);                               \
  }                                                                                            \
  template <typename T, bool isSetMask = true>                                                 \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,          \
            const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride, \
            const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,    \
            detail::SrcLoc loc = detail::SrcLoc::current()) {                                  \
    const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));                      \
    detail::WholeReduce(Kind, dst, src, isSetMask, nullptr, &m, repeatTimes, dstRepStride,     \
                        srcBlkStride, srcRepStride, order, loc);                               \
  }

AICORE_WHOLE_REDUCE_MINMAX(WholeReduceMax, detail::ReduceKind::kMax)
AICORE_WHOLE_REDUCE_MINMAX(WholeReduceMin, detail::ReduceKind::kMin)
#undef AICORE_WHOLE_REDUCE_MINMAX

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                    const int32_t repeatTimes, const int32_t dstRepStride,
                    const int32_t srcBlkStride, const int32_t srcRepStride,
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::WholeReduce(detail::ReduceKind::kSum, dst, src, isSetMask, mask, nullptr, repeatTimes,
                      dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                    const int32_t repeatTimes, const int32_t dstRepStride,
                    const int32_t srcBlkStride, const int32_t srcRepStride,
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));
  detail::WholeReduce(detail::ReduceKind::kSum, dst, src, isSetMask, nullptr, &m, repeatTimes,
                      dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}

// --- Per DataBlock (8 results per repeat) and adjacent pairs (per_repeat / 2 results). ---

#define AICORE_BLOCK_REDUCE(Name, Kind, Pairs)                                              \
  template <typename T, bool isSetMask = true>                                              \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, \
            const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,  \
            const int32_t srcRepStride, detail::SrcLoc loc = detail::SrcLoc::current()) {   \
    detail::BlockOrPairReduce(Kind, Pairs, dst, src, repeatTime, isSetMask, mask, nullptr,  \
                              dstRepStride, srcBlkStride, srcRepStride, loc);               \
  }                                                                                         \
  template <typename T, bool isSetMask = true>                                              \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, \
            const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,     \
            const int32_t srcRepStride, detail::SrcLoc loc = detail::SrcLoc::current()) {   \
    const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));                   \
    detail::BlockOrPairReduce(Kind, Pairs, dst, src, repeatTime, isSetMask, nullptr, &m,    \
                              dstRepStride, srcBlkStride, srcRepStride, loc);               \
  }

AICORE_BLOCK_REDUCE(BlockReduceMax, detail::ReduceKind::kMax, false)
AICORE_BLOCK_REDUCE(BlockReduceMin, detail::ReduceKind::kMin, false)
AICORE_BLOCK_REDUCE(BlockReduceSum, detail::ReduceKind::kSum, false)
AICORE_BLOCK_REDUCE(PairReduceSum, detail::ReduceKind::kSum, true)
#undef AICORE_BLOCK_REDUCE

// --- The newer names: ReduceRepeat, ReduceDataBlock, ReducePairElem (template reduceType). ---

// Selects the reduction of ReduceRepeat, ReduceDataBlock and ReducePairElem.
enum class ReduceType : uint8_t { SUM = 0, MAX, MIN };

namespace detail {

template <ReduceType type>
constexpr ReduceKind KindOf() {
  return type == ReduceType::SUM   ? ReduceKind::kSum
         : type == ReduceType::MAX ? ReduceKind::kMax
                                   : ReduceKind::kMin;
}

// T (dst) and U (src) must match on the chips aicore models (the A2/A3/310P rows of the docs).
template <typename T, typename U>
constexpr void CheckSameReduceTypes() {
  static_assert(std::is_same_v<T, U>,
                "ReduceRepeat/ReduceDataBlock/ReducePairElem: dst and src types must match");
}

}  // namespace detail

// One result per repeat (sum, or max/min with the index inside the repeat laid out by `order`);
// dstRepStride in the unit of Note [Reduce semantics].
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                  const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                  const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckSameReduceTypes<T, U>();
  detail::WholeReduce(detail::KindOf<reduceType>(), dst, src, isSetMask, mask, nullptr, repeatTime,
                      dstRepStride, srcBlkStride, srcRepStride,
                      reduceType == ReduceType::SUM ? ReduceOrder::ORDER_ONLY_VALUE : order, loc,
                      "ReduceRepeat");
}
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                  const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                  const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckSameReduceTypes<T, U>();
  const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));
  detail::WholeReduce(detail::KindOf<reduceType>(), dst, src, isSetMask, nullptr, &m, repeatTime,
                      dstRepStride, srcBlkStride, srcRepStride,
                      reduceType == ReduceType::SUM ? ReduceOrder::ORDER_ONLY_VALUE : order, loc,
                      "ReduceRepeat");
}

// One result per 32-byte DataBlock (8 per repeat); dstRepStride in units of 8 * sizeof(T).
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                     const int32_t repeatTime, const int32_t dstRepStride,
                     const int32_t srcBlkStride, const int32_t srcRepStride,
                     detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckSameReduceTypes<T, U>();
  detail::BlockOrPairReduce(detail::KindOf<reduceType>(), false, dst, src, repeatTime, isSetMask,
                            mask, nullptr, dstRepStride, srcBlkStride, srcRepStride, loc,
                            "ReduceDataBlock");
}
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                     const int32_t repeatTime, const int32_t dstRepStride,
                     const int32_t srcBlkStride, const int32_t srcRepStride,
                     detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::CheckSameReduceTypes<T, U>();
  const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));
  detail::BlockOrPairReduce(detail::KindOf<reduceType>(), false, dst, src, repeatTime, isSetMask,
                            nullptr, &m, dstRepStride, srcBlkStride, srcRepStride, loc,
                            "ReduceDataBlock");
}

// Sums of adjacent (even, odd) pairs; only ReduceType::SUM is documented. dstRepStride in units
// of 128 bytes.
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                    const int32_t repeatTime, const int32_t dstRepStride,
                    const int32_t srcBlkStride, const int32_t srcRepStride,
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(reduceType == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only");
  detail::CheckSameReduceTypes<T, U>();
  detail::BlockOrPairReduce(detail::ReduceKind::kSum, true, dst, src, repeatTime, isSetMask, mask,
                            nullptr, dstRepStride, srcBlkStride, srcRepStride, loc,
                            "ReducePairElem");
}
template <ReduceType reduceType, typename T, typename U = T, bool isSetMask = true>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                    const int32_t repeatTime, const int32_t dstRepStride,
                    const int32_t srcBlkStride, const int32_t srcRepStride,
                    detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(reduceType == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only");
  detail::CheckSameReduceTypes<T, U>();
  const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(mask));
  detail::BlockOrPairReduce(detail::ReduceKind::kSum, true, dst, src, repeatTime, isSetMask,
                            nullptr, &m, dstRepStride, srcBlkStride, srcRepStride, loc,
                            "ReducePairElem");
}

// The sum of each repeat's first `elemsInOneRepeat` elements (a continuous mask; no bit-mask
// form). dstBlkStride is documented as having no effect; dstRepStride is in units of sizeof(T).
template <typename T, bool isSetMask = true>
void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                     const int32_t elemsInOneRepeat, const int32_t dstBlkStride,
                     const int32_t srcBlkStride, const int32_t dstRepStride,
                     const int32_t srcRepStride, detail::SrcLoc loc = detail::SrcLoc::current()) {
  (void)dstBlkStride;
  const uint64_t m = static_cast<uint64_t>(static_cast<int64_t>(elemsInOneRepeat));
  detail::WholeReduce(detail::ReduceKind::kSum, dst, src, isSetMask, nullptr, &m, repeatTime,
                      dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc,
                      "RepeatReduceSum");
}

}  // namespace AscendC
