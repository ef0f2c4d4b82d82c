// A process-wide cache of anonymous mappings by size, so per-block local memories and fiber stacks
// are mapped once and reused across blocks and launches instead of mmap/munmap per block, and a
// budget that keeps the number of mappings under vm.max_map_count however many blocks are live
// (See Note [Mapping budget] in page_pool.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace aicore::sim {

// Returns a read-write mapping of `bytes` (a multiple of the page size), reused when one of that
// size was released before. Its contents are whatever the previous user left (as on hardware).
// Throws aicore::Error (ResourceExhausted) when the address space is exhausted.
void* AcquireMapping(size_t bytes);
// Returns a mapping from AcquireMapping to the cache (or unmaps it when the cache is full).
void ReleaseMapping(void* p, size_t bytes);

// A fiber stack: usable memory [base, base + bytes). A guarded stack has a PROT_NONE region of
// guard_bytes right below base, so running off the stack faults; an unguarded one (handed out once
// the guard budget is spent) carries a canary in its lowest kCanaryBytes instead.
struct StackMapping {
  char* base = nullptr;
  size_t bytes = 0;
  size_t guard_bytes = 0;  // 0: unguarded
};
inline constexpr size_t kCanaryBytes = 64;
inline constexpr uint8_t kCanaryByte = 0xa5;

// Returns a stack of `bytes` (a multiple of the page size). Throws aicore::Error
// (ResourceExhausted) naming the stack size when no address space is left.
StackMapping AcquireStack(size_t bytes);
// Returns a stack from AcquireStack.
void ReleaseStack(const StackMapping& stack);

// Returns the mapping count the pool may hold (default: half of vm.max_map_count).
int64_t MappingBudget();
// Sets the mapping budget (a negative value restores the default); for tests and for embedders
// that map much themselves. Items already handed out are unaffected.
void SetMappingBudget(int64_t vmas);
// Returns the mappings currently held by the pool (live and cached), as the kernel counts them.
int64_t MappingsInUse();

}  // namespace aicore::sim
