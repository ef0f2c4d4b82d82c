// TPipe, TQue, TQueBind and TBuf: the memory managers of an AscendC kernel. TPipe carves each
// physical buffer (UB, L1, L0A/B/C, BT, FB) with a bump allocator whose capacity is the chip's;
// queues hand out buffers with AllocTensor/EnQue/DeQue/FreeTensor and enforce their state machine.
//
// Note [Queue state machine]
// Each queue buffer is free -> allocated (AllocTensor) -> enqueued (EnQue) -> dequeued (DeQue) ->
// free (FreeTensor); a dequeued buffer may also be enqueued again (dequeued -> enqueued). On hardware the calls are flags between the producer and consumer pipes
// (EnQue = SetFlag, DeQue = WaitFlag, FreeTensor releases the buffer for the next AllocTensor);
// here the core runs in program order, so a call that would wait forever on hardware (DeQue of
// an empty queue, AllocTensor with every buffer in use) fails at once with the reason.
#pragma once

#include <array>
#include <cstdint>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/pipe/flags.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/types.h"

namespace AscendC {

class TPipe;

namespace detail {

inline constexpr int kMaxQueueBuffers = 64;  // the TPipe limit on buffers per kernel

// The pipe that writes a buffer at `pos` and the pipe that reads it (for funnel records).
constexpr aicore::sim::Pipe ProducerPipe(TPosition pos) {
  using aicore::sim::Pipe;
  switch (pos) {
    case TPosition::VECIN: return Pipe::kMte2;
    case TPosition::VECOUT: case TPosition::VECCALC: return Pipe::kV;
    case TPosition::A1: case TPosition::B1: case TPosition::C1: return Pipe::kMte2;
    case TPosition::A2: case TPosition::B2: case TPosition::C2: return Pipe::kMte1;
    case TPosition::CO1: return Pipe::kM;
    case TPosition::CO2: return Pipe::kFix;
    default: return Pipe::kMte2;
  }
}
constexpr aicore::sim::Pipe ConsumerPipe(TPosition pos) {
  using aicore::sim::Pipe;
  switch (pos) {
    case TPosition::VECIN: case TPosition::VECCALC: return Pipe::kV;
    case TPosition::VECOUT: return Pipe::kMte3;
    case TPosition::A1: case TPosition::B1: case TPosition::C1: return Pipe::kMte1;
    case TPosition::A2: case TPosition::B2: case TPosition::C2: return Pipe::kM;
    case TPosition::CO1: return Pipe::kFix;
    case TPosition::CO2: return Pipe::kV;
    default: return Pipe::kV;
  }
}

// Returns where a TQueBind<src, dst> keeps its buffers: the local end of the binding.
constexpr TPosition BoundPosition(TPosition src, TPosition dst) {
  return dst == TPosition::GM || dst == TPosition::CO2 ? src : dst;
}

enum class SlotState : uint8_t { kFree, kAllocated, kEnqueued, kDequeued };

// The part of a queue TPipe::InitBuffer fills in.
struct QueueStorage {
  uint8_t* base = nullptr;  // first buffer
  uint32_t len = 0;         // bytes per buffer (multiple of 32)
  uint8_t num = 0;          // buffers
  TPosition pos = TPosition::VECCALC;
  std::array<BufferSlot, 8> slots{};
  std::array<SlotState, 8> state{};
  std::array<uint8_t, 8> fifo{};
  uint8_t fifo_head = 0;
  uint8_t fifo_count = 0;
  uint8_t next_alloc = 0;
  uint32_t pipe_serial = 0;  // the TPipe that gave the buffers (sim::Core::tpipe_serial)
};

// Fails unless buffers given by the TPipe of serial `pipe_serial` are still the live TPipe's.
inline void CheckPipeSerial(uint32_t pipe_serial, const char* api, const char* what,
                            const SrcLoc& loc) {
  if (pipe_serial != Core().tpipe_serial) [[unlikely]] {
    Fail(aicore::StatusCode::kFailedPrecondition, api, loc, "the ", what,
         "'s buffers came from a TPipe that was destroyed or Reset since InitBuffer; call "
         "InitBuffer on the live TPipe first");
  }
}

}  // namespace detail

// Queue binding a producer position to a consumer position, `depth` EnQue calls deep.
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
 public:
  static constexpr TPosition kPosition = detail::BoundPosition(src, dst);
  static constexpr aicore::sim::Pipe kProducer =
      src == TPosition::GM ? detail::ProducerPipe(dst) : detail::ProducerPipe(src);
  static constexpr aicore::sim::Pipe kConsumer =
      dst == TPosition::GM ? detail::ConsumerPipe(src) : detail::ConsumerPipe(dst);

