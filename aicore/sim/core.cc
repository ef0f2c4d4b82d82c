// Per-core context: local-memory arena, identity, observers, error formatting, differential mode.
//
// Note [Differential execution]
// On hardware the pipes run concurrently, so a kernel with a missing sync reads data too early or
// overwrites it too soon; in program order on the CPU it still computes the right numbers. In
// differential mode (AICORE_DIFFERENTIAL=<seed>, `aicore check --differential`) the data movement of
// the transfer pipes (MTE1, MTE2, MTE3, FIX) is deferred: each pipe keeps its work in program
// order, and runs it only when something waits on that pipe — WaitFlag on an event from it,
// PipeBarrier, DeQue from a queue it produces, AllocTensor on a buffer it consumes, SyncAll, or the
// end of the block — or, with a seeded coin flip, earlier. Every schedule produced is one the
// hardware may produce for a correctly synchronised kernel, so correct kernels give the same
// results; a missing MTE2->V flag makes the vector op read stale UB, a missing MTE3->V wait lets
// the vector op overwrite data before it is copied out, and the numbers come out wrong. Vector and
// scalar work runs at once (the vector pipe stays in order), so a missing V->MTE3 flag is found by
// racecheck, not by this mode.
#include "aicore/sim/core.h"
#include "aicore/sim/source_site.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "aicore/core/env.h"
#include "aicore/sim/page_pool.h"

thread_local constinit int64_t block_idx = 0;
thread_local constinit int64_t block_num = 0;

