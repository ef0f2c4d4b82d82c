// Kernels the robustness tests launch besides tests/runtime/kernels.h: one that calls the host
// runtime from kernel code, one that fails in a named API at a known line, one that spins a while,
// one that writes through a GlobalTensor set up without a size.
#pragma once

#include "acl/acl.h"
#include "kernel_operator.h"

namespace robustness {

using namespace AscendC;

// The source line of the failing GetValue in fail_at_known_line (the tests look for it).
inline constexpr int kFailLine = __LINE__ + 7;

// Reads element n of an n-element tensor on every block: OutOfRange in GetValue at kFailLine.
extern "C" __global__ __aicore__ inline void fail_at_known_line(GM_ADDR x, uint32_t n) {
  GlobalTensor<float> gm_x;  // (n,)
  gm_x.SetGlobalBuffer((__gm__ float*)x, n);
  float v = 0.0f;
  v = gm_x.GetValue(n);
  gm_x.SetValue(0, v);
}

// Calls aclrtSynchronizeStream(other) from kernel code and stores its aclError in result[0] (one
// int32), as a kernel ported from host code might.
extern "C" __global__ __aicore__ inline void sync_other_stream(GM_ADDR other, GM_ADDR result) {
  GlobalTensor<int32_t> gm_result;  // (1,)
  gm_result.SetGlobalBuffer((__gm__ int32_t*)result, 1);
  const aclError e = aclrtSynchronizeStream(reinterpret_cast<aclrtStream>(other));
  if (GetBlockIdx() == 0) gm_result.SetValue(0, static_cast<int32_t>(e));
}

// x[i] += 1 for i < n, block-strided: cheap work for the stress test.
extern "C" __global__ __aicore__ inline void increment(GM_ADDR x, uint32_t n) {
  GlobalTensor<int32_t> gm_x;  // (n,)
  gm_x.SetGlobalBuffer((__gm__ int32_t*)x, n);
  for (uint32_t i = GetBlockIdx(); i < n; i += GetBlockNum()) gm_x.SetValue(i, gm_x.GetValue(i) + 1);
}

// x[i] = 1 for i < n, block-strided, through a GlobalTensor set up without a size: the GmAlloc
// or aclrtMalloc allocation containing x bounds it (Note [GM extents]).
extern "C" __global__ __aicore__ inline void fill_unsized(GM_ADDR x, uint32_t n) {
  GlobalTensor<int32_t> gm_x;  // (n,) by the allocation
  gm_x.SetGlobalBuffer((__gm__ int32_t*)x);
  for (uint32_t i = GetBlockIdx(); i < n; i += GetBlockNum()) gm_x.SetValue(i, 1);
}

}  // namespace robustness
