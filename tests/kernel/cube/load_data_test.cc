// LoadData (2-D) and LoadDataWithTranspose: documented Zz/Zn/Nz fractals in L1 or GM land in
// L0A/L0B so that every logical element reads back through l0_layout.h (AIndex/BIndex); 16-bit
// transposes, the 32- and 8-bit square transposes, startIndex/srcStride/dstGap/addrMode,
// repeatTimes 0, GM sources, the funnel records and the errors.
#include "aicore/kernel/cube/load_data.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "aicore/kernel/cube/l0_layout.h"
#include "tests/kernel/cube/cube_test_util.h"
#include "tests/reference/fractal_ref.h"

namespace {

namespace l0 = AscendC::detail::l0;
using aicore::bfloat16;
using aicore::half;
using aicore::testing::Carve;
using aicore::testing::Fill;
using aicore::testing::InstrLog;
using aicore::testing::Read;
using aicore::testing::RunOnAic;
using AscendC::TPosition;
using ::testing::HasSubstr;

// Distinct values per element (bit patterns, so NaN-free for floats: small integers).
template <typename T>
std::vector<T> Iota(size_t n, int start = 1) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int x = static_cast<int>((i * 7 + start) % 251) - 120;
    v[i] = static_cast<T>(static_cast<float>(x));
  }
  return v;
}

template <typename T>
bool Same(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Runs body(l1, l0a, l0b) with 32 KB of A1, L0A and L0B each, as elements of T.
template <typename T, typename Body>
aicore::Status WithBuffers(Body&& body) {
  return RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    constexpr uint32_t kElems = 32768 / sizeof(T);
    body(Carve<T>(pipe, a1, kElems), Carve<T>(pipe, a2, kElems), Carve<T>(pipe, b2, kElems));
  });
}

template <typename T>
class LoadDataTest : public ::testing::Test {};
using LoadTypes = ::testing::Types<float, half, bfloat16, int8_t, int32_t, int16_t>;
TYPED_TEST_SUITE(LoadDataTest, LoadTypes);

// A(M, K) as Zz and B(K, N) as Zn in L1, one LoadData each: every logical element arrives.
TYPED_TEST(LoadDataTest, ZzToL0aAndZnToL0bKeepEveryElement) {
  using T = TypeParam;
  const uint32_t k0 = l0::kK0<T>;
  for (auto [rows, cols] :
       {std::pair<uint32_t, uint32_t>{1, 1}, {16, k0}, {17, 3 * k0 + 1}, {40, 2 * k0}}) {
    const auto nd = Iota<T>(size_t{rows} * cols);
    const auto zz = aicore::ref::NdToZz(nd.data(), rows, cols, cols);
    const uint32_t k1 = (cols + k0 - 1) / k0;
    // B(K = rows, N = cols): as Zn with N1 = ceil(cols / 16).
    const auto zn = aicore::ref::NdToZn(nd.data(), rows, cols, cols);
    const uint32_t n1 = (cols + 15) / 16;
    std::vector<T> got_a, got_b;
    const auto st = WithBuffers<T>([&](auto l1, auto a, auto b) {
      Fill(l1, zz);
      AscendC::LoadData2DParams p;
      p.repeatTimes = static_cast<uint8_t>(zz.size() * sizeof(T) / 512);
      p.srcStride = 1;
      AscendC::LoadData(a, l1, p);
      got_a = Read(a, zz.size());
      Fill(l1, zn);
      p.repeatTimes = static_cast<uint8_t>(zn.size() * sizeof(T) / 512);
      AscendC::LoadData(b, l1, p);
      got_b = Read(b, zn.size());
    });
    ASSERT_TRUE(st.ok()) << st.message();
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < cols; ++c) {
        ASSERT_TRUE(Same(got_a[l0::AIndex<T>(r, c, k1)], nd[r * cols + c]))
            << "A(" << r << ", " << c << ") of " << rows << "x" << cols;
        ASSERT_TRUE(Same(got_b[l0::BIndex<T>(r, c, n1)], nd[r * cols + c]))
            << "B(" << r << ", " << c << ") of " << rows << "x" << cols;
      }
    }
  }
}

