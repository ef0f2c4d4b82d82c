// The caching device allocator. Policy, in the order a request sees it (PyTorch's
// CUDACachingAllocator and torch_npu's NPUCachingAllocator behave the same way):
//  - Round the request up to a multiple of 512 B (or to a power-of-two division above 1 MiB when
//    roundup_power2_divisions is set).
//  - Requests <= 1 MiB use the small pool, whose segments are 2 MiB; larger ones use the large
//    pool, whose segments are 20 MiB for requests under 10 MiB and the request rounded up to
//    2 MiB otherwise.
//  - First poll the completion markers of deferred frees (FIFO per stream) and return the blocks
//    whose streams have all finished.
//  - Best fit: the smallest cached block of the pool on the same stream (free blocks are ordered by
//    (stream, size, address)). A request below max_split_size never takes a block at or above it;
//    a request at or above it takes such a block only if it is smaller than request +
//    max_non_split_rounding_size.
//  - On a miss: run the free-memory callbacks and search again; run GC if
//    garbage_collection_threshold is set (free unsplit large blocks at or above the average age
//    until reserved memory is back under the threshold); allocate a new segment; on failure free
//    cached oversize blocks of the stream and retry; then wait for all deferred frees, free every
//    unsplit cached segment (and unmap the free pages of expandable segments) and retry, counting
//    num_alloc_retries; then raise OutOfMemoryError and count num_ooms.
//  - Split the chosen block when the rest is still useful: >= 512 B in the small pool and in
//    expandable segments, > 1 MiB in the large pool and only for requests below max_split_size.
//  - Free: a block recorded on other streams waits behind one completion marker per stream (see
//    Note [Deferred frees]); otherwise it merges with free neighbours of its segment and returns to
//    its pool. Memory is returned to the device only by GC, the OOM ladder and EmptyCache, each
//    after the work enqueued so far on every stream has run (Note [Stream-ordered frees]).
//  - Expandable segments reserve address space per (stream, pool) and commit 2 MiB pages at the
//    lowest hole that fits, merged with the free block before it; free pages are released again.
//  - One recursive lock guards everything, so free-memory callbacks may call Free.
#include "aicore/runtime/memory/caching_allocator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <memory_resource>
#include <mutex>
#include <set>
#include <unordered_map>

#include "aicore/core/log.h"
#include "aicore/runtime/memory/device_memory.h"

