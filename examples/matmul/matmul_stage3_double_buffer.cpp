// Matmul, stage 3 of 5: double buffering (ping-pong). Against stage 2 only the queue depths
// change: two L1 panels, two L0A/L0B slices and two L0C blocks, so MTE2 fetches the next panel
// while MTE1 and the cube work on the current one, and Fixpipe drains one C block while the
// cube fills the other. The program reads the same; the pipes now overlap.
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t kBaseM = 128;
constexpr int32_t kBaseN = 128;
constexpr int32_t kBaseK = 64;
constexpr int32_t kStepK = 4;  // L0 slices per L1 panel
constexpr int32_t kPanelK = kBaseK * kStepK;
constexpr int32_t kFrac = 16;  // fractal edge for half: 16 x 16
constexpr int32_t kBuffers = 2;  // ping-pong
}  // namespace

class MatmulStage3 {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t m, uint32_t n,
                              uint32_t k) {
    m_ = m;
    n_ = n;
    k_ = k;
    aGm_.SetGlobalBuffer((__gm__ half*)a, m * k);
    bGm_.SetGlobalBuffer((__gm__ half*)b, k * n);
    cGm_.SetGlobalBuffer((__gm__ float*)c, m * n);
    pipe_.InitBuffer(inQueueA1_, kBuffers, kBaseM * kPanelK * sizeof(half));
    pipe_.InitBuffer(inQueueB1_, kBuffers, kPanelK * kBaseN * sizeof(half));
    pipe_.InitBuffer(inQueueA2_, kBuffers, kBaseM * kBaseK * sizeof(half));
    pipe_.InitBuffer(inQueueB2_, kBuffers, kBaseK * kBaseN * sizeof(half));
    pipe_.InitBuffer(outQueueCO1_, kBuffers, kBaseM * kBaseN * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint32_t mo = 0; mo < m_; mo += kBaseM) {
      for (uint32_t no = 0; no < n_; no += kBaseN) {
        LocalTensor<float> c1 = outQueueCO1_.AllocTensor<float>();
        for (uint32_t ko = 0; ko < k_; ko += kPanelK) {
          CopyIn(mo, no, ko);
          LocalTensor<half> a1 = inQueueA1_.DeQue<half>();
          LocalTensor<half> b1 = inQueueB1_.DeQue<half>();
          for (int32_t s = 0; s < kStepK; ++s) {
            SplitA(a1, s);
            SplitB(b1, s);
            Compute(c1, ko == 0 && s == 0);
          }
          inQueueA1_.FreeTensor(a1);
          inQueueB1_.FreeTensor(b1);
        }
        outQueueCO1_.EnQue(c1);
        CopyOut(mo, no);
      }
    }
  }

 private:
  // GM -> L1: a baseM x 256 panel of A and a 256 x baseN panel of B, ND -> Nz.
  __aicore__ inline void CopyIn(uint32_t mo, uint32_t no, uint32_t ko) {
    LocalTensor<half> a1 = inQueueA1_.AllocTensor<half>();
    LocalTensor<half> b1 = inQueueB1_.AllocTensor<half>();
    Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = kBaseM;
    p.dValue = kPanelK;
    p.srcNdMatrixStride = 0;
    p.srcDValue = k_;
    p.dstNzC0Stride = kBaseM;  // rows per column block, in 32 B units
    p.dstNzNStride = 1;
    p.dstNzMatrixStride = 0;
    DataCopy(a1, aGm_[mo * k_ + ko], p);
    p.nValue = kPanelK;
    p.dValue = kBaseN;
    p.srcDValue = n_;
    p.dstNzC0Stride = kPanelK;
    DataCopy(b1, bGm_[ko * n_ + no], p);
    inQueueA1_.EnQue(a1);
    inQueueB1_.EnQue(b1);
  }

  // L1 (Nz) -> L0A (Zz), slice s of the panel: row of fractals m1 gathers fractals
  // (m1, s*K1 .. s*K1+K1-1), M1 apart in L1.
  __aicore__ inline void SplitA(const LocalTensor<half>& a1, int32_t s) {
    LocalTensor<half> a2 = inQueueA2_.AllocTensor<half>();
    constexpr int32_t m1 = kBaseM / kFrac, k1 = kBaseK / kFrac;
    for (int32_t i = 0; i < m1; ++i) {
      LoadData2DParams p;
      p.startIndex = s * k1 * m1 + i;
      p.repeatTimes = k1;
      p.srcStride = m1;
      p.ifTranspose = false;
      LoadData(a2[i * k1 * kFrac * kFrac], a1, p);
    }
    inQueueA2_.EnQue(a2);
  }

  // L1 (Nz) -> L0B (Zn), slice s: row of fractals k1 gathers fractals (s*K1 + k1, 0..N1-1),
  // each transposed.
  __aicore__ inline void SplitB(const LocalTensor<half>& b1, int32_t s) {
    LocalTensor<half> b2 = inQueueB2_.AllocTensor<half>();
    constexpr int32_t k1 = kBaseK / kFrac, n1 = kBaseN / kFrac, panel_k1 = kPanelK / kFrac;
    for (int32_t i = 0; i < k1; ++i) {
      LoadData2DParams p;
      p.startIndex = s * k1 + i;
      p.repeatTimes = n1;
      p.srcStride = panel_k1;
      p.ifTranspose = true;
      LoadData(b2[i * n1 * kFrac * kFrac], b1, p);
    }
    inQueueB2_.EnQue(b2);
  }

  // L0A x L0B -> L0C: the first K step starts C at zero, the others accumulate.
  __aicore__ inline void Compute(LocalTensor<float>& c1, bool first) {
    LocalTensor<half> a2 = inQueueA2_.DeQue<half>();
    LocalTensor<half> b2 = inQueueB2_.DeQue<half>();
    MmadParams p;
    p.m = kBaseM;
    p.n = kBaseN;
    p.k = kBaseK;
    p.cmatrixInitVal = first;
    Mmad(c1, a2, b2, p);
    inQueueA2_.FreeTensor(a2);
    inQueueB2_.FreeTensor(b2);
  }

  // L0C (Nz) -> GM (ND) through Fixpipe.
  __aicore__ inline void CopyOut(uint32_t mo, uint32_t no) {
    LocalTensor<float> c1 = outQueueCO1_.DeQue<float>();
    FixpipeParamsV220 p;
    p.nSize = kBaseN;
    p.mSize = kBaseM;
    p.srcStride = kBaseM;
    p.dstStride = n_;
    p.ndNum = 1;
    p.quantPre = QuantMode_t::NoQuant;
    Fixpipe<float, float, CFG_ROW_MAJOR>(cGm_[mo * n_ + no], c1, p);
    outQueueCO1_.FreeTensor(c1);
  }

  TPipe pipe_;
  TQue<QuePosition::A1, kBuffers> inQueueA1_;
  TQue<QuePosition::B1, kBuffers> inQueueB1_;
  TQue<QuePosition::A2, kBuffers> inQueueA2_;
  TQue<QuePosition::B2, kBuffers> inQueueB2_;
  TQue<QuePosition::CO1, kBuffers> outQueueCO1_;
  GlobalTensor<half> aGm_, bGm_;
  GlobalTensor<float> cGm_;
  uint32_t m_ = 0, n_ = 0, k_ = 0;
};

