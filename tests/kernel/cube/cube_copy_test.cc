// The cube's plain copies and buffer rules: GM <-> L1 DataCopy at every L1 position, L1 ->
// BiasTable (float, int32_t, half -> float) and L1 -> Fixpipe buffer copies in their documented
// units, the funnel records, and TPipe's matrix-position rules (512-byte L0A/L0B queue buffers,
// capacity errors, cube positions on a vector core).
#include "aicore/kernel/cube/cube_copy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "tests/kernel/cube/cube_test_util.h"

namespace {

using aicore::testing::Carve;
using aicore::testing::Fill;
using aicore::testing::InstrLog;
using aicore::testing::Read;
using aicore::testing::RunOnAic;
using AscendC::TPosition;
using ::testing::HasSubstr;

template <typename T>
std::vector<T> Iota(size_t n, int start = 1) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<int>(i % 1000) + start);
  return v;
}

// GM -> L1 -> GM through a TQue at `pos` with both DataCopy forms.
template <TPosition pos>
void RoundTrip() {
  const std::vector<float> in = Iota<float>(1024);
  std::vector<float> out(1024, 0.0f);
  std::vector<float> strided(1024, -1.0f);
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TQue<pos, 1> q;
    pipe.InitBuffer(q, 1, 4096);
    AscendC::GlobalTensor<float> g_in, g_out, g_strided;
    g_in.SetGlobalBuffer(const_cast<float*>(in.data()), in.size());
    g_out.SetGlobalBuffer(out.data(), out.size());
    g_strided.SetGlobalBuffer(strided.data(), strided.size());
    auto l1 = q.template AllocTensor<float>();
    AscendC::DataCopy(l1, g_in, 1024);
    q.EnQue(l1);
    auto t = q.template DeQue<float>();
    AscendC::DataCopy(g_out, t, 1024);
    // 8 blocks of 2 DataBlocks (16 floats) from every other 2 blocks of L1 to GM with gaps of 1.
    AscendC::DataCopy(g_strided, t, AscendC::DataCopyParams(8, 2, 2, 1));
    q.FreeTensor(t);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, in);
  for (int b = 0; b < 8; ++b) {
    for (int e = 0; e < 16; ++e) EXPECT_EQ(strided[b * 24 + e], in[b * 32 + e]) << b << " " << e;
    for (int e = 16; e < 24 && b < 7; ++e) EXPECT_EQ(strided[b * 24 + e], -1.0f);
  }
}

TEST(CubeCopy, GmL1RoundTripAtEveryL1Position) {
  RoundTrip<TPosition::A1>();
  RoundTrip<TPosition::B1>();
  RoundTrip<TPosition::C1>();
  RoundTrip<TPosition::TSCM>();
}

TEST(CubeCopy, L1ToBiasTableFloatAndInt32) {
  const std::vector<float> bias = Iota<float>(256);
  const std::vector<int32_t> ibias = Iota<int32_t>(64, -20);
  std::vector<float> got(256);
  std::vector<float> gapped(256);
  std::vector<int32_t> igot(64);
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2> bt_buf;
    auto l1 = Carve<float>(pipe, l1_buf, 256);
    auto bt = Carve<float>(pipe, bt_buf, 256);
    Fill(l1, bias);
    AscendC::DataCopy(bt, l1, 256);
    got = Read(bt, 256);
    // 3 blocks of 64 B (16 floats): source gap 1 DataBlock (8 floats), destination gap 1 x 64 B.
    std::fill(bt.data(), bt.data() + 256, 0.0f);
    AscendC::DataCopy(bt, l1, AscendC::DataCopyParams(3, 1, 1, 1));
    gapped = Read(bt, 256);
    auto ibt = bt.ReinterpretCast<int32_t>();
    Fill(l1.ReinterpretCast<int32_t>(), ibias);
    AscendC::DataCopy(ibt, l1.ReinterpretCast<int32_t>(), 64);
    igot = Read(ibt, 64);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(got, bias);
  for (int b = 0; b < 3; ++b) {
    for (int e = 0; e < 16; ++e) EXPECT_EQ(gapped[b * 32 + e], bias[b * 24 + e]);
    for (int e = 16; e < 32; ++e) EXPECT_EQ(gapped[b * 32 + e], 0.0f);
  }
  EXPECT_EQ(igot, ibias);
}

