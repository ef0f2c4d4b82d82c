// row_reduce: y[r] = sum of row r of an (R, C) matrix, with C = 1003 (rows are not whole 32-byte
// blocks), written as an AscendC kernel: each block takes a contiguous band of rows, brings
// TILE_ROWS rows at a time into UB with DataCopyPad (each row padded to 32 B), sums every row
// with ReduceSum, and writes the sums back with DataCopyPad; input and output queues are double
// buffered. Runs on float (timed) and on half, launched with ICPU_RUN_KF and checked against a
// double-precision reference.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t USE_CORE_NUM = 8;  // blocks
constexpr uint32_t ROWS = 8003;      // R: not a multiple of the blocks or the tile
constexpr uint32_t COLS = 1003;      // C: a row is not a whole number of 32-byte blocks
constexpr uint32_t TILE_ROWS = 8;    // rows per UB tile
constexpr int32_t BUFFER_NUM = 2;    // double buffering

template <typename T>
class KernelRowReduce {
 public:
  __aicore__ inline KernelRowReduce() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols) {
    cols_ = cols;
    const uint32_t rowsPerBlock = (rows + GetBlockNum() - 1) / GetBlockNum();
    const uint32_t row0 = rowsPerBlock * GetBlockIdx();
    rows_ = row0 >= rows ? 0 : (rows - row0 < rowsPerBlock ? rows - row0 : rowsPerBlock);
    if (rows_ == 0) return;
    xGm.SetGlobalBuffer((__gm__ T*)x + uint64_t{row0} * cols,
                        uint64_t{rows_} * cols);      // (rows_, C)
    yGm.SetGlobalBuffer((__gm__ T*)y + row0, rows_);  // (rows_,)
    // A UB row is padded up to whole 32-byte blocks.
    rowPitch_ = (cols * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_ROWS * rowPitch_ * sizeof(T));
    pipe.InitBuffer(outQueueY, BUFFER_NUM, (TILE_ROWS * sizeof(T) + 31) / 32 * 32);
    // ReduceSum's workspace: one element per repeat, rounded up to a 32-byte block.
    const uint32_t perRepeat = 256 / sizeof(T);
    const uint32_t perBlock = 32 / sizeof(T);
    const uint32_t repeats = (cols + perRepeat - 1) / perRepeat;
    pipe.InitBuffer(tmpBuf, (repeats + perBlock - 1) / perBlock * 32);
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
    LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();  // (n, rowPitch_)
    DataCopyExtParams params(static_cast<uint16_t>(n), cols_ * sizeof(T), 0, 0, 0);
    DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0));
    DataCopyPad(xLocal, xGm[uint64_t{tile} * TILE_ROWS * cols_], params, pad);
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> xLocal = inQueueX.DeQue<T>();
    LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();  // (n,)
    LocalTensor<T> tmp = tmpBuf.Get<T>();
    for (uint32_t r = 0; r < n; ++r) {
      ReduceSum(yLocal[r], xLocal[r * rowPitch_], tmp, static_cast<int32_t>(cols_));
    }
    outQueueY.EnQue<T>(yLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(uint32_t tile, uint32_t n) {
    LocalTensor<T> yLocal = outQueueY.DeQue<T>();
    DataCopyPad(yGm[uint64_t{tile} * TILE_ROWS], yLocal,
                DataCopyExtParams(1, n * sizeof(T), 0, 0, 0));
    outQueueY.FreeTensor(yLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
  TBuf<QuePosition::VECCALC> tmpBuf;
  GlobalTensor<T> xGm;
  GlobalTensor<T> yGm;
  uint32_t cols_ = 0;
  uint32_t rows_ = 0;
  uint32_t rowPitch_ = 0;
};

extern "C" __global__ __aicore__ void row_reduce_float(GM_ADDR x, GM_ADDR y, uint32_t rows,
                                                       uint32_t cols) {
  KernelRowReduce<float> op;
  op.Init(x, y, rows, cols);
  op.Process();
}

extern "C" __global__ __aicore__ void row_reduce_half(GM_ADDR x, GM_ADDR y, uint32_t rows,
                                                      uint32_t cols) {
  KernelRowReduce<half> op;
  op.Init(x, y, rows, cols);
  op.Process();
}

// ---- host side, as in CANN's CPU debug samples ----
#include <chrono>
#include <cmath>
#include <cstdio>

#include "tikicpulib.h"

namespace {

// Fills x with values exact in half, runs `launch(x, y)` twice (timing the second) and returns
// the number of rows whose sum is off.
template <typename T, typename Launch>
int RunAndCheck(Launch&& launch, double* ms) {
  const size_t xBytes = size_t{ROWS} * COLS * sizeof(T);
  auto* x = static_cast<T*>(AscendC::GmAlloc(xBytes));
  auto* y = static_cast<T*>(AscendC::GmAlloc(ROWS * sizeof(T)));
  for (size_t i = 0; i < size_t{ROWS} * COLS; ++i) {
    x[i] = static_cast<T>(static_cast<float>(static_cast<int>((i * 37) % 29) - 14) * 0.125f);
  }
  launch(x, y);  // warm-up: the first launch also starts the worker threads
  auto t0 = std::chrono::steady_clock::now();
  launch(x, y);
  auto t1 = std::chrono::steady_clock::now();
  *ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  int bad = 0;
  for (uint32_t r = 0; r < ROWS; ++r) {
    double want = 0;
    double abs_sum = 0;
    for (uint32_t c = 0; c < COLS; ++c) {
      want += static_cast<float>(x[size_t{r} * COLS + c]);
      abs_sum += std::fabs(static_cast<float>(x[size_t{r} * COLS + c]));
    }
    // The sum is accumulated in float and rounded once to T.
    const double ulp =
        std::ldexp(1.0, std::ilogb(std::fmax(std::fabs(want), 1e-3)) - (sizeof(T) == 2 ? 10 : 23));
    if (std::fabs(static_cast<float>(y[r]) - want) > ulp + 1e-6 * abs_sum) ++bad;
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return bad;
}

}  // namespace

int main() {
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  double ms_float = 0;
  double ms_half = 0;
  const int bad_float = RunAndCheck<float>(
      [](float* x, float* y) { ICPU_RUN_KF(row_reduce_float, USE_CORE_NUM, x, y, ROWS, COLS); },
      &ms_float);
  const int bad_half = RunAndCheck<half>(
      [](half* x, half* y) { ICPU_RUN_KF(row_reduce_half, USE_CORE_NUM, x, y, ROWS, COLS); },
      &ms_half);
  const bool pass = bad_float == 0 && bad_half == 0;
  if (!pass) {
    std::printf("row_reduce: %d float rows and %d half rows differ from the reference\n", bad_float,
                bad_half);
  }
  // Time and bandwidth of the float run: the matrix read plus the row sums written.
  const double bytes = (double{ROWS} * COLS + ROWS) * sizeof(float);
  std::printf("row_reduce: blocks=%d elements=%u check=%s "
              "host_time=%.3f ms host_bandwidth=%.2f GB/s\n",
              USE_CORE_NUM, ROWS * COLS, pass ? "pass" : "FAIL", ms_float,
              bytes / (ms_float * 1e6));
  return pass ? 0 : 1;
}
