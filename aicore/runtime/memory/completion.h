// The allocator's view of streams: a stream is an id, and work on it is fenced by markers that a
// CompletionSource records and polls. The real streams implement this interface; the allocator
// never depends on the stream class. See Note [Deferred frees] in caching_allocator.cc.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace aicore::memory {

// Identifies a stream of a device. 0 is the device's default stream.
using StreamId = uint64_t;

// Records and polls completion markers on streams. The allocator calls these methods while it
// holds its own lock, so an implementation must not call back into the allocator.
class CompletionSource {
 public:
  virtual ~CompletionSource() = default;
  // Returns a marker that completes once all work enqueued on `stream` so far has finished.
  virtual uint64_t Record(StreamId stream) = 0;
  // Returns true once the work before `marker` on `stream` has finished. Never blocks.
  virtual bool Query(StreamId stream, uint64_t marker) = 0;
  // Blocks until the work before `marker` on `stream` has finished.
  virtual void Wait(StreamId stream, uint64_t marker) = 0;
  // Blocks until the work enqueued so far on every stream has finished: the device-wide
  // synchronisation that returning memory to the device implies (as cudaFree does).
  virtual void WaitAll() = 0;
};

// A CompletionSource for in-order streams counted by sequence numbers: the stream calls Submit
// when it enqueues a task and Retire when the task has finished. A marker is the count of tasks
// submitted when it was recorded. Thread-safe.
class StreamSequenceTracker : public CompletionSource {
 public:
  // Counts one more task enqueued on `stream` and returns its sequence number (1, 2, ...).
  uint64_t Submit(StreamId stream);
  // Marks every task of `stream` with sequence number <= `sequence` finished.
  void Retire(StreamId stream, uint64_t sequence);

  uint64_t Record(StreamId stream) override;
  bool Query(StreamId stream, uint64_t marker) override;
  void Wait(StreamId stream, uint64_t marker) override;
  void WaitAll() override;

 private:
  struct Counters {
    uint64_t submitted = 0;
    uint64_t retired = 0;
  };
  std::mutex mu_;
  std::condition_variable retired_cv_;
  std::unordered_map<StreamId, Counters> streams_;
};

}  // namespace aicore::memory
