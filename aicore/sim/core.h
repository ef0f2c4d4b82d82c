// The per-core execution context: which core this is (AIC/AIV, block and sub-block indices), its
// local memories sized from the chip, the vector mask and flag state, and the funnel's observers.
// One Core exists per running block; kernel code reaches it through CurrentCore().
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/status.h"
#include "aicore/sim/funnel.h"
#include "aicore/sim/source_site.h"

// Note [Built-in block variables]
// AscendC kernels may read the raw built-ins `block_idx` and `block_num` (in CANN's CPU mode they
// are `extern int64_t` globals, one per forked core process). Here blocks are fibers sharing
// worker threads, so they are thread_local and SetCurrentCore rewrites them every time the
// scheduler resumes a fiber: block_idx is the AI Core (group) index, so both AIVs of a
// __mix__(1, 2) group read the same value, and block_num is the launch's numBlocks (groups for a
// mix launch). GetBlockIdx()/GetBlockNum() give the per-core numbering instead.
extern thread_local constinit int64_t block_idx;
extern thread_local constinit int64_t block_num;

namespace aicore::sim {

enum class CoreType : uint8_t { kAiv, kAic, kCoupled };
// Returns "AIV", "AIC" or "AICore".
const char* CoreTypeName(CoreType t);

// How a launch maps blocks to cores (AscendC's KernelMode / kernel type).
enum class KernelMode : uint8_t {
  kAiv,  // vector-only: block_dim AIVs (AI Cores on coupled chips)
  kAic,  // cube-only: block_dim AICs
  kMix,  // block_dim groups of 1 AIC + 2 AIV on split chips (AI Cores on coupled chips)
  kMix1To1,  // block_dim groups of 1 AIC + 1 AIV on split chips (__mix__(1, 1), MIX_AIC_1_1)
};
// Returns "AIV only", "AIC only", "mix 1:2" or "mix 1:1".
const char* KernelModeName(KernelMode m);

// The tiling key and tiling data a launch hands its kernel (op projects, ICPU_SET_TILING_KEY):
// what TILING_KEY_VAR and GET_TILING_DATA read. Per launch, so launches on different streams never
// see each other's key.
struct LaunchTiling {
  uint64_t key = 0;
  const void* data = nullptr;  // the tiling argument's GM buffer, or nullptr when unknown
  uint64_t bytes = 0;          // bytes of valid tiling data at `data`
};

struct CoreIdentity {
  CoreType type = CoreType::kAiv;
  int64_t block_idx = 0;      // GetBlockIdx()
  int64_t block_num = 1;      // GetBlockNum()
  int64_t sub_block_idx = 0;  // GetSubBlockIdx(): 0 or 1 for the AIVs of a mix group
  int64_t sub_block_num = 1;  // GetSubBlockNum()
  int64_t group_idx = 0;      // the AI Core (group) this core belongs to
};

// Note [L0C to UB]
// On a chip with Chip::fixpipe_to_ub (arch 3510) Fixpipe can move L0C into UB, and the UB it
// writes is the paired AIV's: the AIC has none of its own (ascendc-reference.md 6.1, 7.2). The
// sim models it for 1:1 mix launches (KernelMode::kMix1To1), where the pairing is one AIC to one
// AIV: the scheduler maps the AIV's UB once per group and hands it to both cores, the AIV as its
// UB and the AIC as PeerUb(). On the AIC, TPipe gives UB queues and TBufs memory there at the
// offsets the AIV's TPipe gives them when both allocate in the same order (the AIC's own
// allocations stay bookkeeping otherwise, Note [UB queues on the AIC]); only Fixpipe may write
// them from the AIC, and its funnel record says so (Instr::dst_in_peer_ub). The dual-destination
// mode that splits one Fixpipe between the two AIVs of a 1:2 group is not modelled: a 1:2 AIC
// has no PeerUb() and Fixpipe to UB there is an error.
class Core {
 public:
  // `group_ub`: the UB shared by the AIC and the AIV of a 1:1 mix group (Note [L0C to UB]), or
  // nullptr (every other launch): the AIV uses it as its UB, the AIC as PeerUb().
  Core(const arch::Chip& chip, std::string kernel_name, const CoreIdentity& id,
       const std::vector<Observer*>& observers, std::shared_ptr<uint8_t> group_ub = nullptr);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  const arch::Chip& chip() const { return *chip_; }
  const std::string& kernel_name() const { return kernel_name_; }
  const CoreIdentity& id() const { return id_; }
  // Returns "AIV 3" / "AIC 0" / "AICore 5": the name errors and reports use.
  std::string Name() const;
  // Returns a number unique to this core of this launch (never 0), so kernel objects that must
  // not outlive their launch or leave their block (LocalTensor) can be stamped and checked.
  uint32_t serial() const { return serial_; }