namespace aicore::memory {

// Note [Deferred frees]
// A block used on a stream other than the one it was allocated on (RecordStream) may still be read
// or written by work queued on that stream when the host frees it. Free therefore records a
// completion marker on every recorded stream and keeps the block "active pending free" until all
// markers complete; markers are polled in FIFO order per stream at the start of every Malloc and
// waited for by EmptyCache and the OOM ladder. The stream implementation provides the markers
// through CompletionSource.

// Note [Stream-ordered frees]
// A block freed on the host may still be used by work queued before the free on its own stream
// (PyTorch programs free tensors right after enqueuing the kernels that use them); the pool may
// hand it out again at once, because later work on that stream runs after the queued work. Memory
// handed back to the device (unmapped), however, may be touched by nobody: like cudaFree, every
// release first waits until the work enqueued so far on every stream has finished
// (CompletionSource::WaitAll). aclrtMalloc blocks have no stream of their own, so a per-stream
// wait would not be enough.

namespace {

constexpr size_t kMaxRequest = size_t{1} << 56;  // keeps rounding free of overflow
constexpr size_t kRoundUpPowerOfTwoStart = 1u << 20;

size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

std::string FormatSize(size_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%zu bytes", bytes);
  } else if (bytes < (size_t{1} << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f KiB", bytes / 1024.0);
  } else if (bytes < (size_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", bytes / 1048576.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / 1073741824.0);
  }
  return buf;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

size_t RoundSize(size_t size, const AllocatorConfig& config) {
  if (size < kMinBlockSize) return kMinBlockSize;
  // Sizes below 1 MiB use the first interval's divisions, as in PyTorch.
  const int log_size = std::bit_width(size) - 1;
  const int start = std::bit_width(kRoundUpPowerOfTwoStart) - 1;
  const int index = std::clamp(log_size - start, 0, kRoundUpPowerOfTwoIntervals - 1);
  const size_t divisions = config.roundup_power2_divisions[index];
  // size > kMinBlockSize * divisions, without overflow for any divisions.
  if (divisions > 1 && divisions <= (size - 1) / kMinBlockSize) {
    if (std::has_single_bit(size)) return size;
    const size_t step = std::bit_floor(size) / divisions;
    return std::max(RoundUp(size, step), RoundUp(size, kMinBlockSize));
  }
  return RoundUp(size, kMinBlockSize);
}

size_t SegmentSizeFor(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return RoundUp(size, kRoundLarge);
}

const char* TraceActionName(TraceEntry::Action action) {
  switch (action) {
    case TraceEntry::kAlloc:
      return "alloc";
    case TraceEntry::kFreeRequested:
      return "free_requested";
    case TraceEntry::kFreeCompleted:
      return "free_completed";
    case TraceEntry::kSegmentAlloc:
      return "segment_alloc";
    case TraceEntry::kSegmentFree:
      return "segment_free";
    case TraceEntry::kSegmentMap:
      return "segment_map";
    case TraceEntry::kSegmentUnmap:
      return "segment_unmap";
    case TraceEntry::kOom:
      return "oom";
  }
  return "unknown";
}

struct CachingAllocator::Impl {
  struct BlockPool;
  struct Segment;

  struct Block {
    char* ptr = nullptr;
    size_t size = 0;
    size_t requested_size = 0;
    StreamId stream = 0;
    BlockPool* pool = nullptr;
    Segment* segment = nullptr;
    Block* prev = nullptr;  // neighbours inside the segment, in address order
    Block* next = nullptr;
    bool allocated = false;
    bool mapped = true;    // false only for uncommitted ranges of expandable segments
    int event_count = 0;   // completion markers still pending (Note [Deferred frees])
    uint64_t gc_base = 0;  // pool search count when the block was cached; age = count - base
    std::vector<StreamId> stream_uses;
    std::source_location where;
    bool has_where = false;

    bool IsSplit() const { return prev != nullptr || next != nullptr; }
    bool IsFreeMapped() const { return !allocated && event_count == 0 && mapped; }
  };

  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const {
      if (a->stream != b->stream) return a->stream < b->stream;
      if (a->size != b->size) return a->size < b->size;
      return a->ptr < b->ptr;
    }
  };

  struct BlockPool {
    BlockPool(bool small, std::pmr::memory_resource* resource)
        : blocks(resource), is_small(small) {}
    std::pmr::set<Block*, BlockLess> blocks;  // free, mapped, no pending markers
    bool is_small;
    uint64_t get_free_block_calls = 0;
  };

  struct Segment {
    char* base = nullptr;
    size_t size = 0;  // bytes of the mapping, or of the reserved range when expandable
    StreamId stream = 0;
    BlockPool* pool = nullptr;
    bool expandable = false;
    size_t mapped = 0;  // committed bytes
    Block* head = nullptr;
  };

  struct AllocParams {
    size_t requested = 0;
    size_t size = 0;
    size_t alloc_size = 0;
    StreamId stream = 0;
    BlockPool* pool = nullptr;
    Block* block = nullptr;
    std::source_location where;
  };

  Impl(int device, size_t capacity, AllocatorConfig cfg)
      : device(device),
        config(cfg),
        backend(device, capacity, cfg.prefault),
        small_pool(true, &node_resource),
        large_pool(false, &node_resource),
        allocated_blocks(&node_resource) {
    allocated_blocks.reserve(1024);
    stats.max_split_size = config.max_split_size == std::numeric_limits<size_t>::max()
                               ? -1
                               : static_cast<int64_t>(config.max_split_size);
  }

  ~Impl() {
    for (auto& [base, seg] : segments) {
      if (seg->expandable) {
        backend.Release(seg->base, seg->size, seg->mapped);
      } else {
        backend.Unmap(seg->base, seg->size);
      }
      for (Block* b = seg->head; b != nullptr;) {
        Block* next = b->next;
        delete b;
        b = next;
      }
    }
    for (Block* b : spare_blocks) delete b;
  }

  // ---- small helpers -------------------------------------------------------------------------

  Block* NewBlock() {
    if (spare_blocks.empty()) return new Block();
    Block* b = spare_blocks.back();
    spare_blocks.pop_back();
    return b;
  }

  void DeleteBlock(Block* b) {
    *b = Block();
    spare_blocks.push_back(b);
  }

  void Inc(StatArray& a, const BlockPool* pool, int64_t amount) {
    a[kAggregate].Increase(amount);
    a[pool->is_small ? kSmallPool : kLargePool].Increase(amount);
  }
  void Dec(StatArray& a, const BlockPool* pool, int64_t amount) {
    a[kAggregate].Decrease(amount);
    a[pool->is_small ? kSmallPool : kLargePool].Decrease(amount);
  }

  size_t AllowedMaximum() const {
    const double allowed = static_cast<double>(backend.capacity()) * memory_fraction;
    return static_cast<size_t>(allowed);
  }
  bool GcEnabled() const { return config.garbage_collection_threshold > 0.0; }

  void Trace(TraceEntry::Action action, const void* addr, size_t size, StreamId stream,
             const std::source_location* where = nullptr, size_t device_free = 0) {
    if (action != TraceEntry::kAlloc && action != TraceEntry::kFreeRequested &&
        action != TraceEntry::kFreeCompleted) {
      AICORE_LOG(kDebug) << "device " << device << " allocator: " << TraceActionName(action) << " "
                         << size << " bytes at " << addr << " on stream " << stream
                         << (action == TraceEntry::kOom
                                 ? StrCat(" (", device_free, " bytes free on the device)")
                                 : std::string())
                         << "; reserved " << stats.reserved_bytes[kAggregate].current
                         << " bytes in " << stats.segment[kAggregate].current << " segments";
    }
    if (!recording) return;
    TraceEntry e;
    e.action = action;
    e.addr = reinterpret_cast<uintptr_t>(addr);
    e.size = size;
    e.stream = stream;
    e.time_us = NowMicros();
    e.device_free = device_free;
    if (where != nullptr) {
      e.where = *where;
      e.has_where = true;
    }
    trace.push_back(e);
    while (trace.size() > max_entries) trace.pop_front();
  }

  [[noreturn]] void FailNotLive(const void* ptr, const char* api) const {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), api, "(", ptr,
         "): not a live block of the caching allocator of device ", device,
         " (already freed, or never returned by Malloc)");
  }

  Block* FindAllocated(const void* ptr, const char* api) const {
    auto it = allocated_blocks.find(ptr);
    if (it == allocated_blocks.end()) FailNotLive(ptr, api);
    return it->second;
  }

  // ---- malloc ------------------------------------------------------------------------------

