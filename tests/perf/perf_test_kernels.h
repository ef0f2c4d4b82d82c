// Small kernels the timing-model tests replay: a copy-in / Add / copy-out pipeline with a chosen
// number of buffers, and helpers to run them under a Profiler and read the chip's constants.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/perf/profiler.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace perf_test {

using namespace AscendC;  // NOLINT: kernels are written this way

// z = x + x over `tiles` tiles of `tile` halves per block, `buffers` buffers per queue, in the
// canonical CopyIn / Compute / CopyOut order. Each block works on its own slice of x and z.
template <int kBuffers>
void AddPipeline(half* x, half* z, int tiles, int tile) {
  TPipe pipe;
  TQue<QuePosition::VECIN, kBuffers> in_q;
  TQue<QuePosition::VECOUT, kBuffers> out_q;
  GlobalTensor<half> gm_x, gm_z;  // (tiles * tile) per block
  const int64_t block = static_cast<int64_t>(tiles) * tile * GetBlockIdx();
  gm_x.SetGlobalBuffer(x + block, static_cast<uint64_t>(tiles) * tile);
  gm_z.SetGlobalBuffer(z + block, static_cast<uint64_t>(tiles) * tile);
  pipe.InitBuffer(in_q, kBuffers, tile * sizeof(half));
  pipe.InitBuffer(out_q, kBuffers, tile * sizeof(half));
  for (int i = 0; i < tiles; ++i) {
    LocalTensor<half> ub_x = in_q.template AllocTensor<half>();
    DataCopy(ub_x, gm_x[i * tile], tile);
    in_q.EnQue(ub_x);
    LocalTensor<half> ub_in = in_q.template DeQue<half>();
    LocalTensor<half> ub_z = out_q.template AllocTensor<half>();
    Add(ub_z, ub_in, ub_in, tile);
    out_q.EnQue(ub_z);
    in_q.FreeTensor(ub_in);
    LocalTensor<half> ub_out = out_q.template DeQue<half>();
    DataCopy(gm_z[i * tile], ub_out, tile);
    out_q.FreeTensor(ub_out);
  }
}

// An allocator of 512-byte aligned memory: GM buffers that start on an L2 line (l2_line_bytes),
// so the model's line-granular L2 (Note [L2 reuse]) sees no line shared by two tiles and the
// hand-computed timelines stay exact.
template <typename T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <typename U>
  LineAligned(const LineAligned<U>&) {}  // NOLINT: allocator conversion
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{512}));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t{512}); }
  bool operator==(const LineAligned&) const { return true; }
  bool operator!=(const LineAligned&) const { return false; }
};

// Owns GM for `blocks` blocks of AddPipeline.
struct AddBuffers {
  AddBuffers(int blocks, int tiles, int tile)
      : x(static_cast<size_t>(blocks) * tiles * tile), z(x.size()) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = half(static_cast<float>(i % 13));
  }
  std::vector<half, LineAligned<half>> x, z;
};

// Runs AddPipeline<kBuffers> on `blocks` blocks under a fresh profiler and returns its results.
template <int kBuffers>
aicore::perf::LaunchResult ProfileAdd(int blocks, int tiles, int tile,
                                      const aicore::arch::Chip* chip = nullptr) {
  AddBuffers buf(blocks, tiles, tile);
  aicore::perf::Profiler prof;
  prof.Attach();
  aicore::LaunchOptions o;
  o.chip = chip;
  half* x = buf.x.data();
  half* z = buf.z.data();
  auto st = aicore::RunKernel("add_pipeline", blocks, o,
                              [=] { AddPipeline<kBuffers>(x, z, tiles, tile); });
  prof.Detach();
  EXPECT_TRUE(st.ok()) << st.ToString();
  for (size_t i = 0; i < buf.x.size(); ++i) {
    EXPECT_EQ(static_cast<float>(buf.z[i]), 2.0f * static_cast<float>(buf.x[i])) << i;
    if (static_cast<float>(buf.z[i]) != 2.0f * static_cast<float>(buf.x[i])) break;
  }
  EXPECT_EQ(prof.Results().size(), 1u);
  return prof.Results().at(0);
}

// Returns pipes.<key> of `chip`.
inline double Pipes(const aicore::arch::Chip& chip, const char* key) {
  return chip.pipes.at(key).get<double>();
}

// Returns `chip` with pipes.hbm_share set to `mode` ("fair" or "active").
inline aicore::arch::Chip WithHbmShare(const aicore::arch::Chip& chip, const char* mode) {
  nlohmann::json j = chip.raw;
  j["pipes"]["hbm_share"] = mode;
  return aicore::arch::ParseChip(j.dump(), chip.name);
}

// Returns `chip` with its HBM bandwidth (and optionally its AIV count) replaced.
inline aicore::arch::Chip WithHbm(const aicore::arch::Chip& chip, double hbm_gbps,
                                  int aiv_count = -1) {
  nlohmann::json j = chip.raw;
  j["memory"]["hbm_gbps"] = hbm_gbps;
  if (aiv_count > 0) j["aiv_count"] = aiv_count;
  return aicore::arch::ParseChip(j.dump(), "perf_test");
}

}  // namespace perf_test
