// The high-level Matmul API against the plain reference: host tiling (MultiCoreMatmulTiling) +
// kernel Matmul over shapes with tails, all four transpose combinations, every input type, bias,
// NZ operands, more blocks than host cores, Iterate/GetTensorC equal to IterateAll, the
// primitives it issues, and misuse errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"
#include "aicore/runtime/launch.h"
#include "lib/matmul_intf.h"
#include "tests/kernel/cube/cube_test_util.h"
#include "tests/reference/fractal_ref.h"
#include "tests/reference/matmul_ref.h"
#include "tiling/tiling_api.h"

namespace {

using AscendC::GlobalTensor;
using AscendC::TPosition;
using ::testing::HasSubstr;

struct Case {
  int m, n, k;
  bool trans_a, trans_b, bias;
  int dim;  // cores offered to the tiling
};

template <typename T>
matmul_tiling::DataType TilingType() {
  if constexpr (std::is_same_v<T, float>)
    return matmul_tiling::DataType::DT_FLOAT;
  else if constexpr (std::is_same_v<T, half>)
    return matmul_tiling::DataType::DT_FLOAT16;
  else if constexpr (std::is_same_v<T, bfloat16_t>)
    return matmul_tiling::DataType::DT_BF16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return matmul_tiling::DataType::DT_INT8;
  else
    return matmul_tiling::DataType::DT_INT32;
}

// Host data of one problem: A and B in their stored orientation, and the reference inputs.
template <typename S, typename B>
struct Problem {
  std::vector<S> a_store, b_store;  // as in GM
  std::vector<S> a_ref, b_ref;      // (M, K) and (K, N) row-major
  std::vector<B> bias;
  std::vector<double> bias_ref;
};

template <typename S, typename B>
Problem<S, B> MakeProblem(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-8, 8);
  auto value = [&]() -> S {
    if constexpr (std::is_same_v<S, int8_t>)
      return static_cast<S>(small(rng) * 15);
    else
      return S(static_cast<float>(small(rng)) / 8.0f);  // exact in every float type
  };
  Problem<S, B> p;
  p.a_ref.resize(size_t(c.m) * c.k);
  p.b_ref.resize(size_t(c.k) * c.n);
  for (auto& v : p.a_ref) v = value();
  for (auto& v : p.b_ref) v = value();
  p.a_store.resize(p.a_ref.size());
  p.b_store.resize(p.b_ref.size());
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.k; ++j)
      p.a_store[c.trans_a ? size_t(j) * c.m + i : size_t(i) * c.k + j] =
          p.a_ref[size_t(i) * c.k + j];
  for (int i = 0; i < c.k; ++i)
    for (int j = 0; j < c.n; ++j)
      p.b_store[c.trans_b ? size_t(j) * c.k + i : size_t(i) * c.n + j] =
          p.b_ref[size_t(i) * c.n + j];
  if (c.bias) {
    for (int j = 0; j < c.n; ++j) {
      p.bias.push_back(static_cast<B>(small(rng)));
      p.bias_ref.push_back(static_cast<double>(p.bias.back()));
    }
  }
  return p;
}

// Fills `t` with the multi-core tiling of case c for input S and output D on `dim` cores.
template <typename S, typename D>
int64_t MakeTiling(const Case& c, optiling::TCubeTiling& t, std::string* why = nullptr) {
  matmul_tiling::MultiCoreMatmulTiling tiling(
      *platform_ascendc::PlatformAscendCManager::GetInstance());
  tiling.SetDim(c.dim);
  tiling.SetAType(TPosition::GM, CubeFormat::ND, TilingType<S>(), c.trans_a);
  tiling.SetBType(TPosition::GM, CubeFormat::ND, TilingType<S>(), c.trans_b);
  tiling.SetCType(TPosition::GM, CubeFormat::ND, TilingType<D>());
  tiling.SetBiasType(TPosition::GM, CubeFormat::ND,
                     std::is_same_v<S, int8_t> ? matmul_tiling::DataType::DT_INT32
                                               : matmul_tiling::DataType::DT_FLOAT);
  tiling.SetShape(c.m, c.n, c.k);
  tiling.SetOrgShape(c.m, c.n, c.k);
  tiling.SetBias(c.bias);
  const int64_t r = tiling.GetTiling(t);
  if (why != nullptr) *why = tiling.last_error();
  return r;
}

