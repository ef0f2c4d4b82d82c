// The kernels of the calibration suite (scripts/calibrate.py, docs/model-accuracy.md): aicore's
// own AscendC kernels, written from the published descriptions of Huawei's best-practice cases
// (shapes, tilings, buffering, core counts; docs/model-accuracy.md names each source), run under
// the profiler by the script. Each run checks its result (sampled entries against a scalar
// reference) and exits non-zero when one is wrong.
//
//   calibrate_kernels matmul M N K MCORES NCORES BASEM BASEN BASEK DEPTHA1 STEPKA DEPTHB1 STEPKB
//                     mdl|norm
//     C(M, N) = A(M, K) * B(K, N), half A/B/C, A ND, B ND transposed (stored N x K), on
//     MCORES x NCORES AICs (core i takes the (i % MCORES, i / MCORES) tile of C; the last row and
//     column of tiles may be short), one Matmul per core with the given base and L1 depths/steps
//     and L0A/L0B double-buffered; the MDL or the Norm template.
//   calibrate_kernels add ROWS COLS CORES TILE BUFFERS BYPASS
//     z = x + y on half ROWS x COLS: the rows split evenly over CORES AIVs (the first
//     ROWS % CORES cores take one more row), each core's contiguous range moved in TILE-element
//     pieces through UB with BUFFERS (1 or 2) buffers per queue; BYPASS = 1 asks for
//     CACHE_MODE_DISABLE on the inputs (SetL2CacheHint).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"

using namespace AscendC;

namespace {

struct MmShape {
  int32_t m_cores = 1;
  int32_t n_cores = 1;
};

template <const MatmulConfig& kCfg>
__aicore__ inline void MatmulCase(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling_gm,
                                  GM_ADDR shape_gm) {
  using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using BType = MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
  using CType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  const TCubeTiling& t = *reinterpret_cast<const TCubeTiling*>(tiling_gm);
  const MmShape& s = *reinterpret_cast<const MmShape*>(shape_gm);
  TPipe pipe;
  Matmul<AType, BType, CType, CType, kCfg> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  const int32_t mi = GetBlockIdx() % s.m_cores, ni = GetBlockIdx() / s.m_cores;
  const int32_t m0 = mi * t.singleCoreM, n0 = ni * t.singleCoreN;
  if (m0 >= t.M || n0 >= t.N) return;
  GlobalTensor<half> a_gm, b_gm, c_gm;
  a_gm.SetGlobalBuffer((__gm__ half*)a, int64_t{t.M} * t.Ka);
  b_gm.SetGlobalBuffer((__gm__ half*)b, int64_t{t.N} * t.Kb);
  c_gm.SetGlobalBuffer((__gm__ half*)c, int64_t{t.M} * t.N);
  mm.SetTail(std::min(t.singleCoreM, t.M - m0), std::min(t.singleCoreN, t.N - n0));
  mm.SetTensorA(a_gm[int64_t{m0} * t.Ka]);
  mm.SetTensorB(b_gm[int64_t{n0} * t.Kb], true);
  mm.IterateAll(c_gm[int64_t{m0} * t.N + n0]);
  mm.End();
}

struct AddShape {
  int32_t rows = 0, cols = 0, cores = 1, tile = 0, buffers = 1, bypass = 0;
};

__aicore__ inline void AddCase(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddShape& s) {
  const int32_t base = s.rows / s.cores, extra = s.rows % s.cores;
  const int32_t idx = GetBlockIdx();
  const int32_t my_rows = base + (idx < extra ? 1 : 0);
  const int64_t row0 = int64_t{idx} * base + std::min(idx, extra);
  const int64_t total = int64_t{my_rows} * s.cols;
  GlobalTensor<half> xg, yg, zg;
  xg.SetGlobalBuffer((__gm__ half*)x + row0 * s.cols, total);
  yg.SetGlobalBuffer((__gm__ half*)y + row0 * s.cols, total);
  zg.SetGlobalBuffer((__gm__ half*)z + row0 * s.cols, total);
  if (s.bypass) {
    xg.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    yg.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
  }
  TPipe pipe;
  TQue<TPosition::VECIN, 2> qx, qy;
  TQue<TPosition::VECOUT, 2> qz;
  const uint32_t bytes = static_cast<uint32_t>(s.tile) * sizeof(half);
  const uint8_t bufs = static_cast<uint8_t>(s.buffers);
  pipe.InitBuffer(qx, bufs, bytes);
  pipe.InitBuffer(qy, bufs, bytes);
  pipe.InitBuffer(qz, bufs, bytes);
  for (int64_t off = 0; off < total; off += s.tile) {
    const uint32_t len = static_cast<uint32_t>(std::min<int64_t>(s.tile, total - off));
    LocalTensor<half> xl = qx.AllocTensor<half>();
    LocalTensor<half> yl = qy.AllocTensor<half>();
    DataCopy(xl, xg[off], len);
    DataCopy(yl, yg[off], len);
    qx.EnQue(xl);
    qy.EnQue(yl);
    xl = qx.DeQue<half>();
    yl = qy.DeQue<half>();
    LocalTensor<half> zl = qz.AllocTensor<half>();
    Add(zl, xl, yl, len);
    qz.EnQue(zl);
    qx.FreeTensor(xl);
    qy.FreeTensor(yl);
    zl = qz.DeQue<half>();
    DataCopy(zg[off], zl, len);
    qz.FreeTensor(zl);
  }
}

}  // namespace

