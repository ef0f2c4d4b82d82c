// Shared plumbing of the vector API templates: operand checks (live, in UB, 32-byte aligned,
// within extent), the count and level-0 drivers that call the engine, and the funnel record.
#pragma once

#include <cstdint>
#include <type_traits>

#include "aicore/kernel/detail/check.h"
#include "aicore/kernel/tensor/local_tensor.h"
#include "aicore/kernel/types.h"
#include "aicore/kernel/vector/engine.h"
#include "aicore/kernel/vector/repeat.h"

namespace AscendC::detail {

using aicore::kernel::engine::VecOp;
using aicore::kernel::engine::Scalar;

template <typename T>
Scalar MakeScalar(const T& v) {
  Scalar s;
  if constexpr (std::is_integral_v<T>) {
    s.i = static_cast<int64_t>(v);
  } else {
    s.f = static_cast<double>(static_cast<float>(v));
  }
  return s;
}

// Fails unless `t` is a live tensor in UB starting on a 32-byte boundary. Inlined (with the
// caller's `core`): every vector API call runs it once per operand, and out of line the calls
// cost more than the checks.
template <typename T>
[[gnu::always_inline]] inline void CheckVecOperand(aicore::sim::Core& core,
                                                   const LocalTensor<T>& t, const char* api,
                                                   const char* role, const SrcLoc& loc) {
  t.CheckLive(api, loc);
  const auto b = core.chip().BufferOf(ToArch(t.GetPosition()));
  if (b != aicore::arch::Buffer::kUb) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, role, " is a ",
         aicore::arch::PositionName(ToArch(t.GetPosition())), " tensor in ",
         aicore::arch::BufferName(b),
         "; vector instructions read and write UB only (VECIN, VECOUT, VECCALC)");
  }
  if (!core.HasBuffer(aicore::arch::Buffer::kUb)) [[unlikely]] FailAicUbTensor(api, role, loc);
  if ((reinterpret_cast<uintptr_t>(t.data()) & 31u) != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, role, " starts at UB offset ",
         core.Locate(t.data(), 0).offset, ", not on a 32-byte boundary");
  }
}
template <typename T>
void CheckVecOperand(const LocalTensor<T>& t, const char* api, const char* role,
                     const SrcLoc& loc) {
  CheckVecOperand(Core(), t, api, role, loc);
}

// Fails unless `t` is a live tensor in UB starting on an `align`-byte boundary and holding at
// least `bytes` bytes (for operands whose documented alignment is not 32 bytes).
template <typename T>
void CheckUbOperand(const LocalTensor<T>& t, uint64_t bytes, uint32_t align, const char* api,
                    const char* role, const SrcLoc& loc) {
  t.CheckLive(api, loc);
  auto& core = Core();
  const auto b = core.chip().BufferOf(ToArch(t.GetPosition()));
  if (b != aicore::arch::Buffer::kUb) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, role, " is a ",
         aicore::arch::PositionName(ToArch(t.GetPosition())), " tensor in ",
         aicore::arch::BufferName(b), "; vector instructions read and write UB only");
  }
  // b is UB here: a UB tensor on a core without UB is the AIC's view of its AIV's (AicUbTensor).
  if (!core.HasBuffer(b)) [[unlikely]] FailAicUbTensor(api, role, loc);
  if (reinterpret_cast<uintptr_t>(t.data()) % align != 0) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, role, " starts at UB offset ",
         core.Locate(t.data(), 0).offset, ", not on a ", align, "-byte boundary");
  }
  if (bytes > t.bytes()) [[unlikely]] {
    Fail(StatusCode::kOutOfRange, api, loc, role, " holds ", t.bytes(), " B but the call uses ",
         bytes, " B");
  }
}

template <typename T>
[[gnu::always_inline]] inline void CheckSupported(VecOp op, const char* api, const SrcLoc& loc) {
  if (!aicore::kernel::engine::VecOpSupports(op, aicore::DTypeOf<T>())) [[unlikely]] {
    Fail(StatusCode::kInvalidArgument, api, loc, api, " is not defined for ",
         aicore::DTypeName(aicore::DTypeOf<T>()));
  }
}

// Builds the funnel record of a vector instruction over [dst, dst + dst_bytes) etc.
aicore::sim::Instr VecInstr(aicore::sim::Core& core, const char* api, aicore::DType dt,
                            const void* dst, uint64_t dst_bytes, const void* src0,
                            uint64_t src0_bytes, const void* src1, uint64_t src1_bytes,
                            uint64_t elements, uint32_t repeat, const SrcLoc& loc);

// Returns `in` with [p, p + bytes) added as a further source (a no-op for a null p).
inline aicore::sim::Instr WithSource(aicore::sim::Instr in, aicore::sim::Core& core, const void* p,
                                     uint64_t bytes) {
  if (p != nullptr && in.src_count < aicore::sim::Instr::kMaxSrc) {
    in.src[in.src_count++] = core.Locate(p, bytes);
  }
  return in;
}
// Raises the count-form error: `count` outside [0, limit], naming each operand's size (an
// absent operand is -1 and is left out).
[[noreturn]] void FailCount(const char* api, int32_t count, uint32_t limit, uint32_t dst_size,
                            int64_t src0_size, int64_t src1_size, const SrcLoc& loc);

