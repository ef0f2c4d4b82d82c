// Host tiling for the Matmul API and platform information: PlatformAscendC answers from the chip
// presets; MatmulApiTiling / MultiCoreMatmulTiling fill TCubeTiling with fields that fit the
// chip's buffers and cover the problem, for every preset, type, shape and core count; invalid
// requests return -1 with the reason.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "aicore/arch/chip.h"
#include "lib/matmul/bmm_tiling.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace {

using matmul_tiling::DataType;
using matmul_tiling::TPosition;
using platform_ascendc::CoreMemType;
using platform_ascendc::PlatformAscendC;
using platform_ascendc::PlatformAscendCManager;
using ::testing::HasSubstr;

uint64_t Mem(const PlatformAscendC& p, CoreMemType t) {
  uint64_t v = 0;
  p.GetCoreMemSize(t, v);
  return v;
}

TEST(PlatformAscendC, DefaultChipIs910B1) {
  PlatformAscendC* p = PlatformAscendCManager::GetInstance();
  ASSERT_NE(p, nullptr);
  if (p->chip().name != "ascend910b1") GTEST_SKIP() << "AICORE_CHIP selects another chip";
  EXPECT_EQ(p->GetCoreNumAic(), 24u);
  EXPECT_EQ(p->GetCoreNumAiv(), 48u);
  EXPECT_EQ(p->GetCoreNum(), 48u);
  EXPECT_EQ(Mem(*p, CoreMemType::UB), 196608u);
  EXPECT_EQ(Mem(*p, CoreMemType::L1), 524288u);
  EXPECT_EQ(Mem(*p, CoreMemType::L0_A), 65536u);
  EXPECT_EQ(Mem(*p, CoreMemType::L0_B), 65536u);
  EXPECT_EQ(Mem(*p, CoreMemType::L0_C), 131072u);
  EXPECT_EQ(Mem(*p, CoreMemType::BT), 1024u);
  EXPECT_EQ(p->GetSocVersion(), platform_ascendc::SocVersion::ASCEND910B);
  EXPECT_EQ(p->GetLibApiWorkSpaceSize(), 16u * 1024 * 1024);
}

TEST(PlatformAscendC, EverySocVersionOfThePresets) {
  for (const std::string& name : aicore::arch::PresetNames()) {
    const aicore::arch::Chip chip = aicore::arch::LoadChip(name);
    PlatformAscendC* p = PlatformAscendCManager::GetInstance(chip.soc_version.c_str());
    ASSERT_NE(p, nullptr) << chip.soc_version;
    EXPECT_EQ(p->chip().name, name);
    EXPECT_EQ(p->GetCoreNumAic(), static_cast<uint32_t>(chip.aic_count));
    EXPECT_EQ(Mem(*p, CoreMemType::L1), chip.spec(aicore::arch::Buffer::kL1).bytes);
    EXPECT_EQ(Mem(*p, CoreMemType::L0_C), chip.spec(aicore::arch::Buffer::kL0C).bytes);
    EXPECT_EQ(Mem(*p, CoreMemType::UB), chip.spec(aicore::arch::Buffer::kUb).bytes);
    // The same object is handed out again.
    EXPECT_EQ(PlatformAscendCManager::GetInstance(chip.soc_version.c_str()), p);
  }
  // A sibling SoC of a preset's family finds the family's preset.
  PlatformAscendC* p310 = PlatformAscendCManager::GetInstance("Ascend310P1");
  ASSERT_NE(p310, nullptr);
  EXPECT_EQ(p310->GetSocVersion(), platform_ascendc::SocVersion::ASCEND310P);
  EXPECT_EQ(p310->GetCoreNumAiv(), p310->GetCoreNumAic());  // coupled: one core kind
  EXPECT_EQ(PlatformAscendCManager::GetInstance("NotAChip9000"), nullptr);
}

TEST(PlatformAscendC, FromPlatformInfos) {
  fe::PlatFormInfos info{"ascend910b4"};
  PlatformAscendC p(&info);
  EXPECT_EQ(p.GetCoreNumAic(), 20u);
  EXPECT_EQ(p.CalcTschBlockDim(40, 20, 40), 20u);  // 40 AIV slices -> 20 mixed groups
  EXPECT_EQ(p.CalcTschBlockDim(7, 20, 0), 7u);
}

