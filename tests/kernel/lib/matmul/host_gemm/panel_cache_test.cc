// The packed panel cache of the packed GEMM (Note [Packed panel cache]) and the watched GM
// regions it relies on (Note [GM copies]): blocks of a launch that multiply the same A rows or B
// columns share packed panels and get the bits they would have packed themselves; nothing is
// reused across launches, after a pipe write over a panel's source lines (DataCopy, a fused
// Matmul's C, also between cross-core flags of a mix kernel) or after a SyncAll that follows a
// scalar or raw store; a write beside the lines (other columns, other buffers) and a flag wait
// keep the panels; different strides and orientations never share; launches from several host
// threads and on two worker threads stay exact.
#include "aicore/kernel/lib/matmul/host_gemm/panel_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"

namespace {

using aicore::kernel::cube::GemmJob;
using aicore::kernel::cube::GetPanelCacheStats;
using aicore::kernel::cube::PanelCacheStats;
using aicore::kernel::cube::RunPackedGemm;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// One block's product: C rows [m0, m0 + m) and columns [n0, n0 + n) of a row-major (M, N) C, from
// an A stored (M, K) row-major or, transposed, (K, M); B stored (K, N) with row pitch ldb.
struct Share {
  uint32_t m0, m, n0, n;
};
struct Product {
  const float* a;
  bool trans_a;
  int64_t big_m;  // A's M (the pitch of a transposed A)
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
  uint32_t k;
};

GemmJob JobOf(const Product& p, const Share& s) {
  GemmJob j;
  j.m = s.m;
  j.n = s.n;
  j.k = p.k;
  j.a = p.trans_a ? p.a + s.m0 : p.a + size_t{s.m0} * p.k;
  j.a_rs = p.trans_a ? 1 : p.k;
  j.a_cs = p.trans_a ? p.big_m : 1;
  j.b = p.b + s.n0;
  j.b_rs = p.ldb;
  j.b_cs = 1;
  j.c = p.c + size_t{s.m0} * p.ldc + s.n0;
  j.ldc = p.ldc;
  j.cache_a = j.cache_b = true;
  return j;
}

// The same products computed outside any launch: no cache, each call packs its own panels.
void Reference(const Product& p, const std::vector<Share>& shares) {
  for (const Share& s : shares) RunPackedGemm(JobOf(p, s));
}

// Splits an (M, N) C into a grid of mt x nt shares.
std::vector<Share> Grid(uint32_t m, uint32_t n, uint32_t mt, uint32_t nt) {
  std::vector<Share> shares;
  const uint32_t sm = (m + mt - 1) / mt, sn = (n + nt - 1) / nt;
  for (uint32_t j = 0; j < nt; ++j)
    for (uint32_t i = 0; i < mt; ++i)
      shares.push_back({i * sm, std::min(sm, m - i * sm), j * sn, std::min(sn, n - j * sn)});
  return shares;
}

// Runs block i's share on block i of one launch.
aicore::Status RunShares(const Product& p, const std::vector<Share>& shares) {
  return aicore::RunKernel("panel_cache", static_cast<uint32_t>(shares.size()),
                           aicore::LaunchOptions{},
                           [&] { RunPackedGemm(JobOf(p, shares[AscendC::GetBlockIdx()])); });
}

PanelCacheStats Delta(const PanelCacheStats& before) {
  PanelCacheStats now = GetPanelCacheStats();
  now.hits -= before.hits;
  now.claims -= before.claims;
  now.waits -= before.waits;
  now.bypassed -= before.bypassed;
  now.stale -= before.stale;
  return now;
}

class PanelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!aicore::kernel::cube::PackedGemmAvailable()) {
      GTEST_SKIP() << "no packed GEMM on this host's ISA";
    }
  }
  void TearDown() override {
    aicore::sim::SetWorkerThreads(0);
    aicore::kernel::cube::SetPanelCacheEnabled(true);
  }
};

