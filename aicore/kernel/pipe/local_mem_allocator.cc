// Static tensors: the checks of LocalTensor(pos, addr, tileSize) and LocalMemAllocator's
// per-core registration (one allocator per buffer, never together with a TPipe on that buffer).
#include "aicore/kernel/pipe/local_mem_allocator.h"

namespace AscendC::detail {

namespace {

// Returns the buffer behind `pos` on the calling core, failing when the core lacks it.
aicore::arch::Buffer LocalBufferOf(const char* api, TPosition pos, const SrcLoc& loc) {
  auto& core = Core();
  const auto& chip = core.chip();
  const aicore::arch::Buffer b = chip.BufferOf(ToArch(pos));
  const char* pos_name = aicore::arch::PositionName(ToArch(pos));
  if (b == aicore::arch::Buffer::kNone || b == aicore::arch::Buffer::kGm) {
    Fail(StatusCode::kInvalidArgument, api, loc, "position ", pos_name, " has no local buffer on ",
         chip.name);
  }
  if (!core.HasBuffer(b)) {
    Fail(StatusCode::kInvalidArgument, api, loc, "position ", pos_name, " lives in ",
         aicore::arch::BufferName(b), ", which ", core.Name(), " does not have on ", chip.name,
         " (split chip: UB is on the AIV, L1/L0A/L0B/L0C/BT/FB on the AIC)");
  }
  return b;
}

}  // namespace

uint8_t* StaticTensorAddr(const char* api, TPosition pos, uint32_t addr, uint64_t bytes,
                          uint32_t elements, const SrcLoc& loc) {
  const aicore::arch::Buffer b = LocalBufferOf(api, pos, loc);
  auto& core = Core();
  const uint64_t cap = core.LocalSize(b);
  const char* buf = aicore::arch::BufferName(b);
  if (elements == 0) {
    Fail(StatusCode::kInvalidArgument, api, loc, "tileSize is 0 (a static tensor needs at least "
         "one element)");
  }
  if (addr % 32 != 0) {
    Fail(StatusCode::kInvalidArgument, api, loc, "address ", addr, " in ", buf,
         " is not a multiple of 32 bytes");
  }
  if (bytes % 32 != 0) {
    Fail(StatusCode::kInvalidArgument, api, loc, elements, " elements are ", bytes,
         " bytes, not a multiple of 32 (pad the tile to 32 bytes)");
  }
  if (uint64_t{addr} + bytes > cap) {
    Fail(StatusCode::kResourceExhausted, api, loc, bytes, " bytes at address ", addr,
         " run past the end of ", buf, " (", cap, " bytes on ", core.chip().name, ")");
  }
  return core.LocalBase(b) + addr;
}

void RegisterAllocator(const void* allocator, aicore::arch::Buffer b, const SrcLoc& loc) {
  auto& core = Core();
  const char* buf = aicore::arch::BufferName(b);
  if (!core.HasBuffer(b)) {
    Fail(StatusCode::kInvalidArgument, "LocalMemAllocator", loc, core.Name(), " has no ", buf,
         " on ", core.chip().name,
         " (split chip: UB is on the AIV, L1/L0A/L0B/L0C/BT/FB on the AIC; guard the code with "
         "ASCEND_IS_AIV / ASCEND_IS_AIC)");
  }
  const void*& slot = core.local_allocator[static_cast<int>(b)];
  if (slot != nullptr) {
    Fail(StatusCode::kFailedPrecondition, "LocalMemAllocator", loc, "another LocalMemAllocator "
         "for ", buf, " is still live on this core (one allocator per buffer at a time)");
  }
  const auto* pipe = static_cast<const TPipe*>(core.tpipe);
  if (pipe != nullptr && pipe->Used(b) > 0) {
    Fail(StatusCode::kFailedPrecondition, "LocalMemAllocator", loc, "the TPipe already holds ",
         pipe->Used(b), " bytes of ", buf, "; a LocalMemAllocator on the same buffer would alias "
         "them (do not mix TPipe and static tensors in one buffer)");
  }
  slot = allocator;
}

void UnregisterAllocator(const void* allocator, aicore::arch::Buffer b) {
  auto* core = aicore::sim::CurrentCoreOrNull();
  if (core == nullptr) return;
  const void*& slot = core->local_allocator[static_cast<int>(b)];
  if (slot == allocator) slot = nullptr;
}

void CheckAllocatorPosition(aicore::arch::Buffer b, TPosition pos, const SrcLoc& loc) {
  auto& core = Core();
  const aicore::arch::Buffer pb = core.chip().BufferOf(ToArch(pos));
  if (pb != b) {
    Fail(StatusCode::kInvalidArgument, "LocalMemAllocator::Alloc", loc, "position ",
         aicore::arch::PositionName(ToArch(pos)), " lives in ",
         pb == aicore::arch::Buffer::kNone ? "no buffer" : aicore::arch::BufferName(pb),
         ", not in this allocator's ", aicore::arch::BufferName(b));
  }
  const auto* pipe = static_cast<const TPipe*>(core.tpipe);
  if (pipe != nullptr && pipe->Used(b) > 0) {
    Fail(StatusCode::kFailedPrecondition, "LocalMemAllocator::Alloc", loc, "the TPipe holds ",
         pipe->Used(b), " bytes of ", aicore::arch::BufferName(b), " from offset 0, where this "
         "allocator hands out tensors (do not mix TPipe and static tensors in one buffer)");
  }
}

}  // namespace AscendC::detail
