// The GM allocation registry.
//
// Note [GM extents]
// - GM is host memory; a GlobalTensor set up with a size checks every copy against it. One set
//   up without a size (SetGlobalBuffer(ptr), as CANN samples do with GmAlloc pointers) asks this
//   registry once, at SetGlobalBuffer, for the allocation that contains `ptr` and takes the bytes
//   from `ptr` to the allocation's end as its extent. A pointer inside a freed allocation makes
//   the tensor "freed": every use fails. A pointer nobody registered stays unchecked.
// - The fast path therefore pays one lookup per SetGlobalBuffer and nothing per copy beyond the
//   bounds compare a sized tensor already makes. memcheck (aicore check) also looks up every GM
//   range an instruction touches, so raw-pointer paths and stale pointers are reported with the
//   allocation they hit.
// - A freed record is only trustworthy while nobody else can own the memory: the runtime keeps a
//   freed GmAlloc block in a quarantine before returning it to malloc, device memory stays in the
//   caching allocator's segments, and both call ForgetGmRange when memory goes back to the host.
// - Live and freed records live in two ordered maps under one shared mutex; it is never held
//   while waiting for anything, so kernels may query it while host threads allocate.
//
// Note [GM epochs]
// - Frees are stream-ordered, as with PyTorch's caching allocator: a program may free device
//   memory on the host right after enqueuing a kernel that uses it (and even allocate the block
//   again for later work on the same stream), because the kernel runs before anything enqueued
//   after the free. A lookup made while that kernel runs must see the memory as the kernel was
//   enqueued against, not as the host left it meanwhile.
// - Every registration and free takes the next value of a clock. A record is alive at epoch E
//   when it was allocated at or before E and freed after it (or not at all).
// - An asynchronous launch takes a GmEpochPin when it is enqueued; the scheduler runs the
//   launch's blocks under a GmEpochView of that epoch. A lookup under a past view returns the
//   allocation alive at the view's epoch (live, with the extent it had then); else the one freed
//   most recently before it (freed: a true use after free, the memory was freed before the
//   launch was enqueued); else what the present knows. Synchronous launches and host code look
//   at the present.
// - Reusing memory normally drops the freed record it overlaps. A pin taken after the record's
//   allocation (and necessarily before the reuse) still needs it: to see the block live if the
//   pin precedes the free, to report a use after free if it follows it. While such a pin exists
//   the record moves to a "superseded" list instead; the list is pruned when pins go away and
//   scanned only by past views that find nothing alive in the live and freed maps.
#include "aicore/sim/gm_registry.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>

namespace aicore::sim {

namespace {

struct Record {
  uint64_t bytes;
  const char* kind;
  uint64_t allocated_at;             // the clock at RegisterGmBlock
  uint64_t freed_at = kGmEpochNow;   // the clock at UnregisterGmBlock; kGmEpochNow while live