// 8 row shares of one C: the B blocks (k = 200: two k blocks, n = 100: one column block) are packed
// once and reused by the 7 other blocks; each block's A blocks are its own.
TEST_F(PanelCacheTest, BlocksShareBPanelsAndMatchTheUncachedBits) {
  const uint32_t m = 256, n = 100, k = 200;
  auto a = Random(size_t{m} * k, 1), b = Random(size_t{k} * n, 2);
  std::vector<float> c(size_t{m} * n), want(c.size());
  const std::vector<Share> shares = Grid(m, n, 8, 1);
  Reference({a.data(), false, m, b.data(), n, want.data(), n, k}, shares);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    aicore::sim::SetWorkerThreads(threads);
    std::fill(c.begin(), c.end(), 0.f);
    const PanelCacheStats before = GetPanelCacheStats();
    ASSERT_TRUE(RunShares({a.data(), false, m, b.data(), n, c.data(), n, k}, shares).ok());
    const PanelCacheStats d = Delta(before);
    EXPECT_EQ(d.claims, 2u + 8u * 2u);  // 2 B blocks, 2 A blocks per share
    EXPECT_EQ(d.hits, 7u * 2u);
    EXPECT_EQ(d.bypassed, 0u);
    EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * 4), 0);
  }
  // A job that says no other block reads its operands packs into scratch.
  const PanelCacheStats before = GetPanelCacheStats();
  const aicore::Status st =
      aicore::RunKernel("panel_cache_private", 8, aicore::LaunchOptions{}, [&] {
        GemmJob j = JobOf({a.data(), false, m, b.data(), n, c.data(), n, k},
                          shares[AscendC::GetBlockIdx()]);
        j.cache_a = j.cache_b = false;
        RunPackedGemm(j);
      });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(Delta(before).claims + Delta(before).hits + Delta(before).bypassed, 0u);
  EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * 4), 0);
}

// A 4 x 3 grid as the 910B tiling cuts C: A blocks shared along rows, B blocks along columns, on
// one and two worker threads, three times each; with the cache off the bits are the same.
TEST_F(PanelCacheTest, AGridSharesBothOperandsOnOneAndTwoThreads) {
  const uint32_t m = 300, n = 250, k = 300;
  auto a = Random(size_t{m} * k, 3), b = Random(size_t{k} * n, 4);
  std::vector<float> c(size_t{m} * n), want(c.size());
  const std::vector<Share> shares = Grid(m, n, 4, 3);
  const Product ref{a.data(), false, m, b.data(), n, want.data(), n, k};
  Reference(ref, shares);
  for (int threads : {1, 2, 2, 2}) {
    aicore::sim::SetWorkerThreads(threads);
    std::fill(c.begin(), c.end(), 0.f);
    const PanelCacheStats before = GetPanelCacheStats();
    ASSERT_TRUE(RunShares({a.data(), false, m, b.data(), n, c.data(), n, k}, shares).ok());
    const PanelCacheStats d = Delta(before);
    // k = 300: 3 k blocks; each share of 75 rows is one A block: 4 row shares x 3 + 3 column
    // shares x 3 entries, every one of the 12 shares x 6 acquisitions after them a hit.
    EXPECT_EQ(d.claims, 4u * 3 + 3u * 3);
    EXPECT_EQ(d.hits, 12u * 6 - d.claims);
    EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * 4), 0) << threads << " threads";
  }
  aicore::kernel::cube::SetPanelCacheEnabled(false);
  std::fill(c.begin(), c.end(), 0.f);
  const PanelCacheStats before = GetPanelCacheStats();
  ASSERT_TRUE(RunShares({a.data(), false, m, b.data(), n, c.data(), n, k}, shares).ok());
  EXPECT_EQ(Delta(before).claims, 0u);
  EXPECT_EQ(Delta(before).bypassed, 12u * 6);
  EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * 4), 0);
}

