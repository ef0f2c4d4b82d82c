// Device memory accounting with a registry of live blocks.
//
// - Every device block is host memory from aligned_alloc, its size rounded up to 512 bytes (the
//   unit the caching allocator will use too), so accounting matches what a device would charge.
// - A block is charged to the calling thread's current device; the allocation fails when the
//   device's allocated bytes plus the request would exceed its capacity.
// - An ordered map from start address to block answers "which allocation holds this range"
//   (copies validate their device-side operands with it) and rejects foreign and double frees.
// - AllocateBlock/ReleaseBlock are the one place memory is obtained and returned; the caching
//   allocator replaces their internals.
#include "aicore/runtime/device_memory.h"


#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "aicore/runtime/device.h"
#include "aicore/runtime/memory/device_memory.h"

namespace aicore::rt {

namespace {

constexpr size_t kAlignment = 512;  // GM alignment of the framework (see gm.h)

struct Block {
  size_t size;       // bytes requested
  size_t rounded;    // bytes charged
  int device;
};

struct DeviceAccount {
  size_t allocated = 0;
  size_t peak = 0;
  size_t capacity = 0;  // 0: the default
  size_t live_blocks = 0;
};

struct Registry {
  std::mutex mu;
  std::map<uintptr_t, Block> blocks;
  std::vector<DeviceAccount> accounts;
  std::map<uintptr_t, size_t> host_blocks;
};

Registry& Reg() {
  static auto* r = [] {
    auto* reg = new Registry();
    reg->accounts.resize(static_cast<size_t>(GetDeviceCount()));
    return reg;
  }();
  return *r;
}

size_t RoundUp(size_t size) { return (size + kAlignment - 1) / kAlignment * kAlignment; }

size_t CapacityOf(const DeviceAccount& a) {
  return a.capacity != 0 ? a.capacity : DefaultDeviceMemoryCapacity();
}

void CheckDeviceId(int device, const char* api) {
  const Status s = CheckDevice(device, api);
  if (!s.ok()) throw Error(s);
}

// Obtains and returns the memory of one block. See the file comment.
void* AllocateBlock(size_t rounded) { return std::aligned_alloc(kAlignment, rounded); }
void ReleaseBlock(void* ptr) { std::free(ptr); }

// Returns the entry whose block contains `p`, or blocks.end().
std::map<uintptr_t, Block>::iterator Containing(Registry& r, uintptr_t p) {
  auto it = r.blocks.upper_bound(p);
  if (it == r.blocks.begin()) return r.blocks.end();
  --it;
  if (p >= it->first + it->second.size) return r.blocks.end();
  return it;
}

}  // namespace

size_t DefaultDeviceMemoryCapacity() {
  static const size_t capacity = memory::DefaultDeviceCapacity();  // one rule for both layers
  return capacity;
}

void* DeviceMalloc(size_t size, Stream* /*stream: used by the caching allocator*/) {
  const int device = CurrentDevice();
  if (size == 0) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(),
         "device malloc of 0 bytes on device ", device, ": size must be at least 1");
  }
  const size_t rounded = RoundUp(size);
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  DeviceAccount& a = r.accounts[static_cast<size_t>(device)];
  const size_t capacity = CapacityOf(a);
  if (rounded < size || a.allocated + rounded > capacity || a.allocated + rounded < rounded) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(),
         "out of device memory on device ", device, ": requested ", size, " bytes (", rounded,
         " after rounding to 512), allocated ", a.allocated, " bytes in ", a.live_blocks,
         " blocks, capacity ", capacity, " bytes (set AICORE_DEVICE_MEMORY_MB to change it)");
  }
  void* p = AllocateBlock(rounded);
  if (p == nullptr) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(),
         "out of host memory backing device ", device, ": requested ", size,
         " bytes, allocated ", a.allocated, " bytes, capacity ", capacity, " bytes");
  }
  r.blocks[reinterpret_cast<uintptr_t>(p)] = Block{size, rounded, device};
  a.allocated += rounded;
  a.live_blocks += 1;
  if (a.allocated > a.peak) a.peak = a.allocated;
  return p;
}

