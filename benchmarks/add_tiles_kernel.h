// The add_custom-style kernel the observer benchmarks time (double-buffered TQue pipeline, half,
// 8 blocks of 64 tiles of 4 KiB): check_bench and perf_bench measure the same work plain and
// observed.
#pragma once

#include <cstdint>

#include "kernel_operator.h"

namespace aicore::bench {

using namespace AscendC;  // NOLINT: the kernel is written as AscendC kernels are

constexpr int32_t kBlocks = 8;
constexpr int32_t kTile = 2048;       // elements per tile (4 KiB of half)
constexpr int32_t kTilesPerBlock = 64;
constexpr int32_t kBlockLength = kTile * kTilesPerBlock;
constexpr int32_t kTotal = kBlocks * kBlockLength;

void AddKernel(uint8_t* x, uint8_t* y, uint8_t* z) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> in_x, in_y;
  TQue<QuePosition::VECOUT, 2> out_z;
  pipe.InitBuffer(in_x, 2, kTile * sizeof(half));
  pipe.InitBuffer(in_y, 2, kTile * sizeof(half));
  pipe.InitBuffer(out_z, 2, kTile * sizeof(half));
  GlobalTensor<half> gm_x, gm_y, gm_z;  // (kBlockLength) each
  const int64_t base = int64_t{kBlockLength} * GetBlockIdx();
  gm_x.SetGlobalBuffer(reinterpret_cast<half*>(x) + base, kBlockLength);
  gm_y.SetGlobalBuffer(reinterpret_cast<half*>(y) + base, kBlockLength);
  gm_z.SetGlobalBuffer(reinterpret_cast<half*>(z) + base, kBlockLength);
  for (int32_t i = 0; i < kTilesPerBlock; ++i) {
    LocalTensor<half> ub_x = in_x.AllocTensor<half>();
    LocalTensor<half> ub_y = in_y.AllocTensor<half>();
    DataCopy(ub_x, gm_x[i * kTile], kTile);
    DataCopy(ub_y, gm_y[i * kTile], kTile);
    in_x.EnQue(ub_x);
    in_y.EnQue(ub_y);
    ub_x = in_x.DeQue<half>();
    ub_y = in_y.DeQue<half>();
    LocalTensor<half> ub_z = out_z.AllocTensor<half>();
    Add(ub_z, ub_x, ub_y, kTile);
    out_z.EnQue(ub_z);
    in_x.FreeTensor(ub_x);
    in_y.FreeTensor(ub_y);
    ub_z = out_z.DeQue<half>();
    DataCopy(gm_z[i * kTile], ub_z, kTile);
    out_z.FreeTensor(ub_z);
  }
}

}  // namespace aicore::bench