  void* Malloc(size_t size, StreamId stream, std::source_location where) {
    std::lock_guard<std::recursive_mutex> lock(mu);
    if (pending_events > 0) ProcessEvents();
    AllocParams p;
    p.requested = size;
    p.stream = stream;
    p.where = where;
    if (size > kMaxRequest) ThrowOom(p);
    p.size = RoundSize(size, config);
    p.pool = p.size <= kSmallSize ? &small_pool : &large_pool;
    p.alloc_size = SegmentSizeFor(p.size);
    bool found = GetFreeBlock(p) || (TriggerFreeMemoryCallbacks() && GetFreeBlock(p));
    if (!found) {
      if (GcEnabled()) GarbageCollect();
      found = AllocBlock(p, false) || (ReleaseAvailableCachedBlocks(p) && AllocBlock(p, false)) ||
              (ReleaseCachedBlocks() && AllocBlock(p, true));
    }
    if (!found) ThrowOom(p);
    return AllocFoundBlock(p);
  }

  [[noreturn]] void ThrowOom(const AllocParams& p) {
    ++stats.num_ooms;
    const size_t capacity = backend.capacity();
    const size_t device_free = capacity > backend.used() ? capacity - backend.used() : 0;
    Trace(TraceEntry::kOom, nullptr, p.requested, p.stream, &p.where, device_free);
    const size_t allocated = static_cast<size_t>(stats.allocated_bytes[kAggregate].current);
    const size_t reserved = static_cast<size_t>(stats.reserved_bytes[kAggregate].current);
    std::string limit;
    if (memory_fraction < 1.0) {
      limit = StrCat(" The allowed maximum (memory fraction ", memory_fraction, ") is ",
                     FormatSize(AllowedMaximum()), ".");
    }
    throw OutOfMemoryError(Status(
        StatusCode::kResourceExhausted,
        StrCat("Device out of memory. Tried to allocate ", FormatSize(p.requested), ". Device ",
               device, " has a total capacity of ", FormatSize(capacity), " of which ",
               FormatSize(device_free), " is free.", limit, " Of the allocated memory ",
               FormatSize(allocated), " is allocated by the caching allocator, and ",
               FormatSize(reserved - allocated),
               " is reserved by the caching allocator but unallocated. If reserved but "
               "unallocated memory is large try setting "
               "AICORE_ALLOC_CONF=expandable_segments:True to avoid fragmentation."),
        p.where));
  }

  bool GetFreeBlock(AllocParams& p) {
    BlockPool& pool = *p.pool;
    if (GcEnabled()) ++pool.get_free_block_calls;
    Block key;
    key.stream = p.stream;
    key.size = p.size;
    auto it = pool.blocks.lower_bound(&key);
    if (it == pool.blocks.end() || (*it)->stream != p.stream) return false;
    const size_t max_split = config.max_split_size;
    // Small requests never take an oversize block; oversize requests take one only if it is
    // not much larger (PyTorch's max_non_split_rounding_size).
    if (p.size < max_split && (*it)->size >= max_split) return false;
    if (p.size >= max_split && (*it)->size >= p.size + config.max_non_split_rounding_size) {
      return false;
    }
    p.block = *it;
    pool.blocks.erase(it);
    return true;
  }

  bool TriggerFreeMemoryCallbacks() {
    bool freed = false;
    for (auto& callback : free_memory_callbacks) freed |= callback();
    return freed;
  }

  bool AllocBlock(AllocParams& p, bool is_retry) {
    if (is_retry) ++stats.num_alloc_retries;
    if (config.expandable_segments) return TryAllocateExpandable(p);
    const size_t size = p.alloc_size;
    if (reserved_total + size > AllowedMaximum()) return false;
    char* ptr = static_cast<char*>(backend.Map(size));
    if (ptr == nullptr) return false;
    auto seg = std::make_unique<Segment>();
    seg->base = ptr;
    seg->size = size;
    seg->stream = p.stream;
    seg->pool = p.pool;
    seg->mapped = size;
    Block* b = NewBlock();
    b->ptr = ptr;
    b->size = size;
    b->stream = p.stream;
    b->pool = p.pool;
    b->segment = seg.get();
    seg->head = b;
    segments.emplace(ptr, std::move(seg));
    reserved_total += size;
    Inc(stats.segment, p.pool, 1);
    Inc(stats.reserved_bytes, p.pool, static_cast<int64_t>(size));
    if (size >= config.max_split_size) stats.oversize_segments.Increase(1);
    ++stats.num_device_alloc;
    Trace(TraceEntry::kSegmentAlloc, ptr, size, p.stream, &p.where);
    p.block = b;
    return true;
  }

  Segment* ExpandableSegmentFor(StreamId stream, BlockPool* pool, size_t min_size) {
    const auto key = std::make_pair(stream, pool->is_small);
    auto it = expandable.find(key);
    if (it != expandable.end()) return it->second;
    // Address space only, no memory behind it. PyTorch reserves 1.125x the device; we take 4x so
    // that holes left by released pages never stop growth while the capacity still allows it.
    const size_t reserve = RoundUp(std::max(backend.capacity() * 4, min_size), kExpandablePageSize);
    char* base = static_cast<char*>(backend.Reserve(reserve));
    if (base == nullptr) return nullptr;
    auto seg = std::make_unique<Segment>();
    seg->base = base;
    seg->size = reserve;
    seg->stream = stream;
    seg->pool = pool;
    seg->expandable = true;
    Block* b = NewBlock();
    b->ptr = base;
    b->size = reserve;
    b->stream = stream;
    b->pool = pool;
    b->segment = seg.get();
    b->mapped = false;
    seg->head = b;
    Segment* raw = seg.get();
    segments.emplace(base, std::move(seg));
    expandable.emplace(key, raw);
    Inc(stats.segment, pool, 1);
    return raw;
  }