  TQueBind() = default;
  TQueBind(const TQueBind&) = delete;
  TQueBind& operator=(const TQueBind&) = delete;

  // Returns a free buffer as a tensor of len/sizeof(T) elements. Fails when all are in use.
  template <typename T>
  LocalTensor<T> AllocTensor(detail::SrcLoc loc = detail::SrcLoc::current()) {
    auto& q = Storage("AllocTensor", loc);
    for (int k = 0; k < q.num; ++k) {
      int i = (q.next_alloc + k) % q.num;
      if (q.state[i] != detail::SlotState::kFree) continue;
      q.state[i] = detail::SlotState::kAllocated;
      q.next_alloc = static_cast<uint8_t>((i + 1) % q.num);
      LocalTensor<T> t(reinterpret_cast<T*>(q.base + size_t{q.len} * i),
                       static_cast<uint32_t>(q.len / sizeof(T)), kPosition, &q.slots[i]);
      auto& core = detail::Core();
      core.Flush(kConsumer);  // the buffer's previous reader has finished with it
      AICORE_ISSUE(core, QueueInstr(core, "AllocTensor", kConsumer, kProducer, i, q, loc));
      return t;
    }
    detail::Fail(aicore::StatusCode::kDeadlock, "AllocTensor", loc, "all ", int{q.num},
                 " buffers of the ", PositionText(), " queue are allocated and not freed; on "
                 "hardware this waits forever (missing FreeTensor?)");
  }
  template <typename T>
  void AllocTensor(LocalTensor<T>& t, detail::SrcLoc loc = detail::SrcLoc::current()) {
    t = AllocTensor<T>(loc);
  }