struct TypeCase {
  DataType in, out;
  int bytes;
};

// Checks every documented relation of a tiling against the chip and the problem.
void CheckTiling(const optiling::TCubeTiling& t, const PlatformAscendC& p, const TypeCase& tc,
                 int m, int n, int k, int dim, bool bias) {
  const int64_t in = tc.bytes;
  EXPECT_GT(t.baseM, 0);
  EXPECT_GT(t.baseN, 0);
  EXPECT_GT(t.baseK, 0);
  EXPECT_EQ(t.baseM % (in == 1 ? 32 : 16), 0);
  EXPECT_EQ(t.baseN % (in == 1 ? 32 : 16), 0);
  EXPECT_EQ(t.baseK % (in == 1 ? 32 : 16), 0);
  EXPECT_LE(int64_t{t.baseM} * t.baseK * in * t.dbL0A, int64_t(Mem(p, CoreMemType::L0_A)));
  EXPECT_LE(int64_t{t.baseK} * t.baseN * in * t.dbL0B, int64_t(Mem(p, CoreMemType::L0_B)));
  EXPECT_LE(int64_t{t.baseM} * t.baseN * 4 * t.dbL0C, int64_t(Mem(p, CoreMemType::L0_C)));
  if (bias) {
    EXPECT_LE(int64_t{t.baseN} * 4, int64_t(Mem(p, CoreMemType::BT)));
  }
  const int64_t l1 =
      int64_t{t.depthA1} * t.baseM * t.baseK * in + int64_t{t.depthB1} * t.baseN * t.baseK * in;
  EXPECT_LE(l1, int64_t(Mem(p, CoreMemType::L1)));
  EXPECT_LE(l1, t.shareL1Size);
  EXPECT_GE(t.depthA1, t.stepM * t.stepKa);
  EXPECT_GE(t.depthB1, t.stepN * t.stepKb);
  EXPECT_EQ(t.depthA1 % (t.stepM * t.stepKa), 0);
  EXPECT_EQ(t.depthB1 % (t.stepN * t.stepKb), 0);
  const int k_iter = (t.singleCoreK + t.baseK - 1) / t.baseK;
  EXPECT_LE(t.stepKa, k_iter);
  EXPECT_LE(t.stepKb, k_iter);
  EXPECT_EQ(t.M, m);
  EXPECT_EQ(t.N, n);
  EXPECT_EQ(t.Ka, k);
  EXPECT_EQ(t.Kb, k);
  EXPECT_EQ(t.singleCoreK, k);
  EXPECT_LE(t.singleCoreM, m);
  EXPECT_LE(t.singleCoreN, n);
  const int used =
      ((m + t.singleCoreM - 1) / t.singleCoreM) * ((n + t.singleCoreN - 1) / t.singleCoreN);
  EXPECT_EQ(t.usedCoreNum, used);
  EXPECT_LE(t.usedCoreNum, dim);
  EXPECT_EQ(t.isBias, bias ? 1 : 0);
  EXPECT_TRUE(t.iterateOrder == 0 || t.iterateOrder == 1);
}

