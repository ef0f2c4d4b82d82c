// The timing model: replays recorded per-core streams through a model of a chip. Each pipe of a
// core is an in-order queue; flags, queue events, barriers, SyncAll and cross-core flags are
// dependency edges; costs come from the chip preset's "pipes" section (never from code).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/perf/recorder.h"

namespace aicore::perf {

// The cost constants of one chip, read from chip.pipes. Construction fails (aicore::Error,
// InvalidArgument) naming the missing or malformed key.
class CostModel {
 public:
  explicit CostModel(const arch::Chip& chip);

  // Returns the cycles `r` occupies its pipe, excluding the per-core pipe start-up, when GM
  // traffic flows at `gm_bytes_per_cycle` at most.
  // `l2_hit` is the fraction of a GM read's bytes that L2 serves, or of a GM write's bytes that
  // land in lines L2 holds (Note [L2 reuse]);
  // `read_bytes` > 0 replaces r.bytes for a GM read: its bytes with every contiguous run rounded
  // up to whole bursts (Note [GM bursts]).
  double Cost(const Record& r, double gm_bytes_per_cycle, double l2_hit = 0,
              double read_bytes = 0) const;
  // L2 capacity, read bandwidth and line (0 when the preset gives none: no L2 reuse).
  double l2_bytes() const { return l2_bytes_; }
  double l2_read_bytes_per_cycle() const { return l2_read_bw_; }
  uint64_t l2_line_bytes() const { return l2_line_; }
  // True when GM writes take part in the L2 model: the preset gives an L2 write rate for FIX or
  // MTE3 (Note [L2 reuse]).
  bool l2_writes() const { return l2_read_bw_ > 0 && (fix_l2_bw_ > 0 || mte3_l2_bw_ > 0); }
  // GM read burst (0: reads are not rounded up).
  uint64_t gm_burst_bytes() const { return gm_burst_; }
  // True when the HBM is shared among the streams active at the time (preset hbm_share
  // "active"), false for the static fair share over every stream of the launch ("fair").
  bool hbm_share_active() const { return hbm_share_active_; }
  // Returns the cycles a core's first instruction on `p` pays once (MTE2/MTE3 start-up, V head).
  double Startup(sim::Pipe p) const;
  // Returns the peak rate of the pipe that moves GM bytes for `r`, in bytes per cycle.
  double PipeBytesPerCycle(const Record& r) const;

  // The fastest rate of a pipe that moves GM bytes (MTE2, MTE3, FIX), bytes per cycle.
  double max_gm_pipe_bytes_per_cycle() const {
    return std::max({mte2_bw_, mte3_bw_, fix_bw_});
  }
  double clock_hz() const { return clock_hz_; }
  double hbm_bytes_per_cycle() const { return hbm_bytes_per_cycle_; }
  double launch_overhead_cycles() const { return launch_overhead_us_ * 1e-6 * clock_hz_; }
  double launch_overhead_us() const { return launch_overhead_us_; }
  double scalar_cycles() const { return scalar_cycles_; }
  double sync_all_cycles() const { return sync_all_cycles_; }
  double flag_cycles() const { return flag_cycles_; }
  double vector_bytes_per_cycle() const { return vector_bytes_per_cycle_; }
  // Returns the cube's multiply-accumulates per cycle for `dt` (f16 row for unknown dtypes).
  double CubeMacsPerCycle(DType dt) const;

 private:
  struct VecRow {
    double a16 = 0, b16 = 0, a32 = 0, b32 = 0;
  };
  double VectorCost(const char* api, DType dt, uint64_t elements, uint32_t repeat) const;

