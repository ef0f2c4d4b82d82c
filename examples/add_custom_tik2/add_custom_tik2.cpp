// add_custom in the style of the 2023 Ascend samples: the `tik2` namespace, the NPU launch wrapper
// compiled only when __CCE_KT_TEST__ is not defined, and a CPU-debug host main under
// __CCE_KT_TEST__ that uses tik2::GmAlloc and ICPU_RUN_KF. z = x + y on half, checked against a
// scalar reference.
#include "kernel_operator.h"

using namespace tik2;

constexpr int32_t TOTAL_LENGTH = 8 * 2048;                     // elements
constexpr int32_t USE_CORE_NUM = 8;                            // blocks
constexpr int32_t BLOCK_LENGTH = TOTAL_LENGTH / USE_CORE_NUM;  // elements per block
constexpr int32_t TILE_NUM = 8;                                // tiles per block and buffer
constexpr int32_t BUFFER_NUM = 2;                              // double buffering
constexpr int32_t TILE_LENGTH = BLOCK_LENGTH / TILE_NUM / BUFFER_NUM;

class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(__gm__ uint8_t* x, __gm__ uint8_t* y, __gm__ uint8_t* z) {
    const int32_t offset = BLOCK_LENGTH * GetBlockIdx();
    xGm.SetGlobalBuffer((__gm__ half*)x + offset, BLOCK_LENGTH);  // (BLOCK_LENGTH,)
    yGm.SetGlobalBuffer((__gm__ half*)y + offset, BLOCK_LENGTH);
    zGm.SetGlobalBuffer((__gm__ half*)z + offset, BLOCK_LENGTH);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    pipe.InitBuffer(inQueueY, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    pipe.InitBuffer(outQueueZ, BUFFER_NUM, TILE_LENGTH * sizeof(half));
  }
  __aicore__ inline void Process() {
    for (int32_t i = 0; i < TILE_NUM * BUFFER_NUM; i++) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t progress) {
    LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();  // (TILE_LENGTH,)
    LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
    DataCopy(xLocal, xGm[progress * TILE_LENGTH], TILE_LENGTH);
    DataCopy(yLocal, yGm[progress * TILE_LENGTH], TILE_LENGTH);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
  }
  __aicore__ inline void Compute() {
    LocalTensor<half> xLocal = inQueueX.DeQue<half>();
    LocalTensor<half> yLocal = inQueueY.DeQue<half>();
    LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
    Add(zLocal, xLocal, yLocal, TILE_LENGTH);
    outQueueZ.EnQue(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
  }
  __aicore__ inline void CopyOut(int32_t progress) {
    LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
    DataCopy(zGm[progress * TILE_LENGTH], zLocal, TILE_LENGTH);
    outQueueZ.FreeTensor(zLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
  GlobalTensor<half> xGm, yGm, zGm;
};

extern "C" __global__ __aicore__ void add_custom(__gm__ uint8_t* x, __gm__ uint8_t* y,
                                                 __gm__ uint8_t* z) {
  KernelAdd op;
  op.Init(x, y, z);
  op.Process();
}

#ifndef __CCE_KT_TEST__
// NPU build (bisheng): the host calls this wrapper around the <<<blockDim, l2ctrl, stream>>>
// launch of the 2023 samples.
void add_custom_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x, uint8_t* y,
                   uint8_t* z) {
  add_custom<<<blockDim, l2ctrl, stream>>>(x, y, z);
}
#endif

#ifdef __CCE_KT_TEST__
#include <chrono>
#include <cstdio>

#include "tikicpulib.h"

int main() {
  const size_t bytes = TOTAL_LENGTH * sizeof(half);
  half* x = (half*)tik2::GmAlloc(bytes);
  half* y = (half*)tik2::GmAlloc(bytes);
  half* z = (half*)tik2::GmAlloc(bytes);
  for (int32_t i = 0; i < TOTAL_LENGTH; ++i) {
    x[i] = half(0.5f * (i % 113) - 20.0f);
    y[i] = half(0.125f * (i % 29));
  }
  tik2::SetKernelMode(KernelMode::AIV_MODE);
  const auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(add_custom, USE_CORE_NUM, (uint8_t*)x, (uint8_t*)y, (uint8_t*)z);
  const auto t1 = std::chrono::steady_clock::now();
  int32_t bad = 0;
  for (int32_t i = 0; i < TOTAL_LENGTH; ++i) {
    const float want = float(half(float(x[i]) + float(y[i])));
    if (float(z[i]) != want) {
      if (bad < 5) std::printf("mismatch at %d: got %f want %f\n", i, float(z[i]), want);
      ++bad;
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("add_custom_tik2: blocks=%d elements=%d check=%s host_time=%.3f ms "
              "host_bandwidth=%.2f GB/s\n",
              USE_CORE_NUM, TOTAL_LENGTH, bad == 0 ? "pass" : "FAIL", ms,
              3.0 * bytes / (ms * 1e6));
  tik2::GmFree(x);
  tik2::GmFree(y);
  tik2::GmFree(z);
  return bad == 0 ? 0 : 1;
}
#endif
