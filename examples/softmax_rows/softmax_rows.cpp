// softmax_rows: y = softmax(x) along each row of an (R, C) float matrix with C = 1003, written as
// an AscendC kernel: rows come into UB TILE_ROWS at a time with DataCopyPad, each row is
// shifted by its ReduceMax, exponentiated, and scaled by the reciprocal of its ReduceSum, and the
// rows go back with DataCopyPad. The reductions' results are read on the scalar pipe after a
// V -> S flag, as on the device. Launched with ICPU_RUN_KF and checked against a double-precision
// reference.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t USE_CORE_NUM = 8;  // blocks
constexpr uint32_t ROWS = 1027;      // R: not a multiple of the blocks or the tile
constexpr uint32_t COLS = 1003;      // C: a row is not a whole number of 32-byte blocks
constexpr uint32_t TILE_ROWS = 8;    // rows per UB tile
constexpr int32_t BUFFER_NUM = 2;    // double buffering

class KernelSoftmaxRows {
 public:
  __aicore__ inline KernelSoftmaxRows() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols) {
    cols_ = cols;
    const uint32_t rowsPerBlock = (rows + GetBlockNum() - 1) / GetBlockNum();
    const uint32_t row0 = rowsPerBlock * GetBlockIdx();
    rows_ = row0 >= rows ? 0 : (rows - row0 < rowsPerBlock ? rows - row0 : rowsPerBlock);
    if (rows_ == 0) return;
    xGm.SetGlobalBuffer((__gm__ float*)x + uint64_t{row0} * cols, uint64_t{rows_} * cols);
    yGm.SetGlobalBuffer((__gm__ float*)y + uint64_t{row0} * cols, uint64_t{rows_} * cols);
    rowPitch_ = (cols * sizeof(float) + 31) / 32 * 32 / sizeof(float);  // padded UB row
    pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_ROWS * rowPitch_ * sizeof(float));
    pipe.InitBuffer(outQueueY, BUFFER_NUM, TILE_ROWS * rowPitch_ * sizeof(float));
    // ReduceMax/ReduceSum workspace (see their docs): 2 elements per repeat for the max.
    const uint32_t repeats = (cols + 63) / 64;
    pipe.InitBuffer(tmpBuf, (2 * repeats + 7) / 8 * 32);
    pipe.InitBuffer(resultBuf, 32);
  }
  __aicore__ inline void Process() {
    const uint32_t tiles = (rows_ + TILE_ROWS - 1) / TILE_ROWS;
    for (uint32_t t = 0; t < tiles; ++t) {
      const uint32_t n = rows_ - t * TILE_ROWS < TILE_ROWS ? rows_ - t * TILE_ROWS : TILE_ROWS;
      CopyIn(t, n);
      Compute(n);
      CopyOut(t, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t tile, uint32_t n) {
    LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();  // (n, rowPitch_)
    DataCopyPad(xLocal, xGm[uint64_t{tile} * TILE_ROWS * cols_],
                DataCopyExtParams(static_cast<uint16_t>(n), cols_ * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();  // (n, rowPitch_)
    LocalTensor<float> tmp = tmpBuf.Get<float>();
    LocalTensor<float> result = resultBuf.Get<float>();  // (8,): the reductions' outputs
    const int32_t count = static_cast<int32_t>(cols_);
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
      // The next row's ReduceMax overwrites `result`, which the scalar pipe has just read.
      SetFlag<HardEvent::S_V>(EVENT_ID0);
      WaitFlag<HardEvent::S_V>(EVENT_ID0);
    }
    outQueueY.EnQue<float>(yLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(uint32_t tile, uint32_t n) {
    LocalTensor<float> yLocal = outQueueY.DeQue<float>();
    DataCopyPad(yGm[uint64_t{tile} * TILE_ROWS * cols_], yLocal,
                DataCopyExtParams(static_cast<uint16_t>(n), cols_ * sizeof(float), 0, 0, 0));
    outQueueY.FreeTensor(yLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
  TBuf<QuePosition::VECCALC> tmpBuf;
  TBuf<QuePosition::VECCALC> resultBuf;
  GlobalTensor<float> xGm;
  GlobalTensor<float> yGm;
  uint32_t cols_ = 0;
  uint32_t rows_ = 0;
  uint32_t rowPitch_ = 0;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, uint32_t rows,
                                                   uint32_t cols) {
  KernelSoftmaxRows op;
  op.Init(x, y, rows, cols);
  op.Process();
}

// ---- host side, as in CANN's CPU debug samples ----
#include <chrono>
#include <cmath>
#include <cstdio>

#include "tikicpulib.h"

int main() {
  const size_t elements = size_t{ROWS} * COLS;
  auto* x = static_cast<float*>(AscendC::GmAlloc(elements * sizeof(float)));
  auto* y = static_cast<float*>(AscendC::GmAlloc(elements * sizeof(float)));
  for (size_t i = 0; i < elements; ++i) {
    x[i] = static_cast<float>(static_cast<int>((i * 7919) % 201) - 100) * 0.05f;
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(softmax_rows, USE_CORE_NUM, x, y, ROWS, COLS);  // warm-up
  auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(softmax_rows, USE_CORE_NUM, x, y, ROWS, COLS);
  auto t1 = std::chrono::steady_clock::now();
  int bad = 0;
  for (uint32_t r = 0; r < ROWS; ++r) {
    const float* xr = x + size_t{r} * COLS;
    double m = xr[0];
    for (uint32_t c = 1; c < COLS; ++c) m = std::fmax(m, xr[c]);
    double s = 0;
    for (uint32_t c = 0; c < COLS; ++c) s += std::exp(xr[c] - m);
    for (uint32_t c = 0; c < COLS; ++c) {
      const double want = std::exp(xr[c] - m) / s;
      if (std::fabs(y[size_t{r} * COLS + c] - want) > 1e-5 * want + 1e-9) ++bad;
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("softmax_rows: blocks=%d elements=%zu check=%s "
              "host_time=%.3f ms host_bandwidth=%.2f GB/s\n",
              USE_CORE_NUM, elements, bad == 0 ? "pass" : "FAIL", ms,
              2.0 * elements * sizeof(float) / (ms * 1e6));
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return bad == 0 ? 0 : 1;
}
