// Kernels with a deliberate defect, for the aicore.check tests (test_profile_check.py): loaded
// with ctypes into the interpreter that imported aicore, they launch through the same
// libaicore_shared.so, so the context managers see them as they see torch.ops.aicore's kernels.
// Their results are right on the CPU (each core runs in program order); only the sanitizer sees
// the defect.
#include <cstdint>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

// y = 2 * x over n floats (n a multiple of 8, at most 4096) on one vector core; the vector unit
// reads the tile MTE2 loads without waiting on the MTE2 -> V flag: a RAW race on UB.
void MissingFlagBody(float* x, float* y, uint32_t n) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2 * n * sizeof(float));
  LocalTensor<float> in = buf.Get<float>();
  LocalTensor<float> out = in[n];
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), n);
  DataCopy(in, gx, n);
  Muls(out, in, 2.f, n);  // the defect: no SetFlag/WaitFlag<HardEvent::MTE2_V> before it
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(gy, out, n);
}

// The same computation with the flag: clean.
void CleanBody(float* x, float* y, uint32_t n) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2 * n * sizeof(float));
  LocalTensor<float> in = buf.Get<float>();
  LocalTensor<float> out = in[n];
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), n);
  DataCopy(in, gx, n);
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  Muls(out, in, 2.f, n);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(gy, out, n);
}

// Asks for more UB than any chip has: the launch fails with the kernel's error.
void OversizedBody(float* /*x*/, float* /*y*/, uint32_t /*n*/) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64u << 20);
}

int Run(const char* name, void (*body)(float*, float*, uint32_t), float* x, float* y,
        uint32_t n) {
  if (n == 0 || n % 8 != 0 || n > 4096) return -1;
  const aicore::Status st =
      aicore::RunKernel(name, 1, aicore::LaunchOptions{}, [=] { body(x, y, n); });
  return st.ok() ? 0 : 1;
}

}  // namespace

// Each returns 0 when the launch succeeded, 1 when it failed, -1 for a bad n.
extern "C" int aicore_test_missing_flag(float* x, float* y, uint32_t n) {
  return Run("test_missing_flag", MissingFlagBody, x, y, n);
}
extern "C" int aicore_test_oversized(float* x, float* y, uint32_t n) {
  return Run("test_oversized", OversizedBody, x, y, n);
}
extern "C" int aicore_test_clean(float* x, float* y, uint32_t n) {
  return Run("test_clean", CleanBody, x, y, n);
}
