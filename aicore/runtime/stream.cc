// Streams.
//
// - A Stream owns a FIFO of tasks and one worker thread that pops and runs them in order. A task
//   is a function returning Status plus a description for error messages.
// - Lifetimes are shared: the registry holds a shared_ptr per live stream and every API call
//   resolves a handle to its own shared_ptr under the registry lock, so a stream another thread
//   destroys meanwhile stays valid until the call ends (it then sees a closed stream, never freed
//   memory). DestroyStream and device reset remove the stream from the registry, then Close it:
//   new work is refused (NotFound), queued work runs, the worker is joined.
// - Errors are kept per stream, in two slots: one consumed by the stream's own Synchronize (and
//   DestroyStream), one by device-wide synchronisation. A device sync on one thread therefore
//   never takes the error another thread's aclrtSynchronizeStream is about to report. The stream's
//   own consumer clears both slots (its owner has seen the error), the device consumer only its
//   own, so each error is reported at most once to each. The first failing task's Status is kept per slot (later
//   failures are only counted). Tasks after a failure still run, as later work on a device stream
//   would. A failing task is also printed to stderr once, when it fails, so programs that ignore
//   the synchronize result (as CANN samples do) still show the kernel's report.
// - Host synchronisation from kernel code (a kernel calling aclrtSynchronizeStream) is refused
//   with FailedPrecondition: launches run one at a time, so any kernel queued behind the calling
//   one would wait for it forever.
// - Kernel launches run through aicore::RunKernel on the worker thread; the scheduler serialises
//   launches from different streams.
// - Streams are the caching allocator's completion source: Enqueue takes a sequence number from
//   the device's tracker (DeviceCompletionTracker, under the stream lock so numbers follow queue
//   order) and the worker retires it after the task ran, before Synchronize can see the stream
//   idle. Stream ids are unique and non-zero (0 is the allocator's "no stream"). The allocator
//   waits on the tracker while holding its own lock, so a task must never call the allocator
//   (DeviceMalloc/DeviceFree/aclrtMalloc/aclrtFree or the device range lookups) while it runs.
#include "aicore/runtime/stream.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "aicore/runtime/device.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/memory/completion.h"
#include "aicore/sim/core.h"
#include "aicore/sim/gm_registry.h"

namespace aicore::rt {

// Joins the "<what> on stream N (device D" prefix of a work error and its cause.
constexpr const char* kWorkErrorMarker = ") failed: ";

class Stream {
 public:
  Stream(int device, uint64_t id, bool is_default)
      : device_(device),
        id_(id),
        is_default_(is_default),
        tracker_(DeviceCompletionTracker(device)),
        worker_([this] { Run(); }),
        worker_id_(worker_.get_id()) {}