  bool TryAllocateExpandable(AllocParams& p) {
    Segment* seg = ExpandableSegmentFor(p.stream, p.pool, p.size);
    if (seg == nullptr) return false;
    // The lowest hole that, together with a free block right before it, holds the request.
    for (Block* b = seg->head; b != nullptr; b = b->next) {
      if (b->mapped) continue;
      Block* before = (b->prev != nullptr && b->prev->IsFreeMapped()) ? b->prev : nullptr;
      const size_t have = before != nullptr ? before->size : 0;
      if (have + b->size < p.size) continue;
      const size_t need = have >= p.size ? 0 : RoundUp(p.size - have, kExpandablePageSize);
      if (need > 0) {
        if (reserved_total + need > AllowedMaximum()) return false;
        if (!backend.Commit(b->ptr, need)) return false;
        if (need < b->size) {
          Block* rest = NewBlock();
          rest->ptr = b->ptr + need;
          rest->size = b->size - need;
          rest->stream = b->stream;
          rest->pool = b->pool;
          rest->segment = seg;
          rest->mapped = false;
          rest->prev = b;
          rest->next = b->next;
          if (b->next != nullptr) b->next->prev = rest;
          b->next = rest;
          b->size = need;
        }
        b->mapped = true;
        seg->mapped += need;
        reserved_total += need;
        Inc(stats.reserved_bytes, p.pool, static_cast<int64_t>(need));
        ++stats.num_device_alloc;
        Trace(TraceEntry::kSegmentMap, b->ptr, need, p.stream, &p.where);
        TryMerge(b, b->next);
        TryMerge(b, before);
        p.block = b;
      } else {
        p.pool->blocks.erase(before);
        p.block = before;
      }
      return true;
    }
    return false;
  }

  bool ShouldSplit(const Block* block, size_t size) const {
    const size_t remaining = block->size - size;
    if (block->pool->is_small || block->segment->expandable) return remaining >= kMinBlockSize;
    return remaining > kSmallSize && size < config.max_split_size;
  }

  void* AllocFoundBlock(AllocParams& p) {
    Block* block = p.block;
    BlockPool* pool = p.pool;
    const bool counts_split = !block->segment->expandable;
    const bool already_split = block->IsSplit();
    if (ShouldSplit(block, p.size)) {
      Block* rest = NewBlock();
      rest->ptr = block->ptr + p.size;
      rest->size = block->size - p.size;
      rest->stream = block->stream;
      rest->pool = pool;
      rest->segment = block->segment;
      rest->prev = block;
      rest->next = block->next;
      if (block->next != nullptr) block->next->prev = rest;
      block->next = rest;
      block->size = p.size;
      rest->gc_base = pool->get_free_block_calls;
      pool->blocks.insert(rest);
      if (counts_split) {
        if (already_split) {
          // A free split block shrinks by the part handed out.
          Dec(stats.inactive_split_bytes, pool, static_cast<int64_t>(block->size));
        } else {
          // A whole segment becomes split: its rest is a new inactive split block.
          Inc(stats.inactive_split_bytes, pool, static_cast<int64_t>(rest->size));
          Inc(stats.inactive_split, pool, 1);
        }
      }
    } else if (already_split && counts_split) {
      Dec(stats.inactive_split_bytes, pool, static_cast<int64_t>(block->size));
      Dec(stats.inactive_split, pool, 1);
    }
    block->allocated = true;
    block->requested_size = p.requested;
    block->has_where = recording;
    if (recording) block->where = p.where;
    allocated_blocks.emplace(block->ptr, block);
    const auto size = static_cast<int64_t>(block->size);
    Inc(stats.allocation, pool, 1);
    Inc(stats.allocated_bytes, pool, size);
    Inc(stats.active, pool, 1);
    Inc(stats.active_bytes, pool, size);
    Inc(stats.requested_bytes, pool, static_cast<int64_t>(p.requested));
    if (block->size >= config.max_split_size) stats.oversize_allocations.Increase(1);
    Trace(TraceEntry::kAlloc, block->ptr, block->size, block->stream, &p.where);
    return block->ptr;
  }

  // ---- free --------------------------------------------------------------------------------

  void Free(void* ptr) {
    std::lock_guard<std::recursive_mutex> lock(mu);
    auto it = allocated_blocks.find(ptr);
    if (it == allocated_blocks.end()) FailNotLive(ptr, "Free");
    Block* block = it->second;
    allocated_blocks.erase(it);
    block->allocated = false;
    const auto size = static_cast<int64_t>(block->size);
    Dec(stats.allocation, block->pool, 1);
    Dec(stats.allocated_bytes, block->pool, size);
    if (block->size >= config.max_split_size) stats.oversize_allocations.Decrease(1);
    Trace(TraceEntry::kFreeRequested, block->ptr, block->size, block->stream);
    if (!block->stream_uses.empty() && completion != nullptr) {
      InsertEvents(block);
    } else {
      block->stream_uses.clear();
      FreeBlock(block);
    }
  }

  void InsertEvents(Block* block) {
    for (StreamId s : block->stream_uses) {
      const uint64_t marker = completion->Record(s);
      ++block->event_count;
      events[s].emplace_back(marker, block);
      ++pending_events;
    }
    block->stream_uses.clear();
  }

  void ProcessEvents() {
    for (auto& [stream, queue] : events) {
      while (!queue.empty()) {
        auto [marker, block] = queue.front();
        if (!completion->Query(stream, marker)) break;
        queue.pop_front();
        --pending_events;
        if (--block->event_count == 0) FreeBlock(block);
      }
    }
  }

  void SynchronizeAndFreeEvents() {
    if (pending_events == 0) return;
    ++stats.num_sync_all_streams;
    for (auto& [stream, queue] : events) {
      while (!queue.empty()) {
        auto [marker, block] = queue.front();
        completion->Wait(stream, marker);
        queue.pop_front();
        --pending_events;
        if (--block->event_count == 0) FreeBlock(block);
      }
    }
  }

