// The caching allocator against the host's own allocators, and what caching buys on a CPU.
// - alloc/cached_pair/<bytes>: Malloc + Free of a cached block (the cache is warm), beside
//   alloc/glibc_pair (malloc + free) and alloc/mmap_pair (mmap + munmap), 512 B ... 256 MiB.
//   None of the pair rows touches the memory.
// - alloc/fill_first_touch, alloc/fill_reused, alloc/fill_prefaulted: memset bandwidth into a
//   128 MiB buffer that is freshly mapped (page faults on first touch), a cached block used
//   before, and a fresh segment pre-faulted by the allocator (prefault:True; the pre-fault cost
//   itself is alloc/prefault_128MiB).
// - alloc/fragmentation/{fixed,expandable}: a synthetic transformer training trace (weights,
//   gradients, optimizer state, saved activations, temporaries and workspaces, sequence length
//   varying per step) replayed without touching memory; counters give peak reserved / peak
//   allocated, and reserved / allocated after the last step and an EmptyCache (the memory
//   stranded in partly used segments).
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "aicore/runtime/memory/caching_allocator.h"

namespace {

using aicore::memory::AllocatorConfig;
using aicore::memory::CachingAllocator;
using aicore::memory::ParseAllocatorConfig;

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kFillBytes = 128 * kMiB;
constexpr size_t kCapacity = size_t{16} << 30;  // address space only: pair rows never touch

AllocatorConfig Config(const char* text) {
  AllocatorConfig config;
  if (!ParseAllocatorConfig(text, &config).ok()) std::abort();
  return config;
}

void PairSizes(benchmark::internal::Benchmark* b) {
  for (int64_t size = 512; size <= int64_t{256} << 20; size *= 8) b->Arg(size);
  b->Arg(int64_t{256} << 20);
}

void CachedPair(benchmark::State& state) {
  CachingAllocator alloc(0, kCapacity);
  const auto size = static_cast<size_t>(state.range(0));
  alloc.Free(alloc.Malloc(size));  // warm the cache
  for (auto _ : state) {
    void* p = alloc.Malloc(size);
    benchmark::DoNotOptimize(p);
    alloc.Free(p);
  }
}

void GlibcPair(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(size);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

void MmapPair(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    benchmark::DoNotOptimize(p);
    munmap(p, size);
  }
}

void FillFirstTouch(benchmark::State& state) {
  for (auto _ : state) {
    void* p = mmap(nullptr, kFillBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::memset(p, 1, kFillBytes);
    benchmark::ClobberMemory();
    state.PauseTiming();
    munmap(p, kFillBytes);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kFillBytes));
}

void FillReused(benchmark::State& state) {
  CachingAllocator alloc(0, kCapacity);
  void* p = alloc.Malloc(kFillBytes);
  std::memset(p, 0, kFillBytes);  // first use happened before
  for (auto _ : state) {
    std::memset(p, 1, kFillBytes);
    benchmark::ClobberMemory();
  }
  alloc.Free(p);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kFillBytes));
}

void FillPrefaulted(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto alloc = std::make_unique<CachingAllocator>(0, kCapacity, Config("prefault:True"));
    void* p = alloc->Malloc(kFillBytes);
    state.ResumeTiming();
    std::memset(p, 1, kFillBytes);
    benchmark::ClobberMemory();
    state.PauseTiming();
    alloc->Free(p);
    alloc.reset();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kFillBytes));
}

void Prefault(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto alloc = std::make_unique<CachingAllocator>(0, kCapacity, Config("prefault:True"));
    state.ResumeTiming();
    void* p = alloc->Malloc(kFillBytes);
    benchmark::DoNotOptimize(p);
    state.PauseTiming();
    alloc->Free(p);
    alloc.reset();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kFillBytes));
}

// Replays a transformer training loop: per step a forward pass over kLayers layers saving
// activations, then a backward pass in reverse freeing them and producing gradients. The sequence
// length changes every step, so activation sizes change and the cache fragments.
class TransformerTrace {
 public:
  explicit TransformerTrace(CachingAllocator* alloc) : alloc_(alloc) {}

  void Run(int steps, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const size_t seq_choices[] = {256, 384, 448, 512, 320, 480};
    for (int layer = 0; layer < kLayers; ++layer) {
      for (size_t w : WeightSizes()) weights_.push_back(Malloc(w));
    }
    for (int step = 0; step < steps; ++step) {
      const size_t seq = seq_choices[rng() % std::size(seq_choices)];
      Step(seq, rng);
      if (step == 0) {
        // Adam state: two buffers per weight, created at the first optimizer step.
        for (int layer = 0; layer < kLayers; ++layer) {
          for (size_t w : WeightSizes()) {
            weights_.push_back(Malloc(w));
            weights_.push_back(Malloc(w));
          }
        }
      }
    }
    // What stays reserved once the cache is emptied is memory stranded in split segments.
    alloc_->EmptyCache();
    const auto stats = alloc_->GetStats();
    end_reserved_ = stats.reserved_bytes[0].current;
    end_allocated_ = stats.allocated_bytes[0].current;
  }

  void Release() {
    for (void* p : weights_) alloc_->Free(p);
    for (void* p : grads_) alloc_->Free(p);
    weights_.clear();
    grads_.clear();
  }

