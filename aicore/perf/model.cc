// The timing model's replay.
//
// Note [Replay]
// - Every core has an issue clock (the scalar unit) and one "free at" time per pipe. Each recorded
//   instruction is issued in program order and advances the issue clock by
//   scalar_cycles_per_instr (that is the S pipe's busy time).
// - Work on pipe P (copies, vector/cube compute) starts at max(P free, issue time) and occupies P
//   for its cost; the first MTE2/MTE3/V instruction of a core also pays that pipe's start-up.
// - SetFlag, EnQue and FreeTensor complete on their pipe once it drains (max(P free, issue)) and
//   stamp the flag / queue slot with that time. WaitFlag, DeQue and AllocTensor block their pipe
//   until the stamp: P free = max(P free, issue, stamp). A wait on PIPE_S blocks the issue clock.
// - PipeBarrier<P> is implicit for a single in-order pipe; PipeBarrier<PIPE_ALL> drains every pipe
//   and the issue clock.
// - SyncAll: a core arrives when it has drained; when every unfinished core has arrived or is
//   blocked, all arrived cores resume at the latest arrival (+ sync_all_cycles).
// - Cross-core flags are counters: an increment's time is its last set's completion (one set per
//   participant: a core's second set waits for the others' next ones, as the sim counts them),
//   appended to the flag's FIFO; a wait consumes the oldest one (blocking the core until some
//   core has set it).
// - Blocks beyond the chip's cores of their type run in waves: block j starts when block
//   j - cores has finished, on the same physical core.
// - GM traffic: every (core, pipe) pair that moves GM bytes in the launch is a stream; a GM copy
//   runs at min(its pipe's bytes per cycle, its stream's HBM share) for the bytes the HBM serves
//   (Note [HBM sharing]).
//
// Note [L2 reuse]
// GM reads pass through the chip's L2 (192 MB on a 910B), so a byte read again while it is still
// cached comes from L2, not HBM: a matmul that reloads panels of A and B is fed at L2 bandwidth.
// The model runs the launch's GM reads through an LRU cache of l2_bytes in lines of
// l2_line_bytes: each core's reads in program order, the cores interleaved by progress (a read
// at 40% of a core's read bytes comes after every other core's reads before their 40%), which
// approximates the order in time without needing the timeline. A read's bytes in lines the cache
// holds are hits, costing bytes / l2_read_bytes_per_cycle and taking no HBM share; the rest
// misses and allocates its lines. So hits follow reuse distance: data read again after less
// than L2's worth of other lines hits, data whose working set between reuses exceeds L2 misses,
// however large the whole footprint. Deterministic.
// Writes, when the preset gives an L2 write rate (fix_l2_write_bytes_per_cycle,
// mte3_l2_write_bytes_per_cycle): GM reads and writes by the MTEs are cached in L2 by default
// (2201 memory-access rules), so a copy's GM writes run through the same LRU, interleaved with
// the reads in program order. Bytes into lines the cache holds (a workspace rewritten every
// iteration, a tile read back by another core) land in L2: they cost bytes / the pipe's L2 write
// rate and take no HBM share. The rest go at the GM rate with their HBM share, and allocate their
// lines (write-allocate), so a later read or rewrite of them hits. A dirty line's write-back on
// eviction is not charged. Without an L2 write rate writes neither hit nor allocate.
// Not modelled: associativity, the L2 cache-mode hint (SetL2CacheHint does not reach the
// records).
//
// Note [GM bursts]
// GM is read in bursts (128/256/512 B by chip: ascendc-reference.md 9.5), so a contiguous run
// shorter than a burst costs a whole one: every run of a GM read (one row of a strided or Nd2Nz
// copy) is rounded up to gm_burst_bytes before its cost is computed. The bytes reported stay the
// bytes asked for.
//
// Note [HBM sharing]
// With hbm_share "fair" every stream gets hbm_gbps / clock / streams bytes per cycle for the
// whole launch, which charges contention while other streams are idle. With "active" the launch
// is replayed twice: the first replay uses the fair share; from its timeline, each GM copy gets
// hbm / (the mean number of HBM transfers in flight over its interval, itself included) for the
// second replay, whose timeline is the result. A two-step fixed point, not an exact one: the
// second replay's intervals differ from the first's. Only copies that move HBM bytes (writes,
// reads not wholly served by L2) count as transfers; a stream moves one copy at a time (its
// pipe is in order), so the count is the number of streams active at the time.
#include "aicore/perf/model.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <queue>

#include "aicore/core/status.h"

namespace aicore::perf {

namespace {

using sim::Pipe;
constexpr int kP = sim::kPipeCount;

double Need(const arch::Chip& chip, const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip ", chip.name,
         ": pipes.", key, " is missing or not a number; the timing model needs it (see "
         "aicore/arch/presets/ascend910b1.json for the schema)");
  }
  return j.at(key).get<double>();
}

const char* DTypeKey(DType dt) {
  switch (dt) {
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kF32: return "f32";
    case DType::kI8: return "i8";
    case DType::kU8: return "u8";
    case DType::kI16: return "i16";
    case DType::kI32: return "i32";
    default: return "f16";
  }
}

}  // namespace

