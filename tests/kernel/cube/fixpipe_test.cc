// Fixpipe (L0C -> GM / L1) against tests/reference/fixpipe_ref.h: NZ -> ND and NZ output over
// tails (mSize/nSize not multiples of 16), srcStride/dstStride padding, several matrices, ReLU,
// every documented type pair and quantisation mode (scalar and per-column), SetAtomicAdd, the
// funnel record and the error cases.
#include "aicore/kernel/cube/fixpipe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>

#include "tests/kernel/cube/cube_test_util.h"
#include "tests/reference/fixpipe_ref.h"
#include "tests/reference/fractal_ref.h"

namespace {

using aicore::ref::FixpipeRefParams;
using aicore::ref::RefQuant;
using aicore::ref::RoundUpRef;
using aicore::testing::Carve;
using aicore::testing::Fill;
using aicore::testing::InstrLog;
using aicore::testing::Read;
using aicore::testing::RunOnAic;
using AscendC::TPosition;
using ::testing::HasSubstr;

// Random L0C contents: floats on a grid of 1/4 in [-300, 300], int32 in [-40000, 40000].
template <typename S>
std::vector<S> L0cValues(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<S> v(n);
  if constexpr (std::is_same_v<S, float>) {
    std::uniform_int_distribution<int> d(-1200, 1200);
    for (auto& x : v) x = static_cast<float>(d(rng)) / 4.0f;
  } else {
    std::uniform_int_distribution<int32_t> d(-40000, 40000);
    for (auto& x : v) x = d(rng);
  }
  return v;
}

// A quantisation word: scale, shift N (1..16), MCB, 9-bit offset, signed result.
uint64_t QuantWord(float scale, int n = 1, bool mcb = false, int offset = 0,
                   bool is_signed = true) {
  uint32_t bits;
  std::memcpy(&bits, &scale, 4);
  return uint64_t{bits} | (uint64_t(n - 1) & 15) << 32 | uint64_t{mcb} << 36 |
         (uint64_t(offset) & 511) << 37 | uint64_t{is_signed} << 46;
}

AscendC::FixpipeParamsV220 ToParams(const FixpipeRefParams& r) {
  AscendC::FixpipeParamsV220 p;
  p.nSize = static_cast<uint16_t>(r.n_size);
  p.mSize = static_cast<uint16_t>(r.m_size);
  p.srcStride = static_cast<uint16_t>(r.src_stride);
  p.dstStride = r.dst_stride;
  p.quantPre = static_cast<QuantMode_t>(r.quant);
  p.deqScalar = r.deq_scalar;
  p.ndNum = static_cast<uint16_t>(r.nd_num);
  p.srcNdStride = static_cast<uint16_t>(r.src_nd_stride);
  p.dstNdStride = static_cast<uint16_t>(r.dst_nd_stride);
  p.reluEn = r.relu;
  p.isChannelSplit = r.channel_split;
  return p;
}

// L0C elements a case reads, and GM elements it writes.
size_t L0cElems(const FixpipeRefParams& r) {
  const size_t n1 = (r.n_size + 15) / 16;
  const size_t nd = r.nz2nd ? r.nd_num : 1;
  return (nd - 1) * r.src_nd_stride * 256 + (n1 - 1) * r.src_stride * 16 + r.m_size * 16;
}
template <typename D>
size_t DstElems(const FixpipeRefParams& r) {
  if (r.nz2nd) {
    return size_t{r.nd_num - 1} * r.dst_nd_stride + size_t{r.m_size - 1} * r.dst_stride + r.n_size;
  }
  const size_t c0 = sizeof(D) == 4 ? (r.channel_split ? 8 : 16) : 32 / sizeof(D);
  return ((r.n_size + c0 - 1) / c0 - 1) * r.dst_stride * 32 / sizeof(D) + r.m_size * c0;
}

// Runs one Fixpipe to GM (or to an L1 tensor when to_l1) and returns the destination contents.
template <typename D, typename S, const AscendC::FixpipeConfig& cfg>
std::vector<D> RunFixpipe(const FixpipeRefParams& r, const std::vector<S>& l0c,
                          const std::vector<D>& dst0, const std::vector<uint64_t>& quant,
                          aicore::Status* st, bool to_l1 = false, int atomic = 0) {
  std::vector<D> gm = dst0;
  std::vector<D> got;
  *st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> l0c_buf;
    auto c = Carve<S>(pipe, l0c_buf, static_cast<uint32_t>(RoundUpRef(l0c.size(), 256)));
    Fill(c, l0c);
    AscendC::TBuf<TPosition::C1> ws_buf;
    AscendC::LocalTensor<uint64_t> ws;
    if (!quant.empty()) {
      ws = Carve<uint64_t>(pipe, ws_buf, static_cast<uint32_t>(quant.size()));
      Fill(ws, quant);
    }
    const AscendC::FixpipeParamsV220 p = ToParams(r);
    if (to_l1) {
      AscendC::TBuf<TPosition::A1> l1_buf;
      auto l1 = Carve<D>(pipe, l1_buf, static_cast<uint32_t>(RoundUpRef(dst0.size(), 32)));
      Fill(l1, dst0);
      if (quant.empty()) {
        AscendC::Fixpipe<D, S, cfg>(l1, c, p);
      } else {
        AscendC::Fixpipe<D, S, cfg>(l1, c, ws, p);
      }
      got = Read(l1, dst0.size());
      return;
    }
    AscendC::GlobalTensor<D> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    if (atomic == 1) AscendC::SetAtomicAdd<D>();
    if (quant.empty()) {
      AscendC::Fixpipe<D, S, cfg>(g, c, p);
    } else {
      AscendC::Fixpipe<D, S, cfg>(g, c, ws, p);
    }
    AscendC::SetAtomicNone();
  });
  return to_l1 ? got : gm;
}

