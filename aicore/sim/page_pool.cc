// Mapping cache: a small free list per size, guarded by one mutex (acquire/release happen once per
// block, not per instruction).
#include "aicore/sim/page_pool.h"

#include <sys/mman.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "aicore/core/status.h"

namespace aicore::sim {

namespace {
constexpr size_t kMaxCachedPerSize = 256;  // bounds retained memory (e.g. 256 x 1 MiB stacks)

std::mutex g_mu;
std::unordered_map<size_t, std::vector<void*>>& FreeLists() {
  static auto* lists = new std::unordered_map<size_t, std::vector<void*>>();
  return *lists;
}
}  // namespace

void* AcquireMapping(size_t bytes, int kind) {
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto& list = FreeLists()[bytes * 2 + static_cast<size_t>(kind)];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(), "cannot map ", bytes,
         " bytes for a core's local memory or stack");
  }
  return p;
}

void ReleaseMapping(void* p, size_t bytes, int kind) {
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto& list = FreeLists()[bytes * 2 + static_cast<size_t>(kind)];
    if (list.size() < kMaxCachedPerSize) {
      list.push_back(p);
      return;
    }
  }
  munmap(p, bytes);
}

}  // namespace aicore::sim