CostModel::CostModel(const arch::Chip& chip) {
  const auto& p = chip.pipes;
  if (chip.clock_mhz <= 0) {
    Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip ", chip.name,
         ": clock_mhz ", chip.clock_mhz, " must be positive for the timing model");
  }
  clock_hz_ = chip.clock_mhz * 1e6;
  hbm_bytes_per_cycle_ = chip.hbm_gbps * 1e9 / clock_hz_;
  launch_overhead_us_ = Need(chip, p, "launch_overhead_us");
  scalar_cycles_ = Need(chip, p, "scalar_cycles_per_instr");
  vector_bytes_per_cycle_ = Need(chip, p, "vector_bytes_per_cycle");
  vector_head_ = Need(chip, p, "vector_head_cycles");
  vector_default_b_ = Need(chip, p, "vector_default_b_cycles");
  mte2_bw_ = Need(chip, p, "mte2_bytes_per_cycle");
  mte2_head_ = Need(chip, p, "mte2_head_cycles");
  // Optional: GM -> L1 copies (Nd2Nz) pay their own head (default: mte2_head_cycles).
  mte2_l1_head_ = p.contains("mte2_l1_head_cycles") ? Need(chip, p, "mte2_l1_head_cycles")
                                                    : mte2_head_;
  if (p.contains("gm_burst_bytes")) {
    gm_burst_ = static_cast<uint64_t>(std::max(0.0, Need(chip, p, "gm_burst_bytes")));
  }
  if (p.contains("hbm_share")) {
    if (!p["hbm_share"].is_string() ||
        (p["hbm_share"] != "fair" && p["hbm_share"] != "active")) {
      Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip ", chip.name,
           ": pipes.hbm_share must be \"fair\" or \"active\"");
    }
    hbm_share_active_ = p["hbm_share"] == "active";
  }
  mte2_startup_ = Need(chip, p, "mte2_startup_cycles");
  if (p.contains("l2_read_bytes_per_cycle")) {  // optional: without it, no L2 reuse
    l2_read_bw_ = Need(chip, p, "l2_read_bytes_per_cycle");
    l2_bytes_ = static_cast<double>(chip.l2_bytes);
    l2_line_ = p.contains("l2_line_bytes")
                   ? static_cast<uint64_t>(std::max(1.0, Need(chip, p, "l2_line_bytes")))
                   : 512;
  }
  mte3_bw_ = Need(chip, p, "mte3_bytes_per_cycle");
  mte3_head_ = Need(chip, p, "mte3_head_cycles");
  mte3_startup_ = Need(chip, p, "mte3_startup_cycles");
  mte1_l0a_bw_ = Need(chip, p, "mte1_l0a_bytes_per_cycle");
  mte1_l0b_bw_ = Need(chip, p, "mte1_l0b_bytes_per_cycle");
  mte1_bt_bw_ = Need(chip, p, "mte1_l1_to_bt_bytes_per_cycle");
  mte1_head_ = Need(chip, p, "mte1_head_cycles");
  fix_bw_ = Need(chip, p, "fix_bytes_per_cycle");
  fix_head_ = Need(chip, p, "fix_head_cycles");
  // Optional: GM writes into lines L2 holds (Note [L2 reuse]); default: the GM rate, no L2 writes.
  if (p.contains("fix_l2_write_bytes_per_cycle")) {
    fix_l2_bw_ = Need(chip, p, "fix_l2_write_bytes_per_cycle");
  }
  if (p.contains("mte3_l2_write_bytes_per_cycle")) {
    mte3_l2_bw_ = Need(chip, p, "mte3_l2_write_bytes_per_cycle");
  }
  for (double v : {fix_l2_bw_, mte3_l2_bw_}) {
    if (v < 0) {
      Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip ", chip.name,
           ": an l2_write_bytes_per_cycle entry of pipes is ", v, "; it must be positive");
    }
  }
  // Optional: Fixpipe L0C -> UB (chips with fixpipe_to_ub; default: the L0C -> GM rate).
  fix_ub_bw_ = p.contains("fix_ub_bytes_per_cycle") ? Need(chip, p, "fix_ub_bytes_per_cycle")
                                                    : fix_bw_;
  cube_head_ = Need(chip, p, "cube_head_cycles");
  flag_cycles_ = Need(chip, p, "flag_cycles");
  sync_all_cycles_ = Need(chip, p, "sync_all_cycles");
  for (double v : {mte2_bw_, mte3_bw_, mte1_l0a_bw_, mte1_l0b_bw_, mte1_bt_bw_, fix_bw_,
                   fix_ub_bw_, vector_bytes_per_cycle_}) {
    if (v <= 0) {
      Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip ", chip.name,
           ": a bytes_per_cycle entry of pipes is ", v, "; bandwidths must be positive");
    }
  }
  if (p.contains("cube_macs_per_cycle") && p["cube_macs_per_cycle"].is_object()) {
    for (const auto& [k, v] : p["cube_macs_per_cycle"].items()) {
      if (v.is_number()) cube_macs_[k] = v.get<double>();
    }
  }
  if (p.contains("vector_costs") && p["vector_costs"].is_object()) {
    for (const auto& [api, row] : p["vector_costs"].items()) {
      if (!row.is_object()) continue;
      VecRow vr;
      auto pair = [&](const char* k, double* a, double* b) {
        if (!row.contains(k) || !row[k].is_array() || row[k].size() != 2) {
          Fail(StatusCode::kInvalidArgument, std::source_location::current(), "chip ", chip.name,
               ": pipes.vector_costs.", api, ".", k, " must be [a, b] (cycles = a*n + b)");
        }
        *a = row[k][0].get<double>();
        *b = row[k][1].get<double>();
      };
      pair("f16", &vr.a16, &vr.b16);
      pair("f32", &vr.a32, &vr.b32);
      vector_rows_[api] = vr;
    }
  }
}

double CostModel::CubeMacsPerCycle(DType dt) const {
  auto it = cube_macs_.find(DTypeKey(dt));
  if (it == cube_macs_.end()) it = cube_macs_.find("f16");
  return it == cube_macs_.end() || it->second <= 0 ? 4096.0 : it->second;
}

