// The sanitizer observer.
//
// Algorithm:
// - Per core, happens-before over the pipes with vector clocks. cnt[p] counts the memory
//   instructions issued on pipe p, and an access is stamped (p, cnt[p]). vc[p][q] is the newest
//   clock of pipe q known to have completed before pipe p's next instruction starts.
// - SetFlag(src -> dst) snapshots vc[src] with its own entry set to cnt[src] (the flag is raised
//   once every earlier src instruction finished); WaitFlag joins the snapshot into vc[dst], or
//   into every pipe when dst is S (the scalar unit stalls, so nothing later is issued before).
//   Queues are flags per buffer: EnQue/DeQue from the producer to the consumer pipe,
//   FreeTensor/AllocTensor back. PipeBarrier<p> sets vc[p][p] = cnt[p]; PIPE_ALL and SyncAll set
//   every vc[p][q] = cnt[q].
// - An earlier access (q, c) happens before the current access on p when vc[p][q] >= c. On one
//   pipe, S, V, M and FIX execute in order; the DMA pipes MTE1/MTE2/MTE3 need a PipeBarrier (or a
//   flag round trip) between overlapping transfers, as the AscendC docs require.
// - Shadow memory at 32-byte granularity (one UB DataBlock) for each local buffer and each GM page
//   a core touches: the last write and, per pipe, the reads since, each with its clock, call site
//   and a byte mask, so neighbouring transfers that share a granule are not confused.
// - Across cores, a shared GM shadow keeps per granule the last writing block and up to two
//   reading blocks, each stamped (block, pipe, cnt[pipe], SyncAll epochs). An earlier access of
//   another block is ordered before the current one when a SyncAll separates them (an epoch of
//   the cores both take part in differs) or when the current block knows its stamp through a
//   chain of cross-core flags; otherwise they are concurrent (WAW: overlapping GM write, RAW/WAR:
//   cross-core race). Atomic writes (SetAtomicAdd etc.) do not conflict with each other.
//   See Note [Cross-core happens-before].
// - The UB an AIC's Fixpipe writes on a fixpipe_to_ub chip (Note [L0C to UB] in sim/core.h) is
//   judged like GM: the AIC's write and every access of the AIV that owns the UB go to the shared
//   shadow, keyed by host address, so the AIV's reads need the AIC's cross-core flag and the
//   AIC's next write the AIV's; both cores forget the range when their block ends (the mapping
//   is reused by a later group).
// - initcheck keeps one "written" bit per local granule from block start; a read of a granule
//   never written is reported. Writes mark whole granules (DataCopy moves whole 32-byte blocks).
// - synccheck walks the flags and queue buffers still pending when a block ends normally.
// - Identical findings (kind, both call sites, buffer) merge into one report with a count.
#include "aicore/check/sanitizer.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "aicore/core/status.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/memory/caching_allocator.h"
#include "aicore/sim/core.h"
#include "aicore/sim/gm_registry.h"
#include "aicore/sim/scheduler.h"

