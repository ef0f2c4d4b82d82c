// Streams.
//
// - A Stream owns a FIFO of tasks and one worker thread that pops and runs them in order. A task
//   is a function returning Status plus a description for error messages.
// - The first failing task's Status is kept (later failures are only counted) and handed to the
//   next Synchronize, which waits until the FIFO is empty and no task is running, then clears it.
//   Tasks after a failure still run, as later work on a device stream would.
// - Handles are raw pointers checked against a registry, so a destroyed or foreign handle is an
//   error, never a dereference. Each device has a lazily created default stream (the nullptr
//   handle), which lives until the device is reset.
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

namespace aicore::rt {

class Stream {
 public:
  Stream(int device, uint64_t id, bool is_default)
      : device_(device),
        id_(id),
        is_default_(is_default),
        tracker_(DeviceCompletionTracker(device)),
        worker_([this] { Run(); }) {}

  ~Stream() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    worker_.join();
  }

  void Enqueue(std::string what, std::function<Status()> work) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      // Numbered under the lock so sequence order is queue order (Retire(n) retires all <= n).
      const uint64_t seq = tracker_.Submit(id_);
      queue_.push_back(Task{std::move(what), std::move(work), seq});
    }
    work_cv_.notify_one();
  }

  Status Synchronize() {
    if (OnWorker()) return SelfWaitError("synchronize");
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [this] { return queue_.empty() && !running_; });
    Status s = std::move(error_);
    error_ = Status();
    if (!s.ok() && later_errors_ != 0) {
      s = Status(s.code(), StrCat(s.message(), " (and ", later_errors_, " later error",
                                  later_errors_ == 1 ? "" : "s", " on the same stream)"),
                 s.where());
    }
    later_errors_ = 0;
    return s;
  }

  bool Idle() {
    std::lock_guard<std::mutex> lk(mu_);
    return queue_.empty() && !running_;
  }

  // True on the stream's own worker thread (inside a host callback of this stream).
  bool OnWorker() const { return std::this_thread::get_id() == worker_.get_id(); }

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
      lk.lock();
      running_ = false;
      if (!s.ok()) {
        if (error_.ok()) {
          error_ = Status(s.code(),
                          StrCat(task.what, " on stream ", id_, " (device ", device_,
                                 ") failed: ", s.message()),
                          s.where());
        } else {
          ++later_errors_;
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
  Status error_;
  size_t later_errors_ = 0;
  std::thread worker_;  // last: starts after the members it uses exist
};

namespace {

struct StreamRegistry {
  std::mutex mu;
  std::unordered_map<const void*, std::unique_ptr<Stream>> live;
  std::vector<Stream*> defaults;  // per device; nullptr until first use
  std::atomic<uint64_t> next_id{1};  // ids start at 1: 0 is the allocator's "no stream"
};

StreamRegistry& Reg() {
  static auto* r = [] {
    auto* reg = new StreamRegistry();
    reg->defaults.assign(static_cast<size_t>(GetDeviceCount()), nullptr);
    return reg;
  }();
  return *r;
}

// Removes every stream of `device`, its default stream included, from the registry.
std::vector<std::unique_ptr<Stream>> TakeDeviceStreams(int device) {
  StreamRegistry& r = Reg();
  std::vector<std::unique_ptr<Stream>> taken;
  std::lock_guard<std::mutex> lk(r.mu);
  for (auto it = r.live.begin(); it != r.live.end();) {
    if (it->second->device() == device) {
      taken.push_back(std::move(it->second));
      it = r.live.erase(it);
    } else {
      ++it;
    }
  }
  r.defaults[static_cast<size_t>(device)] = nullptr;
  return taken;
}

}  // namespace

Status CreateStream(Stream** stream) {
  if (stream == nullptr) {
    return Status(StatusCode::kInvalidArgument, "CreateStream: the output pointer is nullptr");
  }
  StreamRegistry& r = Reg();
  auto s = std::make_unique<Stream>(CurrentDevice(), r.next_id++, false);
  Stream* raw = s.get();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    r.live.emplace(raw, std::move(s));
  }
  *stream = raw;
  return Status::Ok();
}

Status DestroyStream(Stream* stream) {
  if (stream == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "DestroyStream: the default stream (nullptr) cannot be destroyed");
  }
  StreamRegistry& r = Reg();
  std::unique_ptr<Stream> owned;
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.live.find(stream);
    if (it == r.live.end()) {
      return Status(StatusCode::kNotFound,
                    StrCat("DestroyStream: ", static_cast<const void*>(stream),
                           " is not a live stream (destroyed already, or never created)"));
    }
    if (it->second->is_default()) {
      return Status(StatusCode::kInvalidArgument,
                    "DestroyStream: a device's default stream cannot be destroyed");
    }
    if (it->second->OnWorker()) return it->second->SelfWaitError("DestroyStream");
    owned = std::move(it->second);
    r.live.erase(it);
  }
  return owned->Synchronize();
}

