// Matmul, stage 5 of 5: the high-level Matmul API with host tiling. Against stage 4 the kernel
// shrinks to a few calls: the host asks matmul_tiling::MultiCoreMatmulTiling for a split of C
// over the cores and for base/L1 block sizes chosen from the chip's buffers; each block offsets
// its A, B, bias and C, sets its tail, and lets Matmul run the GM -> L1 -> L0 -> L0C -> GM
// pipeline of stages 2-4 (with the same primitives underneath). It also adds a bias row:
// C = A * B + bias. Inputs float (default) or bfloat16, C float, all row-major (ND).
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace {

// One block of C = A * B + bias with the Matmul object (the AscendC sample pattern).
template <typename T>
__aicore__ inline void MatmulStage5(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                    const TCubeTiling& tiling) {
  using AType = MatmulType<TPosition::GM, CubeFormat::ND, T>;
  using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  TPipe pipe;
  Matmul<AType, AType, CType, CType> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
  if (GetBlockIdx() >= tiling.usedCoreNum) return;

  GlobalTensor<T> a_gm, b_gm;   // (M, K), (K, N)
  GlobalTensor<float> bias_gm;  // (N)
  GlobalTensor<float> c_gm;     // (M, N)
  a_gm.SetGlobalBuffer((__gm__ T*)a, int64_t{tiling.M} * tiling.Ka);
  b_gm.SetGlobalBuffer((__gm__ T*)b, int64_t{tiling.Kb} * tiling.N);
  bias_gm.SetGlobalBuffer((__gm__ float*)bias, tiling.N);
  c_gm.SetGlobalBuffer((__gm__ float*)c, int64_t{tiling.M} * tiling.N);

  // Blocks walk C's single-core tiles M-first; the last row/column of tiles may be short.
  const int32_t m_tiles = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  const int32_t m_idx = GetBlockIdx() % m_tiles;
  const int32_t n_idx = GetBlockIdx() / m_tiles;
  const int32_t m0 = m_idx * tiling.singleCoreM;
  const int32_t n0 = n_idx * tiling.singleCoreN;
  mm.SetTail(std::min(tiling.singleCoreM, tiling.M - m0),
             std::min(tiling.singleCoreN, tiling.N - n0));
  mm.SetTensorA(a_gm[int64_t{m0} * tiling.Ka]);
  mm.SetTensorB(b_gm[n0]);
  mm.SetBias(bias_gm[n0]);
  mm.IterateAll(c_gm[int64_t{m0} * tiling.N + n0]);
  mm.End();
}

}  // namespace

// The kernels (benchmarks/matmul_bench.cc links them without main): `tiling` points to a
// TCubeTiling in GM, as the tiling data reaches a kernel on the device.
extern "C" __global__ __aicore__ void matmul_stage5_fp32(GM_ADDR a, GM_ADDR b, GM_ADDR bias,
                                                         GM_ADDR c, GM_ADDR tiling) {
  MatmulStage5<float>(a, b, bias, c, *reinterpret_cast<const TCubeTiling*>(tiling));
}
extern "C" __global__ __aicore__ void matmul_stage5_bf16(GM_ADDR a, GM_ADDR b, GM_ADDR bias,
                                                         GM_ADDR c, GM_ADDR tiling) {
  MatmulStage5<bfloat16_t>(a, b, bias, c, *reinterpret_cast<const TCubeTiling*>(tiling));
}
extern "C" __global__ __aicore__ void matmul_stage5_fp16(GM_ADDR a, GM_ADDR b, GM_ADDR bias,
                                                         GM_ADDR c, GM_ADDR tiling) {
  MatmulStage5<half>(a, b, bias, c, *reinterpret_cast<const TCubeTiling*>(tiling));
}

// ---- host side ----
#include <string_view>

#include "tiling/tiling_api.h"

// Fills `tiling` for C(m, n) = A(m, k) * B(k, n) + bias on up to `cores` AICs of the default
// chip, with float (bf16 = false) or bfloat16 inputs. Returns 0, or -1 (reason logged).
// dtype: "fp32", "fp16" or "bf16" (A and B; C and the bias are float).
int64_t matmul_stage5_tiling(uint32_t m, uint32_t n, uint32_t k, uint32_t cores, const char* dtype,
                             TCubeTiling* tiling) {
  using matmul_tiling::DataType;
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  matmul_tiling::MultiCoreMatmulTiling api(*platform);
  const DataType in = std::string_view(dtype) == "bf16"   ? DataType::DT_BF16
                      : std::string_view(dtype) == "fp16" ? DataType::DT_FLOAT16
                                                          : DataType::DT_FLOAT;
  api.SetDim(static_cast<int32_t>(cores));
  api.SetAType(TPosition::GM, CubeFormat::ND, in);
  api.SetBType(TPosition::GM, CubeFormat::ND, in);
  api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
  api.SetShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
  api.SetOrgShape(static_cast<int32_t>(m), static_cast<int32_t>(n), static_cast<int32_t>(k));
  api.SetBias(true);
  api.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling data;
  if (api.GetTiling(data) != 0) return -1;
  *tiling = data;
  return 0;
}

#ifndef AICORE_EXAMPLE_NO_MAIN
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tikicpulib.h"

