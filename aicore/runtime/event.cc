// Events.
//
// - An event counts its records: RecordEvent takes the next generation g under the event's lock
//   and enqueues a task that marks g complete with a steady-clock timestamp.
// - Query/Synchronize look at the latest generation recorded when they are called; a
//   StreamWaitEvent captures that generation at enqueue time and its task blocks the waiting
//   stream's worker until it completes. A wait only ever refers to a record enqueued before it,
//   so waits cannot form a cycle.
// - The state is shared with the queued tasks, so destroying an event with work in flight is safe.
// - A record whose stream was destroyed between resolving and enqueueing completes at once (the
//   call fails with NotFound), so no wait can hang on a record that will never run.
#include "aicore/runtime/event.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "aicore/runtime/stream.h"

namespace aicore::rt {

class Event {
 public:
  using Clock = std::chrono::steady_clock;

  uint64_t Record() {
    std::lock_guard<std::mutex> lk(mu_);
    return ++recorded_;
  }

  void Complete(uint64_t gen) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (gen > completed_) {
        completed_ = gen;
        stamp_ = Clock::now();
      }
    }
    cv_.notify_all();
  }

  void WaitFor(uint64_t gen) {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return completed_ >= gen; });
  }

  uint64_t recorded() {
    std::lock_guard<std::mutex> lk(mu_);
    return recorded_;
  }

  // Returns true with the completion time when the latest record has completed.
  bool Stamp(uint64_t* recorded, Clock::time_point* stamp) {
    std::lock_guard<std::mutex> lk(mu_);
    *recorded = recorded_;
    *stamp = stamp_;
    return recorded_ != 0 && completed_ >= recorded_;
  }

  bool Complete() {
    std::lock_guard<std::mutex> lk(mu_);
    return completed_ >= recorded_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t recorded_ = 0;   // generations handed out by Record
  uint64_t completed_ = 0;  // highest generation completed
  Clock::time_point stamp_;
};

namespace {

struct EventRegistry {
  std::mutex mu;
  std::unordered_map<const void*, std::shared_ptr<Event>> live;
};

EventRegistry& Reg() {
  static auto* r = new EventRegistry();
  return *r;
}

Status Resolve(const Event* event, const char* api, std::shared_ptr<Event>* out) {
  EventRegistry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  auto it = r.live.find(event);
  if (it == r.live.end()) {
    return Status(StatusCode::kNotFound,
                  StrCat(api, ": event ", static_cast<const void*>(event),
                         " is not a live event (destroyed already, or never created)"));
  }
  *out = it->second;
  return Status::Ok();
}

}  // namespace

Status CreateEvent(Event** event) {
  if (event == nullptr) {
    return Status(StatusCode::kInvalidArgument, "CreateEvent: the output pointer is nullptr");
  }
  auto e = std::make_shared<Event>();
  EventRegistry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  r.live.emplace(e.get(), e);
  *event = e.get();
  return Status::Ok();
}

Status DestroyEvent(Event* event) {
  EventRegistry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  if (r.live.erase(event) == 0) {
    return Status(StatusCode::kNotFound,
                  StrCat("DestroyEvent: event ", static_cast<const void*>(event),
                         " is not a live event (destroyed already, or never created)"));
  }
  return Status::Ok();
}

Status RecordEvent(Event* event, const void* stream) {
  std::shared_ptr<Event> e;
  AICORE_RETURN_IF_ERROR(Resolve(event, "RecordEvent", &e));
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "RecordEvent", &s));
  const uint64_t gen = e->Record();
  const Status queued = Enqueue(*s, "event record", [e, gen] {
    e->Complete(gen);
    return Status::Ok();
  });
  // The stream was destroyed after it resolved: complete the record so no wait hangs on it.
  if (!queued.ok()) e->Complete(gen);
  return queued;
}

Status StreamWaitEvent(const void* stream, Event* event) {
  std::shared_ptr<Event> e;
  AICORE_RETURN_IF_ERROR(Resolve(event, "StreamWaitEvent", &e));
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "StreamWaitEvent", &s));
  const uint64_t gen = e->recorded();
  if (gen == 0) return Status::Ok();
  return Enqueue(*s, "event wait", [e, gen] {
    e->WaitFor(gen);
    return Status::Ok();
  });
}

Status EventSynchronize(Event* event) {
  std::shared_ptr<Event> e;
  AICORE_RETURN_IF_ERROR(Resolve(event, "EventSynchronize", &e));
  AICORE_RETURN_IF_ERROR(CheckNotInKernel("EventSynchronize"));
  e->WaitFor(e->recorded());
  return Status::Ok();
}

Status EventQuery(Event* event, bool* complete) {
  if (complete == nullptr) {
    return Status(StatusCode::kInvalidArgument, "EventQuery: the output pointer is nullptr");
  }
  std::shared_ptr<Event> e;
  AICORE_RETURN_IF_ERROR(Resolve(event, "EventQuery", &e));
  *complete = e->Complete();
  return Status::Ok();
}

Status EventElapsedTime(float* ms, Event* start, Event* end) {
  if (ms == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "EventElapsedTime: the output pointer is nullptr");
  }
  std::shared_ptr<Event> a;
  std::shared_ptr<Event> b;
  AICORE_RETURN_IF_ERROR(Resolve(start, "EventElapsedTime", &a));
  AICORE_RETURN_IF_ERROR(Resolve(end, "EventElapsedTime", &b));
  uint64_t rec_a = 0;
  uint64_t rec_b = 0;
  Event::Clock::time_point t_a;
  Event::Clock::time_point t_b;
  const bool done_a = a->Stamp(&rec_a, &t_a);
  const bool done_b = b->Stamp(&rec_b, &t_b);
  for (const auto& [name, rec, done] :
       {std::tuple{"start", rec_a, done_a}, std::tuple{"end", rec_b, done_b}}) {
    if (rec == 0) {
      return Status(StatusCode::kFailedPrecondition,
                    StrCat("EventElapsedTime: the ", name, " event was never recorded"));
    }
    if (!done) {
      return Status(StatusCode::kFailedPrecondition,
                    StrCat("EventElapsedTime: the ", name,
                           " event has not completed yet; synchronize the event or its stream "
                           "first"));
    }
  }
  *ms = std::chrono::duration<float, std::milli>(t_b - t_a).count();
  return Status::Ok();
}

}  // namespace aicore::rt
