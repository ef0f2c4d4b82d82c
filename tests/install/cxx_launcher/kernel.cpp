// The kernel of the launcher test (see kernel.h).
#include "kernel.h"

__global__ __aicore__ void who_runs(GM_ADDR out) {
  auto* p = reinterpret_cast<int32_t*>(out);
  if ASCEND_IS_AIC {
    p[2 * AscendC::GetBlockIdx()] = static_cast<int32_t>(AscendC::GetBlockIdx());
  } else {
    p[2 * AscendC::GetBlockIdx() + 1] = static_cast<int32_t>(AscendC::GetSubBlockNum());
  }
}