extern "C" __global__ __aicore__ void calib_matmul_mdl(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                       GM_ADDR tiling, GM_ADDR shape) {
  MatmulCase<CFG_MDL>(a, b, c, tiling, shape);
}
extern "C" __global__ __aicore__ void calib_matmul_norm(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                        GM_ADDR tiling, GM_ADDR shape) {
  MatmulCase<CFG_NORM>(a, b, c, tiling, shape);
}
extern "C" __global__ __aicore__ void calib_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR shape) {
  AddCase(x, y, z, *reinterpret_cast<const AddShape*>(shape));
}

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: calibrate_kernels matmul M N K MCORES NCORES BASEM BASEN BASEK DEPTHA1 "
               "STEPKA DEPTHB1 STEPKB mdl|norm\n"
               "       calibrate_kernels add ROWS COLS CORES TILE BUFFERS BYPASS\n");
  return 2;
}

// Small integers, exact in half, whose products and sums stay exact in float for the K used.
float AVal(size_t i) { return static_cast<float>(int((i * 7) % 5) - 2); }
float BVal(size_t i) { return static_cast<float>(int((i * 3) % 3) - 1); }

int RunMatmul(int argc, char** argv) {
  if (argc != 15) return Usage();
  int v[12];
  for (int i = 0; i < 12; ++i) v[i] = std::atoi(argv[2 + i]);
  const std::string_view tmpl = argv[14];
  const int32_t m = v[0], n = v[1], k = v[2];
  MmShape shape{v[3], v[4]};
  if (m <= 0 || n <= 0 || k <= 0 || shape.m_cores <= 0 || shape.n_cores <= 0 ||
      (tmpl != "mdl" && tmpl != "norm")) {
    return Usage();
  }
  TCubeTiling t;
  t.usedCoreNum = shape.m_cores * shape.n_cores;
  t.M = m;
  t.N = n;
  t.Ka = t.Kb = k;
  // Even split rounded up to the base block, as the published 4 x 6 split (2048 x 1536 for
  // 8192 x 8192, the last column of tiles 512 wide).
  auto split = [](int32_t len, int32_t parts, int32_t align) {
    const int32_t each = (len + parts - 1) / parts;
    return (each + align - 1) / align * align;
  };
  t.baseM = v[5];
  t.baseN = v[6];
  t.baseK = v[7];
  t.singleCoreM = split(m, shape.m_cores, t.baseM);
  t.singleCoreN = split(n, shape.n_cores, t.baseN);
  t.singleCoreK = k;
  t.depthA1 = v[8];
  t.stepKa = v[9];
  t.depthB1 = v[10];
  t.stepKb = v[11];
  t.stepM = t.stepN = 1;
  t.dbL0A = t.dbL0B = 2;
  t.dbL0C = 1;
  t.iterateOrder = 0;
  t.shareL1Size = (t.depthA1 * t.baseM * t.baseK + t.depthB1 * t.baseN * t.baseK) * 2;
  t.shareL0CSize = t.baseM * t.baseN * 4;
  const size_t sa = size_t(m) * k, sb = size_t(n) * k, sc = size_t(m) * n;
  auto* a = static_cast<half*>(GmAlloc(sa * sizeof(half)));
  auto* b = static_cast<half*>(GmAlloc(sb * sizeof(half)));
  auto* c = static_cast<half*>(GmAlloc(sc * sizeof(half)));
  auto* tg = static_cast<TCubeTiling*>(GmAlloc(sizeof(TCubeTiling)));
  auto* sg = static_cast<MmShape*>(GmAlloc(sizeof(MmShape)));
  std::memcpy(tg, &t, sizeof(t));
  std::memcpy(sg, &shape, sizeof(shape));
  for (size_t i = 0; i < sa; ++i) a[i] = half(AVal(i));
  for (size_t i = 0; i < sb; ++i) b[i] = half(BVal(i));
  SetKernelMode(KernelMode::AIC_MODE);
  const uint32_t blocks = static_cast<uint32_t>(t.usedCoreNum);
  if (tmpl == "mdl") {
    ICPU_RUN_KF(calib_matmul_mdl, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, (uint8_t*)tg,
                (uint8_t*)sg);
  } else {
    ICPU_RUN_KF(calib_matmul_norm, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, (uint8_t*)tg,
                (uint8_t*)sg);
  }
  // 61 sampled entries of C (B is stored N x K), among them the corners.
  int bad = 0;
  for (int s = 0; s <= 60; ++s) {
    const size_t i = s == 60 ? m - 1 : (size_t(s) * 7919) % m;
    const size_t j = s == 60 ? n - 1 : (size_t(s) * 104729) % n;
    double ref = 0;
    for (int p = 0; p < k; ++p) {
      ref += double(float(a[i * k + p])) * double(float(b[j * k + p]));
    }
    const float got = float(c[i * n + j]);
    if (std::fabs(got - ref) > std::fabs(ref) * 1e-3 + 1e-3) {
      if (bad++ == 0) std::fprintf(stderr, "calib matmul: C(%zu, %zu) = %g, want %g\n", i, j, got,
                                   ref);
    }
  }
  GmFree(static_cast<void*>(a));
  GmFree(static_cast<void*>(b));
  GmFree(static_cast<void*>(c));
  GmFree(static_cast<void*>(tg));
  GmFree(static_cast<void*>(sg));
  std::printf("calib matmul %dx%dx%d %s: check=%s\n", m, n, k, argv[14], bad ? "FAIL" : "pass");
  return bad ? 1 : 0;
}

