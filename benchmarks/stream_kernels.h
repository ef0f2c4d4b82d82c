// The STREAM loops the memory-bound rows are measured against, shared by machine_bench and
// ops_bench (which runs them side by side with the operators on the operators' own buffers).
// Plain loops at the binary's baseline ISA; a binary including this must compile with
// -fno-tree-loop-distribute-patterns, or GCC turns Copy into a memcpy call (see CMakeLists.txt).
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "aicore/core/cpu.h"

namespace aicore::bench {

// STREAM Copy: c = a with ordinary stores (each destination line is read first: write-allocate).
__attribute__((noinline)) inline void StreamCopy(double* __restrict c, const double* __restrict a,
                                                 uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) c[i] = a[i];
}

// STREAM Add: c = a + b with ordinary stores.
__attribute__((noinline)) inline void StreamAdd(double* __restrict c, const double* __restrict a,
                                                const double* __restrict b, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

#if defined(__x86_64__)
__attribute__((noinline, target("avx512f"))) inline void StreamCopyNtAvx512(
    double* __restrict c, const double* __restrict a, uint64_t n) {
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_stream_pd(c + i, _mm512_loadu_pd(a + i));
  for (; i < n; ++i) c[i] = a[i];
  _mm_sfence();
}

__attribute__((noinline)) inline void StreamCopyNtSse2(double* __restrict c,
                                                       const double* __restrict a, uint64_t n) {
  uint64_t i = 0;
  for (; i + 2 <= n; i += 2) _mm_stream_pd(c + i, _mm_loadu_pd(a + i));
  for (; i < n; ++i) c[i] = a[i];
  _mm_sfence();
}
#endif

// Copy with non-temporal stores, then one sfence: 64 bytes per store where the library runs
// AVX-512, else 16. `c` must be 64-byte aligned (HostArray, GmAlloc); elsewhere plain stores.
inline void StreamCopyNt(double* __restrict c, const double* __restrict a, uint64_t n) {
#if defined(__x86_64__)
  if (aicore::ActiveIsa() == aicore::Isa::kAvx512) {
    StreamCopyNtAvx512(c, a, n);
  } else {
    StreamCopyNtSse2(c, a, n);
  }
#else
  StreamCopy(c, a, n);
#endif
}

}  // namespace aicore::bench
