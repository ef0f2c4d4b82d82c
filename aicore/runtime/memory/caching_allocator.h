// A caching allocator for device memory with the policy of PyTorch's CUDACachingAllocator and
// torch_npu's NPUCachingAllocator: size classes, best fit per stream, split/merge, deferred frees
// across streams, the out-of-memory ladder, stats, snapshots and history. docs/memory.md explains
// the design; caching_allocator.cc opens with the policy summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "aicore/core/status.h"
#include "aicore/runtime/memory/completion.h"
#include "aicore/runtime/memory/config.h"
#include "aicore/runtime/memory/stats.h"

namespace aicore::memory {

inline constexpr size_t kMinBlockSize = 512;         // every request rounds up to 512 B
inline constexpr size_t kSmallSize = 1u << 20;       // requests <= 1 MiB use the small pool
inline constexpr size_t kSmallBuffer = 2u << 20;     // small-pool segment size
inline constexpr size_t kMinLargeAlloc = 10u << 20;  // below this, large requests get kLargeBuffer
inline constexpr size_t kLargeBuffer = 20u << 20;    // large segment for 1-10 MiB requests
inline constexpr size_t kRoundLarge = 2u << 20;      // larger requests round to 2 MiB
// Expandable segments commit and release address space in pieces of this size.
inline constexpr size_t kExpandablePageSize = 2u << 20;

// The error thrown when a request cannot be served; code kResourceExhausted.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// Returns `size` rounded as the allocator rounds a request (512 B multiple or power-of-two
// divisions per `config`). `size` must be at most 2^56.
size_t RoundSize(size_t size, const AllocatorConfig& config);
// Returns the size of the segment a rounded request of `size` bytes would get.
size_t SegmentSizeFor(size_t size);

// One block of a segment as seen by Snapshot().
struct BlockSnapshot {
  uintptr_t address = 0;
  size_t size = 0;
  size_t requested_size = 0;
  // "active_allocated", "active_pending_free" or "inactive" (memory_viz's states).
  const char* state = "inactive";
  std::source_location where;  // the Malloc call site when history was recording
  bool has_where = false;
};

// One segment (for expandable segments: one mapped run) with its blocks in address order.
struct SegmentSnapshot {
  int device = 0;
  uintptr_t address = 0;
  size_t total_size = 0;
  size_t allocated_size = 0;
  size_t active_size = 0;
  size_t requested_size = 0;
  StreamId stream = 0;
  bool is_large = false;
  bool is_expandable = false;
  std::vector<BlockSnapshot> blocks;
};

// One allocator event of the history ring (PyTorch's TraceEntry).
struct TraceEntry {
  enum Action {
    kAlloc,          // a block was handed out
    kFreeRequested,  // Free was called; the block waits for streams
    kFreeCompleted,  // the block went back to the cache
    kSegmentAlloc,   // a device allocation
    kSegmentFree,    // a device free
    kSegmentMap,     // pages of an expandable segment were committed
    kSegmentUnmap,   // pages of an expandable segment were released
    kOom,            // an out-of-memory error was raised
  };
  Action action = kAlloc;
  uintptr_t addr = 0;
  size_t size = 0;
  StreamId stream = 0;
  int64_t time_us = 0;
  size_t device_free = 0;  // for kOom: bytes the device still had
  std::source_location where;
  bool has_where = false;
};
// Returns memory_viz's name of `action`: "alloc", "free_requested", ...
const char* TraceActionName(TraceEntry::Action action);

struct MemorySnapshot {
  std::vector<SegmentSnapshot> segments;
  // One trace per device, oldest entry first.
  std::vector<std::vector<TraceEntry>> device_traces;
  AllocatorConfig config;
  size_t capacity = 0;
};

// The caching allocator of one device. Thread-safe: every public method takes the allocator's
// lock (the CompletionSource is called under it).
class CachingAllocator {
 public:
  // Creates the allocator of `device` over `capacity` bytes of host-backed memory.
  CachingAllocator(int device, size_t capacity, AllocatorConfig config = {});
  // Returns every segment to the host; blocks still allocated become invalid.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Returns a block of at least `size` bytes, 512-byte aligned, usable on `stream`. Returns
  // nullptr for size 0. Throws OutOfMemoryError (message with the requested size, capacity,
  // free, allocated and reserved-but-unallocated bytes) when even an emptied cache cannot serve.
  void* Malloc(size_t size, StreamId stream = 0,
               std::source_location where = std::source_location::current());
  // Returns `ptr` (from Malloc) to the cache, after the streams it was recorded on finish their
  // current work. nullptr is ignored; any other pointer is an InvalidArgument error.
  void Free(void* ptr);
  // Marks `ptr` as used by `stream` too: a later Free waits for `stream`'s work enqueued up to
  // that Free. Recording the block's own stream is a no-op.
  void RecordStream(void* ptr, StreamId stream);
  // Waits for pending frees and returns every cached segment that holds no live block (and every
  // free page of expandable segments) to the host.
  void EmptyCache();