int RunAdd(int argc, char** argv) {
  if (argc != 8) return Usage();
  AddShape s;
  s.rows = std::atoi(argv[2]);
  s.cols = std::atoi(argv[3]);
  s.cores = std::atoi(argv[4]);
  s.tile = std::atoi(argv[5]);
  s.buffers = std::atoi(argv[6]);
  s.bypass = std::atoi(argv[7]);
  if (s.rows <= 0 || s.cols <= 0 || s.cores <= 0 || s.tile <= 0 || s.tile % 16 != 0 ||
      (s.buffers != 1 && s.buffers != 2)) {
    return Usage();
  }
  const size_t total = size_t(s.rows) * s.cols;
  auto* x = static_cast<half*>(GmAlloc(total * sizeof(half)));
  auto* y = static_cast<half*>(GmAlloc(total * sizeof(half)));
  auto* z = static_cast<half*>(GmAlloc(total * sizeof(half)));
  auto* sg = static_cast<AddShape*>(GmAlloc(sizeof(AddShape)));
  std::memcpy(sg, &s, sizeof(s));
  for (size_t i = 0; i < total; ++i) {
    x[i] = half(float(int(i % 17) - 8));
    y[i] = half(float(int(i % 13)));
  }
  SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(calib_add, static_cast<uint32_t>(s.cores), (uint8_t*)x, (uint8_t*)y, (uint8_t*)z,
              (uint8_t*)sg);
  size_t bad = 0;
  for (size_t i = 0; i < total; i += 997) {
    if (float(z[i]) != float(int(i % 17) - 8 + int(i % 13)) && bad++ == 0) {
      std::fprintf(stderr, "calib add: z[%zu] = %g\n", i, float(z[i]));
    }
  }
  GmFree(static_cast<void*>(x));
  GmFree(static_cast<void*>(y));
  GmFree(static_cast<void*>(z));
  GmFree(static_cast<void*>(sg));
  std::printf("calib add %dx%d cores=%d tile=%d buffers=%d bypass=%d: check=%s\n", s.rows,
              s.cols, s.cores, s.tile, s.buffers, s.bypass, bad ? "FAIL" : "pass");
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string_view what = argv[1];
  if (what == "matmul") return RunMatmul(argc, argv);
  if (what == "add") return RunAdd(argc, argv);
  return Usage();
}