// startIndex, srcStride (0 repeats), dstGap and addrMode 1 place whole fractals as documented.
TYPED_TEST(LoadDataTest, StartStrideGapAndDescendingSource) {
  using T = TypeParam;
  constexpr uint32_t kFrac = 512 / sizeof(T);
  const auto src = Iota<T>(16 * kFrac);
  struct Case {
    uint16_t start;
    uint8_t repeat;
    uint16_t stride, gap;
    uint8_t mode;
  };
  for (const Case& c : {Case{2, 3, 1, 0, 0}, Case{1, 4, 3, 2, 0}, Case{5, 3, 0, 1, 0},
                        Case{9, 4, 2, 0, 1}, Case{0, 1, 7, 5, 0}}) {
    std::vector<T> got;
    const auto st = WithBuffers<T>([&](auto l1, auto a, auto) {
      Fill(l1, src);
      std::vector<T> zeros(32768 / sizeof(T), T{});
      Fill(a, zeros);
      AscendC::LoadData(
          a, l1, AscendC::LoadData2DParams(c.start, c.repeat, c.stride, 0, c.gap, false, c.mode));
      got = Read(a, 32768 / sizeof(T));
    });
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<T> want(got.size(), T{});
    for (uint32_t i = 0; i < c.repeat; ++i) {
      const int s = c.mode ? c.start - int(i) * c.stride : c.start + int(i) * c.stride;
      std::memcpy(&want[i * (1 + c.gap) * kFrac], &src[s * kFrac], 512);
    }
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(T)), 0)
        << "start " << c.start << " repeat " << int(c.repeat) << " stride " << c.stride << " gap "
        << c.gap << " mode " << int(c.mode);
  }
}

