// The Matmul with LocalTensor operands (Note [Matmul local operands]): A and/or B copied by the
// kernel into L1 (TPosition::TSCM, NZ) or into UB (VECOUT/VECCALC, on the AIV of a mix launch),
// against the double reference over tails, transposes, input types and bias; clean under the
// sanitizer; no MTE2 of its own for a TSCM operand; and the misuse errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/perf/profiler.h"
#include "aicore/runtime/launch.h"
#include "lib/matmul_intf.h"
#include "tests/kernel/cube/cube_test_util.h"
#include "tests/reference/matmul_ref.h"
#include "tiling/tiling_api.h"

namespace {

using AscendC::GlobalTensor;
using AscendC::LocalTensor;
using AscendC::TPosition;
using ::testing::HasSubstr;

// Where the kernel puts an operand.
enum class Where { kGm, kTscm, kUb };

constexpr TPosition PosOf(Where w) {
  return w == Where::kGm ? TPosition::GM : w == Where::kTscm ? TPosition::TSCM : TPosition::VECOUT;
}
constexpr CubeFormat FormatOf(Where w) {
  return w == Where::kTscm ? CubeFormat::NZ : CubeFormat::ND;
}

struct Case {
  int m, n, k;
  bool trans_a, trans_b, bias;
  int dim;
};

template <typename T>
matmul_tiling::DataType TilingType() {
  if constexpr (std::is_same_v<T, float>)
    return matmul_tiling::DataType::DT_FLOAT;
  else if constexpr (std::is_same_v<T, half>)
    return matmul_tiling::DataType::DT_FLOAT16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return matmul_tiling::DataType::DT_INT8;
  else if constexpr (std::is_same_v<T, int32_t>)
    return matmul_tiling::DataType::DT_INT32;
  else
    return matmul_tiling::DataType::DT_BF16;
}

// A and B as stored in GM (their orientation) and as (M, K) / (K, N) for the reference.
template <typename S>
using BiasOf = std::conditional_t<std::is_same_v<S, int8_t>, int32_t, float>;

template <typename S>
struct Problem {
  std::vector<S> a_store, b_store, a_ref, b_ref;
  std::vector<BiasOf<S>> bias;
  std::vector<double> bias_ref;
};

template <typename S>
Problem<S> MakeProblem(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-8, 8);
  Problem<S> p;
  p.a_ref.resize(size_t(c.m) * c.k);
  p.b_ref.resize(size_t(c.k) * c.n);
  auto value = [&]() -> S {
    if constexpr (std::is_same_v<S, int8_t>)
      return static_cast<S>(small(rng) * 15);
    else
      return S(static_cast<float>(small(rng)) / 8.0f);  // exact in every float type
  };
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
      p.bias.push_back(static_cast<BiasOf<S>>(small(rng)));
      p.bias_ref.push_back(p.bias.back());
    }
  }
  return p;
}

template <typename S, typename D>
optiling::TCubeTiling MakeTiling(const Case& c, TPosition pos_a, CubeFormat fa, TPosition pos_b,
                                 CubeFormat fb) {
  matmul_tiling::MultiCoreMatmulTiling api(
      *platform_ascendc::PlatformAscendCManager::GetInstance());
  api.SetDim(c.dim);
  api.SetAType(pos_a, fa, TilingType<S>(), c.trans_a);
  api.SetBType(pos_b, fb, TilingType<S>(), c.trans_b);
  api.SetCType(TPosition::GM, CubeFormat::ND, TilingType<D>());
  api.SetBiasType(TPosition::GM, CubeFormat::ND, TilingType<BiasOf<S>>());
  api.SetShape(c.m, c.n, c.k);
  api.SetOrgShape(c.m, c.n, c.k);
  api.SetBias(c.bias);
  optiling::TCubeTiling t;
  EXPECT_EQ(api.GetTiling(t), 0) << api.last_error();
  return t;
}

