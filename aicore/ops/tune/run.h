// How strategy selection runs a candidate kernel: once under the timing model of the target chip,
// or on the host for its wall time; and the scratch GM the candidates run on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/core/dtype.h"
#include "aicore/core/status.h"

namespace aicore::ops::tune {

// What one modeled launch cost on the chip.
struct ModeledTime {
  double body_us = 0;      // the slowest core's finish
  double overhead_us = 0;  // the chip's launch overhead
};

// Runs `body` as AIV kernel "tune:<name>" on `block_dim` blocks of `chip` (which outlives the
// call) and waits, with a profiler replaying it on `chip`. The launch is a launch like any other:
// AICORE_CHECK and AICORE_PROFILE see it too. Returns the kernel's error, if any.
Status ModelLaunch(const std::string& name, uint32_t block_dim, const arch::Chip& chip,
                   std::function<void()> body, ModeledTime* time);

// Runs `body` as AIV kernel "tune:<name>" once to warm up, then `runs` (>= 1) more times, and
// sets `us` to the least wall time of those runs in microseconds.
Status MeasureLaunch(const std::string& name, uint32_t block_dim, const arch::Chip& chip,
                     const std::function<void()>& body, int runs, double* us);

// Bytes of one operand strategy selection measures at most (the rest of the shape is scaled):
// larger than the last-level caches of the hosts measured, so the measured plan sees DRAM.
inline constexpr uint64_t kMeasureOperandBytes = 64ull << 20;
// Tiles per block a modeled slice runs (the pipeline's fill and drain plus a steady state).
inline constexpr int64_t kModelTilesPerBlock = 8;

// GM scratch (GmAlloc) candidates run on, freed on destruction.
class Scratch {
 public:
  Scratch() = default;
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  // Returns `elems` (> 0) elements of `dtype` filled with a deterministic pattern in [lo, hi].
  uint8_t* Fill(DType dtype, int64_t elems, float lo, float hi);
  // Returns `bytes` zeroed bytes.
  uint8_t* Zeroed(uint64_t bytes);

 private:
  std::vector<void*> blocks_;
};

}  // namespace aicore::ops::tune
