// Helpers shared by the vector API tests: running a body inside a one-block kernel, carving UB
// operands out of a TBuf, random data per dtype, and mismatch collection.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"
#include "tests/reference/vector_ref.h"

namespace aicore::testing {

// Runs `body` as a one-block vector kernel; returns the launch status.
inline Status RunVectorKernel(const std::function<void()>& body, const arch::Chip* chip = nullptr) {
  LaunchOptions options;
  options.chip = chip;
  return RunKernel("vector_test", 1, options, body);
}

// Hands out 32-byte-aligned UB tensors from one TBuf covering most of UB.
class UbArena {
 public:
  static constexpr uint32_t kBytes = 160 * 1024;
  explicit UbArena(AscendC::TPipe& pipe) { pipe.InitBuffer(buf_, kBytes); }
  // Returns a tensor of `count` elements, or an empty tensor when UB is exhausted.
  template <typename T>
  AscendC::LocalTensor<T> Get(uint64_t count) {
    const uint64_t bytes = (count * sizeof(T) + 31) / 32 * 32;
    if (used_ + bytes > kBytes || count == 0) return {};
    auto t = buf_.GetWithOffset<T>(static_cast<uint32_t>(count), static_cast<uint32_t>(used_));
    used_ += bytes;
    return t;
  }
  uint64_t left() const { return kBytes - used_; }
  void Reset() { used_ = 0; }

 private:
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf_;
  uint64_t used_ = 0;
};

// Random values of T suited to `op` (positive inputs for Ln/Sqrt/Rsqrt, a modest range for Exp,
// full range for integers, a few special values for the others).
template <typename T>
std::vector<T> RandomFor(kernel::engine::VecOp op, size_t n, std::mt19937& rng,
                         bool specials = true) {
  using kernel::engine::VecOp;
  std::vector<T> v(n);
  if constexpr (ref::kIsFloat<T>) {
    double lo = -100, hi = 100;
    if (op == VecOp::kLn || op == VecOp::kSqrt || op == VecOp::kRsqrt) lo = 1e-3, hi = 1e4;
    if (op == VecOp::kExp) lo = -16, hi = std::is_same_v<T, half> ? 12 : 80;
    if (std::is_same_v<T, half> &&
        (op == VecOp::kLn || op == VecOp::kSqrt || op == VecOp::kRsqrt)) {
      hi = 6e4;
    }
    // Positive-only ops draw log-uniformly so every binade, including those around 1, is hit.
    const bool log_scale = lo > 0;
    std::uniform_real_distribution<double> dist(log_scale ? std::log(lo) : lo,
                                                log_scale ? std::log(hi) : hi);
    for (auto& x : v) x = ref::FromD<T>(log_scale ? std::exp(dist(rng)) : dist(rng));
    if (specials && n >= 16 && op != VecOp::kExp && op != VecOp::kLn) {
      const double kSpecial[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-30, -2.0, 3.0};
      for (size_t i = 0; i < 8; ++i) v[(i * 7919) % n] = ref::FromD<T>(kSpecial[i]);
    }
  } else {
    std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::min(),
                                                std::numeric_limits<T>::max());
    for (auto& x : v) x = static_cast<T>(dist(rng));
    if (specials && n >= 16) {
      const int64_t kSpecial[] = {
          0, 1, -1, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), 2, -2, 0};
      for (size_t i = 0; i < 8; ++i) v[(i * 7919) % n] = static_cast<T>(kSpecial[i]);
    }
  }
  return v;
}

// A scalar operand suited to `op`.
template <typename T>
T RandomScalar(kernel::engine::VecOp op, std::mt19937& rng) {
  using kernel::engine::VecOp;
  if constexpr (ref::kIsFloat<T>) {
    std::uniform_real_distribution<double> dist(-10, 10);
    if (op == VecOp::kLeakyRelu)
      return ref::FromD<T>(std::uniform_real_distribution<double>(0, 1)(rng));
    return ref::FromD<T>(dist(rng));
  } else {
    if (op == VecOp::kShiftLeft || op == VecOp::kShiftRight) {
      return static_cast<T>(std::uniform_int_distribution<int>(0, sizeof(T) * 8 - 1)(rng));
    }
    if (op == VecOp::kDivs) {
      const int64_t kDivisors[] = {0, -1, 1, 3, -7, 100};
      return static_cast<T>(kDivisors[std::uniform_int_distribution<int>(0, 5)(rng)]);
    }
    std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::min(),
                                                std::numeric_limits<T>::max());
    return static_cast<T>(dist(rng));
  }
}

template <typename T>
std::string Show(T v) {
  std::ostringstream os;
  if constexpr (ref::kIsFloat<T>) {
    os.precision(9);
    os << ref::ToD(v) << " (0x" << std::hex << ref::BitsOf(v) << ")";
  } else {
    os << static_cast<int64_t>(v);
  }
  return os.str();
}

// Collects the first few mismatches of a test.
struct Mismatches {
  int count = 0;
  std::string first;
  template <typename T>
  void Check(bool ok, const std::string& where, T got, T want) {
    if (ok) return;
    if (count++ < 5) first += where + ": got " + Show(got) + ", want " + Show(want) + "\n";
  }
  void Expect(const std::string& context) const { EXPECT_EQ(count, 0) << context << "\n" << first; }
};

// True when `got` matches the reference `want` within `ulps` (bit-exact when 0; NaN == NaN).
template <typename T>
bool Matches(T got, T want, int64_t ulps) {
  if constexpr (ref::kIsFloat<T>) {
    if (ulps == 0) return ref::SameValue(got, want);
    return ref::UlpDiff(got, want) <= ulps;
  } else {
    return got == want;
  }
}

template <typename T>
void Fill(const AscendC::LocalTensor<T>& t, const std::vector<T>& v) {
  std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
}
template <typename T>
std::vector<T> Read(const AscendC::LocalTensor<T>& t, size_t n) {
  std::vector<T> v(n);
  std::memcpy(v.data(), t.data(), n * sizeof(T));
  return v;
}

}  // namespace aicore::testing
