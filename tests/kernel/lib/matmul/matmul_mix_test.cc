// The Matmul API in mix launches (910B: one AIC and two AIVs per group): the AIVs call the Matmul,
// the AIC serves them inside REGIST_MATMUL_OBJ; results equal the cube-only launch, Iterate loops
// of the two AIVs do not mix, errors on the AIC reach the calling AIV, and a missing client is a
// reported deadlock rather than a hang.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "aicore/runtime/launch.h"
#include "lib/matmul_intf.h"
#include "tests/reference/matmul_ref.h"
#include "tiling/tiling_api.h"

namespace {

using AscendC::GlobalTensor;
using AscendC::TPosition;
using ::testing::HasSubstr;
using HalfType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, half>;
using FloatType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
using Mm = AscendC::Matmul<HalfType, HalfType, FloatType, FloatType>;

optiling::TCubeTiling Tiling(int m, int n, int k, int dim) {
  matmul_tiling::MultiCoreMatmulTiling api;
  api.SetDim(dim);
  api.SetAType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  api.SetBType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  api.SetCType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetShape(m, n, k);
  api.SetOrgShape(m, n, k);
  optiling::TCubeTiling t;
  EXPECT_EQ(api.GetTiling(t), 0) << api.last_error();
  return t;
}

struct Data {
  int m, n, k;
  std::vector<half> a, b;
  std::vector<float> c;
  std::vector<double> want;
  Data(int m_, int n_, int k_)
      : m(m_), n(n_), k(k_), a(size_t(m_) * k_), b(size_t(k_) * n_), c(size_t(m_) * n_, -1.0f) {
    for (size_t i = 0; i < a.size(); ++i) a[i] = half(0.25f * int((i * 7) % 17) - 2.0f);
    for (size_t i = 0; i < b.size(); ++i) b[i] = half(0.25f * int((i * 5) % 13) - 1.5f);
    want = aicore::ref::MatmulRef(a, b, m, n, k).c;
  }
  int Mismatches() const {
    int bad = 0;
    for (size_t i = 0; i < c.size(); ++i) bad += c[i] != static_cast<float>(want[i]);
    return bad;
  }
};

// Each AIV computes its single-core block of C (AIV block indices 0 .. 2 * groups - 1).
void AivBlock(const optiling::TCubeTiling& t, Data& d, bool iterate_loop) {
  AscendC::TPipe pipe;
  Mm mm;
  REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &t);
  const int64_t idx = AscendC::GetBlockIdx();
  if (idx >= t.usedCoreNum) return;
  const int64_t m_blocks = (d.m + t.singleCoreM - 1) / t.singleCoreM;
  const int64_t mi = idx % m_blocks, ni = idx / m_blocks;
  GlobalTensor<half> ga, gb;
  GlobalTensor<float> gc;
  ga.SetGlobalBuffer(d.a.data(), d.a.size());
  gb.SetGlobalBuffer(d.b.data(), d.b.size());
  gc.SetGlobalBuffer(d.c.data(), d.c.size());
  mm.SetTail(static_cast<int>(std::min<int64_t>(t.singleCoreM, d.m - mi * t.singleCoreM)),
             static_cast<int>(std::min<int64_t>(t.singleCoreN, d.n - ni * t.singleCoreN)));
  mm.SetTensorA(ga[mi * t.singleCoreM * d.k]);
  mm.SetTensorB(gb[ni * t.singleCoreN]);
  const int64_t off_c = mi * t.singleCoreM * d.n + ni * t.singleCoreN;
  if (iterate_loop) {
    while (mm.Iterate()) mm.GetTensorC(gc[off_c]);
  } else {
    mm.IterateAll(gc[off_c]);
  }
  mm.End();
}

aicore::Status RunMix(uint32_t groups, const std::function<void()>& body) {
  return aicore::RunKernel("matmul_mix", groups,
                           aicore::LaunchOptions{.mode = aicore::KernelMode::kMix}, body);
}

TEST(MatmulMix, AivsCallTheAicIterateAll) {
  for (uint32_t groups : {1u, 3u, 8u}) {
    Data d(200, 150, 96);
    const auto t = Tiling(d.m, d.n, d.k, static_cast<int>(2 * groups));
    const auto st = RunMix(groups, [&] { AivBlock(t, d, false); });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(d.Mismatches(), 0) << "groups " << groups;
  }
}

