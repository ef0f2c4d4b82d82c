// Test plumbing for the vector and copy API tests: run a body on one AIV core with a UB arena
// that hands out 32-byte-aligned tensors, and fill host vectors with representable values.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"

namespace aicore::testing {

// Hands out consecutive 32-byte-aligned tensors from one VECCALC TBuf.
class UbArena {
 public:
  explicit UbArena(AscendC::TBuf<AscendC::TPosition::VECCALC>& buf) : buf_(buf) {}
  // Returns a tensor of `n` elements (its bytes are not initialised).
  template <typename T>
  AscendC::LocalTensor<T> Get(uint32_t n) {
    auto t = buf_.GetWithOffset<T>(n, offset_);
    offset_ += static_cast<uint32_t>((uint64_t{n} * sizeof(T) + 31) / 32 * 32);
    return t;
  }
  // Returns a tensor holding a copy of `v`.
  template <typename T>
  AscendC::LocalTensor<T> Load(const std::vector<T>& v) {
    auto t = Get<T>(static_cast<uint32_t>(v.size()));
    std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
    return t;
  }

 private:
  AscendC::TBuf<AscendC::TPosition::VECCALC>& buf_;
  uint32_t offset_ = 0;
};

inline constexpr uint32_t kArenaBytes = 160 * 1024;

// Runs body(UbArena&) as a one-block kernel and returns its status.
template <typename Fn>
Status RunOnUb(Fn&& body) {
  return RunKernel("ub_test", 1, LaunchOptions{}, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kArenaBytes);
    UbArena arena(buf);
    body(arena);
  });
}

template <typename T>
std::vector<T> FromTensor(const AscendC::LocalTensor<T>& t, size_t n) {
  std::vector<T> v(n);
  std::memcpy(v.data(), t.data(), n * sizeof(T));
  return v;
}

// Returns n values in [-range, range] on a grid of 1/4 (whole numbers, non-negative for unsigned
// types), exact in half and float for |range| <= 512.
template <typename T>
std::vector<T> RandomValues(size_t n, uint32_t seed, int range = 500) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-4 * range, 4 * range);
  std::vector<T> v(n);
  for (auto& x : v) {
    float f = static_cast<float>(d(rng)) / 4.0f;
    if constexpr (std::is_integral_v<T>)
      f = std::is_signed_v<T> ? std::trunc(f) : std::fabs(std::trunc(f));
    x = static_cast<T>(f);
  }
  return v;
}

}  // namespace aicore::testing
