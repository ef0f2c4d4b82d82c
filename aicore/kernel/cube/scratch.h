// Per-thread scratch memory of the CPU compute kernels: Mmad's widened operands, the packed
// GEMM's panels and the fused Matmul's float C.
#pragma once

#include <cstddef>

namespace aicore::kernel::cube {

// Scratch slots, one buffer each per thread.
enum class ScratchSlot : int { kMmadA, kMmadB, kGemmB, kGemmA, kGemmC, kCount };

// Returns a 64-byte aligned buffer of at least `floats` floats owned by the calling thread, kept
// and reused by the next call for the same slot (grown as needed). A kernel never yields in the
// middle of a call, so the fiber running it keeps its thread while it uses the buffer.
float* ScratchFloats(ScratchSlot slot, size_t floats);

}  // namespace aicore::kernel::cube
