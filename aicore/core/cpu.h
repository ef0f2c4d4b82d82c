// The host CPU's vector instruction sets, detected once, and the one the library uses (which the
// AICORE_ISA environment variable can lower: portable, avx2, avx512).
#pragma once

namespace aicore {

enum class Isa { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// Returns the best ISA the CPU supports (AVX2 needs FMA and F16C; AVX-512 needs F, BW, VL, DQ).
Isa DetectedIsa();
// Returns the ISA in use: DetectedIsa(), lowered by AICORE_ISA if set. Fixed after the first call.
Isa ActiveIsa();
// Returns "portable", "avx2" or "avx512".
const char* IsaName(Isa isa);

}  // namespace aicore
