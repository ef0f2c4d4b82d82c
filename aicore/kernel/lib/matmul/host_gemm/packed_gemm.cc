// Run-time availability of the packed GEMM (AVX-512 only, see Note [Packed GEMM]).
#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"

#include "aicore/core/cpu.h"
#include "aicore/core/status.h"

namespace aicore::kernel::cube {

bool PackedGemmAvailable() {
#if defined(__x86_64__)
  return ActiveIsa() == Isa::kAvx512;
#else
  return false;
#endif
}

void RunPackedGemm(const GemmJob& job) {
  AICORE_CHECK(PackedGemmAvailable(), "RunPackedGemm: no packed GEMM kernel for ISA ",
               IsaName(ActiveIsa()));
#if defined(__x86_64__)
  isa_avx512::PackedGemm(job);
#else
  (void)job;
#endif
}

}  // namespace aicore::kernel::cube
