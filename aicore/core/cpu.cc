// CPU feature detection and the AICORE_ISA override.
#include "aicore/core/cpu.h"

#include <cstdint>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "aicore/core/env.h"

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
  const std::string env = env::Choice("AICORE_ISA", {"portable", "avx2", "avx512"}, IsaName(best));
  Isa wanted = best;
  if (env == "portable") wanted = Isa::kPortable;
  else if (env == "avx2") wanted = Isa::kAvx2;
  else if (env == "avx512") wanted = Isa::kAvx512;
  if (wanted > best) {
    env::Warn("AICORE_ISA", env, std::string("not supported by this CPU; using ") + IsaName(best));
    return best;
  }
  return wanted;
}
}  // namespace

Isa ActiveIsa() {
  static const Isa isa = ComputeActiveIsa();
  return isa;
}

bool AmxReady(AmxOp op) {
#if defined(__x86_64__)
  static const uint32_t edx = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !((d >> 24) & 1u)) return 0u;  // AMX-TILE
    constexpr long kArchReqXcompPerm = 0x1023;  // Linux arch_prctl: request an XSAVE feature
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0 ? d : 0u;
  }();
  return (edx >> (op == AmxOp::kInt8 ? 25 : 22)) & 1u;
#else
  (void)op;
  return false;
#endif
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
