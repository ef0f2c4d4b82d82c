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

enum class AmxOp { kBf16, kInt8 };
// Returns true when the CPU has AMX-TILE plus AMX-BF16 (kBf16) or AMX-INT8 (kInt8) and Linux
// grants this process the tile state (arch_prctl ARCH_REQ_XCOMP_PERM, asked once). Every AMX
// kernel (the cube's Mmad, the host GEMM) asks here.
bool AmxReady(AmxOp op);

}  // namespace aicore
