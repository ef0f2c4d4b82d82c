// Mmad against tests/reference/matmul_ref.h: every dtype (fp32, fp16, bf16 -> fp32; int8 ->
// int32), shapes with tails in m, n and k, the three initial values (zero, accumulate, bias),
// kDirectionAlign; each ISA's kernels called directly (and compared bit for bit where Note
// [Mmad accumulation order] promises it); the AscendC API in a cube kernel with LoadData
// feeding L0A/L0B; the funnel record; and every error.
#include "aicore/kernel/cube/mmad.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "aicore/core/cpu.h"
#include "aicore/kernel/cube/l0_layout.h"
#include "aicore/kernel/cube/load_data.h"
#include "aicore/kernel/cube/mmad_kernels.h"
#include "tests/kernel/cube/cube_test_util.h"
#include "tests/reference/fractal_ref.h"
#include "tests/reference/matmul_ref.h"

namespace {

namespace cube = aicore::kernel::cube;
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

// Random inputs: floats on a 1/64 grid in [-2, 2] (exact in fp16 and bf16), int8 in [-128, 127].
template <typename S>
std::vector<S> RandomMatrix(size_t count, std::mt19937& rng) {
  std::vector<S> v(count);
  if constexpr (std::is_same_v<S, int8_t>) {
    std::uniform_int_distribution<int> d(-128, 127);
    for (auto& x : v) x = static_cast<int8_t>(d(rng));
  } else {
    std::uniform_int_distribution<int> d(-128, 128);
    for (auto& x : v) x = static_cast<S>(static_cast<float>(d(rng)) / 64.0f);
  }
  return v;
}

// A value for padding that poisons any result it reaches.
template <typename S>
S Poison() {
  if constexpr (std::is_same_v<S, int8_t>)
    return 99;
  else
    return static_cast<S>(std::numeric_limits<float>::quiet_NaN());
}

template <typename S>
using AccOf = std::conditional_t<std::is_same_v<S, int8_t>, int32_t, float>;

// Host images of L0A / L0B / L0C for one Mmad, in the layouts of l0_layout.h.
template <typename S>
struct Operands {
  uint32_t m, n, k, m1, n1, a_k1, b_k1;
  std::vector<S> a_nd, b_nd;
  std::vector<S> l0a, l0b;
  std::vector<AccOf<S>> l0c;   // initial contents (random for accumulate mode)
  std::vector<AccOf<S>> bias;  // n values
  std::vector<double> init_nd, bias_d;
};

template <typename S>
Operands<S> MakeOperands(uint32_t m, uint32_t n, uint32_t k, bool k_align, uint32_t seed) {
  std::mt19937 rng(seed);
  Operands<S> o;
  constexpr uint32_t kK0 = l0::kK0<S>;
  o.m = m, o.n = n, o.k = k;
  o.m1 = (m + 15) / 16;
  o.n1 = (n + 15) / 16;
  o.b_k1 = (k + kK0 - 1) / kK0;
  o.a_k1 = k_align ? (o.b_k1 + 1) / 2 * 2 : o.b_k1;
  o.a_nd = RandomMatrix<S>(size_t{m} * k, rng);
  o.b_nd = RandomMatrix<S>(size_t{k} * n, rng);
  constexpr size_t kFracElems = 512 / sizeof(S);
  o.l0a.assign(size_t{o.m1} * o.a_k1 * kFracElems, Poison<S>());
  o.l0b.assign(size_t{o.b_k1} * o.n1 * kFracElems, Poison<S>());
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t p = 0; p < k; ++p) o.l0a[l0::AIndex<S>(i, p, o.a_k1)] = o.a_nd[i * k + p];
  for (uint32_t p = 0; p < k; ++p)
    for (uint32_t j = 0; j < n; ++j) o.l0b[l0::BIndex<S>(p, j, o.n1)] = o.b_nd[p * n + j];
  o.l0c.assign(size_t{o.m1} * o.n1 * 256, AccOf<S>{});
  o.init_nd.assign(size_t{m} * n, 0.0);
  std::uniform_int_distribution<int> d(-1000, 1000);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      const auto v = static_cast<AccOf<S>>(d(rng));
      o.l0c[aicore::ref::L0cOffset(i, j, o.m1)] = v;
      o.init_nd[i * n + j] = static_cast<double>(v);
    }
  }
  for (uint32_t j = 0; j < n; ++j) {
    o.bias.push_back(static_cast<AccOf<S>>(d(rng)));
    o.bias_d.push_back(static_cast<double>(o.bias.back()));
  }
  return o;
}