  // Uses `source` (not owned; nullptr means all streams are always idle) for deferred frees.
  void SetCompletionSource(CompletionSource* source);
  // Registers a callback run when the cache misses, before growing; it returns true if it freed
  // something (PyTorch's FreeMemoryCallback).
  void AddFreeMemoryCallback(std::function<bool()> callback);
  // Limits reserved memory to `fraction` (in (0, 1]) of the capacity; GC thresholds refer to it.
  void SetMemoryFraction(double fraction);
  // Sets the device capacity (bytes).
  void SetCapacity(size_t bytes);
  size_t capacity() const;
  int device() const { return device_; }
  AllocatorConfig config() const;

  // Returns true if `ptr` is the start of a live block of this allocator.
  bool Owns(const void* ptr) const;
  // Returns true if [ptr, ptr + bytes) lies wholly inside one live block (interior pointers
  // allowed; `bytes` 0 checks only `ptr`). Costs a walk over the blocks of one segment.
  bool ContainsRange(const void* ptr, size_t bytes) const;
  // Returns the size of the block that serves `ptr` (which must be live), as rounded and chosen.
  size_t BlockSize(const void* ptr) const;
  // Returns a copy of the statistics.
  DeviceStats GetStats() const;
  void ResetAccumulatedStats();
  void ResetPeakStats();
  // Returns the segments and blocks, plus the history if recording.
  MemorySnapshot Snapshot() const;
  // Starts (or stops) recording allocator events, keeping the newest `max_entries`.
  void RecordHistory(bool enabled, size_t max_entries = 100000);

  // Returns OK if the internal structures and stats agree (segments tile their range exactly,
  // neighbours link both ways, free blocks are in their pool, no two free neighbours could have
  // merged, stats equal what the blocks add up to); else a description of the first problem.
  Status CheckInvariants() const;

 private:
  struct Impl;
  int device_;
  std::unique_ptr<Impl> impl_;
};

// Returns the allocator of `device` (0 <= device < 64), created on first use with the config
// from AICORE_ALLOC_CONF and the capacity set by SetDeviceMemoryCapacity (default
// DefaultDeviceCapacity()). Throws aicore::Error on a bad device or config.
CachingAllocator& GetDeviceAllocator(int device);
// Returns the number of live (allocated, not freed) blocks over every device allocator created so
// far; creates none. Safe at exit (the registry is never destroyed).
size_t LiveBlocksAllDevices();
// Sets the capacity of `device`, before or after its allocator exists.
void SetDeviceMemoryCapacity(int device, size_t bytes);

// Returns torch.cuda.memory_summary-style text for `stats` of `device`.
std::string MemorySummary(const DeviceStats& stats, int device);
// Returns `snapshot` as JSON ({"segments": [...], "device_traces": [[...]], ...}), which
// pytorch.org/memory_viz also accepts.
std::string SnapshotToJson(const MemorySnapshot& snapshot);
// Returns `snapshot` as a Python pickle in the schema torch.cuda.memory._dump_snapshot writes.
std::string SnapshotToPickle(const MemorySnapshot& snapshot);
// Writes SnapshotToPickle (or SnapshotToJson when `path` ends in .json) to `path`; throws
// aicore::Error if the file cannot be written.
void DumpSnapshot(const MemorySnapshot& snapshot, const std::string& path);

}  // namespace aicore::memory
