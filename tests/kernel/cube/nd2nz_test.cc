// DataCopy GM -> L1 with Nd2NzParams against tests/reference/fractal_ref.h (Nd2NzRef and the
// whole-matrix NdToNz) over shapes with tails (1x1, 15x17, 33x100, ...), several matrices,
// strides, every element size, the UB destination, the funnel record and the error cases.
#include "aicore/kernel/cube/nd2nz.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/kernel/cube/cube_test_util.h"
#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/fractal_ref.h"

namespace {

using aicore::ref::K0Of;
using aicore::ref::RoundUpRef;
using aicore::testing::Carve;
using aicore::testing::Fill;
using aicore::testing::InstrLog;
using aicore::testing::RandomValues;
using aicore::testing::Read;
using aicore::testing::RunOnAic;
using AscendC::TPosition;
using ::testing::HasSubstr;

template <typename T>
class Nd2NzTest : public ::testing::Test {};
using Nd2NzTypes = ::testing::Types<aicore::half, aicore::bfloat16, float, int8_t, uint8_t, int16_t,
                                    int32_t, uint32_t>;
TYPED_TEST_SUITE(Nd2NzTest, Nd2NzTypes);

struct Case {
  uint16_t nd, n, d, src_matrix, src_d, c0_stride, n_stride, dst_matrix;
};

// Cases in elements of T: single matrices with tails and row pitches, several matrices (packed,
// gapped, repeated), and row/column strides in the destination.
template <typename T>
std::vector<Case> Cases() {
  const uint16_t k0 = K0Of<T>();
  auto one = [](uint16_t n, uint16_t d, uint16_t pitch) {
    return Case{1, n, d, 0, pitch, static_cast<uint16_t>(RoundUpRef(n, 16)), 1, 0};
  };
  std::vector<Case> cs = {one(1, 1, 1),      one(15, 17, 17),  one(16, 16, 16),
                          one(33, 100, 100), one(16, k0, k0),  one(7, 3 * k0 + 1, 3 * k0 + 9),
                          one(64, 256, 300), one(128, 40, 40), one(2, 1, 5)};
  // Two and three matrices, packed in the destination one after another.
  const uint16_t mat = static_cast<uint16_t>(RoundUpRef(20, 16) * RoundUpRef(23, k0));
  cs.push_back({2, 20, 23, 20 * 30, 30, 32, 1, mat});
  cs.push_back({3, 5, 9, 5 * 9, 9, 16, 1, static_cast<uint16_t>(16 * RoundUpRef(9, k0))});
  // srcNdMatrixStride = 0 repeats the first matrix; a gap between destination matrices.
  const auto d2 = static_cast<uint16_t>(2 * k0);
  cs.push_back({2, 8, d2, 0, d2, 16, 1, static_cast<uint16_t>(16 * d2 + 4 * k0)});
  // Destination row stride 2 and a C0 stride larger than the rows need.
  cs.push_back({1, 9, static_cast<uint16_t>(d2 + 3), 0, static_cast<uint16_t>(d2 + 3), 37, 2, 0});
  cs.push_back({2, 8, 23, 12 * 32, 32, 37, 2, 320});  // the documented non-contiguous example
  return cs;
}

// Bytes of L1 a case writes (the reference's largest offset, rounded to 32 B).
template <typename T>
size_t DstElems(const Case& c) {
  const size_t k0 = K0Of<T>();
  const size_t last = size_t{c.nd - 1u} * c.dst_matrix +
                      (RoundUpRef(c.d, k0) / k0 - 1) * c.c0_stride * k0 +
                      size_t{c.n - 1u} * c.n_stride * k0 + k0;
  return RoundUpRef(last, k0);
}
template <typename T>
size_t SrcElems(const Case& c) {
  return size_t{c.nd - 1u} * c.src_matrix + size_t{c.n - 1u} * c.src_d + c.d;
}

template <typename T>
std::vector<T> RunNd2Nz(const Case& c, const std::vector<T>& gm, const std::vector<T>& l1_init,
                        aicore::Status* st) {
  std::vector<T> got;
  *st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> buf;
    auto l1 = Carve<T>(pipe, buf, static_cast<uint32_t>(l1_init.size()));
    Fill(l1, l1_init);
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(const_cast<T*>(gm.data()), gm.size());
    AscendC::DataCopy(l1, g,
                      AscendC::Nd2NzParams(c.nd, c.n, c.d, c.src_matrix, c.src_d, c.c0_stride,
                                           c.n_stride, c.dst_matrix));
    got = Read(l1, l1_init.size());
  });
  return got;
}