namespace aicore::check {

namespace {

using sim::Pipe;
constexpr int kPipes = sim::kPipeCount;
constexpr uint64_t kGranuleBytes = 32;  // shadow granularity: one 32-byte UB DataBlock
constexpr uint64_t kPageBytes = 4096;   // GM shadow is allocated per touched 4 KiB page
constexpr uint64_t kGranulesPerPage = kPageBytes / kGranuleBytes;
constexpr int kShards = 64;             // locks over the shared GM shadow

using Clock = uint32_t;
using ClockVec = std::array<Clock, kPipes>;

int Idx(Pipe p) { return static_cast<int>(p); }

bool InOrderPipe(Pipe p) {
  return p == Pipe::kS || p == Pipe::kV || p == Pipe::kM || p == Pipe::kFix;
}

// Returns the bits of granule g's 32 bytes that [lo, hi) covers.
uint32_t MaskOf(uint64_t g, uint64_t lo, uint64_t hi) {
  const uint64_t base = g * kGranuleBytes;
  const uint64_t a = std::max(lo, base) - base;
  const uint64_t b = std::min(hi, base + kGranuleBytes) - base;
  const uint64_t width = b - a;
  const uint32_t ones = width >= 32 ? ~0u : ((1u << width) - 1u);
  return ones << a;
}

// Returns the first byte set in `mask`, and one past the last (mask != 0).
uint64_t LowByte(uint32_t mask) { return static_cast<uint64_t>(std::countr_zero(mask)); }
uint64_t HighByte(uint32_t mask) { return 32 - static_cast<uint64_t>(std::countl_zero(mask)); }

void Join(ClockVec& into, const ClockVec& from) {
  for (int i = 0; i < kPipes; ++i) into[i] = std::max(into[i], from[i]);
}

struct Access {
  Clock clock = 0;  // 0: none
  uint32_t site = 0;
  uint32_t mask = 0;
};

struct Granule {
  Access write;
  uint8_t write_pipe = 0;
  bool write_atomic = false;
  std::array<Access, kPipes> reads{};
};
using GmPage = std::array<Granule, kGranulesPerPage>;

// Note [Cross-core happens-before]
// Each block knows, per other block it has heard from, the newest clock of each of that block's
// pipes known complete (Knowledge: a small vector sorted by block; empty in launches of one core
// type that use no cross-core flags).
// - CrossCoreSetFlag on pipe p releases Snapshot(p) (the setter's pipes complete before p's next
//   instruction; S entries whole, as scalar instructions complete in place) joined with what the
//   setter knows. The sim records one set per target counter; the sets of one increment (modes
//   0 and 1, the AIVs' sets in mode 2, Instr::repeat of them) are gathered one per setter, as the
//   sim counts them (Note [Cross-core flags]), into one token of that counter; tokens queue in
//   order. Matmul messages (repeat 0, several senders, served in their own order) release
//   everything the sender issued into a join the receiver takes whole.
// - CrossCoreWaitFlag takes the oldest token of the caller's counter. Its record is issued before
//   the wait blocks, so the acquire is deferred to the block's next record: by then the sets that
//   released it have been recorded (a set is recorded before the counter grows). The acquire
//   orders every later access of the block (conservative for waits on a DMA pipe).
// - SyncAll: the block's epoch (every SyncAll) and full epoch (SyncAll<false>: every core of a
//   mix launch) advance; a block's earlier accesses are ordered before a block of the same type
//   in a later epoch, and before any block in a later full epoch. What the participants knew
//   (themselves included) is joined per barrier generation and acquired after it, so flag chains
//   continue through a SyncAll.
// Costs: a set or wait copies Knowledge (a few entries for AIC <-> AIV handoffs, one per block
// after a SyncAll of a mix launch); a GM access pays a lookup only when the granule's last access
// is another block's in the same epochs.
using Knowledge = std::vector<std::pair<int32_t, ClockVec>>;

// The first entry of `k` (sorted by block) whose block is not below `core`.
template <typename K>
auto LowerBound(K& k, int32_t core) {
  return std::lower_bound(k.begin(), k.end(), core,
                          [](const auto& e, int32_t c) { return e.first < c; });
}

void JoinKnowledge(Knowledge& into, const Knowledge& from) {
  for (const auto& [core, clock] : from) {
    auto it = LowerBound(into, core);
    if (it != into.end() && it->first == core) {
      Join(it->second, clock);
    } else {
      into.insert(it, {core, clock});
    }
  }
}

const ClockVec* FindKnown(const Knowledge& k, int32_t core) {
  auto it = LowerBound(k, core);
  return it != k.end() && it->first == core ? &it->second : nullptr;
}

// One target counter's releases (Note [Cross-core happens-before]).
struct FlagChannel {
  std::map<int32_t, std::deque<Knowledge>> arrivals;  // setter -> its sets not in a token yet
  std::deque<Knowledge> tokens;                       // increments not taken yet, oldest first
  Knowledge messages;                                 // join of every Matmul message
};

struct BlockAccess {
  int32_t core = -1;       // index of the block in the launch; -1: none
  uint32_t epoch = 0;      // SyncAll calls the block had passed
  uint32_t full_epoch = 0; // SyncAll<false> calls the block had passed
  Clock clock = 0;         // cnt[pipe] of the access
  uint32_t site = 0;
  uint32_t mask = 0;
  uint8_t pipe = 0;
  uint8_t type = 0;        // sim::CoreType of the block
};
struct SharedGranule {
  BlockAccess write;
  bool write_atomic = false;
  std::array<BlockAccess, 2> reads{};
};
using SharedPage = std::array<SharedGranule, kGranulesPerPage>;

struct SiteKey {
  const char* api;
  const char* file;
  uint32_t line;
  Pipe pipe;
  bool operator==(const SiteKey&) const = default;
};
struct SiteKeyHash {
  size_t operator()(const SiteKey& k) const {
    return std::hash<const void*>()(k.api) * 31 ^ std::hash<const void*>()(k.file) * 7 ^
           (size_t{k.line} << 8) ^ static_cast<size_t>(k.pipe);
  }
};

// A queue buffer's edges and state (Note [Queue state machine] in kernel/pipe/tpipe.h).
struct QueueSlot {
  ClockVec enqueued{};
  ClockVec freed{};
  bool has_freed = false;
  const char* state = "free";
  uint32_t alloc_site = 0;
  arch::Buffer buffer = arch::Buffer::kNone;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct PendingFlag {
  ClockVec snapshot{};
  uint32_t site = 0;
  bool set = false;
};

// One finding of the current instruction, merged over granules before it becomes a report.
struct Finding {
  DefectKind kind;
  uint32_t prev_site;
  int32_t prev_core;
  arch::Buffer buffer;
  uint64_t lo;
  uint64_t hi;
  std::string detail;
};

// A cross-core acquire waiting for the block's next record (Note [Cross-core happens-before]).
enum class PendingAcquire : uint8_t { kNone, kFlag, kSyncAll };

struct CoreState {
  sim::Core* core = nullptr;
  int32_t index = 0;
  uint8_t type = 0;  // sim::CoreType
  uint32_t epoch = 0;
  uint32_t full_epoch = 0;
  Knowledge known;                           // what this block knows of the others
  PendingAcquire pending = PendingAcquire::kNone;
  int32_t pending_key = 0;                   // kFlag: the counter; kSyncAll: the barrier kind
  uint32_t pending_gen = 0;                  // kSyncAll: the generation
  std::array<uint32_t, 2> syncalls{};        // SyncAlls passed, per kind (0 full, 1 AIV-only)
  ClockVec cnt{};
  std::array<ClockVec, kPipes> vc{};
  std::unordered_map<uint32_t, PendingFlag> flags;  // key: (src * 8 + dst) * 64 + id
  std::map<uint64_t, QueueSlot> slots;              // key: buffer << 48 | offset
  std::array<std::vector<Granule>, arch::kBufferCount> local;
  std::array<std::vector<uint8_t>, arch::kBufferCount> written;
  std::unordered_map<uint64_t, std::unique_ptr<GmPage>> gm;
  std::unordered_map<SiteKey, uint32_t, SiteKeyHash> site_cache;
  std::vector<Finding> findings;
};

struct ReportKey {
  DefectKind kind;
  uint32_t site;
  uint32_t prev_site;
  arch::Buffer buffer;
  auto operator<=>(const ReportKey&) const = default;
};

// The per-thread shortcut from a core to its state (a block runs on one worker thread).
struct StateCache {
  const void* owner = nullptr;
  uint64_t launch = 0;
  const sim::Core* core = nullptr;
  CoreState* state = nullptr;
};
thread_local StateCache t_cache;

}  // namespace

class Sanitizer::Impl {
 public:
  // Resets the shared GM shadow of every granule that overlaps [lo, hi) (Observer::OnGmRetire):
  // forgetting can only hide a race, never invent one.
  void RetireGm(uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    for (uint64_t page = lo / kPageBytes; page <= (hi - 1) / kPageBytes; ++page) {
      Shard& shard = shards_[page % kShards];
      std::lock_guard<std::mutex> lk(shard.mu);
      auto it = shard.pages.find(page);
      if (it == shard.pages.end()) continue;
      const uint64_t plo = std::max(lo, page * kPageBytes);
      const uint64_t phi = std::min(hi, (page + 1) * kPageBytes);
      const uint64_t first = page * kGranulesPerPage;
      for (uint64_t g = plo / kGranuleBytes; g <= (phi - 1) / kGranuleBytes; ++g) {
        (*it->second)[g - first] = SharedGranule{};
      }
    }
  }

  explicit Impl(const SanitizerOptions& options) : options_(options) {}

  // --- launch and block lifetime ---
  void LaunchBegin(const char* kernel) {
    std::lock_guard<std::mutex> lk(mu_);
    ++launch_;
    kernel_ = kernel;
    states_.clear();
    core_names_.clear();
    shared_ub_ended_.clear();
    for (auto& s : shards_) s.pages.clear();
    std::lock_guard<std::mutex> fl(flags_mu_);
    channels_.clear();
    barriers_.clear();
  }

