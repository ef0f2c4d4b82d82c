// The host side of a CANN CPU-debug sample: GmAlloc, SetKernelMode, ICPU_RUN_KF under the
// __CCE_KT_TEST__ guard, compiled as C++17 with -D_GLIBCXX_USE_CXX11_ABI=0.
#include <cstdio>
#include <string>

#ifdef __CCE_KT_TEST__
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR z);
#endif

int main() {
#ifndef __CCE_KT_TEST__
  std::printf("__CCE_KT_TEST__ is not defined\n");
  return 1;
#else
  constexpr int kBlocks = 8;
  constexpr int kTotal = kBlocks * 1000;
  auto* x = static_cast<float*>(AscendC::GmAlloc(kTotal * sizeof(float)));
  auto* z = static_cast<float*>(AscendC::GmAlloc(kTotal * sizeof(float)));
  for (int i = 0; i < kTotal; ++i) x[i] = static_cast<float>(i % 97) - 48.0f;
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(scale_custom, kBlocks, x, z);
  int bad = 0;
  for (int i = 0; i < kTotal; ++i) bad += z[i] != 3.0f * x[i];
  const std::string chip = aicore::arch::DefaultChip().name;
  std::printf("chip=%s mismatches=%d check=%s\n", chip.c_str(), bad, bad == 0 ? "pass" : "fail");
  AscendC::GmFree(x);
  AscendC::GmFree(z);
  return bad == 0 ? 0 : 1;
#endif
}
