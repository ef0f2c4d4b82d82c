// CPU feature detection and the AICORE_ISA override.
#include "aicore/core/cpu.h"

#include <cstdlib>
#include <cstring>

#include "aicore/core/log.h"

namespace aicore {

Isa DetectedIsa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return Isa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
  return Isa::kPortable;
}

namespace {
Isa ComputeActiveIsa() {
  Isa best = DetectedIsa();
  const char* env = std::getenv("AICORE_ISA");
  if (env == nullptr || *env == '\0') return best;
  Isa wanted = best;
  if (std::strcmp(env, "portable") == 0) wanted = Isa::kPortable;
  else if (std::strcmp(env, "avx2") == 0) wanted = Isa::kAvx2;
  else if (std::strcmp(env, "avx512") == 0) wanted = Isa::kAvx512;
  else AICORE_LOG(kWarn) << "AICORE_ISA=" << env << " is not one of portable, avx2, avx512; using "
                         << IsaName(best);
  if (wanted > best) {
    AICORE_LOG(kWarn) << "AICORE_ISA=" << env << " is not supported by this CPU; using "
                      << IsaName(best);
    return best;
  }
  return wanted;
}
}  // namespace

Isa ActiveIsa() {
  static const Isa isa = ComputeActiveIsa();
  return isa;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return "portable";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
  }
  return "?";
}

}  // namespace aicore