// The host writes A between two launches: the second launch packs the new A.
TEST_F(PanelCacheTest, NothingIsReusedAcrossLaunches) {
  const uint32_t m = 64, n = 96, k = 64;
  auto a = Random(size_t{m} * k, 5), b = Random(size_t{k} * n, 6);
  std::vector<float> c(size_t{m} * n), want(c.size());
  const std::vector<Share> shares = Grid(m, n, 2, 2);
  const Product p{a.data(), false, m, b.data(), n, c.data(), n, k};
  ASSERT_TRUE(RunShares(p, shares).ok());
  const auto a2 = Random(a.size(), 7);
  std::copy(a2.begin(), a2.end(), a.begin());  // in place: the same GM address, new values
  Reference({a.data(), false, m, b.data(), n, want.data(), n, k}, shares);
  const PanelCacheStats before = GetPanelCacheStats();
  ASSERT_TRUE(RunShares(p, shares).ok());
  EXPECT_EQ(Delta(before).claims, 4u);  // 2 A + 2 B blocks, packed again
  EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * 4), 0);
}

// Inside one block: C1 = A * B, then A is rewritten by DataCopy UB -> GM, then C2 = A * B must
// use the new A (B's panels stay); a SetValue store and then a SyncAll end both (Note [GM
// copies]).
TEST_F(PanelCacheTest, AnApiWriteOverASourceInvalidatesItsPanels) {
  const uint32_t m = 16, n = 48, k = 32;
  auto a = Random(size_t{m} * k, 8), b = Random(size_t{k} * n, 9);
  const auto a2 = Random(a.size(), 10);
  std::vector<float> c1(size_t{m} * n), c2(c1.size()), c3(c1.size());
  std::vector<float> want1(c1.size()), want2(c1.size()), want3(c1.size());
  const std::vector<Share> whole = {{0, m, 0, n}};
  Reference({a.data(), false, m, b.data(), n, want1.data(), n, k}, whole);
  Reference({a2.data(), false, m, b.data(), n, want2.data(), n, k}, whole);
  auto a3 = a2;
  a3[5] = 4.0f;
  Reference({a3.data(), false, m, b.data(), n, want3.data(), n, k}, whole);
  const PanelCacheStats before = GetPanelCacheStats();
  const aicore::Status st = aicore::RunKernel("panel_cache_write", 1, aicore::LaunchOptions{}, [&] {
    using namespace AscendC;
    RunPackedGemm(JobOf({a.data(), false, m, b.data(), n, c1.data(), n, k}, whole[0]));
    TPipe pipe;
    TBuf<QuePosition::VECOUT> buf;
    pipe.InitBuffer(buf, a.size() * 4);
    LocalTensor<float> ub = buf.Get<float>();  // (M, K)
    for (size_t i = 0; i < a2.size(); ++i) ub.SetValue(i, a2[i]);
    GlobalTensor<float> gm_a;  // (M, K)
    gm_a.SetGlobalBuffer(a.data(), a.size());
    DataCopy(gm_a, ub, static_cast<uint32_t>(a.size()));
    RunPackedGemm(JobOf({a.data(), false, m, b.data(), n, c2.data(), n, k}, whole[0]));
    gm_a.SetValue(5, 4.0f);
    SyncAll();
    RunPackedGemm(JobOf({a.data(), false, m, b.data(), n, c3.data(), n, k}, whole[0]));
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(std::memcmp(c1.data(), want1.data(), c1.size() * 4), 0);
  EXPECT_EQ(std::memcmp(c2.data(), want2.data(), c2.size() * 4), 0);
  EXPECT_EQ(std::memcmp(c3.data(), want3.data(), c3.size() * 4), 0);
  // A's entry after the DataCopy, A's and B's after the SetValue and the SyncAll.
  EXPECT_EQ(Delta(before).stale, 1u + 2u);
  EXPECT_EQ(Delta(before).hits, 1u);  // B for C2
}

// A mix kernel as the fused epilogue runs: the AIC multiplies A by the two column halves of B
// (one B block each, A shared), hands over to its AIVs with a cross-core flag; AIV 0 rewrites the
// left half of B with DataCopy (rows of 48 of B's 96 columns) and an unrelated buffer, then both
// AIVs hand back. The AIC's second products: the left half packed anew from the new B, the right
// half and A still served from the cache, on one and two worker threads.
TEST_F(PanelCacheTest, AWriteBetweenFlagsEndsOnlyThePanelsOfItsLines) {
  const uint32_t m = 40, n = 96, k = 64, half = n / 2;
  auto a = Random(size_t{m} * k, 50), b = Random(size_t{k} * n, 51);
  const auto left = Random(size_t{k} * half, 52);  // (k, half): B's new left half
  auto b2 = b;
  for (uint32_t p = 0; p < k; ++p) {
    std::copy_n(left.begin() + p * half, half, b2.begin() + size_t{p} * n);
  }
  std::vector<float> want1(size_t{m} * n), want2(want1.size());
  const std::vector<Share> halves = {{0, m, 0, half}, {0, m, half, half}};
  Reference({a.data(), false, m, b.data(), n, want1.data(), n, k}, halves);
  Reference({a.data(), false, m, b2.data(), n, want2.data(), n, k}, halves);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    aicore::sim::SetWorkerThreads(threads);
    auto b_gm = b;
    std::vector<float> other(64, 0.f), c1(want1.size()), c2(want1.size());
    const PanelCacheStats before = GetPanelCacheStats();
    aicore::LaunchOptions mix;
    mix.mode = aicore::KernelMode::kMix;
    const aicore::Status st = aicore::RunKernel("panel_cache_flags", 1, mix, [&] {
      using namespace AscendC;
      if ASCEND_IS_AIC {
        const Product p1{a.data(), false, m, b_gm.data(), n, c1.data(), n, k};
        for (const Share& s : halves) RunPackedGemm(JobOf(p1, s));
        CrossCoreSetFlag<2, PIPE_FIX>(1);
        CrossCoreWaitFlag<2, PIPE_FIX>(2);
        const Product p2{a.data(), false, m, b_gm.data(), n, c2.data(), n, k};
        for (const Share& s : halves) RunPackedGemm(JobOf(p2, s));
      }
      if ASCEND_IS_AIV {
        CrossCoreWaitFlag<2, PIPE_MTE3>(1);
        if (GetSubBlockIdx() == 0) {
          TPipe pipe;
          TBuf<QuePosition::VECOUT> buf;
          pipe.InitBuffer(buf, left.size() * 4);
          LocalTensor<float> ub = buf.Get<float>();  // (k, half)
          for (size_t i = 0; i < left.size(); ++i) ub.SetValue(i, left[i]);
          GlobalTensor<float> gm_b, gm_other;  // (k, n), (64)
          gm_b.SetGlobalBuffer(b_gm.data(), b_gm.size());
          gm_other.SetGlobalBuffer(other.data(), other.size());
          DataCopy(gm_other, ub, 64);
          // k rows of half floats (6 blocks), skipping the other half (6 blocks) of each row.
          DataCopy(gm_b, ub, DataCopyParams(k, half * 4 / 32, 0, (n - half) * 4 / 32));
        }
        CrossCoreSetFlag<2, PIPE_MTE3>(2);
      }
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(b_gm, b2);
    EXPECT_EQ(std::memcmp(c1.data(), want1.data(), c1.size() * 4), 0);
    EXPECT_EQ(std::memcmp(c2.data(), want2.data(), c2.size() * 4), 0);
    const PanelCacheStats d = Delta(before);
    EXPECT_EQ(d.claims, 1u + 2u + 1u);  // A, B's halves, then B's left half again
    EXPECT_EQ(d.stale, 1u);             // B's old left half
    EXPECT_EQ(d.hits, 1u + 2u + 1u);    // A for the right half, A twice and B's right half
  }
}

// Block 1 rewrites A with raw stores (no API sees them) between two SyncAlls; block 0's second
// product, after the second SyncAll, must use the new A.
TEST_F(PanelCacheTest, ASyncAllEndsTheCopiesMadeBeforeIt) {
  const uint32_t m = 24, n = 40, k = 48;
  auto a = Random(size_t{m} * k, 11), b = Random(size_t{k} * n, 12);
  const auto a2 = Random(a.size(), 13);
  std::vector<float> c1(size_t{m} * n), c2(c1.size()), want1(c1.size()), want2(c1.size());
  const std::vector<Share> whole = {{0, m, 0, n}};
  Reference({a.data(), false, m, b.data(), n, want1.data(), n, k}, whole);
  Reference({a2.data(), false, m, b.data(), n, want2.data(), n, k}, whole);
  for (int threads : {1, 2}) {
    aicore::sim::SetWorkerThreads(threads);
    auto a_gm = a;
    const aicore::Status st = aicore::RunKernel("panel_cache_sync", 2, aicore::LaunchOptions{}, [&] {
      const Product p{a_gm.data(), false, m, b.data(), n, nullptr, n, k};
      if (AscendC::GetBlockIdx() == 0) {
        Product p1 = p;
        p1.c = c1.data();
        RunPackedGemm(JobOf(p1, whole[0]));
      }
      AscendC::SyncAll();
      if (AscendC::GetBlockIdx() == 1) std::memcpy(a_gm.data(), a2.data(), a2.size() * 4);
      AscendC::SyncAll();
      if (AscendC::GetBlockIdx() == 0) {
        Product p2 = p;
        p2.c = c2.data();
        RunPackedGemm(JobOf(p2, whole[0]));
      }
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(std::memcmp(c1.data(), want1.data(), c1.size() * 4), 0) << threads;
    EXPECT_EQ(std::memcmp(c2.data(), want2.data(), c2.size() * 4), 0) << threads;
  }
}

// One buffer read as A in both orientations and with two row pitches, and one read as B with two
// row pitches, in one launch: views that differ in a stride or a shape get their own panels (the
// identical views of products 0 and 2 share theirs), and every product is exact.
TEST_F(PanelCacheTest, StridesAndOrientationsNeverShare) {
  const uint32_t s = 64;
  auto x = Random(size_t{s} * s, 14), y = Random(size_t{s} * s, 15);
  std::vector<float> c(4 * size_t{s} * s), want(c.size());
  auto products = [&](float* out) -> std::vector<Product> {
    return {
        {x.data(), false, s, y.data(), s, out, s, s},                 // x * y
        {x.data(), true, s, y.data(), s, out + s * s, s, s},          // x^T * y
        {x.data(), false, s, y.data(), s / 2, out + 2 * s * s, s / 2, s},  // B pitch s/2
        {x.data(), false, s, y.data(), s, out + 3 * s * s, s / 2, s / 2},  // A pitch s/2
    };
  };
  const Share shares[4] = {{0, s, 0, s}, {0, s, 0, s}, {0, s, 0, s / 2}, {0, s, 0, s / 2}};
  const std::vector<Product> ref = products(want.data()), run = products(c.data());
  for (int i = 0; i < 4; ++i) RunPackedGemm(JobOf(ref[i], shares[i]));
  const PanelCacheStats before = GetPanelCacheStats();
  const aicore::Status st = aicore::RunKernel("panel_cache_keys", 4, aicore::LaunchOptions{}, [&] {
    const int i = static_cast<int>(AscendC::GetBlockIdx());
    RunPackedGemm(JobOf(run[i], shares[i]));
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * 4), 0);
  // A: x (0 and 2), x^T, x pitch s/2; B: y (0 and 1), y pitch s/2, y with K = s/2.
  EXPECT_EQ(Delta(before).claims, 3u + 3u);
  EXPECT_EQ(Delta(before).hits, 2u);
}

// Launches from three host threads at once (the scheduler runs them one after another), each
// with its own data, on two worker threads: every product exact.
TEST_F(PanelCacheTest, LaunchesFromSeveralHostThreadsStayExact) {
  aicore::sim::SetWorkerThreads(2);
  const uint32_t m = 96, n = 130, k = 270;
  std::vector<std::thread> threads;
  std::vector<int> bad(3, 0);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      auto a = Random(size_t{m} * k, 20 + t), b = Random(size_t{k} * n, 30 + t);
      std::vector<float> c(size_t{m} * n), want(c.size());
      const std::vector<Share> shares = Grid(m, n, 3, 2);
      Reference({a.data(), false, m, b.data(), n, want.data(), n, k}, shares);
      for (int rep = 0; rep < 4; ++rep) {
        std::fill(c.begin(), c.end(), 0.f);
        if (!RunShares({a.data(), false, m, b.data(), n, c.data(), n, k}, shares).ok() ||
            std::memcmp(c.data(), want.data(), c.size() * 4) != 0) {
          ++bad[t];
        }
        a[rep] += 1.0f;  // the next launch multiplies another A
        Reference({a.data(), false, m, b.data(), n, want.data(), n, k}, shares);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad, std::vector<int>(3, 0));
}

// The Matmul API's fused path, each product in two column halves (SetTail), so A is read by two
// shares and goes through the cache: T = X * B, then X = Y * B overwrites X (the fused C), then
// U = X * B must use the new X.
TEST_F(PanelCacheTest, AFusedMatmulsCInvalidatesPanelsOfIt) {
  const int s = 64;
  auto x = Random(size_t{s} * s, 40), y = Random(size_t{s} * s, 41), b = Random(size_t{s} * s, 42);
  std::vector<float> t(size_t{s} * s), u(t.size()), want_t(t.size()), want_x(t.size()),
      want_u(t.size());
  const std::vector<Share> whole = {{0, s, 0, s}};
  Reference({x.data(), false, s, b.data(), s, want_t.data(), s, s}, whole);
  Reference({y.data(), false, s, b.data(), s, want_x.data(), s, s}, whole);
  Reference({want_x.data(), false, s, b.data(), s, want_u.data(), s, s}, whole);
  matmul_tiling::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
  api.SetDim(1);
  api.SetAType(AscendC::TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetBType(AscendC::TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetCType(AscendC::TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  api.SetShape(s, s, s);
  api.SetOrgShape(s, s, s);
  api.SetBias(false);
  optiling::TCubeTiling tiling;
  ASSERT_EQ(api.GetTiling(tiling), 0);
  const TCubeTiling kt = tiling;
  const PanelCacheStats before = GetPanelCacheStats();
  const aicore::Status st = aicore::RunKernel(
      "panel_cache_fused", 1, aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}, [&] {
        using namespace AscendC;
        using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
        TPipe pipe;
        Matmul<F, F, F> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &kt);
        GlobalTensor<float> gx, gy, gb, gt, gu;  // (s, s) each
        gx.SetGlobalBuffer(x.data(), x.size());
        gy.SetGlobalBuffer(y.data(), y.size());
        gb.SetGlobalBuffer(b.data(), b.size());
        gt.SetGlobalBuffer(t.data(), t.size());
        gu.SetGlobalBuffer(u.data(), u.size());
        const GlobalTensor<float>* steps[3][2] = {{&gx, &gt}, {&gy, &gx}, {&gx, &gu}};
        for (auto& step : steps) {
          for (int half = 0; half < 2; ++half) {
            mm.SetTail(s, s / 2);
            mm.SetTensorA(*step[0]);
            mm.SetTensorB(gb[half * s / 2]);
            mm.IterateAll((*step[1])[half * s / 2]);
            mm.End();
          }
        }
      });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(std::memcmp(t.data(), want_t.data(), t.size() * 4), 0);
  EXPECT_EQ(std::memcmp(x.data(), want_x.data(), x.size() * 4), 0);
  EXPECT_EQ(std::memcmp(u.data(), want_u.data(), u.size() * 4), 0);
  // Hits: the second halves of T, X and U reuse the A panels (X, Y, X) of their first halves:
  // writing X's left half ends X's panels, not Y's. Stale: X's panels of T, when U reads X.
  EXPECT_EQ(Delta(before).hits, 3u);
  EXPECT_EQ(Delta(before).stale, 1u);
}

}  // namespace