// Checks the valid m x n region of an L0C image against the reference.
template <typename S>
void ExpectMatches(const Operands<S>& o, const std::vector<AccOf<S>>& c, cube::MmadInit init,
                   const std::string& what) {
  const auto ref =
      aicore::ref::MatmulRef(o.a_nd, o.b_nd, o.m, o.n, o.k,
                             init == cube::MmadInit::kAccumulate ? o.init_nd.data() : nullptr,
                             init == cube::MmadInit::kBias ? o.bias_d.data() : nullptr);
  int bad = 0;
  for (uint32_t i = 0; i < o.m && bad < 5; ++i) {
    for (uint32_t j = 0; j < o.n && bad < 5; ++j) {
      const double got = static_cast<double>(c[aicore::ref::L0cOffset(i, j, o.m1)]);
      const double want = ref.c[i * o.n + j];
      const double tol =
          std::is_same_v<S, int8_t> ? 0.0 : aicore::ref::MatmulTolerance(o.k, ref.abs[i * o.n + j]);
      if (!(std::fabs(got - want) <= tol)) {
        ADD_FAILURE() << what << ": C(" << i << ", " << j << ") = " << got << ", want " << want
                      << " (tolerance " << tol << ")";
        ++bad;
      }
    }
  }
}

struct Variant {
  const char* name;
  void (*mmad)(const cube::MmadJob&);
  cube::Bf16Path bf16;
};

// The kernel families this host can run, portable first.
std::vector<Variant> Variants() {
  using cube::Bf16Path;
  std::vector<Variant> v = {{"portable", cube::isa_portable::Mmad, Bf16Path::kAuto}};
#if defined(__x86_64__)
  if (aicore::DetectedIsa() >= aicore::Isa::kAvx2) {
    v.push_back({"avx2", cube::isa_avx2::Mmad, Bf16Path::kAuto});
  }
  if (aicore::DetectedIsa() >= aicore::Isa::kAvx512) {
    v.push_back({"avx512 (bf16 widened)", cube::isa_avx512::Mmad, Bf16Path::kWiden});
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512bf16")) {
      v.push_back({"avx512 (bf16 VDPBF16PS)", cube::isa_avx512::Mmad, Bf16Path::kDot});
    }
    // AMX where the CPU and OS allow it and m, k are multiples of 16; else as kAuto.
    v.push_back({"avx512 (bf16 AMX)", cube::isa_avx512::Mmad, Bf16Path::kAmx});
  }
#endif
  return v;
}

template <typename S>
std::vector<AccOf<S>> RunJob(const Variant& v, const Operands<S>& o, cube::MmadInit init) {
  std::vector<AccOf<S>> c = o.l0c;
  cube::MmadJob job;
  job.type = AscendC::detail::MmadTypeOf<S>();
  job.init = init;
  job.m = o.m, job.n = o.n, job.k = o.k;
  job.m1 = o.m1, job.n1 = o.n1, job.a_k1 = o.a_k1, job.b_k1 = o.b_k1;
  job.a = o.l0a.data();
  job.b = o.l0b.data();
  job.c = c.data();
  job.bias = o.bias.data();
  job.bf16_path = v.bf16;
  v.mmad(job);
  return c;
}

constexpr uint32_t kDims[] = {1, 15, 16, 17, 31, 32, 64, 100, 128};

