// The per-ISA engine variants give bit-identical results: every op on every dtype it supports
// and every Cast pair and mode, run through the portable, AVX2 and AVX-512 loops (those the host
// can execute) on the same random data, with lengths and offsets that exercise vector tails.
#include "aicore/kernel/vector/engine.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "aicore/core/cpu.h"
#include "aicore/core/dtype.h"
#include "tests/reference/vector_ref.h"

namespace aicore::kernel::engine {

#define AICORE_DECLARE_ISA(ns)                                                                  \
  namespace ns {                                                                                \
  void Elementwise(VecOp op, DType dt, void* dst, const void* src0, const void* src1, Scalar s, \
                   size_t n);                                                                   \
  void ElementwiseRows(VecOp op, DType dt, void* dst, const void* src0, const void* src1,       \
                       Scalar s, size_t n, size_t rows, const uint64_t pitch[3],                \
                       unsigned block_sources);                                                 \
  void Cast(DType dst_dt, DType src_dt, Round r, void* dst, const void* src, size_t n);         \
  float ReduceSumF32(const float* src, size_t n);                                               \
  float ReduceExtremeF32(bool max, const float* src, size_t n);                                 \
  void BlockReduceF32(BlockReduceOp op, float* dst, size_t dst_pitch, const float* src,         \
                      size_t src_pitch, size_t repeats);                                        \
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
  decltype(&isa_portable::ElementwiseRows) rows;
  decltype(&isa_portable::Cast) cast;
  decltype(&isa_portable::ReduceSumF32) sum;
  decltype(&isa_portable::ReduceExtremeF32) extreme;
  decltype(&isa_portable::BlockReduceF32) block_reduce;
};

// The variants this host can run, portable first.
std::vector<Variant> Variants() {
  std::vector<Variant> v = {{"portable", isa_portable::Elementwise, isa_portable::ElementwiseRows,
                             isa_portable::Cast,
                             isa_portable::ReduceSumF32, isa_portable::ReduceExtremeF32,
                             isa_portable::BlockReduceF32}};
#if defined(__x86_64__)
  if (DetectedIsa() >= Isa::kAvx2) {
    v.push_back({"avx2", isa_avx2::Elementwise, isa_avx2::ElementwiseRows, isa_avx2::Cast, isa_avx2::ReduceSumF32,
                 isa_avx2::ReduceExtremeF32, isa_avx2::BlockReduceF32});
  }
  if (DetectedIsa() >= Isa::kAvx512) {
    v.push_back({"avx512", isa_avx512::Elementwise, isa_avx512::ElementwiseRows,
                 isa_avx512::Cast, isa_avx512::ReduceSumF32,
                 isa_avx512::ReduceExtremeF32, isa_avx512::BlockReduceF32});
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

// Float inputs for Exp: a sweep over every exponent and sign (every 65537th bit pattern), and
// every float near the edges: overflow (ln FLT_MAX = 88.72), the clamps (88.75, -104), the
// subnormal results (ln 2^-126 = -87.34 down to ln 2^-150 = -103.97), the ends of the reduced
// range (+-ln2/2), and tiny arguments around 0 and 1.
std::vector<float> ExpInputs() {
  std::vector<float> x;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 65537) {
    x.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  }
  auto around = [&](float c, int count) {
    float lo = c, hi = c;
    for (int i = 0; i < count; ++i) {
      lo = std::nextafter(lo, -std::numeric_limits<float>::infinity());
      hi = std::nextafter(hi, std::numeric_limits<float>::infinity());
      x.push_back(lo);
      x.push_back(hi);
    }
    x.push_back(c);
  };
  for (float c : {88.7228394f, 88.75f, 89.0f, -87.3365479f, -103.278931f, -103.972076f, -104.0f,
                  0.0f, -0.0f, 1.0f, -1.0f, 0.34657359f, -0.34657359f}) {
    around(c, 3000);
  }
  for (float c : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()}) {
    x.push_back(c);
  }
  return x;
}

TEST(EngineIsa, ExpOnFloatIsWithinOneUlpAndIsaIndependent) {
  const std::vector<float> x = ExpInputs();
  std::vector<float> want;
  for (const Variant& v : Variants()) {
    std::vector<float> y(x.size());
    v.elementwise(VecOp::kExp, DType::kF32, y.data(), x.data(), nullptr, {}, x.size());
    int bad = 0;
    for (size_t i = 0; i < x.size() && bad < 10; ++i) {
      const float ref = ref::Apply<float>(VecOp::kExp, x[i], 0.0f, 0.0f);
      if (ref::UlpDiff(y[i], ref) > 1) {
        ADD_FAILURE() << v.name << ": exp(" << x[i] << ") = " << y[i] << ", want " << ref;
        ++bad;
      }
      // NaN inputs come back unchanged, payload included.
      if (x[i] != x[i] && std::bit_cast<uint32_t>(y[i]) != std::bit_cast<uint32_t>(x[i])) {
        ADD_FAILURE() << v.name << ": exp(NaN) changed the NaN";
        ++bad;
      }
    }
    if (want.empty()) {
      want = y;
      continue;
    }
    EXPECT_EQ(std::memcmp(y.data(), want.data(), y.size() * 4), 0)
        << v.name << " differs from portable";
  }
}

// Every half value as the first operand against edge values and random values as the second
// (or as the scalar): + - * / on half run natively where the CPU has AVX512-FP16, and must give
// the correctly rounded result and the same bits (NaNs included) as the widening paths.
TEST(EngineIsa, HalfArithmeticIsCorrectlyRoundedAndIsaIndependent) {
  const std::vector<uint16_t> edges = {
      0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,  // 0, sub, max, inf
      0x7e00, 0xfe00, 0x7c01, 0x7d55, 0xfc2a,                                          // q/s NaNs
      0x3c00, 0xbc00, 0x3800, 0x3c01, 0x4000, 0x5bff, 0x1400, 0x0200, 0x7800};
  std::mt19937 rng(5);
  std::vector<uint16_t> second = edges;
  while (second.size() < 48) second.push_back(static_cast<uint16_t>(rng()));
  std::vector<half> a, b;
  for (uint16_t y : second) {
    for (uint32_t x = 0; x < 65536; ++x) {
      a.push_back(half::FromBits(static_cast<uint16_t>(x)));
      b.push_back(half::FromBits(y));
    }
  }
  const size_t n = a.size() - 7;  // leave a tail for the masked lanes
  const half zero(0.0f);
  for (VecOp op : {VecOp::kAdd, VecOp::kSub, VecOp::kMul, VecOp::kDiv}) {
    std::vector<half> want;
    for (const Variant& v : Variants()) {
      std::vector<half> d(n);
      v.elementwise(op, DType::kF16, d.data(), a.data(), b.data(), {}, n);
      int bad = 0;
      for (size_t i = 0; i < n && bad < 10; ++i) {
        if (!ref::SameValue(d[i], ref::Apply<half>(op, a[i], b[i], zero))) {
          ADD_FAILURE() << VecOpName(op) << " " << v.name << ": bits " << a[i].bits << ", "
                        << b[i].bits << " gave " << d[i].bits;
          ++bad;
        }
      }
      if (want.empty()) {
        want = d;
        continue;
      }
      EXPECT_EQ(std::memcmp(d.data(), want.data(), n * 2), 0)
          << VecOpName(op) << ": " << v.name << " differs from portable";
    }
  }
  const size_t m = 65536 + 5;
  for (VecOp op : {VecOp::kAdds, VecOp::kSubs, VecOp::kMuls, VecOp::kDivs}) {
    for (double s : {1.75, -0.0, 6e-8, 65504.0, 1e9, std::numeric_limits<double>::quiet_NaN()}) {
      Scalar sc;
      sc.f = s;
      const half hs(static_cast<float>(s));
      std::vector<half> want;
      for (const Variant& v : Variants()) {
        std::vector<half> d(m);
        v.elementwise(op, DType::kF16, d.data(), a.data(), nullptr, sc, m);
        for (size_t i = 0; i < m; ++i) {
          if (!ref::SameValue(d[i], ref::Apply<half>(op, a[i], zero, hs))) {
            ADD_FAILURE() << VecOpName(op) << " " << v.name << ": bits " << a[i].bits << " op "
                          << s << " gave " << d[i].bits;
            break;
          }
        }
        // TODO: compare the bits for a NaN scalar too once a NaN element and a NaN scalar give
        // the same NaN on every ISA: Adds/Muls return the element's on the portable path and
        // the scalar's on the vector paths (the operand order the compiler picks).
        if (s != s) continue;
        if (want.empty()) {
          want = d;
          continue;
        }
        EXPECT_EQ(std::memcmp(d.data(), want.data(), m * 2), 0)
            << VecOpName(op) << " " << s << ": " << v.name << " differs from portable";
      }
    }
  }
}

// The count-form reductions as Note [Reduce semantics] defines them, written out plainly.
float TreeSumRef(const float* x, size_t n) {
  float total = 0.0f;
  for (size_t r = 0; r < n; r += 64) {
    std::vector<float> v(64, 0.0f);
    for (size_t e = 0; e < 64 && r + e < n; ++e) v[e] = x[r + e];
    for (size_t w = 32; w >= 1; w /= 2) {
      for (size_t i = 0; i < w; ++i) v[i] = v[2 * i] + v[2 * i + 1];
    }
    total += v[0];
  }
  return total;
}
float ExtremeRef(bool max, const float* x, size_t n) {
  float best = std::numeric_limits<float>::quiet_NaN();
  bool have = false;
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) continue;
    if (!have || (max ? x[i] > best : x[i] < best)) best = x[i], have = true;
  }
  return have ? best : x[0];
}