  void LaunchEnd() {
    std::lock_guard<std::mutex> lk(mu_);
    states_.clear();
    for (auto& s : shards_) s.pages.clear();
    std::lock_guard<std::mutex> fl(flags_mu_);
    channels_.clear();
    barriers_.clear();
  }

  void BlockBegin(sim::Core& core) {
    CoreState* st;
    {
      std::lock_guard<std::mutex> lk(mu_);
      st = NewStateLocked(core);
    }
    t_cache = {this, launch_, &core, st};
  }

  void BlockEnd(sim::Core& core) {
    CoreState& cs = StateOf(core);
    // A block that returns while its launch aborts on another block's error was cut short (the
    // AIC's Matmul server leaves the loop with the failed call's L1/L0C buffers still allocated):
    // what it left is the primary error's consequence, not a defect of its own.
    if ((options_.tools & kSynccheck) && !sim::LaunchAborting()) LeftoverChecks(cs);
    // The group's UB mapping may go to another group once both its cores ended (Note [L0C to
    // UB]): forget it then, not before (the AIC may end before its AIV reads what it wrote).
    const uint8_t* ub = core.SharesUb() ? core.LocalBase(arch::Buffer::kUb) : core.PeerUb();
    if (ub != nullptr) {
      const auto lo = reinterpret_cast<uintptr_t>(ub);
      bool last = false;
      {
        std::lock_guard<std::mutex> lk(mu_);
        if (++shared_ub_ended_[lo] == 2) {
          shared_ub_ended_.erase(lo);
          last = true;
        }
      }
      if (last) RetireGm(lo, lo + core.LocalSize(arch::Buffer::kUb));
    }
    t_cache = {};
    std::lock_guard<std::mutex> lk(mu_);
    states_.erase(&core);
  }

  // --- the funnel ---
  void Instr(sim::Core& core, const sim::Instr& in) {
    CoreState& cs = StateOf(core);
    if (cs.pending != PendingAcquire::kNone) [[unlikely]] Acquire(cs);
    switch (in.kind) {
      case sim::InstrKind::kCompute:
      case sim::InstrKind::kCopy:
      case sim::InstrKind::kScalar:
        MemoryAccess(cs, in);
        break;
      case sim::InstrKind::kSetFlag: SetFlag(cs, in); break;
      case sim::InstrKind::kWaitFlag: WaitFlag(cs, in); break;
      case sim::InstrKind::kBarrier: Barrier(cs, in.pipe); break;
      case sim::InstrKind::kQueue: Queue(cs, in); break;
      case sim::InstrKind::kSyncAll: SyncAll(cs, in); break;
      // Inside the core cross-core flags order nothing the pipes' own flags do not; across
      // cores they are happens-before edges (Note [Cross-core happens-before]).
      case sim::InstrKind::kCrossCoreSet: CrossCoreSet(cs, in); break;
      case sim::InstrKind::kCrossCoreWait:
        cs.pending = PendingAcquire::kFlag;
        cs.pending_key = in.event_id;
        break;
    }
  }

  // --- reports ---
  std::vector<Report> Reports() const {
    std::lock_guard<std::mutex> lk(reports_mu_);
    return reports_;
  }
  void Clear() {
    std::lock_guard<std::mutex> lk(reports_mu_);
    reports_.clear();
    report_index_.clear();
    printed_ = 0;
  }
  size_t PrintNew(std::FILE* out) {
    std::lock_guard<std::mutex> lk(reports_mu_);
    size_t n = 0;
    for (; printed_ < reports_.size(); ++printed_, ++n) {
      std::fprintf(out, "aicore check: %s\n", reports_[printed_].ToString().c_str());
    }
    std::fflush(out);
    return n;
  }
  void AddLeak(size_t blocks, size_t baseline, const char* what, const char* free_api) {
    Report r;
    r.kind = DefectKind::kGmLeak;
    r.count = blocks;
    r.detail = StrCat(blocks, " ", what, " block(s) are still live (", baseline + blocks,
                      " live, ", baseline, " when the sanitizer started); call ", free_api,
                      " on each");
    std::lock_guard<std::mutex> lk(reports_mu_);
    reports_.push_back(std::move(r));
  }

 private:
  CoreState& StateOf(sim::Core& core) {
    if (t_cache.owner == this && t_cache.launch == launch_ && t_cache.core == &core) {
      return *t_cache.state;
    }
    std::lock_guard<std::mutex> lk(mu_);
    auto it = states_.find(&core);
    // A block with no OnBlockBegin (an observer attached mid-launch) starts fresh here.
    CoreState* st = it != states_.end() ? it->second.get() : NewStateLocked(core);
    t_cache = {this, launch_, &core, st};
    return *st;
  }

  // Creates the state of a block starting on `core`. Call with mu_ held.
  CoreState* NewStateLocked(sim::Core& core) {
    auto st = std::make_unique<CoreState>();
    st->core = &core;
    st->index = static_cast<int32_t>(core_names_.size());
    st->type = static_cast<uint8_t>(core.id().type);
    if (core_names_.empty()) {  // first block of the launch, on its worker thread
      mixed_launch_.store(sim::LaunchCoreCount(sim::CoreType::kAic) > 0 &&
                              sim::LaunchCoreCount(sim::CoreType::kAiv) > 0,
                          std::memory_order_relaxed);
    }
    core_names_.push_back(core.Name());
    CoreState* raw = st.get();
    states_[&core] = std::move(st);
    return raw;
  }

  uint32_t Intern(CoreState& cs, const char* api, const std::source_location& loc, Pipe pipe) {
    const SiteKey key{api, loc.file_name(), loc.line(), pipe};
    auto it = cs.site_cache.find(key);
    if (it != cs.site_cache.end()) return it->second;
    uint32_t id;
    {
      std::lock_guard<std::mutex> lk(sites_mu_);
      auto git = site_ids_.find(key);
      if (git == site_ids_.end()) {
        sites_.push_back(key);
        git = site_ids_.emplace(key, static_cast<uint32_t>(sites_.size())).first;
      }
      id = git->second;
    }
    cs.site_cache.emplace(key, id);
    return id;
  }

  CallSite SiteOf(uint32_t id, const std::string& core) const {
    CallSite s;
    if (id == 0) return s;
    std::lock_guard<std::mutex> lk(sites_mu_);
    const SiteKey& k = sites_[id - 1];
    s.api = k.api;
    s.pipe = k.pipe;
    s.file = k.file ? k.file : "";
    s.line = k.line;
    s.core = core;
    return s;
  }

