// add_custom_single_buffer: z = x + y on half with BUFFER_NUM = 1, the single-buffered variant of
// examples/add_custom. What changes against the double-buffered kernel:
//   - each TQue holds one buffer, so TILE_LENGTH doubles for the same UB footprint and the loop
//     runs TILE_NUM times instead of TILE_NUM * BUFFER_NUM;
//   - on hardware CopyIn of tile i+1 cannot start until Compute of tile i has freed the only
//     input buffer, so MTE2, V and MTE3 never overlap (the timing model shows this); the results
//     are identical.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t TOTAL_LENGTH = 8 * 2048 + 8 * 512;                 // total elements
constexpr int32_t USE_CORE_NUM = 8;                                  // blocks
constexpr int32_t BLOCK_LENGTH = TOTAL_LENGTH / USE_CORE_NUM;        // elements per block
constexpr int32_t TILE_NUM = 5;                                      // tiles per block
constexpr int32_t BUFFER_NUM = 1;                                    // single buffering
constexpr int32_t TILE_LENGTH = BLOCK_LENGTH / TILE_NUM / BUFFER_NUM;
static_assert(TILE_LENGTH * TILE_NUM == BLOCK_LENGTH, "tiles must cover the block");
static_assert(TILE_LENGTH * sizeof(half) % 32 == 0, "DataCopy moves whole 32-byte blocks");

class KernelAddSingleBuffer {
 public:
  __aicore__ inline KernelAddSingleBuffer() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    xGm.SetGlobalBuffer((__gm__ half*)x + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    yGm.SetGlobalBuffer((__gm__ half*)y + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    zGm.SetGlobalBuffer((__gm__ half*)z + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    pipe.InitBuffer(inQueueY, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    pipe.InitBuffer(outQueueZ, BUFFER_NUM, TILE_LENGTH * sizeof(half));
  }
  __aicore__ inline void Process() {
    int32_t loopCount = TILE_NUM * BUFFER_NUM;
    for (int32_t i = 0; i < loopCount; i++) {
      CopyIn(i);
      Compute(i);
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t progress) {
    LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
    LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
    DataCopy(xLocal, xGm[progress * TILE_LENGTH], TILE_LENGTH);
    DataCopy(yLocal, yGm[progress * TILE_LENGTH], TILE_LENGTH);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
  }
  __aicore__ inline void Compute(int32_t progress) {
    LocalTensor<half> xLocal = inQueueX.DeQue<half>();
    LocalTensor<half> yLocal = inQueueY.DeQue<half>();
    LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
    Add(zLocal, xLocal, yLocal, TILE_LENGTH);
    outQueueZ.EnQue<half>(zLocal);
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
  GlobalTensor<half> xGm;
  GlobalTensor<half> yGm;
  GlobalTensor<half> zGm;
};

extern "C" __global__ __aicore__ void add_custom_single_buffer(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  KernelAddSingleBuffer op;
  op.Init(x, y, z);
  op.Process();
}

// ---- host side, as in CANN's CPU debug samples ----
#include <chrono>
#include <cstdio>

#include "tikicpulib.h"

int main() {
  const size_t bytes = TOTAL_LENGTH * sizeof(half);
  auto* x = (uint8_t*)AscendC::GmAlloc(bytes);
  auto* y = (uint8_t*)AscendC::GmAlloc(bytes);
  auto* z = (uint8_t*)AscendC::GmAlloc(bytes);
  half* x_host = reinterpret_cast<half*>(x);
  half* y_host = reinterpret_cast<half*>(y);
  half* z_host = reinterpret_cast<half*>(z);
  for (int i = 0; i < TOTAL_LENGTH; ++i) {
    x_host[i] = half(0.125f * (i % 113) - 3.0f);
    y_host[i] = half(0.75f * (i % 29));
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(add_custom_single_buffer, USE_CORE_NUM, x, y, z);
  auto t1 = std::chrono::steady_clock::now();
  int bad = 0;
  for (int i = 0; i < TOTAL_LENGTH; ++i) {
    const float want = float(half(float(x_host[i]) + float(y_host[i])));
    if (float(z_host[i]) != want) {
      if (bad < 5) std::fprintf(stderr, "z[%d] = %g, want %g\n", i, float(z_host[i]), want);
      ++bad;
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("add_custom_single_buffer: blocks=%d elements=%d check=%s host_time=%.3f ms "
              "host_bandwidth=%.2f GB/s\n",
              USE_CORE_NUM, TOTAL_LENGTH, bad == 0 ? "pass" : "FAIL", ms,
              3.0 * bytes / (ms * 1e6));
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
  return bad == 0 ? 0 : 1;
}
