// The roofline and the triangle stay honest (Note [Roofline] in aicore/perf/results.cc): a kernel
// is never above its roof. The regression case is a 24-core matmul whose operands are re-read
// through L2: its GM traffic runs faster than the HBM could serve it, so an intensity taken over
// all GM bytes (the old definition) put it at 150-170% of "its" roof. With the intensity over
// HBM bytes and the L2 roof beside it, it sits below every ceiling. Also: a Muls-heavy vector
// kernel (whose fitted per-element cost beats 256 B/cycle) stays below the vector peak, and the
// triangle's three values are utilisations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "aicore/perf/profiler.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tests/perf/perf_test_kernels.h"

namespace perf_test {
namespace {

using aicore::perf::LaunchResult;
using ::testing::HasSubstr;

// C(kM, kN) = A(kM, kK) * B(kK, kN), half in, float out, on 24 AICs: 4 x 6 tiles of 128 x 128,
// so every A row panel is read by 6 cores and every B column panel by 4: most reads hit L2 and
// the cores' GM traffic runs faster than the HBM could carry it.
constexpr int kM = 512, kN = 768, kK = 2048, kMCores = 4, kNCores = 6;

LaunchResult ProfileSharedOperandMatmul() {
  TCubeTiling t;
  t.usedCoreNum = kMCores * kNCores;
  t.M = kM;
  t.N = kN;
  t.Ka = t.Kb = t.singleCoreK = kK;
  t.singleCoreM = kM / kMCores;
  t.singleCoreN = kN / kNCores;
  t.baseM = 128;
  t.baseN = 128;
  t.baseK = 64;
  t.depthA1 = t.depthB1 = 8;
  t.stepKa = t.stepKb = 4;
  t.stepM = t.stepN = 1;
  t.dbL0A = t.dbL0B = 2;
  std::vector<half> a(size_t{kM} * kK, half(1.0f)), b(size_t{kK} * kN, half(0.5f));
  std::vector<float> c(size_t{kM} * kN, 0.0f);
  half* pa = a.data();
  half* pb = b.data();
  float* pc = c.data();
  aicore::perf::Profiler prof;
  prof.Attach();
  aicore::LaunchOptions o;
  o.mode = aicore::sim::KernelMode::kAic;
  auto st = aicore::RunKernel("matmul_shared", kMCores * kNCores, o, [=] {
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    mm.Init(&t, &pipe);
    const int mi = GetBlockIdx() % kMCores, ni = GetBlockIdx() / kMCores;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(pa, size_t{kM} * kK);
    gb.SetGlobalBuffer(pb, size_t{kK} * kN);
    gc.SetGlobalBuffer(pc, size_t{kM} * kN);
    mm.SetTensorA(ga[int64_t{mi} * t.singleCoreM * kK]);
    mm.SetTensorB(gb[int64_t{ni} * t.singleCoreN]);
    mm.IterateAll(gc[int64_t{mi} * t.singleCoreM * kN + int64_t{ni} * t.singleCoreN]);
    mm.End();
  });
  prof.Detach();
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c[0], 0.5f * kK);
  EXPECT_EQ(c.back(), 0.5f * kK);
  return prof.Results().at(0);
}

void ExpectUnderEveryRoof(const LaunchResult& r) {
  const auto& f = r.roofline;
  SCOPED_TRACE(r.kernel);
  EXPECT_GT(f.achieved_flops_per_s, 0);
  EXPECT_LE(f.achieved_flops_per_s, f.peak_flops_per_s * (1 + 1e-9));
  if (f.hbm_roof_flops_per_s > 0) {
    EXPECT_LE(f.achieved_flops_per_s, f.hbm_roof_flops_per_s * (1 + 1e-9));
  }
  if (f.l2_roof_flops_per_s > 0) {
    EXPECT_LE(f.achieved_flops_per_s, f.l2_roof_flops_per_s * (1 + 1e-9));
  }
  EXPECT_LE(f.fraction_of_roof, 1 + 1e-9);
  EXPECT_NEAR(f.attainable_flops_per_s,
              std::min({f.peak_flops_per_s,
                        f.hbm_roof_flops_per_s > 0 ? f.hbm_roof_flops_per_s : 1e300,
                        f.l2_roof_flops_per_s > 0 ? f.l2_roof_flops_per_s : 1e300}),
              1e-6 * f.attainable_flops_per_s);
  const auto& t = r.triangle;
  EXPECT_GE(t.compute_utilisation, 0);
  EXPECT_LE(t.compute_utilisation, 1 + 1e-9);
  EXPECT_NEAR(t.compute_utilisation, f.achieved_flops_per_s / f.peak_flops_per_s, 1e-12);
  EXPECT_NEAR(t.parallelism, double(t.cores_used) / t.cores_available, 1e-12);
  EXPECT_FALSE(t.reason.empty());
}

TEST(PerfRooflineTest, MatmulFedFromL2StaysUnderItsRoofs) {
  const LaunchResult r = ProfileSharedOperandMatmul();
  const auto& f = r.roofline;
  EXPECT_EQ(f.roof, "cube half");
  EXPECT_GT(r.l2_hit_fraction, 0.5);
  // The old definition: intensity over every GM byte against the HBM roof. The GM traffic runs
  // faster than the HBM, so that "roof" lies below the achieved rate.
  const double gm_bytes = double(r.gm_read_bytes + r.gm_write_bytes);
  const double old_roof = std::min(f.peak_flops_per_s, f.flops / gm_bytes * f.peak_bytes_per_s);
  EXPECT_GT(gm_bytes / (r.body_us * 1e-6), f.peak_bytes_per_s);
  EXPECT_GT(f.achieved_flops_per_s, old_roof) << "the old roofline put this kernel at "
                                              << f.achieved_flops_per_s / old_roof;
  // The intensity now counts HBM bytes: reads L2 did not serve, and the writes that did not land
  // in lines L2 held (Note [L2 reuse]).
  const double hbm = double(r.gm_read_bytes) * (1 - r.l2_hit_fraction) +
                     double(r.gm_write_bytes) * (1 - r.timeline.l2_write_hit_fraction);
  EXPECT_NEAR(f.density, f.flops / hbm, 1e-9 * f.density);
  EXPECT_NEAR(f.l2_density, f.flops / double(r.gm_read_bytes), 1e-9 * f.l2_density);
  EXPECT_GT(f.l2_bytes_per_s, f.peak_bytes_per_s);
  ExpectUnderEveryRoof(r);
  // The fraction is now consistent with the cube's utilisation: it cannot claim more of the roof
  // than the cube is busy when the roof is the peak.
  if (f.limit == "peak") {
    EXPECT_NEAR(f.fraction_of_roof, r.triangle.compute_utilisation, 1e-9);
    EXPECT_LE(f.fraction_of_roof, r.Metric("aic_mac_ratio") + 1e-9);
  }
  EXPECT_THAT(aicore::perf::SummaryText({r}), HasSubstr("flop per HBM byte"));
}

TEST(PerfRooflineTest, FastVectorInstructionsStayUnderTheVectorPeak) {
  // Muls costs 0.0071 cycles per half element (+ 21.5 per call) in the 910B preset, faster than
  // 256 B per cycle (0.0078): a vector roof of 256 B per cycle would put this kernel, nearly all
  // long in-place Muls calls on 48 cores, above its peak.
  constexpr int kN = 90112, kOut = 4096;
  std::vector<half> z(kOut);
  aicore::perf::Profiler prof;
  prof.Attach();
  half* pz = z.data();
  auto st = aicore::RunKernel("muls_chain", 48, {}, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, kN * sizeof(half));
    GlobalTensor<half> gz;
    gz.SetGlobalBuffer(pz, kOut);
    LocalTensor<half> ua = a.Get<half>();
    Duplicate(ua, half(1.0f), kN);
    for (int i = 0; i < 48; ++i) Muls(ua, ua, half(1.0f), kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    if (GetBlockIdx() == 0) DataCopy(gz, ua, kOut);
  });
  prof.Detach();
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(float(z[0]), 1.0f);
  const LaunchResult& r = prof.Results().at(0);
  EXPECT_EQ(r.roofline.roof, "vector half");
  EXPECT_EQ(r.triangle.corner, "compute");
  EXPECT_EQ(r.roofline.limit, "peak");
  const double naive_peak = 256.0 / 2 * 48 * r.clock_mhz * 1e6;
  EXPECT_GT(r.roofline.achieved_flops_per_s, naive_peak);
  ExpectUnderEveryRoof(r);
  EXPECT_GT(r.roofline.fraction_of_roof, 0.9);
}

TEST(PerfRooflineTest, StreamingKernelsStayUnderTheHbmRoof) {
  for (int cores : {1, 8, 48}) {
    const LaunchResult r = ProfileAdd<2>(cores, 8, 8192);
    ExpectUnderEveryRoof(r);
    EXPECT_EQ(r.roofline.limit, "HBM");
    EXPECT_NEAR(r.triangle.bandwidth_utilisation, r.roofline.fraction_of_roof, 1e-9)
        << "a memory-roof kernel's fraction of roof is its HBM utilisation";
  }
}

}  // namespace
}  // namespace perf_test
