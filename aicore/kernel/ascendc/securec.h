// The bounded memory functions of the securec library ("securec.h") host programs call:
// memcpy_s and memset_s with their documented checks. Return 0 (EOK) on success.
#pragma once

#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif

// Copies `count` bytes from `src` to `dest` (capacity `destMax`). Returns 0 on success, else a
// nonzero code (22 EINVAL: a null pointer; 34 ERANGE: count > destMax; 54: overlapping ranges);
// on ERANGE and overlap dest is zeroed. The codes follow errno, not securec's exact values.
inline int memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (count == 0) return EOK;
  if (dest == nullptr || src == nullptr) {
    if (dest != nullptr && destMax > 0) std::memset(dest, 0, destMax);
    return 22;
  }
  if (count > destMax) {
    std::memset(dest, 0, destMax);
    return 34;
  }
  const auto* d = static_cast<const char*>(dest);
  const auto* s = static_cast<const char*>(src);
  if ((d < s + count) && (s < d + count)) {
    std::memset(dest, 0, destMax);
    return 54;
  }
  std::memcpy(dest, src, count);
  return EOK;
}

// Sets `count` bytes of `dest` (capacity `destMax`) to `c`. Returns 0 on success, 22 for a null
// dest, 34 when count > destMax (then only destMax bytes are set).
inline int memset_s(void* dest, size_t destMax, int c, size_t count) {
  if (count == 0) return EOK;
  if (dest == nullptr) return 22;
  if (count > destMax) {
    std::memset(dest, c, destMax);
    return 34;
  }
  std::memset(dest, c, count);
  return EOK;
}
