// The per-ISA engine variants give bit-identical results: every op on every dtype it supports
// and every Cast pair and mode, run through the portable, AVX2 and AVX-512 loops (those the host
// can execute) on the same random data, with lengths and offsets that exercise vector tails.
#include "aicore/kernel/vector/engine.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "aicore/core/cpu.h"
#include "aicore/core/dtype.h"

namespace aicore::kernel::engine {

#define AICORE_DECLARE_ISA(ns)                                                                  \
  namespace ns {                                                                                \
  void Elementwise(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s, \
                   size_t n);                                                                   \
  void Cast(DType dst_dt, DType src_dt, Round r, void* dst, const void* src, size_t n);         \
  }
AICORE_DECLARE_ISA(isa_portable)
#if defined(__x86_64__)
AICORE_DECLARE_ISA(isa_avx2)
AICORE_DECLARE_ISA(isa_avx512)
#endif
#undef AICORE_DECLARE_ISA

namespace {

struct Variant {
  const char* name;
  decltype(&isa_portable::Elementwise) elementwise;
  decltype(&isa_portable::Cast) cast;
};

// The variants this host can run, portable first.
std::vector<Variant> Variants() {
  std::vector<Variant> v = {{"portable", isa_portable::Elementwise, isa_portable::Cast}};
#if defined(__x86_64__)
  if (DetectedIsa() >= Isa::kAvx2) v.push_back({"avx2", isa_avx2::Elementwise, isa_avx2::Cast});
  if (DetectedIsa() >= Isa::kAvx512) {
    v.push_back({"avx512", isa_avx512::Elementwise, isa_avx512::Cast});
  }
#endif
  return v;
}

constexpr DType kTypes[] = {DType::kF16, DType::kBF16, DType::kF32, DType::kI8,
                            DType::kU8,  DType::kI16,  DType::kU16, DType::kI32,
                            DType::kU32, DType::kI64,  DType::kU64};

// Random bytes that decode to values of `dt`: floats in +-200 with zeros, NaNs (quiet and
// signalling), infinities and subnormals.
std::vector<uint8_t> RandomBytes(DType dt, size_t n, std::mt19937& rng) {
  const size_t es = DTypeSize(dt);
  std::vector<uint8_t> bytes(n * es);
  std::uniform_real_distribution<float> f(-200.0f, 200.0f);
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = bytes.data() + i * es;
    float x = (i % 61 == 0) ? 0.0f : (i % 67 == 0 ? -0.0f : f(rng));
    if (i % 71 == 0) x = std::bit_cast<float>(0x7f800000u | (static_cast<uint32_t>(rng()) >> 9));
    if (i % 73 == 0) x = (i % 2) ? std::numeric_limits<float>::infinity() : -1e-40f;
    if (dt == DType::kF32) {
      std::memcpy(p, &x, 4);
    } else if (dt == DType::kF16) {
      const half h(x);
      std::memcpy(p, &h, 2);
    } else if (dt == DType::kBF16) {
      const bfloat16 h(x);
      std::memcpy(p, &h, 2);
    } else {
      for (size_t b = 0; b < es; ++b) p[b] = static_cast<uint8_t>(rng());
    }
  }
  return bytes;
}

TEST(EngineIsa, ElementwiseVariantsAgreeBitForBit) {
  const auto variants = Variants();
  std::mt19937 rng(3);
  int compared = 0;
  for (int o = 0; o < static_cast<int>(VecOp::kCount); ++o) {
    const auto op = static_cast<VecOp>(o);
    for (DType dt : kTypes) {
      if (!VecOpSupports(op, dt)) continue;
      const size_t es = DTypeSize(dt);
      for (size_t n : {size_t{1}, size_t{15}, size_t{100}, size_t{4096 + 17}}) {
        const auto a = RandomBytes(dt, n + 1, rng), b = RandomBytes(dt, n + 1, rng);
        const auto d0 = RandomBytes(dt, n + 1, rng);
        Scalar s;
        s.f = 1.75;
        s.i = (op == VecOp::kShiftLeft || op == VecOp::kShiftRight) ? 3 : -5;
        std::vector<uint8_t> want;
        for (const Variant& v : variants) {
          std::vector<uint8_t> d = d0;
          // Offset by one element so vector loops start unaligned.
          v.elementwise(op, dt, d.data() + es, a.data() + es, b.data() + es, s, n);
          if (want.empty()) {
            want = d;
            continue;
          }
          EXPECT_EQ(d, want) << VecOpName(op) << " on " << DTypeName(dt) << " n=" << n << ": "
                             << v.name << " differs from portable";
          ++compared;
        }
      }
    }
  }
  if (variants.size() > 1) {
    EXPECT_GT(compared, 0);
  }
}

TEST(EngineIsa, CastVariantsAgreeBitForBit) {
  const auto variants = Variants();
  std::mt19937 rng(4);
  int pairs = 0;
  for (DType dst : kTypes) {
    for (DType src : kTypes) {
      for (int r = 0; r <= static_cast<int>(Round::kOdd); ++r) {
        const auto mode = static_cast<Round>(r);
        if (!CastSupports(dst, src, mode)) continue;
        ++pairs;
        const size_t n = 4096 + 17;
        std::vector<uint8_t> in = RandomBytes(src, n, rng);
        if (src == DType::kF32) {
          // Also every exponent, NaN and infinity.
          for (size_t i = 0; i < n; i += 3) {
            const uint32_t bits = static_cast<uint32_t>(rng());
            std::memcpy(in.data() + i * 4, &bits, 4);
          }
        }
        std::vector<uint8_t> want;
        for (const Variant& v : variants) {
          std::vector<uint8_t> out(n * DTypeSize(dst), 0xab);
          v.cast(dst, src, mode, out.data(), in.data(), n);
          if (want.empty()) {
            want = out;
            continue;
          }
          EXPECT_EQ(out, want) << "Cast " << DTypeName(src) << " -> " << DTypeName(dst) << " "
                               << RoundName(mode) << ": " << v.name << " differs from portable";
        }
      }
    }
  }
  EXPECT_GE(pairs, 20 * 6);
}

TEST(EngineIsa, ZeroLengthIsANoOp) {
  float d = 1.0f;
  Elementwise(VecOp::kAdd, DType::kF32, &d, nullptr, nullptr, {}, 0);
  Cast(DType::kF16, DType::kF32, Round::kRint, &d, nullptr, 0);
  EXPECT_EQ(d, 1.0f);
}

}  // namespace
}  // namespace aicore::kernel::engine
