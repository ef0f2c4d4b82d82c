// GmAlloc/GmFree with a registry, so a foreign or double free is reported instead of corrupting.
#include "aicore/runtime/gm.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "aicore/core/status.h"

namespace aicore {

namespace {
std::mutex g_mu;
std::unordered_map<void*, size_t>& Registry() {
  static auto* r = new std::unordered_map<void*, size_t>();
  return *r;
}
}  // namespace

void* GmAlloc(size_t size) {
  const size_t rounded = (size + 511) / 512 * 512;
  void* p = std::aligned_alloc(512, rounded == 0 ? 512 : rounded);
  if (p == nullptr) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(), "GmAlloc of ", size,
         " bytes failed: out of host memory");
  }
  std::memset(p, 0, rounded == 0 ? 512 : rounded);
  std::lock_guard<std::mutex> lk(g_mu);
  Registry()[p] = size;
  return p;
}

void GmFree(void* ptr) {
  if (ptr == nullptr) return;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto it = Registry().find(ptr);
    if (it == Registry().end()) {
      Fail(StatusCode::kInvalidArgument, std::source_location::current(), "GmFree(", ptr,
           "): not a live GmAlloc pointer (double free or foreign pointer)");
    }
    Registry().erase(it);
  }
  std::free(ptr);
}

size_t GmLiveBlocks() {
  std::lock_guard<std::mutex> lk(g_mu);
  return Registry().size();
}

}  // namespace aicore