TEST(CubeCopy, L1ToBiasTableWidensHalf) {
  std::vector<aicore::half> bias(64);
  for (int i = 0; i < 64; ++i) bias[i] = aicore::half(0.25f * static_cast<float>(i - 30));
  std::vector<float> got(64, -1.0f);
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2> bt_buf;
    auto l1 = Carve<aicore::half>(pipe, l1_buf, 64);
    auto bt = Carve<float>(pipe, bt_buf, 64);
    Fill(l1, bias);
    std::fill(bt.data(), bt.data() + 64, -1.0f);
    // 2 blocks of 64 B of float (16 floats from 16 halves); source gap 1 DataBlock (16 halves).
    AscendC::DataCopy(bt, l1, AscendC::DataCopyParams(2, 1, 1, 0));
    got = Read(bt, 64);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(got[i], static_cast<float>(bias[i]));
    EXPECT_EQ(got[16 + i], static_cast<float>(bias[32 + i]));
  }
  for (int i = 32; i < 64; ++i) EXPECT_EQ(got[i], -1.0f);
}

TEST(CubeCopy, L1ToFixpipeBuffer) {
  std::vector<uint64_t> words(64);
  std::iota(words.begin(), words.end(), uint64_t{1} << 40);
  std::vector<uint64_t> got(64, 0);
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2PIPE2GM> fb_buf;
    auto l1 = Carve<uint64_t>(pipe, l1_buf, 64);
    auto fb = Carve<uint64_t>(pipe, fb_buf, 64);
    Fill(l1, words);
    AscendC::DataCopy(fb, l1, 16);  // count form: 128 B
    // 2 blocks of 128 B: source head-to-head 8 DataBlocks (256 B), destination 2 x 128 B.
    AscendC::DataCopy(fb[16], l1, AscendC::DataCopyParams(2, 1, 8, 2));
    got = Read(fb, 64);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(got[i], words[i]);
    EXPECT_EQ(got[16 + i], words[i]);
    EXPECT_EQ(got[48 + i], words[32 + i]);
  }
}

TEST(CubeCopy, RecordsPipes) {
  InstrLog log;
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2> bt_buf;
    AscendC::TBuf<TPosition::C2PIPE2GM> fb_buf;
    auto l1 = Carve<float>(pipe, l1_buf, 256);
    auto bt = Carve<float>(pipe, bt_buf, 64);
    auto fb = Carve<uint64_t>(pipe, fb_buf, 32);
    AscendC::DataCopy(bt, l1, 64);
    AscendC::DataCopy(fb, l1.ReinterpretCast<uint64_t>(), 32);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ins = log.Of("DataCopy");
  ASSERT_EQ(ins.size(), 2u);
  EXPECT_EQ(ins[0].pipe, aicore::sim::Pipe::kMte1);
  EXPECT_EQ(ins[0].dst.buffer, aicore::arch::Buffer::kBt);
  EXPECT_EQ(ins[0].src[0].buffer, aicore::arch::Buffer::kL1);
  EXPECT_EQ(ins[0].dst.bytes, 256u);
  EXPECT_EQ(ins[1].pipe, aicore::sim::Pipe::kFix);
  EXPECT_EQ(ins[1].dst.buffer, aicore::arch::Buffer::kFb);
  EXPECT_EQ(ins[1].dst.bytes, 256u);
}