  // Merges free neighbour `src` into `dst` if both are free with the same mapped state; returns
  // the bytes absorbed (0 if no merge).
  size_t TryMerge(Block* dst, Block* src) {
    if (src == nullptr || src->allocated || src->event_count > 0 || !src->stream_uses.empty() ||
        src->mapped != dst->mapped) {
      return 0;
    }
    if (src->mapped) src->pool->blocks.erase(src);
    if (dst->prev == src) {
      dst->ptr = src->ptr;
      dst->prev = src->prev;
      if (dst->prev != nullptr) dst->prev->next = dst;
      if (dst->segment->head == src) dst->segment->head = dst;
    } else {
      dst->next = src->next;
      if (dst->next != nullptr) dst->next->prev = dst;
    }
    const size_t absorbed = src->size;
    dst->size += absorbed;
    DeleteBlock(src);
    return absorbed;
  }

  void FreeBlock(Block* block) {
    BlockPool* pool = block->pool;
    char* const original_ptr = block->ptr;
    const size_t original_size = block->size;
    const size_t requested = block->requested_size;
    int64_t net_blocks = 0;
    int64_t net_bytes = 0;
    for (Block* candidate : {block->prev, block->next}) {
      const size_t absorbed = TryMerge(block, candidate);
      if (absorbed > 0) {
        --net_blocks;
        net_bytes -= static_cast<int64_t>(absorbed);
      }
    }
    block->requested_size = 0;
    block->has_where = false;
    block->gc_base = pool->get_free_block_calls;
    pool->blocks.insert(block);
    if (block->IsSplit()) {
      ++net_blocks;
      net_bytes += static_cast<int64_t>(block->size);
    }
    // Expandable segments are left out of inactive_split: their free pages can always be
    // released.
    if (!block->segment->expandable) {
      if (net_blocks > 0) Inc(stats.inactive_split, pool, net_blocks);
      if (net_blocks < 0) Dec(stats.inactive_split, pool, -net_blocks);
      if (net_bytes > 0) Inc(stats.inactive_split_bytes, pool, net_bytes);
      if (net_bytes < 0) Dec(stats.inactive_split_bytes, pool, -net_bytes);
    }
    Dec(stats.active, pool, 1);
    Dec(stats.active_bytes, pool, static_cast<int64_t>(original_size));
    Dec(stats.requested_bytes, pool, static_cast<int64_t>(requested));
    Trace(TraceEntry::kFreeCompleted, original_ptr, original_size, block->stream);
  }

  // ---- returning memory ----------------------------------------------------------------------

  // Waits for the work that may still use freed memory, before memory goes back to the device
  // (Note [Stream-ordered frees]).
  void WaitForQueuedWork() {
    if (completion != nullptr) completion->WaitAll();
  }

  // Returns the whole segment of free, unsplit, non-expandable `block` to the device.
  void ReleaseBlock(Block* block) {
    Segment* seg = block->segment;
    BlockPool* pool = block->pool;
    WaitForQueuedWork();
    pool->blocks.erase(block);
    backend.Unmap(seg->base, seg->size);
    reserved_total -= seg->size;
    Dec(stats.segment, pool, 1);
    Dec(stats.reserved_bytes, pool, static_cast<int64_t>(seg->size));
    if (seg->size >= config.max_split_size) stats.oversize_segments.Decrease(1);
    ++stats.num_device_free;
    Trace(TraceEntry::kSegmentFree, seg->base, seg->size, seg->stream);
    DeleteBlock(block);
    segments.erase(seg->base);
  }

  static bool Releasable(const Block* b) { return !b->IsSplit() && !b->segment->expandable; }

  void GarbageCollect() {
    const auto threshold =
        static_cast<size_t>(config.garbage_collection_threshold * AllowedMaximum());
    if (reserved_total <= threshold) return;
    if (pending_events > 0) ProcessEvents();
    const size_t target = reserved_total - threshold;
    const uint64_t now = large_pool.get_free_block_calls;
    uint64_t total_age = 0;
    size_t freeable = 0;
    for (const Block* b : large_pool.blocks) {
      if (Releasable(b)) {
        total_age += now - b->gc_base;
        ++freeable;
      }
    }
    size_t reclaimed = 0;
    bool freed_one = true;
    while (reclaimed < target && freed_one && freeable > 0) {
      // Free the blocks at or above the average age first, all of them in one sweep.
      const double age_threshold = static_cast<double>(total_age) / freeable;
      freed_one = false;
      for (auto it = large_pool.blocks.begin(); it != large_pool.blocks.end();) {
        Block* b = *it;
        ++it;
        const uint64_t age = now - b->gc_base;
        if (Releasable(b) && static_cast<double>(age) >= age_threshold) {
          freed_one = true;
          reclaimed += b->size;
          total_age -= age;
          --freeable;
          ReleaseBlock(b);
        }
      }
    }
  }

  bool ReleaseAvailableCachedBlocks(const AllocParams& p) {
    const size_t max_split = config.max_split_size;
    if (max_split == std::numeric_limits<size_t>::max()) return false;
    BlockPool& pool = *p.pool;
    Block key;
    key.stream = p.stream;
    key.size = std::max(p.size, max_split);
    auto it = pool.blocks.lower_bound(&key);
    if (it != pool.blocks.end() && (*it)->stream == p.stream && Releasable(*it)) {
      ReleaseBlock(*it);
      return true;
    }
    // No single block is large enough: free oversize blocks of the stream, largest first.
    if (it == pool.blocks.begin()) return false;
    --it;
    size_t released = 0;
    while (released < key.size && (*it)->size >= max_split && (*it)->stream == p.stream) {
      Block* current = *it;
      const bool first = it == pool.blocks.begin();
      if (!first) --it;
      if (Releasable(current)) {
        released += current->size;
        ReleaseBlock(current);
      }
      if (first) break;
    }
    return released >= key.size;
  }

