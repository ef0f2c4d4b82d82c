// Per-thread scratch buffers (scratch.h).
#include "aicore/kernel/cube/scratch.h"

#include <cstdint>
#include <memory>

namespace aicore::kernel::cube {

float* ScratchFloats(ScratchSlot slot, size_t floats) {
  struct Buf {
    std::unique_ptr<float[]> p;
    size_t cap = 0;
  };
  thread_local Buf bufs[static_cast<int>(ScratchSlot::kCount)];
  Buf& b = bufs[static_cast<int>(slot)];
  if (b.cap < floats + 16) {
    b.p.reset(new float[floats + 16]);
    b.cap = floats + 16;
  }
  const auto addr = reinterpret_cast<uintptr_t>(b.p.get());
  return reinterpret_cast<float*>((addr + 63) & ~uintptr_t{63});
}

}  // namespace aicore::kernel::cube
