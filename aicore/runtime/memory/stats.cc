// DeviceStats flattening and resets.
#include "aicore/runtime/memory/stats.h"

namespace aicore::memory {

const char* StatTypeName(int type) {
  switch (type) {
    case kAggregate:
      return "all";
    case kSmallPool:
      return "small_pool";
    default:
      return "large_pool";
  }
}

namespace {

void AddStat(std::vector<std::pair<std::string, int64_t>>& out, const std::string& prefix,
             const Stat& s) {
  out.emplace_back(prefix + ".current", s.current);
  out.emplace_back(prefix + ".peak", s.peak);
  out.emplace_back(prefix + ".allocated", s.allocated);
  out.emplace_back(prefix + ".freed", s.freed);
}

template <typename F>
void ForEachArray(DeviceStats& s, F f) {
  for (StatArray* a :
       {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
        &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes}) {
    for (Stat& stat : *a) f(stat);
  }
  f(s.oversize_allocations);
  f(s.oversize_segments);
}

}  // namespace

std::vector<std::pair<std::string, int64_t>> DeviceStats::Flatten() const {
  std::vector<std::pair<std::string, int64_t>> out;
  const std::pair<const char*, const StatArray*> arrays[] = {
      {"allocation", &allocation},
      {"segment", &segment},
      {"active", &active},
      {"inactive_split", &inactive_split},
      {"allocated_bytes", &allocated_bytes},
      {"reserved_bytes", &reserved_bytes},
      {"active_bytes", &active_bytes},
      {"inactive_split_bytes", &inactive_split_bytes},
      {"requested_bytes", &requested_bytes},
  };
  for (const auto& [name, array] : arrays) {
    for (int t = 0; t < kNumStatTypes; ++t) {
      AddStat(out, std::string(name) + "." + StatTypeName(t), (*array)[t]);
    }
  }
  AddStat(out, "oversize_allocations", oversize_allocations);
  AddStat(out, "oversize_segments", oversize_segments);
  out.emplace_back("num_alloc_retries", num_alloc_retries);
  out.emplace_back("num_ooms", num_ooms);
  out.emplace_back("num_sync_all_streams", num_sync_all_streams);
  out.emplace_back("num_device_alloc", num_device_alloc);
  out.emplace_back("num_device_free", num_device_free);
  out.emplace_back("max_split_size", max_split_size);
  return out;
}

void DeviceStats::ResetAccumulated() {
  ForEachArray(*this, [](Stat& s) { s.ResetAccumulated(); });
  num_alloc_retries = num_ooms = num_sync_all_streams = num_device_alloc = num_device_free = 0;
}

void DeviceStats::ResetPeak() {
  ForEachArray(*this, [](Stat& s) { s.ResetPeak(); });
}

}  // namespace aicore::memory