  // Returns true when this core type has `b` (an AIV has UB only on split chips, an AIC has
  // L1/L0A/L0B/L0C/BT/FB).
  bool HasBuffer(arch::Buffer b) const { return local_[static_cast<int>(b)] != nullptr; }
  // Returns the host memory backing local buffer `b` (nullptr if this core lacks it).
  uint8_t* LocalBase(arch::Buffer b) const { return local_[static_cast<int>(b)]; }
  uint64_t LocalSize(arch::Buffer b) const { return chip_->spec(b).bytes; }
  // Returns the UB of this AIC's paired AIV when Fixpipe can write it (Note [L0C to UB]), else
  // nullptr.
  uint8_t* PeerUb() const { return id_.type == CoreType::kAic ? group_ub_.get() : nullptr; }
  // Returns true when this AIV's UB is also written by its AIC's Fixpipe (Note [L0C to UB]).
  bool SharesUb() const { return id_.type == CoreType::kAiv && group_ub_ != nullptr; }
  // Returns the buffer and offset of host address `p` if it lies in one of this core's local
  // buffers, else {kGm, address}.
  MemRef Locate(const void* p, uint64_t bytes) const;

  // The funnel. See Note [Funnel cost].
  bool observed() const { return observed_; }
  void Notify(const Instr& instr);
  // Tells the observers that [p, p + bytes), host memory this block used as GM staging, is about
  // to be freed (Observer::OnGmRetire). A kernel library calls it before it frees such memory
  // inside a launch, so a later block that gets the same addresses is not judged against this
  // block's accesses.
  void RetireGm(const void* p, uint64_t bytes) {
    if (observed_) [[unlikely]] {
      for (Observer* o : observers_) o->OnGmRetire(*this, p, bytes);
    }
  }

  // Runs the data movement of an instruction on `pipe`: at once, or in differential mode deferred
  // until a sync edge from `pipe` is consumed (See Note [Differential execution]).
  template <typename Work>
  void Execute(Pipe pipe, Work&& work) {
    if (!deferring_) [[likely]] {
      work();
      return;
    }
    Defer(pipe, std::function<void()>(std::forward<Work>(work)));
  }
  // Runs every deferred instruction of `pipe` in program order (kAll: of every pipe).
  void Flush(Pipe pipe) {
    if (deferring_) [[unlikely]] FlushDeferred(pipe);
  }
  bool deferring() const { return deferring_; }

  // Vector mask state (SetVectorMask / SetMaskCount / SetMaskNorm).
  std::array<uint64_t, 2> vector_mask{~0ull, ~0ull};
  bool mask_counter_mode = false;
  // The CMPMASK register (SetCmpMask / GetCmpMask, Select in VSEL_CMPMASK_SPR mode): 128 bits.
  std::array<uint64_t, 2> cmp_mask{};
  // SetPadValue's register: the pad element bits DataCopyPad (GM -> UB, isPad false) uses once set.
  uint64_t pad_value_bits = 0;
  bool pad_value_set = false;
  // Elements MrgSort/MrgSort4 took from each list in their last call (GetMrgSortResult).
  std::array<uint16_t, 4> mrg_sort_result{};