double CostModel::VectorCost(const char* api, DType dt, uint64_t elements,
                             uint32_t repeat) const {
  const VecRow* row = nullptr;
  auto it = row_cache_.find(api);
  if (it != row_cache_.end()) {
    row = it->second;
  } else {
    auto r = vector_rows_.find(api);
    row = r == vector_rows_.end() ? nullptr : &r->second;
    row_cache_.emplace(api, row);
  }
  const double size = std::max<double>(1.0, static_cast<double>(DTypeSize(dt)));
  double n = static_cast<double>(elements);
  if (repeat > 0) n = std::max(n, repeat * (vector_bytes_per_cycle_ / size));
  if (row == nullptr) return n * size / vector_bytes_per_cycle_ + vector_default_b_;
  if (size <= 1) return row->a16 * 0.5 * n + row->b16;
  if (size <= 2) return row->a16 * n + row->b16;
  if (size <= 4) return row->a32 * n + row->b32;
  return row->a32 * 2 * n + row->b32;
}

double CostModel::PipeBytesPerCycle(const Record& r) const {
  switch (r.pipe) {
    case Pipe::kMte2: return mte2_bw_;
    case Pipe::kMte3: return mte3_bw_;
    case Pipe::kFix: return r.dst == arch::Buffer::kUb ? fix_ub_bw_ : fix_bw_;
    case Pipe::kMte1:
      return r.dst == arch::Buffer::kL0A ? mte1_l0a_bw_
             : r.dst == arch::Buffer::kL0B ? mte1_l0b_bw_ : mte1_bt_bw_;
    default: return vector_bytes_per_cycle_;
  }
}

double CostModel::Cost(const Record& r, double gm_bytes_per_cycle, double l2_hit,
                       double read_bytes) const {
  const bool gm = r.dst == arch::Buffer::kGm || r.src == arch::Buffer::kGm;
  const double bytes = static_cast<double>(r.bytes);
  auto rate = [&](double pipe_bw) { return gm ? std::min(pipe_bw, gm_bytes_per_cycle) : pipe_bw; };
  if (r.op == Op::kCopy && r.src == arch::Buffer::kGm &&
      (r.pipe == Pipe::kMte2 || (r.pipe == Pipe::kMte1 && l2_hit > 0 && l2_read_bw_ > 0))) {
    const double head = r.pipe == Pipe::kMte1   ? mte1_head_
                        : r.dst == arch::Buffer::kL1 ? mte2_l1_head_
                                                     : mte2_head_;
    const double pipe_bw = r.pipe == Pipe::kMte2 ? mte2_bw_ : PipeBytesPerCycle(r);
    const double b = read_bytes > 0 ? read_bytes : bytes;
    const double hit = l2_read_bw_ > 0 ? std::clamp(l2_hit, 0.0, 1.0) : 0.0;
    double t = head + b * (1 - hit) / std::min(pipe_bw, gm_bytes_per_cycle);
    if (hit > 0) t += b * hit / l2_read_bw_;
    return t;
  }
  if (r.op == Op::kCopy && r.dst == arch::Buffer::kGm && l2_hit > 0 &&
      (r.pipe == Pipe::kFix || r.pipe == Pipe::kMte3)) {
    // A write partly into lines L2 holds (Note [L2 reuse]).
    const bool fix = r.pipe == Pipe::kFix;
    const double l2_bw = fix ? fix_l2_bw_ : mte3_l2_bw_;
    if (l2_bw > 0) {
      const double hit = std::clamp(l2_hit, 0.0, 1.0);
      return (fix ? fix_head_ : mte3_head_) + bytes * (1 - hit) / rate(fix ? fix_bw_ : mte3_bw_) +
             bytes * hit / l2_bw;
    }
  }
  switch (r.pipe) {
    case Pipe::kV:
      if (r.op == Op::kCopy) return VectorCost("Copy", r.dtype, r.elements, r.repeat);
      return VectorCost(r.api, r.dtype, r.elements, r.repeat);
    case Pipe::kM:
      return cube_head_ + static_cast<double>(r.flops) / (2.0 * CubeMacsPerCycle(r.dtype));
    case Pipe::kMte2: return mte2_head_ + bytes / rate(mte2_bw_);
    case Pipe::kMte3: return mte3_head_ + bytes / rate(mte3_bw_);
    case Pipe::kMte1: return mte1_head_ + bytes / PipeBytesPerCycle(r);
    case Pipe::kFix: return fix_head_ + bytes / rate(PipeBytesPerCycle(r));
    case Pipe::kS: return scalar_cycles_;
    case Pipe::kAll: return 0;
  }
  return 0;
}

double CostModel::Startup(Pipe p) const {
  switch (p) {
    case Pipe::kV: return vector_head_;
    case Pipe::kMte2: return mte2_startup_;
    case Pipe::kMte3: return mte3_startup_;
    default: return 0;
  }
}

