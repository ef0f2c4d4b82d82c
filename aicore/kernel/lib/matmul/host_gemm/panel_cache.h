// A launch-wide cache of the packed GEMM's panels (Note [Packed panel cache]), so the blocks of a
// launch that multiply the same A rows or B columns pack them once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aicore::kernel::cube {

// Note [Packed panel cache]
// The 910B tiling gives each AIC its own singleCoreM x singleCoreN share of C, so at 1024^3 on
// 24 blocks every A row block is packed by the 6 blocks of its row and every B column block by
// the 4 of its column (at 128x4096x4096 all 24 blocks pack the same A): a quarter of the fused
// path's time on one thread. The packed GEMM (Note [Packed GEMM]) therefore asks this cache for
// each mc x kc block of A and kc x nc block of B it packs, when the job says other blocks read the
// same operand (GemmJob::cache_a/cache_b; the Matmul sets them when N > singleCoreN, resp.
// M > singleCoreM). An operand no other block reads is packed into the thread's scratch as
// before: at 128x4096x4096 caching each block's own B slice cost more (64 MiB of fresh memory
// written and read back) than it could save:
// - the key is what the packed bits depend on: the source address of the block's first element,
//   its rows, columns, row and column strides, the element type and the operand (A or B);
// - the first block to ask claims the entry and packs into it; others wait for it (a packer
//   never suspends its fiber while it holds a claim, and waits only for A entries while it holds
//   a B claim, so no wait can form a cycle); later askers use it as it is;
// - an entry watches the GM lines it was packed from (Note [GM copies]) and is stale once a write
//   over them is noted (DataCopy, Fixpipe, a fused Matmul's C, GlobalTensor's scalar stores), or
//   at a SyncAll or IBWait, or at the launch's end; writes elsewhere and cross-core flag waits
//   leave it valid, so the blocks of a mix kernel share it. Stale entries stay allocated (a
//   block may still read them) until the launch ends;
// - the memory is an arena of 8 MiB chunks, kept from launch to launch (a chunk that a launch
//   making entries did not use is freed when it ends; launches that make none, such as the
//   elementwise ops between two matmuls, free nothing), at most kPanelCacheBytes; past that,
//   blocks pack into their own scratch as without the cache;
// - the chunks are on ordinary pages, not advised MADV_HUGEPAGE as GM is (Note [Huge pages for
//   GM]): the tiles read packed panels in contiguous runs (a B panel is 48 KiB, an A block 128
//   KiB), so 2 MiB pages bought nothing measurable (fused 4096^3 epilogue, fp32, 1 thread: 1.24
//   vs 1.29 s, within the noise of a loaded host), while touching fresh 2 MiB pages cost 8-15 ms
//   each on the 2-vCPU VM the benchmarks run on (the balloon driver hands free huge pages back to
//   the hypervisor): 1-2 s for the 136 MiB a 4096^3 problem packs, all of it on the process's
//   first call; 4 KiB pages cost about 0.1 s there;
// - outside a launch, or when SetPanelCacheEnabled(false), nothing is cached.
// The cached bits are the bits the block would have packed itself, so results do not change.

// The most memory the cache holds (packed A and B of a 4096^3 fp32 problem take 128 MiB).
inline constexpr size_t kPanelCacheBytes = size_t{256} << 20;

// What a packed block was packed from (see Note [Packed panel cache]).
struct PanelKey {
  const void* src = nullptr;  // element (0, 0) of the block
  uint32_t rows = 0, cols = 0;
  int64_t rs = 0, cs = 0;  // element strides (elements of `type`)
  uint8_t operand = 0;     // 0: A, 1: B
  uint8_t type = 0;        // GemmIn
  uint8_t elem_bytes = 4;  // bytes per source element
  bool operator==(const PanelKey&) const = default;
};

// A packed block obtained from AcquirePanel: `data` holds the packed floats when `must_pack` is
// false; otherwise the holder packs them into `data` and calls Publish (or lets the destructor
// do it) so waiting blocks may read them. Move-only.
class PanelRef {
 public:
  PanelRef() = default;
  PanelRef(float* data, bool must_pack, void* entry) : data_(data), must_pack_(must_pack),
                                                        entry_(entry) {}
  PanelRef(PanelRef&& o) noexcept { *this = static_cast<PanelRef&&>(o); }
  PanelRef& operator=(PanelRef&& o) noexcept;
  PanelRef(const PanelRef&) = delete;
  PanelRef& operator=(const PanelRef&) = delete;
  ~PanelRef() { Publish(); }

  float* data() const { return data_; }
  bool must_pack() const { return must_pack_; }
  // Marks a claimed entry packed and wakes its waiters; no-op otherwise (and when called again).
  void Publish();

 private:
  float* data_ = nullptr;
  bool must_pack_ = false;
  void* entry_ = nullptr;  // the claimed cache entry, until published
};

// Returns the packed block for `key` (`floats` floats, 64-byte aligned): a valid cached one, a
// claim on a new entry, or, when the cache cannot serve (outside a launch, disabled, full),
// `scratch` to pack into. Waits while another block packs the same key.
PanelRef AcquirePanel(const PanelKey& key, size_t floats, float* scratch);

// Turns the cache on or off for later acquisitions (tests, benchmarks; on by default,
// AICORE_MATMUL_PANEL_CACHE=0 turns it off).
void SetPanelCacheEnabled(bool enabled);
bool PanelCacheEnabled();

// Counters of the cache since the process started, for tests and benchmarks.
struct PanelCacheStats {
  uint64_t hits = 0;      // acquisitions served from a packed entry (after waiting, if any)
  uint64_t claims = 0;    // entries created and packed by their first asker
  uint64_t waits = 0;     // acquisitions that waited for another block's packing
  uint64_t bypassed = 0;  // acquisitions in a launch that packed into scratch (disabled, full)
  uint64_t stale = 0;     // entries found but no longer valid (their source was written)
  size_t bytes_held = 0;  // arena bytes currently allocated
};
PanelCacheStats GetPanelCacheStats();

}  // namespace aicore::kernel::cube