  ~Stream() {
    Stop();
    if (worker_.joinable()) {
      if (OnWorker()) {
        worker_.detach();  // cannot happen through the API (tasks hold no stream references)
      } else {
        worker_.join();
      }
    }
  }

  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Status Enqueue(std::string what, std::function<Status()> work) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (closed_) return ClosedError("enqueue");
      // Numbered under the lock so sequence order is queue order (Retire(n) retires all <= n).
      const uint64_t seq = tracker_.Submit(id_);
      queue_.push_back(Task{std::move(what), std::move(work), seq});
    }
    work_cv_.notify_one();
    return Status::Ok();
  }

  // Waits until the queue drained and nothing runs; returns and clears `consumer`'s error.
  Status Synchronize(StreamErrorConsumer consumer) {
    if (OnWorker()) return SelfWaitError("synchronize");
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [this] { return queue_.empty() && !running_; });
    return TakeError(consumer);
  }

  // Refuses further work, lets queued work finish, stops and joins the worker. Returns the error
  // the stream's own Synchronize would have returned. Idempotent; concurrent callers all wait.
  Status Close() {
    if (OnWorker()) return SelfWaitError("DestroyStream");
    {
      std::unique_lock<std::mutex> lk(mu_);
      closed_ = true;
      done_cv_.wait(lk, [this] { return queue_.empty() && !running_; });
    }
    Stop();
    {
      std::lock_guard<std::mutex> lk(join_mu_);
      if (worker_.joinable()) worker_.join();
    }
    std::lock_guard<std::mutex> lk(mu_);
    return TakeError(StreamErrorConsumer::kStream);
  }

  bool Idle() {
    std::lock_guard<std::mutex> lk(mu_);
    return queue_.empty() && !running_;
  }

  // True on the stream's own worker thread (inside a host callback of this stream).
  bool OnWorker() const { return std::this_thread::get_id() == worker_id_; }

  Status SelfWaitError(const char* what) const {
    return Status(StatusCode::kFailedPrecondition,
                  StrCat(what, " of stream ", id_,
                         " from one of its own host callbacks would wait for itself forever"));
  }

  int device() const { return device_; }
  uint64_t id() const { return id_; }
  bool is_default() const { return is_default_; }

 private:
  struct Task {
    std::string what;
    std::function<Status()> work;
    uint64_t seq = 0;  // the tracker's sequence number, retired once the task has run
  };

  // The first error since the slot's consumer last took it, and how many failed after it.
  struct ErrorSlot {
    Status first;
    size_t later = 0;
  };

  Status ClosedError(const char* what) const {
    return Status(StatusCode::kNotFound,
                  StrCat(what, " on stream ", id_, ": the stream was destroyed"));
  }

  // Returns and clears `consumer`'s slot. The stream's own consumer clears the device slot too:
  // an error its owner has seen is not reported again by a later device synchronize. Requires
  // mu_.
  Status TakeError(StreamErrorConsumer consumer) {
    ErrorSlot& slot = slots_[static_cast<int>(consumer)];
    Status s = std::move(slot.first);
    if (!s.ok() && slot.later != 0) {
      s = Status(s.code(), StrCat(s.message(), " (and ", slot.later, " later error",
                                  slot.later == 1 ? "" : "s", " on the same stream)"),
                 s.where());
    }
    slot = ErrorSlot();
    if (consumer == StreamErrorConsumer::kStream) {
      slots_[static_cast<int>(StreamErrorConsumer::kDevice)] = ErrorSlot();
    }
    return s;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
  }

  void Run() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      work_cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      Task task = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
      lk.unlock();
      Status s = RunTask(task);
      tracker_.Retire(id_, task.seq);  // before running_ drops, so Synchronize implies retired
      if (!s.ok()) {
        s = Status(s.code(),
                   StrCat(task.what, " on stream ", id_, " (device ", device_, kWorkErrorMarker,
                          s.message()),
                   s.where());
        // Printed once, when it happens: the result of a later synchronize is often ignored.
        std::fprintf(stderr, "[aicore error] %s\n", s.ToString().c_str());
        std::fflush(stderr);
      }
      lk.lock();
      running_ = false;
      if (!s.ok()) {
        for (ErrorSlot& slot : slots_) {
          if (slot.first.ok()) {
            slot.first = s;
          } else {
            ++slot.later;
          }
        }
      }
      if (queue_.empty()) done_cv_.notify_all();
    }
  }

  static Status RunTask(Task& task) {
    try {
      return task.work();
    } catch (const Error& e) {
      return e.status();
    } catch (const std::exception& e) {
      return Status(StatusCode::kInternal, StrCat("exception: ", e.what()));
    } catch (...) {
      return Status(StatusCode::kInternal, "unknown exception");
    }
  }

  const int device_;
  const uint64_t id_;
  const bool is_default_;
  memory::StreamSequenceTracker& tracker_;  // the device's completion tracker (never destroyed)
  std::mutex mu_;
  std::condition_variable work_cv_;  // work arrived or stop requested
  std::condition_variable done_cv_;  // the queue drained
  std::deque<Task> queue_;
  bool running_ = false;
  bool stop_ = false;
  bool closed_ = false;  // Close was called: Enqueue refuses work
  ErrorSlot slots_[2];   // indexed by StreamErrorConsumer
  std::mutex join_mu_;   // serialises joining the worker between concurrent Close calls
  std::thread worker_;   // after the members it uses exist
  const std::thread::id worker_id_;  // read without a lock: worker_ is joined concurrently
};