namespace {

struct Stamp {
  double t = 0;
  int64_t rec = -1;
};

enum class State : uint8_t { kWaitPred, kRun, kAtSync, kBlocked, kDone };

struct CoreState {
  size_t pc = 0;
  double issue = 0;
  std::array<double, kP> pipe_free{};
  std::array<bool, kP> started{};
  std::unordered_map<uint64_t, Stamp> flags;     // (src, dst, id) -> last SetFlag
  std::unordered_map<uint64_t, Stamp> queue[2];  // slot -> last EnQue / FreeTensor
  State state = State::kRun;
  double arrival = 0;
  int pred = -1;  // the block that must finish before this one starts (waves)
};

// What the replay needs per GM copy, decided before it (Notes [L2 reuse], [GM bursts],
// [HBM sharing]): per core and record, the L2-hit fraction, the burst-rounded read bytes and
// the HBM share (empty vectors: none / r.bytes / the launch's static share).
struct GmPlan {
  std::vector<std::vector<double>> hit, read_bytes, share;
  std::vector<double> core_hit;  // per core: hit bytes / read bytes
  uint64_t read = 0, distinct = 0;
  double hit_fraction = 0;
  double write_hit_fraction = 0;  // of GM write bytes into lines L2 held
  int streams = 0;
  double static_share = 0;
};

// A least-recently-used set of cache lines with a fixed capacity: an open-addressing table
// (linear probing, backward-shift deletion) from line to a node of an intrusive list, so a touch
// allocates nothing.
class LineLru {
 public:
  // `expected`: about how many distinct lines will be touched (sizes the table once).
  LineLru(size_t capacity, size_t expected) : cap_(std::max<size_t>(1, capacity)) {
    const size_t want = 2 * std::min(cap_, std::max<size_t>(1, expected)) + 1;
    size_t size = 16;
    shift_ = 60;
    while (size < want) {
      size <<= 1;
      --shift_;
    }
    keys_.assign(size, kEmpty);
    vals_.assign(size, 0);
    mask_ = size - 1;
    nodes_.reserve(std::min(cap_, std::max<size_t>(1, expected)));
  }
  // Touches `line`; returns whether it was resident. A miss inserts it, evicting the least
  // recently used line when full.
  bool Touch(uint64_t line) {
    size_t i = Home(line);
    while (keys_[i] != kEmpty) {
      if (keys_[i] == line) {
        Unlink(vals_[i]);
        PushFront(vals_[i]);
        return true;
      }
      i = (i + 1) & mask_;
    }
    uint32_t n;
    if (nodes_.size() < cap_) {
      n = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back({line, kNil, kNil});
    } else {
      n = tail_;
      Unlink(n);
      Erase(nodes_[n].line);
      nodes_[n].line = line;
      i = Home(line);
      while (keys_[i] != kEmpty) i = (i + 1) & mask_;
    }
    keys_[i] = line;
    vals_[i] = n;
    PushFront(n);
    return false;
  }

