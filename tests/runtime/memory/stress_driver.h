// A randomized multi-threaded driver for the caching allocator, checked against a simple model:
// the set of live [ptr, ptr + size) ranges (no two may overlap), a tag written into every block
// (it must survive until the block is freed), the allocator's own invariant check at intervals,
// and, at the end, stats that add up (every allocation freed, nothing reserved, counts equal).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "aicore/runtime/memory/caching_allocator.h"

namespace aicore::memory::testing {

struct StressOptions {
  int threads = 4;
  int ops_per_thread = 10000;
  std::string config;
  size_t capacity = size_t{256} << 20;
  uint64_t seed = 1;
  int check_every = 2000;  // ops between CheckInvariants calls, per thread
};

// Returns options for `threads` threads of `ops` operations each under `config`.
inline StressOptions Options(int threads, int ops, std::string config, uint64_t seed,
                             int check_every = 2000) {
  StressOptions opt;
  opt.threads = threads;
  opt.ops_per_thread = ops;
  opt.config = std::move(config);
  opt.seed = seed;
  opt.check_every = check_every;
  return opt;
}

// Returns a request size: mostly small-pool sizes, some mid-size, a few large.
inline size_t DrawSize(std::mt19937_64& rng) {
  const int kind = static_cast<int>(rng() % 100);
  if (kind < 55) return 1 + rng() % (64 << 10);
  if (kind < 70) return 1 + rng() % (1 << 20);
  if (kind < 97) return (1 << 20) + rng() % (8 << 20);
  return (10 << 20) + rng() % (30 << 20);
}

inline void RunStress(const StressOptions& opt) {
  AllocatorConfig config;
  Status parsed = ParseAllocatorConfig(opt.config, &config);
  ASSERT_TRUE(parsed.ok()) << parsed.ToString();
  CachingAllocator alloc(0, opt.capacity, config);
  StreamSequenceTracker streams;
  alloc.SetCompletionSource(&streams);
  constexpr int kStreams = 3;

  // Streams complete their work in the background, like stream worker threads would.
  std::atomic<bool> stop{false};
  std::thread stream_worker([&] {
    while (!stop.load()) {
      for (StreamId s = 0; s < kStreams; ++s) streams.Retire(s, streams.Record(s));
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });

  std::mutex model_mu;
  std::map<uintptr_t, uintptr_t> live;  // start -> end of every live block
  std::atomic<int64_t> mallocs{0};
  std::atomic<int64_t> ooms{0};
  std::atomic<int64_t> requested_live{0};
  std::atomic<bool> failed{false};

  auto check_insert = [&](void* p, size_t size) {
    const auto start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t end = start + size;
    std::lock_guard<std::mutex> lock(model_mu);
    auto next = live.lower_bound(start);
    if (next != live.end() && next->first < end) return false;
    if (next != live.begin() && std::prev(next)->second > start) return false;
    live.emplace(start, end);
    return true;
  };

  auto worker = [&](int id) {
    std::mt19937_64 rng(opt.seed * 7919 + id);
    struct Live {
      char* ptr;
      size_t size;
      uint64_t tag;
    };
    std::vector<Live> mine;
    auto free_one = [&](size_t index) {
      Live b = mine[index];
      mine[index] = mine.back();
      mine.pop_back();
      uint64_t head = 0, tail = 0;
      std::memcpy(&head, b.ptr, 8);
      std::memcpy(&tail, b.ptr + b.size - 8, 8);
      if (head != b.tag || tail != b.tag) {
        ADD_FAILURE() << "block " << static_cast<void*>(b.ptr) << " was overwritten";
        failed = true;
      }
      {
        std::lock_guard<std::mutex> lock(model_mu);
        live.erase(reinterpret_cast<uintptr_t>(b.ptr));
      }
      requested_live -= static_cast<int64_t>(b.size);
      alloc.Free(b.ptr);
    };
    for (int op = 0; op < opt.ops_per_thread && !failed; ++op) {
      const int choice = static_cast<int>(rng() % 1000);
      if (choice < 470 && mine.size() < 48) {
        const size_t size = std::max<size_t>(DrawSize(rng), 16);
        const StreamId stream = rng() % kStreams;
        void* p = nullptr;
        try {
          p = alloc.Malloc(size, stream);
        } catch (const OutOfMemoryError&) {
          ++ooms;
          continue;
        }
        ++mallocs;
        if (reinterpret_cast<uintptr_t>(p) % 512 != 0 || !check_insert(p, size)) {
          ADD_FAILURE() << "block " << p << " of " << size << " overlaps a live block";
          failed = true;
          break;
        }
        const uint64_t tag = (static_cast<uint64_t>(id) << 48) ^ static_cast<uint64_t>(op);
        std::memcpy(p, &tag, 8);
        std::memcpy(static_cast<char*>(p) + size - 8, &tag, 8);
        requested_live += static_cast<int64_t>(size);
        mine.push_back({static_cast<char*>(p), size, tag});
      } else if (choice < 900 && !mine.empty()) {
        free_one(rng() % mine.size());
      } else if (choice < 998 && !mine.empty()) {
        const StreamId s = rng() % kStreams;
        alloc.RecordStream(mine[rng() % mine.size()].ptr, s);
        streams.Submit(s);  // work on s now uses the block
      } else if (choice >= 998) {
        alloc.EmptyCache();
      }
      if (op % opt.check_every == 0) {
        Status s = alloc.CheckInvariants();
        if (!s.ok()) {
          ADD_FAILURE() << s.ToString();
          failed = true;
        }
      }
    }
    while (!mine.empty()) free_one(mine.size() - 1);
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < opt.threads; ++t) threads.emplace_back(worker, t);
  for (auto& t : threads) t.join();
  ASSERT_FALSE(failed.load());

  Status s = alloc.CheckInvariants();
  EXPECT_TRUE(s.ok()) << s.ToString();
  alloc.EmptyCache();  // waits for the remaining stream work
  stop = true;
  stream_worker.join();
  s = alloc.CheckInvariants();
  EXPECT_TRUE(s.ok()) << s.ToString();

  const DeviceStats stats = alloc.GetStats();
  EXPECT_EQ(requested_live.load(), 0);
  EXPECT_TRUE(live.empty());
  for (int type = 0; type < kNumStatTypes; ++type) {
    for (const StatArray* a :
         {&stats.allocation, &stats.active, &stats.allocated_bytes, &stats.active_bytes,
          &stats.requested_bytes, &stats.reserved_bytes, &stats.segment, &stats.inactive_split,
          &stats.inactive_split_bytes}) {
      EXPECT_EQ((*a)[type].current, 0) << StatTypeName(type);
      EXPECT_EQ((*a)[type].allocated, (*a)[type].freed) << StatTypeName(type);
    }
  }
  EXPECT_EQ(stats.allocation[kAggregate].allocated, mallocs.load());
  EXPECT_EQ(stats.num_ooms, ooms.load());
  // Expandable segments map pages piecewise and may release several mappings at once.
  if (!config.expandable_segments) {
    EXPECT_EQ(stats.num_device_alloc, stats.num_device_free);
  }
  EXPECT_LE(stats.reserved_bytes[kAggregate].peak, static_cast<int64_t>(opt.capacity));
  std::printf(
      "[stress %s] %lld mallocs, %lld OOMs, %lld retries, %lld device allocs, "
      "peak reserved %lld MiB\n",
      opt.config.empty() ? "default" : opt.config.c_str(), static_cast<long long>(mallocs.load()),
      static_cast<long long>(ooms.load()), static_cast<long long>(stats.num_alloc_retries),
      static_cast<long long>(stats.num_device_alloc),
      static_cast<long long>(stats.reserved_bytes[kAggregate].peak >> 20));
}

}  // namespace aicore::memory::testing