Status ResolveStream(const void* handle, const char* api, Stream** stream) {
  StreamRegistry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  if (handle == nullptr) {
    const int device = CurrentDevice();
    Stream*& d = r.defaults[static_cast<size_t>(device)];
    if (d == nullptr) {
      auto s = std::make_unique<Stream>(device, r.next_id++, true);
      d = s.get();
      r.live.emplace(d, std::move(s));
    }
    *stream = d;
    return Status::Ok();
  }
  auto it = r.live.find(handle);
  if (it == r.live.end()) {
    return Status(StatusCode::kNotFound,
                  StrCat(api, ": stream ", handle,
                         " is not a live stream (destroyed already, or never created)"));
  }
  *stream = it->second.get();
  return Status::Ok();
}

int StreamDevice(const Stream* stream) { return stream->device(); }
uint64_t StreamId(const Stream* stream) { return stream->id(); }

void Enqueue(Stream* stream, std::string what, std::function<Status()> work) {
  stream->Enqueue(std::move(what), std::move(work));
}

Status StreamSynchronize(Stream* stream) {
  Stream* s = nullptr;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "StreamSynchronize", &s));
  return s->Synchronize();
}

Status StreamQuery(Stream* stream, bool* idle) {
  if (idle == nullptr) {
    return Status(StatusCode::kInvalidArgument, "StreamQuery: the output pointer is nullptr");
  }
  Stream* s = nullptr;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "StreamQuery", &s));
  *idle = s->Idle();
  return Status::Ok();
}

Status LaunchKernelAsync(const void* stream, const std::string& name, uint32_t block_dim,
                         const LaunchOptions& options, std::function<void()> body) {
  if (block_dim < 1 || block_dim > 65535) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("launch of kernel ", name, ": blockDim ", block_dim,
                         " is outside [1, 65535] (AscendC numBlocks)"));
  }
  if (!body) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("launch of kernel ", name, ": no kernel function"));
  }
  Stream* s = nullptr;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "Launch", &s));
  s->Enqueue(StrCat("kernel ", name), [name, block_dim, options, body = std::move(body)] {
    return RunKernel(name, block_dim, options, body);
  });
  return Status::Ok();
}

Status MemcpyAsync(void* dst, const void* src, size_t count, const void* stream) {
  Stream* s = nullptr;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "MemcpyAsync", &s));
  s->Enqueue(StrCat("memcpy of ", count, " bytes"), [dst, src, count] {
    if (count != 0) std::memmove(dst, src, count);
    return Status::Ok();
  });
  return Status::Ok();
}

Status MemsetAsync(void* dst, int value, size_t count, const void* stream) {
  Stream* s = nullptr;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "MemsetAsync", &s));
  s->Enqueue(StrCat("memset of ", count, " bytes"), [dst, value, count] {
    if (count != 0) std::memset(dst, value, count);
    return Status::Ok();
  });
  return Status::Ok();
}

Status LaunchHostFunc(const void* stream, std::function<void()> fn) {
  if (!fn) return Status(StatusCode::kInvalidArgument, "LaunchHostFunc: empty function");
  Stream* s = nullptr;
  AICORE_RETURN_IF_ERROR(ResolveStream(stream, "LaunchHostFunc", &s));
  s->Enqueue("host callback", [fn = std::move(fn)] {
    fn();
    return Status::Ok();
  });
  return Status::Ok();
}

Status SynchronizeDeviceStreams(int device) {
  AICORE_RETURN_IF_ERROR(CheckDevice(device, "DeviceSynchronize"));
  std::vector<Stream*> streams;
  StreamRegistry& r = Reg();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    for (auto& [handle, s] : r.live) {
      if (s->device() == device) streams.push_back(s.get());
    }
  }
  // Destroying a stream on another thread while its device synchronizes is a race in the caller
  // (as with the ACL runtime): the pointers below are assumed to stay live.
  Status first;
  for (Stream* s : streams) {
    Status st = s->Synchronize();
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

Status DestroyDeviceStreams(int device) {
  AICORE_RETURN_IF_ERROR(CheckDevice(device, "ResetDevice"));
  {
    StreamRegistry& r = Reg();
    std::lock_guard<std::mutex> lk(r.mu);
    for (auto& [handle, s] : r.live) {
      if (s->device() == device && s->OnWorker()) return s->SelfWaitError("ResetDevice");
    }
  }
  Status first;
  for (auto& s : TakeDeviceStreams(device)) {
    Status st = s->Synchronize();
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

}  // namespace aicore::rt