TEST(EngineIsa, ReductionsMatchTheTreeAndAgreeBitForBit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> f(-1e4f, 1e4f);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int cases = 0;
  for (size_t n : {size_t{1}, size_t{15}, size_t{63}, size_t{64}, size_t{65}, size_t{1023},
                   size_t{1024}, size_t{1024 + 64 * 3 + 5}, size_t{5000}}) {
    // kind 0: random; 1: NaNs sprinkled; 2: all NaN; 3: max/min is a zero (-0 first);
    // 4: all -inf; 5: all +inf; 6: magnitudes that cancel.
    for (int kind = 0; kind < 7; ++kind) {
      std::vector<float> x(n + 1);
      for (float& v : x) v = f(rng);
      if (kind == 1) {
        for (size_t i = 0; i < x.size(); i += 7) x[i] = nan;
      } else if (kind == 2) {
        for (float& v : x) v = nan;
      } else if (kind == 3) {
        for (float& v : x) v = -std::fabs(v) - 1.0f;
        x[1 + n / 3] = -0.0f;
        x[1 + n / 2] = 0.0f;
      } else if (kind == 4 || kind == 5) {
        for (float& v : x) v = kind == 4 ? -inf : inf;
      } else if (kind == 6) {
        for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 ? 1e8f : -1e8f) + f(rng) * 1e-3f;
      }
      const float* src = x.data() + 1;  // unaligned
      const float want_sum = TreeSumRef(src, n);
      for (const Variant& v : Variants()) {
        EXPECT_EQ(std::bit_cast<uint32_t>(v.sum(src, n)), std::bit_cast<uint32_t>(want_sum))
            << v.name << " ReduceSumF32 n=" << n << " kind=" << kind;
        for (bool max : {true, false}) {
          const float want = ExtremeRef(max, src, n);
          const float got = v.extreme(max, src, n);
          EXPECT_TRUE(std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want) ||
                      (std::isnan(got) && std::isnan(want)))
              << v.name << (max ? " max" : " min") << " n=" << n << " kind=" << kind
              << ": got " << got << ", want " << want;
        }
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 0);
}

