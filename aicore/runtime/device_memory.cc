// Device memory: aclrtMalloc/aclrtFree on top of the caching allocator.
//
// - Every device block comes from memory::GetDeviceAllocator(device): requests round up to 512
//   bytes, small ones are carved from 2 MiB segments and large ones from 20 MiB (or bigger)
//   segments, and freed blocks stay cached for reuse until DeviceEmptyCache, ResetDevice or the
//   allocator's out-of-memory ladder returns them.
// - Each device has one StreamSequenceTracker, registered as its allocator's CompletionSource the
//   first time the runtime touches that allocator (Allocator() below). Streams (stream.cc) call
//   Submit when they enqueue a task and Retire after it ran, so a block recorded on another stream
//   (DeviceRecordStream) is reused only after that stream's work up to the free has finished.
// - The allocator calls CompletionSource::Wait while holding its lock (EmptyCache, OOM ladder), so
//   work running on a stream (host callbacks, kernels) must never call into the allocator:
//   no DeviceMalloc/DeviceFree/aclrtMalloc/aclrtFree, nor the range lookups, from a stream task.
// - Pinned host memory (HostMalloc) is plain aligned_alloc memory with a registry of its own.
#include "aicore/runtime/device_memory.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "aicore/runtime/device.h"
#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/memory/device_memory.h"
#include "aicore/runtime/stream.h"
#include "aicore/sim/gm_registry.h"

namespace aicore::rt {

namespace {

constexpr size_t kAlignment = 512;  // GM alignment of the framework (see gm.h)
constexpr const char* kRegistryKind = "aclrtMalloc";  // how the GM registry names device blocks

struct HostRegistry {
  std::mutex mu;
  std::map<uintptr_t, size_t> host_blocks;
};

HostRegistry& HostReg() {
  static auto* r = new HostRegistry();  // never destroyed, like the allocators
  return *r;
}

size_t RoundUp(size_t size) { return (size + kAlignment - 1) / kAlignment * kAlignment; }

void CheckDeviceId(int device, const char* api) {
  const Status s = CheckDevice(device, api);
  if (!s.ok()) throw Error(s);
}

// Per-device completion trackers and the flags that register them once. Never destroyed: stream
// workers may still retire tasks while static destructors run.
struct Completion {
  explicit Completion(int devices)
      : trackers(new memory::StreamSequenceTracker[static_cast<size_t>(devices)]),
        registered(new std::once_flag[static_cast<size_t>(devices)]) {}
  std::unique_ptr<memory::StreamSequenceTracker[]> trackers;
  std::unique_ptr<std::once_flag[]> registered;
};

Completion& Comp() {
  static auto* c = new Completion(GetDeviceCount());
  return *c;
}

// Returns the caching allocator of `device` (already validated), with the device's stream tracker
// registered as its completion source. Every function of this file gets allocators through here.
memory::CachingAllocator& Allocator(int device) {
  memory::CachingAllocator& a = memory::GetDeviceAllocator(device);
  Completion& c = Comp();
  std::call_once(c.registered[static_cast<size_t>(device)],
                 [&] { a.SetCompletionSource(&c.trackers[static_cast<size_t>(device)]); });
  return a;
}

// Returns the device whose allocator has a live block starting at `ptr`, or -1.
int OwningDevice(const void* ptr) {
  const int count = GetDeviceCount();
  for (int d = 0; d < count; ++d) {
    if (Allocator(d).Owns(ptr)) return d;
  }
  return -1;
}

// Describes the live block that [ptr] points into (not its start), or "" when there is none.
std::string DescribeInteriorPointer(const void* ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  const int count = GetDeviceCount();
  for (int d = 0; d < count; ++d) {
    memory::CachingAllocator& a = Allocator(d);
    if (!a.ContainsRange(ptr, 0)) continue;
    const memory::MemorySnapshot snap = a.Snapshot();
    for (const memory::SegmentSnapshot& seg : snap.segments) {
      for (const memory::BlockSnapshot& b : seg.blocks) {
        if (p >= b.address && p < b.address + b.size) {
          return StrCat("points ", p - b.address, " bytes into a block of ", b.requested_size,
                        " bytes (", b.size, " bytes reserved for it) on device ", d);
        }
      }
    }
    return StrCat("points into a live block of device ", d);
  }
  return "";
}

}  // namespace

memory::StreamSequenceTracker& DeviceCompletionTracker(int device) {
  CheckDeviceId(device, "DeviceCompletionTracker");
  return Comp().trackers[static_cast<size_t>(device)];
}

size_t DefaultDeviceMemoryCapacity() {
  static const size_t capacity = memory::DefaultDeviceCapacity();  // one rule for both layers
  return capacity;
}

void* DeviceMalloc(size_t size, Stream* stream) {
  const int device = CurrentDevice();
  if (size == 0) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(),
         "device malloc of 0 bytes on device ", device, ": size must be at least 1");
  }
  // Throws memory::OutOfMemoryError (ResourceExhausted) when even an emptied cache cannot serve.
  uint64_t stream_id = 0;
  if (stream != nullptr) {
    std::shared_ptr<Stream> s;
    if (Status st = ResolveStream(stream, "DeviceMalloc", &s); !st.ok()) throw Error(st);
    stream_id = StreamId(*s);
  }
  void* p = Allocator(device).Malloc(size, stream_id);
  sim::RegisterGmBlock(p, size, kRegistryKind);  // See Note [GM extents]
  return p;
}