  double clock_hz_ = 0;
  double hbm_bytes_per_cycle_ = 0;
  double launch_overhead_us_ = 0;
  double scalar_cycles_ = 0;
  double vector_bytes_per_cycle_ = 0, vector_head_ = 0, vector_default_b_ = 0;
  double mte2_bw_ = 0, mte2_head_ = 0, mte2_l1_head_ = 0, mte2_startup_ = 0;
  double l2_bytes_ = 0, l2_read_bw_ = 0;
  uint64_t l2_line_ = 0, gm_burst_ = 0;
  bool hbm_share_active_ = false;
  double mte3_bw_ = 0, mte3_head_ = 0, mte3_startup_ = 0;
  double mte1_l0a_bw_ = 0, mte1_l0b_bw_ = 0, mte1_bt_bw_ = 0, mte1_head_ = 0;
  double fix_bw_ = 0, fix_head_ = 0;
  // GM writes into lines L2 holds (0: at the GM rate, fix_bw_ / mte3_bw_).
  double fix_l2_bw_ = 0, mte3_l2_bw_ = 0;
  double fix_ub_bw_ = 0;  // Fixpipe L0C -> UB (fix_ub_bytes_per_cycle)
  double cube_head_ = 0;
  double flag_cycles_ = 0, sync_all_cycles_ = 0;
  std::unordered_map<std::string, double> cube_macs_;
  std::unordered_map<std::string, VecRow> vector_rows_;
  // Lookup cache: api literal pointer -> row (nullptr: default formula).
  mutable std::unordered_map<const char*, const VecRow*> row_cache_;
};

// A dependency edge the replay honoured: record `from` on core `from_core` had to complete before
// record `to` on core `to_core` could finish waiting.
struct Edge {
  enum Kind : uint8_t { kFlag, kQueue, kCross, kSyncAll } kind = kFlag;
  uint32_t from_core = 0, from = 0;
  uint32_t to_core = 0, to = 0;
};

// The replayed timeline of one core. Times are in cycles from the launch start.
struct CoreTimeline {
  std::vector<double> start;  // per record
  std::vector<double> end;    // per record
  std::vector<double> issue;  // per record: when the scalar unit issued it
  std::array<double, sim::kPipeCount> busy{};  // cycles each pipe did work
  std::array<uint64_t, sim::kPipeCount> count{};  // instructions per pipe (excluding sync)
  // Per pipe: the part of its busy time GM copies spent beyond their cost at the pipe's own rate
  // because the HBM share was lower (Note [HBM sharing]); a report quantity, not an input.
  std::array<double, sim::kPipeCount> hbm_wait{};
  double l2_hit_fraction = 0;  // of this core's GM read bytes served by L2
  double begin = 0;  // when the core started (later than 0 when blocks exceed the cores)
  double finish = 0;  // when its last pipe drained
  uint64_t gm_read = 0, gm_write = 0, flops = 0;
  int physical_core = 0;  // which physical core of its type ran this block
};

struct Timeline {
  std::vector<CoreTimeline> cores;  // in LaunchRecord::cores order
  std::vector<Edge> edges;
  double body_cycles = 0;  // max over cores of finish
  double issue_cycles = 0;  // scalar cycles per issued instruction
  uint64_t gm_read_bytes = 0;           // GM bytes read by copies, all cores
  uint64_t gm_read_distinct_bytes = 0;  // ... counting each byte once (the HBM's share)
  double l2_hit_fraction = 0;           // of GM read bytes served by L2 (Note [L2 reuse])
  double l2_write_hit_fraction = 0;     // of GM write bytes landing in lines L2 held
  int gm_streams = 0;  // (core, pipe) pairs that move GM bytes, sharing the HBM
  // Each stream's share of the HBM: the static fair share, or with hbm_share "active" the mean
  // share GM copies got (weighted by their HBM bytes; Note [HBM sharing]).
  double gm_share_bytes_per_cycle = 0;
  std::vector<std::string> notes;  // model approximations that were hit (e.g. unmatched waits)
};

// Replays `launch` on `model`. Deterministic; never throws for well-formed records.
// See Note [Replay] in model.cc.
Timeline Replay(const LaunchRecord& launch, const CostModel& model);

}  // namespace aicore::perf
