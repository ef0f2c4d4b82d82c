// Test plumbing for the cube data-path tests: run a body on one AIC (cube-only launch), carve
// tensors at cube positions from TBufs, and record the funnel instructions a kernel issues.
#pragma once

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/funnel.h"

namespace aicore::testing {

inline LaunchOptions CubeLaunch() { return LaunchOptions{.mode = KernelMode::kAic}; }

// Runs body() as a one-block cube-only kernel and returns its status.
template <typename Fn>
Status RunOnAic(Fn&& body) {
  return RunKernel("cube_test", 1, CubeLaunch(), [&] { body(); });
}

// Returns a tensor of `n` elements at position `pos` backed by `buf` (InitBuffer'd here).
template <typename T, AscendC::TPosition pos>
AscendC::LocalTensor<T> Carve(AscendC::TPipe& pipe, AscendC::TBuf<pos>& buf, uint32_t n) {
  pipe.InitBuffer(buf, static_cast<uint32_t>((uint64_t{n} * sizeof(T) + 31) / 32 * 32));
  return buf.template Get<T>(n);
}

// Copies host values into a local tensor / out of it (test-side, no funnel record).
template <typename T>
void Fill(const AscendC::LocalTensor<T>& t, const std::vector<T>& v) {
  std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
}
// Read waits for every pipe first (PipeBarrier<PIPE_ALL>), so the test stays a correctly
// synchronised kernel under differential execution (AICORE_DIFFERENTIAL).
template <typename T>
std::vector<T> Read(const AscendC::LocalTensor<T>& t, size_t n) {
  AscendC::PipeBarrier<PIPE_ALL>();
  std::vector<T> v(n);
  std::memcpy(v.data(), t.data(), n * sizeof(T));
  return v;
}

// Collects the records of every instruction issued while attached.
class InstrLog : public sim::Observer {
 public:
  InstrLog() { sim::AttachObserver(this); }
  ~InstrLog() override { sim::DetachObserver(this); }
  void OnInstr(sim::Core& /*core*/, const sim::Instr& in) override {
    std::lock_guard<std::mutex> lock(mu_);
    instrs_.push_back(in);
  }
  // Returns the records whose api is `api`.
  std::vector<sim::Instr> Of(const char* api) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<sim::Instr> out;
    for (const auto& in : instrs_) {
      if (std::strcmp(in.api, api) == 0) out.push_back(in);
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<sim::Instr> instrs_;
};

}  // namespace aicore::testing
