// y = x * alpha + beta with a double-buffered TQue pipeline (Muls then Adds).
#include "scale_custom.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, float alpha, float beta,
                                                   uint32_t totalLength) {
  const uint32_t blockLength = totalLength / GetBlockNum();
  GlobalTensor<float> xGm;  // (blockLength,)
  GlobalTensor<float> yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
  yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * GetBlockIdx(), blockLength);
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> inQueue;
  TQue<QuePosition::VECOUT, 2> outQueue;
  pipe.InitBuffer(inQueue, 2, SCALE_TILE * sizeof(float));
  pipe.InitBuffer(outQueue, 2, SCALE_TILE * sizeof(float));
  for (uint32_t t = 0; t < blockLength / SCALE_TILE; ++t) {
    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();  // (SCALE_TILE,)
    DataCopy(xLocal, xGm[t * SCALE_TILE], SCALE_TILE);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
    Muls(yLocal, xLocal, alpha, SCALE_TILE);
    Adds(yLocal, yLocal, beta, SCALE_TILE);
    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<float>();
    DataCopy(yGm[t * SCALE_TILE], yLocal, SCALE_TILE);
    outQueue.FreeTensor(yLocal);
  }
}
