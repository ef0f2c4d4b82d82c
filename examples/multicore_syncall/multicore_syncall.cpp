// multicore_syncall: y = x / sum(x) over 48 blocks (more blocks than the host has cores), a
// two-phase algorithm separated by SyncAll. Phase 1: each block loads its slice into UB, reduces
// it by pairwise vector Adds to 8 partial sums, adds those on the scalar unit and publishes the
// result to its 32-byte slot of a GM workspace. SyncAll. Phase 2: every block reads all 48 slots,
// forms the total in the same order (so every block agrees bit for bit) and scales its slice,
// which stayed in UB, by 1 / total.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t USE_CORE_NUM = 48;                                 // blocks
constexpr int32_t BLOCK_LENGTH = 4096;                               // elements per block
constexpr int32_t TOTAL_LENGTH = USE_CORE_NUM * BLOCK_LENGTH;        // total elements
constexpr int32_t SLOT_LENGTH = 32 / sizeof(float);                  // one DataBlock per block
static_assert((BLOCK_LENGTH & (BLOCK_LENGTH - 1)) == 0, "the pairwise reduction halves");

class KernelNormalize {
 public:
  __aicore__ inline KernelNormalize() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace) {
    xGm.SetGlobalBuffer((__gm__ float*)x + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    yGm.SetGlobalBuffer((__gm__ float*)y + BLOCK_LENGTH * GetBlockIdx(), BLOCK_LENGTH);
    workGm.SetGlobalBuffer((__gm__ float*)workspace, USE_CORE_NUM * SLOT_LENGTH);
    pipe.InitBuffer(xBuf, BLOCK_LENGTH * sizeof(float));
    pipe.InitBuffer(yBuf, BLOCK_LENGTH * sizeof(float));
    pipe.InitBuffer(sumBuf, BLOCK_LENGTH / 2 * sizeof(float));
    pipe.InitBuffer(slotBuf, USE_CORE_NUM * SLOT_LENGTH * sizeof(float));
  }

  // Phase 1: sum of this block's slice into workspace slot GetBlockIdx().
  __aicore__ inline void PartialSum() {
    LocalTensor<float> xLocal = xBuf.Get<float>();     // (BLOCK_LENGTH)
    LocalTensor<float> sumLocal = sumBuf.Get<float>();  // (BLOCK_LENGTH / 2)
    DataCopy(xLocal, xGm, BLOCK_LENGTH);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    int32_t n = BLOCK_LENGTH / 2;
    Add(sumLocal, xLocal, xLocal[n], n);
    while (n > SLOT_LENGTH) {
      n /= 2;
      PipeBarrier<PIPE_V>();
      Add(sumLocal, sumLocal, sumLocal[n], n);
    }
    SetFlag<HardEvent::V_S>(EVENT_ID0);
    WaitFlag<HardEvent::V_S>(EVENT_ID0);
    float partial = 0.0f;
    for (int32_t i = 0; i < SLOT_LENGTH; ++i) partial += sumLocal.GetValue(i);
    LocalTensor<float> slot = slotBuf.Get<float>(SLOT_LENGTH);
    SetFlag<HardEvent::S_V>(EVENT_ID0);
    WaitFlag<HardEvent::S_V>(EVENT_ID0);
    Duplicate(slot, partial, SLOT_LENGTH);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(workGm[GetBlockIdx() * SLOT_LENGTH], slot, SLOT_LENGTH);
  }

  // Phase 2: y = x / (sum of all partial sums).
  __aicore__ inline void Scale() {
    LocalTensor<float> slots = slotBuf.Get<float>();  // (USE_CORE_NUM, SLOT_LENGTH)
    // The slot buffer was last read by DataCopy on MTE3; MTE2 may overwrite it after this.
    SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    DataCopy(slots, workGm, USE_CORE_NUM * SLOT_LENGTH);
    SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
    float total = 0.0f;
    for (int32_t b = 0; b < USE_CORE_NUM; ++b) total += slots.GetValue(b * SLOT_LENGTH);
    LocalTensor<float> xLocal = xBuf.Get<float>();
    LocalTensor<float> yLocal = yBuf.Get<float>();
    Muls(yLocal, xLocal, 1.0f / total, BLOCK_LENGTH);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, yLocal, BLOCK_LENGTH);
  }

 private:
  TPipe pipe;
  TBuf<QuePosition::VECCALC> xBuf, yBuf, sumBuf, slotBuf;
  GlobalTensor<float> xGm;
  GlobalTensor<float> yGm;
  GlobalTensor<float> workGm;
};

extern "C" __global__ __aicore__ void multicore_syncall(GM_ADDR x, GM_ADDR y, GM_ADDR workspace) {
  KernelNormalize op;
  op.Init(x, y, workspace);
  op.PartialSum();
  SyncAll();
  op.Scale();
}

// ---- host side, as in CANN's CPU debug samples ----
#include <chrono>
#include <cmath>
#include <cstdio>

#include "tikicpulib.h"

int main() {
  const size_t bytes = TOTAL_LENGTH * sizeof(float);
  const size_t work_bytes = USE_CORE_NUM * SLOT_LENGTH * sizeof(float);
  auto* x = (uint8_t*)AscendC::GmAlloc(bytes);
  auto* y = (uint8_t*)AscendC::GmAlloc(bytes);
  auto* work = (uint8_t*)AscendC::GmAlloc(work_bytes);
  float* x_host = reinterpret_cast<float*>(x);
  float* y_host = reinterpret_cast<float*>(y);
  float* work_host = reinterpret_cast<float*>(work);
  // Slices differ in magnitude so a block that used only its own sum would be caught.
  for (int i = 0; i < TOTAL_LENGTH; ++i) {
    x_host[i] = 0.5f + 0.001f * static_cast<float>(i % 1009) * (1 + i / BLOCK_LENGTH % 7);
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(multicore_syncall, USE_CORE_NUM, x, y, work);
  auto t1 = std::chrono::steady_clock::now();
  int bad = 0;
  double total = 0;
  for (int b = 0; b < USE_CORE_NUM; ++b) {
    double partial = 0;
    for (int i = 0; i < BLOCK_LENGTH; ++i) partial += x_host[b * BLOCK_LENGTH + i];
    total += partial;
    if (!(std::fabs(work_host[b * SLOT_LENGTH] - partial) <= 1e-5 * partial)) {
      if (bad < 5) std::fprintf(stderr, "partial[%d] = %.9g, want %.9g\n", b,
                                work_host[b * SLOT_LENGTH], partial);
      ++bad;
    }
  }
  for (int i = 0; i < TOTAL_LENGTH; ++i) {
    const double want = x_host[i] / total;
    if (!(std::fabs(y_host[i] - want) <= 1e-5 * want)) {
      if (bad < 5) std::fprintf(stderr, "y[%d] = %.9g, want %.9g\n", i, y_host[i], want);
      ++bad;
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("multicore_syncall: blocks=%d elements=%d check=%s host_time=%.3f ms "
              "host_bandwidth=%.2f GB/s\n",
              USE_CORE_NUM, TOTAL_LENGTH, bad == 0 ? "pass" : "FAIL", ms,
              2.0 * bytes / (ms * 1e6));
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(work);
  return bad == 0 ? 0 : 1;
}
