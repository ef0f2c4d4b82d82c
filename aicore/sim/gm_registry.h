// The registry of GM allocations. The runtime records every GmAlloc and device allocation here
// (and every free), so kernel code, which must not depend on the runtime, can find the extent of
// a GM pointer and tell a freed block from memory nobody registered. See Note [GM extents] and
// Note [GM epochs].
#pragma once

#include <cstddef>
#include <cstdint>

namespace aicore::sim {

enum class GmBlockState : uint8_t {
  kUnknown,  // not inside any registered allocation (plain host memory, or never registered)
  kLive,     // inside a live allocation
  kFreed,    // inside an allocation that was freed and whose memory nobody has reused yet
};

// One registered allocation, as FindGmBlock reports it.
struct GmBlock {
  GmBlockState state = GmBlockState::kUnknown;
  const uint8_t* base = nullptr;  // first byte of the allocation
  uint64_t bytes = 0;             // bytes the allocation asked for
  const char* kind = "";          // the allocator ("GmAlloc", "aclrtMalloc"), for messages

  // Returns the bytes from `p` (inside the block) to the block's end; 0 past it.
  uint64_t BytesFrom(const void* p) const {
    const auto* q = static_cast<const uint8_t*>(p);
    return q >= base && q < base + bytes ? static_cast<uint64_t>(base + bytes - q) : 0;
  }
};

// Records the live allocation [base, base + bytes) made by `kind` (a string literal that outlives
// the program). Freed records overlapping it are dropped (the memory was reused), unless a pinned
// epoch still needs them (Note [GM epochs]).
void RegisterGmBlock(const void* base, uint64_t bytes, const char* kind);
// Marks the live allocation starting at `base` freed and returns true; returns false, changing
// nothing, when no live allocation starts at `base`.
bool UnregisterGmBlock(const void* base);
// Drops every freed record inside [base, base + bytes): the memory went back to the host and may
// be reused by anything, so a pointer into it is no longer known to be stale.
void ForgetGmRange(const void* base, uint64_t bytes);
// Returns the allocation containing `p` (a zero-byte allocation contains its base) as the calling
// thread's view epoch sees it (GmEpochView; the present unless one is active): live, freed, or
// kUnknown. Cheap when nothing was ever registered; otherwise a shared lock and a map lookup.
GmBlock FindGmBlock(const void* p);
// Returns the number of live allocations made by `kind` (compared by string contents).
size_t LiveGmBlockCount(const char* kind);

// The view epoch of "now": every free so far counts.
inline constexpr uint64_t kGmEpochNow = UINT64_MAX;

// Takes the registry's current epoch and keeps the history a view at that epoch needs (records
// freed and reused after it) until destroyed. An asynchronous launch holds one from its enqueue
// until it has run. Not copyable.
class GmEpochPin {
 public:
  GmEpochPin();
  ~GmEpochPin();
  GmEpochPin(const GmEpochPin&) = delete;
  GmEpochPin& operator=(const GmEpochPin&) = delete;

  // Returns the epoch taken at construction.
  uint64_t epoch() const { return epoch_; }

 private:
  uint64_t epoch_;
};

// Makes FindGmBlock on the calling thread answer as of `epoch` (a GmEpochPin's; kGmEpochNow: the
// present) while it lives: an allocation freed after that epoch is still live, with the extent it
// had then. Restores the previous view when destroyed. Nests.
class GmEpochView {
 public:
  explicit GmEpochView(uint64_t epoch);
  ~GmEpochView();
  GmEpochView(const GmEpochView&) = delete;
  GmEpochView& operator=(const GmEpochView&) = delete;

 private:
  uint64_t previous_;
};

// Returns the calling thread's view epoch (kGmEpochNow unless a GmEpochView is active).
uint64_t GmViewEpoch();

}  // namespace aicore::sim
