// Devices of the ACL-style host API: a calling thread has a current device (as with
// aclrtSetDevice); each device has its own memory accounting, default stream and streams.
#pragma once

#include "aicore/core/status.h"

namespace aicore::rt {

// Returns the number of devices: AICORE_DEVICE_COUNT if set (1..64), else 8 (an 8-NPU server).
int GetDeviceCount();

// Makes `device` the calling thread's current device. InvalidArgument outside [0, count).
Status SetDevice(int device);
// Stores the calling thread's current device in `*device` (0 until SetDevice is called, as the
// first device is the implicit default). InvalidArgument for a nullptr.
Status GetDevice(int* device);
// Returns the calling thread's current device.
int CurrentDevice();
// Waits for all work on `device`, destroys its streams (their handles become invalid), frees its
// memory and resets its accounting. Returns the first error its streams held, else Ok.
Status ResetDevice(int device);
// Waits for all streams of the current device; returns (and clears) the first error they held.
Status DeviceSynchronize();

// Returns Ok when `device` is a valid id, else InvalidArgument naming `api`, the id and the range.
Status CheckDevice(int device, const char* api);

}  // namespace aicore::rt
