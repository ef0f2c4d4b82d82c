// Allocator statistics with PyTorch's names and kinds (torch.cuda.memory_stats): every Stat holds
// current, peak, allocated (cumulative increases) and freed (cumulative decreases), and every
// pool-dependent stat exists for all/small_pool/large_pool.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aicore::memory {

struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;

  void Increase(int64_t amount) {
    current += amount;
    allocated += amount;
    if (current > peak) peak = current;
  }
  void Decrease(int64_t amount) {
    current -= amount;
    freed += amount;
  }
  void ResetAccumulated() { allocated = freed = 0; }
  void ResetPeak() { peak = current; }
};

enum StatType : int { kAggregate = 0, kSmallPool = 1, kLargePool = 2 };
inline constexpr int kNumStatTypes = 3;
// Returns "all", "small_pool", "large_pool".
const char* StatTypeName(int type);

using StatArray = std::array<Stat, kNumStatTypes>;

struct DeviceStats {
  StatArray allocation;      // blocks handed to users and not yet freed
  StatArray segment;         // device allocations (segments) held
  StatArray active;          // allocated blocks plus freed ones awaiting stream completion
  StatArray inactive_split;  // free blocks inside split segments (not releasable)
  StatArray allocated_bytes;
  StatArray reserved_bytes;
  StatArray active_bytes;
  StatArray inactive_split_bytes;
  StatArray requested_bytes;      // the sizes callers asked for, before rounding
  int64_t num_alloc_retries = 0;  // device allocations retried after releasing the cache
  int64_t num_ooms = 0;           // out-of-memory errors raised
  int64_t num_sync_all_streams = 0;
  int64_t num_device_alloc = 0;
  int64_t num_device_free = 0;
  Stat oversize_allocations;  // allocations of blocks >= max_split_size
  Stat oversize_segments;     // segments >= max_split_size
  int64_t max_split_size = 0;

  // Returns every value under PyTorch's flat key ("allocated_bytes.all.peak", "num_ooms", ...).
  std::vector<std::pair<std::string, int64_t>> Flatten() const;
  // Clears allocated/freed totals and the counters.
  void ResetAccumulated();
  // Sets every peak to its current value.
  void ResetPeak();
};

}  // namespace aicore::memory
