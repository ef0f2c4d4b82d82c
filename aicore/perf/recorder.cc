// The recorder: converts funnel records into compact per-core streams.
#include "aicore/perf/recorder.h"

#include <algorithm>
#include <cstring>

namespace aicore::perf {

namespace {

std::atomic<uint64_t> g_epoch{1};  // See Note [Recorder cost].

struct StreamCache {
  const Recorder* owner = nullptr;
  const sim::Core* core = nullptr;
  uint64_t epoch = 0;
  CoreStream* stream = nullptr;
};
thread_local StreamCache t_cache;

uint64_t SlotKey(const sim::MemRef& m) {
  return (static_cast<uint64_t>(m.buffer) << 56) | (m.offset & ((uint64_t{1} << 56) - 1));
}

}  // namespace

const char* OpName(Op op) {
  static const char* const kNames[] = {"Compute",  "Copy",      "Scalar",  "SetFlag",
                                       "WaitFlag", "QueueSet",  "QueueWait", "Barrier",
                                       "SyncAll",  "CrossSet",  "CrossWait"};
  return kNames[static_cast<int>(op)];
}

Record ToRecord(const sim::Instr& in) {
  Record r;
  r.api = in.api;
  r.file = in.loc.file_name();
  r.line = in.loc.line();
  r.dtype = in.dtype;
  r.elements = in.elements;
  r.flops = in.flops;
  r.repeat = in.repeat;
  r.pipe = in.pipe;
  r.partner = in.wait_pipe;
  r.dst = in.dst.buffer;
  r.src = in.src_count > 0 ? in.src[0].buffer : arch::Buffer::kNone;
  switch (in.kind) {
    case sim::InstrKind::kCompute:
      r.op = Op::kCompute;
      r.bytes = in.dst.bytes;
      break;
    case sim::InstrKind::kCopy:
      r.op = Op::kCopy;
      r.bytes = in.dst_stride.blocks >= 1 && in.dst_stride.block_bytes > 0
                    ? uint64_t{in.dst_stride.blocks} * in.dst_stride.block_bytes
                    : in.dst.bytes;
      break;
    case sim::InstrKind::kScalar:
      r.op = Op::kScalar;
      r.pipe = sim::Pipe::kS;
      break;
    case sim::InstrKind::kSetFlag:
      r.op = Op::kSetFlag;
      r.key = static_cast<uint64_t>(in.event_id);
      break;
    case sim::InstrKind::kWaitFlag:
      r.op = Op::kWaitFlag;
      r.pipe = in.wait_pipe;
      r.partner = in.pipe;
      r.key = static_cast<uint64_t>(in.event_id);
      break;
    case sim::InstrKind::kBarrier:
      r.op = Op::kBarrier;
      break;
    case sim::InstrKind::kQueue: {
      // See Note [Queue state machine] in kernel/pipe/tpipe.h: EnQue and FreeTensor set a flag on
      // `pipe`; DeQue and AllocTensor wait on `wait_pipe`.
      const bool enq = std::strcmp(in.api, "EnQue") == 0;
      const bool deq = std::strcmp(in.api, "DeQue") == 0;
      const bool free = std::strcmp(in.api, "FreeTensor") == 0;
      r.key = SlotKey(in.dst);
      r.channel = (enq || deq) ? 0 : 1;
      if (enq || free) {
        r.op = Op::kQueueSet;
      } else {
        r.op = Op::kQueueWait;
        r.pipe = in.wait_pipe;
        r.partner = in.pipe;
      }
      break;
    }
    case sim::InstrKind::kSyncAll:
      r.op = Op::kSyncAll;
      r.pipe = sim::Pipe::kAll;
      break;
    case sim::InstrKind::kCrossCoreSet:
      r.op = Op::kCrossSet;
      r.key = static_cast<uint64_t>(static_cast<int64_t>(in.event_id));
      break;
    case sim::InstrKind::kCrossCoreWait:
      r.op = Op::kCrossWait;
      r.key = static_cast<uint64_t>(static_cast<int64_t>(in.event_id));
      break;
  }
  return r;
}

uint64_t LaunchRecord::Instructions() const {
  uint64_t n = 0;
  for (const auto& c : cores) n += c->records.size();
  return n;
}

Recorder::Recorder() = default;
Recorder::~Recorder() = default;

void Recorder::OnLaunchBegin(const char* kernel, uint32_t block_dim) {
  std::lock_guard<std::mutex> lk(mu_);
  current_ = std::make_shared<LaunchRecord>();
  current_->kernel = kernel;
  current_->block_dim = block_dim;
  live_.clear();
}

void Recorder::OnBlockBegin(sim::Core& core) {
  auto stream = std::make_unique<CoreStream>();
  stream->id = core.id();
  stream->name = core.Name();
  std::lock_guard<std::mutex> lk(mu_);
  if (!current_) return;
  if (!current_->chip) current_->chip = std::make_shared<arch::Chip>(core.chip());
  live_[&core] = stream.get();
  current_->cores.push_back(std::move(stream));
  g_epoch.fetch_add(1, std::memory_order_release);
}

CoreStream* Recorder::StreamOf(const sim::Core& core) {
  const uint64_t epoch = g_epoch.load(std::memory_order_acquire);
  StreamCache& c = t_cache;
  if (c.owner == this && c.core == &core && c.epoch == epoch) [[likely]] return c.stream;
  std::lock_guard<std::mutex> lk(mu_);
  auto it = live_.find(&core);
  CoreStream* s = it == live_.end() ? nullptr : it->second;
  c = {this, &core, epoch, s};
  return s;
}

namespace {

// Adds the GM bytes of `ref` (strided by `st`) that a copy (record `record`) reads or writes to
// `ranges`: one range per block of a strided access, merged with the previous range when it
// continues it in the same copy. Returns the bytes added.
uint64_t NoteGm(std::vector<GmRange>& ranges, const sim::MemRef& ref, const sim::Stride& st,
                uint32_t record) {
  const bool strided = st.blocks > 1 && st.block_bytes > 0;
  const uint32_t blocks = strided ? st.blocks : 1;
  const uint64_t len = strided ? st.block_bytes : ref.bytes;
  const uint64_t pitch = strided ? st.stride_bytes : len;
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint64_t lo = ref.offset + b * pitch;
    if (!ranges.empty() && ranges.back().hi == lo && ranges.back().record == record) {
      ranges.back().hi = lo + len;
    } else {
      ranges.push_back({lo, lo + len, record});
    }
  }
  return uint64_t{blocks} * len;
}

}  // namespace