// The standard multi-core Matmul kernel body (as in the AscendC samples): this block's offsets,
// SetTail on the edge, IterateAll or the Iterate/GetTensorC loop.
template <typename S, typename D, typename B>
void MatmulKernel(const Case& c, const TCubeTiling& t, S* a, S* b, B* bias, D* out,
                  bool iterate_loop) {
  using AType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, S>;
  using CType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, D>;
  using BiasType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, B>;
  AscendC::TPipe pipe;
  AscendC::Matmul<AType, AType, CType, BiasType> mm;
  REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &t);
  const int64_t idx = AscendC::GetBlockIdx();
  if (idx >= t.usedCoreNum) return;
  const int64_t m_blocks = (c.m + t.singleCoreM - 1) / t.singleCoreM;
  const int64_t mi = idx % m_blocks, ni = idx / m_blocks;
  GlobalTensor<S> ga, gb;
  GlobalTensor<D> gc;
  GlobalTensor<B> gbias;
  ga.SetGlobalBuffer(a, size_t(c.m) * c.k);
  gb.SetGlobalBuffer(b, size_t(c.k) * c.n);
  gc.SetGlobalBuffer(out, size_t(c.m) * c.n);
  const int64_t off_a = c.trans_a ? mi * t.singleCoreM : mi * t.singleCoreM * c.k;
  const int64_t off_b = c.trans_b ? ni * t.singleCoreN * c.k : ni * t.singleCoreN;
  const int64_t off_c = mi * t.singleCoreM * c.n + ni * t.singleCoreN;
  const int tail_m = static_cast<int>(std::min<int64_t>(t.singleCoreM, c.m - mi * t.singleCoreM));
  const int tail_n = static_cast<int>(std::min<int64_t>(t.singleCoreN, c.n - ni * t.singleCoreN));
  mm.SetTail(tail_m, tail_n);
  mm.SetTensorA(ga[off_a], c.trans_a);
  mm.SetTensorB(gb[off_b], c.trans_b);
  if (c.bias) {
    gbias.SetGlobalBuffer(bias, c.n);
    mm.SetBias(gbias[ni * t.singleCoreN]);
  }
  if (iterate_loop) {
    while (mm.Iterate()) mm.GetTensorC(gc[off_c]);
  } else {
    mm.IterateAll(gc[off_c]);
  }
  mm.End();
}