  std::string CoreName(int32_t index) {
    std::lock_guard<std::mutex> lk(mu_);
    return index >= 0 && index < static_cast<int32_t>(core_names_.size()) ? core_names_[index]
                                                                           : "?";
  }

  void Emit(CoreState& cs, uint32_t site, const Finding& f) {
    if (!(options_.tools & ToolOf(f.kind))) return;
    const ReportKey key{f.kind, site, f.prev_site, f.buffer};
    {
      std::lock_guard<std::mutex> lk(reports_mu_);
      auto it = report_index_.find(key);
      if (it != report_index_.end()) {
        ++reports_[it->second].count;
        return;
      }
      if (reports_.size() >= options_.max_reports) return;
    }
    const std::string me = CoreName(cs.index);
    Report r;
    r.kind = f.kind;
    r.kernel = kernel_;
    r.site = SiteOf(site, me);
    if (f.prev_site != 0) {
      r.has_prev = true;
      r.prev = SiteOf(f.prev_site, f.prev_core == cs.index ? me : CoreName(f.prev_core));
    }
    r.buffer = f.buffer;
    r.begin = f.lo;
    r.end = f.hi;
    r.detail = f.detail;
    std::lock_guard<std::mutex> lk(reports_mu_);
    auto [it, fresh] = report_index_.emplace(key, reports_.size());
    if (!fresh) {
      ++reports_[it->second].count;
      return;
    }
    reports_.push_back(std::move(r));
  }

  static void Note(CoreState& cs, DefectKind kind, uint32_t prev_site, int32_t prev_core,
                   arch::Buffer b, uint64_t lo, uint64_t hi) {
    for (Finding& f : cs.findings) {
      if (f.kind == kind && f.prev_site == prev_site && f.buffer == b && f.prev_core == prev_core) {
        f.lo = std::min(f.lo, lo);
        f.hi = std::max(f.hi, hi);
        return;
      }
    }
    cs.findings.push_back({kind, prev_site, prev_core, b, lo, hi, {}});
  }

  bool Ordered(const CoreState& cs, Pipe q, Clock c, Pipe p) const {
    if (q == p && InOrderPipe(p)) return true;
    return cs.vc[Idx(p)][Idx(q)] >= c;
  }

  // Checks one granule (starting at byte `glo`) against the current access and records the
  // access. Conflicts are reported over the bytes both accesses touch.
  void CheckGranule(CoreState& cs, Granule& gr, bool write, bool atomic, Pipe p, Clock c,
                    uint32_t site, uint32_t mask, arch::Buffer b, uint64_t glo) {
    if (gr.write.clock != 0 && (gr.write.mask & mask) && !(write && atomic && gr.write_atomic)) {
      const Pipe q = static_cast<Pipe>(gr.write_pipe);
      if (!Ordered(cs, q, gr.write.clock, p)) {
        Note(cs, write ? DefectKind::kRaceWaw : DefectKind::kRaceRaw, gr.write.site, cs.index, b,
             glo + LowByte(gr.write.mask & mask), glo + HighByte(gr.write.mask & mask));
      }
    }
    if (write) {
      for (int q = 0; q < kPipes; ++q) {
        Access& r = gr.reads[q];
        if (r.clock == 0) continue;
        // A scalar load completes before the scalar unit issues the next instruction, so an
        // earlier PIPE_S read is ordered before every later write (no WAR through S).
        if ((r.mask & mask) && static_cast<Pipe>(q) != Pipe::kS &&
            !Ordered(cs, static_cast<Pipe>(q), r.clock, p)) {
          Note(cs, DefectKind::kRaceWar, r.site, cs.index, b, glo + LowByte(r.mask & mask),
               glo + HighByte(r.mask & mask));
        }
        r.mask &= ~mask;
        if (r.mask == 0) r.clock = 0;
      }
      gr.write = {c, site, mask};
      gr.write_pipe = static_cast<uint8_t>(Idx(p));
      gr.write_atomic = atomic;
    } else {
      Access& r = gr.reads[Idx(p)];
      r.mask = r.clock != 0 ? (r.mask | mask) : mask;
      r.clock = c;
      r.site = site;
    }
  }

  // Returns whether block access `a` happens before the current point of block `cs`
  // (Note [Cross-core happens-before]).
  static bool OrderedAcross(const CoreState& cs, const BlockAccess& a) {
    if (a.core == cs.index || a.full_epoch != cs.full_epoch) return true;
    if (a.type == cs.type && a.epoch != cs.epoch) return true;
    if (cs.known.empty()) return false;
    const ClockVec* k = FindKnown(cs.known, a.core);
    return k != nullptr && (*k)[a.pipe] >= a.clock;
  }

  // Checks one granule (starting at host byte `glo`) of the shared shadow against the current
  // block's access (pipe p, clock c) and records it. Findings name buffer `b` at offset
  // glo - base (GM: base 0; a shared UB: its host start).
  static void CheckShared(CoreState& cs, SharedGranule& sg, bool write, bool atomic, Pipe p,
                          Clock c, uint32_t site, uint32_t mask, uint64_t glo,
                          arch::Buffer b = arch::Buffer::kGm, uint64_t base = 0) {
    const BlockAccess me{cs.index, cs.epoch, cs.full_epoch, c, site, mask,
                         static_cast<uint8_t>(Idx(p)), cs.type};
    const uint64_t at = glo - base;
    // Two cores writing a shared UB unordered race; "overlapping GM write" is GM's own report.
    const DefectKind waw = b == arch::Buffer::kGm ? DefectKind::kGmOverlap
                                                  : DefectKind::kCrossCoreRace;
    BlockAccess& w = sg.write;
    if (w.core >= 0 && (w.mask & mask) && !OrderedAcross(cs, w)) {
      const uint32_t both = w.mask & mask;
      if (!write) {
        Note(cs, DefectKind::kCrossCoreRace, w.site, w.core, b, at + LowByte(both),
             at + HighByte(both));
      } else if (!(atomic && sg.write_atomic)) {
        Note(cs, waw, w.site, w.core, b, at + LowByte(both), at + HighByte(both));
      }
    }
    if (write) {
      for (BlockAccess& r : sg.reads) {
        if (r.core >= 0 && (r.mask & mask) && !OrderedAcross(cs, r)) {
          Note(cs, DefectKind::kCrossCoreRace, r.site, r.core, b, at + LowByte(r.mask & mask),
               at + HighByte(r.mask & mask));
        }
      }
      // One instruction's strided ranges share a stamp; a later write replaces the record (an
      // older write of this block to other bytes of the granule is forgotten: can miss, never
      // invents, a race).
      if (w.core == cs.index && w.clock == c && w.pipe == me.pipe) {
        w.mask |= mask;
      } else {
        w = me;
      }
      sg.write_atomic = atomic;
      return;
    }
    BlockAccess* slot = nullptr;
    for (BlockAccess& r : sg.reads) {
      if (r.core == cs.index) slot = &r;
    }
    if (slot != nullptr) {
      if (slot->clock == c && slot->pipe == me.pipe) {
        slot->mask |= mask;
      } else {
        *slot = me;
      }
      return;
    }
    for (BlockAccess& r : sg.reads) {
      if (r.core < 0 || OrderedAcross(cs, r)) {
        slot = &r;
        break;
      }
    }
    if (slot == nullptr) slot = &sg.reads[1];
    *slot = me;
  }