template <typename T>
class MmadKernelTest : public ::testing::Test {};
using MmadTypes = ::testing::Types<float, half, bfloat16, int8_t>;
TYPED_TEST_SUITE(MmadKernelTest, MmadTypes);

// Every ISA against the reference over all shapes from kDims^3, each init mode once per shape.
TYPED_TEST(MmadKernelTest, EveryIsaMatchesTheReference) {
  using S = TypeParam;
  const cube::MmadInit inits[] = {cube::MmadInit::kZero, cube::MmadInit::kAccumulate,
                                  cube::MmadInit::kBias};
  uint32_t seed = 1;
  for (uint32_t m : kDims) {
    for (uint32_t n : kDims) {
      for (uint32_t k : kDims) {
        const auto o = MakeOperands<S>(m, n, k, false, seed);
        const auto init = inits[seed++ % 3];
        for (const auto& v : Variants()) {
          const auto c = RunJob(v, o, init);
          ExpectMatches(o, c, init,
                        std::string(v.name) + " " + std::to_string(m) + "x" + std::to_string(n) +
                            "x" + std::to_string(k) + " init " + std::to_string(int(init)));
        }
      }
    }
  }
}

// fp32, fp16 and int8 follow one accumulation order on every ISA: bit-identical C (bf16 too when
// widened instead of using VDPBF16PS).
TYPED_TEST(MmadKernelTest, IsasAgreeBitForBit) {
  using S = TypeParam;
  const uint32_t shapes[][3] = {{128, 256, 64}, {100, 17, 31}, {1, 128, 100}, {33, 48, 129}};
  for (const auto& s : shapes) {
    const auto o = MakeOperands<S>(s[0], s[1], s[2], false, 7);
    for (auto init : {cube::MmadInit::kZero, cube::MmadInit::kAccumulate, cube::MmadInit::kBias}) {
      const auto base = RunJob(Variants()[0], o, init);
      for (const auto& v : Variants()) {
        if (std::is_same_v<S, bfloat16> && v.bf16 != cube::Bf16Path::kWiden &&
            std::string(v.name) != "portable" && std::string(v.name) != "avx2") {
          continue;  // VDPBF16PS / AMX sum k-pairs: within tolerance, not bit-identical
        }
        const auto c = RunJob(v, o, init);
        for (uint32_t i = 0; i < o.m; ++i) {
          for (uint32_t j = 0; j < o.n; ++j) {
            const size_t at = aicore::ref::L0cOffset(i, j, o.m1);
            ASSERT_EQ(std::memcmp(&c[at], &base[at], sizeof(c[at])), 0)
                << v.name << " vs portable at (" << i << ", " << j << ") of " << s[0] << "x" << s[1]
                << "x" << s[2] << ": " << c[at] << " vs " << base[at];
          }
        }
      }
    }
  }
}

// kDirectionAlign (fp32): A's fractal rows hold an even number of k-fractals.
TEST(MmadKernel, KDirectionAlignPadsTheRowsOfA) {
  for (uint32_t k : {1u, 8u, 9u, 17u, 24u, 100u}) {
    const auto o = MakeOperands<float>(40, 33, k, true, k);
    for (const auto& v : Variants()) {
      ExpectMatches(o, RunJob(v, o, cube::MmadInit::kZero), cube::MmadInit::kZero,
                    std::string(v.name) + " kDirectionAlign k=" + std::to_string(k));
    }
  }
}

// Rows m >= M of C are never written; k = 0 leaves the initial value.
TEST(MmadKernel, PaddingRowsUntouchedAndEmptyK) {
  for (const auto& v : Variants()) {
    auto o = MakeOperands<float>(5, 20, 0, false, 3);
    const float sentinel = 12345.0f;
    for (uint32_t i = 5; i < 16; ++i)
      for (uint32_t j = 0; j < 20; ++j) o.l0c[aicore::ref::L0cOffset(i, j, o.m1)] = sentinel;
    const auto c = RunJob(v, o, cube::MmadInit::kBias);
    for (uint32_t j = 0; j < 20; ++j) {
      EXPECT_EQ(c[aicore::ref::L0cOffset(0, j, o.m1)], o.bias[j]) << v.name;
      EXPECT_EQ(c[aicore::ref::L0cOffset(9, j, o.m1)], sentinel) << v.name;
    }
  }
}