// Runs case c and returns C, failing the test on a launch error.
template <typename S, typename D, typename B>
std::vector<D> RunCase(const Case& c, Problem<S, B>& p, bool iterate_loop = false) {
  optiling::TCubeTiling t;
  std::string why;
  EXPECT_EQ((MakeTiling<S, D>(c, t, &why)), 0) << why;
  std::vector<D> out(size_t(c.m) * c.n, D(0));
  const aicore::Status st = aicore::RunKernel(
      "matmul_test", static_cast<uint32_t>(t.usedCoreNum),
      aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}, [&] {
        MatmulKernel<S, D, B>(c, t, p.a_store.data(), p.b_store.data(),
                              c.bias ? p.bias.data() : nullptr, out.data(), iterate_loop);
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

template <typename S, typename D, typename B>
void CheckCase(const Case& c, uint32_t seed) {
  SCOPED_TRACE(::testing::Message()
               << "m=" << c.m << " n=" << c.n << " k=" << c.k << " transA=" << c.trans_a
               << " transB=" << c.trans_b << " bias=" << c.bias << " dim=" << c.dim);
  auto p = MakeProblem<S, B>(c, seed);
  const std::vector<D> out = RunCase<S, D, B>(c, p);
  const auto ref = aicore::ref::MatmulRef(p.a_ref, p.b_ref, c.m, c.n, c.k, nullptr,
                                          c.bias ? p.bias_ref.data() : nullptr);
  int bad = 0;
  for (size_t i = 0; i < out.size() && bad < 5; ++i) {
    double tol = aicore::ref::MatmulTolerance(c.k, ref.abs[i]);
    if constexpr (std::is_same_v<D, half>) tol += std::fabs(ref.c[i]) * std::ldexp(1.0, -11);
    if constexpr (std::is_same_v<D, bfloat16_t>) tol += std::fabs(ref.c[i]) * std::ldexp(1.0, -8);
    const double got = static_cast<double>(static_cast<float>(out[i]));
    if (std::fabs(got - ref.c[i]) > tol) {
      ++bad;
      ADD_FAILURE() << "C(" << i / c.n << ", " << i % c.n << ") = " << got << ", want " << ref.c[i];
    }
  }
}

const std::vector<Case>& Shapes() {
  static const std::vector<Case> shapes = {
      {1, 1, 1, false, false, false, 1},        {15, 17, 33, false, false, false, 1},
      {16, 16, 16, false, false, false, 1},     {100, 70, 130, false, false, false, 4},
      {257, 129, 300, false, false, false, 24}, {64, 300, 40, false, false, false, 7},
      {33, 48, 1000, false, false, false, 2},
  };
  return shapes;
}

template <typename S, typename D, typename B = float>
void SweepTransposes(bool bias) {
  uint32_t seed = 1;
  for (Case c : Shapes()) {
    for (int t = 0; t < 4; ++t) {
      c.trans_a = t & 1;
      c.trans_b = t & 2;
      c.bias = bias;
      CheckCase<S, D, B>(c, seed++);
    }
  }
}

TEST(MatmulApi, FloatAllTransposes) { SweepTransposes<float, float>(false); }
TEST(MatmulApi, HalfToFloatAllTransposes) { SweepTransposes<half, float>(false); }
TEST(MatmulApi, Bfloat16ToFloatAllTransposes) { SweepTransposes<bfloat16_t, float>(false); }
TEST(MatmulApi, Int8ToInt32AllTransposes) { SweepTransposes<int8_t, int32_t, int32_t>(false); }
TEST(MatmulApi, HalfToHalf) { SweepTransposes<half, half>(false); }
TEST(MatmulApi, FloatToBfloat16) { SweepTransposes<float, bfloat16_t>(false); }
TEST(MatmulApi, FloatWithBias) { SweepTransposes<float, float>(true); }
TEST(MatmulApi, HalfWithBias) { SweepTransposes<half, float>(true); }
TEST(MatmulApi, Int8WithBias) { SweepTransposes<int8_t, int32_t, int32_t>(true); }

// bf16 A/B take the fused path on both of its bf16 kernels (Note [Packed GEMM bf16]): AMX where
// the host has it, and widened to fp32 when it is forbidden; a bias and a bf16 C too.
TEST(MatmulApi, Bfloat16OnBothFusedKernels) {
  for (bool amx : {true, false}) {
    SCOPED_TRACE(amx ? "AMX allowed" : "AMX forbidden");
    aicore::kernel::cube::SetPackedGemmBf16Amx(amx);
    SweepTransposes<bfloat16_t, float>(true);
    SweepTransposes<bfloat16_t, bfloat16_t>(false);
  }
  aicore::kernel::cube::SetPackedGemmBf16Amx(true);
}

TEST(MatmulApi, MoreBlocksThanHostCores) {
  // 48 cores offered: the split uses many more blocks than the host has threads.
  CheckCase<float, float, float>({200, 600, 64, false, true, true, 48}, 7);
}

TEST(MatmulApi, IterateLoopEqualsIterateAll) {
  for (const Case& c :
       {Case{100, 70, 130, false, false, true, 4}, Case{257, 129, 300, true, true, false, 3}}) {
    auto p = MakeProblem<half, float>(c, 11);
    const auto all = RunCase<half, float, float>(c, p, false);
    const auto loop = RunCase<half, float, float>(c, p, true);
    ASSERT_EQ(all.size(), loop.size());
    EXPECT_EQ(0, std::memcmp(all.data(), loop.data(), all.size() * sizeof(float)));
  }
}

// --- misuse ---

using FloatMm = AscendC::Matmul<AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>,
                                AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>,
                                AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>>;

optiling::TCubeTiling SmallTiling(bool bias = false) {
  optiling::TCubeTiling t;
  Case c{32, 32, 32, false, false, bias, 1};
  EXPECT_EQ((MakeTiling<float, float>(c, t)), 0);
  return t;
}

aicore::Status RunCube(const std::function<void()>& body,
                       aicore::KernelMode mode = aicore::KernelMode::kAic) {
  return aicore::RunKernel("matmul_misuse", 1, aicore::LaunchOptions{.mode = mode}, body);
}

// Note [Matmul fused path]: IterateAll through the packed GEMM must equal the cube path
// (Nd2Nz, LoadData, Mmad, Fixpipe) bit for bit, on every shape, orientation, bias and input type
// it takes. Values here are random floats (not exact small sums), so a different accumulation
// order would show.
template <typename S, typename D>
void CheckFusedEqualsCube(const Case& c, uint32_t seed) {
  SCOPED_TRACE(::testing::Message()
               << "m=" << c.m << " n=" << c.n << " k=" << c.k << " transA=" << c.trans_a
               << " transB=" << c.trans_b << " bias=" << c.bias << " dim=" << c.dim);
  auto p = MakeProblem<S, float>(c, seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : p.a_store) v = S(u(rng));
  for (auto& v : p.b_store) v = S(u(rng));
  for (auto& v : p.bias) v = u(rng);
  AscendC::detail::SetMatmulFusedPath(true);
  const auto fused = RunCase<S, D, float>(c, p);
  AscendC::detail::SetMatmulFusedPath(false);
  const auto cube = RunCase<S, D, float>(c, p);
  AscendC::detail::SetMatmulFusedPath(true);
  ASSERT_EQ(fused.size(), cube.size());
  size_t first_diff = fused.size();
  for (size_t i = 0; i < fused.size() && first_diff == fused.size(); ++i) {
    if (std::memcmp(&fused[i], &cube[i], sizeof(D)) != 0) first_diff = i;
  }
  EXPECT_EQ(first_diff, fused.size())
      << "C(" << first_diff / c.n << ", " << first_diff % c.n << "): fused "
      << static_cast<float>(fused[std::min(first_diff, fused.size() - 1)]) << ", cube "
      << static_cast<float>(cube[std::min(first_diff, cube.size() - 1)]);
}

template <typename S, typename D = float>
void SweepFusedEqualsCube() {
  if (!aicore::kernel::cube::PackedGemmAvailable()) {
    GTEST_SKIP() << "no packed GEMM on this host's ISA: IterateAll always takes the cube path";
  }
  uint32_t seed = 100;
  std::vector<Case> shapes = Shapes();
  shapes.push_back({300, 200, 700, false, false, false, 1});  // several k blocks, long rows
  shapes.push_back({8, 48, 256, false, false, false, 1});     // exactly one full register tile
  shapes.push_back({129, 97, 513, false, false, false, 5});
  for (Case c : shapes) {
    for (int t = 0; t < 8; ++t) {
      c.trans_a = t & 1;
      c.trans_b = t & 2;
      c.bias = t & 4;
      CheckFusedEqualsCube<S, D>(c, seed++);
    }
  }
}

TEST(MatmulFusedPath, FloatEqualsCubePathBitForBit) { SweepFusedEqualsCube<float>(); }
TEST(MatmulFusedPath, HalfEqualsCubePathBitForBit) { SweepFusedEqualsCube<half>(); }
// Half and bfloat16 C: rounded from float as the Fixpipe's F322F16 / F322BF16 rounds.
TEST(MatmulFusedPath, HalfToHalfEqualsCubePathBitForBit) { SweepFusedEqualsCube<half, half>(); }
TEST(MatmulFusedPath, FloatToBfloat16EqualsCubePathBitForBit) {
  SweepFusedEqualsCube<float, bfloat16_t>();
}

TEST(MatmulApiErrors, SetTensorABeforeInit) {
  std::vector<float> a(32 * 32);
  const auto st = RunCube([&] {
    AscendC::TPipe pipe;
    FloatMm mm;
    GlobalTensor<float> g;
    g.SetGlobalBuffer(a.data(), a.size());
    mm.SetTensorA(g);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("SetTensorA"));
  EXPECT_THAT(st.message(), HasSubstr("not initialised"));
}

TEST(MatmulApiErrors, IterateWithoutTensors) {
  const auto t = SmallTiling();
  const auto st = RunCube([&] {
    AscendC::TPipe pipe;
    FloatMm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    mm.Iterate();
  });
  EXPECT_THAT(st.message(), HasSubstr("call SetTensorA and SetTensorB"));
}

TEST(MatmulApiErrors, KOfAShorterThanSingleK) {
  const auto t = SmallTiling();
  std::vector<float> a(32 * 32), b(32 * 32), c(32 * 32);
  const auto st = RunCube([&] {
    AscendC::TPipe pipe;
    FloatMm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    mm.SetOrgShape(32, 32, 16, 32);  // A has only 16 columns, the tiling's K is 32
    GlobalTensor<float> ga, gb, gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
  });
  EXPECT_THAT(st.message(), HasSubstr("Ka=16"));
  EXPECT_THAT(st.message(), HasSubstr("K of A and B must cover singleCoreK"));
}

TEST(MatmulApiErrors, TilingDoesNotFitL0) {
  auto t = SmallTiling();
  t.baseM = 512;
  t.baseK = 256;  // 512 * 256 * 4 B = 512 KiB of L0A
  const auto st = RunCube([&] {
    AscendC::TPipe pipe;
    FloatMm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
  });
  EXPECT_THAT(st.message(), HasSubstr("of L0A"));
  EXPECT_THAT(st.message(), HasSubstr("matmul_api_test.cc"));  // the REGIST_MATMUL_OBJ line
}

TEST(MatmulApiErrors, GetTensorCWithoutIterate) {
  const auto t = SmallTiling();
  std::vector<float> c(32 * 32);
  const auto st = RunCube([&] {
    AscendC::TPipe pipe;
    FloatMm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    GlobalTensor<float> gc;
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.GetTensorC(gc);
  });
  EXPECT_THAT(st.message(), HasSubstr("call Iterate first"));
}

TEST(MatmulApiErrors, BiasWithoutBiasTiling) {
  const auto t = SmallTiling(false);
  std::vector<float> bias(32);
  const auto st = RunCube([&] {
    AscendC::TPipe pipe;
    FloatMm mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(bias.data(), bias.size());
    mm.SetBias(g);
  });
  EXPECT_THAT(st.message(), HasSubstr("isBias = 0"));
}

TEST(MatmulApiErrors, MatmulOnVectorOnlyLaunch) {
  const auto t = SmallTiling();
  const auto st = RunCube(
      [&] {
        AscendC::TPipe pipe;
        FloatMm mm;
        REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
      },
      aicore::KernelMode::kAiv);
  EXPECT_THAT(st.message(), HasSubstr("launch with KernelMode::kMix"));
}

TEST(MatmulApiErrors, GmOperandTooSmall) {
  const auto t = SmallTiling();
  std::vector<float> a(32 * 31), b(32 * 32), c(32 * 32);
  // The cube path fails in the DataCopy into L1, the fused path before it starts. An observer
  // (AICORE_CHECK, the profiler) sends IterateAll down the cube path (Note [Matmul fused path]).
  for (bool fused : {false, true}) {
    AscendC::detail::SetMatmulFusedPath(fused);
    bool observed = false;
    const auto st = RunCube([&] {
      observed = AscendC::detail::Core().observed();
      AscendC::TPipe pipe;
      FloatMm mm;
      REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
      GlobalTensor<float> ga, gb, gc;
      ga.SetGlobalBuffer(a.data(), a.size());
      gb.SetGlobalBuffer(b.data(), b.size());
      gc.SetGlobalBuffer(c.data(), c.size());
      mm.SetTensorA(ga);
      mm.SetTensorB(gb);
      mm.IterateAll(gc);
    });
    EXPECT_FALSE(st.ok());
    if (fused && aicore::kernel::cube::PackedGemmAvailable() && !observed) {
      EXPECT_THAT(st.message(), HasSubstr("Matmul::IterateAll: A: this core's share reaches "
                                          "element 1023 but the GlobalTensor holds 992"));
    } else {
      EXPECT_THAT(st.message(), HasSubstr("DataCopy"));
    }
  }
  AscendC::detail::SetMatmulFusedPath(true);
}

}  // namespace

namespace {

// A and/or B supplied in GM as NZ (fractal columns, as the documented format), against the ND
// reference. NZ shapes are padded: rows to 16, columns to C0.
template <typename S, CubeFormat kFa, CubeFormat kFb>
void CheckNz(int m, int n, int k, bool trans_a, bool trans_b, int dim) {
  SCOPED_TRACE(::testing::Message() << "NZ m=" << m << " n=" << n << " k=" << k
                                    << " transA=" << trans_a << " transB=" << trans_b);
  Case c{m, n, k, trans_a, trans_b, false, dim};
  auto p = MakeProblem<S, float>(c, 5);
  constexpr size_t kC0 = 32 / sizeof(S);
  // GM images: NZ of the stored orientation (rows x cols of a_store / b_store).
  const int a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const int b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  std::vector<S> a_gm = kFa == CubeFormat::NZ
                            ? aicore::ref::NdToNz(p.a_store.data(), a_rows, a_cols, a_cols, kC0)
                            : p.a_store;
  std::vector<S> b_gm = kFb == CubeFormat::NZ
                            ? aicore::ref::NdToNz(p.b_store.data(), b_rows, b_cols, b_cols, kC0)
                            : p.b_store;
  optiling::TCubeTiling t;
  matmul_tiling::MultiCoreMatmulTiling api;
  api.SetDim(dim);
  api.SetAType(TPosition::GM, kFa, TilingType<S>(), trans_a);
  api.SetBType(TPosition::GM, kFb, TilingType<S>(), trans_b);
  api.SetCType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetShape(m, n, k);
  api.SetOrgShape(m, n, k);
  ASSERT_EQ(api.GetTiling(t), 0) << api.last_error();
  std::vector<float> out(size_t(m) * n, -1.0f);
  const auto st =
      aicore::RunKernel("matmul_nz", static_cast<uint32_t>(t.usedCoreNum),
                        aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}, [&] {
                          using AType = AscendC::MatmulType<TPosition::GM, kFa, S>;
                          using BType = AscendC::MatmulType<TPosition::GM, kFb, S>;
                          using CType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
                          AscendC::TPipe pipe;
                          AscendC::Matmul<AType, BType, CType> mm;
                          REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
                          const int64_t idx = AscendC::GetBlockIdx();
                          const int64_t m_blocks = (m + t.singleCoreM - 1) / t.singleCoreM;
                          const int64_t mi = idx % m_blocks, ni = idx / m_blocks;
                          const int64_t m0 = mi * t.singleCoreM, n0 = ni * t.singleCoreN;
                          GlobalTensor<S> ga, gb;
                          GlobalTensor<float> gc;
                          ga.SetGlobalBuffer(a_gm.data(), a_gm.size());
                          gb.SetGlobalBuffer(b_gm.data(), b_gm.size());
                          gc.SetGlobalBuffer(out.data(), out.size());
                          // This core's first element: in NZ a row offset moves by C0 elements per
                          // row, a column offset (a multiple of C0) by whole fractal columns.
                          int64_t off_a, off_b;
                          if constexpr (kFa == CubeFormat::NZ) {
                            off_a = trans_a ? m0 * a_rows : m0 * int64_t(kC0);
                          } else {
                            off_a = trans_a ? m0 : m0 * k;
                          }
                          if constexpr (kFb == CubeFormat::NZ) {
                            off_b = trans_b ? n0 * int64_t(kC0) : n0 * b_rows;
                          } else {
                            off_b = trans_b ? n0 * k : n0;
                          }
                          mm.SetTail(static_cast<int>(std::min<int64_t>(t.singleCoreM, m - m0)),
                                     static_cast<int>(std::min<int64_t>(t.singleCoreN, n - n0)));
                          mm.SetTensorA(ga[off_a], trans_a);
                          mm.SetTensorB(gb[off_b], trans_b);
                          mm.IterateAll(gc[m0 * n + n0]);
                          mm.End();
                        });
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::MatmulRef(p.a_ref, p.b_ref, m, n, k);
  int bad = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    bad += std::fabs(out[i] - ref.c[i]) > aicore::ref::MatmulTolerance(k, ref.abs[i]);
  }
  EXPECT_EQ(bad, 0);
}

TEST(MatmulApiNz, HalfAnyOrientation) {
  CheckNz<half, CubeFormat::NZ, CubeFormat::NZ>(64, 48, 96, false, false, 1);
  CheckNz<half, CubeFormat::NZ, CubeFormat::NZ>(160, 96, 320, false, true, 4);
  CheckNz<half, CubeFormat::NZ, CubeFormat::ND>(48, 33, 64, true, false, 1);
}

TEST(MatmulApiNz, FloatAAndTransposedB) {
  CheckNz<float, CubeFormat::NZ, CubeFormat::ND>(64, 70, 88, false, false, 1);
  CheckNz<float, CubeFormat::NZ, CubeFormat::NZ>(160, 96, 120, false, true, 3);
}

TEST(MatmulApiNz, FloatBWithKAlongRowsIsRefused) {
  std::vector<float> b(64 * 64);
  optiling::TCubeTiling t;
  Case c{64, 64, 64, false, false, false, 1};
  ASSERT_EQ((MakeTiling<float, float>(c, t)), 0);
  const auto st = aicore::RunKernel(
      "matmul_nz", 1, aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}, [&] {
        using FType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
        using NzType = AscendC::MatmulType<TPosition::GM, CubeFormat::NZ, float>;
        AscendC::TPipe pipe;
        AscendC::Matmul<FType, NzType, FType> mm;
        REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
        GlobalTensor<float> gb;
        gb.SetGlobalBuffer(b.data(), b.size());
        mm.SetTensorB(gb, false);
      });
  EXPECT_THAT(st.message(), HasSubstr("CubeFormat::NZ operand of float"));
}

}  // namespace