TEST(MatmulTiling, FieldsFitEveryPresetTypeAndShape) {
  const TypeCase types[] = {{DataType::DT_FLOAT16, DataType::DT_FLOAT, 2},
                            {DataType::DT_BF16, DataType::DT_FLOAT, 2},
                            {DataType::DT_FLOAT, DataType::DT_FLOAT, 4},
                            {DataType::DT_FLOAT16, DataType::DT_FLOAT16, 2},
                            {DataType::DT_INT8, DataType::DT_INT32, 1}};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> size(1, 3000);
  for (const std::string& name : aicore::arch::PresetNames()) {
    PlatformAscendC p(aicore::arch::LoadChip(name));
    const bool has_bt = Mem(p, CoreMemType::BT) > 0;
    for (const TypeCase& tc : types) {
      for (int trial = 0; trial < 12; ++trial) {
        const int m = trial == 0 ? 1 : size(rng), n = trial == 0 ? 1 : size(rng);
        const int k = trial == 0 ? 1 : size(rng);
        const int dim = std::vector<int>{1, 2, 7, 24, 48}[trial % 5];
        const bool bias = has_bt && trial % 2 == 1;
        SCOPED_TRACE(::testing::Message() << name << " in=" << int(tc.in) << " " << m << "x" << n
                                          << "x" << k << " dim=" << dim << " bias=" << bias);
        matmul_tiling::MultiCoreMatmulTiling api(p);
        api.SetDim(dim);
        api.SetAType(TPosition::GM, CubeFormat::ND, tc.in, trial % 3 == 0);
        api.SetBType(TPosition::GM, CubeFormat::ND, tc.in, trial % 4 == 0);
        api.SetCType(TPosition::GM, CubeFormat::ND, tc.out);
        api.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        api.SetShape(m, n, k);
        api.SetOrgShape(m, n, k);
        api.SetBias(bias);
        optiling::TCubeTiling t;
        ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
        CheckTiling(t, p, tc, m, n, k, dim, bias);
        int32_t sm = 0, sn = 0, sk = 0, used = 0, md = 0, nd = 0;
        api.GetSingleShape(sm, sn, sk);
        api.GetCoreNum(used, md, nd);
        EXPECT_EQ(sm, t.singleCoreM);
        EXPECT_EQ(used, t.usedCoreNum);
        EXPECT_EQ(md * nd, used);
        EXPECT_EQ(api.GetBaseM(), t.baseM);
      }
    }
  }
}

TEST(MatmulTiling, SingleCoreTilingKeepsTheShape) {
  matmul_tiling::MatmulApiTiling api;
  api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetShape(256, 512, 1024);
  api.SetOrgShape(1024, 2048, 1024);
  AscendC::tiling::TCubeTiling t;
  ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
  EXPECT_EQ(t.usedCoreNum, 1);
  EXPECT_EQ(t.singleCoreM, 256);
  EXPECT_EQ(t.singleCoreN, 512);
  EXPECT_EQ(t.singleCoreK, 1024);
  EXPECT_EQ(t.M, 1024);
  EXPECT_EQ(t.N, 2048);
}

TEST(MatmulTiling, FixSplitAndBufferSpaceAreHonoured) {
  matmul_tiling::MatmulApiTiling api;
  api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetShape(1024, 1024, 1024);
  api.SetFixSplit(256, 128, 64);
  api.SetDoubleBuffer(false, false, false, false);
  api.SetBufferSpace(256 * 1024);
  optiling::TCubeTiling t;
  ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
  EXPECT_EQ(t.baseM, 256);
  EXPECT_EQ(t.baseN, 128);
  EXPECT_EQ(t.baseK, 64);
  EXPECT_EQ(t.dbL0A, 1);
  EXPECT_LE(t.shareL1Size, 256 * 1024);
}

// half A (m x k) at TPosition::TSCM in NZ, B in GM (k x n), C float; returns GetTiling's result.
int32_t TscmTiling(int32_t m, int32_t n, int32_t k, optiling::TCubeTiling& t,
                   std::string* error = nullptr, int32_t l1_limit = -1, bool trans_a = false) {
  matmul_tiling::MatmulApiTiling api;
  api.SetAType(TPosition::TSCM, CubeFormat::NZ, DataType::DT_FLOAT16, trans_a);
  api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetShape(m, n, k);
  api.SetOrgShape(m, n, k);
  if (l1_limit > 0) api.SetBufferSpace(l1_limit);
  const int32_t r = api.GetTiling(t);
  if (error != nullptr) *error = api.last_error();
  return r;
}

TEST(MatmulTiling, ATscmOperandsL1IsLeftOutOfThePlan) {
  const int64_t l1 = Mem(*PlatformAscendCManager::GetInstance(), CoreMemType::L1);
  ASSERT_EQ(l1, 512 * 1024);
  // A: 128 x 1024 half in NZ = 256 KB of L1, the kernel's; B streams in the rest.
  optiling::TCubeTiling t;
  ASSERT_EQ(TscmTiling(128, 2048, 1024, t), 0);
  const int64_t a_bytes = 128 * 1024 * 2;
  const int64_t b_blk = int64_t{t.baseK} * t.baseN * 2;
  EXPECT_LE(t.shareL1Size + a_bytes, l1);
  EXPECT_EQ(t.shareL1Size, int64_t{t.depthB1} * b_blk);  // no A panels
  EXPECT_EQ(t.stepKa, (1024 + t.baseK - 1) / t.baseK);   // the whole K of A is resident
  EXPECT_GE(t.depthA1, t.stepM * t.stepKa);
  EXPECT_GE(t.depthB1, t.stepN * t.stepKb);
  // Transposed (K x M stored), rows padded to 16 and columns to 16: 1024 x 144 half = 288 KB.
  ASSERT_EQ(TscmTiling(130, 2048, 1024, t, nullptr, -1, true), 0);
  EXPECT_LE(t.shareL1Size + 1024 * 144 * 2, l1);
  // SetBufferSpace's L1 size caps the Matmul's share further.
  ASSERT_EQ(TscmTiling(128, 2048, 1024, t, nullptr, 100 * 1024), 0);
  EXPECT_LE(t.shareL1Size, 100 * 1024);
}

