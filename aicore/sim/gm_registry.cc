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
#include "aicore/sim/gm_registry.h"

#include <atomic>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace aicore::sim {

namespace {

struct Record {
  uint64_t bytes;
  const char* kind;
};

// Freed records kept at most; beyond it the oldest knowledge is dropped (never a false report).
constexpr size_t kMaxFreedRecords = size_t{1} << 16;

struct Registry {
  std::shared_mutex mu;
  std::map<uintptr_t, Record> live;
  std::map<uintptr_t, Record> freed;
  std::atomic<bool> used{false};
};

Registry& Reg() {
  static auto* r = new Registry();  // never destroyed: frees may run during static destruction
  return *r;
}

uintptr_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }
uint64_t Span(const Record& r) { return r.bytes == 0 ? 1 : r.bytes; }

// Erases records of `m` overlapping [lo, hi).
void EraseOverlapping(std::map<uintptr_t, Record>& m, uintptr_t lo, uintptr_t hi) {
  auto it = m.upper_bound(lo);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->first + Span(prev->second) > lo) it = prev;
  }
  while (it != m.end() && it->first < hi) it = m.erase(it);
}

// Returns the record of `m` containing `a`, or m.end().
std::map<uintptr_t, Record>::const_iterator Containing(const std::map<uintptr_t, Record>& m,
                                                       uintptr_t a) {
  auto it = m.upper_bound(a);
  if (it == m.begin()) return m.end();
  --it;
  return a - it->first < Span(it->second) ? it : m.end();
}

}  // namespace

void RegisterGmBlock(const void* base, uint64_t bytes, const char* kind) {
  Registry& r = Reg();
  std::unique_lock lk(r.mu);
  const uintptr_t lo = Addr(base);
  EraseOverlapping(r.freed, lo, lo + (bytes == 0 ? 1 : bytes));
  r.live[lo] = Record{bytes, kind};
  r.used.store(true, std::memory_order_release);
}

bool UnregisterGmBlock(const void* base) {
  Registry& r = Reg();
  std::unique_lock lk(r.mu);
  auto it = r.live.find(Addr(base));
  if (it == r.live.end()) return false;
  if (r.freed.size() >= kMaxFreedRecords) r.freed.clear();
  r.freed[it->first] = it->second;
  r.live.erase(it);
  return true;
}

void ForgetGmRange(const void* base, uint64_t bytes) {
  Registry& r = Reg();
  if (!r.used.load(std::memory_order_acquire)) return;
  std::unique_lock lk(r.mu);
  EraseOverlapping(r.freed, Addr(base), Addr(base) + bytes);
}

GmBlock FindGmBlock(const void* p) {
  Registry& r = Reg();
  GmBlock b;
  if (!r.used.load(std::memory_order_acquire)) return b;
  std::shared_lock lk(r.mu);
  const uintptr_t a = Addr(p);
  auto it = Containing(r.live, a);
  if (it != r.live.end()) {
    b.state = GmBlockState::kLive;
  } else if ((it = Containing(r.freed, a)) != r.freed.end()) {
    b.state = GmBlockState::kFreed;
  } else {
    return b;
  }
  b.base = reinterpret_cast<const uint8_t*>(it->first);
  b.bytes = it->second.bytes;
  b.kind = it->second.kind;
  return b;
}

size_t LiveGmBlockCount(const char* kind) {
  Registry& r = Reg();
  std::shared_lock lk(r.mu);
  size_t n = 0;
  for (const auto& [addr, rec] : r.live) n += std::strcmp(rec.kind, kind) == 0;
  return n;
}

}  // namespace aicore::sim
