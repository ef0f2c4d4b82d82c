// Streams: in-order queues of device work (kernel launches, copies, fills, host callbacks, event
// records and waits), each executed by a worker thread of its own. Work is enqueued without
// waiting; an error raised by queued work is kept and returned by the stream's next Synchronize.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "aicore/core/status.h"
#include "aicore/runtime/launch.h"

namespace aicore::rt {

// An opaque stream handle. Handles are validated against a registry on every call, so a stale or
// foreign handle is a NotFound error, never a crash.
class Stream;

// Creates a stream on the current device and stores it in `*stream`.
Status CreateStream(Stream** stream);
// Waits for the stream's work and destroys it. Returns the error its work held, if any (the
// stream is destroyed regardless). The default stream (nullptr) cannot be destroyed.
Status DestroyStream(Stream* stream);
// Waits until all work enqueued on `stream` (nullptr: the current device's default stream) has
// run; returns and clears the first error that work raised, naming the kernel or operation.
Status StreamSynchronize(Stream* stream);
// Returns true in `*idle` when `stream` has no pending work.
Status StreamQuery(Stream* stream, bool* idle);

// Resolves a handle: nullptr gives the current device's default stream; a live handle gives
// itself; anything else is NotFound naming `api`.
Status ResolveStream(const void* handle, const char* api, Stream** stream);
// Returns the device and the id (unique per process, default streams included) of a stream.
int StreamDevice(const Stream* stream);
uint64_t StreamId(const Stream* stream);

// Enqueues `work` on `stream` (already resolved). `what` names the operation in error messages
// ("memcpy", "kernel add_custom"). `work` returns a non-ok Status or throws aicore::Error to fail.
void Enqueue(Stream* stream, std::string what, std::function<Status()> work);

// Enqueues a kernel launch: `body` runs as kernel `name` on `block_dim` blocks through
// aicore::RunKernel. blockDim outside [1, 65535] and bad handles are rejected immediately.
Status LaunchKernelAsync(const void* stream, const std::string& name, uint32_t block_dim,
                         const LaunchOptions& options, std::function<void()> body);
// Enqueues a copy of `count` bytes from `src` to `dst`; the caller has validated both ranges.
Status MemcpyAsync(void* dst, const void* src, size_t count, const void* stream);
// Enqueues filling `count` bytes at `dst` with the byte `value`.
Status MemsetAsync(void* dst, int value, size_t count, const void* stream);
// Enqueues a call of `fn` on the stream's worker thread; an exception it throws becomes the
// stream's error.
Status LaunchHostFunc(const void* stream, std::function<void()> fn);

// Synchronizes every stream of `device`; returns the first error found (all are cleared).
Status SynchronizeDeviceStreams(int device);
// Synchronizes and destroys every stream of `device`, the default stream included.
Status DestroyDeviceStreams(int device);

}  // namespace aicore::rt