  // Hands an allocated tensor to the consumer, or a dequeued one back to it (CANN's samples
  // compute in place in an input queue's buffer and enqueue it again for the copy out). Fails
  // past `depth` tensors in flight.
  template <typename T>
  bool EnQue(const LocalTensor<T>& t, detail::SrcLoc loc = detail::SrcLoc::current()) {
    auto& q = Storage("EnQue", loc);
    int i = SlotOf(q, t, "EnQue", loc);
    if (q.state[i] != detail::SlotState::kAllocated &&
        q.state[i] != detail::SlotState::kDequeued) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "EnQue", loc, "buffer ", i,
                   " of the ", PositionText(), " queue is ", StateText(q.state[i]),
                   "; only a tensor from AllocTensor or DeQue can be enqueued");
    }
    const int limit = depth > 0 ? depth : q.num;
    if (q.fifo_count >= limit) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "EnQue", loc, "the ",
                   PositionText(), " queue already holds ", int{q.fifo_count},
                   " tensors, its depth is ", limit, " (DeQue before enqueueing more)");
    }
    q.state[i] = detail::SlotState::kEnqueued;
    q.fifo[(q.fifo_head + q.fifo_count) % q.num] = static_cast<uint8_t>(i);
    ++q.fifo_count;
    auto& core = detail::Core();
    AICORE_ISSUE(core, QueueInstr(core, "EnQue", kProducer, kConsumer, i, q, loc));
    return true;
  }

  // Takes the oldest enqueued tensor. Fails when the queue is empty (a hang on hardware).
  template <typename T>
  LocalTensor<T> DeQue(detail::SrcLoc loc = detail::SrcLoc::current()) {
    auto& q = Storage("DeQue", loc);
    if (q.fifo_count == 0) {
      detail::Fail(aicore::StatusCode::kDeadlock, "DeQue", loc, "the ", PositionText(),
                   " queue is empty: no EnQue precedes this DeQue, so on hardware it waits "
                   "forever");
    }
    int i = q.fifo[q.fifo_head];
    q.fifo_head = static_cast<uint8_t>((q.fifo_head + 1) % q.num);
    --q.fifo_count;
    q.state[i] = detail::SlotState::kDequeued;
    auto& core = detail::Core();
    core.Flush(kProducer);  // the producer's writes to the tensor have landed
    AICORE_ISSUE(core, QueueInstr(core, "DeQue", kProducer, kConsumer, i, q, loc));
    return LocalTensor<T>(reinterpret_cast<T*>(q.base + size_t{q.len} * i),
                          static_cast<uint32_t>(q.len / sizeof(T)), kPosition, &q.slots[i]);
  }
  template <typename T>
  void DeQue(LocalTensor<T>& t, detail::SrcLoc loc = detail::SrcLoc::current()) {
    t = DeQue<T>(loc);
  }

  // Returns the tensor's buffer to the queue; every tensor viewing it becomes invalid.
  template <typename T>
  void FreeTensor(LocalTensor<T>& t, detail::SrcLoc loc = detail::SrcLoc::current()) {
    auto& q = Storage("FreeTensor", loc);
    int i = SlotOf(q, t, "FreeTensor", loc);
    if (q.state[i] == detail::SlotState::kFree) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "FreeTensor", loc, "buffer ", i,
                   " of the ", PositionText(), " queue is already free (double FreeTensor)");
    }
    if (q.state[i] == detail::SlotState::kEnqueued) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "FreeTensor", loc, "buffer ", i,
                   " of the ", PositionText(), " queue is still enqueued (DeQue it first)");
    }
    q.state[i] = detail::SlotState::kFree;
    ++q.slots[i].generation;
    auto& core = detail::Core();
    AICORE_ISSUE(core, QueueInstr(core, "FreeTensor", kConsumer, kProducer, i, q, loc));
  }

  bool VacantInQue() const { return q_.fifo_count < (depth > 0 ? depth : q_.num); }
  bool HasTensorInQue() const { return q_.fifo_count > 0; }
  int32_t GetTensorCountInQue() const { return q_.fifo_count; }
  bool HasIdleBuffer() const {
    for (int i = 0; i < q_.num; ++i) {
      if (q_.state[i] == detail::SlotState::kFree) return true;
    }
    return false;
  }
  void FreeAllEvent() {}

  // --- aicore internals ---
  detail::QueueStorage& storage() { return q_; }
  // Returns the number of buffers not free (allocated, enqueued or dequeued): leaks at kernel end.
  int BuffersInUse() const {
    int n = 0;
    for (int i = 0; i < q_.num; ++i) n += q_.state[i] != detail::SlotState::kFree;
    return n;
  }

 private:
  detail::QueueStorage& Storage(const char* api, const detail::SrcLoc& loc) {
    if (q_.num == 0) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc, "the ", PositionText(),
                   " queue has no buffers: call TPipe::InitBuffer on it first");
    }
    detail::CheckPipeSerial(q_.pipe_serial, api, "queue", loc);
    if (q_.base == nullptr) [[unlikely]] {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc, "the ", PositionText(),
                   " queue was given UB on ", detail::Core().Name(), ", which has no UB "
                   "(tolerated at InitBuffer, see Note [UB queues on the AIC]; use it in AIV "
                   "code only)");
    }
    return q_;
  }
  template <typename T>
  int SlotOf(detail::QueueStorage& q, const LocalTensor<T>& t, const char* api,
             const detail::SrcLoc& loc) {
    auto* p = reinterpret_cast<uint8_t*>(t.data());
    if (p == nullptr || p < q.base || p >= q.base + size_t{q.len} * q.num) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, api, loc,
                   "the tensor does not belong to this ", PositionText(), " queue");
    }
    int i = static_cast<int>((p - q.base) / q.len);
    if (t.slot() == &q.slots[i] && t.generation() != q.slots[i].generation) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                   "LocalTensor used after FreeTensor (buffer ", i, " was freed since)");
    }
    return i;
  }
  static const char* PositionText() { return aicore::arch::PositionName(ToArch(kPosition)); }
  static const char* StateText(detail::SlotState s) {
    switch (s) {
      case detail::SlotState::kFree: return "free";
      case detail::SlotState::kAllocated: return "allocated";
      case detail::SlotState::kEnqueued: return "enqueued";
      case detail::SlotState::kDequeued: return "dequeued";
    }
    return "?";
  }
  static aicore::sim::Instr QueueInstr(aicore::sim::Core& core, const char* api,
                                       aicore::sim::Pipe from, aicore::sim::Pipe to, int i,
                                       const detail::QueueStorage& q, const detail::SrcLoc& loc) {
    aicore::sim::Instr in;
    in.kind = aicore::sim::InstrKind::kQueue;
    in.api = api;
    in.pipe = from;
    in.wait_pipe = to;
    in.dst = core.Locate(q.base + size_t{q.len} * i, q.len);
    in.event_id = i;
    in.loc = loc;
    return in;
  }

  detail::QueueStorage q_;
};

// A queue at one position: TQue<VECIN, d> is TQueBind<GM, VECIN, d>, TQue<VECOUT, d> is
// TQueBind<VECOUT, GM, d>, and matrix positions bind to their neighbours.
template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<(pos == TPosition::VECOUT || pos == TPosition::CO1 ||
                              pos == TPosition::CO2)
                                 ? pos
                                 : TPosition::GM,
                             (pos == TPosition::VECOUT || pos == TPosition::CO1 ||
                              pos == TPosition::CO2)
                                 ? TPosition::GM
                                 : pos,
                             depth, mask> {};

