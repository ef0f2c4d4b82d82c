// The Matmul's L1 pipeline as the timing model sees it (Note [Matmul L1 pipeline] in
// aicore/kernel/lib/matmul/matmul.h): with two L1 buffers per operand, MTE2 copies the next panel
// while MTE1 loads from the current one; with one buffer (depth 1) they take turns. Either way
// every panel is copied exactly once per use and C is right.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "aicore/perf/profiler.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

namespace perf_test {
namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using aicore::perf::LaunchResult;
using aicore::sim::Pipe;

constexpr int kM = 128, kN = 256, kK = 1024;

struct Profiled {
  LaunchResult result;
  std::vector<float> c;
};

// C(kM, kN) = A(kM, kK) * B(kK, kN), half in, float out, one core, base 128 x 256 x 64, A
// panels of stepKa * 64 k, B panels of stepKb * 64 k; `depth` base blocks of each in L1.
Profiled Profile(int depth, int step) {
  TCubeTiling t;
  t.usedCoreNum = 1;
  t.M = t.singleCoreM = kM;
  t.N = t.singleCoreN = kN;
  t.Ka = t.Kb = t.singleCoreK = kK;
  t.baseM = 128;
  t.baseN = 256;
  t.baseK = 64;
  t.depthA1 = t.depthB1 = depth;
  t.stepKa = t.stepKb = step;
  t.stepM = t.stepN = 1;
  t.dbL0A = t.dbL0B = 2;
  std::vector<half> a(size_t{kM} * kK), b(size_t{kK} * kN);
  for (size_t i = 0; i < a.size(); ++i) a[i] = half(float(int(i % 5) - 2));
  for (size_t i = 0; i < b.size(); ++i) b[i] = half(float(int(i % 3) - 1));
  Profiled run;
  run.c.assign(size_t{kM} * kN, 0.0f);
  half* pa = a.data();
  half* pb = b.data();
  float* pc = run.c.data();
  aicore::perf::Profiler prof;
  prof.Attach();
  aicore::LaunchOptions o;
  o.mode = aicore::sim::KernelMode::kAic;
  auto st = aicore::RunKernel("matmul_pipeline", 1, o, [=] {
    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    mm.Init(&t, &pipe);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(pa, size_t{kM} * kK);
    gb.SetGlobalBuffer(pb, size_t{kK} * kN);
    gc.SetGlobalBuffer(pc, size_t{kM} * kN);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
    mm.End();
  });
  prof.Detach();
  EXPECT_TRUE(st.ok()) << st.ToString();
  for (int i = 0; i < kM; i += 37) {
    for (int j = 0; j < kN; j += 41) {
      double ref = 0;
      for (int p = 0; p < kK; ++p) ref += float(a[i * kK + p]) * float(b[p * kN + j]);
      EXPECT_EQ(run.c[i * kN + j], float(ref)) << i << "," << j;
    }
  }
  EXPECT_EQ(prof.Results().size(), 1u);
  run.result = prof.Results().at(0);
  return run;
}

// Copies GM -> L1 (the panels) and the cycles MTE2 copies overlap MTE1 loads.
struct Shape {
  int panel_copies = 0;
  double overlap = 0;
};

Shape Measure(const LaunchResult& r) {
  Shape s;
  const auto& recs = r.record->cores[0]->records;
  const auto& tl = r.timeline.cores[0];
  std::vector<std::pair<double, double>> mte2, mte1;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].op != aicore::perf::Op::kCopy) continue;
    if (recs[i].pipe == Pipe::kMte2 && recs[i].dst == aicore::arch::Buffer::kL1) {
      ++s.panel_copies;
      mte2.emplace_back(tl.start[i], tl.end[i]);
    } else if (recs[i].pipe == Pipe::kMte1) {
      mte1.emplace_back(tl.start[i], tl.end[i]);
    }
  }
  for (const auto& [a0, a1] : mte2) {
    for (const auto& [b0, b1] : mte1) {
      s.overlap += std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
    }
  }
  return s;
}

TEST(MatmulPipeline, TwoBuffersCopyTheNextPanelWhileTheCurrentIsLoaded) {
  // depth 4, step 2: two buffers of 128 k per operand, K = 1024: 8 panels of A and 8 of B.
  const Profiled two = Profile(4, 2);
  const Shape s2 = Measure(two.result);
  EXPECT_EQ(s2.panel_copies, 16);
  EXPECT_GT(s2.overlap, 0.0);
  // depth 2, step 2: one buffer per operand: the same panels, copied only once the previous
  // panel's loads are done.
  const Profiled one = Profile(2, 2);
  const Shape s1 = Measure(one.result);
  EXPECT_EQ(s1.panel_copies, 16);
  EXPECT_EQ(s1.overlap, 0.0);
  EXPECT_EQ(two.c, one.c);
  EXPECT_LT(two.result.body_us, one.result.body_us);
}

}  // namespace
}  // namespace perf_test