TYPED_TEST(Nd2NzTest, MatchesReference) {
  using T = TypeParam;
  for (const Case& c : Cases<T>()) {
    const std::vector<T> gm = RandomValues<T>(SrcElems<T>(c), c.n * 31 + c.d, 100);
    const std::vector<T> l1_init(DstElems<T>(c), static_cast<T>(7));
    aicore::Status st;
    const std::vector<T> got = RunNd2Nz(c, gm, l1_init, &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<T> want = aicore::ref::Nd2NzRef(
        l1_init, gm, c.nd, c.n, c.d, c.src_matrix, c.src_d, c.c0_stride, c.n_stride, c.dst_matrix);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(T)), 0)
        << "nd " << c.nd << " n " << c.n << " d " << c.d << " c0_stride " << c.c0_stride
        << " n_stride " << c.n_stride;
  }
}

// The usual matmul call (dstNzC0Stride = rows rounded to 16) gives exactly the Nz layout of
// fractal_ref.h's NdToNz, padding included.
TYPED_TEST(Nd2NzTest, UsualParamsGiveNzLayout) {
  using T = TypeParam;
  const std::pair<int, int> shapes[] = {{1, 1}, {15, 17}, {16, 16}, {33, 100}, {128, 64}};
  for (auto [rows, cols] : shapes) {
    const auto r = static_cast<uint16_t>(rows);
    const auto d = static_cast<uint16_t>(cols);
    const Case c{1, r, d, 0, d, static_cast<uint16_t>(RoundUpRef(r, 16)), 1, 0};
    const std::vector<T> gm = RandomValues<T>(size_t{r} * d, r + 3 * d, 100);
    const size_t padded = RoundUpRef(r, 16) * RoundUpRef(d, K0Of<T>());
    aicore::Status st;
    const std::vector<T> got = RunNd2Nz(c, gm, std::vector<T>(padded, T{}), &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<T> want = aicore::ref::NdToNz(gm.data(), r, d, d);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), padded * sizeof(T)), 0) << rows << "x" << cols;
  }
}

