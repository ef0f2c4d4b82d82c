// AscendC vector kernels over GM arrays far beyond the last-level cache, on one worker thread:
// the canonical add_custom (double-buffered TQue pipeline) and an Exp kernel of the same shape.
// run_all.py divides their bandwidth by STREAM add / copy measured in the same run
// (machine_bench). Bytes are counted as STREAM does: add_custom 2 reads + 1 write, Exp 1 + 1.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>

#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"
#include "benchmarks/bench_util.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;

constexpr int32_t kBufferNum = 2;     // double buffering, as in examples/add_custom
constexpr uint32_t kBlockDim = 8;     // blocks, as in examples/add_custom

// z = x + y over `block_length` elements per block in tiles of `tile_length`.
template <typename T>
class KernelAdd {
 public:
  void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint64_t block_length, uint32_t tile_length) {
    block_length_ = block_length;
    tile_length_ = tile_length;
    const uint64_t start = block_length * GetBlockIdx();
    xGm.SetGlobalBuffer((__gm__ T*)x + start, block_length);
    yGm.SetGlobalBuffer((__gm__ T*)y + start, block_length);
    zGm.SetGlobalBuffer((__gm__ T*)z + start, block_length);
    pipe.InitBuffer(inQueueX, kBufferNum, tile_length * sizeof(T));
    pipe.InitBuffer(inQueueY, kBufferNum, tile_length * sizeof(T));
    pipe.InitBuffer(outQueueZ, kBufferNum, tile_length * sizeof(T));
  }
  void Process() {
    const uint64_t loop_count = block_length_ / tile_length_;
    for (uint64_t i = 0; i < loop_count; i++) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  void CopyIn(uint64_t progress) {
    LocalTensor<T> xLocal = inQueueX.template AllocTensor<T>();
    LocalTensor<T> yLocal = inQueueY.template AllocTensor<T>();
    DataCopy(xLocal, xGm[progress * tile_length_], tile_length_);
    DataCopy(yLocal, yGm[progress * tile_length_], tile_length_);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
  }
  void Compute() {
    LocalTensor<T> xLocal = inQueueX.template DeQue<T>();
    LocalTensor<T> yLocal = inQueueY.template DeQue<T>();
    LocalTensor<T> zLocal = outQueueZ.template AllocTensor<T>();
    Add(zLocal, xLocal, yLocal, tile_length_);
    outQueueZ.EnQue(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
  }
  void CopyOut(uint64_t progress) {
    LocalTensor<T> zLocal = outQueueZ.template DeQue<T>();
    DataCopy(zGm[progress * tile_length_], zLocal, tile_length_);
    outQueueZ.FreeTensor(zLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, kBufferNum> inQueueX, inQueueY;
  TQue<QuePosition::VECOUT, kBufferNum> outQueueZ;
  GlobalTensor<T> xGm, yGm, zGm;
  uint64_t block_length_ = 0;
  uint32_t tile_length_ = 0;
};

// y = exp(x), the same pipeline with one input.
template <typename T>
class KernelExp {
 public:
  void Init(GM_ADDR x, GM_ADDR y, uint64_t block_length, uint32_t tile_length) {
    block_length_ = block_length;
    tile_length_ = tile_length;
    const uint64_t start = block_length * GetBlockIdx();
    xGm.SetGlobalBuffer((__gm__ T*)x + start, block_length);
    yGm.SetGlobalBuffer((__gm__ T*)y + start, block_length);
    pipe.InitBuffer(inQueueX, kBufferNum, tile_length * sizeof(T));
    pipe.InitBuffer(outQueueY, kBufferNum, tile_length * sizeof(T));
  }
  void Process() {
    const uint64_t loop_count = block_length_ / tile_length_;
    for (uint64_t i = 0; i < loop_count; i++) {
      LocalTensor<T> xLocal = inQueueX.template AllocTensor<T>();
      DataCopy(xLocal, xGm[i * tile_length_], tile_length_);
      inQueueX.EnQue(xLocal);
      xLocal = inQueueX.template DeQue<T>();
      LocalTensor<T> yLocal = outQueueY.template AllocTensor<T>();
      Exp(yLocal, xLocal, tile_length_);
      outQueueY.EnQue(yLocal);
      inQueueX.FreeTensor(xLocal);
      yLocal = outQueueY.template DeQue<T>();
      DataCopy(yGm[i * tile_length_], yLocal, tile_length_);
      outQueueY.FreeTensor(yLocal);
    }
  }

 private:
  TPipe pipe;
  TQue<QuePosition::VECIN, kBufferNum> inQueueX;
  TQue<QuePosition::VECOUT, kBufferNum> outQueueY;
  GlobalTensor<T> xGm, yGm;
  uint64_t block_length_ = 0;
  uint32_t tile_length_ = 0;
};

// Three GM arrays of StreamArrayBytes() each from GmAlloc, shared by every row (so only one set
// is resident); Prepare<T>() refills the inputs when the element type changes.
struct GmArrays {
  uint64_t bytes;
  uint8_t* x;
  uint8_t* y;
  uint8_t* z;
  const void* filled_as = nullptr;  // the Prepare<T> instantiation that last filled x and y

  explicit GmArrays(uint64_t b) : bytes(b) {
    x = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
    y = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
    z = static_cast<uint8_t*>(aicore::GmAlloc(bytes));
  }
  // Fills x with values in [0, 1) and y with ones as T; returns the element count.
  template <typename T>
  uint64_t Prepare() {
    static const int tag = 0;
    const uint64_t elements = bytes / sizeof(T);
    if (filled_as != &tag) {
      for (uint64_t i = 0; i < elements; ++i) {
        reinterpret_cast<T*>(x)[i] = T(0.001f * static_cast<float>(i % 1000));
        reinterpret_cast<T*>(y)[i] = T(1.0f);
      }
      filled_as = &tag;
    }
    return elements;
  }
};

GmArrays& Arrays() {
  static auto* arrays = new GmArrays(aicore::bench::StreamArrayBytes());
  return *arrays;
}

// Elements per block: the array split over kBlockDim blocks in whole tiles.
uint64_t BlockLength(uint64_t elements, uint32_t tile_length) {
  return elements / kBlockDim / tile_length * tile_length;
}

void CheckOk(benchmark::State& state, const aicore::Status& status) {
  if (!status.ok()) state.SkipWithError(status.message().c_str());
}

// Arg 0: tile bytes per queue buffer.
template <typename T>
void BM_AddCustom(benchmark::State& state) {
  aicore::sim::SetWorkerThreads(1);
  GmArrays& a = Arrays();
  const uint64_t elements = a.Prepare<T>();
  const uint32_t tile = static_cast<uint32_t>(state.range(0) / sizeof(T));
  const uint64_t block_length = BlockLength(elements, tile);
  for (auto _ : state) {
    CheckOk(state, aicore::RunKernel("add_custom", kBlockDim, aicore::LaunchOptions{}, [&] {
      KernelAdd<T> op;
      op.Init(a.x, a.y, a.z, block_length, tile);
      op.Process();
    }));
  }
  const double bytes = 3.0 * sizeof(T) * block_length * kBlockDim;
  state.counters["bytes_per_s"] =
      benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["array_bytes"] = static_cast<double>(a.bytes);
}

template <typename T>
void BM_Exp(benchmark::State& state) {
  aicore::sim::SetWorkerThreads(1);
  GmArrays& a = Arrays();
  const uint64_t elements = a.Prepare<T>();
  const uint32_t tile = static_cast<uint32_t>(state.range(0) / sizeof(T));
  const uint64_t block_length = BlockLength(elements, tile);
  for (auto _ : state) {
    CheckOk(state, aicore::RunKernel("exp", kBlockDim, aicore::LaunchOptions{}, [&] {
      KernelExp<T> op;
      op.Init(a.x, a.z, block_length, tile);
      op.Process();
    }));
  }
  const double bytes = 2.0 * sizeof(T) * block_length * kBlockDim;
  state.counters["bytes_per_s"] =
      benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["array_bytes"] = static_cast<double>(a.bytes);
}

// Tile bytes for the reported rows: AICORE_BENCH_TILE_KB when set (for sweeps), else the size
// that measured best on the reference machine (see README.md).
int64_t TileBytes(int64_t fallback_kb) {
  if (const char* env = std::getenv("AICORE_BENCH_TILE_KB")) {
    const int64_t kb = std::atoll(env);
    if (kb > 0) return kb << 10;
  }
  return fallback_kb << 10;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("vector/add_custom/half", BM_AddCustom<aicore::half>)
      ->Arg(TileBytes(8))->MeasureProcessCPUTime()->Iterations(1)->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::RegisterBenchmark("vector/add_custom/float", BM_AddCustom<float>)
      ->Arg(TileBytes(8))->MeasureProcessCPUTime()->Iterations(1)->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::RegisterBenchmark("vector/exp/float", BM_Exp<float>)
      ->Arg(TileBytes(8))->MeasureProcessCPUTime()->Iterations(1)->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::RegisterBenchmark("vector/exp/half", BM_Exp<aicore::half>)
      ->Arg(TileBytes(8))->MeasureProcessCPUTime()->Iterations(1)->Repetitions(5)
      ->ReportAggregatesOnly(true);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