void Recorder::OnInstr(sim::Core& core, const sim::Instr& instr) {
  CoreStream* s = StreamOf(core);
  if (s == nullptr) return;
  s->records.push_back(ToRecord(instr));
  if (instr.kind == sim::InstrKind::kCopy && instr.src_count > 0 &&
      instr.src[0].buffer == arch::Buffer::kGm && instr.src[0].bytes > 0) {
    s->gm_read_bytes += NoteGm(s->gm_reads, instr.src[0], instr.src_stride[0],
                               static_cast<uint32_t>(s->records.size() - 1));
  }
  if (instr.kind == sim::InstrKind::kCopy && instr.dst.buffer == arch::Buffer::kGm &&
      instr.dst.bytes > 0) {
    s->gm_write_bytes += NoteGm(s->gm_writes, instr.dst, instr.dst_stride,
                                static_cast<uint32_t>(s->records.size() - 1));
  }
}

void Recorder::OnBlockEnd(sim::Core& core) {
  std::lock_guard<std::mutex> lk(mu_);
  live_.erase(&core);
  g_epoch.fetch_add(1, std::memory_order_release);
}

void Recorder::OnLaunchEnd(const char* /*kernel*/) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!current_) return;
  auto& cores = current_->cores;
  std::stable_sort(cores.begin(), cores.end(), [](const auto& a, const auto& b) {
    if (a->id.type != b->id.type) return a->id.type < b->id.type;
    return a->id.block_idx < b->id.block_idx;
  });
  launches_.push_back(std::move(current_));
  current_.reset();
  live_.clear();
  g_epoch.fetch_add(1, std::memory_order_release);
}

void Recorder::Clear() {
  std::lock_guard<std::mutex> lk(mu_);
  launches_.clear();
}

}  // namespace aicore::perf