template <typename D>
void ExpectSame(const std::vector<D>& got, const std::vector<D>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(D)) != 0) {
      ++bad;
      ADD_FAILURE() << what << ": element " << i << " got " << static_cast<double>(got[i])
                    << " want " << static_cast<double>(want[i]);
    }
  }
}

// ND shapes: (m, n, extra srcStride rows, extra dstStride elements).
struct Shape {
  uint32_t m, n, src_pad, dst_pad;
};
const Shape kShapes[] = {{1, 1, 0, 0},     {15, 17, 0, 0}, {16, 16, 0, 0},  {33, 100, 0, 0},
                         {128, 128, 0, 0}, {7, 40, 16, 3}, {40, 31, 32, 1}, {64, 48, 0, 16}};

template <typename D, typename S>
void CheckNd(RefQuant quant, uint64_t scalar, bool relu, const std::vector<uint64_t>& columns) {
  for (const Shape& s : kShapes) {
    FixpipeRefParams r;
    r.m_size = s.m;
    r.n_size = s.n;
    r.src_stride = static_cast<uint32_t>(RoundUpRef(s.m, 16)) + s.src_pad;
    r.dst_stride = s.n + s.dst_pad;
    r.quant = quant;
    r.deq_scalar = scalar;
    r.relu = relu;
    const auto l0c = L0cValues<S>(L0cElems(r), s.m * 7 + s.n);
    const std::vector<D> dst0(DstElems<D>(r), static_cast<D>(3));
    std::vector<uint64_t> q;
    if (!columns.empty()) {
      for (uint32_t i = 0; i < s.n; ++i) q.push_back(columns[i % columns.size()]);
    }
    for (bool to_l1 : {false, true}) {
      aicore::Status st;
      const auto got = RunFixpipe<D, S, AscendC::CFG_ROW_MAJOR>(r, l0c, dst0, q, &st, to_l1);
      ASSERT_TRUE(st.ok()) << st.ToString();
      ExpectSame(got, aicore::ref::FixpipeRef(dst0, l0c, r, q),
                 "m " + std::to_string(s.m) + " n " + std::to_string(s.n) +
                     (to_l1 ? " to L1" : " to GM") + (relu ? " relu" : ""));
    }
  }
}

