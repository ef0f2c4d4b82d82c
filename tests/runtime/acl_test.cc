// The ACL C names: the host-program flow end to end, error codes for bad handles and pointers,
// aclGetRecentErrMsg, OOM messages, memcpy kind checks, contexts, fp16 helpers.
#include "acl/acl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "aicore/core/dtype.h"
#include "aicore/runtime/device_memory.h"
#include "tests/runtime/kernels.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using runtime_test::add_half;
using runtime_test::affine_float;
using runtime_test::read_past_end;

std::string LastError() { return aclGetRecentErrMsg(); }

TEST(Acl, InitFinalizeLifecycle) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_THAT(LastError(), AllOf(HasSubstr("aclInit"), HasSubstr("already initialised")));
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
  EXPECT_THAT(LastError(), HasSubstr("/nonexistent/acl.json"));
  ASSERT_EQ(aclInit(""), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

// The sample host flow: set device, stream, malloc, H2D, launch, synchronize, D2H, check.
TEST(Acl, HostProgramFlowWithAclrtLaunchKernel) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (uint32_t blocks : {1u, 2u, 8u, 40u}) {
    const uint32_t n = blocks * runtime_test::kAddTile * 2;
    const size_t bytes = n * sizeof(aicore::half);
    std::vector<aicore::half> x(n), y(n), z(n);
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = aicore::half(0.125f * static_cast<float>(i % 101));
      y[i] = aicore::half(1.5f - 0.25f * static_cast<float>(i % 7));
    }
    void *dx = nullptr, *dy = nullptr, *dz = nullptr;
    ASSERT_EQ(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&dz, bytes, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(dx, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(dy, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream),
              ACL_SUCCESS);
    ASSERT_EQ(ACLRT_LAUNCH_KERNEL(add_half)(blocks, stream, dx, dy, dz, n), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(z.data(), bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(float(z[i]), float(aicore::half(float(x[i]) + float(y[i])))) << i;
    }
    EXPECT_EQ(aclrtFree(dx), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(dy), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(dz), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(Acl, LaunchErrorsReturnCodesAndMessages) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(ACLRT_LAUNCH_KERNEL(read_past_end)(0, stream, dev, 4u),
            static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));
  EXPECT_THAT(LastError(), AllOf(HasSubstr("read_past_end"), HasSubstr("blockDim 0")));
  EXPECT_EQ(ACLRT_LAUNCH_KERNEL(read_past_end)(65536, stream, dev, 4u),
            static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));
  EXPECT_THAT(LastError(), HasSubstr("blockDim 65536 is outside [1, 65535]"));
  EXPECT_EQ(ACLRT_LAUNCH_KERNEL(read_past_end)(1, reinterpret_cast<aclrtStream>(0x10), dev, 4u),
            static_cast<uint32_t>(ACL_ERROR_INVALID_RESOURCE_HANDLE));
  // A kernel failure is reported by the stream's synchronize, naming the kernel.
  ASSERT_EQ(ACLRT_LAUNCH_KERNEL(read_past_end)(2, stream, dev, 4u), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_THAT(LastError(), AllOf(HasSubstr("aclrtSynchronizeStream"),
                                 HasSubstr("kernel read_past_end"), HasSubstr("OutOfRange")));
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  // aicore::Launch with an aclrtStream.
  ASSERT_TRUE(aicore::Launch(runtime_test::read_past_end, 1, stream, dev, 4u).ok());
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_THAT(LastError(), HasSubstr("read_past_end"));
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  // The device sync did not consume the stream's own copy: its owner still sees the error.
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_THAT(LastError(), AllOf(HasSubstr("aclrtDestroyStream"), HasSubstr("read_past_end")));
}

TEST(Acl, BadHandlesReturnErrorCodes) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(LastError(), AllOf(HasSubstr("aclrtSynchronizeStream"),
                                 HasSubstr("is not a live stream")));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);

  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtRecordEvent(event, nullptr), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_THAT(LastError(), HasSubstr("is not a live event"));
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtStreamWaitEvent(nullptr, event), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  aclrtEventStatus status;
  EXPECT_EQ(aclrtQueryEvent(event, &status), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtQueryEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);

  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(1 << 20), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_THAT(LastError(), HasSubstr("device 1048576 does not exist"));
  EXPECT_EQ(aclrtResetDevice(-3), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);

  aclrtContext ctx = nullptr;
  EXPECT_EQ(aclrtSetCurrentContext(reinterpret_cast<aclrtContext>(0x99)),
            ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtCreateContext(&ctx, -1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtDestroyContext(reinterpret_cast<aclrtContext>(0x99)),
            ACL_ERROR_INVALID_RESOURCE_HANDLE);
}

TEST(Acl, BadPointersReturnErrorCodes) {
  void* dev = nullptr;
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("size is 0"));
  EXPECT_EQ(aclrtMalloc(&dev, 16, static_cast<aclrtMemMallocPolicy>(9)), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("policy 9"));
  ASSERT_EQ(aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dev) % 512, 0u);
  EXPECT_EQ(aclrtFree(static_cast<char*>(dev) + 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("points 4 bytes into a block of 100 bytes"));
  int host_var = 0;
  EXPECT_EQ(aclrtFree(&host_var), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("not a live device allocation"));
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(dev), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("double free"));

  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 1000), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(&host, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(nullptr, 8), ACL_ERROR_INVALID_PARAM);
}

