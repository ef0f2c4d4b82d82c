// The sort and region-proposal APIs: Sort32 (32 (score, index) pairs per repeat), MrgSort and
// MrgSort4 (merge up to four sorted lists), GetMrgSortResult, RpSort16 (16 proposals per repeat),
// ProposalConcat/ProposalExtract (one field of 16 proposals per repeat), and Extract (split sorted
// pairs into values and indices). See Note [Sort layouts].
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aicore/kernel/vector/vec_common.h"

namespace AscendC {

// Note [Sort layouts]
// (The Sort32, MrgSort, MrgSort4, RpSort16, ProposalConcat/Extract and Extract docs.)
// - A sorted pair is 8 bytes: float: score in bytes [0, 4), the uint32_t index in [4, 8); half:
//   score in [0, 2), bytes [2, 4) reserved (aicore writes 0 there), index in [4, 8). MrgSort's
//   elementLengths count pairs.
// - A region proposal is 8 elements of T, [x1, y1, x2, y2, score, label, reserved, reserved]
//   (16 B for half, 32 B for float); MrgSort4's elementLengths count proposals. modeNumber 0-5 of
//   ProposalConcat/ProposalExtract names the field (x1, y1, x2, y2, score, label).
// - Order: score descending; equal scores keep their source order (the lower index first), and
//   between lists of a merge the lower-numbered list first. NaN scores: aicore orders them as
//   the smallest value (the docs do not say).
// - MrgSort/MrgSort4 with ifExhaustedSuspension stop when a valid list runs out; otherwise they
//   drain every valid list. Either way GetMrgSortResult reports what each list gave.
// - repeatTimes > 1 merges consecutive groups of four lists and needs what the docs list: four
//   equal-length lists stored back to back, validBit 15 and no suspension; aicore refuses other
//   combinations rather than guess.
// - Extract on A2/A3: each repeat splits 32 pairs (256 bytes of `sorted`) into 32 values and 32
//   indices.

// The four sorted lists of MrgSort / MrgSort4.
template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() = default;
  MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In,
                 const LocalTensor<T>& src3In, const LocalTensor<T>& src4In)
      : src1(src1In), src2(src2In), src3(src3In), src4(src4In) {}
  LocalTensor<T> src1;
  LocalTensor<T> src2;
  LocalTensor<T> src3;
  LocalTensor<T> src4;
};

// Merge parameters: list lengths (pairs for MrgSort, proposals for MrgSort4, [0, 4095]), stop on
// the first exhausted list, the valid lists (3, 7 or 15: the first 2, 3 or 4) and repeats.
struct MrgSort4Info {
  MrgSort4Info() = default;
  MrgSort4Info(const uint16_t elementLengthsIn[4], bool ifExhaustedSuspensionIn,
               uint16_t validBitIn, uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn),
        validBit(validBitIn),
        repeatTimes(repeatTimesIn) {
    for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
  }
  uint16_t elementLengths[4] = {0, 0, 0, 0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 15;
  uint16_t repeatTimes = 1;
};

namespace detail {

template <typename T>
inline constexpr bool kSortType = std::is_same_v<T, half> || std::is_same_v<T, float>;

// Returns true when score a sorts before score b (descending; NaN last).
inline bool ScoreBefore(float a, float b) {
  if (a != a) return false;
  if (b != b) return true;
  return a > b;
}

template <typename T>
float ScoreAt(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<float>(v);
}

inline void CheckRepeat(int64_t repeat, const char* api, const SrcLoc& loc) {
  if (repeat < 0 || repeat > 255) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "repeatTime ", repeat, " is outside [0, 255]");
  }
}

