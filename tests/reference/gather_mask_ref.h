// Scalar references of the UB data-movement APIs that select or place whole elements or blocks:
// GatherMask, Gatherb, Scatter and the masked level-0 Copy. They work on raw bytes so one reference
// serves every dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace aicore::ref {

// GatherMask's parameters, as in AscendC::GatherMaskParams.
struct GatherMaskArgs {
  uint32_t esize = 2;
  bool counter = false;  // reduceMode
  uint32_t mask = 0;     // elements per repeat in counter mode
  uint32_t src0_blk = 1, repeats = 1, src0_rep = 8, src1_rep = 0;
  uint8_t pattern = 0;                 // 1-7, or 0 for the user pattern
  const uint8_t* user_bits = nullptr;  // the user pattern tensor
};

// Returns the kept elements (esize bytes each, in order) of a GatherMask over `src`.
inline std::vector<uint8_t> GatherMask(const uint8_t* src, const GatherMaskArgs& a) {
  const uint32_t per = a.counter ? a.mask : 256 / a.esize;
  std::vector<uint8_t> out;
  for (uint32_t r = 0; r < a.repeats; ++r) {
    for (uint32_t e = 0; e < per; ++e) {
      bool keep;
      if (a.pattern == 0) {
        const uint8_t* bits = a.user_bits + uint64_t{r} * a.src1_rep * 32;
        keep = (bits[e / 8] >> (e % 8)) & 1;
      } else if (a.pattern == 1) {
        keep = e % 2 == 0;
      } else if (a.pattern == 2) {
        keep = e % 2 == 1;
      } else if (a.pattern == 7) {
        keep = true;
      } else {
        keep = e % 4 == a.pattern - 3u;
      }
      if (!keep) continue;
      const uint64_t byte = uint64_t{e} * a.esize;
      const uint64_t off = (uint64_t{r} * a.src0_rep + byte / 32 * a.src0_blk) * 32 + byte % 32;
      out.insert(out.end(), src + off, src + off + a.esize);
    }
  }
  return out;
}

// Gatherb: block j of repeat i copies 32 bytes from src + offset[i * 8 + j] to dst block
// i * dst_rep + j * max(dst_blk, 1).
inline void Gatherb(uint8_t* dst, const uint8_t* src, const uint32_t* offset, uint32_t repeats,
                    uint32_t dst_blk, uint32_t dst_rep) {
  if (dst_blk == 0) dst_blk = 1;
  for (uint32_t i = 0; i < repeats; ++i) {
    for (uint32_t j = 0; j < 8; ++j) {
      std::memcpy(dst + (uint64_t{i} * dst_rep + uint64_t{j} * dst_blk) * 32,
                  src + offset[i * 8 + j], 32);
    }
  }
}

// Masked level-0 Copy: element e of repeat r moves when bit e of (lo, hi) is set (the first
// `count` elements in counter mode); strides in DataBlocks.
inline void MaskedCopy(uint8_t* dst, const uint8_t* src, uint32_t esize, uint64_t lo, uint64_t hi,
                       bool counter, uint32_t count, uint32_t repeats, uint32_t dst_blk,
                       uint32_t src_blk, uint32_t dst_rep, uint32_t src_rep) {
  const uint32_t per = 256 / esize;
  for (uint32_t r = 0; r < repeats; ++r) {
    for (uint32_t e = 0; e < per; ++e) {
      const bool on = counter ? e < count : (e < 64 ? (lo >> e) & 1 : (hi >> (e - 64)) & 1);
      if (!on) continue;
      const uint64_t byte = uint64_t{e} * esize;
      std::memcpy(dst + (uint64_t{r} * dst_rep + byte / 32 * dst_blk) * 32 + byte % 32,
                  src + (uint64_t{r} * src_rep + byte / 32 * src_blk) * 32 + byte % 32, esize);
    }
  }
}

// Scatter: the k-th element of `src_elems` (esize bytes each) goes to dst byte base + off[k].
inline void Scatter(uint8_t* dst, const std::vector<const uint8_t*>& src_elems,
                    const std::vector<uint32_t>& off, uint32_t base, uint32_t esize) {
  for (size_t k = 0; k < src_elems.size(); ++k) {
    std::memcpy(dst + base + off[k], src_elems[k], esize);
  }
}

}  // namespace aicore::ref