  bool ReleaseCachedBlocks() {
    SynchronizeAndFreeEvents();
    for (BlockPool* pool : {&large_pool, &small_pool}) {
      for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
        Block* b = *it;
        ++it;
        if (Releasable(b)) ReleaseBlock(b);
      }
    }
    ReleaseExpandablePages();
    return true;
  }

  void ReleaseExpandablePages() {
    for (auto it = expandable.begin(); it != expandable.end();) {
      Segment* seg = it->second;
      for (Block* b = seg->head; b != nullptr;) {
        if (!b->IsFreeMapped()) {
          b = b->next;
          continue;
        }
        const size_t offset = static_cast<size_t>(b->ptr - seg->base);
        char* const start = seg->base + RoundUp(offset, kExpandablePageSize);
        char* const end =
            seg->base + (offset + b->size) / kExpandablePageSize * kExpandablePageSize;
        if (end <= start) {
          b = b->next;
          continue;
        }
        Unmap(seg, b, start, end);
        b = b->next;
      }
      if (seg->mapped == 0) {
        // Everything is unmapped and merged into one block: give the address space back.
        Block* only = seg->head;
        backend.Release(seg->base, seg->size, 0);
        Dec(stats.segment, seg->pool, 1);
        DeleteBlock(only);
        segments.erase(seg->base);
        it = expandable.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Releases the pages [start, end) inside free block `b` of expandable `seg`; `b` becomes the
  // unmapped middle (merged with unmapped neighbours), with mapped free head/tail blocks around.
  void Unmap(Segment* seg, Block* b, char* start, char* end) {
    WaitForQueuedWork();
    BlockPool* pool = b->pool;
    pool->blocks.erase(b);
    char* const b_end = b->ptr + b->size;
    if (start > b->ptr) {
      Block* head = NewBlock();
      head->ptr = b->ptr;
      head->size = static_cast<size_t>(start - b->ptr);
      head->stream = b->stream;
      head->pool = pool;
      head->segment = seg;
      head->prev = b->prev;
      head->next = b;
      if (b->prev != nullptr) b->prev->next = head;
      b->prev = head;
      if (seg->head == b) seg->head = head;
      head->gc_base = b->gc_base;
      pool->blocks.insert(head);
    }
    if (end < b_end) {
      Block* tail = NewBlock();
      tail->ptr = end;
      tail->size = static_cast<size_t>(b_end - end);
      tail->stream = b->stream;
      tail->pool = pool;
      tail->segment = seg;
      tail->prev = b;
      tail->next = b->next;
      if (b->next != nullptr) b->next->prev = tail;
      b->next = tail;
      tail->gc_base = b->gc_base;
      pool->blocks.insert(tail);
    }
    b->ptr = start;
    b->size = static_cast<size_t>(end - start);
    b->mapped = false;
    backend.Decommit(start, b->size);
    seg->mapped -= b->size;
    reserved_total -= b->size;
    Dec(stats.reserved_bytes, pool, static_cast<int64_t>(b->size));
    ++stats.num_device_free;
    Trace(TraceEntry::kSegmentUnmap, start, b->size, seg->stream);
    TryMerge(b, b->prev);
    TryMerge(b, b->next);
  }

  // ---- introspection -----------------------------------------------------------------------

  MemorySnapshot Snapshot() const {
    std::lock_guard<std::recursive_mutex> lock(mu);
    MemorySnapshot snap;
    snap.config = config;
    snap.capacity = backend.capacity();
    for (const auto& [base, seg] : segments) {
      SegmentSnapshot* out = nullptr;
      for (const Block* b = seg->head; b != nullptr; b = b->next) {
        if (!b->mapped) {
          out = nullptr;  // an expandable segment shows one segment per mapped run
          continue;
        }
        if (out == nullptr) {
          out = &snap.segments.emplace_back();
          out->device = device;
          out->address = reinterpret_cast<uintptr_t>(b->ptr);
          out->stream = seg->stream;
          out->is_large = !seg->pool->is_small;
          out->is_expandable = seg->expandable;
        }
        BlockSnapshot& block = out->blocks.emplace_back();
        block.address = reinterpret_cast<uintptr_t>(b->ptr);
        block.size = b->size;
        block.requested_size = b->requested_size;
        block.state = b->allocated         ? "active_allocated"
                      : b->event_count > 0 ? "active_pending_free"
                                           : "inactive";
        block.where = b->where;
        block.has_where = b->has_where;
        out->total_size += b->size;
        if (b->allocated) out->allocated_size += b->size;
        if (b->allocated || b->event_count > 0) {
          out->active_size += b->size;
          out->requested_size += b->requested_size;
        }
      }
    }
    snap.device_traces.resize(static_cast<size_t>(device) + 1);
    snap.device_traces[device].assign(trace.begin(), trace.end());
    return snap;
  }

  Status CheckInvariants() const {
    std::lock_guard<std::recursive_mutex> lock(mu);
    auto bad = [](auto&&... parts) {
      return Status(StatusCode::kInternal, StrCat("allocator invariant: ", parts...));
    };
    struct PoolTotals {
      int64_t allocation = 0, allocated_bytes = 0, active = 0, active_bytes = 0, requested = 0;
      int64_t inactive_split = 0, inactive_split_bytes = 0, segments = 0, reserved = 0;
      size_t free_blocks = 0;
    };
    std::array<PoolTotals, 2> totals;  // [0] small, [1] large
    size_t allocated_count = 0;
    size_t reserved = 0;
    int64_t pending_blocks_markers = 0;
    for (const auto& [base, seg] : segments) {
      PoolTotals& t = totals[seg->pool->is_small ? 0 : 1];
      ++t.segments;
      size_t covered = 0;
      size_t mapped = 0;
      const Block* prev = nullptr;
      if (seg->head == nullptr || seg->head->ptr != seg->base || seg->head->prev != nullptr) {
        return bad("segment ", static_cast<void*>(seg->base), " has a bad head block");
      }
      for (const Block* b = seg->head; b != nullptr; prev = b, b = b->next) {
        if (b->prev != prev) return bad("broken prev link at ", static_cast<void*>(b->ptr));
        if (prev != nullptr && prev->ptr + prev->size != b->ptr) {
          return bad("blocks not contiguous at ", static_cast<void*>(b->ptr));
        }
        if (b->segment != seg.get() || b->pool != seg->pool || b->stream != seg->stream) {
          return bad("block ", static_cast<void*>(b->ptr), " disagrees with its segment");
        }
        if (b->size == 0 || b->size % kMinBlockSize != 0) {
          return bad("block size ", b->size, " is not a positive multiple of 512");
        }
        covered += b->size;
        if (!b->mapped) {
          if (!seg->expandable) return bad("unmapped block in a fixed segment");
          if (b->allocated || b->event_count > 0) return bad("unmapped block in use");
          if (prev != nullptr && !prev->mapped) return bad("adjacent unmapped blocks not merged");
          continue;
        }
        mapped += b->size;
        const bool in_pool = seg->pool->blocks.count(const_cast<Block*>(b)) != 0;
        if (b->allocated) {
          ++allocated_count;
          auto it = allocated_blocks.find(b->ptr);
          if (it == allocated_blocks.end() || it->second != b) {
            return bad("allocated block ", static_cast<void*>(b->ptr), " not in the live map");
          }
          if (in_pool) return bad("allocated block in the free pool");
          ++t.allocation;
          t.allocated_bytes += static_cast<int64_t>(b->size);
          ++t.active;
          t.active_bytes += static_cast<int64_t>(b->size);
          t.requested += static_cast<int64_t>(b->requested_size);
          if (b->requested_size > b->size) return bad("requested size exceeds block size");
        } else if (b->event_count > 0) {
          pending_blocks_markers += b->event_count;
          if (in_pool) return bad("block pending free is in the free pool");
          ++t.active;
          t.active_bytes += static_cast<int64_t>(b->size);
          t.requested += static_cast<int64_t>(b->requested_size);
        } else {
          if (!in_pool) return bad("free block ", static_cast<void*>(b->ptr), " not in its pool");
          ++t.free_blocks;
          if (prev != nullptr && prev->IsFreeMapped()) {
            return bad("free neighbours not merged at ", static_cast<void*>(b->ptr));
          }
          if (!seg->expandable && b->IsSplit()) {
            ++t.inactive_split;
            t.inactive_split_bytes += static_cast<int64_t>(b->size);
          }
        }
      }
      if (covered != seg->size) return bad("segment blocks cover ", covered, " of ", seg->size);
      if (mapped != seg->mapped) return bad("segment mapped ", mapped, " recorded ", seg->mapped);
      reserved += mapped;
      t.reserved += static_cast<int64_t>(mapped);
    }
    if (allocated_count != allocated_blocks.size()) return bad("live map has stale entries");
    if (reserved != reserved_total || reserved != backend.used()) {
      return bad("reserved ", reserved, " vs recorded ", reserved_total, " vs backend ",
                 backend.used());
    }
    size_t queued = 0;
    for (const auto& [stream, queue] : events) queued += queue.size();
    if (queued != pending_events || static_cast<int64_t>(queued) != pending_blocks_markers) {
      return bad("pending markers ", queued, " recorded ", pending_events);
    }
    const std::array<const BlockPool*, 2> pools = {&small_pool, &large_pool};
    for (int i = 0; i < 2; ++i) {
      const PoolTotals& t = totals[i];
      const int type = i == 0 ? kSmallPool : kLargePool;
      if (t.free_blocks != pools[i]->blocks.size()) return bad("pool holds foreign blocks");
      const std::pair<const char*, std::pair<int64_t, int64_t>> checks[] = {
          {"allocation", {t.allocation, stats.allocation[type].current}},
          {"allocated_bytes", {t.allocated_bytes, stats.allocated_bytes[type].current}},
          {"active", {t.active, stats.active[type].current}},
          {"active_bytes", {t.active_bytes, stats.active_bytes[type].current}},
          {"requested_bytes", {t.requested, stats.requested_bytes[type].current}},
          {"inactive_split", {t.inactive_split, stats.inactive_split[type].current}},
          {"inactive_split_bytes",
           {t.inactive_split_bytes, stats.inactive_split_bytes[type].current}},
          {"segment", {t.segments, stats.segment[type].current}},
          {"reserved_bytes", {t.reserved, stats.reserved_bytes[type].current}},
      };
      for (const auto& [name, values] : checks) {
        if (values.first != values.second) {
          return bad(name, ".", StatTypeName(type), ".current is ", values.second,
                     " but the blocks add up to ", values.first);
        }
      }
    }
    for (const StatArray* a :
         {&stats.allocation, &stats.segment, &stats.active, &stats.inactive_split,
          &stats.allocated_bytes, &stats.reserved_bytes, &stats.active_bytes,
          &stats.inactive_split_bytes, &stats.requested_bytes}) {
      if ((*a)[kAggregate].current != (*a)[kSmallPool].current + (*a)[kLargePool].current) {
        return bad("aggregate stat differs from small + large");
      }
    }
    return Status::Ok();
  }

  // ---- state ---------------------------------------------------------------------------------

  mutable std::recursive_mutex mu;
  const int device;
  const AllocatorConfig config;
  DeviceMemory backend;
  std::pmr::unsynchronized_pool_resource node_resource;
  BlockPool small_pool;
  BlockPool large_pool;
  std::pmr::unordered_map<const void*, Block*> allocated_blocks;
  std::map<char*, std::unique_ptr<Segment>> segments;
  std::map<std::pair<StreamId, bool>, Segment*> expandable;
  std::vector<Block*> spare_blocks;
  size_t reserved_total = 0;
  double memory_fraction = 1.0;
  DeviceStats stats;
  CompletionSource* completion = nullptr;
  std::map<StreamId, std::deque<std::pair<uint64_t, Block*>>> events;
  size_t pending_events = 0;
  std::vector<std::function<bool()>> free_memory_callbacks;
  bool recording = false;
  size_t max_entries = 0;
  std::deque<TraceEntry> trace;
};

CachingAllocator::CachingAllocator(int device, size_t capacity, AllocatorConfig config)
    : device_(device), impl_(std::make_unique<Impl>(device, capacity, config)) {}

CachingAllocator::~CachingAllocator() = default;

void* CachingAllocator::Malloc(size_t size, StreamId stream, std::source_location where) {
  if (size == 0) return nullptr;
  return impl_->Malloc(size, stream, where);
}

void CachingAllocator::Free(void* ptr) {
  if (ptr == nullptr) return;
  impl_->Free(ptr);
}

void CachingAllocator::RecordStream(void* ptr, StreamId stream) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  auto* block = impl_->FindAllocated(ptr, "RecordStream");
  if (stream == block->stream) return;
  auto& uses = block->stream_uses;
  if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
}

void CachingAllocator::EmptyCache() {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->ReleaseCachedBlocks();
}

void CachingAllocator::SetCompletionSource(CompletionSource* source) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  // Markers of the previous source mean nothing to the new one: settle them first.
  impl_->SynchronizeAndFreeEvents();
  impl_->completion = source;
}

void CachingAllocator::AddFreeMemoryCallback(std::function<bool()> callback) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->free_memory_callbacks.push_back(std::move(callback));
}

