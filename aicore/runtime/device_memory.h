// Device memory: every device allocation (aclrtMalloc/aclrtFree) goes through DeviceMalloc/
// DeviceFree, which serve it from the caching allocator of the device
// (memory::GetDeviceAllocator, docs/memory.md). Each device has a capacity
// (AICORE_DEVICE_MEMORY_MB), so running out is a clear error; freed blocks are cached for reuse.
// The runtime's streams are the allocator's completion source (DeviceCompletionTracker), so a
// block used on other streams (DeviceRecordStream) is reused only after their work finished.
//
// The allocator waits for streams while holding its lock: work running on a stream (host
// callbacks, kernels) must never call any function of this file except the HostMalloc family.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aicore/core/status.h"

namespace aicore::memory {
class StreamSequenceTracker;
}  // namespace aicore::memory

namespace aicore::rt {

class Stream;

// Returns `size` bytes of device memory on the calling thread's current device, 512-byte aligned
// and not initialised (a reused cached block keeps its old contents). `stream` (nullptr: stream
// id 0) is the stream expected to use the block; the allocator reuses blocks freed on that stream
// without waiting. Throws aicore::Error: InvalidArgument for size 0; memory::OutOfMemoryError
// (ResourceExhausted, the allocator's message: size requested, capacity, free, allocated and
// reserved-but-unallocated bytes) when even an emptied cache cannot serve the request.
void* DeviceMalloc(size_t size, Stream* stream);
// Returns a block from DeviceMalloc (of any device) to its device's cache; if the block was
// recorded on other streams it is reused only after their work enqueued so far has finished.
// Throws NotFound for nullptr or any other pointer (double free, interior or foreign pointer),
// changing nothing.
void DeviceFree(void* ptr);
// Marks the block at `ptr` (the start of a live DeviceMalloc block) as used by `stream` (resolved,
// on the block's device) too, like torch's Tensor.record_stream: a later DeviceFree makes the
// block wait for the work enqueued on `stream` up to that free. Throws NotFound for a pointer
// that is not a live block or a stream that is not live (destroyed), InvalidArgument for nullptr
// or a stream of another device.
void DeviceRecordStream(void* ptr, Stream* stream);
// Waits for pending frees of `device` and returns every cached segment without live blocks to
// the host. Throws InvalidArgument for a device id out of range.
void DeviceEmptyCache(int device);
// Returns the completion tracker of `device`: its streams Submit/Retire their tasks there, and
// the device's caching allocator uses it as its CompletionSource.
memory::StreamSequenceTracker& DeviceCompletionTracker(int device);

// Returns the device that owns the allocation containing [ptr, ptr + bytes), or -1 when that
// range is not wholly inside one live allocation. `bytes` 0 checks only `ptr`. The bounds are the
// allocator's block (the request rounded up to 512 bytes, or larger when the rest of a segment
// was too small to split off).
int FindDeviceAllocation(const void* ptr, size_t bytes);
// Returns true when `ptr` lies inside any live device allocation.
bool IsDeviceMemory(const void* ptr);

struct DeviceMemoryStats {
  size_t allocated = 0;       // bytes in live allocations (block sizes: requests rounded to 512)
  size_t peak_allocated = 0;  // maximum of `allocated` since the device was last reset
  size_t capacity = 0;        // bytes the device may hold
  size_t live_blocks = 0;     // number of live allocations
  size_t reserved = 0;        // bytes of segments the allocator holds (live plus cached blocks)
};

// Returns the accounting of `device`. Throws InvalidArgument for a device id out of range.
DeviceMemoryStats GetDeviceMemoryStats(int device);
// Sets the capacity of `device` in bytes (tests use it to provoke OOM); 0 restores the default.
// Allocations already made stay valid even if they exceed the new capacity. Small requests take
// 2 MiB segments and 1-10 MiB requests 20 MiB segments, so useful capacities are several MiB.
void SetDeviceMemoryCapacity(int device, size_t bytes);
// Returns the default per-device capacity: AICORE_DEVICE_MEMORY_MB if set, else a quarter of the
// host's physical memory.
size_t DefaultDeviceMemoryCapacity();
// Frees every live allocation of `device`, empties its cache and resets its peak; returns how many
// blocks were freed. ResetDevice calls it after destroying the device's streams.
size_t ReleaseDeviceMemory(int device);

// Returns `size` bytes of page-locked host memory (aclrtMallocHost), 512-byte aligned. Throws
// InvalidArgument for size 0, ResourceExhausted when the host is out of memory.
void* HostMalloc(size_t size);
// Frees memory from HostMalloc; throws NotFound for any other pointer.
void HostFree(void* ptr);
// Returns true when `ptr` lies inside a live HostMalloc block.
bool IsHostPinnedMemory(const void* ptr);

}  // namespace aicore::rt
