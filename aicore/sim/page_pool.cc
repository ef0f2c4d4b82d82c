// Mapping cache: a small free list per size, guarded by one mutex (acquire/release happen once per
// block, not per instruction).
//
// Note [Mapping budget]
// Every mmap is at least one kernel VMA, a guarded stack two (the PROT_NONE guard and the stack),
// and a process may hold at most vm.max_map_count of them (65530 by default); past it mmap and
// mprotect fail with ENOMEM. A launch whose blocks all wait in SyncAll keeps every block's stack
// and local memory alive at once: 65535 blocks would need ~200k VMAs. So the pool counts the VMAs
// it holds and, past half of vm.max_map_count (the other half is left to GM, malloc, threads and
// libraries), hands out stacks and local memories carved from shared slabs of kSlabItems items, one
// read-write VMA per slab. Slab stacks have no guard page; a canary at their low end, checked each
// time the fiber switches out, reports an overflow instead (best effort: a frame that jumps past
// the canary without writing it is not caught). Slab items are never unmapped; their pages are
// returned to the kernel (MADV_DONTNEED) when released.
#include "aicore/sim/page_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "aicore/core/status.h"

namespace aicore::sim {

namespace {
constexpr size_t kMaxCachedPerSize = 256;  // bounds retained memory (e.g. 256 x 1 MiB stacks)
// A guard of 16 MiB catches frames of up to 16 MiB of locals (a frame larger than the guard could
// land in a neighbouring mapping). It is address space only: PROT_NONE pages cost no memory.
constexpr size_t kGuardBytes = size_t{16} << 20;
constexpr size_t kSlabItems = 64;

enum Kind { kLocal = 0, kGuardedStack = 1 };

std::mutex g_mu;
int64_t g_vmas = 0;  // VMAs of individually mapped items, live and cached

struct Pool {
  std::unordered_map<size_t, std::vector<void*>> free[2];  // by kind, then size
  std::unordered_map<size_t, std::vector<void*>> slab_free;  // by size
  std::unordered_set<void*> slab_items;
};
Pool& P() {
  static auto* pool = new Pool();
  return *pool;
}

int64_t ReadMaxMapCount() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  int64_t n = 0;
  if (in >> n && n > 0) return n;
  return 65530;  // the kernel default (DEFAULT_MAX_MAP_COUNT)
}

[[noreturn]] void FailMap(size_t bytes, const char* what) {
  Fail(StatusCode::kResourceExhausted, std::source_location::current(), "cannot map ", bytes,
       " bytes for ", what, ": ", std::strerror(errno), " (", MappingsInUse(),
       " mappings held for blocks; the address space or vm.max_map_count is exhausted: lower "
       "blockDim or AICORE_STACK_KB)");
}

// Call with g_mu held. Returns an item of `bytes` from a slab, mapping a new slab when needed.
void* CarveFromSlab(size_t bytes, const char* what) {
  auto& list = P().slab_free[bytes];
  if (list.empty()) {
    void* slab = mmap(nullptr, bytes * kSlabItems, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (slab == MAP_FAILED) FailMap(bytes * kSlabItems, what);
    for (size_t i = kSlabItems; i-- > 0;) {
      void* item = static_cast<char*>(slab) + i * bytes;
      list.push_back(item);
      P().slab_items.insert(item);
    }
  }
  void* p = list.back();
  list.pop_back();
  return p;
}

// Call with g_mu held. Returns true (and gives the item back) when `p` came from a slab.
bool ReturnToSlab(void* p, size_t bytes) {
  if (!P().slab_items.count(p)) return false;
  madvise(p, bytes, MADV_DONTNEED);
  P().slab_free[bytes].push_back(p);
  return true;
}

}  // namespace

namespace {
std::atomic<int64_t> g_budget{-1};
}  // namespace

int64_t MappingBudget() {
  const int64_t b = g_budget.load(std::memory_order_relaxed);
  if (b >= 0) return b;
  static const int64_t budget = ReadMaxMapCount() / 2;
  return budget;
}

void SetMappingBudget(int64_t vmas) { g_budget.store(vmas < 0 ? -1 : vmas); }

int64_t MappingsInUse() {
  return g_vmas;  // read without the lock: a report figure only
}

void* AcquireMapping(size_t bytes) {
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto& list = P().free[kLocal][bytes];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
    if (g_vmas + 1 > MappingBudget()) return CarveFromSlab(bytes, "a core's local memory");
    ++g_vmas;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    {
      std::lock_guard<std::mutex> lk(g_mu);
      --g_vmas;
    }
    FailMap(bytes, "a core's local memory");
  }
  return p;
}

void ReleaseMapping(void* p, size_t bytes) {
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (ReturnToSlab(p, bytes)) return;
    auto& list = P().free[kLocal][bytes];
    if (list.size() < kMaxCachedPerSize) {
      list.push_back(p);
      return;
    }
    --g_vmas;
  }
  munmap(p, bytes);
}

StackMapping AcquireStack(size_t bytes) {
  StackMapping s;
  s.bytes = bytes;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto& list = P().free[kGuardedStack][bytes];
    if (!list.empty()) {
      s.base = static_cast<char*>(list.back()) + kGuardBytes;
      s.guard_bytes = kGuardBytes;
      list.pop_back();
      return s;
    }
    if (g_vmas + 2 > MappingBudget()) {
      s.base = static_cast<char*>(CarveFromSlab(bytes, "a fiber stack"));
      std::memset(s.base, kCanaryByte, kCanaryBytes);
      return s;
    }
    g_vmas += 2;
  }
  // The guard stays PROT_NONE while the mapping sits in the pool: an overflow faults instead of
  // corrupting memory.
  void* p = mmap(nullptr, kGuardBytes + bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED || mprotect(static_cast<char*>(p) + kGuardBytes, bytes,
                                  PROT_READ | PROT_WRITE) != 0) {
    const int err = errno;
    if (p != MAP_FAILED) munmap(p, kGuardBytes + bytes);
    {
      std::lock_guard<std::mutex> lk(g_mu);
      g_vmas -= 2;
    }
    errno = err;
    FailMap(kGuardBytes + bytes, "a fiber stack");
  }
  s.base = static_cast<char*>(p) + kGuardBytes;
  s.guard_bytes = kGuardBytes;
  return s;
}

void ReleaseStack(const StackMapping& s) {
  if (s.guard_bytes == 0) {
    std::lock_guard<std::mutex> lk(g_mu);
    ReturnToSlab(s.base, s.bytes);
    return;
  }
  void* map = s.base - s.guard_bytes;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto& list = P().free[kGuardedStack][s.bytes];
    if (list.size() < kMaxCachedPerSize) {
      list.push_back(map);
      return;
    }
    g_vmas -= 2;
  }
  munmap(map, s.guard_bytes + s.bytes);
}

}  // namespace aicore::sim
