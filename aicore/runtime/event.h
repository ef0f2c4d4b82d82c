// Events: markers recorded into a stream's work. An event completes when the stream reaches it,
// taking a host timestamp; other streams can wait for it, the host can wait for or poll it, and
// two completed events give the elapsed time between them.
#pragma once

#include "aicore/core/status.h"

namespace aicore::rt {

class Stream;
// An opaque event handle, validated against a registry on every call (NotFound when stale).
class Event;

// Creates an event (never recorded) and stores it in `*event`.
Status CreateEvent(Event** event);
// Destroys an event. Work already enqueued that records or waits for it still completes.
Status DestroyEvent(Event* event);
// Enqueues a record of `event` on `stream` (nullptr: default stream). A later record replaces the
// earlier one for Query, Synchronize and waits enqueued after it.
Status RecordEvent(Event* event, const void* stream);
// Makes work enqueued on `stream` after this call wait until the event's latest record (as of
// this call) completes. An event never recorded makes this a no-op.
Status StreamWaitEvent(const void* stream, Event* event);
// Waits until the event's latest record completes (immediately if never recorded).
// FailedPrecondition from kernel code (see CheckNotInKernel).
Status EventSynchronize(Event* event);
// Stores true in `*complete` when the event's latest record has completed or it was never
// recorded.
Status EventQuery(Event* event, bool* complete);
// Stores the host time in milliseconds between the completions of `start` and `end`. Both must
// be recorded and completed (FailedPrecondition otherwise).
Status EventElapsedTime(float* ms, Event* start, Event* end);

}  // namespace aicore::rt