void DeviceFree(void* ptr) {
  if (ptr == nullptr) {
    Fail(StatusCode::kNotFound, std::source_location::current(),
         "device free of nullptr: not a device allocation");
  }
  const int device = OwningDevice(ptr);
  if (device < 0) {
    const std::string inside = DescribeInteriorPointer(ptr);
    if (!inside.empty()) {
      Fail(StatusCode::kNotFound, std::source_location::current(), "device free of ", ptr, ": ",
           inside, "; pass the pointer the allocation returned");
    }
    Fail(StatusCode::kNotFound, std::source_location::current(), "device free of ", ptr,
         ": not a live device allocation (double free, or memory not from aclrtMalloc)");
  }
  // Unregistered before the allocator may hand the address out again.
  sim::UnregisterGmBlock(ptr);
  try {
    Allocator(device).Free(ptr);
  } catch (const Error& e) {
    // Another thread freed it between Owns and Free: a double free as well.
    Fail(StatusCode::kNotFound, std::source_location::current(), "device free of ", ptr,
         ": not a live device allocation (double free): ", e.status().message());
  }
}

void DeviceRecordStream(void* ptr, Stream* stream) {
  if (stream == nullptr) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "DeviceRecordStream(", ptr,
         "): the stream must be resolved (not nullptr)");
  }
  // Resolved under the registry lock: a destroyed or foreign handle is NotFound, never read.
  std::shared_ptr<Stream> held;
  if (Status st = ResolveStream(stream, "DeviceRecordStream", &held); !st.ok()) throw Error(st);
  const Stream& resolved = *held;
  const int device = OwningDevice(ptr);
  if (device < 0) {
    Fail(StatusCode::kNotFound, std::source_location::current(), "DeviceRecordStream(", ptr,
         "): not the start of a live device allocation");
  }
  if (StreamDevice(resolved) != device) {
    // Each device's tracker only sees its own streams, so such a use could not be fenced.
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "DeviceRecordStream(", ptr,
         "): the block belongs to device ", device, " but stream ", StreamId(resolved),
         " to device ", StreamDevice(resolved), "; recording across devices is not supported");
  }
  Allocator(device).RecordStream(ptr, StreamId(resolved));
}

void DeviceEmptyCache(int device) {
  CheckDeviceId(device, "DeviceEmptyCache");
  Allocator(device).EmptyCache();
}

int FindDeviceAllocation(const void* ptr, size_t bytes) {
  const int count = GetDeviceCount();
  for (int d = 0; d < count; ++d) {
    if (Allocator(d).ContainsRange(ptr, bytes)) return d;
  }
  return -1;
}

bool IsDeviceMemory(const void* ptr) { return FindDeviceAllocation(ptr, 0) >= 0; }

DeviceMemoryStats GetDeviceMemoryStats(int device) {
  CheckDeviceId(device, "GetDeviceMemoryStats");
  memory::CachingAllocator& a = Allocator(device);
  const memory::DeviceStats st = a.GetStats();
  DeviceMemoryStats out;
  out.allocated = static_cast<size_t>(st.allocated_bytes[memory::kAggregate].current);
  out.peak_allocated = static_cast<size_t>(st.allocated_bytes[memory::kAggregate].peak);
  out.capacity = a.capacity();
  out.live_blocks = static_cast<size_t>(st.allocation[memory::kAggregate].current);
  out.reserved = static_cast<size_t>(st.reserved_bytes[memory::kAggregate].current);
  return out;
}

void SetDeviceMemoryCapacity(int device, size_t bytes) {
  CheckDeviceId(device, "SetDeviceMemoryCapacity");
  memory::SetDeviceMemoryCapacity(device, bytes != 0 ? bytes : DefaultDeviceMemoryCapacity());
}

size_t ReleaseDeviceMemory(int device) {
  CheckDeviceId(device, "ReleaseDeviceMemory");
  memory::CachingAllocator& a = Allocator(device);
  std::vector<void*> live;
  for (const memory::SegmentSnapshot& seg : a.Snapshot().segments) {
    for (const memory::BlockSnapshot& b : seg.blocks) {
      if (std::string_view(b.state) == "active_allocated") {
        live.push_back(reinterpret_cast<void*>(b.address));
      }
    }
  }
  for (void* p : live) {
    sim::UnregisterGmBlock(p);
    a.Free(p);
  }
  a.EmptyCache();
  a.ResetPeakStats();
  return live.size();
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
  HostRegistry& r = HostReg();
  std::lock_guard<std::mutex> lk(r.mu);
  r.host_blocks[reinterpret_cast<uintptr_t>(p)] = size;
  return p;
}

void HostFree(void* ptr) {
  HostRegistry& r = HostReg();
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
  HostRegistry& r = HostReg();
  std::lock_guard<std::mutex> lk(r.mu);
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.host_blocks.upper_bound(p);
  if (it == r.host_blocks.begin()) return false;
  --it;
  return p < it->first + it->second;
}

}  // namespace aicore::rt
