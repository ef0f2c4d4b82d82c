// The packed GEMM (Note [Packed GEMM]) against a scalar fma chain, bit for bit: every row tail
// (1..7 rows past a multiple of 8), column tail (1..47 columns past a multiple of 48: each of the
// 1-, 2- and 3-vector tiles, and the last 49..64 columns split into two 2-vector panels), k tail
// (1..3 steps past a multiple of 4), k longer than one cache block, more rows than one A block
// and more columns than one B block; A and B in both orientations, fp16 inputs, a bias, a C
// inside a wider matrix whose other columns stay untouched, and the whole-block packing of a B
// that other blocks share. bf16 inputs (Note [Packed GEMM bf16]) on both kernels: widened to fp32
// (bit for bit the fma chain) and, where the host has AMX-BF16, on AMX tiles (within the summation
// tolerance), over tails in every dimension, k = 1, primes and several cache blocks.
#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "aicore/core/dtype.h"

namespace {

using aicore::half;
using aicore::kernel::cube::GemmIn;
using aicore::kernel::cube::GemmJob;
using aicore::kernel::cube::RunPackedGemm;

struct Case {
  uint32_t m, n, k;
  bool trans_a = false, trans_b = false, bias = false, f16 = false;
  uint32_t c_pad = 0;  // extra columns of C beyond n (ldc = n + c_pad)
  // GemmJob::cache_a/cache_b: outside a launch the blocks are packed into scratch either way,
  // but a row-major B with cache_b is packed a whole block at a time (PackBBlockRows).
  bool cache_a = false, cache_b = false;
  bool bf16 = false;  // bf16 inputs (f16 false)
};

// Random values in [-1, 1), exact in the input type (fp16 when f16, bf16 when bf16).
std::vector<float> Random(size_t count, uint32_t seed, bool f16, bool bf16 = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) {
    x = u(rng);
    if (f16) x = static_cast<float>(half(x));
    if (bf16) x = static_cast<float>(aicore::bfloat16(x));
  }
  return v;
}

// Runs `c` through RunPackedGemm and returns C (m rows of ldc floats, the padding columns
// pre-filled with a marker).
std::vector<float> Run(const Case& t, const std::vector<float>& a, const std::vector<float>& b,
                       const std::vector<float>& bias) {
  // A (m, k) row-major, or stored transposed (k, m); B (k, n) row-major, or stored (n, k).
  const int64_t a_rs = t.trans_a ? 1 : t.k, a_cs = t.trans_a ? t.m : 1;
  const int64_t b_rs = t.trans_b ? 1 : t.n, b_cs = t.trans_b ? t.k : 1;
  std::vector<float> sa(a.size()), sb(b.size());
  for (uint32_t i = 0; i < t.m; ++i)
    for (uint32_t p = 0; p < t.k; ++p) sa[i * a_rs + p * a_cs] = a[size_t{i} * t.k + p];
  for (uint32_t p = 0; p < t.k; ++p)
    for (uint32_t j = 0; j < t.n; ++j) sb[p * b_rs + j * b_cs] = b[size_t{p} * t.n + j];
  std::vector<half> ha(sa.begin(), sa.end()), hb(sb.begin(), sb.end());
  std::vector<aicore::bfloat16> ba(sa.begin(), sa.end()), bb(sb.begin(), sb.end());
  const int64_t ldc = t.n + t.c_pad;
  std::vector<float> c(size_t{t.m} * ldc, 12345.0f);
  GemmJob j;
  j.type = t.f16 ? GemmIn::kF16 : t.bf16 ? GemmIn::kBf16 : GemmIn::kF32;
  j.m = t.m;
  j.n = t.n;
  j.k = t.k;
  j.a = t.f16 ? static_cast<const void*>(ha.data()) : t.bf16 ? static_cast<const void*>(ba.data()) : sa.data();
  j.a_rs = a_rs;
  j.a_cs = a_cs;
  j.b = t.f16 ? static_cast<const void*>(hb.data()) : t.bf16 ? static_cast<const void*>(bb.data()) : sb.data();
  j.b_rs = b_rs;
  j.b_cs = b_cs;
  j.c = c.data();
  j.ldc = ldc;
  j.bias = t.bias ? bias.data() : nullptr;
  j.cache_a = t.cache_a;
  j.cache_b = t.cache_b;
  RunPackedGemm(j);
  return c;
}