// Merges up to four sorted lists of `item`-byte records (score of type T at byte `score_at`).
template <typename T>
void MergeLists(const char* api, const LocalTensor<T>& dst, const MrgSortSrcList<T>& src,
                const MrgSort4Info& p, uint32_t item, uint32_t score_at, uint32_t list_align,
                const SrcLoc& loc) {
  static_assert(kSortType<T>, "MrgSort/MrgSort4 take half or float");
  auto& core = Core();
  if (p.validBit != 3 && p.validBit != 7 && p.validBit != 15) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "validBit ", p.validBit,
         " is not 3, 7 or 15 (the first 2, 3 or 4 lists)");
  }
  const int lists = p.validBit == 3 ? 2 : (p.validBit == 7 ? 3 : 4);
  const LocalTensor<T>* in[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
  static const char* const kRoles[] = {"src.src1", "src.src2", "src.src3", "src.src4"};
  for (int k = 0; k < 4; ++k) {
    if (p.elementLengths[k] > 4095) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, api, loc, "elementLengths[", k, "] ", p.elementLengths[k],
           " is outside [0, 4095]");
    }
  }
  if (p.repeatTimes > 255) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "repeatTimes ", p.repeatTimes,
         " is outside [0, 255]");
  }
  const uint32_t repeats = p.repeatTimes;
  if (repeats > 1) {
    bool ok = lists == 4 && !p.ifExhaustedSuspension;
    for (int k = 1; k < 4 && ok; ++k) {
      ok = p.elementLengths[k] == p.elementLengths[0] &&
           reinterpret_cast<const uint8_t*>(in[k]->data()) ==
               reinterpret_cast<const uint8_t*>(in[0]->data()) +
                   static_cast<uint64_t>(k) * p.elementLengths[0] * item;
    }
    if (!ok) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, api, loc, "repeatTimes ", repeats,
           " > 1 needs four equal-length lists stored back to back, validBit 15 and "
           "ifExhaustedSuspension false");
    }
  }
  const uint64_t len0 = p.elementLengths[0];
  uint64_t total = 0;
  for (int k = 0; k < lists; ++k) total += p.elementLengths[k];
  const uint64_t span = repeats > 1 ? 4 * len0 * item : 0;  // the stride between repeats
  for (int k = 0; k < lists; ++k) {
    const uint64_t need =
        (repeats > 1 ? (repeats - 1) * span : 0) + uint64_t{p.elementLengths[k]} * item;
    CheckUbOperand(*in[k], need, list_align, api, kRoles[k], loc);
  }
  CheckUbOperand(dst, repeats == 0 ? 0 : (repeats - 1) * span + total * item, 32, api, "dst",
                   loc);
  core.mrg_sort_result = {0, 0, 0, 0};
  uint8_t* out = reinterpret_cast<uint8_t*>(dst.data());
  for (int k = 0; k < lists; ++k) {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(in[k]->data());
    if (s < out + total * item && out < s + p.elementLengths[k] * item && total > 0 &&
        p.elementLengths[k] > 0) [[unlikely]] {
      Fail(StatusCode::kInvalidArgument, api, loc, kRoles[k],
           " overlaps dst; the docs forbid overlapping source and destination");
    }
  }
  uint64_t written = 0;
  std::vector<uint8_t> merged;
  for (uint32_t r = 0; r < repeats; ++r) {
    const uint8_t* base[4];
    uint64_t pos[4] = {0, 0, 0, 0};
    for (int k = 0; k < lists; ++k) {
      base[k] = reinterpret_cast<const uint8_t*>(in[k]->data()) + r * span;
    }
    merged.clear();
    while (true) {
      int best = -1;
      float best_score = 0.0f;
      bool exhausted = false;
      for (int k = 0; k < lists; ++k) {
        if (pos[k] >= p.elementLengths[k]) {
          exhausted = true;
          continue;
        }
        const float sc = ScoreAt<T>(base[k] + pos[k] * item + score_at);
        if (best < 0 || ScoreBefore(sc, best_score)) {
          best = k;
          best_score = sc;
        }
      }
      if (best < 0 || (exhausted && p.ifExhaustedSuspension)) break;
      merged.insert(merged.end(), base[best] + pos[best] * item,
                    base[best] + (pos[best] + 1) * item);
      ++pos[best];
    }
    std::memcpy(out + r * span, merged.data(), merged.size());
    written += merged.size();
    for (int k = 0; k < lists; ++k) core.mrg_sort_result[k] = static_cast<uint16_t>(pos[k]);
  }
  AICORE_ISSUE(
      core,
      WithSource(
          WithSource(VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), written, src.src1.data(),
                              (repeats ? (repeats - 1) * span : 0) + len0 * item, src.src2.data(),
                              p.elementLengths[1] * uint64_t{item}, written / item, repeats, loc),
                     core, lists > 2 ? src.src3.data() : nullptr,
                     p.elementLengths[2] * uint64_t{item}),
          core, lists > 3 ? src.src4.data() : nullptr, p.elementLengths[3] * uint64_t{item}));
}

