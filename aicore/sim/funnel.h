// The instruction funnel: every AscendC call that does work is described by an Instr record and
// passed through its core's Issue point. Execution happens in program order on the CPU; only when an
// observer is attached is the record built and handed to the observers (trace recorder, sanitizer).
// See Note [Funnel cost].
#pragma once

#include <cstdint>
#include <source_location>

#include "aicore/arch/chip.h"
#include "aicore/core/dtype.h"

namespace aicore::sim {

// The AI Core's instruction pipes. kAll is only used by barriers.
enum class Pipe : uint8_t { kS, kV, kM, kMte1, kMte2, kMte3, kFix, kAll };
inline constexpr int kPipeCount = 7;
// Returns "S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL".
const char* PipeName(Pipe p);

// A byte range in one memory. For GM `offset` is the host address; for local buffers it is the
// offset from the start of the core's buffer.
struct MemRef {
  arch::Buffer buffer = arch::Buffer::kNone;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

enum class InstrKind : uint8_t {
  kCompute,       // vector or cube arithmetic
  kCopy,          // data movement on an MTE/FIX/V pipe
  kScalar,        // GetValue/SetValue on PIPE_S
  kSetFlag,       // pipe = source pipe, wait_pipe = destination pipe
  kWaitFlag,
  kBarrier,       // PipeBarrier<pipe>
  kQueue,         // AllocTensor / EnQue / DeQue / FreeTensor bookkeeping
  kSyncAll,
  kCrossCoreSet,
  kCrossCoreWait,
};

// Access pattern of a strided operand: `blocks` runs of `block_bytes`, `stride_bytes` apart
// (start to start). A plain contiguous range has blocks == 1.
struct Stride {
  uint32_t blocks = 1;
  uint32_t block_bytes = 0;
  uint64_t stride_bytes = 0;
};

struct Instr {
  InstrKind kind = InstrKind::kCompute;
  Pipe pipe = Pipe::kS;
  Pipe wait_pipe = Pipe::kS;      // flags: the destination pipe
  const char* api = "";           // AscendC name: "DataCopy", "Add", "SetFlag", ...
  DType dtype = DType::kUnknown;
  MemRef dst;
  // Sources: src0, src1, then further operands a few APIs read (Select's selMask, MrgSort4's
  // third and fourth lists, the addend dst of MulAddDst).
  static constexpr int kMaxSrc = 4;
  MemRef src[kMaxSrc];
  Stride dst_stride;              // when dst_stride.blocks > 1 the dst range is strided
  Stride src_stride[kMaxSrc];
  uint8_t src_count = 0;
  uint64_t elements = 0;          // elements processed
  uint32_t repeat = 0;            // vector repeat count (level-0 APIs), 0 otherwise
  int32_t event_id = -1;          // flags and queue events; SyncAll: 1 when isAIVOnly, else 0
  uint64_t flops = 0;
  // dst is a range of the UB of the issuing AIC's paired AIV, not of a buffer of its own
  // (Fixpipe L0C -> UB, Note [L0C to UB] in sim/core.h).
  bool dst_in_peer_ub = false;
  std::source_location loc;
};

class Core;

// Receives every instruction a core issues while attached. Implementations must be thread-safe
// across cores: OnInstr for different cores may run on different threads at once.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void OnLaunchBegin(const char* /*kernel*/, uint32_t /*block_dim*/) {}
  virtual void OnBlockBegin(Core& /*core*/) {}
  virtual void OnInstr(Core& core, const Instr& instr) = 0;
  virtual void OnBlockEnd(Core& /*core*/) {}
  virtual void OnLaunchEnd(const char* /*kernel*/) {}
  // Host memory `core` used as GM for its own staging ([p, p + bytes), e.g. the Matmul client's
  // GetTensorC block) is about to be freed while the launch runs; the host allocator may hand the
  // range to another block next, whose accesses are then unrelated to this block's. See
  // Core::RetireGm.
  virtual void OnGmRetire(Core& /*core*/, const void* /*p*/, uint64_t /*bytes*/) {}
};

// Attaches `observer` to every launch that starts after this call (not owned). Detach before
// destroying it.
void AttachObserver(Observer* observer);
void DetachObserver(Observer* observer);

// Note [Funnel cost]
// With no observer attached, an API call costs its argument checks plus one predictable branch on
// Core::observed(); the Instr record is built only inside that branch (see AICORE_ISSUE in
// kernel/detail/issue.h), so the no-observer path never touches it.

}  // namespace aicore::sim
