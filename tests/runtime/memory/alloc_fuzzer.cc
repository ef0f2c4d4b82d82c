// libFuzzer target: the input drives sequences of Malloc/Free/RecordStream/stream completion/
// EmptyCache on a small device under one of four configurations. After every operation the
// allocator's invariants must hold, live blocks must not overlap, and every block must keep the
// tag written into it; at the end everything freed leaves nothing reserved.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "aicore/runtime/memory/caching_allocator.h"

namespace {

using namespace aicore::memory;

// Streams whose work finishes when completed explicitly or when someone waits for it.
class FuzzStreams : public CompletionSource {
 public:
  uint64_t Submit(StreamId s) { return ++submitted_[s]; }
  void Complete(StreamId s) { retired_[s] = submitted_[s]; }
  uint64_t Record(StreamId s) override { return submitted_[s]; }
  bool Query(StreamId s, uint64_t marker) override { return retired_[s] >= marker; }
  void Wait(StreamId s, uint64_t marker) override {
    if (retired_[s] < marker) retired_[s] = marker;
  }
  void WaitAll() override { retired_ = submitted_; }

 private:
  std::map<StreamId, uint64_t> submitted_;
  std::map<StreamId, uint64_t> retired_;
};

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "alloc_fuzzer: %s\n", what);
    __builtin_trap();
  }
}

void CheckInvariants(const CachingAllocator& alloc) {
  const aicore::Status s = alloc.CheckInvariants();
  if (!s.ok()) {
    std::fprintf(stderr, "alloc_fuzzer: %s\n", s.ToString().c_str());
    __builtin_trap();
  }
}

struct Live {
  char* ptr;
  size_t size;
  uint64_t tag;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const char* const kConfigs[] = {
      "", "max_split_size_mb:24,garbage_collection_threshold:0.5", "expandable_segments:True",
      "roundup_power2_divisions:[1:2,4:4,>:8]"};
  AllocatorConfig config;
  Check(ParseAllocatorConfig(kConfigs[data[0] % 4], &config).ok(), "config");
  const size_t capacity = static_cast<size_t>(32 + 32 * ((data[0] >> 2) % 4)) << 20;
  CachingAllocator alloc(0, capacity, config);
  FuzzStreams streams;
  alloc.SetCompletionSource(&streams);
  std::vector<Live> live;
  std::map<uintptr_t, uintptr_t> ranges;
  uint64_t next_tag = 1;

  auto release = [&](size_t index) {
    Live b = live[index];
    live[index] = live.back();
    live.pop_back();
    uint64_t head = 0, tail = 0;
    std::memcpy(&head, b.ptr, 8);
    std::memcpy(&tail, b.ptr + b.size - 8, 8);
    Check(head == b.tag && tail == b.tag, "block overwritten");
    ranges.erase(reinterpret_cast<uintptr_t>(b.ptr));
    alloc.Free(b.ptr);
  };

  for (size_t i = 1; i + 4 <= size; i += 4) {
    const uint8_t op = data[i] % 8;
    const uint8_t a = data[i + 1], b = data[i + 2], c = data[i + 3];
    const StreamId stream = a >> 6;
    switch (op) {
      case 0:
      case 1:
      case 2: {
        size_t bytes = 0;
        switch (a % 4) {
          case 0:  // up to 4 KiB
            bytes = 16 + ((b << 8) | c) % 4096;
            break;
          case 1:  // up to 1 MiB
            bytes = 16 + (((b << 8) | c) << 4);
            break;
          case 2:  // 1 to 9 MiB
            bytes = (size_t{1} << 20) + (((b << 8) | c) << 7);
            break;
          default:  // up to 48 MiB
            bytes = (static_cast<size_t>(b % 48) << 20) + (size_t{c} << 12) + 16;
            break;
        }
        void* p = nullptr;
        try {
          p = alloc.Malloc(bytes, stream);
        } catch (const OutOfMemoryError&) {
          break;
        }
        const auto start = reinterpret_cast<uintptr_t>(p);
        auto next = ranges.lower_bound(start);
        Check(next == ranges.end() || next->first >= start + bytes, "overlap with next");
        Check(next == ranges.begin() || std::prev(next)->second <= start, "overlap with prev");
        Check(alloc.BlockSize(p) >= bytes && start % 512 == 0, "block too small or misaligned");
        ranges.emplace(start, start + bytes);
        const uint64_t tag = next_tag++;
        std::memcpy(p, &tag, 8);
        std::memcpy(static_cast<char*>(p) + bytes - 8, &tag, 8);
        live.push_back(Live{static_cast<char*>(p), bytes, tag});
        break;
      }
      case 3:
      case 4:
        if (!live.empty()) release(((b << 8) | c) % live.size());
        break;
      case 5:
        if (!live.empty()) {
          alloc.RecordStream(live[((b << 8) | c) % live.size()].ptr, stream);
          streams.Submit(stream);
        }
        break;
      case 6:
        streams.Complete(stream);
        break;
      default:
        alloc.EmptyCache();
        break;
    }
    CheckInvariants(alloc);
  }
  while (!live.empty()) release(live.size() - 1);
  alloc.EmptyCache();
  CheckInvariants(alloc);
  const DeviceStats stats = alloc.GetStats();
  Check(stats.reserved_bytes[kAggregate].current == 0, "memory left reserved");
  Check(stats.active_bytes[kAggregate].current == 0, "memory left active");
  return 0;
}