TEST(FixpipeNd, FloatToFloat) {
  CheckNd<float, float>(RefQuant::kNoQuant, 0, false, {});
  CheckNd<float, float>(RefQuant::kNoQuant, 0, true, {});
}
TEST(FixpipeNd, FloatToHalfAndBfloat16) {
  CheckNd<aicore::half, float>(RefQuant::kF322F16, 0, false, {});
  CheckNd<aicore::half, float>(RefQuant::kF322F16, 0, true, {});
  CheckNd<aicore::bfloat16, float>(RefQuant::kF322BF16, 0, false, {});
  CheckNd<aicore::bfloat16, float>(RefQuant::kF322BF16, 0, true, {});
}
TEST(FixpipeNd, Int32ToInt32) {
  CheckNd<int32_t, int32_t>(RefQuant::kNoQuant, 0, false, {});
  CheckNd<int32_t, int32_t>(RefQuant::kNoQuant, 0, true, {});
}
TEST(FixpipeNd, DequantInt32ToHalf) {
  CheckNd<aicore::half, int32_t>(RefQuant::kDeqF16, QuantWord(0.0123f), false, {});
  CheckNd<aicore::half, int32_t>(RefQuant::kDeqF16, QuantWord(0.5f, 4, true), true, {});
  CheckNd<aicore::half, int32_t>(RefQuant::kVDeqF16, 0, false,
                                 {QuantWord(0.01f), QuantWord(-0.003f), QuantWord(1.0f, 3, true)});
}
TEST(FixpipeNd, RequantInt32ToInt8) {
  CheckNd<int8_t, int32_t>(RefQuant::kReq8, QuantWord(0.0031f, 1, false, -7, true), false, {});
  CheckNd<int8_t, int32_t>(RefQuant::kReq8, QuantWord(0.7f, 9, true, 100, true), true, {});
  CheckNd<uint8_t, int32_t>(RefQuant::kReq8, QuantWord(0.004f, 1, false, 20, false), false, {});
  CheckNd<int8_t, int32_t>(
      RefQuant::kVReq8, 0, false,
      {QuantWord(0.002f, 1, false, 3, true), QuantWord(0.01f, 6, true, -50, true),
       QuantWord(0.0005f, 1, false, 0, false)});
}
TEST(FixpipeNd, QuantFloatToInt8) {
  CheckNd<int8_t, float>(RefQuant::kQF322B8, QuantWord(0.3f, 1, false, -2, true), false, {});
  CheckNd<uint8_t, float>(RefQuant::kQF322B8, QuantWord(0.9f, 1, false, 5, false), true, {});
  CheckNd<uint8_t, float>(
      RefQuant::kVQF322B8, 0, false,
      {QuantWord(0.25f, 1, false, 0, false), QuantWord(1.5f, 1, false, 9, false)});
}