// A scratch buffer with no queue semantics (and no automatic synchronisation).
template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  static constexpr TPosition kPosition = pos;
  TBuf() = default;
  TBuf(const TBuf&) = delete;
  TBuf& operator=(const TBuf&) = delete;

  // Returns the whole buffer as a tensor of T.
  template <typename T>
  LocalTensor<T> Get(detail::SrcLoc loc = detail::SrcLoc::current()) {
    Check("TBuf::Get", loc);
    return LocalTensor<T>(reinterpret_cast<T*>(base_), len_ / sizeof(T), pos);
  }
  // Returns the first `count` elements of the buffer as a tensor of T.
  template <typename T>
  LocalTensor<T> Get(uint32_t count, detail::SrcLoc loc = detail::SrcLoc::current()) {
    Check("TBuf::Get", loc);
    if (uint64_t{count} * sizeof(T) > len_) {
      detail::Fail(aicore::StatusCode::kOutOfRange, "TBuf::Get", loc, count, " elements of ",
                   sizeof(T), " B exceed the buffer's ", len_, " B");
    }
    return LocalTensor<T>(reinterpret_cast<T*>(base_), count, pos, nullptr, len_ / sizeof(T));
  }
  // Returns `count` elements starting `byte_offset` bytes into the buffer.
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t count, uint32_t byte_offset,
                               detail::SrcLoc loc = detail::SrcLoc::current()) {
    Check("TBuf::GetWithOffset", loc);
    if (uint64_t{byte_offset} + uint64_t{count} * sizeof(T) > len_) {
      detail::Fail(aicore::StatusCode::kOutOfRange, "TBuf::GetWithOffset", loc, count,
                   " elements at byte offset ", byte_offset, " exceed the buffer's ", len_, " B");
    }
    return LocalTensor<T>(reinterpret_cast<T*>(base_ + byte_offset), count, pos, nullptr,
                          (len_ - byte_offset) / sizeof(T));
  }

  // Ends the use of a tensor from Get/GetWithOffset. A TBuf has no queue state, so this only
  // checks that the tensor lies in this buffer.
  template <typename T>
  void FreeTensor(LocalTensor<T>& tensor, detail::SrcLoc loc = detail::SrcLoc::current()) {
    Check("TBuf::FreeTensor", loc);
    auto* p = reinterpret_cast<uint8_t*>(tensor.data());
    if (p < base_ || p >= base_ + len_) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "TBuf::FreeTensor", loc,
                   "the tensor does not belong to this TBuf");
    }
  }

  // --- aicore internals ---
  void Assign(uint8_t* base, uint32_t len, uint32_t pipe_serial) {
    base_ = base;
    len_ = len;
    pipe_serial_ = pipe_serial;
  }

 private:
  void Check(const char* api, const detail::SrcLoc& loc) const {
    if (base_ == nullptr && len_ != 0) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc, "the TBuf was given UB on ",
                   detail::Core().Name(), ", which has no UB (tolerated at InitBuffer, see Note "
                   "[UB queues on the AIC]; use it in AIV code only)");
    }
    if (base_ == nullptr) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, api, loc,
                   "the TBuf has no memory: call TPipe::InitBuffer on it first");
    }
    detail::CheckPipeSerial(pipe_serial_, api, "TBuf", loc);
  }
  uint8_t* base_ = nullptr;
  uint32_t len_ = 0;
  uint32_t pipe_serial_ = 0;
};