// Sorts groups of `group` records of `item` bytes (score of T at `score_at`) in place in a copy.
template <typename T>
void SortGroups(uint8_t* out, const uint8_t* in, uint32_t groups, uint32_t group, uint32_t item,
                uint32_t score_at) {
  std::vector<uint32_t> order(group);
  for (uint32_t g = 0; g < groups; ++g) {
    const uint8_t* gi = in + uint64_t{g} * group * item;
    for (uint32_t i = 0; i < group; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return ScoreBefore(ScoreAt<T>(gi + a * item + score_at),
                         ScoreAt<T>(gi + b * item + score_at));
    });
    std::vector<uint8_t> tmp(uint64_t{group} * item);
    for (uint32_t i = 0; i < group; ++i) {
      std::memcpy(tmp.data() + uint64_t{i} * item, gi + uint64_t{order[i]} * item, item);
    }
    std::memcpy(out + uint64_t{g} * group * item, tmp.data(), tmp.size());
  }
}

inline const char* ProposalField(int32_t mode) {
  static const char* const kNames[] = {"x1", "y1", "x2", "y2", "score", "label"};
  return mode >= 0 && mode < 6 ? kNames[mode] : "<invalid>";
}

// ProposalConcat (concat true) or ProposalExtract: field `mode` of 16 * repeat proposals.
template <typename T>
void ProposalField(bool concat, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   int32_t repeat, int32_t mode, const SrcLoc& loc) {
  static_assert(kSortType<T>, "ProposalConcat/ProposalExtract take half or float");
  const char* api = concat ? "ProposalConcat" : "ProposalExtract";
  CheckRepeat(repeat, api, loc);
  if (mode < 0 || mode > 5) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, "modeNumber ", mode,
         " is outside [0, 5] (x1, y1, x2, y2, score, label)");
  }
  const uint64_t n = uint64_t{static_cast<uint32_t>(repeat)} * 16;
  const LocalTensor<T>& props = concat ? dst : src;
  const LocalTensor<T>& flat = concat ? src : dst;
  CheckUbOperand(props, n * 8 * sizeof(T), 32, api, concat ? "dst" : "src", loc);
  CheckUbOperand(flat, n * sizeof(T), 32, api, concat ? "src" : "dst", loc);
  T* p = props.data();
  T* f = flat.data();
  for (uint64_t i = 0; i < n; ++i) {
    if (concat) {
      p[i * 8 + mode] = f[i];
    } else {
      f[i] = p[i * 8 + mode];
    }
  }
  auto& core = Core();
  AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), dst.bytes(), src.data(),
                              concat ? n * sizeof(T) : n * 8 * sizeof(T), nullptr, 0, n,
                              static_cast<uint32_t>(repeat), loc));
}

}  // namespace detail

// Sorts each repeat's 32 scores (src0) with their uint32_t indices (src1) into 32 (score, index)
// pairs, descending (see Note [Sort layouts]). Repeat r reads src0 + 32r and src1 + 32r elements
// and writes dst + 256r bytes.
template <typename T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
            const LocalTensor<uint32_t>& src1, const int32_t repeatTime,
            detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(detail::kSortType<T>, "Sort32 takes half or float");
  constexpr const char* kApi = "Sort32";
  detail::CheckRepeat(repeatTime, kApi, loc);
  const uint64_t n = uint64_t{static_cast<uint32_t>(repeatTime)} * 32;
  detail::CheckUbOperand(dst, n * 8, 32, kApi, "dst", loc);
  detail::CheckUbOperand(src0, n * sizeof(T), 32, kApi, "src0", loc);
  detail::CheckUbOperand(src1, n * 4, 32, kApi, "src1", loc);
  std::vector<uint8_t> pairs(n * 8, 0);
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(pairs.data() + i * 8, src0.data() + i, sizeof(T));
    std::memcpy(pairs.data() + i * 8 + 4, src1.data() + i, 4);
  }
  detail::SortGroups<T>(reinterpret_cast<uint8_t*>(dst.data()), pairs.data(),
                        static_cast<uint32_t>(repeatTime), 32, 8, 0);
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(), n * 8,
                                      src0.data(), n * sizeof(T), src1.data(), n * 4, n,
                                      static_cast<uint32_t>(repeatTime), loc));
}

