// Running candidate kernels for strategy selection: under the timing model (a profiler attached
// around one synchronous launch) or on the host (wall time, best of several runs).
#include "aicore/ops/tune/run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "aicore/perf/profiler.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"

namespace aicore::ops::tune {

namespace {

// Launches are serialised, but another thread may launch between Attach and Detach: the tuning
// launch has a name of its own, and the result is picked by it.
std::string UniqueName(const std::string& name) {
  static std::atomic<uint64_t> counter{0};
  return StrCat("tune:", name, "#", counter++);
}

LaunchOptions Aiv(const arch::Chip& chip) {
  LaunchOptions o;
  o.mode = KernelMode::kAiv;
  o.chip = &chip;
  return o;
}

}  // namespace

Status ModelLaunch(const std::string& name, uint32_t block_dim, const arch::Chip& chip,
                   std::function<void()> body, ModeledTime* time) {
  const std::string unique = UniqueName(name);
  perf::Profiler prof(chip);
  prof.Attach();
  Status s = RunKernel(unique, block_dim, Aiv(chip), std::move(body));
  prof.Detach();
  if (!s.ok()) return s;
  try {
    for (const perf::LaunchResult& r : prof.Results()) {
      if (r.kernel != unique) continue;
      time->body_us = r.body_us;
      time->overhead_us = r.launch_overhead_us;
      return Status();
    }
  } catch (const Error& e) {
    return e.status();
  }
  return Status(StatusCode::kInternal, StrCat("the profiler recorded no launch of ", unique));
}

Status MeasureLaunch(const std::string& name, uint32_t block_dim, const arch::Chip& chip,
                     const std::function<void()>& body, int runs, double* us) {
  const std::string unique = UniqueName(name);
  double best = -1;
  for (int i = 0; i <= std::max(1, runs); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    Status s = RunKernel(unique, block_dim, Aiv(chip), body);
    const auto t1 = std::chrono::steady_clock::now();
    if (!s.ok()) return s;
    const double t = std::chrono::duration<double, std::micro>(t1 - t0).count();
    if (i > 0 && (best < 0 || t < best)) best = t;  // run 0 warms up
  }
  *us = best;
  return Status();
}

Scratch::~Scratch() {
  for (void* p : blocks_) GmFree(p);
}

uint8_t* Scratch::Zeroed(uint64_t bytes) {
  void* p = GmAlloc(std::max<uint64_t>(bytes, 32));
  blocks_.push_back(p);
  return static_cast<uint8_t*>(p);
}

uint8_t* Scratch::Fill(DType dtype, int64_t elems, float lo, float hi) {
  const size_t es = DTypeSize(dtype);
  uint8_t* p = Zeroed(static_cast<uint64_t>(elems) * es);
  for (int64_t i = 0; i < elems; ++i) {
    // The golden-ratio sequence: well spread, no two neighbours alike.
    const double frac = static_cast<double>(i) * 0.6180339887498949;
    const float v =
        lo + (hi - lo) * static_cast<float>(frac - static_cast<double>(static_cast<int64_t>(frac)));
    uint8_t* d = p + i * static_cast<int64_t>(es);
    if (dtype == DType::kF16) {
      const half h(v);
      std::memcpy(d, &h, 2);
    } else if (dtype == DType::kBF16) {
      const bfloat16 b(v);
      std::memcpy(d, &b, 2);
    } else {
      std::memcpy(d, &v, 4);
    }
  }
  return p;
}

}  // namespace aicore::ops::tune