TEST(CubeCopyErrors, BiasAndFixpipeBufferTypes) {
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2> bt_buf;
    auto l1 = Carve<aicore::half>(pipe, l1_buf, 64);
    auto bt = Carve<aicore::half>(pipe, bt_buf, 64);
    AscendC::DataCopy(bt, l1, 64);
  });
  EXPECT_THAT(st.message(), HasSubstr("L1 -> BiasTable copies half to half; allowed: float -> "
                                      "float, int32_t -> int32_t, half -> float"));
  st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2PIPE2GM> fb_buf;
    auto l1 = Carve<float>(pipe, l1_buf, 64);
    auto fb = Carve<float>(pipe, fb_buf, 64);
    AscendC::DataCopy(fb, l1, 64);
  });
  EXPECT_THAT(st.message(), HasSubstr("quantisation parameters of type uint64_t, not float"));
  st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2> bt_buf;
    auto l1 = Carve<float>(pipe, l1_buf, 64);
    auto bt = Carve<float>(pipe, bt_buf, 64);
    AscendC::DataCopy(bt[8], l1, 16);  // 32 B into the BiasTable: not 64-byte aligned
  });
  EXPECT_THAT(st.message(), HasSubstr("dst starts at BT offset 32, not on a 64-byte boundary"));
  st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1_buf;
    AscendC::TBuf<TPosition::C2> bt_buf;
    auto l1 = Carve<float>(pipe, l1_buf, 512);
    auto bt = Carve<float>(pipe, bt_buf, 64);
    AscendC::DataCopy(bt, l1, 512);  // 2 KB into a 256 B tensor
  });
  EXPECT_THAT(st.message(), HasSubstr("dst LocalTensor: the copy reaches byte 2048"));
  st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1_buf;
    AscendC::TBuf<TPosition::A2> l0a_buf;
    auto l1 = Carve<float>(pipe, l1_buf, 64);
    auto l0a = Carve<aicore::half>(pipe, l0a_buf, 64);
    AscendC::DataCopy(l0a, l1, AscendC::DataCopyParams(1, 1, 0, 0));
  });
  EXPECT_THAT(st.message(), HasSubstr("exists only for L1 -> BiasTable"));
}

TEST(MatrixPositions, L0QueueBuffersStartOn512Bytes) {
  uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::A2, 1> qa;
    AscendC::TQue<TPosition::B2, 1> qb;
    pipe.InitBuffer(qa, 2, 100);   // rounded up to 512 B per buffer
    pipe.InitBuffer(qb, 2, 1000);  // rounded up to 1024 B per buffer
    auto x = qa.AllocTensor<aicore::half>();
    auto y = qa.AllocTensor<aicore::half>();
    auto u = qb.AllocTensor<aicore::half>();
    auto v = qb.AllocTensor<aicore::half>();
    a0 = x.GetPhyAddr();
    a1 = y.GetPhyAddr();
    b0 = u.GetPhyAddr();
    b1 = v.GetPhyAddr();
    EXPECT_EQ(x.GetSize(), 256u);
    qa.FreeTensor(x);
    qa.FreeTensor(y);
    qb.FreeTensor(u);
    qb.FreeTensor(v);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(a0 % 512, 0u);
  EXPECT_EQ(a1 - a0, 512u);
  EXPECT_EQ(b1 - b0, 1024u);
}

TEST(MatrixPositions, CapacityErrorsNameTheBuffer) {
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::B2, 1> q;
    pipe.InitBuffer(q, 2, 40000);  // 2 x 40448 B (512-byte granules)
  });
  EXPECT_THAT(st.message(), HasSubstr("B2 buffer of 80896 B does not fit in L0B: 65536 B of 65536 "
                                      "B are left on ascend910b1"));
  st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::CO1, 1> q1, q2;
    pipe.InitBuffer(q1, 1, 100000);  // 100032 B (64-byte granules)
    pipe.InitBuffer(q2, 1, 40000);
  });
  EXPECT_THAT(st.message(), HasSubstr("CO1 buffer of 40000 B does not fit in L0C: 31040 B of "
                                      "131072 B are left"));
  EXPECT_THAT(st.message(), HasSubstr("100032 B already used by this TPipe"));
}

// InitBuffer of a UB queue is tolerated on the AIC (Note [UB queues on the AIC]); using it is not.
TEST(MatrixPositions, UbQueueOnTheCubeCoreFailsAtFirstUse) {
  auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    q.AllocTensor<half>();
  });
  EXPECT_THAT(st.message(), HasSubstr("AllocTensor: the VECIN queue was given UB on AIC 0, which "
                                      "has no UB"));
  EXPECT_THAT(st.message(), HasSubstr("use it in AIV code only"));
}

}  // namespace