 private:
  static constexpr uint32_t kNil = 0xffffffffu;
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Node {
    uint64_t line;
    uint32_t prev, next;
  };
  size_t Home(uint64_t k) const {
    return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }
  void Erase(uint64_t k) {
    size_t i = Home(k);
    while (keys_[i] != k) i = (i + 1) & mask_;
    keys_[i] = kEmpty;
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    for (size_t j = (i + 1) & mask_; keys_[j] != kEmpty; j = (j + 1) & mask_) {
      const size_t h = Home(keys_[j]);
      const bool movable = ((j - h) & mask_) >= ((j - i) & mask_);
      if (movable) {
        keys_[i] = keys_[j];
        vals_[i] = vals_[j];
        keys_[j] = kEmpty;
        i = j;
      }
    }
  }
  void Unlink(uint32_t n) {
    Node& x = nodes_[n];
    if (x.prev != kNil) nodes_[x.prev].next = x.next; else head_ = x.next;
    if (x.next != kNil) nodes_[x.next].prev = x.prev; else tail_ = x.prev;
    x.prev = x.next = kNil;
  }
  void PushFront(uint32_t n) {
    nodes_[n].prev = kNil;
    nodes_[n].next = head_;
    if (head_ != kNil) nodes_[head_].prev = n;
    head_ = n;
    if (tail_ == kNil) tail_ = n;
  }
  size_t cap_;
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t mask_ = 0;
  int shift_ = 0;
  std::vector<Node> nodes_;
  uint32_t head_ = kNil, tail_ = kNil;
};

bool IsGmStreamCopy(const Record& r) {
  return r.op == Op::kCopy && (r.src == arch::Buffer::kGm || r.dst == arch::Buffer::kGm) &&
         r.pipe != Pipe::kAll;
}

// Counts the streams, the distinct read footprint, and runs the reads through L2 and the burst
// rounding (Notes [L2 reuse], [GM bursts]).
GmPlan PlanGm(const LaunchRecord& l, const CostModel& m) {
  GmPlan plan;
  const size_t n = l.cores.size();
  for (const auto& core : l.cores) {
    std::array<bool, kP> gm{};
    for (const Record& r : core->records) {
      if (IsGmStreamCopy(r)) gm[static_cast<int>(r.pipe)] = true;
    }
    for (bool b : gm) plan.streams += b;
    plan.read += core->gm_read_bytes;
  }
  plan.static_share =
      plan.streams > 0 ? m.hbm_bytes_per_cycle() / plan.streams : m.hbm_bytes_per_cycle();
  {  // distinct footprint (reported)
    std::vector<std::pair<uint64_t, uint64_t>> all;
    for (const auto& core : l.cores) {
      for (const GmRange& r : core->gm_reads) all.emplace_back(r.lo, r.hi);
    }
    std::sort(all.begin(), all.end());
    uint64_t lo = 0, hi = 0;
    for (const auto& [a, b] : all) {
      if (a > hi) {
        plan.distinct += hi - lo;
        lo = a;
        hi = b;
      } else {
        hi = std::max(hi, b);
      }
    }
    plan.distinct += hi - lo;
  }
  const uint64_t burst = m.gm_burst_bytes();
  bool l2 = m.l2_read_bytes_per_cycle() > 0 && m.l2_bytes() > 0 && m.l2_line_bytes() > 0;
  const bool writes = l2 && m.l2_writes();
  plan.core_hit.assign(n, 0.0);
  // Shortcuts that change nothing: when no byte is read twice (nor written, with L2 writes) and
  // every range starts and ends on a line, no two accesses share a line, so nothing can hit;
  // when every range is whole bursts, rounding changes nothing.
  bool aligned = true, whole_bursts = true, any_write = false;
  for (const auto& core : l.cores) {
    for (const GmRange& r : core->gm_reads) {
      if (l2 && (r.lo % m.l2_line_bytes() != 0 || r.hi % m.l2_line_bytes() != 0)) aligned = false;
      if (burst > 0 && (r.hi - r.lo) % burst != 0) whole_bursts = false;
    }
    any_write |= writes && !core->gm_writes.empty();
  }
  if (l2 && aligned && plan.distinct == plan.read && !any_write) l2 = false;
  if (!l2 && (burst == 0 || whole_bursts)) return plan;
  plan.hit.resize(n);
  plan.read_bytes.resize(n);
  std::vector<std::vector<double>> len(n);  // per record: bytes asked for
  // Per core, the GM accesses the L2 model sees, in program order: (range, is a write).
  std::vector<std::vector<std::pair<const GmRange*, bool>>> seq(n);
  std::vector<uint64_t> total(n, 0);
  for (size_t c = 0; c < n; ++c) {
    const CoreStream& cs = *l.cores[c];
    const std::vector<GmRange> none;
    const std::vector<GmRange>& w = writes ? cs.gm_writes : none;
    if (cs.gm_reads.empty() && w.empty()) continue;
    const size_t recs = cs.records.size();
    plan.hit[c].assign(recs, 0.0);
    plan.read_bytes[c].assign(recs, 0.0);
    len[c].assign(recs, 0.0);
    seq[c].reserve(cs.gm_reads.size() + w.size());
    for (size_t i = 0, j = 0; i < cs.gm_reads.size() || j < w.size();) {
      const bool read = j >= w.size() || (i < cs.gm_reads.size() &&
                                          cs.gm_reads[i].record <= w[j].record);
      seq[c].emplace_back(read ? &cs.gm_reads[i++] : &w[j++], !read);
    }
    total[c] = cs.gm_read_bytes + (writes ? cs.gm_write_bytes : 0);
  }
  const uint64_t line = l2 ? m.l2_line_bytes() : 1;
  size_t ranges = 0;
  uint64_t accessed = 0;
  for (size_t c = 0; c < n; ++c) {
    ranges += seq[c].size();
    accessed += total[c];
  }
  LineLru lru(l2 ? static_cast<size_t>(m.l2_bytes() / static_cast<double>(line)) : 1,
              l2 ? static_cast<size_t>(accessed / line) + ranges : 1);
  // The cores' accesses interleaved by progress: (done bytes / core's accessed bytes, core).
  std::vector<size_t> pos(n, 0);
  std::vector<uint64_t> done(n, 0);
  using Item = std::pair<double, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> order;
  for (size_t c = 0; c < n; ++c) {
    if (!seq[c].empty()) order.push({0.0, c});
  }
  std::vector<uint64_t> core_hit_bytes(n, 0), core_bytes(n, 0);
  uint64_t hit_total = 0, write_hit_total = 0, write_total = 0;
  while (!order.empty()) {
    const size_t c = order.top().second;
    order.pop();
    const auto [g, write] = seq[c][pos[c]++];
    const uint64_t bytes = g->hi - g->lo;
    uint64_t hit = 0;
    if (l2) {
      for (uint64_t ln = g->lo / line; ln * line < g->hi; ++ln) {
        const uint64_t a = std::max(g->lo, ln * line), b = std::min(g->hi, (ln + 1) * line);
        if (lru.Touch(ln)) hit += b - a;
      }
    }
    if (g->record < plan.hit[c].size()) {
      plan.hit[c][g->record] += static_cast<double>(hit);
      len[c][g->record] += static_cast<double>(bytes);
      if (!write) {
        const uint64_t rounded = burst > 0 ? (bytes + burst - 1) / burst * burst : bytes;
        plan.read_bytes[c][g->record] += static_cast<double>(rounded);
      }
    }
    if (write) {
      write_hit_total += hit;
      write_total += bytes;
    } else {
      core_hit_bytes[c] += hit;
      core_bytes[c] += bytes;
      hit_total += hit;
    }
    done[c] += bytes;
    if (pos[c] < seq[c].size()) {
      order.push({static_cast<double>(done[c]) / static_cast<double>(total[c]), c});
    }
  }
  for (size_t c = 0; c < n; ++c) {
    for (size_t i = 0; i < len[c].size(); ++i) {
      if (len[c][i] > 0) plan.hit[c][i] /= len[c][i];
    }
    plan.core_hit[c] = core_bytes[c] > 0 ? static_cast<double>(core_hit_bytes[c]) /
                                               static_cast<double>(core_bytes[c])
                                         : 0.0;
  }
  plan.hit_fraction =
      plan.read > 0 ? static_cast<double>(hit_total) / static_cast<double>(plan.read) : 0.0;
  plan.write_hit_fraction = write_total > 0 ? static_cast<double>(write_hit_total) /
                                                  static_cast<double>(write_total)
                                            : 0.0;
  return plan;
}

// A GM share no pipe reaches: the cost of a copy at its pipe's own rate.
constexpr double kUnthrottled = 1e30;

// One target counter of a cross-core flag. An increment takes one set from each of its
// participants (Note [Cross-core flags] in kernel/sync/cross_core.h): a second set of the same
// core waits for the others' next ones, so the sets are kept per setter until every participant
// has one.
struct CrossFifo {
  std::deque<Stamp> sets;  // increments; rec holds (core << 32) | record
  std::map<size_t, std::deque<Stamp>> arrivals;  // setter core -> its sets not in an increment
};

class Replayer {
 public:
  Replayer(const LaunchRecord& l, const CostModel& m, const GmPlan& plan)
      : l_(l), m_(m), plan_(plan) {}

