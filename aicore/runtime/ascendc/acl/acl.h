// The common ACL runtime names (aclInit, aclrtSetDevice, aclrtMalloc, aclrtMemcpy, streams,
// events, aclGetRecentErrMsg, fp16 helpers) for host programs written against CANN, implemented
// on aicore::rt. Include as "acl/acl.h". Every call returns ACL_SUCCESS or an ACL error code, and
// a failure's full text is available from aclGetRecentErrMsg on the same thread.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include "aicore/runtime/launch.h"  // ACLRT_LAUNCH_KERNEL, aicore::Launch
#endif

typedef int aclError;
typedef uint16_t aclFloat16;  // IEEE binary16 bits
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;

// Element types and tensor formats (CANN's acl_base.h numbering; aclnn descriptors use them).
typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
  ACL_INT4 = 29,
  ACL_UINT1 = 30,
  ACL_COMPLEX32 = 33,
  ACL_HIFLOAT8 = 34,
  ACL_FLOAT8_E5M2 = 35,
  ACL_FLOAT8_E4M3FN = 36,
  ACL_FLOAT8_E8M0 = 37,
  ACL_FLOAT6_E3M2 = 38,
  ACL_FLOAT6_E2M3 = 39,
  ACL_FLOAT4_E2M1 = 40,
  ACL_FLOAT4_E1M2 = 41,
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
  ACL_FORMAT_NC = 35,
  ACL_FORMAT_NCL = 47,
  ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
  ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
  ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
  ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
  ACL_FORMAT_FRACTAL_NZ_C0_8 = 54,
} aclFormat;

// Return codes, with the values of the ACL documentation's return-code table.
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_RT_FAILURE = 500003;
// Runtime return codes (rt_error_codes.h in CANN).
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID 107006
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015

typedef enum aclrtRunMode {
  ACL_DEVICE = 0,  // the program runs on the device's own CPU
  ACL_HOST = 1,    // the program runs on a host with devices attached (always, here)
} aclrtRunMode;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4,  // the direction is inferred from the pointers
} aclrtMemcpyKind;

typedef enum aclrtEventStatus {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

typedef enum aclrtMemAttr {
  ACL_DDR_MEM = 0,
  ACL_HBM_MEM = 1,
  ACL_DDR_MEM_HUGE = 2,
  ACL_DDR_MEM_NORMAL = 3,
  ACL_HBM_MEM_HUGE = 4,
  ACL_HBM_MEM_NORMAL = 5,
} aclrtMemAttr;

#ifdef __cplusplus
extern "C" {
#endif

// Initialises the runtime. `configPath` may be nullptr or empty; a named file must exist (its
// contents are not used). A second call before aclFinalize is ACL_ERROR_REPEAT_INITIALIZE.
aclError aclInit(const char* configPath);
// Waits for all device work and ends the runtime; aclInit may be called again afterwards.
aclError aclFinalize(void);

// Makes `deviceId` the calling thread's current device (ACL_ERROR_RT_INVALID_DEVICEID if absent).
aclError aclrtSetDevice(int32_t deviceId);
// Waits for the device's work, destroys its streams and frees its memory.
aclError aclrtResetDevice(int32_t deviceId);
// Stores the calling thread's current device (0 until aclrtSetDevice is called).
aclError aclrtGetDevice(int32_t* deviceId);
// Stores the number of devices (AICORE_DEVICE_COUNT, default 8).
aclError aclrtGetDeviceCount(uint32_t* count);
// Waits for every stream of the current device; returns the first error any of them held.
aclError aclrtSynchronizeDevice(void);
// Stores ACL_HOST.
aclError aclrtGetRunMode(aclrtRunMode* runMode);

// Creates a context on `deviceId` and makes it current (its device becomes the current device).
aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId);
aclError aclrtDestroyContext(aclrtContext context);
aclError aclrtSetCurrentContext(aclrtContext context);
// Stores the calling thread's current context, or the current device's default context.
aclError aclrtGetCurrentContext(aclrtContext* context);

aclError aclrtCreateStream(aclrtStream* stream);
// Waits for the stream's work and destroys it; returns its pending error like
// aclrtSynchronizeStream. Safe while other threads use the handle (they then get
// ACL_ERROR_INVALID_RESOURCE_HANDLE).
aclError aclrtDestroyStream(aclrtStream stream);
// Waits for the stream's work; an error raised by that work (a kernel failure names the kernel,
// block, API and file:line; it was also printed to stderr when it happened) is returned as
// ACL_ERROR_RT_AICORE_EXCEPTION with its text in aclGetRecentErrMsg, even when a device
// synchronize on another thread reported it first (docs/errors.md). ACL_ERROR_FAILURE from kernel
// code, which cannot wait for host work.
aclError aclrtSynchronizeStream(aclrtStream stream);

aclError aclrtCreateEvent(aclrtEvent* event);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status);
// Stores the milliseconds between two completed events (ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID when
// either has not been recorded or has not completed).
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent);
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

// Allocates `size` bytes of device memory on the current device (512-byte aligned). The policy
// is checked but has no other effect. Running out is ACL_ERROR_RT_MEMORY_ALLOCATION.
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
aclError aclrtMallocHost(void** hostPtr, size_t size);
aclError aclrtFreeHost(void* hostPtr);
// Stores the current device's free and total bytes.
aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total);
// Fills `count` bytes of device memory at `devPtr` with the low byte of `value`; count <= maxCount.
aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);
aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream);
// Copies `count` bytes (count <= destMax). The device side(s) named by `kind` must lie inside one
// device allocation and the host side(s) must not be device memory. Synchronous: it does not wait
// for stream work.
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind);
// Checks as aclrtMemcpy does, then enqueues the copy on `stream`.
aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream);

// Returns the full text of the calling thread's most recent failed call ("" if none).
const char* aclGetRecentErrMsg(void);

// Converts between float and binary16 with round-to-nearest-even.
aclFloat16 aclFloatToFloat16(float value);
float aclFloat16ToFloat(aclFloat16 value);

#ifdef __cplusplus
}  // extern "C"
#endif
