// The block scheduler: runs a launch's blocks as fibers on a pool of worker threads, so blockDim
// may exceed the host's cores; blocking operations (SyncAll, cross-core waits) suspend a block
// instead of a thread, and when every live block waits with none able to proceed the launch stops
// with a deadlock report naming each block and what it waits on.
#pragma once

#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <unordered_map>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"
#include "aicore/sim/core.h"

namespace aicore::sim {

struct LaunchSpec {
  std::string kernel_name;
  uint32_t block_dim = 1;           // AscendC numBlocks, in [1, 65535]
  KernelMode mode = KernelMode::kAiv;
  const arch::Chip* chip = nullptr; // nullptr: arch::DefaultChip()
  std::function<void()> body;       // the kernel call, run once per core
  // How the launch chose `mode`, e.g. "__vector__" or "__mix__(1, 2)" (<<<>>> launches); when set,
  // a failing launch's status ends with "(kernel type: <mode name>, from <launch_type>)".
  std::string launch_type;
};

// Runs every core of the launch to completion and returns the first error any block raised (its
// message names kernel, core, API and call site), or a Deadlock status. Launches are serialised.
Status RunKernel(const LaunchSpec& spec);

// Sets the number of worker threads (0: the default, AICORE_THREADS or one per host core); values
// above 1024 are clamped with a warning. Fewer run when the system refuses more threads.
void SetWorkerThreads(int threads);
// Returns the number of worker threads launches use.
int WorkerThreads();

// Fiber stack sizes in KiB SetFiberStackKiB and AICORE_STACK_KB accept.
inline constexpr size_t kMinStackKiB = 64;
inline constexpr size_t kMaxStackKiB = 256 << 10;
// Sets each block's stack size in KiB for later launches (0: the default, AICORE_STACK_KB or
// 1024). Throws aicore::Error (InvalidArgument) outside [kMinStackKiB, kMaxStackKiB]. A block that
// overflows its stack ends the process with "kernel stack overflow in <kernel> block N".
void SetFiberStackKiB(size_t kib);
// Returns the stack size in KiB launches give each block.
size_t FiberStackKiB();

// State shared by all cores of the running launch, for cross-core primitives. Read and write it
// only inside WithSchedulerLock or from a BlockUntil predicate.
struct LaunchShared {
  std::unordered_map<uint64_t, int64_t> counters;
  bool aborting = false;  // the launch is stopping on an error: start no new cross-core work
};

// Returns true inside a launch that is stopping on an error (LaunchShared::aborting), false
// outside a launch. A block that returns while its launch aborts (a server loop that saw the
// abort) did not run to its end: the sanitizer skips its end-of-block checks.
bool LaunchAborting();

// Runs `fn(shared)` under the scheduler lock, then wakes blocked blocks so they re-check.
void WithSchedulerLock(const std::function<void(LaunchShared&)>& fn);
// Suspends the calling block until `ready(shared)` holds (evaluated under the scheduler lock).
// `describe` explains the wait for deadlock reports. Throws if the launch is aborted meanwhile,
// but not while `hold(shared)` is true: a block whose stack another core is still using (a
// request being served) is cancelled only once that use has ended.
void BlockUntil(const std::function<bool(LaunchShared&)>& ready,
                const std::function<std::string(LaunchShared&)>& describe,
                const std::function<bool(LaunchShared&)>& hold = {});

// Blocks until every participating core of the launch has arrived: all AIVs (aiv_only) or all
// cores, or the first `participants` to arrive when it is > 0 (the software SyncAll's usedCores;
// InvalidArgument when it exceeds the cores that could take part). The AscendC SyncAll.
void SyncAllCores(bool aiv_only, const std::source_location& loc, int64_t participants = 0);

// Returns the number of cores of `type` in the running launch.
int64_t LaunchCoreCount(CoreType type);

}  // namespace aicore::sim