  void TouchLocal(CoreState& cs, arch::Buffer b, uint64_t lo, uint64_t hi, bool write, Pipe p,
                  Clock c, uint32_t site, bool imprecise) {
    const uint64_t size = cs.core->LocalSize(b);
    if (hi > size) {
      Note(cs, DefectKind::kOutOfBounds, 0, cs.index, b, std::max(lo, size), hi);
      hi = size;
      if (lo >= hi) return;
    }
    const int bi = static_cast<int>(b);
    const uint64_t g0 = lo / kGranuleBytes;
    const uint64_t g1 = (hi - 1) / kGranuleBytes;
    if (options_.tools & (kRacecheck)) {
      auto& shadow = cs.local[bi];
      if (shadow.empty()) shadow.resize((size + kGranuleBytes - 1) / kGranuleBytes);
      for (uint64_t g = g0; g <= g1; ++g) {
        CheckGranule(cs, shadow[g], write, false, p, c, site, MaskOf(g, lo, hi), b,
                     g * kGranuleBytes);
      }
    }
    const bool shared_ub = b == arch::Buffer::kUb && cs.core->SharesUb();
    if (shared_ub && (options_.tools & (kRacecheck | kMemcheck))) {
      const auto base = reinterpret_cast<uintptr_t>(cs.core->LocalBase(b));
      TouchShared(cs, base + lo, base + hi, write, false, p, c, site, b, base);
    }
    if (options_.tools & kInitcheck) {
      auto& written = cs.written[bi];
      if (written.empty()) written.resize((size + kGranuleBytes - 1) / kGranuleBytes);
      if (write) {
        std::fill(written.begin() + g0, written.begin() + g1 + 1, 1);
      } else if (!imprecise) {
        for (uint64_t g = g0; g <= g1; ++g) {
          if (!written[g] && shared_ub && WrittenByPeer(cs, b, g)) written[g] = 1;
          if (!written[g]) {
            Note(cs, DefectKind::kUninitRead, 0, cs.index, b, std::max(lo, g * kGranuleBytes),
                 std::min(hi, (g + 1) * kGranuleBytes));
          }
        }
      }
    }
  }

  // Checks and records host bytes [lo, hi) in the shared shadow (GM across blocks, or a UB two
  // cores share: Note [L0C to UB]); findings name buffer `b` at offsets from `base`.
  void TouchShared(CoreState& cs, uint64_t lo, uint64_t hi, bool write, bool atomic, Pipe p,
                   Clock c, uint32_t site, arch::Buffer b, uint64_t base) {
    for (uint64_t page = lo / kPageBytes; page <= (hi - 1) / kPageBytes; ++page) {
      const uint64_t plo = std::max(lo, page * kPageBytes);
      const uint64_t phi = std::min(hi, (page + 1) * kPageBytes);
      const uint64_t first = page * kGranulesPerPage;
      Shard& shard = shards_[page % kShards];
      std::lock_guard<std::mutex> lk(shard.mu);
      auto& slot = shard.pages[page];
      if (!slot) slot = std::make_unique<SharedPage>();
      for (uint64_t g = plo / kGranuleBytes; g <= (phi - 1) / kGranuleBytes; ++g) {
        CheckShared(cs, (*slot)[g - first], write, atomic, p, c, site, MaskOf(g, plo, phi),
                    g * kGranuleBytes, b, base);
      }
    }
  }

  // Returns true when another core (the AIC's Fixpipe) wrote granule g of this AIV's shared
  // buffer `b`, so initcheck counts it as written (Note [L0C to UB]).
  bool WrittenByPeer(const CoreState& cs, arch::Buffer b, uint64_t g) {
    const uint64_t addr = reinterpret_cast<uintptr_t>(cs.core->LocalBase(b)) + g * kGranuleBytes;
    const uint64_t page = addr / kPageBytes;
    Shard& shard = shards_[page % kShards];
    std::lock_guard<std::mutex> lk(shard.mu);
    auto it = shard.pages.find(page);
    if (it == shard.pages.end()) return false;
    const BlockAccess& w = (*it->second)[addr / kGranuleBytes - page * kGranulesPerPage].write;
    return w.core >= 0 && w.core != cs.index;
  }

  // Records the write of an AIC's Fixpipe into its AIV's UB (Instr::dst_in_peer_ub): bounds,
  // alignment, and the shared shadow the AIV's accesses meet.
  void TouchPeerUb(CoreState& cs, const sim::MemRef& m, const sim::Stride& s, Pipe p, Clock c,
                   uint32_t site) {
    const arch::Buffer b = arch::Buffer::kUb;
    const uint64_t size = cs.core->LocalSize(b);
    if ((options_.tools & kMemcheck) && m.offset % cs.core->chip().spec(b).align != 0) {
      Note(cs, DefectKind::kMisaligned, 0, cs.index, b, m.offset, m.offset + m.bytes);
    }
    const auto base = reinterpret_cast<uintptr_t>(cs.core->PeerUb());
    ForEachRange(m, s, [&](uint64_t lo, uint64_t hi) {
      if (hi > size) {
        Note(cs, DefectKind::kOutOfBounds, 0, cs.index, b, std::max(lo, size), hi);
        hi = size;
      }
      if (lo < hi && base != 0 && (options_.tools & (kRacecheck | kMemcheck))) {
        TouchShared(cs, base + lo, base + hi, true, false, p, c, site, b, base);
      }
    });
  }