// Merges up to four lists of sorted (score, index) pairs (elementLengths in pairs) into dst,
// score descending; see Note [Sort layouts].
template <typename T>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::MergeLists("MrgSort", dst, src, params, 8, 0, 8, loc);
}

// Merges up to four lists of sorted region proposals (elementLengths in proposals) into dst by
// score (field 4), descending.
template <typename T>
void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::MergeLists("MrgSort4", dst, src, params, 8 * sizeof(T), 4 * sizeof(T),
                     sizeof(T) == 2 ? 16 : 32, loc);
}

// Returns how many records each list gave in the last MrgSort/MrgSort4 on this core.
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4) {
  const auto& r = detail::Core().mrg_sort_result;
  mrgSortList1 = r[0];
  mrgSortList2 = r[1];
  mrgSortList3 = r[2];
  mrgSortList4 = r[3];
}

// Sorts each group of 16 region proposals by score, descending.
template <typename T>
void RpSort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
              detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(detail::kSortType<T>, "RpSort16 takes half or float");
  constexpr const char* kApi = "RpSort16";
  detail::CheckRepeat(repeatTime, kApi, loc);
  const uint64_t bytes = uint64_t{static_cast<uint32_t>(repeatTime)} * 16 * 8 * sizeof(T);
  detail::CheckUbOperand(dst, bytes, 32, kApi, "dst", loc);
  detail::CheckUbOperand(src, bytes, 32, kApi, "src", loc);
  detail::SortGroups<T>(reinterpret_cast<uint8_t*>(dst.data()),
                        reinterpret_cast<const uint8_t*>(src.data()),
                        static_cast<uint32_t>(repeatTime), 16, 8 * sizeof(T), 4 * sizeof(T));
  auto& core = detail::Core();
  AICORE_ISSUE(core, detail::VecInstr(core, kApi, aicore::DTypeOf<T>(), dst.data(), bytes,
                                      src.data(), bytes, nullptr, 0, bytes / (8 * sizeof(T)),
                                      static_cast<uint32_t>(repeatTime), loc));
}

// Writes src[i] into field modeNumber of proposal i of dst, for 16 * repeatTime proposals.
template <typename T>
void ProposalConcat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                    const int32_t modeNumber, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ProposalField(true, dst, src, repeatTime, modeNumber, loc);
}
// Reads field modeNumber of proposal i of src into dst[i], for 16 * repeatTime proposals.
template <typename T>
void ProposalExtract(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                     const int32_t modeNumber, detail::SrcLoc loc = detail::SrcLoc::current()) {
  detail::ProposalField(false, dst, src, repeatTime, modeNumber, loc);
}

// Splits 32 * repeatTime sorted (score, index) pairs into dstValue and dstIndex.
template <typename T>
void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex,
             const LocalTensor<T>& sorted, const int32_t repeatTime,
             detail::SrcLoc loc = detail::SrcLoc::current()) {
  static_assert(detail::kSortType<T>, "Extract takes half or float");
  constexpr const char* kApi = "Extract";
  detail::CheckRepeat(repeatTime, kApi, loc);
  const uint64_t n = uint64_t{static_cast<uint32_t>(repeatTime)} * 32;
  detail::CheckUbOperand(dstValue, n * sizeof(T), 32, kApi, "dstValue", loc);
  detail::CheckUbOperand(dstIndex, n * 4, 32, kApi, "dstIndex", loc);
  detail::CheckUbOperand(sorted, n * 8, 32, kApi, "sorted", loc);
  const uint8_t* in = reinterpret_cast<const uint8_t*>(sorted.data());
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(dstValue.data() + i, in + i * 8, sizeof(T));
    std::memcpy(dstIndex.data() + i, in + i * 8 + 4, 4);
  }
  auto& core = detail::Core();
  // The record names dstValue as its destination; a record has one dst, so the dstIndex write
  // is not seen by the sanitizer (see docs/api-coverage.md).
  AICORE_ISSUE(core, detail::VecInstr(core, kApi, aicore::DTypeOf<T>(), dstValue.data(),
                                      n * sizeof(T), sorted.data(), n * 8, nullptr, 0, n,
                                      static_cast<uint32_t>(repeatTime), loc));
}

}  // namespace AscendC
