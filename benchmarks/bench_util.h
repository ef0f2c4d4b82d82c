// Helpers shared by the benchmark binaries: the size of the arrays memory-bound rows stream over
// (STREAM's rule: each array at least 4x the last-level cache) and host buffers for them.
#pragma once

#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace aicore::bench {

// Returns the CPU seconds every thread of this process has used so far.
inline double ProcessCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Returns the last-level cache size in bytes (sysconf, then sysfs), or 32 MiB when unknown.
inline uint64_t LastLevelCacheBytes() {
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return static_cast<uint64_t>(l3);
#endif
  std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string s;
  if (f >> s && !s.empty()) {
    uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    const char unit = s.back();
    if (unit == 'K') v <<= 10;
    if (unit == 'M') v <<= 20;
    if (v > 0) return v;
  }
  return uint64_t{32} << 20;
}

// Returns the bytes of each array a memory-bound row streams over: AICORE_BENCH_ARRAY_MB when
// set (for quick runs; rows then no longer follow STREAM's rule), else 4x the last-level cache
// rounded up to 1 MiB.
inline uint64_t StreamArrayBytes() {
  if (const char* env = std::getenv("AICORE_BENCH_ARRAY_MB")) {
    const uint64_t mb = std::strtoull(env, nullptr, 10);
    if (mb > 0) return mb << 20;
  }
  const uint64_t bytes = 4 * LastLevelCacheBytes();
  return (bytes + (uint64_t{1} << 20) - 1) >> 20 << 20;
}

// A page-touched, 4 KiB-aligned host array of `bytes` bytes (freed on destruction).
class HostArray {
 public:
  explicit HostArray(uint64_t bytes)
      : bytes_(bytes), data_(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes))) {
    if (data_ == nullptr) std::abort();
    std::memset(data_, 0, bytes_);
  }
  ~HostArray() { std::free(data_); }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;

  template <typename T>
  T* as() const { return reinterpret_cast<T*>(data_); }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_;
  uint8_t* data_;
};

}  // namespace aicore::bench