TEST(MatmulTiling, ATscmOperandFillingL1IsRefused) {
  optiling::TCubeTiling t;
  std::string error;
  // A: 512 x 512 half = 512 KB, all of 910B1's L1.
  EXPECT_EQ(TscmTiling(512, 64, 512, t, &error), -1);
  EXPECT_THAT(error, HasSubstr("GetTiling: A at TPosition::TSCM (singleCoreM x singleCoreK 512 x "
                               "512 in NZ) takes 524288 B of L1; ascend910b1 has 524288 B of L1 "
                               "per core, so nothing is left for the Matmul"));
  // A: 496 x 512 half = 496 KB: 16 KB left, less than one double-buffered base block of B.
  EXPECT_EQ(TscmTiling(496, 256, 512, t, &error), -1);
  EXPECT_THAT(error, HasSubstr("does not fit the 16384 B of L1 available (A at TPosition::TSCM "
                               "(singleCoreM x singleCoreK 496 x 512 in NZ) takes 507904 B"));
}

TEST(MatmulTiling, TraverseSetsIterateOrder) {
  for (auto [tr, order] : {std::pair{matmul_tiling::MatrixTraverse::FIRSTM, 0},
                           std::pair{matmul_tiling::MatrixTraverse::FIRSTN, 1}}) {
    matmul_tiling::MatmulApiTiling api;
    api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetShape(512, 512, 256);
    api.SetTraverse(tr);
    optiling::TCubeTiling t;
    ASSERT_EQ(api.GetTiling(t), 0);
    EXPECT_EQ(t.iterateOrder, order);
  }
}

TEST(MatmulTiling, OptilingAccessorsAndSaveToBuffer) {
  optiling::TCubeTiling t;
  t.set_baseM(128);
  t.set_stepKb(3);
  t.set_mxTypePara(7);
  EXPECT_EQ(t.get_baseM(), 128);
  EXPECT_EQ(t.baseM, 128);
  EXPECT_EQ(t.get_stepKb(), 3);
  std::vector<uint8_t> buf(t.GetDataSize());
  t.SaveToBuffer(buf.data(), buf.size());
  TCubeTiling back;
  std::memcpy(&back, buf.data(), sizeof(back));
  EXPECT_EQ(back.baseM, 128);
  EXPECT_EQ(back.stepKb, 3);
  EXPECT_EQ(back.mxTypePara, 7);
  EXPECT_EQ(t.GetDataSize() % sizeof(int32_t), 0u);
}

// --- invalid requests: -1 with the reason ---

struct Rejected {
  std::function<void(matmul_tiling::MultiCoreMatmulTiling&)> setup;
  const char* reason;
};