constexpr int64_t Round(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

// The line of the kernel's own GM -> TSCM copy (CopyToTscm), to tell its records from the
// Matmul's.
uint32_t g_tscm_copy_line = 0;

// Copies the rows x cols block at src (row pitch ld) into a new TSCM tensor in NZ, rows padded to
// 16 (the layout Note [Matmul local operands] asks for), as a kernel does with Nd2NzParams.
template <typename S>
LocalTensor<S> CopyToTscm(AscendC::TQue<TPosition::TSCM, 1>& q, AscendC::TPipe& pipe,
                          const GlobalTensor<S>& src, int64_t rows, int64_t cols, int64_t ld) {
  constexpr int64_t kC0 = 32 / sizeof(S);
  pipe.InitBuffer(q, 1, static_cast<uint32_t>(Round(rows, 16) * Round(cols, kC0) * sizeof(S)));
  LocalTensor<S> t = q.template AllocTensor<S>();
  const auto here = AscendC::detail::SrcLoc::current();
  g_tscm_copy_line = here.line();
  AscendC::DataCopy(
      t, src,
      AscendC::Nd2NzParams(1, static_cast<uint16_t>(rows), static_cast<uint16_t>(cols), 0,
                           static_cast<uint16_t>(ld), static_cast<uint16_t>(Round(rows, 16)), 1, 0),
      here);
  return t;
}

// Copies `n` elements from GM into a new UB (VECCALC) tensor, zero-padded to whole 32-byte
// blocks, and waits for the copy.
template <typename S>
LocalTensor<S> CopyToUb(AscendC::TBuf<TPosition::VECCALC>& buf, AscendC::TPipe& pipe,
                        const GlobalTensor<S>& src, uint32_t n) {
  constexpr uint32_t kBlock = 32 / sizeof(S);
  const uint32_t padded = static_cast<uint32_t>(Round(n, kBlock));
  pipe.InitBuffer(buf, padded * static_cast<uint32_t>(sizeof(S)));
  LocalTensor<S> t = buf.template Get<S>(padded);
  AscendC::DataCopyPad(
      t, src, AscendC::DataCopyExtParams(1, static_cast<uint32_t>(n * sizeof(S)), 0, 0, 0),
      AscendC::DataCopyPadExtParams<S>(true, 0, static_cast<uint8_t>(padded - n), S(0)));
  const event_t id = pipe.FetchEventID(AscendC::HardEvent::MTE2_MTE3);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(id);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(id);
  return t;
}

// One block of the multi-core Matmul with A and B where kA / kB say. A TSCM operand is this
// core's block copied by the kernel; a UB operand is the whole stored matrix (the Matmul reads
// this core's part from the offset tensor).
template <typename S, typename D, Where kA, Where kB>
void LocalKernel(const Case& c, const TCubeTiling& t, Problem<S>& p, D* out, bool iterate_loop) {
  using AType = AscendC::MatmulType<PosOf(kA), FormatOf(kA), S>;
  using BType = AscendC::MatmulType<PosOf(kB), FormatOf(kB), S>;
  using CType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, D>;
  using BiasType = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, BiasOf<S>>;
  AscendC::TPipe pipe;
  AscendC::Matmul<AType, BType, CType, BiasType> mm;
  REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &t);
  const int64_t idx = AscendC::GetBlockIdx();
  if (idx >= t.usedCoreNum) return;
  const int64_t m_blocks = (c.m + t.singleCoreM - 1) / t.singleCoreM;
  const int64_t mi = idx % m_blocks, ni = idx / m_blocks;
  const int64_t m0 = mi * t.singleCoreM, n0 = ni * t.singleCoreN;
  const int64_t tm = std::min<int64_t>(t.singleCoreM, c.m - m0);
  const int64_t tn = std::min<int64_t>(t.singleCoreN, c.n - n0);
  GlobalTensor<S> ga, gb;
  GlobalTensor<D> gc;
  GlobalTensor<BiasOf<S>> gbias;
  ga.SetGlobalBuffer(p.a_store.data(), p.a_store.size());
  gb.SetGlobalBuffer(p.b_store.data(), p.b_store.size());
  gc.SetGlobalBuffer(out, size_t(c.m) * c.n);
  const int64_t off_a = c.trans_a ? m0 : m0 * c.k;
  const int64_t off_b = c.trans_b ? n0 * c.k : n0;
  mm.SetTail(static_cast<int>(tm), static_cast<int>(tn));
  AscendC::TQue<TPosition::TSCM, 1> qa, qb;
  AscendC::TBuf<TPosition::VECCALC> ua, ub;
  LocalTensor<S> la, lb;
  if constexpr (kA == Where::kTscm) {
    la = CopyToTscm(qa, pipe, ga[off_a], c.trans_a ? c.k : tm, c.trans_a ? tm : c.k,
                    c.trans_a ? c.m : c.k);
    mm.SetTensorA(la, c.trans_a);
  } else if constexpr (kA == Where::kUb) {
    la = CopyToUb(ua, pipe, ga, static_cast<uint32_t>(p.a_store.size()));
    mm.SetTensorA(la[static_cast<uint32_t>(off_a)], c.trans_a);
  } else {
    mm.SetTensorA(ga[off_a], c.trans_a);
  }
  if constexpr (kB == Where::kTscm) {
    lb = CopyToTscm(qb, pipe, gb[off_b], c.trans_b ? tn : c.k, c.trans_b ? c.k : tn,
                    c.trans_b ? c.k : c.n);
    mm.SetTensorB(lb, c.trans_b);
  } else if constexpr (kB == Where::kUb) {
    lb = CopyToUb(ub, pipe, gb, static_cast<uint32_t>(p.b_store.size()));
    mm.SetTensorB(lb[static_cast<uint32_t>(off_b)], c.trans_b);
  } else {
    mm.SetTensorB(gb[off_b], c.trans_b);
  }
  if (c.bias) {
    gbias.SetGlobalBuffer(p.bias.data(), p.bias.size());
    mm.SetBias(gbias[n0]);
  }
  if (iterate_loop) {
    while (mm.Iterate()) mm.GetTensorC(gc[m0 * c.n + n0]);
  } else {
    mm.IterateAll(gc[m0 * c.n + n0]);
  }
  mm.End();
  if constexpr (kA == Where::kTscm) qa.FreeTensor(la);
  if constexpr (kB == Where::kTscm) qb.FreeTensor(lb);
}

