// A process-wide cache of anonymous mappings by size, so per-block local memories and fiber stacks
// are mapped once and reused across blocks and launches instead of mmap/munmap per block.
#pragma once

#include <cstddef>

namespace aicore::sim {

// Returns a read-write mapping of `bytes` (a multiple of the page size), reused when one of that
// size was released before. Its contents are whatever the previous user left (as on hardware).
// `kind` keeps differently protected mappings apart (0: local memory, 1: fiber stack with guard).
void* AcquireMapping(size_t bytes, int kind);
// Returns a mapping from AcquireMapping to the cache (or unmaps it when the cache is full).
void ReleaseMapping(void* p, size_t bytes, int kind);

}  // namespace aicore::sim