extern "C" __global__ __aicore__ void matmul_stage3(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t m,
                                                   uint32_t n, uint32_t k) {
  MatmulStage3 op;
  op.Init(a, b, c, m, n, k);
  op.Process();
}

// ---- host side (benchmarks/matmul_bench.cc links the kernel alone) ----
#ifndef AICORE_EXAMPLE_NO_MAIN
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tikicpulib.h"

int main(int argc, char** argv) {
  // M and N must be multiples of 128 and K of 256 in this stage (stage 4 handles tails).
  const uint32_t m = argc > 3 ? std::atoi(argv[1]) : 256;
  const uint32_t n = argc > 3 ? std::atoi(argv[2]) : 256;
  const uint32_t k = argc > 3 ? std::atoi(argv[3]) : 256;
  if (m % kBaseM || n % kBaseN || k % kPanelK) {
    std::fprintf(stderr, "matmul_stage3: M and N must be multiples of 128, K of 256\n");
    return 2;
  }
  auto* a = static_cast<half*>(AscendC::GmAlloc(size_t{m} * k * sizeof(half)));
  auto* b = static_cast<half*>(AscendC::GmAlloc(size_t{k} * n * sizeof(half)));
  auto* c = static_cast<float*>(AscendC::GmAlloc(size_t{m} * n * sizeof(float)));
  // Quarter-integers in [-2, 2]: every product and partial sum is exact in float, so the
  // result must equal the reference bit for bit whatever the summation order.
  for (size_t i = 0; i < size_t{m} * k; ++i) a[i] = half(0.25f * int((i * 7) % 17) - 2.0f);
  for (size_t i = 0; i < size_t{k} * n; ++i) b[i] = half(0.25f * int((i * 5) % 13) - 1.5f);
  AscendC::SetKernelMode(KernelMode::AIC_MODE);
  const auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(matmul_stage3, 1, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, m, n, k);
  const auto t1 = std::chrono::steady_clock::now();
  size_t bad = 0;
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      double want = 0;
      for (uint32_t p = 0; p < k; ++p) want += double(float(a[i * k + p])) * float(b[p * n + j]);
      if (c[size_t{i} * n + j] != float(want) && bad++ == 0) {
        std::printf("first mismatch: C[%u][%u] = %g, want %g\n", i, j, c[size_t{i} * n + j],
                    want);
      }
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("matmul_stage3: blocks=1 shape=%ux%ux%u check=%s "
              "host_time=%.3f ms host_gflops=%.2f\n", m,
              n, k, bad == 0 ? "pass" : "FAIL", ms, 2.0 * m * n * k / (ms * 1e6));
  AscendC::GmFree(a);
  AscendC::GmFree(b);
  AscendC::GmFree(c);
  return bad == 0 ? 0 : 1;
}
#endif  // AICORE_EXAMPLE_NO_MAIN
