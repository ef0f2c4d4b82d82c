// add_custom driven by an ACL-style host program: aclInit, aclrtSetDevice, aclrtCreateStream,
// aclrtMalloc, aclrtMemcpy host-to-device, ACLRT_LAUNCH_KERNEL on the stream (and aicore::Launch
// for a second run timed with events), aclrtSynchronizeStream, aclrtMemcpy device-to-host, and a
// check against a scalar reference. z = x + y on half, 1 Mi elements over 8 blocks.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t BLOCK_DIM = 8;
constexpr int32_t TILE_LENGTH = 2048;  // elements per tile
constexpr int32_t BUFFER_NUM = 2;      // double buffering

// z = x + y over `totalLength` elements split evenly over the blocks; the per-block length is a
// multiple of TILE_LENGTH.
class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength) {
    blockLength_ = totalLength / GetBlockNum();
    const uint32_t offset = blockLength_ * GetBlockIdx();
    xGm_.SetGlobalBuffer((__gm__ half*)x + offset, blockLength_);  // (blockLength_,)
    yGm_.SetGlobalBuffer((__gm__ half*)y + offset, blockLength_);
    zGm_.SetGlobalBuffer((__gm__ half*)z + offset, blockLength_);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, TILE_LENGTH * sizeof(half));
  }
  __aicore__ inline void Process() {
    const uint32_t tiles = blockLength_ / TILE_LENGTH;
    for (uint32_t t = 0; t < tiles; ++t) {
      LocalTensor<half> xLocal = inQueueX_.AllocTensor<half>();  // (TILE_LENGTH,)
      LocalTensor<half> yLocal = inQueueY_.AllocTensor<half>();
      DataCopy(xLocal, xGm_[t * TILE_LENGTH], TILE_LENGTH);
      DataCopy(yLocal, yGm_[t * TILE_LENGTH], TILE_LENGTH);
      inQueueX_.EnQue(xLocal);
      inQueueY_.EnQue(yLocal);

      xLocal = inQueueX_.DeQue<half>();
      yLocal = inQueueY_.DeQue<half>();
      LocalTensor<half> zLocal = outQueueZ_.AllocTensor<half>();
      Add(zLocal, xLocal, yLocal, TILE_LENGTH);
      outQueueZ_.EnQue(zLocal);
      inQueueX_.FreeTensor(xLocal);
      inQueueY_.FreeTensor(yLocal);

      zLocal = outQueueZ_.DeQue<half>();
      DataCopy(zGm_[t * TILE_LENGTH], zLocal, TILE_LENGTH);
      outQueueZ_.FreeTensor(zLocal);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
  GlobalTensor<half> xGm_, yGm_, zGm_;
  uint32_t blockLength_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 uint32_t totalLength) {
  KernelAdd op;
  op.Init(x, y, z, totalLength);
  op.Process();
}

// ---- host side, as an ACL application ----
#include <chrono>
#include <cstdio>

#include "acl/acl.h"

#define CHECK_ACL(expr)                                                                   \
  do {                                                                                    \
    const aclError check_acl_ret = (expr);                                                \
    if (check_acl_ret != ACL_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed with aclError %d: %s\n", __FILE__, __LINE__, \
                   #expr, check_acl_ret, aclGetRecentErrMsg());                           \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

int main() {
  constexpr uint32_t totalLength = BLOCK_DIM * 64 * TILE_LENGTH;  // 1 Mi elements
  constexpr size_t bytes = totalLength * sizeof(half);

  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  half *xHost = nullptr, *yHost = nullptr, *zHost = nullptr;
  CHECK_ACL(aclrtMallocHost((void**)&xHost, bytes));
  CHECK_ACL(aclrtMallocHost((void**)&yHost, bytes));
  CHECK_ACL(aclrtMallocHost((void**)&zHost, bytes));
  for (uint32_t i = 0; i < totalLength; ++i) {
    xHost[i] = half(0.25f * (i % 257) - 30.0f);
    yHost[i] = half(0.5f * (i % 61));
  }
  void *xDevice = nullptr, *yDevice = nullptr, *zDevice = nullptr;
  CHECK_ACL(aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(xDevice, bytes, xHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(yDevice, bytes, yHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

  // First run: the launch macro of AscendC's kernel-launch flow.
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_ACL(ACLRT_LAUNCH_KERNEL(add_custom)(BLOCK_DIM, stream, xDevice, yDevice, zDevice,
                                            totalLength));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  const auto t1 = std::chrono::steady_clock::now();
  CHECK_ACL(aclrtMemcpy(zHost, bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  int bad = 0;
  for (uint32_t i = 0; i < totalLength; ++i) {
    if (float(zHost[i]) != float(half(float(xHost[i]) + float(yHost[i])))) ++bad;
  }

  // Second run: aicore::Launch on the same stream, timed with events.
  aclrtEvent start = nullptr, end = nullptr;
  CHECK_ACL(aclrtCreateEvent(&start));
  CHECK_ACL(aclrtCreateEvent(&end));
  CHECK_ACL(aclrtMemset(zDevice, bytes, 0, bytes));
  CHECK_ACL(aclrtRecordEvent(start, stream));
  const aicore::Status launched =
      aicore::Launch(add_custom, BLOCK_DIM, stream, xDevice, yDevice, zDevice, totalLength);
  if (!launched.ok()) {
    std::fprintf(stderr, "aicore::Launch: %s\n", launched.ToString().c_str());
    return 1;
  }
  CHECK_ACL(aclrtRecordEvent(end, stream));
  CHECK_ACL(aclrtSynchronizeEvent(end));
  float eventMs = 0.0f;
  CHECK_ACL(aclrtEventElapsedTime(&eventMs, start, end));
  CHECK_ACL(aclrtMemcpy(zHost, bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (uint32_t i = 0; i < totalLength; ++i) {
    if (float(zHost[i]) != float(half(float(xHost[i]) + float(yHost[i])))) ++bad;
  }

  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf("  aicore::Launch rerun between events: %.3f ms\n", eventMs);
  std::printf("add_custom_acl: blocks=%u elements=%u check=%s host_time=%.3f ms "
              "host_bandwidth=%.2f GB/s\n",
              BLOCK_DIM, totalLength, bad == 0 ? "pass" : "FAIL", ms, 3.0 * bytes / (ms * 1e6));

  CHECK_ACL(aclrtDestroyEvent(start));
  CHECK_ACL(aclrtDestroyEvent(end));
  CHECK_ACL(aclrtFree(xDevice));
  CHECK_ACL(aclrtFree(yDevice));
  CHECK_ACL(aclrtFree(zDevice));
  CHECK_ACL(aclrtFreeHost(xHost));
  CHECK_ACL(aclrtFreeHost(yHost));
  CHECK_ACL(aclrtFreeHost(zHost));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  return bad == 0 ? 0 : 1;
}