  void TouchGm(CoreState& cs, uint64_t lo, uint64_t hi, bool write, bool atomic, Pipe p, Clock c,
               uint32_t site) {
    const bool race = options_.tools & kRacecheck;
    const bool cross = options_.tools & (kRacecheck | kMemcheck);
    for (uint64_t page = lo / kPageBytes; page <= (hi - 1) / kPageBytes; ++page) {
      const uint64_t plo = std::max(lo, page * kPageBytes);
      const uint64_t phi = std::min(hi, (page + 1) * kPageBytes);
      const uint64_t g0 = plo / kGranuleBytes;
      const uint64_t g1 = (phi - 1) / kGranuleBytes;
      const uint64_t first = page * kGranulesPerPage;
      if (race) {
        auto& slot = cs.gm[page];
        if (!slot) slot = std::make_unique<GmPage>();
        for (uint64_t g = g0; g <= g1; ++g) {
          CheckGranule(cs, (*slot)[g - first], write, atomic, p, c, site, MaskOf(g, plo, phi),
                       arch::Buffer::kGm, g * kGranuleBytes);
        }
      }
      if (cross) {
        Shard& shard = shards_[page % kShards];
        std::lock_guard<std::mutex> lk(shard.mu);
        auto& slot = shard.pages[page];
        if (!slot) slot = std::make_unique<SharedPage>();
        for (uint64_t g = g0; g <= g1; ++g) {
          CheckShared(cs, (*slot)[g - first], write, atomic, p, c, site, MaskOf(g, plo, phi),
                      g * kGranuleBytes);
        }
      }
    }
  }

  // Reports GM bytes [lo, hi) that lie in a freed allocation or run past the end of the live
  // allocation they start in (See Note [GM extents]); memory nobody registered is not judged.
  static void CheckGmAllocation(CoreState& cs, uint64_t lo, uint64_t hi) {
    const sim::GmBlock b = sim::FindGmBlock(reinterpret_cast<const void*>(lo));
    if (b.state == sim::GmBlockState::kUnknown) return;
    const uint64_t end = reinterpret_cast<uintptr_t>(b.base) + b.bytes;
    DefectKind kind = DefectKind::kGmUseAfterFree;
    if (b.state == sim::GmBlockState::kLive) {
      if (hi <= end) return;
      kind = DefectKind::kGmOutOfBounds;
      lo = std::max(lo, end);
    }
    for (Finding& f : cs.findings) {
      if (f.kind == kind && f.buffer == arch::Buffer::kGm) {  // strided ranges of one operand
        f.lo = std::min(f.lo, lo);
        f.hi = std::max(f.hi, hi);
        return;
      }
    }
    const std::string block = StrCat("its ", b.kind, " block of ", b.bytes, " B at ",
                                     static_cast<const void*>(b.base));
    cs.findings.push_back(
        {kind, 0, cs.index, arch::Buffer::kGm, lo, hi,
         kind == DefectKind::kGmUseAfterFree
             ? StrCat("the access lies in ", block, ", which was freed (GmFree/aclrtFree) before "
                      "this use")
             : StrCat("the access starts in ", block, " and runs past its end at ",
                      static_cast<const void*>(b.base + b.bytes))});
  }

  // Visits the byte ranges of one operand (strided when the record says so).
  template <typename Fn>
  static void ForEachRange(const sim::MemRef& m, const sim::Stride& s, Fn&& fn) {
    if (m.buffer == arch::Buffer::kNone || m.bytes == 0) return;
    if (s.blocks > 1 && s.block_bytes > 0 && s.stride_bytes != s.block_bytes) {
      for (uint32_t i = 0; i < s.blocks; ++i) {
        const uint64_t lo = m.offset + uint64_t{i} * s.stride_bytes;
        fn(lo, lo + s.block_bytes);
      }
      return;
    }
    fn(m.offset, m.offset + m.bytes);
  }

  void Touch(CoreState& cs, const sim::MemRef& m, const sim::Stride& s, bool write, bool atomic,
             Pipe p, Clock c, uint32_t site, bool imprecise, bool transfer) {
    if (transfer && (options_.tools & kMemcheck) && m.buffer != arch::Buffer::kGm &&
        m.buffer != arch::Buffer::kNone && m.bytes > 0) {
      const uint64_t align = cs.core->chip().spec(m.buffer).align;
      if (align > 1 && m.offset % align != 0) {
        Note(cs, DefectKind::kMisaligned, 0, cs.index, m.buffer, m.offset, m.offset + m.bytes);
      }
    }
    ForEachRange(m, s, [&](uint64_t lo, uint64_t hi) {
      if (m.buffer == arch::Buffer::kGm) {
        if (options_.tools & kMemcheck) CheckGmAllocation(cs, lo, hi);
        TouchGm(cs, lo, hi, write, atomic, p, c, site);
      } else {
        TouchLocal(cs, m.buffer, lo, hi, write, p, c, site, imprecise);
      }
    });
  }

  void MemoryAccess(CoreState& cs, const sim::Instr& in) {
    if (in.pipe == Pipe::kAll) return;
    const Pipe p = in.pipe;
    const Clock c = ++cs.cnt[Idx(p)];
    const uint32_t site = Intern(cs, in.api, in.loc, p);
    // Level-0 vector records span whole tensors, not the mask- and stride-selected bytes (see
    // docs/sanitizer.md), so their reads are not held against initcheck. Nor are LoadData's
    // (MTE1) reads: it moves whole 512-byte fractals, including the rows past an M/N tail that
    // Nd2Nz leaves unwritten and Mmad then ignores.
    const bool imprecise = (in.kind == sim::InstrKind::kCompute && in.repeat > 0) ||
                           (in.kind == sim::InstrKind::kCopy && p == Pipe::kMte1);
    const bool atomic = cs.core->atomic_mode != 0;
    const bool transfer = in.kind == sim::InstrKind::kCopy;
    cs.findings.clear();
    for (int k = 0; k < in.src_count && k < sim::Instr::kMaxSrc; ++k) {
      Touch(cs, in.src[k], in.src_stride[k], false, false, p, c, site, imprecise, transfer);
    }
    if (in.dst_in_peer_ub) [[unlikely]] {
      TouchPeerUb(cs, in.dst, in.dst_stride, p, c, site);
    } else {
      Touch(cs, in.dst, in.dst_stride, true, atomic, p, c, site, imprecise, transfer);
    }
    for (Finding& f : cs.findings) {
      f.detail = Explain(cs, f, p);
      Emit(cs, site, f);
    }
  }

