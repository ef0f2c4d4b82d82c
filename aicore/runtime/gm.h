// GM allocations for CANN's CPU-debug style host programs: GmAlloc/GmFree. The memory is ordinary
// host memory, 512-byte aligned (the framework's GM alignment) and zero-filled. Every block is
// recorded in the GM registry (aicore/sim/gm_registry.h), so a GlobalTensor set up on it without
// a size is bounds-checked against the block, and use of a freed block is reported.
#pragma once

#include <cstddef>

namespace aicore {

// Returns `size` zeroed bytes aligned to 512 (never nullptr). Throws ResourceExhausted when the
// host is out of memory or `size` is beyond what it can address (e.g. SIZE_MAX). Size 0 gives a
// valid block of extent 0.
void* GmAlloc(size_t size);
// Frees memory from GmAlloc; nullptr is ignored; other pointers are an InvalidArgument error.
// The block is kept inaccessible to other allocations for a while (a quarantine) so that later
// use of it through a GlobalTensor is reported as use after free.
void GmFree(void* ptr);
// Returns the number of live GmAlloc blocks (for leak checks).
size_t GmLiveBlocks();

}  // namespace aicore
