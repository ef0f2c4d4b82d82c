// softmax_stage2_vector: stage 2 of the softmax walkthrough (docs/optimization-walkthrough.md):
// the arithmetic moves to the vector unit. Each row is reduced with ReduceMax, shifted with Adds,
// exponentiated with Exp, reduced with ReduceSum and scaled with Muls; the two reductions' results
// are read on the scalar unit after a V -> S flag. Tiles flow through TQue queues with ONE buffer
// each, so copy-in, compute and copy-out still take turns. One block.
// Usage: softmax_stage2_vector [rows [cols]]; checked against a double-precision reference.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BLOCK_DIM = 1;             // one block
constexpr int32_t BUFFER_NUM = 1;            // single buffering
constexpr uint32_t DEFAULT_ROWS = 512;       // the walkthrough's shape
constexpr uint32_t DEFAULT_COLS = 1000;      // a row is not a whole number of 32-byte blocks
constexpr uint32_t TILE_BYTES = 32 * 1024;   // UB bytes per tile buffer (same in every stage)

class KernelSoftmax {
 public:
  __aicore__ inline KernelSoftmax() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols) {
    rows_ = rows;
    cols_ = cols;
    xGm.SetGlobalBuffer((__gm__ float*)x, uint64_t{rows} * cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, uint64_t{rows} * cols);
    rowPitch_ = (cols * sizeof(float) + 31) / 32 * 32 / sizeof(float);  // padded UB row
    tileRows_ = TILE_BYTES / (rowPitch_ * sizeof(float));
    pipe.InitBuffer(inQueueX, BUFFER_NUM, tileRows_ * rowPitch_ * sizeof(float));
    pipe.InitBuffer(outQueueY, BUFFER_NUM, tileRows_ * rowPitch_ * sizeof(float));
    // ReduceMax/ReduceSum workspace: 2 elements per 256-byte repeat, in whole 32-byte blocks.
    const uint32_t repeats = (cols + 63) / 64;
    pipe.InitBuffer(tmpBuf, (2 * repeats + 7) / 8 * 32);
    pipe.InitBuffer(resultBuf, 32);
  }
  __aicore__ inline void Process() {
    const uint32_t tiles = (rows_ + tileRows_ - 1) / tileRows_;
    for (uint32_t t = 0; t < tiles; ++t) {
      CopyIn(t);
      Compute(t);
      CopyOut(t);
    }
  }

 private:
  __aicore__ inline uint32_t TileRows(uint32_t tile) const {
    const uint32_t left = rows_ - tile * tileRows_;
    return left < tileRows_ ? left : tileRows_;
  }
  __aicore__ inline void CopyIn(uint32_t tile) {
    LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();  // (n, rowPitch_)
    DataCopyPad(xLocal, xGm[uint64_t{tile} * tileRows_ * cols_],
                DataCopyExtParams(static_cast<uint16_t>(TileRows(tile)),
                                  cols_ * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(uint32_t tile) {
    LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();  // (n, rowPitch_)
    LocalTensor<float> tmp = tmpBuf.Get<float>();
    LocalTensor<float> result = resultBuf.Get<float>();  // the reductions' outputs
    const int32_t count = static_cast<int32_t>(cols_);
    const uint32_t n = TileRows(tile);
    for (uint32_t r = 0; r < n; ++r) {
      LocalTensor<float> xRow = xLocal[r * rowPitch_];
      LocalTensor<float> yRow = yLocal[r * rowPitch_];
      ReduceMax(result, xRow, tmp, count);
      SetFlag<HardEvent::V_S>(EVENT_ID0);
      WaitFlag<HardEvent::V_S>(EVENT_ID0);
      const float rowMax = result.GetValue(0);
      Adds(yRow, xRow, -rowMax, count);
      Exp(yRow, yRow, count);
      ReduceSum(result, yRow, tmp, count);
      SetFlag<HardEvent::V_S>(EVENT_ID0);
      WaitFlag<HardEvent::V_S>(EVENT_ID0);
      const float rowSum = result.GetValue(0);
      Muls(yRow, yRow, 1.0f / rowSum, count);
      // The next row's ReduceMax overwrites `result`, which the scalar unit has just read.
      SetFlag<HardEvent::S_V>(EVENT_ID0);
      WaitFlag<HardEvent::S_V>(EVENT_ID0);
    }
    outQueueY.EnQue<float>(yLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(uint32_t tile) {
    LocalTensor<float> yLocal = outQueueY.DeQue<float>();
    DataCopyPad(yGm[uint64_t{tile} * tileRows_ * cols_], yLocal,
                DataCopyExtParams(static_cast<uint16_t>(TileRows(tile)),
                                  cols_ * sizeof(float), 0, 0, 0));
    outQueueY.FreeTensor(yLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
  TBuf<QuePosition::VECCALC> tmpBuf;
  TBuf<QuePosition::VECCALC> resultBuf;
  GlobalTensor<float> xGm;
  GlobalTensor<float> yGm;
  uint32_t rows_ = 0;
  uint32_t cols_ = 0;
  uint32_t rowPitch_ = 0;
  uint32_t tileRows_ = 0;
};

extern "C" __global__ __aicore__ void softmax_stage2(GM_ADDR x, GM_ADDR y, uint32_t rows,
                                                     uint32_t cols) {
  KernelSoftmax op;
  op.Init(x, y, rows, cols);
  op.Process();
}

// ---- host side, as in CANN's CPU debug samples (the same in every stage) ----
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tikicpulib.h"

int main(int argc, char** argv) {
  const uint32_t rows = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10))
                                 : DEFAULT_ROWS;
  const uint32_t cols = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10))
                                 : DEFAULT_COLS;
  if (rows == 0 || cols == 0 || (cols * sizeof(float) + 31) / 32 * 32 > TILE_BYTES) {
    std::fprintf(stderr, "usage: %s [rows [cols]]: rows >= 1 and 1 <= cols <= %u\n", argv[0],
                 TILE_BYTES / 4);
    return 2;
  }
  const size_t elements = size_t{rows} * cols;
  auto* x = static_cast<float*>(AscendC::GmAlloc(elements * sizeof(float)));
  auto* y = static_cast<float*>(AscendC::GmAlloc(elements * sizeof(float)));
  for (size_t i = 0; i < elements; ++i) {
    x[i] = static_cast<float>(static_cast<int>((i * 7919) % 201) - 100) * 0.05f;
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(softmax_stage2, BLOCK_DIM, x, y, rows, cols);
  auto t1 = std::chrono::steady_clock::now();
  size_t bad = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    const float* xr = x + size_t{r} * cols;
    double m = xr[0];
    for (uint32_t c = 1; c < cols; ++c) m = std::fmax(m, xr[c]);
    double s = 0;
    for (uint32_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (uint32_t c = 0; c < cols; ++c) {
      const double want = std::exp(xr[c] - m) / s;
      if (!(std::fabs(y[size_t{r} * cols + c] - want) <= 1e-4 * want + 1e-9)) ++bad;
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("%s: blocks=%d rows=%u cols=%u check=%s host_time=%.3f ms\n",
              "softmax_stage2_vector", BLOCK_DIM, rows, cols,
              bad == 0 ? "pass" : "FAIL", ms);
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return bad == 0 ? 0 : 1;
}
