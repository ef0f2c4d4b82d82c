// Scalar references of the sort APIs: records of `item` bytes ordered by a score of type T at a
// byte offset, descending, ties in input order (Sort32, RpSort16, and MrgSort/MrgSort4 by the
// equivalent "concatenate the lists, then stable-sort").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace aicore::ref {

// Returns `records` (n records of `item` bytes) stable-sorted by score descending, NaN last.
template <typename T>
std::vector<uint8_t> SortRecords(const std::vector<uint8_t>& records, uint32_t item,
                                 uint32_t score_at) {
  const size_t n = records.size() / item;
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  auto score = [&](size_t i) {
    T v;
    std::memcpy(&v, records.data() + i * item + score_at, sizeof(T));
    return static_cast<float>(v);
  };
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const float x = score(a), y = score(b);
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x > y;
  });
  std::vector<uint8_t> out(records.size());
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(out.data() + i * item, records.data() + idx[i] * item, item);
  }
  return out;
}

}  // namespace aicore::ref
