// Kernel side of AddCustom: each core adds its slice (blockLength elements, tailLength on the
// last core) in double-buffered tiles; tiling key 1 runs the float kernel, 2 the half kernel.
#include "kernel_operator.h"

using namespace AscendC;

template <typename T>
class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength,
                              uint32_t tailLength, uint32_t tileLength) {
    const bool last = GetBlockIdx() == GetBlockNum() - 1;
    length_ = last ? tailLength : blockLength;
    tile_ = tileLength;
    const uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * blockLength;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + start, length_);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + start, length_);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(z) + start, length_);
    pipe_.InitBuffer(inX_, 2, tile_ * sizeof(T));
    pipe_.InitBuffer(inY_, 2, tile_ * sizeof(T));
    pipe_.InitBuffer(outZ_, 2, tile_ * sizeof(T));
  }
  __aicore__ inline void Process() {
    for (uint32_t done = 0; done < length_; done += tile_) {
      const uint32_t n = length_ - done < tile_ ? length_ - done : tile_;
      LocalTensor<T> x = inX_.AllocTensor<T>();
      LocalTensor<T> y = inY_.AllocTensor<T>();
      DataCopy(x, xGm_[done], n);
      DataCopy(y, yGm_[done], n);
      inX_.EnQue(x);
      inY_.EnQue(y);
      x = inX_.DeQue<T>();
      y = inY_.DeQue<T>();
      LocalTensor<T> z = outZ_.AllocTensor<T>();
      Add(z, x, y, n);
      outZ_.EnQue(z);
      inX_.FreeTensor(x);
      inY_.FreeTensor(y);
      z = outZ_.DeQue<T>();
      DataCopy(zGm_[done], z, n);
      outZ_.FreeTensor(z);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 2> inX_, inY_;
  TQue<QuePosition::VECOUT, 2> outZ_;
  GlobalTensor<T> xGm_, yGm_, zGm_;
  uint32_t length_ = 0;
  uint32_t tile_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  GET_TILING_DATA(t, tiling);
  if (TILING_KEY_IS(1)) {
    KernelAdd<float> op;
    op.Init(x, y, z, t.split.blockLength, t.split.tailLength, t.split.tileLength);
    op.Process();
  } else if (TILING_KEY_IS(2)) {
    KernelAdd<half> op;
    op.Init(x, y, z, t.split.blockLength, t.split.tailLength, t.split.tileLength);
    op.Process();
  }
}
