// The validity of host-side copies of GM that kernel-library code keeps across blocks of a launch
// (the packed panels of the Matmul's fused path): each copy watches the GM region it was made
// from and turns stale when a write over that region is noted. See Note [GM copies].
#pragma once

#include <atomic>
#include <cstdint>

namespace aicore::sim {

// Note [GM copies]
// A cache that keeps a transformed copy of GM bytes for other blocks of the same launch (Note
// [Packed panel cache]) may hand the copy out only while those bytes cannot have changed. Each
// copy registers the region it reads (WatchGmRegion) with a flag of its own; the flag is set,
// and the copy is stale, when:
// - kernel code writes GM over the region: DataCopy, DataCopyPad and Fixpipe to GM
//   (AtomicCopyBlocks), the fused Matmul's C and GlobalTensor's scalar stores (SetValue,
//   operator()) call NoteGmWrite. Only copies whose region the written bytes overlap go stale
//   (the region is lines of bytes at a pitch, so a write between a block's rows spares it); a
//   write elsewhere costs one relaxed load when nothing is watched, else a lookup in the union
//   of the watched regions;
// - at the phase barriers SyncAll (the last core to arrive) and IBWait (after the wait): what
//   another core wrote before them, even by a raw pointer store that no API sees, may be read
//   after them, so every copy made before is dropped;
// - at the beginning and the end of every launch (the host writes GM between launches), after
//   which the launch-end hooks (AddLaunchEndHook) free the copies.
// Cross-core flags (CrossCoreWaitFlag), queue waits and the Matmul client/server hand tiles from
// core to core dozens of times per block in a pipelined mix kernel; they end no copy, so the
// blocks of a mix kernel share their packed operands (Note [Matmul fused path]). What such a
// handoff passes through GM is written by the pipes or by GlobalTensor, both noted. A raw
// pointer store is not: data stored so, and then read by another core's Matmul after a flag
// wait only, in the launch that packed the old bytes, is read as it was packed (on hardware such
// a store sits in the scalar data cache, which is not coherent with GM, until a
// DataCacheCleanAndInvalid). Write such data with DataCopy or SetValue, or SyncAll before reading.

// The bytes a copy reads: `lines` runs of `line_bytes` bytes, `pitch` bytes apart, from `base`
// (one run when lines is 1; pitch >= line_bytes when lines > 1).
struct GmRegion {
  const void* base = nullptr;
  uint64_t lines = 1, line_bytes = 0, pitch = 0;
};

// Registers a copy of `region` that is about to be made: a later NoteGmWrite over the region, or
// any of the events of Note [GM copies], sets *stale (release order). *stale must be false and
// must stay alive until it is set or InvalidateGmCopies runs (the launch end does). Make the copy
// after this call. Thread-safe. An empty region is never written: nothing is registered.
void WatchGmRegion(const GmRegion& region, std::atomic<bool>* stale);
// Tells the copies that kernel code wrote the GM bytes [p, p + bytes): sets the flags of the
// watched regions it overlaps and forgets them. Thread-safe; cheap when nothing is watched.
void NoteGmWrite(const void* p, uint64_t bytes);
// The same for a strided write: the lines of `region` (a write between them ends no copy).
void NoteGmWrite(const GmRegion& region);
// Sets the flag of every watched region and forgets them all.
void InvalidateGmCopies();
// Returns how many regions are watched (tests).
uint64_t WatchedGmRegions();

// Registers `hook` to run after every later launch has ended (its blocks finished, before
// RunKernel returns, failed launches too), for caches of copies that must not outlive a launch.
// A hook must not throw. Thread-safe. Defined by the scheduler.
void AddLaunchEndHook(void (*hook)());

}  // namespace aicore::sim
