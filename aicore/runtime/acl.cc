// The ACL C names on top of aicore::rt.
//
// - Each entry point checks its arguments, calls the rt function, and turns a non-ok Status into
//   an ACL code: stale stream/event/context handles give ACL_ERROR_INVALID_RESOURCE_HANDLE, bad
//   device ids ACL_ERROR_RT_INVALID_DEVICEID, device OOM ACL_ERROR_RT_MEMORY_ALLOCATION, errors of
//   asynchronous work ACL_ERROR_RT_AICORE_EXCEPTION, other bad arguments ACL_ERROR_INVALID_PARAM.
// - The failure's "<api>: <Code>: <message>" text is kept per thread for aclGetRecentErrMsg.
// - No exception crosses the C boundary.
#include "acl/acl.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "aicore/core/dtype.h"
#include "aicore/core/log.h"
#include "aicore/runtime/device.h"
#include "aicore/runtime/device_memory.h"
#include "aicore/runtime/event.h"
#include "aicore/runtime/stream.h"
#include "aicore/sim/core.h"

namespace {

using aicore::Status;
using aicore::StatusCode;
using aicore::StrCat;
namespace rt = aicore::rt;

thread_local std::string t_last_error;

aclError Report(const char* api, aclError code, const Status& status) {
  t_last_error = StrCat(api, ": ", status.ToString(), " [aclError ", code, "]");
  if (aicore::sim::CurrentCoreOrNull() != nullptr) {
    // Kernel code calling the host runtime (which a device could not do at all): printed, since
    // the code it gets back is easily ignored inside a kernel.
    std::fprintf(stderr, "[aicore error] %s\n", t_last_error.c_str());
    std::fflush(stderr);
  } else {
    AICORE_LOG(kInfo) << t_last_error;
  }
  return code;
}

// Prints a rejected kernel launch once: ACLRT_LAUNCH_KERNEL's result is often ignored.
aclError ReportLaunch(aclError code, const Status& status) {
  t_last_error = StrCat("ACLRT_LAUNCH_KERNEL: ", status.ToString(), " [aclError ", code, "]");
  std::fprintf(stderr, "[aicore error] %s\n", t_last_error.c_str());
  std::fflush(stderr);
  return code;
}

aclError Invalid(const char* api, const std::string& message) {
  return Report(api, ACL_ERROR_INVALID_PARAM, Status(StatusCode::kInvalidArgument, message));
}

// Maps a Status to an ACL code; `not_found` is the code for an unknown handle or pointer.
aclError Code(const Status& s, aclError not_found) {
  switch (s.code()) {
    case StatusCode::kOk: return ACL_SUCCESS;
    case StatusCode::kNotFound: return not_found;
    case StatusCode::kResourceExhausted: return ACL_ERROR_RT_MEMORY_ALLOCATION;
    case StatusCode::kFailedPrecondition: return ACL_ERROR_FAILURE;
    case StatusCode::kDeadlock: return ACL_ERROR_RT_AICORE_EXCEPTION;
    case StatusCode::kUnimplemented: return ACL_ERROR_API_NOT_SUPPORT;
    case StatusCode::kInternal: return ACL_ERROR_INTERNAL_ERROR;
    default: return ACL_ERROR_INVALID_PARAM;
  }
}

aclError Finish(const char* api, const Status& s,
                aclError not_found = ACL_ERROR_INVALID_RESOURCE_HANDLE) {
  if (s.ok()) return ACL_SUCCESS;
  return Report(api, Code(s, not_found), s);
}

// Reports the result of a call that waits for stream work: a stale handle is
// ACL_ERROR_INVALID_RESOURCE_HANDLE, a refusal (kernel code, own callback) ACL_ERROR_FAILURE, bad
// arguments ACL_ERROR_INVALID_PARAM, and an error of the work itself
// ACL_ERROR_RT_AICORE_EXCEPTION.
aclError AsyncFinish(const char* api, const Status& s) {
  if (s.ok()) return ACL_SUCCESS;
  if (rt::IsStreamWorkError(s)) return Report(api, ACL_ERROR_RT_AICORE_EXCEPTION, s);
  switch (s.code()) {
    case StatusCode::kNotFound: return Report(api, ACL_ERROR_INVALID_RESOURCE_HANDLE, s);
    case StatusCode::kInvalidArgument: return Report(api, ACL_ERROR_INVALID_PARAM, s);
    case StatusCode::kFailedPrecondition: return Report(api, ACL_ERROR_FAILURE, s);
    default: return Report(api, ACL_ERROR_RT_AICORE_EXCEPTION, s);
  }
}

// Runs `fn`, which may throw aicore::Error, and reports the outcome.
template <typename Fn>
aclError Guard(const char* api, aclError not_found, Fn&& fn) {
  try {
    return Finish(api, fn(), not_found);
  } catch (const aicore::Error& e) {
    return Finish(api, e.status(), not_found);
  } catch (const std::exception& e) {
    return Report(api, ACL_ERROR_INTERNAL_ERROR, Status(StatusCode::kInternal, e.what()));
  }
}

aclError CheckDeviceId(const char* api, int32_t device) {
  const Status s = rt::CheckDevice(device, api);
  return s.ok() ? ACL_SUCCESS : Report(api, ACL_ERROR_RT_INVALID_DEVICEID, s);
}

// ---- init ----

std::mutex g_init_mu;
bool g_initialized = false;

// ---- contexts: a context names a device; the thread's current context selects it ----

struct Context {
  int device;
};

struct ContextRegistry {
  std::mutex mu;
  std::unordered_map<const void*, std::unique_ptr<Context>> live;
  std::vector<std::unique_ptr<Context>> defaults;  // one per device, never destroyed
};

ContextRegistry& Contexts() {
  static auto* r = [] {
    auto* reg = new ContextRegistry();
    for (int d = 0; d < rt::GetDeviceCount(); ++d) {
      reg->defaults.push_back(std::make_unique<Context>(Context{d}));
      reg->live.emplace(reg->defaults.back().get(), nullptr);
    }
    return reg;
  }();
  return *r;
}

// Returns the device of a live context, or -1.
int ContextDevice(const void* ctx) {
  ContextRegistry& r = Contexts();
  std::lock_guard<std::mutex> lk(r.mu);
  auto it = r.live.find(ctx);
  if (it == r.live.end()) return -1;
  return static_cast<const Context*>(ctx)->device;
}

thread_local const void* t_context = nullptr;

aclError BadContext(const char* api, const void* ctx) {
  return Report(api, ACL_ERROR_INVALID_RESOURCE_HANDLE,
                Status(StatusCode::kNotFound,
                       StrCat("context ", ctx,
                              " is not a live context (destroyed already, or never created)")));
}

// ---- copies ----

const char* KindName(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
  }
  return "?";
}

