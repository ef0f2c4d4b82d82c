// The recorder: an Observer that keeps, per core of every launch, the compact stream of the
// instructions the core issued (pipe, operation, bytes, elements, flops, sync keys, call site),
// which the timing model replays afterwards.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/dtype.h"
#include "aicore/sim/core.h"
#include "aicore/sim/funnel.h"

namespace aicore::perf {

// What a recorded instruction does in the timing model.
enum class Op : uint8_t {
  kCompute,    // vector or cube arithmetic on `pipe`
  kCopy,       // data movement on `pipe`
  kScalar,     // scalar work on PIPE_S
  kSetFlag,    // on `pipe` (the source), partner = destination pipe, key = event id
  kWaitFlag,   // on `pipe` (the destination), partner = source pipe, key = event id
  kQueueSet,   // EnQue (channel 0) / FreeTensor (channel 1) on `pipe`; key = the buffer slot
  kQueueWait,  // DeQue (channel 0) / AllocTensor (channel 1) on `pipe`; key = the buffer slot
  kBarrier,    // PipeBarrier on `pipe` (kAll: every pipe)
  kSyncAll,    // all cores of the launch meet
  kCrossSet,   // CrossCoreSetFlag on `pipe`, key = flag id
  kCrossWait,  // CrossCoreWaitFlag on `pipe`, key = flag id
};
// Returns "Compute", "Copy", ... for reports.
const char* OpName(Op op);

// One recorded instruction: 64 bytes, filled from a sim::Instr.
struct Record {
  uint64_t bytes = 0;     // bytes moved (copies) or written (compute)
  uint64_t elements = 0;  // elements processed
  uint64_t flops = 0;
  uint64_t key = 0;       // sync identity (see Op)
  const char* api = "";   // AscendC name, a string literal
  const char* file = "";  // call site
  uint32_t line = 0;
  uint32_t repeat = 0;    // level-0 repeat count, 0 for count forms
  Op op = Op::kCompute;
  sim::Pipe pipe = sim::Pipe::kS;     // the pipe the instruction occupies
  sim::Pipe partner = sim::Pipe::kS;  // flags and queues: the other pipe
  DType dtype = DType::kUnknown;
  arch::Buffer dst = arch::Buffer::kNone;
  arch::Buffer src = arch::Buffer::kNone;
  uint8_t channel = 0;    // queues: 0 = EnQue/DeQue, 1 = FreeTensor/AllocTensor
};

// Returns the record of `instr` (pure; the recorder's conversion, exposed for tests).
Record ToRecord(const sim::Instr& instr);

// An append-only sequence of records in fixed 32 KiB chunks: appending never copies earlier
// records, and the chunks stay below malloc's mmap threshold so a later profile reuses their
// pages instead of faulting fresh ones in.
class RecordLog {
 public:
  static constexpr size_t kChunk = 512;  // records per chunk

  void push_back(const Record& r) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique<Record[]>(kChunk));
    chunks_.back()[size_ % kChunk] = r;
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Record& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  Record& operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }

  class const_iterator {
   public:
    const_iterator(const RecordLog* log, size_t i) : log_(log), i_(i) {}
    const Record& operator*() const { return (*log_)[i_]; }
    const Record* operator->() const { return &(*log_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const RecordLog* log_;
    size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::vector<std::unique_ptr<Record[]>> chunks_;
  size_t size_ = 0;
};

// A byte range [lo, hi) of GM read (or written) by record `record` of its core's stream.
struct GmRange {
  uint64_t lo = 0, hi = 0;
  uint32_t record = 0;
};

// The stream of one core of one launch.
struct CoreStream {
  sim::CoreIdentity id;
  std::string name;  // "AIV 3"
  RecordLog records;
  // The GM bytes its copies read, as ranges in program order (adjacent reads of one copy
  // merged), and their total: the timing model's L2 and burst costs (Note [L2 reuse] in
  // model.cc).
  std::vector<GmRange> gm_reads;
  uint64_t gm_read_bytes = 0;
  // Likewise the GM bytes its copies write (the L2 write costs of the same Note).
  std::vector<GmRange> gm_writes;
  uint64_t gm_write_bytes = 0;
};

// One recorded launch: the kernel, the chip it ran on and the cores' streams, ordered by core type
// then block index once the launch has ended.
struct LaunchRecord {
  std::string kernel;
  uint32_t block_dim = 0;
  std::shared_ptr<const arch::Chip> chip;  // a copy of the chip the launch ran on
  std::vector<std::unique_ptr<CoreStream>> cores;
  uint64_t Instructions() const;
};

// Observer keeping every launch's streams. Thread-safe across cores; attach with
// sim::AttachObserver (or through perf::Profiler). See Note [Recorder cost].
class Recorder : public sim::Observer {
 public:
  Recorder();
  ~Recorder() override;

  void OnLaunchBegin(const char* kernel, uint32_t block_dim) override;
  void OnBlockBegin(sim::Core& core) override;
  void OnInstr(sim::Core& core, const sim::Instr& instr) override;
  void OnBlockEnd(sim::Core& core) override;
  void OnLaunchEnd(const char* kernel) override;

  // Returns the launches recorded so far (completed ones only). Not while a launch runs.
  const std::vector<std::shared_ptr<LaunchRecord>>& launches() const { return launches_; }
  // Forgets every recorded launch.
  void Clear();

 private:
  CoreStream* StreamOf(const sim::Core& core);

  std::mutex mu_;
  std::vector<std::shared_ptr<LaunchRecord>> launches_;
  std::shared_ptr<LaunchRecord> current_;
  std::unordered_map<const sim::Core*, CoreStream*> live_;
};

// Note [Recorder cost]
// OnInstr converts the Instr into a 64-byte Record and appends it to the core's log. The core's
// stream is found through a thread-local cache keyed by (recorder, core, epoch); the epoch changes
// whenever a block begins or ends anywhere, because a finished core's address may be reused by the
// next block. So the mutex is taken once per block per thread, not once per instruction.

}  // namespace aicore::perf
