// The runtime controls of the Python package (runtime_api.h), over aicore/runtime.
#include "python/src/runtime_api.h"

#include "aicore/core/status.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/runtime/stream.h"

namespace aicore::python {

namespace {

void ThrowIfError(const Status& s) {
  if (!s.ok()) throw Error(s);
}

}  // namespace

int ResolveDevice(int device, const char* api) {
  if (device == -1) return rt::CurrentDevice();
  const int count = rt::GetDeviceCount();
  if (device < 0 || device >= count) {
    throw Error(Status(StatusCode::kInvalidArgument,
                       StrCat(api, ": device ", device, " is out of range; allowed: -1 (the "
                              "current device) or [0, ", count - 1, "]")));
  }
  return device;
}

memory::DeviceStats MemoryStats(int device) {
  return memory::GetDeviceAllocator(ResolveDevice(device, "aicore.memory_stats")).GetStats();
}

std::vector<std::pair<std::string, int64_t>> MemoryStatsFlat(int device) {
  return MemoryStats(device).Flatten();
}

std::string MemorySummary(int device) {
  const int d = ResolveDevice(device, "aicore.memory_summary");
  return memory::MemorySummary(memory::GetDeviceAllocator(d).GetStats(), d);
}

std::string MemorySnapshotJson(int device) {
  const int d = ResolveDevice(device, "aicore.memory_snapshot");
  return memory::SnapshotToJson(memory::GetDeviceAllocator(d).Snapshot());
}

void DumpMemorySnapshot(int device, const std::string& path) {
  const int d = ResolveDevice(device, "aicore.dump_memory_snapshot");
  memory::DumpSnapshot(memory::GetDeviceAllocator(d).Snapshot(), path);
}

void RecordMemoryHistory(int device, bool enabled, size_t max_entries) {
  const int d = ResolveDevice(device, "aicore.record_memory_history");
  memory::GetDeviceAllocator(d).RecordHistory(enabled, max_entries);
}

void ResetPeakMemoryStats(int device) {
  memory::GetDeviceAllocator(ResolveDevice(device, "aicore.reset_peak_memory_stats"))
      .ResetPeakStats();
}

void ResetAccumulatedMemoryStats(int device) {
  memory::GetDeviceAllocator(ResolveDevice(device, "aicore.reset_accumulated_memory_stats"))
      .ResetAccumulatedStats();
}

void EmptyCache() {
  for (int d = 0; d < rt::GetDeviceCount(); ++d) rt::DeviceEmptyCache(d);
}

void Synchronize(int device) {
  ThrowIfError(rt::SynchronizeDeviceStreams(ResolveDevice(device, "aicore.synchronize")));
}

int DeviceCount() { return rt::GetDeviceCount(); }
int CurrentDevice() { return rt::CurrentDevice(); }
void SetDevice(int device) {
  ThrowIfError(rt::SetDevice(ResolveDevice(device, "aicore.set_device")));
}

}  // namespace aicore::python