// Checks that [ptr, ptr + count) is device memory (`device` true) or not (`device` false).
Status CheckSide(const char* side, const void* ptr, size_t count, bool device,
                 aclrtMemcpyKind kind) {
  if (device) {
    if (rt::FindDeviceAllocation(ptr, count) < 0) {
      if (!rt::IsDeviceMemory(ptr)) {
        return Status(StatusCode::kInvalidArgument,
                      StrCat(KindName(kind), " needs device memory as ", side, ", but ", ptr,
                             " is not inside a live aclrtMalloc allocation"));
      }
      return Status(StatusCode::kInvalidArgument,
                    StrCat(side, " range [", ptr, ", +", count,
                           " bytes) runs past the end of its device allocation"));
    }
  } else if (rt::IsDeviceMemory(ptr)) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(KindName(kind), " needs host memory as ", side, ", but ", ptr,
                         " is device memory (from aclrtMalloc)"));
  }
  return Status::Ok();
}

Status CheckCopy(void* dst, size_t dest_max, const void* src, size_t count,
                 aclrtMemcpyKind kind) {
  if (dst == nullptr || src == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat(dst == nullptr ? "dst" : "src", " is nullptr"));
  }
  if (count > dest_max) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("count ", count, " bytes exceeds destMax ", dest_max, " bytes"));
  }
  bool dst_device = false;
  bool src_device = false;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: break;
    case ACL_MEMCPY_HOST_TO_DEVICE: dst_device = true; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: src_device = true; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: dst_device = src_device = true; break;
    case ACL_MEMCPY_DEFAULT:
      dst_device = rt::IsDeviceMemory(dst);
      src_device = rt::IsDeviceMemory(src);
      break;
    default:
      return Status(StatusCode::kInvalidArgument,
                    StrCat("kind ", static_cast<int>(kind),
                           " is not an aclrtMemcpyKind (0..4: HOST_TO_HOST, HOST_TO_DEVICE, "
                           "DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT)"));
  }
  if (count == 0) return Status::Ok();
  AICORE_RETURN_IF_ERROR(CheckSide("destination", dst, count, dst_device, kind));
  AICORE_RETURN_IF_ERROR(CheckSide("source", src, count, src_device, kind));
  return Status::Ok();
}

