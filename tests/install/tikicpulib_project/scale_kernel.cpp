// z = 3 * x over 8 blocks of 1000 floats, through a double-buffered queue with a 104-element tail.
#include "kernel_operator.h"

constexpr int32_t kBlockLength = 1000;
constexpr int32_t kTile = 128;

class KernelScale {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z) {
    x_gm_.SetGlobalBuffer((__gm__ float*)x + kBlockLength * AscendC::GetBlockIdx(), kBlockLength);
    z_gm_.SetGlobalBuffer((__gm__ float*)z + kBlockLength * AscendC::GetBlockIdx(), kBlockLength);
    pipe_.InitBuffer(in_, 2, kTile * sizeof(float));
    pipe_.InitBuffer(out_, 2, kTile * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (int32_t offset = 0; offset < kBlockLength; offset += kTile) {
      const int32_t n = offset + kTile <= kBlockLength ? kTile : kBlockLength - offset;
      AscendC::LocalTensor<float> ub_x = in_.AllocTensor<float>();
      AscendC::DataCopy(ub_x, x_gm_[offset], (n + 7) / 8 * 8);
      in_.EnQue(ub_x);
      ub_x = in_.DeQue<float>();
      AscendC::LocalTensor<float> ub_z = out_.AllocTensor<float>();
      AscendC::Muls(ub_z, ub_x, 3.0f, n);
      out_.EnQue(ub_z);
      in_.FreeTensor(ub_x);
      ub_z = out_.DeQue<float>();
      AscendC::DataCopy(z_gm_[offset], ub_z, (n + 7) / 8 * 8);
      out_.FreeTensor(ub_z);
    }
  }

 private:
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> in_;
  AscendC::TQue<AscendC::TPosition::VECOUT, 2> out_;
  AscendC::GlobalTensor<float> x_gm_, z_gm_;
};

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR z) {
  KernelScale op;
  op.Init(x, z);
  op.Process();
}