namespace {

template <typename T>
int Run(uint32_t m, uint32_t n, uint32_t k, uint32_t cores, const char* dtype) {
  TCubeTiling host_tiling;
  if (matmul_stage5_tiling(m, n, k, cores, dtype, &host_tiling) != 0) {
    std::fprintf(stderr, "matmul_stage5: no tiling for %ux%ux%u\n", m, n, k);
    return 2;
  }
  auto* a = static_cast<T*>(AscendC::GmAlloc(size_t{m} * k * sizeof(T)));
  auto* b = static_cast<T*>(AscendC::GmAlloc(size_t{k} * n * sizeof(T)));
  auto* bias = static_cast<float*>(AscendC::GmAlloc(size_t{n} * sizeof(float)));
  auto* c = static_cast<float*>(AscendC::GmAlloc(size_t{m} * n * sizeof(float)));
  auto* tiling = static_cast<TCubeTiling*>(AscendC::GmAlloc(sizeof(TCubeTiling)));
  std::memcpy(tiling, &host_tiling, sizeof(TCubeTiling));
  // Quarter-integers in [-2, 2] (exact in bf16 too): every product and partial sum is exact in
  // float for K up to 2^14, so the result must equal the double reference exactly.
  for (size_t i = 0; i < size_t{m} * k; ++i) a[i] = T(0.25f * int((i * 7) % 17) - 2.0f);
  for (size_t i = 0; i < size_t{k} * n; ++i) b[i] = T(0.25f * int((i * 5) % 13) - 1.5f);
  for (size_t j = 0; j < n; ++j) bias[j] = float(int(j % 11) - 5);
  AscendC::SetKernelMode(KernelMode::AIC_MODE);
  const uint32_t blocks = static_cast<uint32_t>(host_tiling.usedCoreNum);
  const auto t0 = std::chrono::steady_clock::now();
  if (std::is_same_v<T, float>) {
    ICPU_RUN_KF(matmul_stage5_fp32, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)bias, (uint8_t*)c,
                (uint8_t*)tiling);
  } else if (std::is_same_v<T, half>) {
    ICPU_RUN_KF(matmul_stage5_fp16, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)bias, (uint8_t*)c,
                (uint8_t*)tiling);
  } else {
    ICPU_RUN_KF(matmul_stage5_bf16, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)bias, (uint8_t*)c,
                (uint8_t*)tiling);
  }
  const auto t1 = std::chrono::steady_clock::now();
  size_t bad = 0;
  std::vector<double> row(n);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) row[j] = bias[j];
    for (uint32_t p = 0; p < k; ++p) {
      const double av = float(a[size_t{i} * k + p]);
      const T* brow = b + size_t{p} * n;
      for (uint32_t j = 0; j < n; ++j) row[j] += av * double(float(brow[j]));
    }
    for (uint32_t j = 0; j < n; ++j) {
      const float got = c[size_t{i} * n + j];
      if (got != float(row[j]) && bad++ == 0) {
        std::fprintf(stderr, "matmul_stage5: C(%u, %u) = %g, want %g\n", i, j, got, row[j]);
      }
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf(
      "matmul_stage5: dtype=%s blocks=%u shape=%ux%ux%u single=%dx%d base=%dx%dx%d check=%s "
      "host_time=%.3f ms host_gflops=%.2f\n",
      dtype, blocks, m, n, k, host_tiling.singleCoreM, host_tiling.singleCoreN, host_tiling.baseM,
      host_tiling.baseN, host_tiling.baseK,
      bad == 0 ? "pass" : "FAIL", ms, 2.0 * m * n * k / (ms * 1e6));
  AscendC::GmFree(a);
  AscendC::GmFree(b);
  AscendC::GmFree(bias);
  AscendC::GmFree(c);
  AscendC::GmFree(tiling);
  return bad == 0 ? 0 : 1;
}

}  // namespace

// Usage: matmul_stage5_api [M N K [cores [fp32|fp16|bf16]]]; defaults 600 470 512 24 fp32.
int main(int argc, char** argv) {
  const uint32_t m = argc > 3 ? std::atoi(argv[1]) : 600;
  const uint32_t n = argc > 3 ? std::atoi(argv[2]) : 470;
  const uint32_t k = argc > 3 ? std::atoi(argv[3]) : 512;
  const uint32_t cores = argc > 4 ? std::atoi(argv[4]) : 24;  // the AICs of an Ascend 910B1
  const char* dtype = argc > 5 ? argv[5] : "fp32";
  if (m == 0 || n == 0 || k == 0 || cores == 0 || k > 16384) {
    std::fprintf(stderr, "matmul_stage5: need M, N, K, cores > 0 and K <= 16384\n");
    return 2;
  }
  if (std::strcmp(dtype, "bf16") == 0) return Run<bfloat16_t>(m, n, k, cores, dtype);
  if (std::strcmp(dtype, "fp16") == 0) return Run<half>(m, n, k, cores, dtype);
  if (std::strcmp(dtype, "fp32") == 0) return Run<float>(m, n, k, cores, dtype);
  std::fprintf(stderr, "matmul_stage5: dtype must be fp32, fp16 or bf16\n");
  return 2;
}
#endif  // AICORE_EXAMPLE_NO_MAIN