Status CheckFill(void* dev_ptr, size_t max_count, size_t count) {
  if (dev_ptr == nullptr) return Status(StatusCode::kInvalidArgument, "devPtr is nullptr");
  if (count > max_count) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("count ", count, " bytes exceeds maxCount ", max_count, " bytes"));
  }
  if (count != 0 && rt::FindDeviceAllocation(dev_ptr, count) < 0) {
    return Status(StatusCode::kInvalidArgument,
                  StrCat("[", dev_ptr, ", +", count,
                         " bytes) is not inside a live aclrtMalloc allocation"));
  }
  return Status::Ok();
}

}  // namespace

namespace aicore::detail {

uint32_t LaunchResultCode(const Status& status) {
  if (status.ok()) return ACL_SUCCESS;
  const aclError code = Code(status, ACL_ERROR_INVALID_RESOURCE_HANDLE);
  return static_cast<uint32_t>(ReportLaunch(code, status));
}

void SetRecentErrMsg(const std::string& message) { t_last_error = message; }

}  // namespace aicore::detail

extern "C" {

aclError aclInit(const char* configPath) {
  if (configPath != nullptr && configPath[0] != '\0') {
    struct stat st {};
    if (stat(configPath, &st) != 0) {
      return Report("aclInit", ACL_ERROR_INVALID_FILE,
                    Status(StatusCode::kNotFound,
                           StrCat("config file '", configPath, "' does not exist")));
    }
  }
  std::lock_guard<std::mutex> lk(g_init_mu);
  if (g_initialized) {
    return Report("aclInit", ACL_ERROR_REPEAT_INITIALIZE,
                  Status(StatusCode::kFailedPrecondition,
                         "already initialised; call aclFinalize before initialising again"));
  }
  g_initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  {
    std::lock_guard<std::mutex> lk(g_init_mu);
    if (!g_initialized) {
      return Report("aclFinalize", ACL_ERROR_UNINITIALIZE,
                    Status(StatusCode::kFailedPrecondition, "aclInit was not called"));
    }
    g_initialized = false;
  }
  Status first;
  for (int d = 0; d < rt::GetDeviceCount(); ++d) {
    Status s = rt::SynchronizeDeviceStreams(d);
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first.ok() ? ACL_SUCCESS : Report("aclFinalize", ACL_ERROR_RT_AICORE_EXCEPTION, first);
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (aclError e = CheckDeviceId("aclrtSetDevice", deviceId); e != ACL_SUCCESS) return e;
  t_context = nullptr;
  return Finish("aclrtSetDevice", rt::SetDevice(deviceId));
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (aclError e = CheckDeviceId("aclrtResetDevice", deviceId); e != ACL_SUCCESS) return e;
  return AsyncFinish("aclrtResetDevice", rt::ResetDevice(deviceId));
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return Invalid("aclrtGetDevice", "deviceId is nullptr");
  *deviceId = rt::CurrentDevice();
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Invalid("aclrtGetDeviceCount", "count is nullptr");
  *count = static_cast<uint32_t>(rt::GetDeviceCount());
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  return AsyncFinish("aclrtSynchronizeDevice", rt::DeviceSynchronize());
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  if (runMode == nullptr) return Invalid("aclrtGetRunMode", "runMode is nullptr");
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  if (context == nullptr) return Invalid("aclrtCreateContext", "context is nullptr");
  if (aclError e = CheckDeviceId("aclrtCreateContext", deviceId); e != ACL_SUCCESS) return e;
  ContextRegistry& r = Contexts();
  auto ctx = std::make_unique<Context>(Context{deviceId});
  Context* raw = ctx.get();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    r.live.emplace(raw, std::move(ctx));
  }
  (void)rt::SetDevice(deviceId);
  t_context = raw;
  *context = raw;
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  ContextRegistry& r = Contexts();
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto it = r.live.find(context);
    if (it == r.live.end()) return BadContext("aclrtDestroyContext", context);
    if (it->second == nullptr) {
      return Invalid("aclrtDestroyContext",
                     StrCat("context ", context, " is a device's default context"));
    }
    r.live.erase(it);
  }
  if (t_context == context) t_context = nullptr;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  const int device = ContextDevice(context);
  if (device < 0) return BadContext("aclrtSetCurrentContext", context);
  t_context = context;
  return Finish("aclrtSetCurrentContext", rt::SetDevice(device));
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (context == nullptr) return Invalid("aclrtGetCurrentContext", "context is nullptr");
  if (t_context != nullptr && ContextDevice(t_context) >= 0) {
    *context = const_cast<void*>(t_context);
  } else {
    *context = Contexts().defaults[static_cast<size_t>(rt::CurrentDevice())].get();
  }
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) return Invalid("aclrtCreateStream", "stream is nullptr");
  rt::Stream* s = nullptr;
  const aclError e = Finish("aclrtCreateStream", rt::CreateStream(&s));
  if (e == ACL_SUCCESS) *stream = s;
  return e;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) {
    return Invalid("aclrtDestroyStream", "stream is nullptr (the default stream)");
  }
  return AsyncFinish("aclrtDestroyStream", rt::DestroyStream(stream));
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return AsyncFinish("aclrtSynchronizeStream",
                     rt::StreamSynchronize(stream, "aclrtSynchronizeStream"));
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  if (event == nullptr) return Invalid("aclrtCreateEvent", "event is nullptr");
  rt::Event* e = nullptr;
  const aclError code = Finish("aclrtCreateEvent", rt::CreateEvent(&e));
  if (code == ACL_SUCCESS) *event = e;
  return code;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return Finish("aclrtDestroyEvent", rt::DestroyEvent(static_cast<rt::Event*>(event)));
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return Finish("aclrtRecordEvent", rt::RecordEvent(static_cast<rt::Event*>(event), stream));
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return Finish("aclrtSynchronizeEvent", rt::EventSynchronize(static_cast<rt::Event*>(event)));
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  if (status == nullptr) return Invalid("aclrtQueryEvent", "status is nullptr");
  bool complete = false;
  const aclError e =
      Finish("aclrtQueryEvent", rt::EventQuery(static_cast<rt::Event*>(event), &complete));
  if (e == ACL_SUCCESS) *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  return e;
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (ms == nullptr) return Invalid("aclrtEventElapsedTime", "ms is nullptr");
  const Status s = rt::EventElapsedTime(ms, static_cast<rt::Event*>(startEvent),
                                        static_cast<rt::Event*>(endEvent));
  if (s.code() == StatusCode::kFailedPrecondition) {
    return Report("aclrtEventElapsedTime", ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, s);
  }
  return Finish("aclrtEventElapsedTime", s);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return Finish("aclrtStreamWaitEvent",
                rt::StreamWaitEvent(stream, static_cast<rt::Event*>(event)));
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (devPtr == nullptr) return Invalid("aclrtMalloc", "devPtr is nullptr");
  if (size == 0) return Invalid("aclrtMalloc", "size is 0; allocate at least 1 byte");
  if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY_P2P) {
    return Invalid("aclrtMalloc", StrCat("policy ", static_cast<int>(policy),
                                         " is not an aclrtMemMallocPolicy (0..5)"));
  }
  return Guard("aclrtMalloc", ACL_ERROR_INVALID_PARAM, [&] {
    *devPtr = rt::DeviceMalloc(size, nullptr);
    return Status::Ok();
  });
}