// --- The AscendC API in a cube kernel ----------------------------------------------------------

// Runs Mmad through LoadData: A and B (documented Zz / Zn fractals) are placed in L1, loaded
// into L0A/L0B one call each, multiplied, and C read back.
template <typename S>
void RunApiCase(uint32_t m, uint32_t n, uint32_t k, int mode) {
  const auto o = MakeOperands<S>(m, n, k, false, m * 7 + n + k);
  const auto zz = aicore::ref::NdToZz(o.a_nd.data(), m, k, k);
  const auto zn = aicore::ref::NdToZn(o.b_nd.data(), k, n, n);
  std::vector<AccOf<S>> c;
  const auto st = RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1_buf;
    AscendC::TBuf<TPosition::B1> b1_buf;
    AscendC::TBuf<TPosition::A2> a2_buf;
    AscendC::TBuf<TPosition::B2> b2_buf;
    AscendC::TBuf<TPosition::CO1> c_buf;
    AscendC::TBuf<TPosition::C2> bias_buf;
    auto l1_a = Carve<S>(pipe, a1_buf, static_cast<uint32_t>(zz.size()));
    auto l1_b = Carve<S>(pipe, b1_buf, static_cast<uint32_t>(zn.size()));
    auto l0a = Carve<S>(pipe, a2_buf, static_cast<uint32_t>(zz.size()));
    auto l0b = Carve<S>(pipe, b2_buf, static_cast<uint32_t>(zn.size()));
    auto l0c = Carve<AccOf<S>>(pipe, c_buf, static_cast<uint32_t>(o.l0c.size()));
    auto bt = Carve<AccOf<S>>(pipe, bias_buf, n);
    Fill(l1_a, zz);
    Fill(l1_b, zn);
    Fill(l0c, o.l0c);
    Fill(bt, o.bias);
    AscendC::LoadData2DParams la;
    la.repeatTimes = static_cast<uint8_t>(zz.size() * sizeof(S) / 512);
    la.srcStride = 1;
    AscendC::LoadData(l0a, l1_a, la);
    AscendC::LoadData2DParams lb = la;
    lb.repeatTimes = static_cast<uint8_t>(zn.size() * sizeof(S) / 512);
    AscendC::LoadData(l0b, l1_b, lb);
    AscendC::MmadParams p;
    p.m = static_cast<uint16_t>(m);
    p.n = static_cast<uint16_t>(n);
    p.k = static_cast<uint16_t>(k);
    if (mode == 1) p.cmatrixInitVal = false;
    if (mode == 2) {
      AscendC::Mmad(l0c, l0a, l0b, bt, p);
    } else {
      AscendC::Mmad(l0c, l0a, l0b, p);
    }
    c = Read(l0c, o.l0c.size());
  });
  ASSERT_TRUE(st.ok()) << st.message();
  const cube::MmadInit init = mode == 0   ? cube::MmadInit::kZero
                              : mode == 1 ? cube::MmadInit::kAccumulate
                                          : cube::MmadInit::kBias;
  ExpectMatches(o, c, init,
                "API " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                    " mode " + std::to_string(mode) + " (" +
                    cube::MmadKernelName(AscendC::detail::MmadTypeOf<S>()) + ")");
}

TYPED_TEST(MmadKernelTest, ApiThroughLoadData) {
  using S = TypeParam;
  // (m, n, k) with tails; sizes keep L0A/L0B within 64 KB for every dtype.
  const uint32_t shapes[][3] = {{1, 1, 1}, {16, 16, 16}, {17, 31, 33}, {64, 48, 64}, {100, 64, 37}};
  int mode = 0;
  for (const auto& s : shapes) RunApiCase<S>(s[0], s[1], s[2], mode++ % 3);
}