TEST(FixpipeNd, SeveralMatrices) {
  FixpipeRefParams r;
  r.m_size = 20;
  r.n_size = 24;
  r.src_stride = 32;
  r.dst_stride = 24;
  r.nd_num = 3;
  r.src_nd_stride = 5;  // fractals: 2 columns x 32 rows = 4, plus a gap of one
  r.dst_nd_stride = 20 * 24 + 8;
  const auto l0c = L0cValues<float>(L0cElems(r), 11);
  const std::vector<float> dst0(DstElems<float>(r), -9.0f);
  aicore::Status st;
  const auto got = RunFixpipe<float, float, AscendC::CFG_ROW_MAJOR>(r, l0c, dst0, {}, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ExpectSame(got, aicore::ref::FixpipeRef(dst0, l0c, r), "ndNum 3");
}

TEST(FixpipeNd, MatchesL0cReferenceLayout) {
  // A C(M, N) placed in L0C with fractal_ref.h's NdToL0c comes back as C.
  const uint32_t m = 37, n = 53;
  const auto c = L0cValues<float>(size_t{m} * n, 3);
  const auto l0c = aicore::ref::NdToL0c(c.data(), m, n, n);
  FixpipeRefParams r;
  r.m_size = m;
  r.n_size = n;
  r.src_stride = static_cast<uint32_t>(RoundUpRef(m, 16));
  r.dst_stride = n;
  aicore::Status st;
  const auto got = RunFixpipe<float, float, AscendC::CFG_ROW_MAJOR>(
      r, l0c, std::vector<float>(size_t{m} * n), {}, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(got, c);
}

TEST(FixpipeNd, AtomicAddAccumulates) {
  FixpipeRefParams r;
  r.m_size = 33;
  r.n_size = 40;
  r.src_stride = 48;
  r.dst_stride = 41;
  const auto l0c = L0cValues<float>(L0cElems(r), 5);
  const std::vector<float> dst0(DstElems<float>(r), 1.5f);
  aicore::Status st;
  const auto got =
      RunFixpipe<float, float, AscendC::CFG_ROW_MAJOR>(r, l0c, dst0, {}, &st, false, 1);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<float> want = aicore::ref::FixpipeRef(std::vector<float>(dst0.size(), 0.0f), l0c, r);
  for (size_t m = 0; m < r.m_size; ++m) {
    for (size_t n = 0; n < r.n_size; ++n) want[m * r.dst_stride + n] += 1.5f;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (i % r.dst_stride >= r.n_size) want[i] = 1.5f;  // the row padding is untouched
  }
  EXPECT_EQ(got, want);
}

template <typename D, typename S>
void CheckNz(RefQuant quant, uint64_t scalar, bool split) {
  const std::tuple<uint32_t, uint32_t, uint32_t> shapes[] = {
      {16, 16, 0}, {15, 32, 0}, {33, 64, 2}, {1, 48, 1}, {40, split ? 24u : 32u, 0}};
  for (auto [m, n, pad] : shapes) {
    FixpipeRefParams r;
    r.nz2nd = false;
    r.m_size = m;
    r.n_size = n;
    r.src_stride = static_cast<uint32_t>(RoundUpRef(m, 16));
    const size_t c0 = sizeof(D) == 4 ? (split ? 8 : 16) : 32 / sizeof(D);
    r.dst_stride = static_cast<uint32_t>((m * c0 * sizeof(D) + 31) / 32) + pad;
    r.quant = quant;
    r.deq_scalar = scalar;
    r.channel_split = split;
    const auto l0c = L0cValues<S>(L0cElems(r), m + n);
    const std::vector<D> dst0(DstElems<D>(r), static_cast<D>(2));
    aicore::Status st;
    const auto got = RunFixpipe<D, S, AscendC::CFG_NZ>(r, l0c, dst0, {}, &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ExpectSame(got, aicore::ref::FixpipeRef(dst0, l0c, r),
               "NZ m " + std::to_string(m) + " n " + std::to_string(n));
  }
}

TEST(FixpipeNz, KeepsFractalLayout) {
  CheckNz<float, float>(RefQuant::kNoQuant, 0, false);
  CheckNz<float, float>(RefQuant::kNoQuant, 0, true);  // 16 x 8 fractals
  CheckNz<aicore::half, float>(RefQuant::kF322F16, 0, false);
  CheckNz<int32_t, int32_t>(RefQuant::kNoQuant, 0, false);
  CheckNz<int8_t, int32_t>(RefQuant::kReq8, QuantWord(0.01f, 1, false, 0, true), false);
}

TEST(FixpipeNz, Int8OutputMergesTwoFractals) {
  // 16 x 32 int8 fractal: element (m, n) at m*32 + n for n < 32.
  FixpipeRefParams r;
  r.nz2nd = false;
  r.m_size = 16;
  r.n_size = 32;
  r.src_stride = 16;
  r.dst_stride = 16;
  r.quant = RefQuant::kReq8;
  r.deq_scalar = QuantWord(1.0f, 1, false, 0, true);
  std::vector<int32_t> l0c(2 * 256);
  for (int n = 0; n < 32; ++n) {
    for (int m = 0; m < 16; ++m) l0c[(n / 16) * 256 + m * 16 + n % 16] = (m * 32 + n) % 100;
  }
  aicore::Status st;
  const auto got =
      RunFixpipe<int8_t, int32_t, AscendC::CFG_NZ>(r, l0c, std::vector<int8_t>(512), {}, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (int i = 0; i < 512; ++i) EXPECT_EQ(got[i], i % 100) << i;
}

TEST(Fixpipe, RecordsOneFixCopy) {
  InstrLog log;
  FixpipeRefParams r;
  r.m_size = 33;
  r.n_size = 40;
  r.src_stride = 48;
  r.dst_stride = 64;
  aicore::Status st;
  RunFixpipe<aicore::half, float, AscendC::CFG_ROW_MAJOR>(
      [&] {
        auto q = r;
        q.quant = RefQuant::kF322F16;
        return q;
      }(),
      L0cValues<float>(L0cElems(r), 1), std::vector<aicore::half>(DstElems<aicore::half>(r)), {},
      &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ins = log.Of("Fixpipe");
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_EQ(ins[0].pipe, aicore::sim::Pipe::kFix);
  EXPECT_EQ(ins[0].dtype, aicore::DType::kF16);
  EXPECT_EQ(ins[0].src[0].buffer, aicore::arch::Buffer::kL0C);
  EXPECT_EQ(ins[0].dst.buffer, aicore::arch::Buffer::kGm);
  EXPECT_EQ(ins[0].dst_stride.blocks, 33u);
  EXPECT_EQ(ins[0].dst_stride.block_bytes, 40u * 2);
  EXPECT_EQ(ins[0].dst_stride.stride_bytes, 64u * 2);
  EXPECT_EQ(ins[0].src_stride[0].blocks, 3u);
  EXPECT_EQ(ins[0].src_stride[0].block_bytes, 33u * 16 * 4);
  EXPECT_EQ(ins[0].elements, 33u * 40);
}

TEST(Fixpipe, ZeroSizesAreNoOps) {
  for (int which = 0; which < 3; ++which) {
    FixpipeRefParams r;
    r.m_size = which == 0 ? 0 : 16;
    r.n_size = which == 1 ? 0 : 16;
    r.nd_num = which == 2 ? 0 : 1;
    r.src_stride = 16;
    r.dst_stride = 16;
    aicore::Status st;
    const auto got = RunFixpipe<float, float, AscendC::CFG_ROW_MAJOR>(
        r, std::vector<float>(256, 1.0f), std::vector<float>(256, 4.0f), {}, &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(got, std::vector<float>(256, 4.0f));
  }
}

// Runs Fixpipe<D, S> to GM with `p` on an L0C tensor of `l0c_elems` and returns the status.
template <typename D, typename S, const AscendC::FixpipeConfig& cfg = AscendC::CFG_ROW_MAJOR>
aicore::Status BadFixpipe(const AscendC::FixpipeParamsV220& p, uint32_t l0c_elems = 4096,
                          size_t gm_elems = 1 << 16) {
  std::vector<D> gm(gm_elems);
  return RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> buf;
    auto c = Carve<S>(pipe, buf, l0c_elems);
    AscendC::GlobalTensor<D> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::Fixpipe<D, S, cfg>(g, c, p);
  });
}

AscendC::FixpipeParamsV220 Params(uint16_t m, uint16_t n, uint16_t src_stride, uint32_t dst_stride,
                                  QuantMode_t q = NoQuant) {
  AscendC::FixpipeParamsV220 p;
  p.mSize = m;
  p.nSize = n;
  p.srcStride = src_stride;
  p.dstStride = dst_stride;
  p.quantPre = q;
  return p;
}

TEST(FixpipeErrors, QuantModeMustMatchTypes) {
  EXPECT_THAT((BadFixpipe<aicore::half, float>(Params(16, 16, 16, 16))).message(),
              HasSubstr("quantPre=NoQuant does not convert float to half; use F322F16"));
  EXPECT_THAT((BadFixpipe<float, float>(Params(16, 16, 16, 16, F322BF16))).message(),
              HasSubstr("quantPre=F322BF16 does not convert float to float; use NoQuant"));
  EXPECT_THAT((BadFixpipe<int8_t, int32_t>(Params(16, 16, 16, 16, DEQF16))).message(),
              HasSubstr("use REQ8 or VREQ8"));
  EXPECT_THAT((BadFixpipe<aicore::half, int32_t>(Params(16, 16, 16, 16, VDEQF16))).message(),
              HasSubstr("call the overload with a cbufWorkspace tensor"));
  auto p = Params(16, 16, 16, 16, REQ8);
  p.deqScalar = QuantWord(1.0f, 1, false, 0, /*is_signed=*/false);
  EXPECT_THAT(
      (BadFixpipe<int8_t, int32_t>(p)).message(),
      HasSubstr("deqScalar bit 46 (signed result) is 0 but the destination type is int8_t"));
}

TEST(FixpipeErrors, StridesAndSizes) {
  EXPECT_THAT((BadFixpipe<float, float>(Params(33, 40, 32, 40))).message(),
              HasSubstr("srcStride=32 is smaller than mSize=33"));
  EXPECT_THAT((BadFixpipe<float, float>(Params(16, 40, 16, 39))).message(),
              HasSubstr("dstStride=39 is the ND row pitch in elements and must be >= nSize=40"));
  EXPECT_THAT((BadFixpipe<float, float>(Params(16, 4096, 16, 4096))).message(),
              HasSubstr("nSize=4096 is outside [0, 4095]"));
  EXPECT_THAT((BadFixpipe<float, float>(Params(8193, 16, 8208, 16))).message(),
              HasSubstr("mSize=8193 is outside [0, 8192]"));
  EXPECT_THAT((BadFixpipe<float, float, AscendC::CFG_NZ>(Params(16, 24, 16, 32))).message(),
              HasSubstr("nSize=24 must be a multiple of 16 for CFG_NZ output"));
  EXPECT_THAT((BadFixpipe<float, float, AscendC::CFG_NZ>(Params(16, 32, 16, 16))).message(),
              HasSubstr("must be >= 32 for mSize=16 (columns must not overlap)"));
  auto split = Params(16, 16, 16, 16);
  split.isChannelSplit = true;
  EXPECT_THAT((BadFixpipe<float, float>(split)).message(),
              HasSubstr("isChannelSplit needs float -> float with CFG_NZ output"));
}

TEST(FixpipeErrors, Extents) {
  // 64 x 64 fp32 reads 16 KB of L0C; the tensor has 1024 elements.
  EXPECT_THAT((BadFixpipe<float, float>(Params(64, 64, 64, 64), 1024)).message(),
              HasSubstr("src LocalTensor: the copy reaches byte 16384"));
  EXPECT_THAT((BadFixpipe<float, float>(Params(64, 64, 64, 64), 4096, 4000)).message(),
              HasSubstr("dst GlobalTensor: the copy reaches byte 16384"));
}

TEST(FixpipeErrors, SourceMustBeCo1) {
  std::vector<float> gm(256);
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> buf;
    auto l1 = Carve<float>(pipe, buf, 256);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::Fixpipe<float, float>(g, l1, Params(16, 16, 16, 16));
  });
  EXPECT_THAT(st.message(),
              HasSubstr("Fixpipe: src is a A1 tensor in L1; this data path needs L0C"));
}

TEST(FixpipeErrors, ChipWithoutFixpipe) {
  static const aicore::arch::Chip chip = aicore::arch::LoadChip("ascend310p");
  aicore::LaunchOptions o;
  o.mode = aicore::KernelMode::kAic;
  o.chip = &chip;
  std::vector<float> gm(256);
  auto st = aicore::RunKernel("fixpipe_310p", 1, o, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> buf;
    auto c = Carve<float>(pipe, buf, 256);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::Fixpipe<float, float>(g, c, Params(16, 16, 16, 16));
  });
  EXPECT_THAT(st.message(), HasSubstr("Fixpipe is not available on ascend310p (NPU arch 2002)"));
}

}  // namespace

