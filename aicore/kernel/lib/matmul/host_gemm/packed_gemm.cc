// Run-time availability of the packed GEMM (AVX-512 only, see Note [Packed GEMM]).
#include "aicore/kernel/lib/matmul/host_gemm/packed_gemm.h"

#include <atomic>
#include <string>

#include "aicore/core/cpu.h"
#include "aicore/core/env.h"
#include "aicore/core/status.h"

namespace aicore::kernel::cube {

namespace {

std::atomic<bool>& Bf16AmxSwitch() {
  static std::atomic<bool> on{true};
  return on;
}

}  // namespace

bool PackedGemmBf16Amx() {
#if defined(__x86_64__)
  static const bool env_allows = [] {
    const std::string v =
        aicore::env::Choice("AICORE_MMAD_BF16", {"auto", "dot", "fma", "amx"}, "auto");
    return v == "auto" || v == "amx";
  }();
  return env_allows && Bf16AmxSwitch().load(std::memory_order_relaxed) && PackedGemmAvailable() &&
         AmxReady(AmxOp::kBf16);
#else
  return false;
#endif
}

void SetPackedGemmBf16Amx(bool allowed) { Bf16AmxSwitch().store(allowed); }

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
  if (job.type == GemmIn::kBf16 && PackedGemmBf16Amx()) {
    isa_avx512::PackedGemmBf16Amx(job);
    return;
  }
  isa_avx512::PackedGemm(job);
#else
  (void)job;
#endif
}

}  // namespace aicore::kernel::cube