void DeviceFree(void* ptr) {
  if (ptr == nullptr) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(),
         "device free of nullptr");
  }
  Registry& r = Reg();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.blocks.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == r.blocks.end()) {
      auto inside = Containing(r, reinterpret_cast<uintptr_t>(ptr));
      if (inside != r.blocks.end()) {
        Fail(StatusCode::kNotFound, std::source_location::current(), "device free of ", ptr,
             ": points ", reinterpret_cast<uintptr_t>(ptr) - inside->first,
             " bytes into a block of ", inside->second.size,
             " bytes; pass the pointer the allocation returned");
      }
      Fail(StatusCode::kNotFound, std::source_location::current(), "device free of ", ptr,
           ": not a live device allocation (double free, or memory not from aclrtMalloc)");
    }
    DeviceAccount& a = r.accounts[static_cast<size_t>(it->second.device)];
    a.allocated -= it->second.rounded;
    a.live_blocks -= 1;
    r.blocks.erase(it);
  }
  ReleaseBlock(ptr);
}

int FindDeviceAllocation(const void* ptr, size_t bytes) {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  auto it = Containing(r, p);
  if (it == r.blocks.end()) return -1;
  if (bytes > it->first + it->second.size - p) return -1;
  return it->second.device;
}

bool IsDeviceMemory(const void* ptr) { return FindDeviceAllocation(ptr, 0) >= 0; }

DeviceMemoryStats GetDeviceMemoryStats(int device) {
  CheckDeviceId(device, "GetDeviceMemoryStats");
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  const DeviceAccount& a = r.accounts[static_cast<size_t>(device)];
  return DeviceMemoryStats{a.allocated, a.peak, CapacityOf(a), a.live_blocks};
}

void SetDeviceMemoryCapacity(int device, size_t bytes) {
  CheckDeviceId(device, "SetDeviceMemoryCapacity");
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  r.accounts[static_cast<size_t>(device)].capacity = bytes;
}

size_t ReleaseDeviceMemory(int device) {
  CheckDeviceId(device, "ReleaseDeviceMemory");
  std::vector<void*> freed;
  Registry& r = Reg();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    for (auto it = r.blocks.begin(); it != r.blocks.end();) {
      if (it->second.device == device) {
        freed.push_back(reinterpret_cast<void*>(it->first));
        it = r.blocks.erase(it);
      } else {
        ++it;
      }
    }
    DeviceAccount& a = r.accounts[static_cast<size_t>(device)];
    a.allocated = 0;
    a.peak = 0;
    a.live_blocks = 0;
  }
  for (void* p : freed) ReleaseBlock(p);
  return freed.size();
}

void* HostMalloc(size_t size) {
  if (size == 0) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(),
         "host malloc of 0 bytes: size must be at least 1");
  }
  const size_t rounded = RoundUp(size);
  void* p = rounded < size ? nullptr : std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(), "host malloc of ",
         size, " bytes failed: out of host memory");
  }
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  r.host_blocks[reinterpret_cast<uintptr_t>(p)] = size;
  return p;
}

void HostFree(void* ptr) {
  Registry& r = Reg();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.host_blocks.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == r.host_blocks.end()) {
      Fail(StatusCode::kNotFound, std::source_location::current(), "host free of ", ptr,
           ": not a live host allocation (double free, or memory not from aclrtMallocHost)");
    }
    r.host_blocks.erase(it);
  }
  std::free(ptr);
}

bool IsHostPinnedMemory(const void* ptr) {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.host_blocks.upper_bound(p);
  if (it == r.host_blocks.begin()) return false;
  --it;
  return p < it->first + it->second;
}

}  // namespace aicore::rt