TEST(Nd2Nz, GmToUbOnTheVectorCore) {
  const uint16_t n = 20, d = 30;
  const std::vector<float> gm = RandomValues<float>(n * d, 5);
  std::vector<float> got;
  auto st = aicore::testing::RunOnUb([&](aicore::testing::UbArena& ub) {
    auto u = ub.Get<float>(32 * 32);
    std::fill(u.data(), u.data() + 32 * 32, -1.0f);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(const_cast<float*>(gm.data()), gm.size());
    AscendC::DataCopy(u, g, AscendC::Nd2NzParams(1, n, d, 0, d, 32, 1, 0));
    got = Read(u, 32 * 32);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto want =
      aicore::ref::Nd2NzRef(std::vector<float>(32 * 32, -1.0f), gm, 1, n, d, 0, d, 32, 1, 0);
  EXPECT_EQ(got, want);
}

TEST(Nd2Nz, ZeroCountsAreNoOps) {
  const std::vector<float> gm(64, 1.0f);
  for (const Case& c : {Case{0, 4, 8, 0, 8, 16, 1, 0}, Case{1, 0, 8, 0, 8, 16, 1, 0},
                        Case{1, 4, 0, 0, 8, 16, 1, 0}}) {
    aicore::Status st;
    const auto got = RunNd2Nz(c, gm, std::vector<float>(128, 3.0f), &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(got, std::vector<float>(128, 3.0f));
  }
}

TEST(Nd2Nz, RecordsOneMte2Copy) {
  InstrLog log;
  const std::vector<aicore::half> gm(33 * 100, aicore::half(1.0f));
  aicore::Status st;
  RunNd2Nz(Case{1, 33, 100, 0, 100, 48, 1, 0}, gm, std::vector<aicore::half>(48 * 112), &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ins = log.Of("DataCopy");
  ASSERT_EQ(ins.size(), 1u);
  const auto& in = ins[0];
  EXPECT_EQ(in.pipe, aicore::sim::Pipe::kMte2);
  EXPECT_EQ(in.dtype, aicore::DType::kF16);
  EXPECT_EQ(in.dst.buffer, aicore::arch::Buffer::kL1);
  EXPECT_EQ(in.src[0].buffer, aicore::arch::Buffer::kGm);
  // 7 C0 columns (100 halves = 6.25 blocks) of 33 rows x 32 B, 48 rows apart.
  EXPECT_EQ(in.dst_stride.blocks, 7u);
  EXPECT_EQ(in.dst_stride.block_bytes, 33u * 32);
  EXPECT_EQ(in.dst_stride.stride_bytes, 48u * 32);
  EXPECT_EQ(in.dst.bytes, 6u * 48 * 32 + 33 * 32);
  EXPECT_EQ(in.src[0].bytes, 33u * 100 * 2);
  EXPECT_EQ(in.elements, 7u * 33 * 16);
}

// Runs one bad Nd2Nz call on an A1 tensor of `l1_elems` floats over a GM buffer of `gm_elems`.
aicore::Status BadCall(const AscendC::Nd2NzParams& p, uint32_t l1_elems = 4096,
                       size_t gm_elems = 4096) {
  std::vector<float> gm(gm_elems, 1.0f);
  return RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> buf;
    auto l1 = Carve<float>(pipe, buf, l1_elems);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::DataCopy(l1, g, p);
  });
}

TEST(Nd2NzErrors, RangesAndExtents) {
  EXPECT_THAT(BadCall(AscendC::Nd2NzParams(1, 16385, 8, 0, 8, 16400, 1, 0)).message(),
              HasSubstr("nValue=16385 is outside [0, 16384]"));
  EXPECT_THAT(BadCall(AscendC::Nd2NzParams(4096, 1, 8, 0, 8, 16, 1, 0)).message(),
              HasSubstr("ndNum=4096 is outside [0, 4095]"));
  EXPECT_THAT(BadCall(AscendC::Nd2NzParams(1, 4, 8, 0, 0, 16, 1, 0)).message(),
              HasSubstr("srcDValue=0"));
  EXPECT_THAT(BadCall(AscendC::Nd2NzParams(1, 4, 8, 0, 8, 0, 1, 0)).message(),
              HasSubstr("dstNzC0Stride=0 is outside [1, 16384]"));
  EXPECT_THAT(BadCall(AscendC::Nd2NzParams(1, 4, 8, 0, 8, 16, 0, 0)).message(),
              HasSubstr("dstNzNStride=0 is outside [1, 16384]"));
  // dValue too big for the L1 tensor: 64 rows x 2000 floats need 250 C0 columns.
  const auto big = BadCall(AscendC::Nd2NzParams(1, 64, 2000, 0, 2000, 64, 1, 0), 4096, 64 * 2000);
  EXPECT_THAT(big.message(), HasSubstr("dst LocalTensor: the copy reaches byte"));
  EXPECT_THAT(big.message(), HasSubstr("cube_test AIC 0: DataCopy"));
  // The GM source is smaller than rows x pitch.
  EXPECT_THAT(BadCall(AscendC::Nd2NzParams(1, 16, 64, 0, 64, 16, 1, 0), 4096, 1000).message(),
              HasSubstr("src GlobalTensor: the copy reaches byte 4096"));
}

TEST(Nd2NzErrors, DestinationMustBeL1OrUb) {
  std::vector<float> gm(256, 1.0f);
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> buf;
    auto l0a = Carve<float>(pipe, buf, 256);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::DataCopy(l0a, g, AscendC::Nd2NzParams(1, 16, 8, 0, 8, 16, 1, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("dst is a A2 tensor in L0A; this data path needs L1/UB"));
}

TEST(Nd2NzErrors, L1OnTheVectorCoreNamesTheKernelMode) {
  auto st = aicore::RunKernel("aiv_l1", 1, aicore::LaunchOptions{}, [] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::A1, 1> q;
    pipe.InitBuffer(q, 1, 1024);
  });
  EXPECT_THAT(st.message(), HasSubstr("position A1 lives in L1, which AIV 0 does not have"));
  EXPECT_THAT(st.message(), HasSubstr("launch with KernelMode::kAic or kMix"));
}

}  // namespace
