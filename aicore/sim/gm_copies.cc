// The generation of GM copies (Note [GM copies]): a counter and the watched byte ranges.
//
// - The ranges are a short list of disjoint [lo, hi) intervals, merged as they are added (a
//   packed-panel cache adds one per panel; the panels of one matrix merge into one interval).
// - NoteGmWrite reads the interval count first (relaxed): a launch that keeps no copies pays one
//   load per GM write. Otherwise it takes the mutex and scans the list.
// - Advancing the generation clears the list: copies of the new generation register again.
#include "aicore/sim/gm_copies.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace aicore::sim {

namespace {

struct Interval {
  uintptr_t lo, hi;
};

std::mutex g_mu;
std::vector<Interval> g_ranges;  // guarded by g_mu; sorted, disjoint
std::atomic<size_t> g_range_count{0};
std::atomic<uint64_t> g_generation{1};

void AdvanceLocked() {
  g_ranges.clear();
  g_range_count.store(0, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace

uint64_t WatchGmRange(const void* p, uint64_t bytes) {
  Interval add{reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes};
  std::lock_guard<std::mutex> lk(g_mu);
  // Merge every interval touching `add` into it, keep the rest.
  auto first = std::lower_bound(g_ranges.begin(), g_ranges.end(), add.lo,
                                [](const Interval& r, uintptr_t lo) { return r.hi < lo; });
  auto last = first;
  while (last != g_ranges.end() && last->lo <= add.hi) {
    add.lo = std::min(add.lo, last->lo);
    add.hi = std::max(add.hi, last->hi);
    ++last;
  }
  first = g_ranges.erase(first, last);
  g_ranges.insert(first, add);
  g_range_count.store(g_ranges.size(), std::memory_order_relaxed);
  return g_generation.load(std::memory_order_relaxed);  // under g_mu: the range's generation
}

void NoteGmWrite(const void* p, uint64_t bytes) {
  if (bytes == 0 || g_range_count.load(std::memory_order_relaxed) == 0) return;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = std::lower_bound(g_ranges.begin(), g_ranges.end(), lo,
                             [](const Interval& r, uintptr_t v) { return r.hi <= v; });
  if (it != g_ranges.end() && it->lo < hi) AdvanceLocked();
}

void InvalidateGmCopies() {
  std::lock_guard<std::mutex> lk(g_mu);
  AdvanceLocked();
}

uint64_t GmCopyGeneration() { return g_generation.load(std::memory_order_acquire); }

}  // namespace aicore::sim
