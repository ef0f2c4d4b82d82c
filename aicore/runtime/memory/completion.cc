// StreamSequenceTracker: per-stream submitted/retired counters behind one mutex.
#include "aicore/runtime/memory/completion.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace aicore::memory {

uint64_t StreamSequenceTracker::Submit(StreamId stream) {
  std::lock_guard<std::mutex> lock(mu_);
  return ++streams_[stream].submitted;
}

void StreamSequenceTracker::Retire(StreamId stream, uint64_t sequence) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Counters& c = streams_[stream];
    c.retired = std::max(c.retired, sequence);
  }
  retired_cv_.notify_all();
}

uint64_t StreamSequenceTracker::Record(StreamId stream) {
  std::lock_guard<std::mutex> lock(mu_);
  return streams_[stream].submitted;
}

bool StreamSequenceTracker::Query(StreamId stream, uint64_t marker) {
  std::lock_guard<std::mutex> lock(mu_);
  return streams_[stream].retired >= marker;
}

void StreamSequenceTracker::Wait(StreamId stream, uint64_t marker) {
  std::unique_lock<std::mutex> lock(mu_);
  retired_cv_.wait(lock, [&] { return streams_[stream].retired >= marker; });
}

void StreamSequenceTracker::WaitAll() {
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<std::pair<StreamId, uint64_t>> pending;  // work submitted before this call
  for (const auto& [stream, c] : streams_) {
    if (c.retired < c.submitted) pending.emplace_back(stream, c.submitted);
  }
  for (const auto& [stream, marker] : pending) {
    retired_cv_.wait(lock, [&] { return streams_[stream].retired >= marker; });
  }
}

}  // namespace aicore::memory