aclError aclrtFree(void* devPtr) {
  if (devPtr == nullptr) return Invalid("aclrtFree", "devPtr is nullptr");
  return Guard("aclrtFree", ACL_ERROR_INVALID_PARAM, [&] {
    rt::DeviceFree(devPtr);
    return Status::Ok();
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  if (hostPtr == nullptr) return Invalid("aclrtMallocHost", "hostPtr is nullptr");
  if (size == 0) return Invalid("aclrtMallocHost", "size is 0; allocate at least 1 byte");
  try {
    *hostPtr = rt::HostMalloc(size);
    return ACL_SUCCESS;
  } catch (const aicore::Error& e) {
    return Report("aclrtMallocHost", ACL_ERROR_BAD_ALLOC, e.status());
  }
}

aclError aclrtFreeHost(void* hostPtr) {
  if (hostPtr == nullptr) return Invalid("aclrtFreeHost", "hostPtr is nullptr");
  return Guard("aclrtFreeHost", ACL_ERROR_INVALID_PARAM, [&] {
    rt::HostFree(hostPtr);
    return Status::Ok();
  });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) {
    return Invalid("aclrtGetMemInfo", StrCat(free == nullptr ? "free" : "total", " is nullptr"));
  }
  if (attr < ACL_DDR_MEM || attr > ACL_HBM_MEM_NORMAL) {
    return Invalid("aclrtGetMemInfo",
                   StrCat("attr ", static_cast<int>(attr), " is not an aclrtMemAttr (0..5)"));
  }
  return Guard("aclrtGetMemInfo", ACL_ERROR_INVALID_PARAM, [&] {
    const rt::DeviceMemoryStats st = rt::GetDeviceMemoryStats(rt::CurrentDevice());
    *total = st.capacity;
    // Cached blocks are held by the caching allocator: free is what it has not reserved.
    *free = st.capacity > st.reserved ? st.capacity - st.reserved : 0;
    return Status::Ok();
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (const Status s = CheckFill(devPtr, maxCount, count); !s.ok()) {
    return Report("aclrtMemset", ACL_ERROR_INVALID_PARAM, s);
  }
  if (count != 0) std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  if (const Status s = CheckFill(devPtr, maxCount, count); !s.ok()) {
    return Report("aclrtMemsetAsync", ACL_ERROR_INVALID_PARAM, s);
  }
  return Finish("aclrtMemsetAsync", rt::MemsetAsync(devPtr, value, count, stream));
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  if (const Status s = CheckCopy(dst, destMax, src, count, kind); !s.ok()) {
    return Report("aclrtMemcpy", ACL_ERROR_INVALID_PARAM, s);
  }
  if (count != 0) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  if (const Status s = CheckCopy(dst, destMax, src, count, kind); !s.ok()) {
    return Report("aclrtMemcpyAsync", ACL_ERROR_INVALID_PARAM, s);
  }
  return Finish("aclrtMemcpyAsync", rt::MemcpyAsync(dst, src, count, stream));
}

const char* aclGetRecentErrMsg(void) { return t_last_error.c_str(); }

aclFloat16 aclFloatToFloat16(float value) { return aicore::FloatToHalfBits(value); }

float aclFloat16ToFloat(aclFloat16 value) { return aicore::HalfBitsToFloat(value); }

}  // extern "C"
