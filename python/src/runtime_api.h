// The runtime controls the Python package exposes (aicore.memory_allocated, synchronize, ...),
// in plain C++ so that neither pybind11 nor torch reaches the library's translation units: the
// pybind11 module (module.cc) is a thin layer over these. Every function throws aicore::Error
// (a std::runtime_error, so Python sees RuntimeError) naming the Python function on bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "aicore/runtime/memory/stats.h"

namespace aicore::python {

// Returns `device` itself when it is a valid device id, the calling thread's current device for
// -1; anything else is InvalidArgument naming `api`, the value and the range.
int ResolveDevice(int device, const char* api);

// The caching allocator's statistics of `device` (-1: current), torch.cuda.memory_stats' kinds.
memory::DeviceStats MemoryStats(int device);
// The statistics flattened to torch's keys ("allocated_bytes.all.current", ...), in a fixed order.
std::vector<std::pair<std::string, int64_t>> MemoryStatsFlat(int device);
// torch.cuda.memory_summary-style text of `device` (-1: current).
std::string MemorySummary(int device);
// The allocator's segments and blocks of every device as JSON (pytorch.org/memory_viz accepts it).
std::string MemorySnapshotJson(int device);
// Writes the snapshot of `device` as torch's pickle (or JSON for a .json path) to `path`.
void DumpMemorySnapshot(int device, const std::string& path);
// Starts or stops recording the allocator history of `device` (for snapshots).
void RecordMemoryHistory(int device, bool enabled, size_t max_entries);
void ResetPeakMemoryStats(int device);
void ResetAccumulatedMemoryStats(int device);
// Returns every cached block without live allocations to the host, on every device whose
// allocator exists (as torch.cuda.empty_cache), after waiting for pending frees.
void EmptyCache();
// Waits for every stream of `device` (-1: current); throws the first error their work raised
// (the kernel's message), as torch.cuda.synchronize raises an asynchronous CUDA error.
void Synchronize(int device);

int DeviceCount();
int CurrentDevice();
void SetDevice(int device);

}  // namespace aicore::python