  // Per (HardEvent, event id) one-bit flags; index = event kind, bit = id.
  std::array<uint32_t, 64> flag_bits{};
  // Event IDs handed out by AllocEventID/FetchEventID, per event kind (bit = id in use).
  std::array<uint32_t, 64> event_ids_in_use{};
  // The live TPipe (GetTPipePtr()), owned by kernel code, and its serial (0: none), which the
  // queues and TBufs it initialised carry so a use after it is destroyed or Reset is caught.
  void* tpipe = nullptr;
  // The live LocalMemAllocator of each local buffer (nullptr: none), owned by kernel code; TPipe
  // refuses a buffer that has one.
  std::array<const void*, arch::kBufferCount> local_allocator{};
  uint32_t tpipe_serial = 0;
  // AscendC atomic mode for GM writes (SetAtomicAdd etc.): 0 none.
  int atomic_mode = 0;
  // The launch's tiling key and data (set by aicore::RunKernel before the kernel body runs).
  LaunchTiling tiling;
  // Kernel work seen on this core: instructions issued (AICORE_ISSUE, observed or not) and
  // GlobalTensor::SetGlobalBuffer calls. aicore::RunKernel tells a launch whose cores did none
  // of it (a body under a core-type guard that is false on every core) from a real one.
  uint64_t work = 0;
  // True once ASCEND_IS_AIC was false here (an AIV) or ASCEND_IS_AIV false here (an AIC).
  bool guard_false = false;
  // Kernel printf text after the last newline, owned by kernel/debug/print.cc, which writes
  // whole lines only; the destructor writes what is left (Note [Kernel output lines]).
  std::string print_pending;

 private:
  const arch::Chip* chip_;
  std::string kernel_name_;
  CoreIdentity id_;
  uint32_t serial_;
  std::vector<Observer*> observers_;
  bool observed_ = false;
  void Defer(Pipe pipe, std::function<void()> work);
  void FlushDeferred(Pipe pipe);
  bool deferring_ = false;
  std::array<std::vector<std::function<void()>>, kPipeCount> deferred_;
  std::mt19937_64 rng_;
  std::array<uint8_t*, arch::kBufferCount> local_{};
  std::shared_ptr<uint8_t> group_ub_;  // Note [L0C to UB]
  uint8_t* arena_ = nullptr;
  size_t arena_bytes_ = 0;
};

// Turns differential mode on for launches that start later (seed != 0) or off (0). The
// AICORE_DIFFERENTIAL environment variable sets the initial seed. See Note [Differential execution].
void SetDifferentialSeed(uint64_t seed);
uint64_t DifferentialSeed();

namespace internal {
// The running core of this thread (set by the scheduler around each fiber resume; fibers never
// migrate, see Note [Fibers stay on their worker]). constinit lets every API call read it
// directly instead of through a TLS wrapper call.
extern thread_local constinit Core* current_core;
[[noreturn]] void FailNoCurrentCore();
}  // namespace internal

// Returns the core the calling kernel code runs on. Throws FailedPrecondition outside a kernel.
inline Core& CurrentCore() {
  Core* core = internal::current_core;
  if (core == nullptr) [[unlikely]] internal::FailNoCurrentCore();
  return *core;
}
// Returns the current core, or nullptr outside a kernel.
inline Core* CurrentCoreOrNull() { return internal::current_core; }
// Makes `core` current on this thread (the scheduler's job; nullptr clears). Also sets the
// built-in block_idx/block_num of this thread (Note [Built-in block variables]).
void SetCurrentCore(Core* core);

// Throws aicore::Error(code) whose message names the kernel, the core, the API and the call site:
// "add_custom AIV 3: DataCopy: <message> (at add_custom.cc:42)".
template <typename... Args>
[[noreturn]] void KernelFail(StatusCode code, const char* api, const std::source_location& loc,
                             const Args&... args);

[[noreturn]] void KernelFailMessage(StatusCode code, const char* api,
                                    const std::source_location& loc, const std::string& message);

template <typename... Args>
[[noreturn]] void KernelFail(StatusCode code, const char* api, const std::source_location& loc,
                             const Args&... args) {
  KernelFailMessage(code, api, loc, StrCat(args...));
}

}  // namespace aicore::sim