void CachingAllocator::SetMemoryFraction(double fraction) {
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "SetMemoryFraction(",
         fraction, "): the fraction must be in (0, 1]");
  }
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->memory_fraction = fraction;
}

void CachingAllocator::SetCapacity(size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->backend.set_capacity(bytes);
}

size_t CachingAllocator::capacity() const { return impl_->backend.capacity(); }

AllocatorConfig CachingAllocator::config() const { return impl_->config; }

bool CachingAllocator::Owns(const void* ptr) const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  return impl_->allocated_blocks.count(ptr) != 0;
}

bool CachingAllocator::ContainsRange(const void* ptr, size_t bytes) const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  const char* p = static_cast<const char*>(ptr);
  auto it = impl_->segments.upper_bound(const_cast<char*>(p));
  if (it == impl_->segments.begin()) return false;
  const Impl::Segment& seg = *std::prev(it)->second;
  if (p >= seg.base + seg.size) return false;
  for (const Impl::Block* b = seg.head; b != nullptr; b = b->next) {
    if (p < b->ptr + b->size) {
      return b->allocated && bytes <= static_cast<size_t>(b->ptr + b->size - p);
    }
  }
  return false;
}

size_t CachingAllocator::BlockSize(const void* ptr) const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  return impl_->FindAllocated(ptr, "BlockSize")->size;
}

