// Small AscendC kernels the runtime tests launch: a vector add (TQue pipeline, half), an affine
// update of float GM by scalar accesses, and a kernel that reads past its tensor.
#pragma once

#include "kernel_operator.h"

namespace runtime_test {

using namespace AscendC;

inline constexpr int32_t kAddTile = 256;  // elements per tile; totals are multiples of it

// z = x + y over `total` half elements split evenly over the blocks (total % (blocks * 256) == 0).
extern "C" __global__ __aicore__ inline void add_half(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                      uint32_t total) {
  const uint32_t per_block = total / GetBlockNum();
  GlobalTensor<half> gm_x;  // (per_block,)
  GlobalTensor<half> gm_y;
  GlobalTensor<half> gm_z;
  gm_x.SetGlobalBuffer((__gm__ half*)x + per_block * GetBlockIdx(), per_block);
  gm_y.SetGlobalBuffer((__gm__ half*)y + per_block * GetBlockIdx(), per_block);
  gm_z.SetGlobalBuffer((__gm__ half*)z + per_block * GetBlockIdx(), per_block);
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> que_x;
  TQue<QuePosition::VECIN, 2> que_y;
  TQue<QuePosition::VECOUT, 2> que_z;
  pipe.InitBuffer(que_x, 2, kAddTile * sizeof(half));
  pipe.InitBuffer(que_y, 2, kAddTile * sizeof(half));
  pipe.InitBuffer(que_z, 2, kAddTile * sizeof(half));
  for (uint32_t t = 0; t < per_block / kAddTile; ++t) {
    LocalTensor<half> ub_x = que_x.AllocTensor<half>();  // (256,)
    LocalTensor<half> ub_y = que_y.AllocTensor<half>();
    DataCopy(ub_x, gm_x[t * kAddTile], kAddTile);
    DataCopy(ub_y, gm_y[t * kAddTile], kAddTile);
    que_x.EnQue(ub_x);
    que_y.EnQue(ub_y);
    ub_x = que_x.DeQue<half>();
    ub_y = que_y.DeQue<half>();
    LocalTensor<half> ub_z = que_z.AllocTensor<half>();
    Add(ub_z, ub_x, ub_y, kAddTile);
    que_z.EnQue(ub_z);
    que_x.FreeTensor(ub_x);
    que_y.FreeTensor(ub_y);
    ub_z = que_z.DeQue<half>();
    DataCopy(gm_z[t * kAddTile], ub_z, kAddTile);
    que_z.FreeTensor(ub_z);
  }
}

// x[i] = x[i] * mul + add for i < n, elements dealt round-robin to the blocks.
extern "C" __global__ __aicore__ inline void affine_float(GM_ADDR x, uint32_t n, float mul,
                                                          float add) {
  GlobalTensor<float> gm_x;  // (n,)
  gm_x.SetGlobalBuffer((__gm__ float*)x, n);
  for (uint32_t i = GetBlockIdx(); i < n; i += GetBlockNum()) {
    gm_x.SetValue(i, gm_x.GetValue(i) * mul + add);
  }
}

// Reads element n of an n-element tensor: an OutOfRange kernel error.
extern "C" __global__ __aicore__ inline void read_past_end(GM_ADDR x, uint32_t n) {
  GlobalTensor<float> gm_x;  // (n,)
  gm_x.SetGlobalBuffer((__gm__ float*)x, n);
  gm_x.SetValue(0, gm_x.GetValue(n));
}

}  // namespace runtime_test