  bool AliveAt(uint64_t epoch) const { return allocated_at <= epoch && epoch < freed_at; }
};

using Entry = std::pair<const uintptr_t, Record>;

struct Superseded {
  uintptr_t base;
  Record rec;
  uint64_t superseded_at;  // the clock of the registration that reused the memory
};

// Freed records kept at most; beyond it the oldest knowledge is dropped (never a false report).
constexpr size_t kMaxFreedRecords = size_t{1} << 16;
// Superseded records kept at most; beyond it the oldest are dropped (a launch pinned before them
// then sees the memory as it is now).
constexpr size_t kMaxSupersededRecords = size_t{1} << 16;

struct Registry {
  std::shared_mutex mu;
  std::map<uintptr_t, Record> live;
  std::map<uintptr_t, Record> freed;
  // Freed records whose memory was registered again while a pin needed them, oldest first.
  // See Note [GM epochs].
  std::deque<Superseded> superseded;
  std::multiset<uint64_t> pins;  // the epochs of live GmEpochPins
  uint64_t clock = 0;            // the stamp of the last registration or free
  std::atomic<bool> used{false};
};

Registry& Reg() {
  static auto* r = new Registry();  // never destroyed: frees may run during static destruction
  return *r;
}

thread_local uint64_t t_view_epoch = kGmEpochNow;

uintptr_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }
uint64_t Span(const Record& r) { return r.bytes == 0 ? 1 : r.bytes; }
bool Contains(uintptr_t base, const Record& r, uintptr_t a) {
  return a >= base && a - base < Span(r);
}

// True when a pin in [allocated_at, superseded_at) exists: a launch enqueued while the record
// was allocated, or after its free but before the reuse. Pins taken later see the reuse.
bool Needed(const Registry& r, uint64_t allocated_at, uint64_t superseded_at) {
  auto it = r.pins.lower_bound(allocated_at);
  return it != r.pins.end() && *it < superseded_at;
}

// Drops the superseded records no pin needs. Requires the registry lock held exclusively.
void PruneSuperseded(Registry& r) {
  std::erase_if(r.superseded, [&r](const Superseded& e) {
    return !Needed(r, e.rec.allocated_at, e.superseded_at);
  });
}

// Removes the freed records overlapping [lo, hi), reused by a registration at clock `now`: kept
// as superseded while a pin needs them, else dropped.
void SupersedeOverlapping(Registry& r, uintptr_t lo, uintptr_t hi, uint64_t now) {
  auto it = r.freed.upper_bound(lo);
  if (it != r.freed.begin()) {
    auto prev = std::prev(it);
    if (prev->first + Span(prev->second) > lo) it = prev;
  }
  while (it != r.freed.end() && it->first < hi) {
    if (Needed(r, it->second.allocated_at, now)) {
      if (r.superseded.size() >= kMaxSupersededRecords) r.superseded.pop_front();
      r.superseded.push_back(Superseded{it->first, it->second, now});
    }
    it = r.freed.erase(it);
  }
}

// Erases records of `m` overlapping [lo, hi).
void EraseOverlapping(std::map<uintptr_t, Record>& m, uintptr_t lo, uintptr_t hi) {
  auto it = m.upper_bound(lo);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->first + Span(prev->second) > lo) it = prev;
  }
  while (it != m.end() && it->first < hi) it = m.erase(it);
}

// Returns the record of `m` containing `a`, or nullptr.
const Entry* Containing(const std::map<uintptr_t, Record>& m, uintptr_t a) {
  auto it = m.upper_bound(a);
  if (it == m.begin()) return nullptr;
  --it;
  return Contains(it->first, it->second, a) ? &*it : nullptr;
}

GmBlock MakeBlock(GmBlockState state, uintptr_t base, const Record& rec) {
  GmBlock b;
  b.state = state;
  b.base = reinterpret_cast<const uint8_t*>(base);
  b.bytes = rec.bytes;
  b.kind = rec.kind;
  return b;
}

// FindGmBlock for a past view at `epoch`. Requires the registry lock (shared).
GmBlock FindAt(const Registry& r, uintptr_t a, uint64_t epoch) {
  const Entry* now_live = Containing(r.live, a);
  const Entry* now_freed = Containing(r.freed, a);
  uintptr_t dead_base = 0;
  const Record* dead = nullptr;  // freed most recently at or before `epoch`
  auto consider = [&](uintptr_t base, const Record& rec) {
    if (rec.freed_at <= epoch && (dead == nullptr || rec.freed_at > dead->freed_at)) {
      dead_base = base;
      dead = &rec;
    }
  };
  for (const Entry* e : {now_live, now_freed}) {
    if (e == nullptr) continue;
    if (e->second.AliveAt(epoch)) return MakeBlock(GmBlockState::kLive, e->first, e->second);
    consider(e->first, e->second);
  }
  for (const Superseded& s : r.superseded) {
    // A view at or after the reuse judges by what reused the memory, as the present does.
    if (epoch >= s.superseded_at || !Contains(s.base, s.rec, a)) continue;
    if (s.rec.AliveAt(epoch)) return MakeBlock(GmBlockState::kLive, s.base, s.rec);
    consider(s.base, s.rec);
  }
  if (dead != nullptr) return MakeBlock(GmBlockState::kFreed, dead_base, *dead);
  // Only allocations made after `epoch` contain `a`: judge by the present.
  if (now_live != nullptr) return MakeBlock(GmBlockState::kLive, now_live->first, now_live->second);
  if (now_freed != nullptr) {
    return MakeBlock(GmBlockState::kFreed, now_freed->first, now_freed->second);
  }
  return GmBlock();
}

}  // namespace

