// GM allocations for CANN's CPU-debug style host programs: GmAlloc/GmFree. The memory is ordinary
// host memory, 512-byte aligned (the framework's GM alignment) and zero-filled.
#pragma once

#include <cstddef>

namespace aicore {

// Returns `size` zeroed bytes aligned to 512 (never nullptr; throws ResourceExhausted).
void* GmAlloc(size_t size);
// Frees memory from GmAlloc; nullptr is ignored; other pointers are an InvalidArgument error.
void GmFree(void* ptr);
// Returns the number of live GmAlloc blocks (for leak checks).
size_t GmLiveBlocks();

}  // namespace aicore
