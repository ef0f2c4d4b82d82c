// GmAlloc/GmFree over the GM registry, so a foreign or double free is reported instead of
// corrupting, and kernels find the extent of a GmAlloc pointer (See Note [GM extents]).
//
// - GmAlloc rounds the size up to the alignment (checking for overflow), allocates, zeroes and
//   registers the block with its requested size.
// - GmFree unregisters it (a pointer that is not a live block start is an error) and puts the
//   block in a FIFO quarantine instead of freeing it, so the address cannot be handed to other
//   host code while the registry still reports it as freed. Blocks leave the quarantine, oldest
//   first, beyond kQuarantineBlocks or kQuarantineBytes; then the registry forgets them.
#include "aicore/runtime/gm.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>

#include "aicore/core/status.h"
#include "aicore/sim/gm_registry.h"

namespace aicore {

namespace {

constexpr const char* kKind = "GmAlloc";
constexpr size_t kHuge = size_t{2} << 20;
// Quarantine bounds: enough to catch the usual free-then-launch mistake, small enough not to
// matter for memory (huge blocks give their pages back while quarantined).
constexpr size_t kQuarantineBlocks = 256;
constexpr size_t kQuarantineBytes = size_t{64} << 20;

struct Quarantined {
  void* ptr;
  size_t rounded;   // bytes behind ptr
  size_t resident;  // bytes counted against kQuarantineBytes
};

std::mutex g_mu;  // guards the quarantine
std::deque<Quarantined>& Quarantine() {
  static auto* q = new std::deque<Quarantined>();
  return *q;
}
size_t g_quarantine_bytes = 0;

size_t AlignOf(size_t size) { return size >= kHuge ? kHuge : 512; }

// Returns `size` rounded up to its alignment, or 0 when that overflows.
size_t RoundedSize(size_t size) {
  const size_t align = AlignOf(size);
  if (size > std::numeric_limits<size_t>::max() - (align - 1)) return 0;
  const size_t rounded = (size + align - 1) / align * align;
  return rounded == 0 ? align : rounded;
}

}  // namespace

// Note [Huge pages for GM]
// Blocks of 2 MiB and more are 2 MiB aligned, whole 2 MiB pages, and advised MADV_HUGEPAGE
// before they are first touched. Kernels walk GM in strides of whole rows (a matmul B panel reads
// one row per k, each in its own 4 KiB page), and with 4 KiB pages every row is a TLB miss; Linux's
// usual transparent-huge-page mode ("madvise") grants 2 MiB pages only on request. Measured on
// the packed GEMM (Note [Packed GEMM]): 1024^3 fp32 118 -> 134 GFLOP/s, 128x4096x4096 91 -> 107.
void* GmAlloc(size_t size) {
  const size_t align = AlignOf(size);
  const size_t rounded = RoundedSize(size);
  // Half the address space is beyond any host; aligned_alloc would fail or overcommit wildly.
  if (rounded == 0 || rounded > (std::numeric_limits<size_t>::max() >> 1)) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(), "GmAlloc of ", size,
         " bytes: larger than the host can address (the size rounded up to ", align,
         " B overflows or exceeds half the address space)");
  }
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) {
    Fail(StatusCode::kResourceExhausted, std::source_location::current(), "GmAlloc of ", size,
         " bytes failed: out of host memory");
  }
#ifdef MADV_HUGEPAGE
  if (align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
  std::memset(p, 0, rounded);
  sim::RegisterGmBlock(p, size, kKind);
  return p;
}

void GmFree(void* ptr) {
  if (ptr == nullptr) return;
  const sim::GmBlock b = sim::FindGmBlock(ptr);
  if (b.state != sim::GmBlockState::kLive || b.base != ptr ||
      std::strcmp(b.kind, kKind) != 0 || !sim::UnregisterGmBlock(ptr)) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "GmFree(", ptr,
         "): not a live GmAlloc pointer (double free or foreign pointer)");
  }
  Quarantined q{ptr, RoundedSize(b.bytes), 0};
  q.resident = q.rounded;
#ifdef MADV_DONTNEED
  // Whole huge blocks give their pages back while they wait (zero-filled if touched again).
  if (q.rounded >= kHuge && madvise(ptr, q.rounded, MADV_DONTNEED) == 0) q.resident = 0;
#endif
  std::deque<Quarantined> evicted;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto& fifo = Quarantine();
    fifo.push_back(q);
    g_quarantine_bytes += q.resident;
    while (fifo.size() > kQuarantineBlocks || g_quarantine_bytes > kQuarantineBytes) {
      evicted.push_back(fifo.front());
      g_quarantine_bytes -= fifo.front().resident;
      fifo.pop_front();
    }
  }
  for (const Quarantined& e : evicted) {
    sim::ForgetGmRange(e.ptr, e.rounded);
    std::free(e.ptr);
  }
}

size_t GmLiveBlocks() { return sim::LiveGmBlockCount(kKind); }

}  // namespace aicore
