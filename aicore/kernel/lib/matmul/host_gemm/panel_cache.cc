// The launch-wide packed panel cache (Note [Packed panel cache]).
//
// - One process-wide cache: launches run one at a time (sim::RunKernel), and the launch-end hook
//   empties it, so its entries never outlive the launch that packed them.
// - Entries live in a deque (stable addresses) and are found through a hash map by key; a stale
//   entry is replaced in the map but stays in the deque, since a block may still be reading it.
// - The arena hands out 64-byte aligned pieces of its chunks in order; Reset (at the end of a
//   launch that made entries) frees the chunks the launch did not use and rewinds the rest.
#include "aicore/kernel/lib/matmul/host_gemm/panel_cache.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "aicore/core/env.h"
#include "aicore/sim/core.h"
#include "aicore/sim/gm_copies.h"

namespace aicore::kernel::cube {

namespace {

// Chunks of 8 MiB: a few per launch at the shapes benchmarked (a larger block gets a chunk of its
// own, rounded up to whole chunks). Ordinary pages: see Note [Packed panel cache].
constexpr size_t kChunkBytes = size_t{8} << 20;
constexpr size_t kPageBytes = 4096;

class Arena {
 public:
  ~Arena() {
    for (Chunk& c : chunks_) std::free(c.base);
  }
  // Returns `bytes` (64-byte aligned), or nullptr when the cache would exceed kPanelCacheBytes or
  // the host has no memory.
  uint8_t* Allocate(size_t bytes) {
    bytes = (bytes + 63) / 64 * 64;
    for (; cur_ < chunks_.size(); ++cur_) {
      Chunk& c = chunks_[cur_];
      if (c.bytes - c.used >= bytes) {
        uint8_t* p = c.base + c.used;
        c.used += bytes;
        return p;
      }
    }
    const size_t size = (bytes + kChunkBytes - 1) / kChunkBytes * kChunkBytes;
    if (held_ + size > kPanelCacheBytes) return nullptr;
    auto* base = static_cast<uint8_t*>(std::aligned_alloc(kPageBytes, size));
    if (base == nullptr) return nullptr;
    held_ += size;
    chunks_.push_back({base, size, bytes});
    cur_ = chunks_.size() - 1;
    return base;
  }
  // Frees the chunks nothing was allocated from since the last Reset; rewinds the others.
  void Reset() {
    std::vector<Chunk> keep;
    for (Chunk& c : chunks_) {
      if (c.used == 0) {
        std::free(c.base);
        held_ -= c.bytes;
      } else {
        c.used = 0;
        keep.push_back(c);
      }
    }
    chunks_ = std::move(keep);
    cur_ = 0;
  }
  size_t held() const { return held_; }