namespace {

// The Matmul is built on the public primitives, so the funnel (timing model, sanitizer) sees
// every step on its pipe: Nd2Nz copies on MTE2, L0 fills on MTE1, Mmad on M with the problem's
// flops, Fixpipe on FIX with C's bytes.
TEST(MatmulApi, IssuesThePrimitivesOnTheirPipes) {
  const Case c{96, 80, 200, false, false, true, 1};
  auto p = MakeProblem<half, float>(c, 3);
  aicore::testing::InstrLog log;
  RunCase<half, float, float>(c, p);
  const auto nd2nz = log.Of("DataCopy");
  const auto loads = log.Of("LoadData");
  const auto mmads = log.Of("Mmad");
  const auto fix = log.Of("Fixpipe");
  ASSERT_FALSE(nd2nz.empty());
  ASSERT_FALSE(loads.empty());
  ASSERT_FALSE(mmads.empty());
  ASSERT_FALSE(fix.empty());
  uint64_t flops = 0;
  for (const auto& in : mmads) {
    EXPECT_EQ(in.pipe, aicore::sim::Pipe::kM);
    flops += in.flops;
  }
  EXPECT_EQ(flops, 2ull * c.m * c.n * c.k);
  for (const auto& in : loads) EXPECT_EQ(in.pipe, aicore::sim::Pipe::kMte1);
  uint64_t c_bytes = 0;
  for (const auto& in : fix) {
    EXPECT_EQ(in.pipe, aicore::sim::Pipe::kFix);
    c_bytes += in.dst.bytes;
  }
  EXPECT_GE(c_bytes, static_cast<uint64_t>(c.m) * c.n * sizeof(float));
  bool mte2 = false;
  for (const auto& in : nd2nz) mte2 = mte2 || in.pipe == aicore::sim::Pipe::kMte2;
  EXPECT_TRUE(mte2);
}

}  // namespace

namespace {

TEST(MatmulLocalWorkspace, AcceptsAUbTensorAndRefusesOthers) {
  using AType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using CType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
  auto ok = aicore::RunKernel("mm_ws", 1, aicore::LaunchOptions{}, [] {
    AscendC::Matmul<AType, AType, CType> mm;
    AscendC::LocalMemAllocator<AscendC::Hardware::UB> ub;
    mm.SetLocalWorkspace(ub.Alloc<uint8_t>(1024));
  });
  EXPECT_TRUE(ok.ok()) << ok.ToString();
  auto bad = aicore::RunKernel(
      "mm_ws", 1, aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}, [] {
        AscendC::Matmul<AType, AType, CType> mm;
        AscendC::LocalMemAllocator<AscendC::Hardware::L1> l1;
        mm.SetLocalWorkspace(l1.Alloc<uint8_t>(1024));
      });
  EXPECT_THAT(bad.message(), ::testing::HasSubstr("tmpBuffer is at A1; the Matmul's scratch must "
                                                  "be a VECCALC (UB) tensor"));
}

}  // namespace
