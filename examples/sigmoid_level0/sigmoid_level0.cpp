// sigmoid_level0: y = 1 / (1 + exp(-x)) on float with the level-0 vector APIs: explicit masks,
// repeatTimes and Unary/BinaryRepeatParams. Each tile runs its whole 64-element repeats with a
// full bit mask, then the last partial repeat with a continuous mask of the tail length; the
// final division reads one repeat of ones again and again (src0 repeat stride 0).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t USE_CORE_NUM = 8;                                  // blocks
constexpr int32_t TILE_LENGTH = 64 * 32;                             // elements per full tile
constexpr int32_t BLOCK_LENGTH = 3 * TILE_LENGTH + 64 * 5 + 40;      // elements per block
constexpr int32_t TOTAL_LENGTH = USE_CORE_NUM * BLOCK_LENGTH;        // total elements
constexpr int32_t BUFFER_NUM = 2;                                    // double buffering
constexpr int32_t PER_REPEAT = 256 / sizeof(float);                  // elements per repeat: 64
static_assert(BLOCK_LENGTH * sizeof(float) % 32 == 0, "DataCopy moves whole 32-byte blocks");
static_assert(TILE_LENGTH / PER_REPEAT <= 255, "repeatTimes is 8 bits");

class KernelSigmoid {
 public:
  __aicore__ inline KernelSigmoid() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
    xGm.SetGlobalBuffer((__gm__ float*)x + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    yGm.SetGlobalBuffer((__gm__ float*)y + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    pipe.InitBuffer(outQueueY, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    pipe.InitBuffer(tmpBuf, TILE_LENGTH * sizeof(float));
    pipe.InitBuffer(onesBuf, PER_REPEAT * sizeof(float));
    // One repeat of 1.0f: the dividend of every repeat of the final Div.
    LocalTensor<float> ones = onesBuf.Get<float>();
    uint64_t fullMask[2] = {~0ull, 0};
    Duplicate(ones, 1.0f, fullMask, 1, 1, 8);
  }
  __aicore__ inline void Process() {
    for (int32_t offset = 0; offset < BLOCK_LENGTH; offset += TILE_LENGTH) {
      const int32_t length = BLOCK_LENGTH - offset < TILE_LENGTH ? BLOCK_LENGTH - offset
                                                                 : TILE_LENGTH;
      CopyIn(offset, length);
      Compute(length);
      CopyOut(offset, length);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t offset, int32_t length) {
    LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    DataCopy(xLocal, xGm[offset], length);
    inQueueX.EnQue(xLocal);
  }
  // Runs the four level-0 steps over `repeatTimes` repeats of the tensors' first elements.
  template <typename Mask>
  __aicore__ inline void SigmoidRepeats(const LocalTensor<float>& yLocal,
                                        const LocalTensor<float>& xLocal,
                                        const LocalTensor<float>& tmp, Mask mask,
                                        uint8_t repeatTimes) {
    const UnaryRepeatParams unary(1, 1, 8, 8);   // dense blocks, one repeat after another
    const BinaryRepeatParams ones(1, 1, 1, 8, 0, 8);  // src0 (the ones) stays on its repeat
    Muls(tmp, xLocal, -1.0f, mask, repeatTimes, unary);           // tmp = -x
    PipeBarrier<PIPE_V>();
    Exp(tmp, tmp, mask, repeatTimes, unary);                      // tmp = exp(-x)
    PipeBarrier<PIPE_V>();
    Adds(tmp, tmp, 1.0f, mask, repeatTimes, unary);               // tmp = 1 + exp(-x)
    PipeBarrier<PIPE_V>();
    Div(yLocal, onesBuf.Get<float>(), tmp, mask, repeatTimes, ones);  // y = 1 / tmp
  }
  __aicore__ inline void Compute(int32_t length) {
    LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
    LocalTensor<float> tmp = tmpBuf.Get<float>();
    const int32_t fullRepeats = length / PER_REPEAT;
    const int32_t tail = length % PER_REPEAT;
    if (fullRepeats > 0) {
      uint64_t fullMask[2] = {~0ull, 0};  // all 64 float lanes (the high word is unused)
      SigmoidRepeats<const uint64_t*>(yLocal, xLocal, tmp, fullMask,
                                      static_cast<uint8_t>(fullRepeats));
    }
    if (tail > 0) {
      const int32_t done = fullRepeats * PER_REPEAT;
      const uint64_t tailMask = static_cast<uint64_t>(tail);  // continuous: first `tail` lanes
      SigmoidRepeats<uint64_t>(yLocal[done], xLocal[done], tmp[done], tailMask, 1);
    }
    outQueueY.EnQue<float>(yLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(int32_t offset, int32_t length) {
    LocalTensor<float> yLocal = outQueueY.DeQue<float>();
    DataCopy(yGm[offset], yLocal, length);
    outQueueY.FreeTensor(yLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
  TBuf<QuePosition::VECCALC> tmpBuf;
  TBuf<QuePosition::VECCALC> onesBuf;
  GlobalTensor<float> xGm;
  GlobalTensor<float> yGm;
};

extern "C" __global__ __aicore__ void sigmoid_level0(GM_ADDR x, GM_ADDR y) {
  KernelSigmoid op;
  op.Init(x, y);
  op.Process();
}

// ---- host side, as in CANN's CPU debug samples ----
#include <chrono>
#include <cmath>
#include <cstdio>

#include "tikicpulib.h"

int main() {
  const size_t bytes = TOTAL_LENGTH * sizeof(float);
  auto* x = (uint8_t*)AscendC::GmAlloc(bytes);
  auto* y = (uint8_t*)AscendC::GmAlloc(bytes);
  float* x_host = reinterpret_cast<float*>(x);
  float* y_host = reinterpret_cast<float*>(y);
  for (int i = 0; i < TOTAL_LENGTH; ++i) x_host[i] = 0.01f * static_cast<float>(i % 2001) - 10.0f;
  // Saturating inputs: exp(-x) overflows to inf (y = 0) or underflows to 0 (y = 1).
  x_host[7] = -100.0f;
  x_host[TOTAL_LENGTH - 1] = 100.0f;
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(sigmoid_level0, USE_CORE_NUM, x, y);
  auto t1 = std::chrono::steady_clock::now();
  int bad = 0;
  for (int i = 0; i < TOTAL_LENGTH; ++i) {
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(x_host[i])));
    const double got = y_host[i];
    if (!(std::fabs(got - want) <= 1e-6 * std::fabs(want) + 1e-30)) {
      if (bad < 5) std::fprintf(stderr, "y[%d] = %.9g for x = %g, want %.9g\n", i, got,
                                x_host[i], want);
      ++bad;
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("sigmoid_level0: blocks=%d elements=%d check=%s host_time=%.3f ms "
              "host_bandwidth=%.2f GB/s\n",
              USE_CORE_NUM, TOTAL_LENGTH, bad == 0 ? "pass" : "FAIL", ms,
              2.0 * bytes / (ms * 1e6));
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return bad == 0 ? 0 : 1;
}