  std::string Explain(const CoreState& cs, const Finding& f, Pipe p) {
    Pipe q = p;
    if (f.prev_site != 0) {
      std::lock_guard<std::mutex> lk(sites_mu_);
      q = sites_[f.prev_site - 1].pipe;
    }
    const char* pn = sim::PipeName(p);
    const char* qn = sim::PipeName(q);
    switch (f.kind) {
      case DefectKind::kRaceRaw:
      case DefectKind::kRaceWar:
      case DefectKind::kRaceWaw:
        if (p == q) {
          return StrCat("both run on ", pn,
                        ", which does not order overlapping transfers: add PipeBarrier<PIPE_",
                        pn, ">() between them");
        }
        return StrCat("no sync edge orders ", qn, " before ", pn, ": add SetFlag<HardEvent::",
                      qn, "_", pn, ">/WaitFlag<HardEvent::", qn, "_", pn,
                      "> (or pass the buffer through a TQue) between the two calls");
      case DefectKind::kCrossCoreRace:
        return "no SyncAll and no chain of cross-core flags orders the other block's access "
               "before this one: add SyncAll() between them, or have the first block "
               "CrossCoreSetFlag on the pipe of its access and this block CrossCoreWaitFlag "
               "that flag before its access";
      case DefectKind::kGmOverlap:
        return "two blocks write the same GM bytes with no SyncAll or cross-core flag between "
               "them; the result depends on which finishes last (partition the output, use "
               "SetAtomicAdd, SyncAll, or a CrossCoreSetFlag/CrossCoreWaitFlag handoff)";
      case DefectKind::kOutOfBounds:
        return StrCat("the access ends past the core's ", arch::BufferName(f.buffer), " of ",
                      f.hi, " B");
      case DefectKind::kMisaligned:
        return StrCat("a transfer's ", arch::BufferName(f.buffer), " operand must start on a ",
                      "multiple of ", cs.core->chip().spec(f.buffer).align, " B; offset ", f.lo,
                      " is not");
      case DefectKind::kUninitRead:
        return "these bytes were never written since the block started (on hardware they hold "
               "whatever the previous kernel left)";
      default:
        return f.detail;  // findings that carry their own explanation (GM allocations)
    }
  }

  static uint32_t FlagKey(const sim::Instr& in) {
    const uint32_t id = static_cast<uint32_t>(std::clamp(in.event_id, 0, 63));
    return (static_cast<uint32_t>(Idx(in.pipe)) * 8 + Idx(in.wait_pipe)) * 64 + id;
  }

  static ClockVec Snapshot(const CoreState& cs, Pipe p) {
    ClockVec snap = cs.vc[Idx(p)];
    snap[Idx(p)] = cs.cnt[Idx(p)];
    return snap;
  }

  static void JoinInto(CoreState& cs, Pipe dst, const ClockVec& snap) {
    if (dst == Pipe::kS || dst == Pipe::kAll) {
      // The scalar unit issues every instruction, so a scalar wait orders all later ones.
      for (auto& v : cs.vc) Join(v, snap);
    } else {
      Join(cs.vc[Idx(dst)], snap);
    }
  }

  void SetFlag(CoreState& cs, const sim::Instr& in) {
    PendingFlag& f = cs.flags[FlagKey(in)];
    f.snapshot = Snapshot(cs, in.pipe);
    f.site = Intern(cs, in.api, in.loc, in.pipe);
    f.set = true;
  }

  void WaitFlag(CoreState& cs, const sim::Instr& in) {
    auto it = cs.flags.find(FlagKey(in));
    if (it == cs.flags.end() || !it->second.set) return;  // the kernel layer fails this call
    JoinInto(cs, in.wait_pipe, it->second.snapshot);
    it->second.set = false;
  }

  // Records a CrossCoreSetFlag towards one target counter (Note [Cross-core happens-before]).
  void CrossCoreSet(CoreState& cs, const sim::Instr& in) {
    const bool message = in.repeat == 0;
    Knowledge release = cs.known;
    ClockVec own = message || in.pipe == Pipe::kAll ? cs.cnt : Snapshot(cs, in.pipe);
    own[Idx(Pipe::kS)] = cs.cnt[Idx(Pipe::kS)];
    JoinKnowledge(release, Knowledge{{cs.index, own}});
    const uint32_t need = std::max<uint32_t>(1, in.repeat);
    std::lock_guard<std::mutex> lk(flags_mu_);
    FlagChannel& ch = channels_[in.event_id];
    if (message) {
      JoinKnowledge(ch.messages, release);
      return;
    }
    if (need == 1) {
      ch.tokens.push_back(std::move(release));
      return;
    }
    ch.arrivals[cs.index].push_back(std::move(release));
    if (ch.arrivals.size() < need) return;
    Knowledge token;
    for (auto it = ch.arrivals.begin(); it != ch.arrivals.end();) {
      JoinKnowledge(token, it->second.front());
      it->second.pop_front();
      it = it->second.empty() ? ch.arrivals.erase(it) : std::next(it);
    }
    ch.tokens.push_back(std::move(token));
  }

  // Takes what the block's last CrossCoreWaitFlag or SyncAll released to it.
  void Acquire(CoreState& cs) {
    std::lock_guard<std::mutex> lk(flags_mu_);
    if (cs.pending == PendingAcquire::kFlag) {
      auto it = channels_.find(cs.pending_key);
      if (it != channels_.end()) {
        FlagChannel& ch = it->second;
        if (!ch.tokens.empty()) {
          JoinKnowledge(cs.known, ch.tokens.front());
          ch.tokens.pop_front();
        }
        JoinKnowledge(cs.known, ch.messages);
      }
    } else {
      auto it = barriers_.find({cs.pending_key, cs.pending_gen});
      if (it != barriers_.end()) JoinKnowledge(cs.known, it->second);
    }
    cs.pending = PendingAcquire::kNone;
  }

  void SyncAll(CoreState& cs, const sim::Instr& in) {
    Barrier(cs, Pipe::kAll);
    const int kind = in.event_id == 1 ? 1 : 0;  // 1: SyncAll<true>, only the AIVs meet
    ++cs.epoch;
    if (kind == 0) ++cs.full_epoch;
    const uint32_t gen = cs.syncalls[kind]++;
    // In a launch of one core type the epochs already order everything before a SyncAll.
    if (!mixed_launch_.load(std::memory_order_relaxed)) return;
    {
      std::lock_guard<std::mutex> lk(flags_mu_);
      Knowledge& acc = barriers_[{kind, gen}];
      JoinKnowledge(acc, cs.known);
      JoinKnowledge(acc, Knowledge{{cs.index, cs.cnt}});
    }
    cs.pending = PendingAcquire::kSyncAll;
    cs.pending_key = kind;
    cs.pending_gen = gen;
  }