TEST(Acl, MemcpyChecksKindBoundsAndCount) {
  std::vector<char> host(256, 1);
  void* dev = nullptr;
  void* dev2 = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&dev2, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  // Each direction with the pointers swapped.
  EXPECT_EQ(aclrtMemcpy(host.data(), 128, dev, 128, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(),
              HasSubstr("ACL_MEMCPY_HOST_TO_DEVICE needs device memory as destination"));
  EXPECT_EQ(aclrtMemcpy(dev, 128, host.data(), 128, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("needs host memory as destination"));
  EXPECT_EQ(aclrtMemcpy(dev, 128, host.data(), 128, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host.data(), 128, dev, 128, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  // Past the end of the allocation (its 512-byte caching-allocator block), count > destMax, bad
  // kind, nullptr.
  EXPECT_EQ(aclrtMemcpy(static_cast<char*>(dev) + 384, 256, host.data(), 129,
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("runs past the end of its device allocation"));
  EXPECT_EQ(aclrtMemcpy(static_cast<char*>(dev) + 500, 64, host.data(), 64,
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(dev, 64, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("count 128 bytes exceeds destMax 64 bytes"));
  EXPECT_EQ(aclrtMemcpy(dev, 128, host.data(), 128, static_cast<aclrtMemcpyKind>(7)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(LastError(), HasSubstr("kind 7 is not an aclrtMemcpyKind"));
  EXPECT_EQ(aclrtMemcpy(nullptr, 128, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  // Valid copies in every direction, DEFAULT inferring it.
  std::vector<char> src(128), dst(128, 0);
  for (int i = 0; i < 128; ++i) src[static_cast<size_t>(i)] = static_cast<char>(i * 3);
  ASSERT_EQ(aclrtMemcpy(dev, 128, src.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dev2, 128, dev, 128, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(static_cast<char*>(dev) + 64, 64, dev2, 64, ACL_MEMCPY_DEFAULT),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dst.data(), 128, dev, 128, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(dst[static_cast<size_t>(i)], src[static_cast<size_t>(i % 64)]) << i;
  }
  ASSERT_EQ(aclrtMemcpy(host.data(), 256, src.data(), 128, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(host.data(), src.data(), 128), 0);
  // Memset bounds.
  EXPECT_EQ(aclrtMemset(dev, 128, 0x7f, 129), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(static_cast<char*>(dev) + 384, 256, 0x7f, 129), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(host.data(), 256, 0x7f, 16), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtMemset(dev, 128, 0x7f, 128), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dst.data(), 128, dev, 128, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (char c : dst) ASSERT_EQ(c, 0x7f);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(dev2), ACL_SUCCESS);
}

TEST(Acl, AsyncCopiesAndMemsetOnStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (size_t n : {1u, 33u, 4096u, 1000003u}) {
    std::vector<unsigned char> src(n), dst(n, 0);
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
    void* dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemsetAsync(dev, n, 0, n, stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(dev, n, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE, stream),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtMemsetAsync(dev, n, 0xee, 1, stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(dst.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, stream),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    EXPECT_EQ(dst[0], 0xee);
    for (size_t i = 1; i < n; ++i) ASSERT_EQ(dst[i], src[i]) << i;
    EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtMemcpyAsync(nullptr, 4, nullptr, 4, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_ERROR_INVALID_PARAM);
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  char h[8] = {};
  EXPECT_EQ(aclrtMemcpyAsync(dev, 8, h, 8, ACL_MEMCPY_HOST_TO_DEVICE,
                             reinterpret_cast<aclrtStream>(0x77)),
            ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(Acl, OutOfMemoryNamesRequestAllocatedAndCapacity) {
  constexpr size_t kMiB = size_t{1} << 20;
  ASSERT_EQ(aclrtSetDevice(2), ACL_SUCCESS);
  // The caching allocator carves 1-10 MiB requests from 20 MiB segments and larger ones from
  // segments of their size rounded to 2 MiB, so the capacity must be several MiB.
  aicore::rt::SetDeviceMemoryCapacity(2, 24 * kMiB);
  void* a = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, 20 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);  // its own segment
  void* b = nullptr;
  EXPECT_EQ(aclrtMalloc(&b, 5 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST),  // needs a 20 MiB segment
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(b, nullptr);
  EXPECT_THAT(LastError(),
              AllOf(HasSubstr("aclrtMalloc"), HasSubstr("Device out of memory"),
                    HasSubstr("Tried to allocate 5.00 MiB"),
                    HasSubstr("Device 2 has a total capacity of 24.00 MiB"),
                    HasSubstr("of which 4.00 MiB is free"),
                    HasSubstr("20.00 MiB is allocated by the caching allocator"),
                    HasSubstr("AICORE_ALLOC_CONF")));
  // Allocated and reserved are both 20 MiB here, so free is 4 MiB either way.
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total), ACL_SUCCESS);
  EXPECT_EQ(total, 24 * kMiB);
  EXPECT_EQ(free_bytes, 4 * kMiB);
  // Other devices are unaffected.
  ASSERT_EQ(aclrtSetDevice(3), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, 5 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
  // Freeing makes room again (the block goes back to device 2's cache whatever the current
  // device): the same size gets the cached block, a bigger one releases the cache first.
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(2), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, 20 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(b, a);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, 24 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
  aicore::rt::DeviceEmptyCache(2);
  aicore::rt::DeviceEmptyCache(3);
  aicore::rt::SetDeviceMemoryCapacity(2, 0);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}

TEST(Acl, EventsThroughTheCApi) {
  aclrtStream s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s1), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&s2), ACL_SUCCESS);
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
  float ms = -1.0f;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_THAT(LastError(), HasSubstr("never recorded"));

  const uint32_t n = 2048;
  std::vector<float> host(n, 1.0f), out(n);
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dev, n * sizeof(float), host.data(), n * sizeof(float),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(start, s1), ACL_SUCCESS);
  ASSERT_EQ(ACLRT_LAUNCH_KERNEL(affine_float)(4, s1, dev, n, 3.0f, 1.0f), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, s1), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(s2, end), ACL_SUCCESS);
  ASSERT_EQ(ACLRT_LAUNCH_KERNEL(affine_float)(4, s2, dev, n, 0.5f, 0.0f), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(out.data(), n * sizeof(float), dev, n * sizeof(float),
                             ACL_MEMCPY_DEVICE_TO_HOST, s2),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s2), ACL_SUCCESS);
  for (float v : out) ASSERT_EQ(v, 2.0f);
  aclrtEventStatus status = ACL_EVENT_STATUS_NOT_READY;
  ASSERT_EQ(aclrtQueryEvent(end, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_STATUS_COMPLETE);
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, start, end), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s1), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s2), ACL_SUCCESS);
}

TEST(Acl, ContextsSelectDevices) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 1), ACL_SUCCESS);
  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 1);
  aclrtContext current = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, ctx);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_NE(current, ctx);  // device 0's default context
  EXPECT_EQ(aclrtDestroyContext(current), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtSetCurrentContext(ctx), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 1);
  EXPECT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(ctx), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtSetCurrentContext(ctx), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}

TEST(Acl, DeviceQueries) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_GE(count, 1u);
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count)), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count) - 1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}

TEST(Acl, Float16ConversionsRoundToNearestEven) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 1e-7f, 3.14159f, 70000.0f}) {
    const aclFloat16 h = aclFloatToFloat16(f);
    EXPECT_EQ(h, aicore::FloatToHalfBits(f)) << f;
    EXPECT_EQ(aclFloat16ToFloat(h), aicore::HalfBitsToFloat(h)) << f;
  }
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3c00);
  EXPECT_EQ(aclFloat16ToFloat(0xc000), -2.0f);
  // 1 + 2^-11 is halfway between 1 and the next half: ties to even gives 1.
  EXPECT_EQ(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(aclFloatToFloat16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(std::isinf(aclFloat16ToFloat(aclFloatToFloat16(70000.0f))));
  EXPECT_TRUE(std::isnan(aclFloat16ToFloat(aclFloatToFloat16(NAN))));
}

TEST(Acl, RecentErrorIsPerThread) {
  EXPECT_EQ(aclrtSetDevice(-7), ACL_ERROR_RT_INVALID_DEVICEID);
  std::string other = "unset";
  std::thread t([&] { other = aclGetRecentErrMsg(); });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_THAT(LastError(), HasSubstr("device -7"));
}

}  // namespace