TYPED_TEST(LoadDataTest, RepeatTimesZeroIsANoOp) {
  using T = TypeParam;
  InstrLog log;
  std::vector<T> got;
  const auto st = WithBuffers<T>([&](auto l1, auto a, auto) {
    Fill(l1, Iota<T>(256));
    Fill(a, std::vector<T>(256, T{}));
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams{});
    got = Read(a, 256);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  const std::vector<T> zeros(256, T{});
  EXPECT_EQ(std::memcmp(got.data(), zeros.data(), 256 * sizeof(T)), 0);
  EXPECT_TRUE(log.Of("LoadData").empty());
}

// ifTranspose (16-bit): B(K, N) in L1 as Nz (16 k-rows x 16 n-columns per fractal) becomes Zn.
template <typename T>
void CheckB16Transpose() {
  const uint32_t K = 48, N = 32;  // K1 = 3, N1 = 2
  const auto nd = Iota<T>(K * N, 5);
  // Nz of the K x N matrix: fractal (k1, n1) at n1 * K1 + k1, raw 16 x 16 row-major (k, n).
  const auto nz = aicore::ref::NdToNz(nd.data(), K, N, N, 16);
  std::vector<T> got_b, got_a;
  const auto st = WithBuffers<T>([&](auto l1, auto a, auto b) {
    Fill(l1, nz);
    // Zn wants fractal (k1, n1) at k1 * N1 + n1: one LoadData per k1, stride K1 over n1.
    for (uint16_t k1 = 0; k1 < 3; ++k1) {
      AscendC::LoadData(b[k1 * 2 * 256], l1, AscendC::LoadData2DParams(k1, 2, 3, 0, 0, true, 0));
    }
    got_b = Read(b, K * N);
    // The same fractals transposed into L0A: A = B^T (N x K) as Zz with K1 = 3.
    for (uint16_t n1 = 0; n1 < 2; ++n1) {
      AscendC::LoadData(a[n1 * 3 * 256], l1,
                        AscendC::LoadData2DParams(n1 * 3, 3, 1, 0, 0, true, 0));
    }
    got_a = Read(a, K * N);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t k = 0; k < K; ++k) {
    for (uint32_t n = 0; n < N; ++n) {
      ASSERT_TRUE(Same(got_b[l0::BIndex<T>(k, n, 2)], nd[k * N + n]))
          << "B(" << k << ", " << n << ")";
      ASSERT_TRUE(Same(got_a[l0::AIndex<T>(n, k, 3)], nd[k * N + n]))
          << "A(" << n << ", " << k << ")";
    }
  }
}

TEST(LoadDataTranspose, Half) { CheckB16Transpose<half>(); }
TEST(LoadDataTranspose, Bfloat16) { CheckB16Transpose<bfloat16>(); }
TEST(LoadDataTranspose, Int16) { CheckB16Transpose<int16_t>(); }

// LoadDataWithTranspose on 16-bit types equals LoadData with ifTranspose.
TEST(LoadDataTranspose, WithTransposeMatchesIfTransposeForHalf) {
  const auto src = Iota<half>(4 * 256, 3);
  std::vector<half> x, y;
  const auto st = WithBuffers<half>([&](auto l1, auto a, auto b) {
    Fill(l1, src);
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams(1, 3, 1, 0, 0, true, 0));
    AscendC::LoadDataWithTranspose(b, l1, AscendC::LoadData2dTransposeParams(1, 3, 1, 0, 0));
    x = Read(a, 768);
    y = Read(b.template ReinterpretCast<half>(), 768);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  // a holds Zz (documented = raw); b holds k-major Zn: raw transposed back per fractal.
  for (uint32_t f = 0; f < 3; ++f)
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < 16; ++c)
        ASSERT_TRUE(Same(x[f * 256 + r * 16 + c], src[(1 + f) * 256 + c * 16 + r]));
  for (uint32_t f = 0; f < 3; ++f)
    for (uint32_t i = 0; i < 256; ++i) ASSERT_TRUE(Same(y[f * 256 + i], src[(1 + f) * 256 + i]));
}

// fp32 B(K = 16, N = 16) in L1 as two side-by-side 16 x 8 fractals (k rows, n columns) becomes
// the two Zn fractals (k 0-7 and k 8-15) of L0B, dstFracGap apart.
TEST(LoadDataTranspose, Float32SquareIntoZn) {
  const uint32_t K = 16, N = 32;  // two squares along n
  const auto nd = Iota<float>(K * N, 9);
  // Source: square j (n 16j..16j+15) = F0 (n 0-7) then F1 (n 8-15), each raw 16 k x 8 n.
  std::vector<float> src(K * N);
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n) src[(n / 8) * 128 + k * 8 + n % 8] = nd[k * N + n];
  std::vector<float> got;
  const auto st = WithBuffers<float>([&](auto l1, auto, auto b) {
    Fill(l1, src);
    // Zn with N1 = 2: fractal (k1, n1) at k1 * 2 + n1. Square j -> fractals (0, j) and (1, j).
    AscendC::LoadDataWithTranspose(b, l1, AscendC::LoadData2dTransposeParams(0, 2, 1, 0, 1));
    got = Read(b, K * N);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n)
      ASSERT_EQ(got[l0::BIndex<float>(k, n, 2)], nd[k * N + n]) << "B(" << k << ", " << n << ")";
}

// The same fp32 square into L0A gives A = B^T (16 x 16) as Zz with K1 = 2: A(n, k) = B(k, n).
TEST(LoadDataTranspose, Float32SquareIntoZz) {
  const uint32_t K = 16, N = 16;
  const auto nd = Iota<float>(K * N, 11);
  std::vector<float> src(K * N);
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n) src[(n / 8) * 128 + k * 8 + n % 8] = nd[k * N + n];
  std::vector<float> got;
  const auto st = WithBuffers<float>([&](auto l1, auto a, auto) {
    Fill(l1, src);
    AscendC::LoadDataWithTranspose(a, l1, AscendC::LoadData2dTransposeParams(0, 1, 1, 0, 0));
    got = Read(a, K * N);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n)
      ASSERT_EQ(got[l0::AIndex<float>(n, k, 2)], nd[k * N + n]) << "A(" << n << ", " << k << ")";
}

// int8 B(K = 32, N = 32) in L1 as Nz (two stacked 16 x 32 fractals, k rows) becomes the two Zn
// fractals (n 0-15, n 16-31) of L0B.
TEST(LoadDataTranspose, Int8SquareIntoZn) {
  const uint32_t K = 32, N = 32;
  const auto nd = Iota<int8_t>(K * N, 2);
  const auto nz = aicore::ref::NdToNz(nd.data(), K, N, N, 32);  // fractals k 0-15, k 16-31
  std::vector<int8_t> got;
  const auto st = WithBuffers<int8_t>([&](auto l1, auto, auto b) {
    Fill(l1, nz);
    AscendC::LoadDataWithTranspose(b, l1, AscendC::LoadData2dTransposeParams(0, 1, 1, 0, 0));
    got = Read(b, K * N);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n)
      ASSERT_EQ(got[l0::BIndex<int8_t>(k, n, 2)], nd[k * N + n]) << "B(" << k << ", " << n << ")";
}

// GM sources: GM -> A2 (MTE2) and GM -> A1 (a plain fractal copy into L1).
TEST(LoadDataGm, IntoL0aAndL1) {
  const auto src = Iota<float>(6 * 128, 4);
  InstrLog log;
  std::vector<float> got_a, got_l1;
  const auto st = WithBuffers<float>([&](auto l1, auto a, auto b) {
    AscendC::GlobalTensor<float> gm;
    gm.SetGlobalBuffer(const_cast<float*>(src.data()), static_cast<uint32_t>(src.size()));
    AscendC::LoadData(a, gm, AscendC::LoadData2DParams(1, 2, 2, 0, 1, false, 0));
    AscendC::LoadData(l1, gm, AscendC::LoadData2DParams(0, 6, 1, 0, 0, false, 0));
    AscendC::LoadData(b, l1, AscendC::LoadData2DParams(0, 1, 1, 0, 0, false, 0));
    got_a = Read(a, 4 * 128);
    got_l1 = Read(l1, 6 * 128);
  });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(std::memcmp(got_a.data(), &src[128], 512), 0);
  EXPECT_EQ(std::memcmp(&got_a[256], &src[3 * 128], 512), 0);
  EXPECT_EQ(got_l1, src);
  const auto recs = log.Of("LoadData");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].pipe, aicore::sim::Pipe::kMte2);
  EXPECT_EQ(recs[0].dst.buffer, aicore::arch::Buffer::kL0A);
  EXPECT_EQ(recs[0].dst_stride.blocks, 2u);
  EXPECT_EQ(recs[0].dst_stride.stride_bytes, 1024u);
  EXPECT_EQ(recs[0].dst.bytes, 1024u + 512u);
  EXPECT_EQ(recs[0].src[0].bytes, 3u * 512u);
  EXPECT_EQ(recs[1].pipe, aicore::sim::Pipe::kMte2);
  EXPECT_EQ(recs[1].dst.buffer, aicore::arch::Buffer::kL1);
  EXPECT_EQ(recs[2].pipe, aicore::sim::Pipe::kMte1);
  EXPECT_EQ(recs[2].dst.buffer, aicore::arch::Buffer::kL0B);
  EXPECT_EQ(recs[2].src[0].buffer, aicore::arch::Buffer::kL1);
}

// --- Errors ---------------------------------------------------------------------------------

TEST(LoadDataErrors, TransposeRules) {
  auto st = WithBuffers<float>([](auto l1, auto a, auto) {
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams(0, 1, 1, 0, 0, true, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("ifTranspose is documented for 16-bit types only, got "
                                      "4-byte float elements; use LoadDataWithTranspose"));
  st = WithBuffers<half>([](auto l1, auto, auto) {
    std::vector<half> host(256);
    AscendC::GlobalTensor<half> gm;
    gm.SetGlobalBuffer(host.data(), 256);
    AscendC::LoadData(l1, gm, AscendC::LoadData2DParams(0, 1, 1, 0, 0, true, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("ifTranspose is documented for the L1 -> L0A/L0B paths"));
}

TEST(LoadDataErrors, PositionsAlignmentAndSizes) {
  auto st = WithBuffers<half>([](auto l1, auto, auto) {
    AscendC::LoadData(l1, l1, AscendC::LoadData2DParams(0, 1, 1, 0, 0, false, 0));
  });
  EXPECT_THAT(
      st.message(),
      HasSubstr("dst is a A1 tensor in L1; LoadData writes A2 (L0A) or B2 (L0B) from A1/B1"));
  st = WithBuffers<half>([](auto l1, auto a, auto) {
    AscendC::LoadData(a[16], l1, AscendC::LoadData2DParams(0, 1, 1, 0, 0, false, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("dst starts at L0A offset 32, not on a 512-byte fractal"));
  st = WithBuffers<half>([](auto l1, auto a, auto) {
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams(0, 65, 1, 0, 0, false, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("dst LocalTensor: the copy reaches byte 33280"));
  st = WithBuffers<half>([](auto l1, auto a, auto) {
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams(60, 5, 1, 0, 0, false, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("src LocalTensor: the copy reaches byte 33280"));
  st = WithBuffers<half>([](auto l1, auto a, auto) {
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams(2, 4, 1, 0, 0, false, 1));
  });
  EXPECT_THAT(st.message(), HasSubstr("addrMode 1 (descending) from startIndex 2 with srcStride 1 "
                                      "and repeatTimes 4 reaches source unit -1"));
  st = WithBuffers<half>([](auto l1, auto a, auto) {
    AscendC::LoadData(a, l1, AscendC::LoadData2DParams(0, 1, 1, 0, 0, false, 2));
  });
  EXPECT_THAT(st.message(), HasSubstr("addrMode 2 is not 0 (ascending) or 1 (descending)"));
  st = WithBuffers<half>([](auto l1, auto a, auto) {
    AscendC::LoadDataWithTranspose(l1, a, AscendC::LoadData2dTransposeParams(0, 1, 1, 0, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("LoadDataWithTranspose: dst is a A1 tensor in L1"));
}

}  // namespace