void RegisterGmBlock(const void* base, uint64_t bytes, const char* kind) {
  Registry& r = Reg();
  std::unique_lock lk(r.mu);
  const uintptr_t lo = Addr(base);
  const uint64_t now = ++r.clock;
  SupersedeOverlapping(r, lo, lo + (bytes == 0 ? 1 : bytes), now);
  r.live[lo] = Record{bytes, kind, now};
  r.used.store(true, std::memory_order_release);
}

bool UnregisterGmBlock(const void* base) {
  Registry& r = Reg();
  std::unique_lock lk(r.mu);
  auto it = r.live.find(Addr(base));
  if (it == r.live.end()) return false;
  if (r.freed.size() >= kMaxFreedRecords) r.freed.clear();
  Record rec = it->second;
  rec.freed_at = ++r.clock;
  r.freed[it->first] = rec;
  r.live.erase(it);
  return true;
}

void ForgetGmRange(const void* base, uint64_t bytes) {
  Registry& r = Reg();
  if (!r.used.load(std::memory_order_acquire)) return;
  std::unique_lock lk(r.mu);
  const uintptr_t lo = Addr(base);
  const uintptr_t hi = lo + bytes;
  EraseOverlapping(r.freed, lo, hi);
  std::erase_if(r.superseded, [lo, hi](const Superseded& e) {
    return e.base < hi && e.base + Span(e.rec) > lo;
  });
}

GmBlock FindGmBlock(const void* p) {
  Registry& r = Reg();
  if (!r.used.load(std::memory_order_acquire)) return GmBlock();
  const uint64_t epoch = t_view_epoch;
  std::shared_lock lk(r.mu);
  const uintptr_t a = Addr(p);
  if (epoch != kGmEpochNow) return FindAt(r, a, epoch);
  if (const Entry* e = Containing(r.live, a)) {
    return MakeBlock(GmBlockState::kLive, e->first, e->second);
  }
  if (const Entry* e = Containing(r.freed, a)) {
    return MakeBlock(GmBlockState::kFreed, e->first, e->second);
  }
  return GmBlock();
}

size_t LiveGmBlockCount(const char* kind) {
  Registry& r = Reg();
  std::shared_lock lk(r.mu);
  size_t n = 0;
  for (const auto& [addr, rec] : r.live) n += std::strcmp(rec.kind, kind) == 0;
  return n;
}

GmEpochPin::GmEpochPin() {
  Registry& r = Reg();
  std::unique_lock lk(r.mu);
  epoch_ = r.clock;
  r.pins.insert(epoch_);
}

GmEpochPin::~GmEpochPin() {
  Registry& r = Reg();
  std::unique_lock lk(r.mu);
  r.pins.erase(r.pins.find(epoch_));
  if (!r.superseded.empty()) PruneSuperseded(r);
}

GmEpochView::GmEpochView(uint64_t epoch) : previous_(t_view_epoch) { t_view_epoch = epoch; }

GmEpochView::~GmEpochView() { t_view_epoch = previous_; }

uint64_t GmViewEpoch() { return t_view_epoch; }

}  // namespace aicore::sim