TEST(MatmulMix, IterateLoopsOfTwoAivsDoNotMix) {
  Data d(160, 300, 64);
  const auto t = Tiling(d.m, d.n, d.k, 2);
  ASSERT_EQ(t.usedCoreNum, 2);
  const auto st = RunMix(1, [&] { AivBlock(t, d, true); });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(d.Mismatches(), 0);
}

TEST(MatmulMix, ErrorOnTheAicReachesTheAiv) {
  Data d(32, 32, 32);
  const auto t = Tiling(d.m, d.n, d.k, 2);
  const auto st = RunMix(1, [&] {
    AscendC::TPipe pipe;
    Mm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    GlobalTensor<half> ga;
    ga.SetGlobalBuffer(d.a.data(), 16);  // far too small for a 32 x 32 A
    GlobalTensor<float> gc;
    gc.SetGlobalBuffer(d.c.data(), d.c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(ga);
    mm.IterateAll(gc);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("AIV"));
  EXPECT_THAT(st.message(), HasSubstr("the AIC serving this call failed"));
}

TEST(MatmulMix, AicWithoutClientsIsADeadlock) {
  Data d(32, 32, 32);
  const auto t = Tiling(d.m, d.n, d.k, 2);
  const auto st = RunMix(1, [&] {
    AscendC::TPipe pipe;
    Mm mm;
    if ASCEND_IS_AIC
      REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);  // AIVs never connect
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("serves Matmul"));
}

}  // namespace

namespace {

// D = A * B + 1: each AIV Iterates, takes every block into UB (GetTensorC), adds 1 on the vector
// unit and stores the block to D: the AIC does the Matmul, the AIVs the epilogue.
TEST(MatmulMix, GetTensorCIntoUbFeedsAVectorEpilogue) {
  Data d(128, 256, 64);
  matmul_tiling::MultiCoreMatmulTiling api;
  api.SetDim(2);
  api.SetAType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  api.SetBType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  api.SetCType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetShape(d.m, d.n, d.k);
  api.SetFixSplit(64, 128, -1);
  optiling::TCubeTiling t;
  ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
  ASSERT_EQ(t.usedCoreNum, 2);
  std::vector<float> out(size_t(d.m) * d.n, -7.0f);
  const auto st = RunMix(1, [&] {
    AscendC::TPipe pipe;
    Mm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TQue<TPosition::VECIN, 1> qin;
    AscendC::TQue<TPosition::VECOUT, 1> qout;
    const uint32_t block = uint32_t(t.baseM) * t.baseN;
    pipe.InitBuffer(qin, 1, block * sizeof(float));
    pipe.InitBuffer(qout, 1, block * sizeof(float));
    const int64_t idx = AscendC::GetBlockIdx();
    const int64_t m_blocks = (d.m + t.singleCoreM - 1) / t.singleCoreM;
    const int64_t mi = idx % m_blocks, ni = idx / m_blocks;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gd;
    ga.SetGlobalBuffer(d.a.data(), d.a.size());
    gb.SetGlobalBuffer(d.b.data(), d.b.size());
    gd.SetGlobalBuffer(out.data(), out.size());
    mm.SetTensorA(ga[mi * t.singleCoreM * d.k]);
    mm.SetTensorB(gb[ni * t.singleCoreN]);
    const int64_t m_iter = t.singleCoreM / t.baseM;
    for (int64_t b = 0; mm.Iterate(); ++b) {
      AscendC::LocalTensor<float> in = qin.AllocTensor<float>();
      mm.GetTensorC(in);
      qin.EnQue(in);
      in = qin.DeQue<float>();
      AscendC::LocalTensor<float> res = qout.AllocTensor<float>();
      AscendC::Adds(res, in, 1.0f, block);
      qout.EnQue(res);
      qin.FreeTensor(in);
      res = qout.DeQue<float>();
      const int64_t row = mi * t.singleCoreM + (b % m_iter) * t.baseM;
      const int64_t col = ni * t.singleCoreN + (b / m_iter) * t.baseN;
      AscendC::DataCopy(gd[row * d.n + col], res,
                        AscendC::DataCopyParams(static_cast<uint16_t>(t.baseM),
                                                static_cast<uint16_t>(t.baseN * 4 / 32), 0,
                                                static_cast<uint16_t>((d.n - t.baseN) * 4 / 32)));
      qout.FreeTensor(res);
    }
    mm.End();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  int bad = 0;
  for (size_t i = 0; i < out.size(); ++i) bad += out[i] != static_cast<float>(d.want[i] + 1.0);
  EXPECT_EQ(bad, 0);
}

}  // namespace
