// The backing store of one device's memory: host pages obtained with mmap, counted against a
// capacity so that out-of-memory behaves as on a real device. Segments stay mapped until the
// allocator releases them; address ranges can be reserved and committed page by page.
#pragma once

#include <atomic>
#include <cstddef>

namespace aicore::memory {

// Returns the default capacity of a device: AICORE_DEVICE_MEMORY_MB if set, else a quarter of the
// host's physical memory.
size_t DefaultDeviceCapacity();

// Not thread-safe: the owning allocator serialises calls (used() may be read concurrently).
class DeviceMemory {
 public:
  // Creates the backend of `device` with `capacity` bytes. With `prefault`, new memory is touched
  // when mapped or committed so first use does not take page faults.
  DeviceMemory(int device, size_t capacity, bool prefault);

  int device() const { return device_; }
  size_t capacity() const { return capacity_.load(std::memory_order_relaxed); }
  // Sets the capacity; memory already in use above it stays valid but blocks new mappings.
  void set_capacity(size_t bytes) { capacity_.store(bytes, std::memory_order_relaxed); }
  // Returns the bytes currently mapped or committed.
  size_t used() const { return used_.load(std::memory_order_relaxed); }

  // Returns `size` bytes (a multiple of 4 KiB) of fresh zeroed memory, or nullptr when the
  // capacity would be exceeded or the host refuses.
  void* Map(size_t size);
  // Returns a mapping from Map to the host.
  void Unmap(void* ptr, size_t size);

  // Reserves `size` bytes of address space with no memory behind it; nullptr on failure.
  void* Reserve(size_t size);
  // Returns a reservation (committed pages included) to the host.
  void Release(void* base, size_t size, size_t committed);
  // Makes [ptr, ptr + size) of a reservation usable; false if it would exceed the capacity.
  bool Commit(void* ptr, size_t size);
  // Drops the pages of [ptr, ptr + size) and makes the range inaccessible again.
  void Decommit(void* ptr, size_t size);

 private:
  void Prefault(void* ptr, size_t size);

  int device_;
  std::atomic<size_t> capacity_;
  std::atomic<size_t> used_{0};
  bool prefault_;
};

}  // namespace aicore::memory
