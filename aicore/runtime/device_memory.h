// Device memory: every device allocation goes through DeviceMalloc/DeviceFree, which account it to
// a device with a capacity (AICORE_DEVICE_MEMORY_MB), so running out is a clear error. The
// allocations are host memory; a registry lets copies check that a "device" pointer is one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aicore/core/status.h"

namespace aicore::rt {

class Stream;

// Returns `size` bytes of device memory on the calling thread's current device, 512-byte aligned
// and not initialised. `stream` (nullptr allowed) is the stream expected to use the block first;
// the allocator may reuse blocks freed on that stream without waiting. Throws aicore::Error:
// InvalidArgument for size 0, ResourceExhausted (naming the size requested, the bytes allocated
// and the capacity) when the device is full.
void* DeviceMalloc(size_t size, Stream* stream);
// Frees a block from DeviceMalloc. Throws NotFound for nullptr or any other pointer (a double free
// or a foreign pointer), leaving the registry unchanged.
void DeviceFree(void* ptr);

// Returns the device that owns the allocation containing [ptr, ptr + bytes), or -1 when that
// range is not wholly inside one live allocation. `bytes` 0 checks only `ptr`.
int FindDeviceAllocation(const void* ptr, size_t bytes);
// Returns true when `ptr` lies inside any live device allocation.
bool IsDeviceMemory(const void* ptr);

struct DeviceMemoryStats {
  size_t allocated = 0;       // bytes in live allocations (sizes rounded up to 512)
  size_t peak_allocated = 0;  // maximum of `allocated` since the device was last reset
  size_t capacity = 0;        // bytes the device may hold
  size_t live_blocks = 0;     // number of live allocations
};

// Returns the accounting of `device`. Throws InvalidArgument for a device id out of range.
DeviceMemoryStats GetDeviceMemoryStats(int device);
// Sets the capacity of `device` in bytes (tests use it to provoke OOM); 0 restores the default.
// Allocations already made stay valid even if they exceed the new capacity.
void SetDeviceMemoryCapacity(int device, size_t bytes);
// Returns the default per-device capacity: AICORE_DEVICE_MEMORY_MB if set, else a quarter of the
// host's physical memory.
size_t DefaultDeviceMemoryCapacity();
// Frees every live allocation of `device` and resets its peak; returns how many blocks were freed.
size_t ReleaseDeviceMemory(int device);

// Returns `size` bytes of page-locked host memory (aclrtMallocHost), 512-byte aligned. Throws
// InvalidArgument for size 0, ResourceExhausted when the host is out of memory.
void* HostMalloc(size_t size);
// Frees memory from HostMalloc; throws NotFound for any other pointer.
void HostFree(void* ptr);
// Returns true when `ptr` lies inside a live HostMalloc block.
bool IsHostPinnedMemory(const void* ptr);

}  // namespace aicore::rt