TEST(MmadApi, FunnelRecord) {
  InstrLog log;
  RunApiCase<half>(32, 48, 64, 0);
  const auto recs = log.Of("Mmad");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].pipe, aicore::sim::Pipe::kM);
  EXPECT_EQ(recs[0].kind, aicore::sim::InstrKind::kCompute);
  EXPECT_EQ(recs[0].flops, 2u * 32 * 48 * 64);
  EXPECT_EQ(recs[0].dtype, aicore::DType::kF16);
  EXPECT_EQ(recs[0].dst.buffer, aicore::arch::Buffer::kL0C);
  EXPECT_EQ(recs[0].dst.bytes, 2u * 3 * 1024);
  EXPECT_EQ(recs[0].src[0].buffer, aicore::arch::Buffer::kL0A);
  EXPECT_EQ(recs[0].src[0].bytes, 2u * 4 * 512);
  EXPECT_EQ(recs[0].src[1].buffer, aicore::arch::Buffer::kL0B);
  EXPECT_EQ(recs[0].src[1].bytes, 4u * 3 * 512);
}

// --- Errors ---------------------------------------------------------------------------------

// Runs body(l0a, l0b, l0c, bias) with float tensors of 16 KB A2/B2, 64 KB CO1 and 1 KB C2.
template <typename Body>
aicore::Status RunErrorCase(Body&& body) {
  return RunOnAic([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2_buf;
    AscendC::TBuf<TPosition::B2> b2_buf;
    AscendC::TBuf<TPosition::CO1> c_buf;
    AscendC::TBuf<TPosition::C2> bias_buf;
    AscendC::TBuf<TPosition::A1> a1_buf;
    auto a = Carve<float>(pipe, a2_buf, 4096);
    auto b = Carve<float>(pipe, b2_buf, 4096);
    auto c = Carve<float>(pipe, c_buf, 16384);
    auto bias = Carve<float>(pipe, bias_buf, 256);
    auto l1 = Carve<float>(pipe, a1_buf, 4096);
    body(a, b, c, bias, l1);
  });
}

AscendC::MmadParams Params(uint16_t m, uint16_t n, uint16_t k) {
  AscendC::MmadParams p;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

TEST(MmadErrors, WrongPositions) {
  auto st = RunErrorCase([](auto a, auto b, auto c, auto, auto l1) {
    AscendC::Mmad(c, l1, b, Params(16, 16, 8));
    (void)a;
  });
  EXPECT_THAT(st.message(), HasSubstr("fm is a A1 tensor in L1; Mmad needs A2 (L0A)"));
  st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    AscendC::Mmad(c, a, a, Params(16, 16, 8));
    (void)b;
  });
  EXPECT_THAT(st.message(), HasSubstr("filter is a A2 tensor in L0A; Mmad needs B2 (L0B)"));
  st = RunErrorCase([](auto a, auto b, auto c, auto, auto l1) {
    AscendC::Mmad(l1, a, b, Params(16, 16, 8));
    (void)c;
  });
  EXPECT_THAT(st.message(), HasSubstr("dst is a A1 tensor in L1; Mmad needs CO1 (L0C)"));
  st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto l1) { AscendC::Mmad(c, a, b, l1, Params(16, 16, 8)); });
  EXPECT_THAT(st.message(), HasSubstr("bias is a A1 tensor in L1; Mmad needs C2 (bias table)"));
}