// Runs the case (UB operands: a mix launch, the AIVs calling; otherwise cube-only) and returns C.
template <typename S, typename D, Where kA, Where kB>
std::vector<D> RunLocal(const Case& c, Problem<S>& p, bool iterate_loop = false) {
  const optiling::TCubeTiling t =
      MakeTiling<S, D>(c, PosOf(kA), FormatOf(kA), PosOf(kB), FormatOf(kB));
  std::vector<D> out(size_t(c.m) * c.n, D(-1.0f));
  constexpr bool kMix = kA == Where::kUb || kB == Where::kUb;
  const uint32_t blocks =
      kMix ? static_cast<uint32_t>((t.usedCoreNum + 1) / 2) : static_cast<uint32_t>(t.usedCoreNum);
  const aicore::Status st = aicore::RunKernel(
      "matmul_local", blocks,
      aicore::LaunchOptions{.mode = kMix ? aicore::KernelMode::kMix : aicore::KernelMode::kAic},
      [&] { LocalKernel<S, D, kA, kB>(c, t, p, out.data(), iterate_loop); });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

template <typename S, typename D, Where kA, Where kB>
void CheckLocal(const Case& c, uint32_t seed, bool iterate_loop = false) {
  SCOPED_TRACE(::testing::Message()
               << "m=" << c.m << " n=" << c.n << " k=" << c.k << " transA=" << c.trans_a
               << " transB=" << c.trans_b << " bias=" << c.bias << " dim=" << c.dim);
  auto p = MakeProblem<S>(c, seed);
  const std::vector<D> out = RunLocal<S, D, kA, kB>(c, p, iterate_loop);
  const auto ref = aicore::ref::MatmulRef(p.a_ref, p.b_ref, c.m, c.n, c.k, nullptr,
                                          c.bias ? p.bias_ref.data() : nullptr);
  int bad = 0;
  for (size_t i = 0; i < out.size() && bad < 5; ++i) {
    double tol = aicore::ref::MatmulTolerance(c.k, ref.abs[i]);
    if constexpr (std::is_same_v<D, half>) tol += std::fabs(ref.c[i]) * std::ldexp(1.0, -11);
    const double got = static_cast<double>(static_cast<float>(out[i]));
    if (!(std::fabs(got - ref.c[i]) <= tol)) {
      ++bad;
      ADD_FAILURE() << "C(" << i / c.n << ", " << i % c.n << ") = " << got << ", want " << ref.c[i];
    }
  }
}

// Shapes with tails in M, N and K, one core and several.
const std::vector<Case>& Shapes() {
  static const std::vector<Case> shapes = {
      {15, 17, 33, false, false, false, 1},
      {64, 48, 96, false, false, true, 1},
      {100, 70, 130, false, false, false, 4},
      {33, 40, 300, false, false, true, 2},
      {200, 150, 272, false, false, true, 1},  // several base blocks of M and of K in one core
  };
  return shapes;
}

// Sweeps the shapes over the orientations `orients` (bit 0: A transposed, bit 1: B transposed).
template <typename S, typename D, Where kA, Where kB>
void Sweep(std::initializer_list<int> orients) {
  uint32_t seed = 1;
  for (Case c : Shapes()) {
    for (int o : orients) {
      c.trans_a = o & 1;
      c.trans_b = o & 2;
      CheckLocal<S, D, kA, kB>(c, seed++);
    }
  }
}

// 16-bit NZ loads in any orientation; float NZ in L1 as A not transposed / B transposed.
TEST(MatmulTscm, HalfAInL1) { Sweep<half, float, Where::kTscm, Where::kGm>({0, 1, 2, 3}); }
TEST(MatmulTscm, HalfBInL1) { Sweep<half, float, Where::kGm, Where::kTscm>({0, 1, 2, 3}); }
TEST(MatmulTscm, Bfloat16BothInL1) {
  Sweep<bfloat16_t, float, Where::kTscm, Where::kTscm>({0, 1, 2, 3});
}
TEST(MatmulTscm, HalfBothInL1ToHalf) { Sweep<half, half, Where::kTscm, Where::kTscm>({0, 3}); }
TEST(MatmulTscm, FloatAInL1) { Sweep<float, float, Where::kTscm, Where::kGm>({0, 2}); }
// int8 NZ in L1 as float: A not transposed, B transposed (rows of 32-byte C0 blocks).
TEST(MatmulTscm, Int8BothInL1) { Sweep<int8_t, int32_t, Where::kTscm, Where::kTscm>({2}); }
TEST(MatmulTscm, FloatBothInL1) { Sweep<float, float, Where::kTscm, Where::kTscm>({2}); }

// Iterate / GetTensorC walks the same L1 tensors block by block.
TEST(MatmulTscm, IterateLoop) {
  CheckLocal<half, float, Where::kTscm, Where::kTscm>({100, 70, 130, true, false, true, 1}, 5,
                                                      true);
  CheckLocal<half, float, Where::kTscm, Where::kGm>({64, 200, 48, false, true, false, 3}, 6, true);
  CheckLocal<half, float, Where::kUb, Where::kGm>({64, 200, 48, false, true, false, 3}, 7, true);
}

// A TSCM A of 256 KB takes half of 910B1's L1: the host tiling plans B's panels in the half left
// (a plan for the whole L1 would make the Matmul's InitBuffer run out of L1 beside A).
TEST(MatmulTscm, LargeAInL1LeavesTheRestOfL1ToTheMatmul) {
  CheckLocal<half, float, Where::kTscm, Where::kGm>({128, 512, 1024, false, false, false, 1}, 7);
  // M before N: B held for the whole K (256 KB) beside A (256 KB) and the bias row.
  CheckLocal<half, float, Where::kTscm, Where::kGm>({256, 256, 512, false, false, true, 1}, 9);
  CheckLocal<half, float, Where::kGm, Where::kTscm>({512, 96, 1024, false, true, true, 1}, 8);
}

TEST(MatmulUb, HalfAInUb) { Sweep<half, float, Where::kUb, Where::kGm>({0, 1, 2, 3}); }
TEST(MatmulUb, FloatBInUb) { Sweep<float, float, Where::kGm, Where::kUb>({0, 1, 2, 3}); }
TEST(MatmulUb, Bfloat16BothInUb) { Sweep<bfloat16_t, float, Where::kUb, Where::kUb>({0, 3}); }

TEST(MatmulTscm, RunsCleanUnderTheSanitizer) {
  aicore::check::SanitizerOptions options;
  options.tools = aicore::check::kAllTools;
  aicore::check::Sanitizer sanitizer(options);
  CheckLocal<half, float, Where::kTscm, Where::kTscm>({40, 50, 70, true, false, false, 2}, 3);
  CheckLocal<half, float, Where::kUb, Where::kGm>({40, 50, 70, false, true, false, 2}, 4);
  for (const auto& r : sanitizer.reports()) ADD_FAILURE() << r.ToString();
}

// Bytes an MTE2 instruction reads from `lo .. hi` in GM (its strided runs, not the span).
uint64_t Mte2BytesFrom(const std::vector<aicore::sim::Instr>& log, const void* lo, size_t bytes) {
  const auto b = reinterpret_cast<uint64_t>(lo);
  uint64_t sum = 0;
  for (const auto& in : log) {
    if (in.pipe != aicore::sim::Pipe::kMte2 || in.src_count == 0) continue;
    if (in.src[0].offset < b || in.src[0].offset >= b + bytes) continue;
    const auto& st = in.src_stride[0];
    sum += st.blocks > 1 ? uint64_t{st.blocks} * st.block_bytes : in.src[0].bytes;
  }
  return sum;
}
uint64_t Mte2Bytes(const std::vector<aicore::sim::Instr>& log) {
  uint64_t sum = 0;
  for (const auto& in : log) {
    if (in.pipe != aicore::sim::Pipe::kMte2 || in.src_count == 0) continue;
    const auto& st = in.src_stride[0];
    sum += st.blocks > 1 ? uint64_t{st.blocks} * st.block_bytes : in.src[0].bytes;
  }
  return sum;
}

// A in TSCM: the AIC's MTE2 bytes, less the kernel's own copy of A, drop by A's size against
// the same Matmul with A in GM; the Matmul reads nothing of A from GM.
TEST(MatmulTscm, AInL1CostsTheMatmulNoMte2) {
  const Case c{64, 80, 96, false, false, false, 1};
  auto p = MakeProblem<half>(c, 9);
  const uint64_t a_bytes = p.a_store.size() * sizeof(half);
  std::vector<aicore::sim::Instr> gm_log, l1_log;
  {
    aicore::testing::InstrLog log;
    RunLocal<half, float, Where::kGm, Where::kGm>(c, p);
    for (const char* api : {"DataCopy", "LoadData"}) {
      for (const auto& in : log.Of(api)) gm_log.push_back(in);
    }
  }
  {
    aicore::testing::InstrLog log;
    RunLocal<half, float, Where::kTscm, Where::kGm>(c, p);
    for (const char* api : {"DataCopy", "LoadData"}) {
      for (const auto& in : log.Of(api)) l1_log.push_back(in);
    }
  }
  // GM A: the Matmul reads A once. TSCM A: only the kernel's one copy reads A.
  EXPECT_EQ(Mte2BytesFrom(gm_log, p.a_store.data(), a_bytes), a_bytes);
  EXPECT_EQ(Mte2BytesFrom(l1_log, p.a_store.data(), a_bytes), a_bytes);
  int a_reads = 0;
  for (const auto& in : l1_log) {
    const auto lo = reinterpret_cast<uint64_t>(p.a_store.data());
    a_reads += in.pipe == aicore::sim::Pipe::kMte2 && in.src_count > 0 && in.src[0].offset >= lo &&
               in.src[0].offset < lo + a_bytes;
  }
  EXPECT_EQ(a_reads, 1);
  const uint64_t matmul_gm = Mte2Bytes(gm_log);
  const uint64_t matmul_l1 = Mte2Bytes(l1_log) - a_bytes;  // less the kernel's copy
  EXPECT_EQ(matmul_gm - matmul_l1, a_bytes);
}

// The same through the timing model: the AIC's modelled MTE2 bytes (GM -> L1 records), less the
// kernel's own copy, drop by A's size when A is in TSCM.
uint64_t ModelledMte2Bytes(const aicore::perf::LaunchResult& r, uint64_t* kernel_copy) {
  const auto& recs = r.record->cores[0]->records;
  uint64_t sum = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].pipe != aicore::sim::Pipe::kMte2 || recs[i].op != aicore::perf::Op::kCopy) continue;
    if (recs[i].line == g_tscm_copy_line && kernel_copy != nullptr) {
      *kernel_copy += recs[i].bytes;
      continue;
    }
    sum += recs[i].bytes;
  }
  return sum;
}