TEST(EngineIsa, BlockReductionsMatchTheBlockTreeAndAgreeBitForBit) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> f(-1e4f, 1e4f);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr size_t kRepeats = 37, kPitch = 80;  // floats; the source's repeats 80 apart
  std::vector<float> x(kRepeats * kPitch);
  for (size_t i = 0; i < x.size(); ++i) {
    // Per DataBlock (8 floats) a pattern: random, NaNs sprinkled, all NaN (with a payload), a
    // zero extreme (-0 first or +0 first), all -inf, all +inf, +-inf mixed with NaN.
    const size_t block = i / 8, e = i % 8;
    float v = f(rng);
    switch (block % 9) {
      case 1: v = e % 3 == 0 ? nan : v; break;
      case 2: v = std::bit_cast<float>(0x7fc00000u + static_cast<uint32_t>(block)); break;
      case 3: v = e == 2 ? -0.0f : (e == 5 ? 0.0f : -std::fabs(v) - 1.0f); break;
      case 4: v = e == 1 ? 0.0f : (e == 6 ? -0.0f : std::fabs(v) + 1.0f); break;
      case 5: v = -inf; break;
      case 6: v = inf; break;
      case 7: v = e % 2 ? nan : (e % 4 ? inf : -inf); break;
      default: break;
    }
    x[i] = v;
  }
  const BlockReduceOp ops[] = {BlockReduceOp::kMax, BlockReduceOp::kMin, BlockReduceOp::kSum};
  for (BlockReduceOp op : ops) {
    std::vector<uint32_t> want;
    for (size_t r = 0; r < kRepeats; ++r) {
      for (size_t k = 0; k < 8; ++k) {
        const float* b = x.data() + r * kPitch + 8 * k;
        float v;
        if (op == BlockReduceOp::kSum) {
          v = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
        } else {
          v = ExtremeRef(op == BlockReduceOp::kMax, b, 8);
        }
        want.push_back(std::bit_cast<uint32_t>(v));
      }
    }
    for (const Variant& v : Variants()) {
      // Results 16 floats apart (dstRepStride 2); the gaps keep their sentinel.
      std::vector<float> out(kRepeats * 16, -7.0f);
      v.block_reduce(op, out.data(), 16 * sizeof(float), x.data(), kPitch * sizeof(float),
                     kRepeats);
      for (size_t r = 0; r < kRepeats; ++r) {
        for (size_t k = 0; k < 16; ++k) {
          const uint32_t got = std::bit_cast<uint32_t>(out[r * 16 + k]);
          const uint32_t expect = k < 8 ? want[r * 8 + k] : std::bit_cast<uint32_t>(-7.0f);
          EXPECT_EQ(got, expect) << v.name << " op " << static_cast<int>(op) << " repeat " << r
                                 << " block " << k;
        }
      }
      // In place, results over the source: each repeat is read before it is written.
      std::vector<float> in_place = x;
      v.block_reduce(op, in_place.data(), kPitch * sizeof(float), in_place.data(),
                     kPitch * sizeof(float), kRepeats);
      for (size_t r = 0; r < kRepeats; ++r) {
        for (size_t k = 0; k < 8; ++k) {
          EXPECT_EQ(std::bit_cast<uint32_t>(in_place[r * kPitch + k]), want[r * 8 + k])
              << v.name << " in place, op " << static_cast<int>(op) << " repeat " << r;
        }
      }
    }
  }
}

