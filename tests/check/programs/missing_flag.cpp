// A host program whose kernel forgets the MTE2 -> V flag: its result is right on the CPU (the core
// runs in program order), so only the sanitizer (`aicore check`, AICORE_CHECK) can tell. The CLI
// tests run it; the offending calls are marked.
#include <cstdio>

#include "kernel_operator.h"
#include "tikicpulib.h"

using namespace AscendC;

constexpr uint32_t kN = 512;

extern "C" __global__ __aicore__ void missing_flag(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2 * kN * sizeof(float));
  LocalTensor<float> ub_x = buf.Get<float>();          // (kN)
  LocalTensor<float> ub_y = ub_x[kN];                  // (kN)
  GlobalTensor<float> gm_x, gm_y;
  gm_x.SetGlobalBuffer((__gm__ float*)x, kN);
  gm_y.SetGlobalBuffer((__gm__ float*)y, kN);
  DataCopy(ub_x, gm_x, kN);                            // MISSING_FLAG_LOAD
  Muls(ub_y, ub_x, 2.f, kN);                           // MISSING_FLAG_USE: no MTE2_V wait
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(gm_y, ub_y, kN);
}

int main() {
  auto* x = static_cast<float*>(AscendC::GmAlloc(kN * sizeof(float)));
  auto* y = static_cast<float*>(AscendC::GmAlloc(kN * sizeof(float)));
  for (uint32_t i = 0; i < kN; ++i) x[i] = float(i);
  AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);  // a vector kernel, as CANN requires
  ICPU_RUN_KF(missing_flag, 1, x, y);
  int bad = 0;
  for (uint32_t i = 0; i < kN; ++i) bad += y[i] != 2.f * float(i);
  std::printf("missing_flag: check=%s\n", bad == 0 ? "pass" : "FAIL");
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return bad == 0 ? 0 : 1;
}
