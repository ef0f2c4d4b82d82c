// Streams: in-order queues of device work (kernel launches, copies, fills, host callbacks, event
// records and waits), each executed by a worker thread of its own. Work is enqueued without
// waiting; an error raised by queued work is printed to stderr when it happens and kept for the
// stream's next Synchronize and the device's next synchronize (docs/errors.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "aicore/core/status.h"
#include "aicore/runtime/launch.h"

namespace aicore::rt {

// A stream. Callers hold it by shared_ptr (from ResolveStream), so a handle destroyed by another
// thread stays valid for the duration of a call; its raw address is the public handle
// (aclrtStream), validated against a registry on every call: a stale or foreign handle is a
// NotFound error, never a dereference.
class Stream;

// Who takes a stream's pending error: the stream's own synchronize (and DestroyStream), or
// device-wide synchronisation. A device synchronize takes only its own copy, so it never hides an
// error from the stream's owner; the stream's own synchronize takes both (its owner saw it).
enum class StreamErrorConsumer : int { kStream = 0, kDevice = 1 };

// Creates a stream on the current device and stores its handle in `*stream`.
Status CreateStream(Stream** stream);
// Removes the stream from the registry (its handle becomes stale at once), refuses further work,
// waits for its queued work and destroys it. Returns the error its work held for the stream's
// own synchronize, if any. The default stream (nullptr) cannot be destroyed.
Status DestroyStream(const void* stream);
// Waits until all work enqueued on `stream` (nullptr: the current device's default stream) has
// run; returns and clears the stream's own copy of the first error that work raised, naming the
// kernel or operation. `api` names the caller in a stale-handle error.
Status StreamSynchronize(const void* stream, const char* api = "StreamSynchronize");
// The same for a resolved stream and a chosen consumer.
Status StreamSynchronize(Stream& stream, StreamErrorConsumer consumer);
// Returns true in `*idle` when `stream` has no pending work.
Status StreamQuery(const void* stream, bool* idle);

// Resolves a handle: nullptr gives the current device's default stream (created on first use); a
// live handle gives itself; anything else is NotFound naming `api`.
Status ResolveStream(const void* handle, const char* api, std::shared_ptr<Stream>* stream);
// Returns the device and the id (unique per process, default streams included) of a stream.
int StreamDevice(const Stream& stream);
uint64_t StreamId(const Stream& stream);
// The same for a handle, resolved under the registry lock: -1 / 0 when it is not a live stream.
int StreamDevice(const void* handle);
uint64_t StreamId(const void* handle);

// True when `status` is the error of work a stream ran ("kernel add on stream 3 (device 0)
// failed: ..."), as synchronize returns it; false for errors of the call itself (a stale handle,
// a refused wait), which keep their own codes.
bool IsStreamWorkError(const Status& status);

// Returns FailedPrecondition naming `api`, the kernel and the core when called from kernel code:
// host-side waits cannot run inside a kernel (launches run one at a time, so work queued behind
// the kernel would wait for it forever). Ok on host threads.
Status CheckNotInKernel(const char* api);

// Enqueues `work` on `stream` (already resolved). `what` names the operation in error messages
// ("memcpy", "kernel add_custom"). `work` returns a non-ok Status or throws aicore::Error to fail.
// NotFound once the stream was destroyed (another thread may destroy a stream it holds).
Status Enqueue(Stream& stream, std::string what, std::function<Status()> work);
// The same for a handle (nullptr: the default stream); NotFound when it is not live.
Status Enqueue(const void* stream, std::string what, std::function<Status()> work);

// Enqueues a kernel launch: `body` runs as kernel `name` on `block_dim` blocks through
// aicore::RunKernel. blockDim outside [1, 65535], an empty body and bad handles are rejected
// immediately. A failing kernel is printed to stderr when it fails and its Status is kept for
// the stream's next synchronize and for the next device synchronize.
Status LaunchKernelAsync(const void* stream, const std::string& name, uint32_t block_dim,
                         const LaunchOptions& options, std::function<void()> body);
// Enqueues a copy of `count` bytes from `src` to `dst`; the caller has validated both ranges.
Status MemcpyAsync(void* dst, const void* src, size_t count, const void* stream);
// Enqueues filling `count` bytes at `dst` with the byte `value`.
Status MemsetAsync(void* dst, int value, size_t count, const void* stream);
// Enqueues a call of `fn` on the stream's worker thread; an exception it throws becomes the
// stream's error.
Status LaunchHostFunc(const void* stream, std::function<void()> fn);

// Synchronizes every stream of `device`; returns the first error found since the last device
// synchronize (the streams' own copies stay for their own synchronize).
Status SynchronizeDeviceStreams(int device);
// Synchronizes and destroys every stream of `device`, the default stream included.
Status DestroyDeviceStreams(int device);

}  // namespace aicore::rt