  static void Barrier(CoreState& cs, Pipe p) {
    if (p == Pipe::kAll) {
      for (auto& v : cs.vc) Join(v, cs.cnt);
    } else if (p != Pipe::kS) {
      auto& own = cs.vc[Idx(p)][Idx(p)];
      own = std::max(own, cs.cnt[Idx(p)]);
    }
  }

  void Queue(CoreState& cs, const sim::Instr& in) {
    const uint64_t key = (uint64_t{static_cast<uint8_t>(in.dst.buffer)} << 48) | in.dst.offset;
    QueueSlot& q = cs.slots[key];
    q.buffer = in.dst.buffer;
    q.offset = in.dst.offset;
    q.bytes = in.dst.bytes;
    const std::string_view api = in.api;
    if (api == "AllocTensor") {
      // Waits on the producer pipe until the consumer's FreeTensor (write after read).
      if (q.has_freed) JoinInto(cs, in.wait_pipe, q.freed);
      q.state = "allocated";
      q.alloc_site = Intern(cs, in.api, in.loc, in.wait_pipe);
    } else if (api == "EnQue") {
      q.enqueued = Snapshot(cs, in.pipe);
      q.state = "enqueued";
    } else if (api == "DeQue") {
      JoinInto(cs, in.wait_pipe, q.enqueued);
      q.state = "dequeued";
    } else if (api == "FreeTensor") {
      q.freed = Snapshot(cs, in.pipe);
      q.has_freed = true;
      q.state = "free";
    }
  }

  void LeftoverChecks(CoreState& cs) {
    std::vector<std::pair<uint32_t, Finding>> out;
    for (const auto& [key, f] : cs.flags) {
      if (!f.set) continue;
      const uint32_t src = key / 64 / 8;
      const uint32_t dst = key / 64 % 8;
      Finding fd{DefectKind::kUnconsumedFlag, 0, cs.index, arch::Buffer::kNone, 0, 0, {}};
      fd.detail = StrCat("flag ", sim::PipeName(static_cast<Pipe>(src)), "_",
                         sim::PipeName(static_cast<Pipe>(dst)), " ID ", key % 64,
                         " was set and never waited on before the block ended; the next kernel "
                         "inherits it (add the matching WaitFlag)");
      out.emplace_back(f.site, std::move(fd));
    }
    for (const auto& [key, q] : cs.slots) {
      if (std::string_view(q.state) == "free") continue;
      Finding fd{DefectKind::kQueueLeak, 0, cs.index, q.buffer, q.offset, q.offset + q.bytes, {}};
      fd.detail = StrCat("the queue buffer is still ", q.state,
                         " when the block ends (missing FreeTensor");
      fd.detail += std::string_view(q.state) == "enqueued" ? " and DeQue)" : ")";
      out.emplace_back(q.alloc_site, std::move(fd));
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [site, f] : out) Emit(cs, site, f);
  }

  // Per shared UB (host start, Note [L0C to UB]): how many of its group's two cores ended.
  std::unordered_map<uint64_t, int> shared_ub_ended_;  // guarded by mu_
  struct Shard {
    std::mutex mu;
    std::unordered_map<uint64_t, std::unique_ptr<SharedPage>> pages;
  };

  SanitizerOptions options_;
  mutable std::mutex mu_;  // states_, core names, kernel name
  uint64_t launch_ = 0;
  std::string kernel_;
  std::unordered_map<const sim::Core*, std::unique_ptr<CoreState>> states_;
  std::vector<std::string> core_names_;
  std::atomic<bool> mixed_launch_{false};  // the launch runs AICs and AIVs
  std::array<Shard, kShards> shards_;

  // Cross-core releases (Note [Cross-core happens-before]).
  std::mutex flags_mu_;
  std::unordered_map<int32_t, FlagChannel> channels_;              // key: the funnel's sync key
  std::map<std::pair<int, uint32_t>, Knowledge> barriers_;          // (kind, generation)

  mutable std::mutex sites_mu_;
  std::vector<SiteKey> sites_;  // site id i is sites_[i - 1]; 0 means none
  std::unordered_map<SiteKey, uint32_t, SiteKeyHash> site_ids_;

  mutable std::mutex reports_mu_;
  std::vector<Report> reports_;
  std::map<ReportKey, size_t> report_index_;
  size_t printed_ = 0;
};

Sanitizer::Sanitizer(SanitizerOptions options)
    : options_(options), impl_(std::make_unique<Impl>(options)),
      leak_baseline_(GmLiveBlocks()), device_leak_baseline_(memory::LiveBlocksAllDevices()) {
  sim::AttachObserver(this);
}

Sanitizer::~Sanitizer() { sim::DetachObserver(this); }

std::vector<Report> Sanitizer::reports() const { return impl_->Reports(); }

size_t Sanitizer::Count(DefectKind kind) const {
  size_t n = 0;
  for (const Report& r : impl_->Reports()) n += r.kind == kind;
  return n;
}

void Sanitizer::Clear() { impl_->Clear(); }

size_t Sanitizer::CheckLeaks() {
  if (!(options_.tools & kMemcheck)) return 0;
  size_t found = 0;
  const size_t live = GmLiveBlocks();
  if (live > leak_baseline_) {
    impl_->AddLeak(live - leak_baseline_, leak_baseline_, "GmAlloc", "GmFree");
    found += live - leak_baseline_;
  }
  const size_t device_live = memory::LiveBlocksAllDevices();
  if (device_live > device_leak_baseline_) {
    impl_->AddLeak(device_live - device_leak_baseline_, device_leak_baseline_,
                   "device memory (aclrtMalloc)", "aclrtFree");
    found += device_live - device_leak_baseline_;
  }
  return found;
}

size_t Sanitizer::PrintNew(std::FILE* out) { return impl_->PrintNew(out); }

void Sanitizer::OnLaunchBegin(const char* kernel, uint32_t /*block_dim*/) {
  impl_->LaunchBegin(kernel);
}
void Sanitizer::OnBlockBegin(sim::Core& core) { impl_->BlockBegin(core); }
void Sanitizer::OnInstr(sim::Core& core, const sim::Instr& instr) { impl_->Instr(core, instr); }
void Sanitizer::OnBlockEnd(sim::Core& core) { impl_->BlockEnd(core); }
void Sanitizer::OnGmRetire(sim::Core& /*core*/, const void* p, uint64_t bytes) {
  const auto lo = reinterpret_cast<uintptr_t>(p);
  impl_->RetireGm(lo, lo + bytes);
}
void Sanitizer::OnLaunchEnd(const char* /*kernel*/) {
  impl_->LaunchEnd();
  if (options_.stream != nullptr) impl_->PrintNew(options_.stream);
}

}  // namespace aicore::check