// ElementwiseRows equals one Elementwise call per run (the portable one), a repeated DataBlock
// spread over the run first, for every ISA; in place and with tails too.
TEST(EngineIsa, RowsMatchOneCallPerRunWithBlocksSpread) {
  std::mt19937 rng(23);
  const VecOp ops[] = {VecOp::kAdd, VecOp::kSub, VecOp::kMul, VecOp::kDiv,
                       VecOp::kMax, VecOp::kMin, VecOp::kExp, VecOp::kAdds};
  for (DType dt : {DType::kF32, DType::kF16, DType::kI32}) {
    const size_t es = DTypeSize(dt), per_repeat = 256 / es;
    for (VecOp op : ops) {
      if (!VecOpSupports(op, dt)) continue;
      for (size_t n : {per_repeat, per_repeat - 3, size_t{5}}) {
        for (unsigned block : {0u, 2u, 4u}) {
          for (bool in_place : {false, true}) {
            constexpr size_t kRows = 9;
            const uint64_t pitch[3] = {320, in_place ? 320u : 288u, block == 4 ? 32u : 352u};
            std::vector<uint8_t> a = RandomBytes(dt, kRows * 352 / es + 64, rng);
            std::vector<uint8_t> b = RandomBytes(dt, kRows * 352 / es + 64, rng);
            std::vector<uint8_t> want(kRows * 320 + 256, 0xab);
            Scalar sc;
            sc.f = 1.75;
            sc.i = 3;
            // The reference: spread each block, then one portable call per run.
            for (size_t r = 0; r < kRows; ++r) {
              std::vector<uint8_t> x(256), y(256);
              const uint8_t* pa = (in_place ? want.data() : a.data()) + r * pitch[1];
              const uint8_t* pb = b.data() + r * pitch[2];
              if (in_place) std::memcpy(want.data() + r * 320, a.data() + r * 288, 256);
              if (block == 2) {
                for (size_t o = 0; o < 256; o += 32) std::memcpy(x.data() + o, pa, 32);
                pa = x.data();
              }
              if (block == 4) {
                for (size_t o = 0; o < 256; o += 32) std::memcpy(y.data() + o, pb, 32);
                pb = y.data();
              }
              isa_portable::Elementwise(op, dt, want.data() + r * 320, pa, pb, sc, n);
            }
            for (const Variant& v : Variants()) {
              std::vector<uint8_t> got(want.size(), 0xab);
              if (in_place) {
                for (size_t r = 0; r < kRows; ++r) {
                  std::memcpy(got.data() + r * 320, a.data() + r * 288, 256);
                }
              }
              v.rows(op, dt, got.data(), in_place ? got.data() : a.data(), b.data(), sc, n, kRows,
                     pitch, block);
              EXPECT_EQ(got, want) << v.name << " " << VecOpName(op) << " " << DTypeName(dt)
                                   << " n=" << n << " block=" << block << " in_place=" << in_place;
            }
          }
        }
      }
    }
  }
}

TEST(EngineIsa, ZeroLengthIsANoOp) {
  float d = 1.0f;
  Elementwise(VecOp::kAdd, DType::kF32, &d, nullptr, nullptr, {}, 0);
  Cast(DType::kF16, DType::kF32, Round::kRint, &d, nullptr, 0);
  EXPECT_EQ(d, 1.0f);
}

}  // namespace
}  // namespace aicore::kernel::engine