namespace {

struct StreamRegistry {
  std::mutex mu;
  std::unordered_map<const void*, std::shared_ptr<Stream>> live;
  std::vector<std::shared_ptr<Stream>> defaults;  // per device; empty until first use
  std::atomic<uint64_t> next_id{1};  // ids start at 1: 0 is the allocator's "no stream"
};

StreamRegistry& Reg() {
  static auto* r = [] {
    auto* reg = new StreamRegistry();
    reg->defaults.resize(static_cast<size_t>(GetDeviceCount()));
    return reg;
  }();
  return *r;
}

Status NotLive(const char* api, const void* handle) {
  return Status(StatusCode::kNotFound,
                StrCat(api, ": stream ", handle,
                       " is not a live stream (destroyed already, or never created)"));
}

// Takes every stream of `device` (its default stream included) out of the registry.
std::vector<std::shared_ptr<Stream>> TakeDeviceStreams(int device) {
  StreamRegistry& r = Reg();
  std::vector<std::shared_ptr<Stream>> taken;
  std::lock_guard<std::mutex> lk(r.mu);
  for (auto it = r.live.begin(); it != r.live.end();) {
    if (it->second->device() == device) {
      taken.push_back(std::move(it->second));
      it = r.live.erase(it);
    } else {
      ++it;
    }
  }
  r.defaults[static_cast<size_t>(device)].reset();
  return taken;
}

// Returns the live streams of `device`, each held for the caller.
std::vector<std::shared_ptr<Stream>> DeviceStreams(int device) {
  StreamRegistry& r = Reg();
  std::vector<std::shared_ptr<Stream>> streams;
  std::lock_guard<std::mutex> lk(r.mu);
  for (auto& [handle, s] : r.live) {
    if (s->device() == device) streams.push_back(s);
  }
  return streams;
}

}  // namespace

bool IsStreamWorkError(const Status& status) {
  const std::string& m = status.message();
  const size_t on = m.find(" on stream ");
  return !status.ok() && on != std::string::npos && m.find(" (device ", on) != std::string::npos &&
         m.find(kWorkErrorMarker, on) != std::string::npos;
}

Status CheckNotInKernel(const char* api) {
  const sim::Core* core = sim::CurrentCoreOrNull();
  if (core == nullptr) return Status::Ok();
  return Status(StatusCode::kFailedPrecondition,
                StrCat(api, " called from kernel code (kernel ", core->kernel_name(), ", ",
                       core->Name(),
                       "): host synchronisation cannot run inside a kernel; launches run one at "
                       "a time, so work queued behind this kernel would wait for it forever"));
}

Status CreateStream(Stream** stream) {
  if (stream == nullptr) {
    return Status(StatusCode::kInvalidArgument, "CreateStream: the output pointer is nullptr");
  }
  StreamRegistry& r = Reg();
  auto s = std::make_shared<Stream>(CurrentDevice(), r.next_id++, false);
  Stream* raw = s.get();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    r.live.emplace(raw, std::move(s));
  }
  *stream = raw;
  return Status::Ok();
}

Status DestroyStream(const void* stream) {
  if (stream == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "DestroyStream: the default stream (nullptr) cannot be destroyed");
  }
  AICORE_RETURN_IF_ERROR(CheckNotInKernel("DestroyStream"));
  StreamRegistry& r = Reg();
  std::shared_ptr<Stream> owned;
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.live.find(stream);
    if (it == r.live.end()) return NotLive("DestroyStream", stream);
    if (it->second->is_default()) {
      return Status(StatusCode::kInvalidArgument,
                    "DestroyStream: a device's default stream cannot be destroyed");
    }
    if (it->second->OnWorker()) return it->second->SelfWaitError("DestroyStream");
    owned = std::move(it->second);
    r.live.erase(it);
  }
  return owned->Close();
}

Status ResolveStream(const void* handle, const char* api, std::shared_ptr<Stream>* stream) {
  StreamRegistry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  if (handle == nullptr) {
    const int device = CurrentDevice();
    std::shared_ptr<Stream>& d = r.defaults[static_cast<size_t>(device)];
    if (d == nullptr) {
      d = std::make_shared<Stream>(device, r.next_id++, true);
      r.live.emplace(d.get(), d);
    }
    *stream = d;
    return Status::Ok();
  }
  auto it = r.live.find(handle);
  if (it == r.live.end()) return NotLive(api, handle);
  *stream = it->second;
  return Status::Ok();
}

int StreamDevice(const Stream& stream) { return stream.device(); }
uint64_t StreamId(const Stream& stream) { return stream.id(); }

int StreamDevice(const void* handle) {
  std::shared_ptr<Stream> s;
  return ResolveStream(handle, "StreamDevice", &s).ok() ? s->device() : -1;
}