  Timeline Run() {
    const size_t n = l_.cores.size();
    tl_.cores.resize(n);
    st_.resize(n);
    CountStreams();
    AssignWaves();
    for (size_t c = 0; c < n; ++c) {
      tl_.cores[c].start.assign(l_.cores[c]->records.size(), 0.0);
      tl_.cores[c].end.assign(l_.cores[c]->records.size(), 0.0);
      tl_.cores[c].issue.assign(l_.cores[c]->records.size(), 0.0);
    }
    tl_.issue_cycles = m_.scalar_cycles();
    for (size_t c = 0; c < n; ++c) {
      if (st_[c].state == State::kRun) Begin(c, 0);
    }
    for (;;) {
      bool progress = false;
      bool all_done = true;
      for (size_t c = 0; c < n; ++c) {
        CoreState& s = st_[c];
        if (s.state == State::kWaitPred && st_[s.pred].state == State::kDone) {
          Begin(c, tl_.cores[s.pred].finish);
          progress = true;
        }
        if (s.state == State::kRun || s.state == State::kBlocked) {
          const size_t pc = s.pc;
          Step(c);
          progress |= s.pc != pc || s.state == State::kDone;
        }
        all_done &= s.state == State::kDone;
      }
      if (all_done) break;
      if (progress) continue;
      if (!ReleaseSync() && !ForceCrossWait()) break;
    }
    for (size_t c = 0; c < n; ++c) tl_.body_cycles = std::max(tl_.body_cycles, tl_.cores[c].finish);
    return std::move(tl_);
  }

 private:
  void CountStreams() {
    tl_.gm_streams = plan_.streams;
    tl_.gm_read_bytes = plan_.read;
    tl_.gm_read_distinct_bytes = plan_.distinct;
    tl_.l2_hit_fraction = plan_.hit_fraction;
    tl_.l2_write_hit_fraction = plan_.write_hit_fraction;
    tl_.gm_share_bytes_per_cycle = plan_.static_share;
    for (size_t c = 0; c < tl_.cores.size(); ++c) {
      tl_.cores[c].l2_hit_fraction = plan_.core_hit[c];
    }
  }

  int Capacity(sim::CoreType t) const {
    const arch::Chip& chip = *l_.chip;
    if (t == sim::CoreType::kAiv) return chip.split() ? chip.aiv_count : chip.aic_count;
    return chip.aic_count;
  }

  void AssignWaves() {
    std::array<std::vector<int>, 3> by_type;
    for (size_t c = 0; c < l_.cores.size(); ++c) {
      by_type[static_cast<int>(l_.cores[c]->id.type)].push_back(static_cast<int>(c));
    }
    for (int t = 0; t < 3; ++t) {
      const int cap = std::max(1, Capacity(static_cast<sim::CoreType>(t)));
      const auto& v = by_type[t];
      for (size_t j = 0; j < v.size(); ++j) {
        tl_.cores[v[j]].physical_core = static_cast<int>(j % cap);
        if (j >= static_cast<size_t>(cap)) {
          st_[v[j]].state = State::kWaitPred;
          st_[v[j]].pred = v[j - cap];
        }
      }
    }
  }

  void Begin(size_t c, double t) {
    CoreState& s = st_[c];
    s.state = State::kRun;
    s.issue = t;
    s.pipe_free.fill(t);
    tl_.cores[c].begin = t;
  }

  double Drained(const CoreState& s) const {
    double t = s.issue;
    for (double f : s.pipe_free) t = std::max(t, f);
    return t;
  }

  static uint64_t FlagKey(const Record& r, bool set) {
    const int src = static_cast<int>(set ? r.pipe : r.partner);
    const int dst = static_cast<int>(set ? r.partner : r.pipe);
    return (r.key << 8) | static_cast<uint64_t>(src * 8 + dst);
  }