namespace {

// The documented positional form, brace-initialised from int tiling fields as samples do.
TEST(FixpipeParamsV220Ctor, PositionalFormFillsTheFieldsInTheSamplesOrder) {
  const int32_t base_n = 64, base_m = 32, n = 256;
  AscendC::FixpipeParamsV220 p{base_n, base_m, base_m, n, false, QuantMode_t::F322F16, 0, 1, 0,
                               0, 0};
  EXPECT_EQ(p.nSize, 64);
  EXPECT_EQ(p.mSize, 32);
  EXPECT_EQ(p.srcStride, 32);
  EXPECT_EQ(p.dstStride, 256u);
  EXPECT_FALSE(p.reluEn);
  EXPECT_EQ(p.quantPre, QuantMode_t::F322F16);
  EXPECT_EQ(p.ndNum, 1);
  AscendC::FixpipeParamsV220 short_form(uint32_t{16}, uint16_t{48}, 48, uint16_t{16}, true);
  EXPECT_TRUE(short_form.reluEn);
  EXPECT_EQ(short_form.mSize, 48);
  EXPECT_EQ(short_form.quantPre, QuantMode_t::NoQuant);
  EXPECT_EQ(short_form.ndNum, 1);
  AscendC::FixpipeParamsV220 defaults;
  EXPECT_EQ(defaults.ndNum, 1);
  EXPECT_EQ(defaults.nSize, 0);
}

}  // namespace