 private:
  struct Chunk {
    uint8_t* base;
    size_t bytes;
    size_t used;
  };
  std::vector<Chunk> chunks_;
  size_t cur_ = 0;
  size_t held_ = 0;
};

struct Entry {
  std::atomic<bool> stale{false};  // set when its source is written (Note [GM copies])
  float* data = nullptr;
  bool ready = false;
};

struct KeyHash {
  size_t operator()(const PanelKey& k) const {
    size_t h = std::hash<const void*>()(k.src);
    const uint64_t parts[] = {uint64_t{k.rows} << 32 | k.cols, static_cast<uint64_t>(k.rs),
                              static_cast<uint64_t>(k.cs),
                              uint64_t{k.operand} << 16 | uint64_t{k.type} << 8 | k.elem_bytes};
    for (uint64_t v : parts) h = (h ^ std::hash<uint64_t>()(v)) * 0x100000001b3ull;
    return h;
  }
};

struct Cache {
  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<PanelKey, Entry*, KeyHash> index;  // guarded by mu
  std::deque<Entry> entries;                            // guarded by mu
  Arena arena;                                          // guarded by mu
  PanelCacheStats stats;                                // guarded by mu
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: launches may end during exit
  return *cache;
}

std::atomic<bool>& EnabledSwitch() {
  static std::atomic<bool> on{aicore::env::Bool("AICORE_MATMUL_PANEL_CACHE", true)};
  return on;
}

// The launch-end hook: no block runs now, so every entry can go. A launch that packed nothing
// into the cache leaves the arena as it is (its chunks are for the next one that does).
void DropAll() {
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lk(c.mu);
  if (c.entries.empty()) return;
  sim::InvalidateGmCopies();  // the launch end did; no watch may outlive its entry's flag
  c.index.clear();
  c.entries.clear();
  c.arena.Reset();
}

void RegisterHookOnce() {
  static std::once_flag once;
  std::call_once(once, [] { sim::AddLaunchEndHook(DropAll); });
}

// The GM bytes a block is packed from (strides are positive): its rows (columns) when the
// columns (rows) are contiguous, else every byte from its first element to its last.
sim::GmRegion SourceRegion(const PanelKey& k) {
  const uint64_t eb = k.elem_bytes;
  sim::GmRegion r;
  r.base = k.src;
  if (k.cs == 1) {
    r.lines = k.rows;
    r.line_bytes = k.cols * eb;
    r.pitch = uint64_t(k.rs) * eb;
  } else if (k.rs == 1) {
    r.lines = k.cols;
    r.line_bytes = k.rows * eb;
    r.pitch = uint64_t(k.cs) * eb;
  } else {
    r.line_bytes =
        (uint64_t(k.rows - 1) * uint64_t(k.rs) + uint64_t(k.cols - 1) * uint64_t(k.cs) + 1) * eb;
  }
  return r;
}

}  // namespace

PanelRef& PanelRef::operator=(PanelRef&& o) noexcept {
  if (this != &o) {
    Publish();
    data_ = o.data_;
    must_pack_ = o.must_pack_;
    entry_ = o.entry_;
    o.entry_ = nullptr;
    o.must_pack_ = false;
  }
  return *this;
}

void PanelRef::Publish() {
  if (entry_ == nullptr) return;
  Cache& c = TheCache();
  {
    std::lock_guard<std::mutex> lk(c.mu);
    static_cast<Entry*>(entry_)->ready = true;
  }
  entry_ = nullptr;
  c.cv.notify_all();
}

PanelRef AcquirePanel(const PanelKey& key, size_t floats, float* scratch) {
  if (sim::CurrentCoreOrNull() == nullptr || key.rows == 0 || key.cols == 0) {
    return PanelRef(scratch, true, nullptr);
  }
  RegisterHookOnce();
  Cache& c = TheCache();
  std::unique_lock<std::mutex> lk(c.mu);
  if (!EnabledSwitch().load(std::memory_order_relaxed)) {
    ++c.stats.bypassed;
    return PanelRef(scratch, true, nullptr);
  }
  bool waited = false;
  for (;;) {
    auto it = c.index.find(key);
    if (it == c.index.end()) break;
    Entry* e = it->second;
    if (e->stale.load(std::memory_order_acquire)) {
      ++c.stats.stale;
      break;
    }
    if (e->ready) {
      ++c.stats.hits;
      return PanelRef(e->data, false, nullptr);
    }
    if (!waited) ++c.stats.waits;
    waited = true;
    c.cv.wait(lk);
  }
  auto* data = reinterpret_cast<float*>(c.arena.Allocate(floats * sizeof(float)));
  if (data == nullptr) {
    ++c.stats.bypassed;
    return PanelRef(scratch, true, nullptr);
  }
  // The source is watched from here on: a write noted later makes the entry stale, one noted
  // before happened before the packing reads the source.
  Entry& e = c.entries.emplace_back();
  sim::WatchGmRegion(SourceRegion(key), &e.stale);
  e.data = data;
  c.index[key] = &e;
  ++c.stats.claims;
  return PanelRef(data, true, &e);
}

void SetPanelCacheEnabled(bool enabled) { EnabledSwitch().store(enabled); }
bool PanelCacheEnabled() { return EnabledSwitch().load(); }

PanelCacheStats GetPanelCacheStats() {
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lk(c.mu);
  PanelCacheStats s = c.stats;
  s.bytes_held = c.arena.held();
  return s;
}

}  // namespace aicore::kernel::cube