// 64 x 80 x 96 half with bias on one AIC: the Matmul moves A (12288 B), B and the bias with A in
// GM, only B and the bias with A in TSCM.
TEST(MatmulTscm, AInL1DropsTheModelledMte2OfTheMatmul) {
  const Case c{64, 80, 96, false, false, true, 1};
  auto p = MakeProblem<half>(c, 10);
  const uint64_t a_bytes = p.a_store.size() * sizeof(half);
  aicore::perf::Profiler prof;
  prof.Attach();
  RunLocal<half, float, Where::kGm, Where::kGm>(c, p);
  RunLocal<half, float, Where::kTscm, Where::kGm>(c, p);
  prof.Detach();
  ASSERT_EQ(prof.Results().size(), 2u);
  uint64_t copy = 0;
  const uint64_t gm = ModelledMte2Bytes(prof.Results()[0], nullptr);
  const uint64_t l1 = ModelledMte2Bytes(prof.Results()[1], &copy);
  EXPECT_EQ(copy, a_bytes);     // the kernel's copy pays for A
  EXPECT_EQ(gm - l1, a_bytes);  // the Matmul's own MTE2 no longer moves A
}

// --- misuse ---

using HalfNz = AscendC::MatmulType<TPosition::TSCM, CubeFormat::NZ, half>;
using HalfNd = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, half>;
using FloatNd = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;