DeviceStats CachingAllocator::GetStats() const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  return impl_->stats;
}

void CachingAllocator::ResetAccumulatedStats() {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->stats.ResetAccumulated();
}

void CachingAllocator::ResetPeakStats() {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->stats.ResetPeak();
}

MemorySnapshot CachingAllocator::Snapshot() const { return impl_->Snapshot(); }

void CachingAllocator::RecordHistory(bool enabled, size_t max_entries) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  impl_->recording = enabled && max_entries > 0;
  impl_->max_entries = max_entries;
  if (!impl_->recording) impl_->trace.clear();
  while (impl_->trace.size() > max_entries) impl_->trace.pop_front();
}

Status CachingAllocator::CheckInvariants() const { return impl_->CheckInvariants(); }

namespace {

constexpr int kMaxDevices = 64;

struct Registry {
  std::mutex mu;
  std::array<std::unique_ptr<CachingAllocator>, kMaxDevices> allocators;
  std::array<size_t, kMaxDevices> capacity{};
};

// Never destroyed: device memory must stay valid while static destructors run.
Registry& GetRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

void CheckDevice(int device, const char* api) {
  if (device < 0 || device >= kMaxDevices) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), api, "(", device,
         "): the device id must be in [0, ", kMaxDevices, ")");
  }
}

}  // namespace

CachingAllocator& GetDeviceAllocator(int device) {
  CheckDevice(device, "GetDeviceAllocator");
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& slot = r.allocators[device];
  if (slot == nullptr) {
    const size_t capacity = r.capacity[device] != 0 ? r.capacity[device] : DefaultDeviceCapacity();
    slot = std::make_unique<CachingAllocator>(device, capacity, AllocatorConfigFromEnv());
  }
  return *slot;
}

size_t LiveBlocksAllDevices() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  size_t live = 0;
  for (const auto& a : r.allocators) {
    if (a != nullptr) {
      live += static_cast<size_t>(a->GetStats().allocation[kAggregate].current);
    }
  }
  return live;
}

void SetDeviceMemoryCapacity(int device, size_t bytes) {
  CheckDevice(device, "SetDeviceMemoryCapacity");
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.capacity[device] = bytes;
  if (r.allocators[device] != nullptr) r.allocators[device]->SetCapacity(bytes);
}

}  // namespace aicore::memory