// Owns the core's local memory for the kernel's lifetime. One TPipe per kernel may be live at a
// time (AscendC's rule; two would carve the same memory): constructing a second while one is
// live is a FailedPrecondition error. Destroy() (or the destructor) ends the TPipe's life, after
// which a new TPipe may be made; the old one's queues and TBufs must then not be used.
class TPipe {
 public:
  explicit TPipe(detail::SrcLoc loc = detail::SrcLoc::current());
  ~TPipe();
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  // Gives `q` `num` buffers of `len` bytes (rounded up to 32 B, or to the physical buffer's start
  // alignment when larger, e.g. 512 B in L0A/L0B) in its position's physical buffer.
  template <TPosition src, TPosition dst, int32_t depth, auto mask>
  bool InitBuffer(TQueBind<src, dst, depth, mask>& q, uint8_t num, uint32_t len,
                  detail::SrcLoc loc = detail::SrcLoc::current()) {
    constexpr TPosition pos = TQueBind<src, dst, depth, mask>::kPosition;
    if (num == 0 || num > 8 || len == 0) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "InitBuffer", loc, "num=", int{num},
                   " len=", len, " for a ", aicore::arch::PositionName(ToArch(pos)),
                   " queue (need 1 <= num <= 8 and len > 0)");
    }
    auto& s = q.storage();
    CheckUsable(loc);
    if (s.num != 0 && s.pipe_serial == serial_) {
      detail::Fail(aicore::StatusCode::kFailedPrecondition, "InitBuffer", loc,
                   "the queue already has buffers (InitBuffer called twice)");
    }
    // Every buffer of the queue starts on the physical buffer's alignment (512 B in L0A/L0B).
    // 64-bit: a len near 2^32 must not wrap to a small buffer.
    const uint64_t align = BufferAlign(pos);
    const uint64_t aligned = (uint64_t{len} + align - 1) / align * align;
    s.base = Carve(pos, aligned * num, num, loc);
    // A re-initialised queue (after Reset or a new TPipe) starts empty; tensors of its old
    // buffers fail as used after FreeTensor.
    for (auto& slot : s.slots) ++slot.generation;
    s.state.fill(detail::SlotState::kFree);
    s.fifo_head = s.fifo_count = s.next_alloc = 0;
    s.len = static_cast<uint32_t>(aligned);  // fits: Carve checked it against the buffer
    s.num = num;
    s.pos = pos;
    s.pipe_serial = serial_;
    return true;
  }
  // Gives `buf` `len` bytes (rounded up to 32) in its position's physical buffer.
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len, detail::SrcLoc loc = detail::SrcLoc::current()) {
    if (len == 0) {
      detail::Fail(aicore::StatusCode::kInvalidArgument, "InitBuffer", loc,
                   "len=0 for a TBuf (need len > 0)");
    }
    CheckUsable(loc);
    const uint64_t aligned = (uint64_t{len} + 31u) & ~uint64_t{31};  // no wrap near 2^32
    uint8_t* base = Carve(pos, aligned, 1, loc);
    buf.Assign(base, static_cast<uint32_t>(aligned), serial_);
    return true;
  }

  // Releases every buffer; queues and TBufs must get InitBuffer again before use.
  void Reset();
  // Releases every buffer and ends the TPipe's life: a new TPipe may be made afterwards, and
  // this one can no longer give buffers.
  void Destroy();

  // Returns a free event ID for `e`, marking it used until ReleaseEventID.
  template <HardEvent e>
  event_t AllocEventID(detail::SrcLoc loc = detail::SrcLoc::current()) {
    return AllocEvent(e, loc);
  }
  template <HardEvent e>
  void ReleaseEventID(event_t id, detail::SrcLoc loc = detail::SrcLoc::current()) {
    ReleaseEvent(e, id, loc);
  }
  // Returns an event ID for `e` without reserving it.
  template <HardEvent e>
  event_t FetchEventID() {
    return FetchEvent(e);
  }
  event_t FetchEventID(HardEvent e) { return FetchEvent(e); }

  // Returns the base address of the physical buffer behind `pos` on this core.
  uint8_t* GetBaseAddr(int8_t pos);

  // --- aicore internals ---
  uint64_t Used(aicore::arch::Buffer b) const { return used_[static_cast<int>(b)]; }

 private:
  uint8_t* Carve(TPosition pos, uint64_t bytes, int buffers, const detail::SrcLoc& loc);
  // Fails when this TPipe was destroyed or is not the core's live TPipe.
  void CheckUsable(const detail::SrcLoc& loc) const;
  // Returns the start alignment (>= 32 B) of the physical buffer behind `pos`.
  uint32_t BufferAlign(TPosition pos) const;
  event_t AllocEvent(HardEvent e, const detail::SrcLoc& loc);
  void ReleaseEvent(HardEvent e, event_t id, const detail::SrcLoc& loc);
  event_t FetchEvent(HardEvent e);

  aicore::sim::Core* core_;
  uint32_t serial_;        // 0 once destroyed; see sim::Core::tpipe_serial
  detail::SrcLoc created_;
  std::array<uint64_t, aicore::arch::kBufferCount> used_{};
  int buffers_ = 0;
};

// Returns the kernel's live TPipe, or nullptr when there is none.
TPipe* GetTPipePtr();

}  // namespace AscendC

// CANN's kernels call GetTPipePtr() unqualified, outside namespace AscendC.
using AscendC::GetTPipePtr;
