// A host program for tests/perf/cli_test.sh: launches `argv[1]` add kernels (each completes),
// then dies the way argv[2] says: "segv" (a fault), "abort" (std::abort), "exit3" (exit status 3)
// or "ok". `aicore profile` must keep and report the launches that completed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

using namespace AscendC;  // NOLINT: kernels are written this way

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_after_launch LAUNCHES segv|abort|exit3|ok\n");
    return 2;
  }
  const int launches = std::atoi(argv[1]);
  constexpr int kN = 2048;
  std::vector<half> x(kN, half(1.0f)), z(kN);
  half* px = x.data();
  half* pz = z.data();
  for (int l = 0; l < launches; ++l) {
    const aicore::Status st = aicore::RunKernel("before_crash", 1, {}, [=] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, kN * sizeof(half));
      GlobalTensor<half> gx, gz;
      gx.SetGlobalBuffer(px, kN);
      gz.SetGlobalBuffer(pz, kN);
      LocalTensor<half> u = buf.Get<half>();
      DataCopy(u, gx, kN);
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
      Adds(u, u, half(1.0f), kN);
      SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
      WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
      DataCopy(gz, u, kN);
    });
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
  }
  const char* how = argv[2];
  if (std::strcmp(how, "segv") == 0) {
    volatile uintptr_t address = 0;  // a real fault, not raise(): the signal must come back
    *reinterpret_cast<volatile int*>(address) = 1;
  }
  if (std::strcmp(how, "abort") == 0) std::abort();
  if (std::strcmp(how, "exit3") == 0) return 3;
  return 0;
}