namespace aicore::sim {

namespace internal {
thread_local constinit Core* current_core = nullptr;

void FailNoCurrentCore() {
  Fail(StatusCode::kFailedPrecondition, std::source_location::current(),
       "an AscendC kernel API was called outside a kernel launch (no current core); launch the "
       "kernel with ICPU_RUN_KF or aicore::Launch");
}
}  // namespace internal

namespace {

std::atomic<uint64_t>& Seed() {
  static std::atomic<uint64_t> seed{[] {
    return static_cast<uint64_t>(env::Int("AICORE_DIFFERENTIAL", 0, 0, INT64_MAX));
  }()};
  return seed;
}

// Serials of cores; 0 is never handed out (a LocalTensor built outside a kernel carries 0).
std::atomic<uint32_t> g_next_serial{1};

bool CoreHas(CoreType type, const arch::Chip& chip, arch::Buffer b) {
  if (b == arch::Buffer::kGm || chip.spec(b).bytes == 0) return false;
  if (type == CoreType::kCoupled || !chip.split()) return true;
  return type == CoreType::kAiv ? b == arch::Buffer::kUb : b != arch::Buffer::kUb;
}
}  // namespace

const char* CoreTypeName(CoreType t) {
  switch (t) {
    case CoreType::kAiv: return "AIV";
    case CoreType::kAic: return "AIC";
    case CoreType::kCoupled: return "AICore";
  }
  return "?";
}

const char* KernelModeName(KernelMode m) {
  switch (m) {
    case KernelMode::kAiv: return "AIV only";
    case KernelMode::kAic: return "AIC only";
    case KernelMode::kMix: return "mix 1:2";
    case KernelMode::kMix1To1: return "mix 1:1";
  }
  return "?";
}

const char* PipeName(Pipe p) {
  static const char* const kNames[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
  return kNames[static_cast<int>(p)];
}

Core::Core(const arch::Chip& chip, std::string kernel_name, const CoreIdentity& id,
           const std::vector<Observer*>& observers, std::shared_ptr<uint8_t> group_ub)
    : chip_(&chip), kernel_name_(std::move(kernel_name)), id_(id),
      serial_(g_next_serial.fetch_add(1, std::memory_order_relaxed)), observers_(observers),
      observed_(!observers.empty()), group_ub_(std::move(group_ub)) {
  if (serial_ == 0) serial_ = g_next_serial.fetch_add(1, std::memory_order_relaxed);  // wrapped
  const uint64_t seed = Seed().load();
  deferring_ = seed != 0;
  rng_.seed(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(id.block_idx) * 4 +
            static_cast<uint64_t>(id.type));
  // One arena per core; each buffer starts 4 KiB-aligned so every documented alignment holds for
  // host addresses too.
  // An AIV of a 1:1 group on a fixpipe_to_ub chip takes its UB from the group (Note [L0C to UB]).
  const auto own = [&](arch::Buffer b) {
    return CoreHas(id.type, chip, b) && !(b == arch::Buffer::kUb && SharesUb());
  };
  size_t total = 0;
  for (int i = 0; i < arch::kBufferCount; ++i) {
    auto b = static_cast<arch::Buffer>(i);
    if (own(b)) total += (chip.spec(b).bytes + 4095) & ~size_t{4095};
  }
  if (total > 0) {
    arena_ = static_cast<uint8_t*>(AcquireMapping(total));
    arena_bytes_ = total;
  }
  size_t off = 0;
  if (SharesUb()) local_[static_cast<int>(arch::Buffer::kUb)] = group_ub_.get();
  for (int i = 0; i < arch::kBufferCount; ++i) {
    auto b = static_cast<arch::Buffer>(i);
    if (!own(b)) continue;
    local_[i] = arena_ + off;
    off += (chip.spec(b).bytes + 4095) & ~size_t{4095};
  }
}

Core::~Core() {
  if (!print_pending.empty()) {
    print_pending += '\n';
    std::fwrite(print_pending.data(), 1, print_pending.size(), stdout);
  }
  if (arena_ != nullptr) ReleaseMapping(arena_, arena_bytes_);
}

std::string Core::Name() const {
  return StrCat(CoreTypeName(id_.type), " ", id_.block_idx);
}

MemRef Core::Locate(const void* p, uint64_t bytes) const {
  auto addr = reinterpret_cast<uintptr_t>(p);
  for (int i = 0; i < arch::kBufferCount; ++i) {
    if (local_[i] == nullptr) continue;
    auto base = reinterpret_cast<uintptr_t>(local_[i]);
    if (addr >= base && addr < base + chip_->buffers[i].bytes) {
      return {static_cast<arch::Buffer>(i), addr - base, bytes};
    }
  }
  return {arch::Buffer::kGm, addr, bytes};
}

void Core::Notify(const Instr& instr) {
  for (Observer* o : observers_) o->OnInstr(*this, instr);
}

void Core::Defer(Pipe pipe, std::function<void()> work) {
  if (pipe == Pipe::kV || pipe == Pipe::kS || pipe == Pipe::kM) {
    work();  // compute pipes stay in program order (see the Note)
    return;
  }
  auto& q = deferred_[static_cast<int>(pipe)];
  q.push_back(std::move(work));
  if ((rng_() & 3) == 0) FlushDeferred(pipe);  // completing early is always a legal schedule
}

void Core::FlushDeferred(Pipe pipe) {
  for (int p = 0; p < kPipeCount; ++p) {
    if (pipe != Pipe::kAll && p != static_cast<int>(pipe)) continue;
    auto& q = deferred_[p];
    for (size_t i = 0; i < q.size(); ++i) q[i]();  // work never defers more work on its pipe
    q.clear();
  }
}

void SetDifferentialSeed(uint64_t seed) { Seed().store(seed); }
uint64_t DifferentialSeed() { return Seed().load(); }

void SetCurrentCore(Core* core) {
  internal::current_core = core;
  // See Note [Built-in block variables]: the raw values of the core now running on this thread.
  if (core != nullptr) {
    ::block_idx = core->id().group_idx;
    ::block_num = core->id().block_num / core->id().sub_block_num;
  } else {
    ::block_idx = 0;
    ::block_num = 0;
  }
}

std::string SourceSite(const std::source_location& loc) {
  const char* file = loc.file_name();
  const char* base = std::strrchr(file, '/');
  return StrCat(base ? base + 1 : file, ":", loc.line());
}

void KernelFailMessage(StatusCode code, const char* api, const std::source_location& loc,
                       const std::string& message) {
  Core* core = internal::current_core;
  const std::string where = SourceSite(loc);
  std::string who = core ? StrCat(core->kernel_name(), " ", core->Name(), ": ") : "";
  throw Error(Status(code, StrCat(who, api, ": ", message, " (at ", where, ")"), loc));
}

}  // namespace aicore::sim