void Check(const Case& t) {
  SCOPED_TRACE(::testing::Message() << t.m << "x" << t.n << "x" << t.k << " trans_a " << t.trans_a
                                    << " trans_b " << t.trans_b << " bias " << t.bias << " f16 "
                                    << t.f16 << " c_pad " << t.c_pad << " cache_a " << t.cache_a
                                    << " cache_b " << t.cache_b << " bf16 " << t.bf16);
  const std::vector<float> a = Random(size_t{t.m} * t.k, 1 + t.m + 7 * t.k, t.f16, t.bf16);
  const std::vector<float> b = Random(size_t{t.k} * t.n, 2 + t.n + 5 * t.k, t.f16, t.bf16);
  // The AMX kernel sums k-pairs (Note [Packed GEMM bf16]): it is checked against the exact sum
  // within (K+2) * 2^-24 * (|C0| + sum|a*b|); every other kernel is the fma chain, bit for bit.
  const bool amx = t.bf16 && aicore::kernel::cube::PackedGemmBf16Amx();
  const std::vector<float> bias = Random(t.n, 3 + t.n, false);
  const std::vector<float> c = Run(t, a, b, bias);
  const int64_t ldc = t.n + t.c_pad;
  int bad = 0;
  for (uint32_t i = 0; i < t.m && bad < 5; ++i) {
    for (uint32_t j = 0; j < t.n + t.c_pad && bad < 5; ++j) {
      float want = 12345.0f;  // padding columns are not written
      if (j < t.n) {
        want = t.bias ? bias[j] : 0.0f;
        for (uint32_t p = 0; p < t.k; ++p)
          want = std::fma(a[size_t{i} * t.k + p], b[size_t{p} * t.n + j], want);
      }
      const float got = c[i * ldc + j];
      if (amx && j < t.n) {
        double exact = t.bias ? bias[j] : 0.0, mag = std::fabs(exact);
        for (uint32_t p = 0; p < t.k; ++p) {
          const double prod = double{a[size_t{i} * t.k + p]} * b[size_t{p} * t.n + j];
          exact += prod;
          mag += std::fabs(prod);
        }
        const double tol = (t.k + 2) * std::ldexp(1.0, -24) * mag;
        if (!(std::fabs(got - exact) <= tol)) {
          ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", the exact sum is "
                        << exact << " (tolerance " << tol << ")";
          ++bad;
        }
        continue;
      }
      if (std::memcmp(&got, &want, sizeof(float)) != 0) {
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", the fma chain gives "
                      << want;
        ++bad;
      }
    }
  }
}

class PackedGemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!aicore::kernel::cube::PackedGemmAvailable()) {
      GTEST_SKIP() << "no packed GEMM on this host's ISA";
    }
  }
};

TEST_F(PackedGemmTest, EveryRowColumnAndKTail) {
  // Rows 1..17 (each tail of the 8-row tile, one and two full tiles), columns across the 16-,
  // 32- and 48-column tiles and their tails, k 1..9 (each remainder of 4).
  for (uint32_t m : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 15u, 16u, 17u}) {
    for (uint32_t n :
         {1u, 15u, 16u, 17u, 31u, 32u, 33u, 47u, 48u, 49u, 64u, 95u, 97u, 112u, 143u}) {
      for (uint32_t k : {1u, 4u, 6u, 9u}) Check({m, n, k});
    }
  }
  for (uint32_t k : {2u, 3u, 5u, 7u, 8u, 11u, 12u, 13u}) Check({9, 49, k});
}

TEST_F(PackedGemmTest, SeveralCacheBlocksInEachDimension) {
  // k past one k block (C reloaded between blocks), m past one A block, n past one B block.
  Check({24, 96, 128});
  Check({11, 49, 129});
  Check({24, 96, 256});
  Check({17, 50, 257});
  Check({8, 48, 515});
  Check({33, 100, 771});
  Check({16, 64, 1031});
  Check({130, 60, 40});
  Check({200, 60, 40});
  Check({257, 20, 9});
  Check({401, 17, 3});
  Check({9, 3100, 5});
  Check({3, 3073, 3});
}

