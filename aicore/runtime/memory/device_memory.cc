// DeviceMemory: mmap/munmap for segments, mmap(PROT_NONE) + mprotect/madvise for reservations.
#include "aicore/runtime/memory/device_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "aicore/core/env.h"
#include "aicore/core/status.h"

#include "aicore/sim/gm_registry.h"

namespace aicore::memory {
namespace {
constexpr size_t kHostPage = 4096;
// Device memory is reserved address space (MAP_NORESERVE), so the bound is the 47-bit user address
// space shared with everything else: 16 TiB, an eighth of it.
constexpr int64_t kMaxDeviceMemoryMb = int64_t{1} << 24;
}  // namespace

size_t DefaultDeviceCapacity() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  size_t fallback = size_t{4} << 30;
  if (pages > 0 && page_size > 0) {
    fallback = static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 4;  // RAM / 4
  }
  const auto mb = env::IntOr("AICORE_DEVICE_MEMORY_MB", 1, kMaxDeviceMemoryMb,
                             StrCat(fallback >> 20, " (a quarter of RAM)"));
  return mb ? static_cast<size_t>(*mb) << 20 : fallback;
}

DeviceMemory::DeviceMemory(int device, size_t capacity, bool prefault)
    : device_(device), capacity_(capacity), prefault_(prefault) {}

void DeviceMemory::Prefault(void* ptr, size_t size) {
#ifdef MADV_POPULATE_WRITE
  if (madvise(ptr, size, MADV_POPULATE_WRITE) == 0) return;
#endif
  volatile char* p = static_cast<char*>(ptr);
  for (size_t off = 0; off < size; off += kHostPage) p[off] = 0;
}

void* DeviceMemory::Map(size_t size) {
  if (size == 0 || size > capacity() || used() > capacity() - size) return nullptr;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
#ifdef MADV_HUGEPAGE
  // 2 MiB pages where the segment allows (See Note [Huge pages for GM] in runtime/gm.cc).
  if (size >= (size_t{2} << 20)) madvise(p, size, MADV_HUGEPAGE);
#endif
  if (prefault_) Prefault(p, size);
  used_.fetch_add(size, std::memory_order_relaxed);
  return p;
}

void DeviceMemory::Unmap(void* ptr, size_t size) {
  sim::ForgetGmRange(ptr, size);  // the host may reuse the range: freed records no longer hold
  munmap(ptr, size);
  used_.fetch_sub(size, std::memory_order_relaxed);
}

void* DeviceMemory::Reserve(size_t size) {
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void DeviceMemory::Release(void* base, size_t size, size_t committed) {
  sim::ForgetGmRange(base, size);
  munmap(base, size);
  used_.fetch_sub(committed, std::memory_order_relaxed);
}

bool DeviceMemory::Commit(void* ptr, size_t size) {
  if (size > capacity() || used() > capacity() - size) return false;
  if (mprotect(ptr, size, PROT_READ | PROT_WRITE) != 0) return false;
  if (prefault_) Prefault(ptr, size);
  used_.fetch_add(size, std::memory_order_relaxed);
  return true;
}

void DeviceMemory::Decommit(void* ptr, size_t size) {
  madvise(ptr, size, MADV_DONTNEED);
  mprotect(ptr, size, PROT_NONE);
  used_.fetch_sub(size, std::memory_order_relaxed);
}

}  // namespace aicore::memory