  // Executes records of core c until it ends, arrives at a SyncAll or blocks on a cross-core flag.
  void Step(size_t c) {
    CoreState& s = st_[c];
    CoreTimeline& ct = tl_.cores[c];
    const auto& recs = l_.cores[c]->records;
    const double static_share = plan_.static_share;
    const std::vector<double>* hits = c < plan_.hit.size() ? &plan_.hit[c] : nullptr;
    const std::vector<double>* reads = c < plan_.read_bytes.size() ? &plan_.read_bytes[c] : nullptr;
    const std::vector<double>* shares = c < plan_.share.size() ? &plan_.share[c] : nullptr;
    if (hits && hits->empty()) hits = nullptr;
    if (reads && reads->empty()) reads = nullptr;
    if (shares && shares->empty()) shares = nullptr;
    const double issue_cost = m_.scalar_cycles();
    s.state = State::kRun;
    while (s.pc < recs.size()) {
      const Record& r = recs[s.pc];
      const uint32_t i = static_cast<uint32_t>(s.pc);
      const int p = static_cast<int>(r.pipe);
      double& pf = s.pipe_free[p < kP ? p : 0];
      const double issue = s.issue;
      double start = issue, end = issue;
      ct.issue[i] = issue;
      switch (r.op) {
        case Op::kCompute:
        case Op::kCopy: {
          const double share = shares ? (*shares)[i] : static_share;
          const double hit = hits ? (*hits)[i] : 0.0;
          const double read = reads ? (*reads)[i] : 0.0;
          if (r.pipe == Pipe::kS || r.pipe == Pipe::kAll) {
            end = issue + m_.Cost(r, share, hit, read);
            s.issue = end;
            ct.busy[0] += end - issue;
            ++ct.count[0];
            ++s.pc;
            ct.start[i] = start;
            ct.end[i] = end;
            continue;
          }
          double cost = m_.Cost(r, share, hit, read);
          if (share < m_.max_gm_pipe_bytes_per_cycle() && IsGmStreamCopy(r)) {
            ct.hbm_wait[p] += std::max(0.0, cost - m_.Cost(r, kUnthrottled, hit, read));
          }
          if (!s.started[p]) {
            s.started[p] = true;
            cost += m_.Startup(r.pipe);
          }
          start = std::max(pf, issue);
          end = start + cost;
          pf = end;
          ct.busy[p] += cost;
          ++ct.count[p];
          if (r.dst == arch::Buffer::kGm) ct.gm_write += r.bytes;
          if (r.src == arch::Buffer::kGm) ct.gm_read += r.bytes;
          ct.flops += r.flops;
          break;
        }
        case Op::kScalar:
          // Runs in place on the scalar unit: its issue cycle below is its cost.
          end = issue + issue_cost;
          ++ct.count[0];
          break;
        case Op::kSetFlag:
        case Op::kQueueSet: {
          start = r.pipe == Pipe::kS ? issue : std::max(pf, issue);
          end = start + m_.flag_cycles();
          if (r.pipe != Pipe::kS) pf = end;
          Stamp& st = r.op == Op::kSetFlag ? s.flags[FlagKey(r, true)]
                                           : s.queue[r.channel][r.key];
          st = {end, i};
          break;
        }
        case Op::kWaitFlag:
        case Op::kQueueWait: {
          const Stamp* st = nullptr;
          if (r.op == Op::kWaitFlag) {
            auto it = s.flags.find(FlagKey(r, false));
            if (it != s.flags.end()) st = &it->second;
          } else {
            auto it = s.queue[r.channel].find(r.key);
            if (it != s.queue[r.channel].end()) st = &it->second;
          }
          start = r.pipe == Pipe::kS ? issue : std::max(pf, issue);
          end = std::max(start, st ? st->t : 0.0);
          if (r.pipe == Pipe::kS) {
            s.issue = end;
          } else {
            pf = end;
          }
          if (st && st->rec >= 0) {
            tl_.edges.push_back({r.op == Op::kWaitFlag ? Edge::kFlag : Edge::kQueue,
                                 static_cast<uint32_t>(c), static_cast<uint32_t>(st->rec),
                                 static_cast<uint32_t>(c), i});
          }
          break;
        }
        case Op::kBarrier:
          if (r.pipe == Pipe::kAll) {
            end = Drained(s);
            s.pipe_free.fill(end);
            s.issue = end;
          } else {
            start = std::max(pf, issue);
            end = start;
            pf = end;
          }
          break;
        case Op::kSyncAll:
          s.arrival = Drained(s);
          ct.start[i] = s.arrival;
          s.state = State::kAtSync;
          return;  // ReleaseSync finishes this record
        case Op::kCrossSet: {
          start = r.pipe == Pipe::kS || r.pipe == Pipe::kAll ? issue : std::max(pf, issue);
          end = start;
          if (r.pipe != Pipe::kS && r.pipe != Pipe::kAll) pf = end;
          // One increment needs a set from each of r.repeat participants (modes 0 and 1, AIVs
          // in mode 2); it happens when the last of them does.
          CrossFifo& f = cross_[r.key];
          const Stamp mine{end, static_cast<int64_t>((uint64_t{c} << 32) | i)};
          const uint32_t need = std::max<uint32_t>(1, r.repeat);
          if (need == 1) {
            f.sets.push_back(mine);
            break;
          }
          f.arrivals[c].push_back(mine);
          if (f.arrivals.size() < need) break;
          Stamp last{-1, -1};
          for (auto it = f.arrivals.begin(); it != f.arrivals.end();) {
            if (it->second.front().t >= last.t) last = it->second.front();
            it->second.pop_front();
            it = it->second.empty() ? f.arrivals.erase(it) : std::next(it);
          }
          f.sets.push_back(last);
          break;
        }
        case Op::kCrossWait: {
          auto& fifo = cross_[r.key].sets;
          if (fifo.empty()) {
            s.state = State::kBlocked;
            return;
          }
          const Stamp set = fifo.front();
          fifo.pop_front();
          const bool scalar = r.pipe == Pipe::kS || r.pipe == Pipe::kAll;
          start = scalar ? issue : std::max(pf, issue);
          end = std::max(start, set.t);
          if (scalar) s.issue = end; else pf = end;
          if (set.rec >= 0) {
            tl_.edges.push_back({Edge::kCross, static_cast<uint32_t>(set.rec >> 32),
                                 static_cast<uint32_t>(set.rec & 0xffffffff),
                                 static_cast<uint32_t>(c), i});
          }
          break;
        }
      }
      ct.start[i] = start;
      ct.end[i] = end;
      s.issue += issue_cost;
      ct.busy[0] += issue_cost;
      ++s.pc;
    }
    s.state = State::kDone;
    ct.finish = Drained(s);
  }

  bool ReleaseSync() {
    double release = -1;
    for (const CoreState& s : st_) {
      if (s.state == State::kAtSync) release = std::max(release, s.arrival);
    }
    if (release < 0) return false;
    release += m_.sync_all_cycles();
    int64_t last = -1;
    for (size_t c = 0; c < st_.size(); ++c) {
      if (st_[c].state == State::kAtSync && st_[c].arrival + m_.sync_all_cycles() == release) {
        last = static_cast<int64_t>(c);
      }
    }
    for (size_t c = 0; c < st_.size(); ++c) {
      CoreState& s = st_[c];
      if (s.state != State::kAtSync) continue;
      const uint32_t i = static_cast<uint32_t>(s.pc);
      tl_.cores[c].end[i] = release;
      if (last >= 0 && static_cast<size_t>(last) != c) {
        tl_.edges.push_back({Edge::kSyncAll, static_cast<uint32_t>(last),
                             static_cast<uint32_t>(st_[last].pc), static_cast<uint32_t>(c), i});
      }
      s.pipe_free.fill(release);
      s.issue = release + m_.scalar_cycles();
      tl_.cores[c].busy[0] += m_.scalar_cycles();
      ++s.pc;
      s.state = State::kRun;
    }
    return true;
  }