  int64_t end_reserved() const { return end_reserved_; }
  int64_t end_allocated() const { return end_allocated_; }

 private:
  static constexpr int kLayers = 12;
  static constexpr size_t kHidden = 1024;
  static constexpr size_t kBatch = 4;
  static constexpr size_t kHeads = 16;
  static constexpr size_t kElem = 2;  // bf16

  static std::vector<size_t> WeightSizes() {
    const size_t h2 = kHidden * kHidden * kElem;
    return {3 * h2,
            h2,
            4 * h2,
            4 * h2,
            kHidden * kElem,
            kHidden * kElem,
            3 * kHidden * kElem,
            4 * kHidden * kElem};
  }

  void* Malloc(size_t size) { return alloc_->Malloc(size); }

  void Workspace(std::mt19937_64& rng) {
    // cuBLAS-like workspace and a few small scalars, freed right away.
    void* ws = Malloc((4 + rng() % 8) * kMiB);
    void* s1 = Malloc(512 + rng() % 4096);
    void* s2 = Malloc(512 + rng() % 65536);
    alloc_->Free(s1);
    alloc_->Free(ws);
    alloc_->Free(s2);
  }

  void Step(size_t seq, std::mt19937_64& rng) {
    const size_t tokens = kBatch * seq;
    const size_t act = tokens * kHidden * kElem;
    const size_t scores = kBatch * kHeads * seq * seq * kElem;
    std::vector<std::vector<void*>> saved(kLayers);
    void* x = Malloc(act);
    for (int layer = 0; layer < kLayers; ++layer) {
      auto& keep = saved[layer];
      keep.push_back(Malloc(act));      // layernorm output
      keep.push_back(Malloc(3 * act));  // qkv
      void* s = Malloc(scores);         // attention scores
      Workspace(rng);
      keep.push_back(Malloc(scores));  // softmax output (saved)
      alloc_->Free(s);
      keep.push_back(Malloc(act));      // attention output
      keep.push_back(Malloc(act));      // layernorm 2 output
      keep.push_back(Malloc(4 * act));  // mlp hidden
      Workspace(rng);
      keep.push_back(Malloc(4 * act));  // gelu output
      void* y = Malloc(act);            // residual output
      keep.push_back(x);
      x = y;
    }
    void* loss_grad = Malloc(act);
    alloc_->Free(x);
    void* dx = loss_grad;
    const bool first_backward = grads_.empty();
    for (int layer = kLayers - 1; layer >= 0; --layer) {
      void* d_hidden = Malloc(4 * act);
      Workspace(rng);
      void* d_scores = Malloc(scores);
      Workspace(rng);
      void* d_qkv = Malloc(3 * act);
      alloc_->Free(d_scores);
      alloc_->Free(d_hidden);
      if (first_backward) {
        for (size_t w : WeightSizes()) grads_.push_back(Malloc(w));
      }
      void* d_in = Malloc(act);
      alloc_->Free(d_qkv);
      alloc_->Free(dx);
      dx = d_in;
      for (void* p : saved[layer]) alloc_->Free(p);
    }
    alloc_->Free(dx);
  }

  CachingAllocator* alloc_;
  std::vector<void*> weights_;
  std::vector<void*> grads_;
  int64_t end_reserved_ = 0;
  int64_t end_allocated_ = 0;
};

void Fragmentation(benchmark::State& state, const char* config) {
  double peak_ratio = 0;
  double end_ratio = 0;
  double peak_reserved = 0;
  double peak_allocated = 0;
  for (auto _ : state) {
    CachingAllocator alloc(0, kCapacity, Config(config));
    TransformerTrace trace(&alloc);
    trace.Run(/*steps=*/12, /*seed=*/42);
    const auto stats = alloc.GetStats();
    peak_reserved = static_cast<double>(stats.reserved_bytes[0].peak);
    peak_allocated = static_cast<double>(stats.allocated_bytes[0].peak);
    peak_ratio = peak_reserved / peak_allocated;
    end_ratio = static_cast<double>(trace.end_reserved()) / trace.end_allocated();
    trace.Release();
  }
  state.counters["peak_reserved_MiB"] = peak_reserved / kMiB;
  state.counters["peak_allocated_MiB"] = peak_allocated / kMiB;
  state.counters["peak_reserved_over_allocated"] = peak_ratio;
  state.counters["emptied_reserved_over_allocated"] = end_ratio;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("alloc/cached_pair", CachedPair)->Apply(PairSizes);
  benchmark::RegisterBenchmark("alloc/glibc_pair", GlibcPair)->Apply(PairSizes);
  benchmark::RegisterBenchmark("alloc/mmap_pair", MmapPair)->Apply(PairSizes);
  benchmark::RegisterBenchmark("alloc/fill_first_touch", FillFirstTouch)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("alloc/fill_reused", FillReused)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("alloc/fill_prefaulted", FillPrefaulted)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("alloc/prefault_128MiB", Prefault)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("alloc/fragmentation/fixed", Fragmentation, "")
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  benchmark::RegisterBenchmark("alloc/fragmentation/expandable", Fragmentation,
                               "expandable_segments:True")
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