TEST(MatmulTiling, InvalidRequestsReturnMinusOneWithTheReason) {
  auto base = [](matmul_tiling::MultiCoreMatmulTiling& a) {
    a.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    a.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    a.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    a.SetShape(128, 128, 128);
  };
  const Rejected cases[] = {
      {[](auto& a) { a.SetShape(128, 128, 128); }, "call SetAType, SetBType and SetCType"},
      {[&](auto& a) {
         base(a);
         a.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
       },
       "one type"},
      {[&](auto& a) {
         base(a);
         a.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_INT8);
         a.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_INT8);
       },
       "allowed: DT_INT32"},
      {[&](auto& a) {
         base(a);
         a.SetOrgShape(64, 128, 128);
       },
       "exceeds the original shape"},
      {[&](auto& a) {
         base(a);
         a.SetFixSplit(100, -1, -1);
       },
       "not a multiple of 16"},
      {[&](auto& a) {
         base(a);
         a.SetFixSplit(128, 128, 1024);
       },
       "no base block fits"},
      {[&](auto& a) {
         base(a);
         a.SetBufferSpace(1024);
       },
       "does not fit the"},
      {[&](auto& a) {
         base(a);
         a.SetSingleShape(16, 16, -1);
         a.SetDim(4);
       },
       "needs 64 cores"},
      {[&](auto& a) {
         a.SetAType(TPosition::GM, CubeFormat::NZ, DataType::DT_FLOAT16);
         a.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
         a.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
         a.SetShape(100, 128, 128);
       },
       "NZ format needs M a multiple of 16"},
  };
  for (const Rejected& r : cases) {
    matmul_tiling::MultiCoreMatmulTiling api;
    r.setup(api);
    optiling::TCubeTiling t;
    EXPECT_EQ(api.GetTiling(t), -1) << r.reason;
    EXPECT_THAT(api.last_error(), HasSubstr(r.reason));
  }
  matmul_tiling::MultiCoreMatmulTiling api;
  EXPECT_EQ(api.SetShape(0, 1, 1), -1);
  EXPECT_EQ(api.SetDim(0), -1);
  EXPECT_EQ(api.SetMadType(matmul_tiling::MatrixMadType::HF32), -1);
  api.EnableMultiCoreSplitK(true);
  EXPECT_THAT(api.last_error(), HasSubstr("not implemented"));
}

TEST(MatmulTiling, BiasNeedsABiasTable) {
  PlatformAscendC p310(aicore::arch::LoadChip("ascend310p"));
  matmul_tiling::MatmulApiTiling api(p310);
  api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
  api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetShape(64, 64, 64);
  api.SetBias(true);
  optiling::TCubeTiling t;
  EXPECT_EQ(api.GetTiling(t), -1);
  EXPECT_THAT(api.last_error(), HasSubstr("bias table"));
}

}  // namespace

namespace {

// Equal-cost splits go to M (the samples' 512 x 512 x 128 on SetDim(2) expect two M halves).
TEST(MultiCoreTiling, EqualCostSplitsPreferM) {
  for (bool fix : {false, true}) {
    matmul_tiling::MultiCoreMatmulTiling api(
        *platform_ascendc::PlatformAscendCManager::GetInstance());
    api.SetDim(2);
    api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetShape(512, 512, 128);
    api.SetOrgShape(512, 512, 128);
    if (fix) api.SetFixSplit(128, 128, -1);
    api.SetBias(true);
    api.SetBufferSpace(-1, -1, -1);
    optiling::TCubeTiling t;
    ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
    EXPECT_EQ(t.usedCoreNum, 2);
    EXPECT_EQ(t.singleCoreM, 256);
    EXPECT_EQ(t.singleCoreN, 512);
    int32_t dim = 0, m_dim = 0, n_dim = 0;
    api.GetCoreNum(dim, m_dim, n_dim);
    EXPECT_EQ(m_dim, 2);
    EXPECT_EQ(n_dim, 1);
  }
}

// B in ND is read a block-row at a time: a base block whose row is not a whole number of GM bursts
// (256 B on the 910B presets) pays for the rounding, so the search keeps baseN * 2 B at a burst
// multiple for a half B (without the burst term it picked 176 columns: 352-B rows, 512 B paid).
TEST(MultiCoreTiling, BaseBlockRowsOfAnNdBAreWholeGmBursts) {
  PlatformAscendC* p = PlatformAscendCManager::GetInstance();
  if (p->chip().name != "ascend910b1") GTEST_SKIP() << "AICORE_CHIP selects another chip";
  for (bool trans_b : {false, true}) {
    matmul_tiling::MultiCoreMatmulTiling api(*p);
    api.SetDim(24);
    api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_BF16);
    api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_BF16, trans_b);
    api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetShape(2048, 2048, 2048);
    api.SetOrgShape(2048, 2048, 2048);
    api.SetBufferSpace(-1, -1, -1);
    optiling::TCubeTiling t;
    ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
    if (!trans_b) {
      EXPECT_EQ(t.baseN * 2 % 256, 0) << "baseN " << t.baseN;
    }
    EXPECT_LE(int64_t{t.baseM} * t.baseN * 4, 131072);  // still fits L0C
  }
}

}  // namespace