// Count form: op over the first `count` elements.
template <typename T>
void VecCount(VecOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>* src0,
              const LocalTensor<T>* src1, Scalar s, int32_t count, const SrcLoc& loc) {
  CheckSupported<T>(op, api, loc);
  auto& core = Core();
  CheckVecOperand(core, dst, api, "dst", loc);
  if (src0) CheckVecOperand(core, *src0, api, "src0", loc);
  if (src1) CheckVecOperand(core, *src1, api, "src1", loc);
  const uint32_t limit = std::min({dst.GetSize(), src0 ? src0->GetSize() : ~0u,
                                   src1 ? src1->GetSize() : ~0u});
  if (count < 0 || static_cast<uint32_t>(count) > limit) [[unlikely]] {
    FailCount(api, count, limit, dst.GetSize(), src0 ? int64_t{src0->GetSize()} : -1,
              src1 ? int64_t{src1->GetSize()} : -1, loc);
  }
  aicore::kernel::engine::Elementwise(op, aicore::DTypeOf<T>(), dst.data(),
                                      src0 ? src0->data() : nullptr,
                                      src1 ? src1->data() : nullptr, s, count);
  AICORE_ISSUE(core, VecInstr(core, api, aicore::DTypeOf<T>(), dst.data(), count * sizeof(T),
                              src0 ? src0->data() : nullptr, src0 ? count * sizeof(T) : 0,
                              src1 ? src1->data() : nullptr, src1 ? count * sizeof(T) : 0, count,
                              0, loc));
}

// Strides of the level-0 form, per operand: dst, src0, src1.
struct Level0Strides {
  uint32_t blk[3] = {1, 1, 1};
  uint32_t rep[3] = {8, 8, 8};
};

// The engine calls of a level-0 op on N operands (dst, src0, src1): a contiguous run, or one
// call for runs one per repeat (a row op over a tile; see ForEachRun).
template <int N>
struct VecRuns {
  VecOp op;
  aicore::DType dt;
  Scalar s;
  void operator()(uint8_t* const* p, uint64_t len) const {
    uint8_t* src0 = nullptr;
    uint8_t* src1 = nullptr;
    if constexpr (N > 1) src0 = p[1];
    if constexpr (N > 2) src1 = p[2];
    aicore::kernel::engine::Elementwise(op, dt, p[0], src0, src1, s, len);
  }
  void operator()(const RowRuns& rr) const {
    aicore::kernel::engine::ElementwiseRows(op, dt, rr.base[0], rr.base[1], rr.base[2], s, rr.len,
                                            rr.rows, rr.pitch, rr.block);
  }
};

// Level-0 form: op over the mask-selected elements of `repeat` repeats.
template <typename T>
void VecMasked(VecOp op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>* src0,
               const LocalTensor<T>* src1, Scalar s, bool is_set_mask, const uint64_t* bit_mask,
               const uint64_t* cont_mask, uint8_t repeat, const Level0Strides& st,
               const SrcLoc& loc) {
  static_assert(sizeof(T) >= 2, "level-0 vector forms take 16- or 32-bit elements");
  CheckSupported<T>(op, api, loc);
  auto& core = Core();
  CheckVecOperand(core, dst, api, "dst", loc);
  if (src0) CheckVecOperand(core, *src0, api, "src0", loc);
  if (src1) CheckVecOperand(core, *src1, api, "src1", loc);
  constexpr uint32_t kPerRepeat = 256 / sizeof(T);
  const RepeatMask mask = ResolveMask(is_set_mask, bit_mask, cont_mask, kPerRepeat, api, loc);
  const aicore::DType dt = aicore::DTypeOf<T>();
  auto op_of = [&](const LocalTensor<T>& t, int k) {
    return Operand{reinterpret_cast<uint8_t*>(t.data()), t.bytes(), sizeof(T), st.blk[k],
                   st.rep[k]};
  };
  uint64_t n = 0;
  if (src1) {
    Operand ops[3] = {op_of(dst, 0), op_of(*src0, 1), op_of(*src1, 2)};
    n = ForEachRun(ops, kPerRepeat, mask, repeat, api, loc, VecRuns<3>{op, dt, s});
  } else if (src0) {
    Operand ops[2] = {op_of(dst, 0), op_of(*src0, 1)};
    n = ForEachRun(ops, kPerRepeat, mask, repeat, api, loc, VecRuns<2>{op, dt, s});
  } else {
    Operand ops[1] = {op_of(dst, 0)};
    n = ForEachRun(ops, kPerRepeat, mask, repeat, api, loc, VecRuns<1>{op, dt, s});
  }
  AICORE_ISSUE(core, VecInstr(core, api, dt, dst.data(), dst.bytes(), src0 ? src0->data() : nullptr,
                              src0 ? src0->bytes() : 0, src1 ? src1->data() : nullptr,
                              src1 ? src1->bytes() : 0, n, repeat, loc));
}

}  // namespace AscendC::detail
