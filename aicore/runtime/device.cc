// Device selection per host thread, device reset and device-wide synchronization.
#include "aicore/runtime/device.h"

#include "aicore/core/env.h"
#include "aicore/core/log.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/stream.h"

namespace aicore::rt {

namespace {

constexpr int kDefaultDeviceCount = 8;  // an 8-NPU server (Atlas 800 class)
constexpr int kMaxDeviceCount = 64;

thread_local int t_device = 0;

}  // namespace

int GetDeviceCount() {
  static const int count = [] {
    return static_cast<int>(
        env::Int("AICORE_DEVICE_COUNT", kDefaultDeviceCount, 1, kMaxDeviceCount));
  }();
  return count;
}

Status CheckDevice(int device, const char* api) {
  if (device < 0 || device >= GetDeviceCount()) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(api, ": device ", device, " does not exist; valid ids are 0..",
                         GetDeviceCount() - 1, " (AICORE_DEVICE_COUNT sets the count)"));
  }
  return Status::Ok();
}

Status SetDevice(int device) {
  AICORE_RETURN_IF_ERROR(CheckDevice(device, "SetDevice"));
  t_device = device;
  return Status::Ok();
}

Status GetDevice(int* device) {
  if (device == nullptr) {
    return Status(StatusCode::kInvalidArgument, "GetDevice: the output pointer is nullptr");
  }
  *device = t_device;
  return Status::Ok();
}

int CurrentDevice() { return t_device; }

Status ResetDevice(int device) {
  AICORE_RETURN_IF_ERROR(CheckDevice(device, "ResetDevice"));
  Status first = DestroyDeviceStreams(device);
  // Refused (from kernel code, or a callback of one of the device's streams): the streams still
  // run, so their memory stays (releasing it would wait for the caller's own stream).
  if (!first.ok() && !IsStreamWorkError(first)) return first;
  const size_t freed = ReleaseDeviceMemory(device);
  if (freed != 0) {
    AICORE_LOG(kInfo) << "ResetDevice(" << device << ") freed " << freed
                      << " device allocations still live";
  }
  return first;
}

Status DeviceSynchronize() { return SynchronizeDeviceStreams(t_device); }

}  // namespace aicore::rt
