// TPipe's buffer carving and event IDs; SetFlag/WaitFlag/PipeBarrier bookkeeping.
#include "aicore/kernel/pipe/tpipe.h"

#include <atomic>

namespace AscendC {

namespace detail {

const char* HardEventName(HardEvent e) {
  static const char* const kNames[] = {
      "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
      "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
      "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3",
      "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1",
      "FIX_FIX", "M_MTE3", "MTE3_M"};
  auto i = static_cast<size_t>(e);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

aicore::sim::Pipe ToSimPipe(pipe_t p) {
  using P = aicore::sim::Pipe;
  switch (p) {
    case PIPE_S: return P::kS;
    case PIPE_V: return P::kV;
    case PIPE_M: return P::kM;
    case PIPE_MTE1: return P::kMte1;
    case PIPE_MTE2: return P::kMte2;
    case PIPE_MTE3: return P::kMte3;
    case PIPE_FIX: return P::kFix;
    case PIPE_ALL: return P::kAll;
  }
  return P::kAll;
}

namespace {

void CheckEvent(const char* api, HardEvent e, int32_t id, const SrcLoc& loc) {
  auto& core = Core();
  if (e >= HardEvent::MAX) {
    Fail(StatusCode::kInvalidArgument, api, loc, "unknown HardEvent ", static_cast<int>(e));
  }
  if (id < 0 || id >= core.chip().event_ids) {
    Fail(StatusCode::kInvalidArgument, api, loc, "event ID ", id, " for ", HardEventName(e),
         " is outside [0, ", core.chip().event_ids - 1, "] on ", core.chip().name);
  }
}

aicore::sim::Instr FlagInstr(aicore::sim::Core& core, aicore::sim::InstrKind kind,
                             const char* api, HardEvent e, int32_t id, const SrcLoc& loc) {
  aicore::sim::Instr in;
  in.kind = kind;
  in.api = api;
  in.pipe = PipesOf(e).src;
  in.wait_pipe = PipesOf(e).dst;
  in.event_id = id;
  in.loc = loc;
  (void)core;
  return in;
}

}  // namespace

void SetFlagImpl(HardEvent e, int32_t id, const SrcLoc& loc) {
  CheckEvent("SetFlag", e, id, loc);
  auto& core = Core();
  uint32_t& bits = core.flag_bits[static_cast<int>(e)];
  if (bits & (1u << id)) {
    Fail(StatusCode::kFailedPrecondition, "SetFlag", loc, "flag ", HardEventName(e), " ID ", id,
         " is already set and not yet waited on (a flag must not be set twice without a "
         "WaitFlag in between)");
  }
  bits |= 1u << id;
  AICORE_ISSUE(core, FlagInstr(core, aicore::sim::InstrKind::kSetFlag, "SetFlag", e, id, loc));
}

void WaitFlagImpl(HardEvent e, int32_t id, const SrcLoc& loc) {
  CheckEvent("WaitFlag", e, id, loc);
  auto& core = Core();
  uint32_t& bits = core.flag_bits[static_cast<int>(e)];
  if (!(bits & (1u << id))) {
    Fail(StatusCode::kDeadlock, "WaitFlag", loc, "flag ", HardEventName(e), " ID ", id,
         " was never set by an earlier SetFlag; on hardware this waits forever");
  }
  bits &= ~(1u << id);
  core.Flush(PipesOf(e).src);  // the source pipe's work before the SetFlag is now complete
  AICORE_ISSUE(core, FlagInstr(core, aicore::sim::InstrKind::kWaitFlag, "WaitFlag", e, id, loc));
}

void PipeBarrierImpl(pipe_t p, const SrcLoc& loc) {
  if (p == PIPE_S) {
    Fail(StatusCode::kInvalidArgument, "PipeBarrier", loc,
         "PipeBarrier<PIPE_S> is not valid (the scalar pipe is in order by itself)");
  }
  auto& core = Core();
  core.Flush(ToSimPipe(p));
  AICORE_ISSUE(core, ([&] {
                 aicore::sim::Instr in;
                 in.kind = aicore::sim::InstrKind::kBarrier;
                 in.api = "PipeBarrier";
                 in.pipe = ToSimPipe(p);
                 in.loc = loc;
                 return in;
               }()));
}

HardEvent EventBetween(pipe_t src, pipe_t dst, const SrcLoc& loc) {
  for (int i = 0; i < static_cast<int>(HardEvent::MAX); ++i) {
    auto e = static_cast<HardEvent>(i);
    if (PipesOf(e).src == ToSimPipe(src) && PipesOf(e).dst == ToSimPipe(dst)) return e;
  }
  Fail(StatusCode::kInvalidArgument, "TQueSync", loc, "no hardware event connects pipe ",
       aicore::sim::PipeName(ToSimPipe(src)), " to pipe ", aicore::sim::PipeName(ToSimPipe(dst)));
}

}  // namespace detail

namespace {
std::atomic<uint32_t> g_next_pipe_serial{1};
}  // namespace

TPipe::TPipe(detail::SrcLoc loc) : core_(&detail::Core()), serial_(0), created_(loc) {
  if (core_->tpipe != nullptr) {
    const auto* live = static_cast<const TPipe*>(core_->tpipe);
    detail::Fail(aicore::StatusCode::kFailedPrecondition, "TPipe", loc,
                 "a TPipe is already live in this kernel (made at ",
                 aicore::sim::SourceSite(live->created_),
                 "); AscendC allows one TPipe per kernel at a time and two would share the same "
                 "local memory. Pass a pointer to the one TPipe, or call Destroy() on it first");
  }
  serial_ = g_next_pipe_serial.fetch_add(1, std::memory_order_relaxed);
  if (serial_ == 0) serial_ = g_next_pipe_serial.fetch_add(1, std::memory_order_relaxed);
  core_->tpipe = this;
  core_->tpipe_serial = serial_;
}

TPipe::~TPipe() {
  if (aicore::sim::CurrentCoreOrNull() == core_ && core_->tpipe == this) {
    core_->tpipe = nullptr;
    core_->tpipe_serial = 0;
  }
}

void TPipe::Reset() {
  used_.fill(0);
  buffers_ = 0;
  if (serial_ != 0 && core_->tpipe == this) {
    // Queues and TBufs of the old carving become stale (See detail::CheckPipeSerial).
    serial_ = g_next_pipe_serial.fetch_add(1, std::memory_order_relaxed);
    core_->tpipe_serial = serial_;
  }
}

void TPipe::Destroy() {
  used_.fill(0);
  buffers_ = 0;
  serial_ = 0;
  if (core_->tpipe == this) {
    core_->tpipe = nullptr;
    core_->tpipe_serial = 0;
  }
}

void TPipe::CheckUsable(const detail::SrcLoc& loc) const {
  if (serial_ == 0 || core_->tpipe != this) [[unlikely]] {
    detail::Fail(aicore::StatusCode::kFailedPrecondition, "InitBuffer", loc,
                 "this TPipe was destroyed (Destroy()); make a new TPipe for more buffers");
  }
}

uint8_t* TPipe::Carve(TPosition pos, uint64_t bytes, int buffers, const detail::SrcLoc& loc) {
  const auto& chip = core_->chip();
  const aicore::arch::Buffer b = chip.BufferOf(ToArch(pos));
  const char* pos_name = aicore::arch::PositionName(ToArch(pos));
  if (b == aicore::arch::Buffer::kNone || b == aicore::arch::Buffer::kGm) {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "InitBuffer", loc, "position ", pos_name,
                 " has no local buffer on ", chip.name);
  }
  if (core_->local_allocator[static_cast<int>(b)] != nullptr) {
    detail::Fail(aicore::StatusCode::kFailedPrecondition, "InitBuffer", loc, "position ",
                 pos_name, " lives in ", aicore::arch::BufferName(b), ", which a live "
                 "LocalMemAllocator hands out from offset 0; TPipe buffers there would alias its "
                 "tensors (do not mix TPipe and static tensors in one buffer)");
  }
  if (!core_->HasBuffer(b) && b == aicore::arch::Buffer::kUb && core_->PeerUb() != nullptr) {
    // Note [L0C to UB]: the AIC of a 1:1 group on a fixpipe_to_ub chip addresses its AIV's UB,
    // at the offsets the AIV's TPipe hands out when it allocates in the same order.
    uint64_t& used = used_[static_cast<int>(b)];
    const uint64_t cap = chip.spec(b).bytes;
    const uint64_t align = chip.spec(b).align;
    const uint64_t start = (used + align - 1) / align * align;
    if (start + bytes > cap) {
      detail::Fail(aicore::StatusCode::kResourceExhausted, "InitBuffer", loc, pos_name,
                   " buffer of ", bytes, " B does not fit in the paired AIV's UB: ",
                   cap - std::min(cap, start), " B of ", cap, " B are left on ", chip.name);
    }
    used = start + bytes;
    buffers_ += buffers;
    return core_->PeerUb() + start;
  }
  if (!core_->HasBuffer(b) && b == aicore::arch::Buffer::kUb &&
      core_->id().type == aicore::sim::CoreType::kAic) {
    // Note [UB queues on the AIC]: a mix kernel's body runs on the AIC too, and CANN accepts its
    // InitBuffer calls for UB queues there (the AIC just never uses them). aicore books the bytes
    // so capacity errors are the same on both core types, and hands out no memory: using such a
    // queue or TBuf on the AIC fails with its own message.
    uint64_t& used = used_[static_cast<int>(b)];
    const uint64_t cap = chip.spec(b).bytes;
    if (used + bytes > cap) {
      detail::Fail(aicore::StatusCode::kResourceExhausted, "InitBuffer", loc, pos_name,
                   " buffer of ", bytes, " B does not fit in UB: ", cap - std::min(cap, used),
                   " B of ", cap, " B are left on ", chip.name);
    }
    used += bytes;
    buffers_ += buffers;
    return nullptr;
  }
  if (!core_->HasBuffer(b)) {
    const bool vector_buffer = b == aicore::arch::Buffer::kUb;
    detail::Fail(aicore::StatusCode::kInvalidArgument, "InitBuffer", loc, "position ", pos_name,
                 " lives in ", aicore::arch::BufferName(b), ", which ", core_->Name(),
                 " does not have on ", chip.name,
                 " (split chip: UB is on the AIV, L1/L0A/L0B/L0C/BT/FB on the AIC); ",
                 vector_buffer
                     ? "allocate it in AIV code (KernelMode::kAiv or kMix)"
                     : "launch with KernelMode::kAic or kMix and allocate it in AIC code");
  }
  if (buffers_ + buffers > detail::kMaxQueueBuffers) {
    detail::Fail(aicore::StatusCode::kResourceExhausted, "InitBuffer", loc, "TPipe would hold ",
                 buffers_ + buffers, " buffers; the limit is ", detail::kMaxQueueBuffers);
  }
  uint64_t& used = used_[static_cast<int>(b)];
  const uint64_t cap = chip.spec(b).bytes;
  const uint64_t align = chip.spec(b).align;
  const uint64_t start = (used + align - 1) / align * align;
  if (start + bytes > cap) {
    detail::Fail(aicore::StatusCode::kResourceExhausted, "InitBuffer", loc, pos_name,
                 " buffer of ", bytes, " B does not fit in ", aicore::arch::BufferName(b), ": ",
                 cap - std::min(cap, start), " B of ", cap, " B are left on ", chip.name,
                 " (", used, " B already used by this TPipe, next start aligned to ", align,
                 " B)");
  }
  used = start + bytes;
  buffers_ += buffers;
  return core_->LocalBase(b) + start;
}

uint32_t TPipe::BufferAlign(TPosition pos) const {
  const auto& chip = core_->chip();
  const aicore::arch::Buffer b = chip.BufferOf(ToArch(pos));
  if (b == aicore::arch::Buffer::kNone || b == aicore::arch::Buffer::kGm) return 32;
  return std::max<uint32_t>(32, chip.spec(b).align);
}

event_t TPipe::AllocEvent(HardEvent e, const detail::SrcLoc& loc) {
  uint32_t& in_use = core_->event_ids_in_use[static_cast<int>(e)];
  for (int id = 0; id < core_->chip().event_ids; ++id) {
    if (!(in_use & (1u << id))) {
      in_use |= 1u << id;
      return static_cast<event_t>(id);
    }
  }
  detail::Fail(aicore::StatusCode::kResourceExhausted, "AllocEventID", loc, "all ",
               core_->chip().event_ids, " event IDs of ", detail::HardEventName(e),
               " are allocated (ReleaseEventID some)");
}

void TPipe::ReleaseEvent(HardEvent e, event_t id, const detail::SrcLoc& loc) {
  uint32_t& in_use = core_->event_ids_in_use[static_cast<int>(e)];
  if (id < 0 || id >= core_->chip().event_ids || !(in_use & (1u << id))) {
    detail::Fail(aicore::StatusCode::kInvalidArgument, "ReleaseEventID", loc, "event ID ",
                 static_cast<int>(id), " of ", detail::HardEventName(e), " is not allocated");
  }
  in_use &= ~(1u << id);
}

event_t TPipe::FetchEvent(HardEvent e) {
  const uint32_t in_use = core_->event_ids_in_use[static_cast<int>(e)];
  for (int id = 0; id < core_->chip().event_ids; ++id) {
    if (!(in_use & (1u << id))) return static_cast<event_t>(id);
  }
  return EVENT_ID0;
}

uint8_t* TPipe::GetBaseAddr(int8_t pos) {
  const auto b = core_->chip().BufferOf(static_cast<aicore::arch::Position>(pos));
  return b == aicore::arch::Buffer::kNone ? nullptr : core_->LocalBase(b);
}

TPipe* GetTPipePtr() { return static_cast<TPipe*>(detail::Core().tpipe); }

}  // namespace AscendC
