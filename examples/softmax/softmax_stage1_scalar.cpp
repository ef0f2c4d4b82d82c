// softmax_stage1_scalar: stage 1 of the softmax walkthrough (docs/optimization-walkthrough.md),
// the naive port: y = softmax(x) along each row of a (rows, cols) float matrix on one block, with
// the arithmetic done element by element on the scalar unit (GetValue/SetValue on UB) between a
// DataCopyPad in and a DataCopyPad out, every hand-off guarded by a SetFlag/WaitFlag pair.
// Usage: softmax_stage1_scalar [rows [cols]]; checked against a double-precision reference.
#include <cmath>  // std::exp on the scalar unit

#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BLOCK_DIM = 1;             // one block: the naive port
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
    pipe.InitBuffer(xBuf, tileRows_ * rowPitch_ * sizeof(float));
    pipe.InitBuffer(yBuf, tileRows_ * rowPitch_ * sizeof(float));
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
    LocalTensor<float> xLocal = xBuf.Get<float>();  // (n, rowPitch_)
    DataCopyPad(xLocal, xGm[uint64_t{tile} * tileRows_ * cols_],
                DataCopyExtParams(static_cast<uint16_t>(TileRows(tile)),
                                  cols_ * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    SetFlag<HardEvent::MTE2_S>(EVENT_ID0);  // the scalar unit reads what MTE2 wrote
    WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
  }
  __aicore__ inline void Compute(uint32_t tile) {
    LocalTensor<float> xLocal = xBuf.Get<float>();
    LocalTensor<float> yLocal = yBuf.Get<float>();  // (n, rowPitch_)
    const uint32_t n = TileRows(tile);
    for (uint32_t r = 0; r < n; ++r) {
      const uint32_t row = r * rowPitch_;
      float rowMax = xLocal.GetValue(row);
      for (uint32_t c = 1; c < cols_; ++c) {
        const float v = xLocal.GetValue(row + c);
        rowMax = v > rowMax ? v : rowMax;
      }
      float rowSum = 0.0f;
      for (uint32_t c = 0; c < cols_; ++c) {
        const float e = std::exp(xLocal.GetValue(row + c) - rowMax);
        yLocal.SetValue(row + c, e);
        rowSum += e;
      }
      const float scale = 1.0f / rowSum;
      for (uint32_t c = 0; c < cols_; ++c) {
        yLocal.SetValue(row + c, yLocal.GetValue(row + c) * scale);
      }
    }
    SetFlag<HardEvent::S_MTE2>(EVENT_ID0);  // the next CopyIn may overwrite x
    WaitFlag<HardEvent::S_MTE2>(EVENT_ID0);
    SetFlag<HardEvent::S_MTE3>(EVENT_ID0);  // MTE3 reads what the scalar unit wrote
    WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
  }
  __aicore__ inline void CopyOut(uint32_t tile) {
    LocalTensor<float> yLocal = yBuf.Get<float>();
    DataCopyPad(yGm[uint64_t{tile} * tileRows_ * cols_], yLocal,
                DataCopyExtParams(static_cast<uint16_t>(TileRows(tile)),
                                  cols_ * sizeof(float), 0, 0, 0));
    SetFlag<HardEvent::MTE3_S>(EVENT_ID0);  // the next Compute may overwrite y
    WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
  }

  TPipe pipe;
  TBuf<QuePosition::VECCALC> xBuf;
  TBuf<QuePosition::VECCALC> yBuf;
  GlobalTensor<float> xGm;
  GlobalTensor<float> yGm;
  uint32_t rows_ = 0;
  uint32_t cols_ = 0;
  uint32_t rowPitch_ = 0;
  uint32_t tileRows_ = 0;
};

extern "C" __global__ __aicore__ void softmax_stage1(GM_ADDR x, GM_ADDR y, uint32_t rows,
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
  ICPU_RUN_KF(softmax_stage1, BLOCK_DIM, x, y, rows, cols);
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
              "softmax_stage1_scalar", BLOCK_DIM, rows, cols,
              bad == 0 ? "pass" : "FAIL", ms);
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return bad == 0 ? 0 : 1;
}