  // Every unfinished core waits on a cross-core flag no core will set: the functional run would
  // have reported a deadlock, so the records are incomplete. Let the earliest waiter pass.
  bool ForceCrossWait() {
    int best = -1;
    for (size_t c = 0; c < st_.size(); ++c) {
      if (st_[c].state == State::kBlocked && (best < 0 || st_[c].issue < st_[best].issue)) {
        best = static_cast<int>(c);
      }
    }
    if (best < 0) return false;
    const Record& r = l_.cores[best]->records[st_[best].pc];
    cross_[r.key].sets.push_back({st_[best].issue, -1});
    tl_.notes.push_back(StrCat(l_.cores[best]->name, ": ", r.api, " at ", r.file, ":", r.line,
                               " waits on a cross-core flag no core set; the model let it pass"));
    st_[best].state = State::kRun;
    return true;
  }

  const LaunchRecord& l_;
  const CostModel& m_;
  const GmPlan& plan_;
  Timeline tl_;
  std::vector<CoreState> st_;
  std::unordered_map<uint64_t, CrossFifo> cross_;
};

}  // namespace

namespace {

// Sets plan.share from a first replay: per GM copy, the HBM over the mean number of streams with
// an HBM transfer in flight during its interval (Note [HBM sharing]). The count of transfers in
// flight is a step function of time; its integral over a copy's interval, divided by the
// interval, is the copy's mean (exact, at least 1: the copy itself).
void ShareByActivity(const LaunchRecord& l, const CostModel& m, const Timeline& t1,
                     GmPlan* plan) {
  auto hbm_bytes = [&](size_t c, size_t i, const Record& r) {
    if (!IsGmStreamCopy(r)) return 0.0;
    const double h = c < plan->hit.size() && !plan->hit[c].empty() ? plan->hit[c][i] : 0.0;
    if (r.dst == arch::Buffer::kGm && !m.l2_writes()) return static_cast<double>(r.bytes);
    return static_cast<double>(r.bytes) * (1 - h);
  };
  std::vector<double> starts, ends;  // of the HBM transfers
  for (size_t c = 0; c < l.cores.size(); ++c) {
    const auto& recs = l.cores[c]->records;
    const CoreTimeline& ct = t1.cores[c];
    for (size_t i = 0; i < recs.size(); ++i) {
      if (ct.end[i] <= ct.start[i] || hbm_bytes(c, i, recs[i]) <= 0) continue;
      starts.push_back(ct.start[i]);
      ends.push_back(ct.end[i]);
    }
  }
  if (starts.empty()) return;
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  // Breakpoints t[j], the count on [t[j], t[j + 1]) and the integral up to t[j].
  std::vector<double> t, count, integral;
  t.reserve(2 * starts.size());
  count.reserve(2 * starts.size());
  integral.reserve(2 * starts.size());
  double n = 0, acc = 0;
  for (size_t a = 0, b = 0; a < starts.size() || b < ends.size();) {
    const double at = b >= ends.size() || (a < starts.size() && starts[a] < ends[b]) ? starts[a]
                                                                                    : ends[b];
    if (!t.empty()) acc += n * (at - t.back());
    while (a < starts.size() && starts[a] == at) ++n, ++a;
    while (b < ends.size() && ends[b] == at) --n, ++b;
    t.push_back(at);
    count.push_back(n);
    integral.push_back(acc);
  }
  auto integral_at = [&](double x) {
    const size_t j = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), x) - t.begin());
    if (j == 0) return 0.0;
    return integral[j - 1] + count[j - 1] * (x - t[j - 1]);
  };
  plan->share.assign(l.cores.size(), {});
  const double hbm = m.hbm_bytes_per_cycle();
  double weighted = 0, weight = 0;
  for (size_t c = 0; c < l.cores.size(); ++c) {
    const auto& recs = l.cores[c]->records;
    const CoreTimeline& ct = t1.cores[c];
    std::vector<double>& sh = plan->share[c];
    sh.assign(recs.size(), plan->static_share);
    for (size_t i = 0; i < recs.size(); ++i) {
      const double hb = hbm_bytes(c, i, recs[i]);
      if (hb <= 0 || ct.end[i] <= ct.start[i]) continue;
      const double mean = (integral_at(ct.end[i]) - integral_at(ct.start[i])) /
                          (ct.end[i] - ct.start[i]);
      sh[i] = hbm / std::max(1.0, mean);
      weighted += sh[i] * hb;
      weight += hb;
    }
  }
  plan->static_share = weight > 0 ? weighted / weight : plan->static_share;
}

}  // namespace

Timeline Replay(const LaunchRecord& launch, const CostModel& model) {
  GmPlan plan = PlanGm(launch, model);
  Timeline first = Replayer(launch, model, plan).Run();
  // When even the static share is at least every GM pipe's rate, no copy is throttled and the
  // active shares (never below it) would change nothing.
  if (!model.hbm_share_active() || plan.streams <= 1 ||
      plan.static_share >= model.max_gm_pipe_bytes_per_cycle()) {
    return first;
  }
  ShareByActivity(launch, model, first, &plan);
  Timeline second = Replayer(launch, model, plan).Run();
  return second;
}

}  // namespace aicore::perf