uint64_t StreamId(const void* handle) {
  std::shared_ptr<Stream> s;
  return ResolveStream(handle, "StreamId", &s).ok() ? s->id() : 0;
}

Status Enqueue(const void* stream, std::string what, std::function<Status()> work) {
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "Enqueue", &s));
  return s->Enqueue(std::move(what), std::move(work));
}

Status Enqueue(Stream& stream, std::string what, std::function<Status()> work) {
  return stream.Enqueue(std::move(what), std::move(work));
}

Status StreamSynchronize(Stream& stream, StreamErrorConsumer consumer) {
  AICORE_RETURN_IF_ERROR(CheckNotInKernel("StreamSynchronize"));
  return stream.Synchronize(consumer);
}

Status StreamSynchronize(const void* stream, const char* api) {
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, api, &s));
  AICORE_RETURN_IF_ERROR(CheckNotInKernel(api));
  return s->Synchronize(StreamErrorConsumer::kStream);
}

Status StreamQuery(const void* stream, bool* idle) {
  if (idle == nullptr) {
    return Status(StatusCode::kInvalidArgument, "StreamQuery: the output pointer is nullptr");
  }
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "StreamQuery", &s));
  *idle = s->Idle();
  return Status::Ok();
}

Status LaunchKernelAsync(const void* stream, const std::string& name, uint32_t block_dim,
                         const LaunchOptions& options, std::function<void()> body) {
  Status status = detail::CheckLaunch(name, block_dim, body);
  std::shared_ptr<Stream> s;
  if (status.ok()) status = ResolveStream(stream, "Launch", &s);
  if (status.ok()) {
    // The kernel sees GM as it was when enqueued: memory freed after this point (stream-ordered
    // frees, as PyTorch programs make them) stays live for it. See Note [GM epochs].
    auto pin = std::make_shared<const sim::GmEpochPin>();
    status = s->Enqueue(StrCat("kernel ", name),
                        [name, block_dim, options, pin, body = std::move(body)] {
                          const sim::GmEpochView view(pin->epoch());
                          return RunKernel(name, block_dim, options, body);
                        });
  }
  if (!status.ok()) detail::NoteLaunchFailure(status);  // RunKernel counts the ones that ran
  return status;
}

Status MemcpyAsync(void* dst, const void* src, size_t count, const void* stream) {
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "MemcpyAsync", &s));
  return s->Enqueue(StrCat("memcpy of ", count, " bytes"), [dst, src, count] {
    if (count != 0) std::memmove(dst, src, count);
    return Status::Ok();
  });
}

Status MemsetAsync(void* dst, int value, size_t count, const void* stream) {
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "MemsetAsync", &s));
  return s->Enqueue(StrCat("memset of ", count, " bytes"), [dst, value, count] {
    if (count != 0) std::memset(dst, value, count);
    return Status::Ok();
  });
}

Status LaunchHostFunc(const void* stream, std::function<void()> fn) {
  if (!fn) return Status(StatusCode::kInvalidArgument, "LaunchHostFunc: empty function");
  std::shared_ptr<Stream> s;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "LaunchHostFunc", &s));
  return s->Enqueue("host callback", [fn = std::move(fn)] {
    fn();
    return Status::Ok();
  });
}

Status SynchronizeDeviceStreams(int device) {
  AICORE_RETURN_IF_ERROR(CheckDevice(device, "DeviceSynchronize"));
  AICORE_RETURN_IF_ERROR(CheckNotInKernel("DeviceSynchronize"));
  Status first;
  // Each stream is held while it is synchronised; one destroyed meanwhile is already drained.
  for (const std::shared_ptr<Stream>& s : DeviceStreams(device)) {
    Status st = s->Synchronize(StreamErrorConsumer::kDevice);
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

Status DestroyDeviceStreams(int device) {
  AICORE_RETURN_IF_ERROR(CheckDevice(device, "ResetDevice"));
  AICORE_RETURN_IF_ERROR(CheckNotInKernel("ResetDevice"));
  for (const std::shared_ptr<Stream>& s : DeviceStreams(device)) {
    if (s->OnWorker()) return s->SelfWaitError("ResetDevice");
  }
  Status first;
  for (const std::shared_ptr<Stream>& s : TakeDeviceStreams(device)) {
    Status st = s->Close();
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

}  // namespace aicore::rt
