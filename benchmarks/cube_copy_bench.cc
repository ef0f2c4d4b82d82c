// The cube data paths on the matmul hot path, timed through the AscendC API inside a one-block
// cube-only kernel: DataCopy GM -> L1 with Nd2NzParams of a 128 x 1024 fp32 panel (512 KiB, all
// of L1) and Fixpipe NZ -> ND of a 128 x 128 fp32 L0C tile (64 KiB) to GM, as float and as half.
// memcpy rows of the same byte counts, in the same binary, are the baseline. Reports bytes/s.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

constexpr uint16_t kPanelRows = 128;
constexpr uint16_t kPanelCols = 1024;
constexpr uint16_t kTile = 128;

aicore::LaunchOptions Cube() { return aicore::LaunchOptions{.mode = aicore::KernelMode::kAic}; }

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1009) * 0.25f;
  return v;
}

void BM_Nd2NzPanel(benchmark::State& state) {
  const std::vector<float> gm = Ramp(size_t{kPanelRows} * kPanelCols);
  const aicore::Status st = aicore::RunKernel("nd2nz_bench", 1, Cube(), [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::A1> buf;
    pipe.InitBuffer(buf, kPanelRows * kPanelCols * sizeof(float));
    auto l1 = buf.Get<float>();  // (128, 1024) as Nz
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(const_cast<float*>(gm.data()), gm.size());
    const AscendC::Nd2NzParams p(1, kPanelRows, kPanelCols, 0, kPanelCols, kPanelRows, 1, 0);
    for (auto _ : state) {
      AscendC::DataCopy(l1, g, p);
      benchmark::DoNotOptimize(l1.data());
    }
  });
  if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kPanelRows * kPanelCols *
                          sizeof(float));
}

template <typename D>
void BM_FixpipeTile(benchmark::State& state) {
  std::vector<D> gm(size_t{kTile} * kTile);
  const std::vector<float> acc = Ramp(size_t{kTile} * kTile);
  const aicore::Status st = aicore::RunKernel("fixpipe_bench", 1, Cube(), [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::CO1> buf;
    pipe.InitBuffer(buf, kTile * kTile * sizeof(float));
    auto l0c = buf.Get<float>();  // (128, 128) as L0C Nz
    std::memcpy(l0c.data(), acc.data(), acc.size() * sizeof(float));
    AscendC::GlobalTensor<D> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::FixpipeParamsV220 p;
    p.mSize = kTile;
    p.nSize = kTile;
    p.srcStride = kTile;
    p.dstStride = kTile;
    p.quantPre = std::is_same_v<D, float> ? QuantMode_t::NoQuant : QuantMode_t::F322F16;
    for (auto _ : state) {
      AscendC::Fixpipe<D, float, AscendC::CFG_ROW_MAJOR>(g, l0c, p);
      benchmark::DoNotOptimize(gm.data());
    }
  });
  if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  // Bytes read from L0C (the fp32 tile), as memcpy of the same tile counts them.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kTile * kTile * sizeof(float));
}

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

BENCHMARK(BM_Nd2NzPanel)->Name("cube_copy/nd2nz_gm_to_l1/f32/128x1024");
BENCHMARK(BM_Memcpy)->Name("cube_copy/memcpy/512KiB")->Arg(kPanelRows* kPanelCols * 4);
BENCHMARK(BM_FixpipeTile<float>)->Name("cube_copy/fixpipe_l0c_to_gm/f32/128x128");
BENCHMARK(BM_FixpipeTile<aicore::half>)->Name("cube_copy/fixpipe_l0c_to_gm/f32_to_f16/128x128");
BENCHMARK(BM_Memcpy)->Name("cube_copy/memcpy/64KiB")->Arg(kTile* kTile * 4);

}  // namespace

BENCHMARK_MAIN();