TEST_F(PackedGemmTest, BothOrientationsFp16BiasAndAWiderC) {
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      for (bool f16 : {false, true}) {
        Check({19, 70, 261, trans_a, trans_b, false, f16});
        Check({8, 33, 7, trans_a, trans_b, true, f16});
        Check({13, 100, 9, trans_a, trans_b, true, f16, 5});
      }
    }
  }
  Check({16, 48, 300, false, false, true, false, 17});
  Check({7, 17, 259, true, true, true, true, 3});
}

TEST_F(PackedGemmTest, WholeBlockBPackingForASharedB) {
  // cache_b with a row-major B packs each B block whole, row by row, into panels cut as the
  // panel-by-panel packing cuts them (48 columns, the last 49..64 as 32 + 17..32): every column
  // tail, k past one k block, n past one n block, m past one m block, fp16, a bias, a wider C,
  // and cache_a set too. A transposed B takes the panel-by-panel packing as before.
  for (uint32_t n : {1u, 16u, 17u, 33u, 48u, 49u, 64u, 65u, 97u, 112u, 113u, 176u, 256u}) {
    Check({9, n, 7, false, false, false, false, 0, false, true});
  }
  for (bool f16 : {false, true}) {
    Check({17, 70, 515, false, false, true, f16, 3, true, true});
    Check({13, 3100, 5, true, false, false, f16, 0, false, true});
    Check({200, 50, 33, false, true, true, f16, 0, true, true});
  }
  Check({1, 1, 1, false, false, false, false, 0, true, true});
  Check({3, 3073, 1031, false, false, true, false, 2, false, true});
}

// Runs `body` with the AMX bf16 kernel allowed (when the host has it) and with it forbidden.
template <typename F>
void OnBothBf16Kernels(F body) {
  for (bool amx : {true, false}) {
    SCOPED_TRACE(amx ? "AMX allowed" : "AMX forbidden");
    aicore::kernel::cube::SetPackedGemmBf16Amx(amx);
    if (!amx) {
      EXPECT_FALSE(aicore::kernel::cube::PackedGemmBf16Amx());
    }
    body();
  }
  aicore::kernel::cube::SetPackedGemmBf16Amx(true);
}

TEST_F(PackedGemmTest, Bf16EveryTailOnBothKernels) {
  // AMX tiles are 16 x 16 of C over 32 k: rows and columns 1..16 past a tile and a 2 x 2 block,
  // k 1, primes, 31..33 and more than one 512-deep k block, more rows than one 256-row A block
  // and more columns than one 1024-column B block.
  OnBothBf16Kernels([] {
    for (uint32_t m : {1u, 7u, 15u, 16u, 17u, 31u, 32u, 33u, 47u}) {
      for (uint32_t n : {1u, 13u, 16u, 17u, 32u, 33u, 49u, 64u, 65u}) {
        for (uint32_t k : {1u, 2u, 31u, 33u}) {
          Case c{m, n, k};
          c.bf16 = true;
          Check(c);
        }
      }
    }
    for (Case c : {Case{37, 41, 541}, Case{16, 32, 1024}, Case{3, 5, 1031}, Case{260, 20, 64},
                   Case{17, 1030, 7}, Case{64, 64, 512}}) {
      c.bf16 = true;
      Check(c);
    }
  });
}

TEST_F(PackedGemmTest, Bf16OrientationsBiasWiderCAndSharedBlocks) {
  OnBothBf16Kernels([] {
    for (bool trans_a : {false, true}) {
      for (bool trans_b : {false, true}) {
        for (bool bias : {false, true}) {
          Case c{19, 70, 261, trans_a, trans_b, bias};
          c.bf16 = true;
          Check(c);
          c = Case{13, 33, 9, trans_a, trans_b, bias, false, 5, true, true};
          c.bf16 = true;
          Check(c);
        }
      }
    }
    Case c{33, 100, 600, false, false, true, false, 3, true, true};
    c.bf16 = true;
    Check(c);
  });
}

}  // namespace
