// The validity of host-side copies of GM that kernel-library code keeps across blocks of a launch
// (the packed panels of the Matmul's fused path): one generation number that advances whenever
// the bytes such a copy was made from may have changed. See Note [GM copies].
#pragma once

#include <cstdint>

namespace aicore::sim {

// Note [GM copies]
// A cache that keeps a transformed copy of GM bytes for other blocks of the same launch (Note
// [Packed panel cache]) may hand the copy out only while those bytes cannot have changed. A copy
// made at generation g (the one WatchGmRange returned for its source) is valid while
// GmCopyGeneration() is still g. The generation advances:
// - when kernel code writes GM through a pipe over a watched range: DataCopy, DataCopyPad and
//   Fixpipe to GM (AtomicCopyBlocks) and the fused Matmul's C call NoteGmWrite; a write elsewhere
//   costs one relaxed load when nothing is watched;
// - at every cross-core synchronisation: a block returning from BlockUntil (SyncAll,
//   CrossCoreWaitFlag, the Matmul client/server, queue waits) and the last block arriving at a
//   SyncAll. What another core wrote before it signalled, even by a raw pointer store that no
//   API sees, may be read after the wait, so copies made before it are not trusted;
// - at the beginning and the end of every launch (the host writes GM between launches), after
//   which the launch-end hooks (AddLaunchEndHook) drop the copies.
// Scalar stores (GlobalTensor::SetValue, operator(), a raw pointer) are seen at the next
// synchronisation only: not when the storing block, with none in between, reads the same bytes
// through a copy made earlier in the launch (on hardware such a store reaches GM through the
// scalar data cache, which a DataCacheCleanAndInvalid must flush before the MTEs read it).

// Records that a copy of the GM bytes [p, p + bytes) is being made, so a later NoteGmWrite over
// them advances the generation, and returns the generation the copy belongs to (the range stays
// watched until that generation ends). Make the copy after this call.
uint64_t WatchGmRange(const void* p, uint64_t bytes);
// Tells the copies that kernel code wrote the GM bytes [p, p + bytes): advances the generation
// when they overlap a watched range. Thread-safe; cheap when nothing is watched.
void NoteGmWrite(const void* p, uint64_t bytes);
// Advances the generation unconditionally (and forgets the watched ranges).
void InvalidateGmCopies();
// Returns the current generation.
uint64_t GmCopyGeneration();

// Registers `hook` to run after every later launch has ended (its blocks finished, before
// RunKernel returns, failed launches too), for caches of copies that must not outlive a launch.
// A hook must not throw. Thread-safe. Defined by the scheduler.
void AddLaunchEndHook(void (*hook)());

}  // namespace aicore::sim