optiling::TCubeTiling SmallTiling() {
  return MakeTiling<half, float>({32, 32, 32, false, false, false, 1}, TPosition::TSCM,
                                 CubeFormat::NZ, TPosition::GM, CubeFormat::ND);
}

aicore::Status RunAic(const std::function<void()>& body) {
  return aicore::RunKernel("matmul_local_misuse", 1,
                           aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}, body);
}

TEST(MatmulLocalErrors, TensorAtAnotherPositionThanItsType) {
  const auto t = SmallTiling();
  const auto st = RunAic([&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<HalfNz, HalfNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TBuf<TPosition::A1> buf;
    pipe.InitBuffer(buf, 32 * 32 * sizeof(half));
    mm.SetTensorA(buf.Get<half>(32 * 32));
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("Matmul::SetTensorA"));
  EXPECT_THAT(st.message(), HasSubstr("A (half) is a LocalTensor at A1"));
  EXPECT_THAT(st.message(), HasSubstr("TPosition::TSCM"));
}

TEST(MatmulLocalErrors, GlobalTensorForATscmType) {
  const auto t = SmallTiling();
  std::vector<half> a(32 * 32);
  const auto st = RunAic([&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<HalfNz, HalfNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(a.data(), a.size());
    mm.SetTensorA(g);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("A (half) is a GlobalTensor"));
  EXPECT_THAT(st.message(), HasSubstr("TPosition::TSCM"));
}

TEST(MatmulLocalErrors, LocalTensorForAGmType) {
  const auto t = SmallTiling();
  const auto st = RunAic([&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<HalfNd, HalfNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TQue<TPosition::TSCM, 1> q;
    pipe.InitBuffer(q, 1, 32 * 32 * sizeof(half));
    mm.SetTensorB(q.AllocTensor<half>());
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("Matmul::SetTensorB"));
  EXPECT_THAT(st.message(), HasSubstr("says TPosition::GM"));
}

TEST(MatmulLocalErrors, NdAtTscmIsRefused) {
  const auto t = SmallTiling();
  const auto st = RunAic([&] {
    using HalfTscmNd = AscendC::MatmulType<TPosition::TSCM, CubeFormat::ND, half>;
    AscendC::TPipe pipe;
    AscendC::Matmul<HalfTscmNd, HalfNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TQue<TPosition::TSCM, 1> q;
    pipe.InitBuffer(q, 1, 32 * 32 * sizeof(half));
    mm.SetTensorA(q.AllocTensor<half>());
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("must be CubeFormat::NZ"));
}

TEST(MatmulLocalErrors, FloatNzWithKAlongRowsAtTscmIsRefused) {
  const auto t = MakeTiling<float, float>({32, 32, 32, true, false, false, 1}, TPosition::TSCM,
                                          CubeFormat::NZ, TPosition::GM, CubeFormat::ND);
  const auto st = RunAic([&] {
    using FloatNz = AscendC::MatmulType<TPosition::TSCM, CubeFormat::NZ, float>;
    AscendC::TPipe pipe;
    AscendC::Matmul<FloatNz, FloatNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TQue<TPosition::TSCM, 1> q;
    pipe.InitBuffer(q, 1, 32 * 32 * sizeof(float));
    mm.SetTensorA(q.AllocTensor<float>(), true);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("CubeFormat::NZ operand of float"));
}

TEST(MatmulLocalErrors, TscmTensorSmallerThanTheOperand) {
  const auto t = SmallTiling();
  std::vector<half> b(32 * 32);
  std::vector<float> c(32 * 32);
  const auto st = RunAic([&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<HalfNz, HalfNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TQue<TPosition::TSCM, 1> q;
    pipe.InitBuffer(q, 1, 16 * 32 * sizeof(half));  // half of the 32 x 32 A
    GlobalTensor<half> gb;
    GlobalTensor<float> gc;
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(q.AllocTensor<half>());
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("A at TPosition::TSCM holds 512 elements of half"));
  EXPECT_THAT(st.message(), HasSubstr("needs 1024"));
}

TEST(MatmulLocalErrors, UbTypeTakesOnlyUbTensors) {
  const auto t = MakeTiling<half, float>({32, 32, 32, false, false, false, 1}, TPosition::VECOUT,
                                         CubeFormat::ND, TPosition::GM, CubeFormat::ND);
  const auto st = RunAic([&] {
    using HalfUb = AscendC::MatmulType<TPosition::VECOUT, CubeFormat::ND, half>;
    AscendC::TPipe pipe;
    AscendC::Matmul<HalfUb, HalfNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    AscendC::TQue<TPosition::TSCM, 1> q;
    pipe.InitBuffer(q, 1, 32 * 32 * sizeof(half));
    mm.SetTensorA(q.AllocTensor<half>());
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("A (half) is a LocalTensor at TSCM"));
  EXPECT_THAT(st.message(), HasSubstr("says TPosition::VECOUT"));
}

}  // namespace