TEST(MmadErrors, RangesSizesAndAlignment) {
  auto st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto) { AscendC::Mmad(c, a, b, Params(4096, 16, 8)); });
  EXPECT_THAT(st.message(), HasSubstr("m = 4096, n = 16, k = 8: each must be in [0, 4095]"));
  // 16 KB of A2 holds 32 fp32 fractals; 64 x 64 needs 4 x 8.
  st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto) { AscendC::Mmad(c, a, b, Params(80, 16, 64)); });
  EXPECT_THAT(st.message(), HasSubstr("fm holds 16384 bytes but the m x k left matrix in 512-byte "
                                      "fractals needs 20480 bytes"));
  st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto) { AscendC::Mmad(c, a, b, Params(16, 528, 8)); });
  EXPECT_THAT(st.message(), HasSubstr("filter holds 16384 bytes but"));
  st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto) { AscendC::Mmad(c, a, b, Params(128, 144, 8)); });
  EXPECT_THAT(st.message(), HasSubstr("dst holds 65536 bytes but the m x n result"));
  st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto) { AscendC::Mmad(c, a[64], b, Params(16, 16, 8)); });
  EXPECT_THAT(st.message(), HasSubstr("fm starts at L0A offset 256, not on a 512-byte boundary"));
  st = RunErrorCase(
      [](auto a, auto b, auto c, auto, auto) { AscendC::Mmad(c[16], a, b, Params(16, 16, 8)); });
  EXPECT_THAT(st.message(), HasSubstr("dst starts at L0C offset 64, not on a 1024-byte boundary"));
  st = RunErrorCase([](auto a, auto b, auto c, auto bias, auto) {
    AscendC::Mmad(c, a, b, bias, Params(16, 300, 8));
  });
  EXPECT_THAT(st.message(),
              HasSubstr("bias holds 1024 bytes but one value per column n needs 1200"));
}

TEST(MmadErrors, TypesAndParams) {
  auto st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    auto ah = a.template ReinterpretCast<half>();
    auto bh = b.template ReinterpretCast<half>();
    auto ch = c.template ReinterpretCast<half>();
    AscendC::Mmad(ch, ah, bh, Params(16, 16, 16));
  });
  EXPECT_THAT(st.message(), HasSubstr("no Mmad for half x half -> half"));
  st = RunErrorCase([](auto a, auto b, auto c, auto bias, auto) {
    AscendC::Mmad(c, a, b, bias.template ReinterpretCast<int32_t>(), Params(16, 16, 8));
  });
  EXPECT_THAT(st.message(), HasSubstr("bias of int32_t for float inputs; the bias must be float"));
  st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    auto p = Params(16, 16, 8);
    p.cmatrixInitVal = false;
    p.cmatrixSource = true;
    AscendC::Mmad(c, a, b, p);
  });
  EXPECT_THAT(st.message(), HasSubstr("cmatrixSource = true starts C from the bias table"));
  st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    auto p = Params(16, 16, 8);
    p.unitFlag = 1;
    AscendC::Mmad(c, a, b, p);
  });
  EXPECT_THAT(st.message(), HasSubstr("unitFlag 1 is not 0, 2 or 3"));
  st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    auto p = Params(16, 16, 8);
    p.fmOffset = 4;
    AscendC::Mmad(c, a, b, p);
  });
  EXPECT_THAT(st.message(), HasSubstr("reserved on this architecture"));
  st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    auto p = Params(16, 16, 16);
    p.kDirectionAlign = true;
    AscendC::Mmad(c.template ReinterpretCast<float>(), a.template ReinterpretCast<half>(),
                  b.template ReinterpretCast<half>(), p);
  });
  EXPECT_THAT(st.message(), HasSubstr("kDirectionAlign applies to float inputs only, got half"));
}

TEST(MmadErrors, EmptyShapesAreNoOps) {
  auto st = RunErrorCase([](auto a, auto b, auto c, auto, auto) {
    c.data()[0] = 5.0f;
    AscendC::Mmad(c, a, b, Params(0, 16, 8));
    AscendC::Mmad(c, a, b, Params(16, 0, 8));
    EXPECT_EQ(c.data()[0], 5.0f);
  });
  EXPECT_TRUE(st.ok()) << st.message();
}

}  // namespace
