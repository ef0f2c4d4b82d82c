// A mix kernel on a split chip (Ascend 910B): C = LeakyRelu(A * B). Each AI Core is a group of
// one AIC and two AIVs running the same kernel function. The AIC multiplies 128 x 128 blocks of
// C with the cube and writes each through Fixpipe to a GM workspace slot, then tells its AIVs
// (CrossCoreSetFlag mode 2); each AIV waits for the block, applies LeakyRelu to its half of the
// rows (GetSubBlockIdx) in UB and writes them to C, then hands the slot back (both AIVs set ->
// the AIC's counter goes up by one). Two workspace slots per group let the cube fill one block
// while the vectors drain the other.
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t kBase = 128;       // C block edge (baseM = baseN)
constexpr int32_t kBaseK = 64;       // K per Mmad
constexpr int32_t kFrac = 16;        // fractal edge for half
constexpr int32_t kSlots = 2;        // workspace blocks per group
constexpr uint16_t kBlockReady = 1;  // AIC -> AIVs: a block is in its slot
constexpr uint16_t kSlotFree = 2;    // AIVs -> AIC: a slot may be overwritten
constexpr float kAlpha = 0.125f;     // LeakyRelu slope
}  // namespace

struct MixShape {
  uint32_t m, n, k;
  uint32_t TilesN() const { return (n + kBase - 1) / kBase; }
  uint32_t Tiles() const { return (m + kBase - 1) / kBase * TilesN(); }
  uint32_t Rows(uint32_t t) const {
    return m - t / TilesN() * kBase < kBase ? m - t / TilesN() * kBase : kBase;
  }
  uint32_t Cols(uint32_t t) const {
    return n - t % TilesN() * kBase < kBase ? n - t % TilesN() * kBase : kBase;
  }
};

// The cube side: one 128 x 128 block at a time, K in steps of 64, single-buffered.
class CubeSide {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR ws, const MixShape& s) {
    s_ = s;
    aGm_.SetGlobalBuffer((__gm__ half*)a, s.m * s.k);
    bGm_.SetGlobalBuffer((__gm__ half*)b, s.k * s.n);
    wsGm_.SetGlobalBuffer((__gm__ float*)ws + GetBlockIdx() * kSlots * kBase * kBase,
                          kSlots * kBase * kBase);
    pipe_.InitBuffer(qA1_, 1, kBase * kBaseK * sizeof(half));
    pipe_.InitBuffer(qB1_, 1, kBaseK * kBase * sizeof(half));
    pipe_.InitBuffer(qA2_, 1, kBase * kBaseK * sizeof(half));
    pipe_.InitBuffer(qB2_, 1, kBaseK * kBase * sizeof(half));
    pipe_.InitBuffer(qCO1_, 1, kBase * kBase * sizeof(float));
  }

  __aicore__ inline void Process() {
    uint32_t i = 0;
    for (uint32_t t = GetBlockIdx(); t < s_.Tiles(); t += GetBlockNum(), ++i) {
      if (i >= kSlots) CrossCoreWaitFlag<2, PIPE_FIX>(kSlotFree);  // the AIVs released slot i % 2
      const uint32_t rows = s_.Rows(t), cols = s_.Cols(t);
      const uint32_t mo = t / s_.TilesN() * kBase, no = t % s_.TilesN() * kBase;
      LocalTensor<float> c1 = qCO1_.AllocTensor<float>();
      for (uint32_t ko = 0; ko < s_.k; ko += kBaseK) {
        CopyIn(mo, no, ko, rows, cols);
        Split(rows, cols);
        LocalTensor<half> a2 = qA2_.DeQue<half>();
        LocalTensor<half> b2 = qB2_.DeQue<half>();
        MmadParams p;
        p.m = rows;
        p.n = cols;
        p.k = kBaseK;
        p.cmatrixInitVal = ko == 0;
        Mmad(c1, a2, b2, p);
        qA2_.FreeTensor(a2);
        qB2_.FreeTensor(b2);
      }
      qCO1_.EnQue(c1);
      c1 = qCO1_.DeQue<float>();
      FixpipeParamsV220 f;
      f.nSize = cols;
      f.mSize = rows;
      f.srcStride = (rows + kFrac - 1) / kFrac * kFrac;
      f.dstStride = kBase;  // workspace rows are 128 floats apart
      Fixpipe<float, float, CFG_ROW_MAJOR>(wsGm_[(i % kSlots) * kBase * kBase], c1, f);
      qCO1_.FreeTensor(c1);
      CrossCoreSetFlag<2, PIPE_FIX>(kBlockReady);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t mo, uint32_t no, uint32_t ko, uint32_t rows,
                                uint32_t cols) {
    LocalTensor<half> a1 = qA1_.AllocTensor<half>();
    LocalTensor<half> b1 = qB1_.AllocTensor<half>();
    Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = rows;
    p.dValue = kBaseK;
    p.srcDValue = s_.k;
    p.dstNzC0Stride = kBase;
    p.dstNzNStride = 1;
    DataCopy(a1, aGm_[mo * s_.k + ko], p);
    p.nValue = kBaseK;
    p.dValue = cols;
    p.srcDValue = s_.n;
    p.dstNzC0Stride = kBaseK;
    DataCopy(b1, bGm_[ko * s_.n + no], p);
    qA1_.EnQue(a1);
    qB1_.EnQue(b1);
  }

  __aicore__ inline void Split(uint32_t rows, uint32_t cols) {
    LocalTensor<half> a1 = qA1_.DeQue<half>();
    LocalTensor<half> b1 = qB1_.DeQue<half>();
    LocalTensor<half> a2 = qA2_.AllocTensor<half>();
    LocalTensor<half> b2 = qB2_.AllocTensor<half>();
    constexpr int32_t k1 = kBaseK / kFrac;
    const int32_t m1 = (rows + kFrac - 1) / kFrac, n1 = (cols + kFrac - 1) / kFrac;
    for (int32_t i = 0; i < m1; ++i) {
      LoadData2DParams p;
      p.startIndex = i;
      p.repeatTimes = k1;
      p.srcStride = kBase / kFrac;
      LoadData(a2[i * k1 * kFrac * kFrac], a1, p);
    }
    for (int32_t i = 0; i < k1; ++i) {
      LoadData2DParams p;
      p.startIndex = i;
      p.repeatTimes = n1;
      p.srcStride = k1;
      p.ifTranspose = true;
      LoadData(b2[i * n1 * kFrac * kFrac], b1, p);
    }
    qA2_.EnQue(a2);
    qB2_.EnQue(b2);
    qA1_.FreeTensor(a1);
    qB1_.FreeTensor(b1);
  }

  MixShape s_{};
  TPipe pipe_;
  TQue<QuePosition::A1, 1> qA1_;
  TQue<QuePosition::B1, 1> qB1_;
  TQue<QuePosition::A2, 1> qA2_;
  TQue<QuePosition::B2, 1> qB2_;
  TQue<QuePosition::CO1, 1> qCO1_;
  GlobalTensor<half> aGm_, bGm_;
  GlobalTensor<float> wsGm_;
};

// The vector side: this AIV's half of each block's rows, workspace -> UB -> LeakyRelu -> C.
class VectorSide {
 public:
  __aicore__ inline void Init(GM_ADDR ws, GM_ADDR c, const MixShape& s) {
    s_ = s;
    const int64_t group = GetBlockIdx() / 2;
    wsGm_.SetGlobalBuffer((__gm__ float*)ws + group * kSlots * kBase * kBase,
                          kSlots * kBase * kBase);
    cGm_.SetGlobalBuffer((__gm__ float*)c, s.m * s.n);
    pipe_.InitBuffer(qIn_, 1, kBase / 2 * kBase * sizeof(float));
    pipe_.InitBuffer(qOut_, 1, kBase / 2 * kBase * sizeof(float));
  }

  __aicore__ inline void Process() {
    const uint32_t groups = GetBlockNum() / 2;
    uint32_t i = 0;
    for (uint32_t t = GetBlockIdx() / 2; t < s_.Tiles(); t += groups, ++i) {
      CrossCoreWaitFlag<2, PIPE_MTE2>(kBlockReady);
      const uint32_t rows = s_.Rows(t), cols = s_.Cols(t);
      const uint32_t first = GetSubBlockIdx() * (kBase / 2);  // this AIV's rows of the block
      const uint32_t mine =
          rows > first ? (rows - first < kBase / 2 ? rows - first : kBase / 2) : 0;
      if (mine > 0) {
        LocalTensor<float> in = qIn_.AllocTensor<float>();
        DataCopy(in, wsGm_[(i % kSlots) * kBase * kBase + first * kBase], mine * kBase);
        qIn_.EnQue(in);
        in = qIn_.DeQue<float>();
        LocalTensor<float> out = qOut_.AllocTensor<float>();
        LeakyRelu(out, in, kAlpha, mine * kBase);
        qOut_.EnQue(out);
        qIn_.FreeTensor(in);
        out = qOut_.DeQue<float>();
        // Rows of `cols` floats: UB rows are 128 floats apart, C rows n apart.
        const uint32_t row_bytes = cols * sizeof(float);
        DataCopyExtParams p(mine, row_bytes,
                            (kBase * sizeof(float) - (row_bytes + 31) / 32 * 32) / 32,
                            (s_.n - cols) * sizeof(float), 0);
        const uint32_t mo = t / s_.TilesN() * kBase + first, no = t % s_.TilesN() * kBase;
        DataCopyPad(cGm_[mo * s_.n + no], out, p);
        qOut_.FreeTensor(out);
      }
      CrossCoreSetFlag<2, PIPE_MTE3>(kSlotFree);
    }
  }

 private:
  MixShape s_{};
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> qIn_;
  TQue<QuePosition::VECOUT, 1> qOut_;
  GlobalTensor<float> wsGm_, cGm_;
};

extern "C" __global__ __aicore__ void matmul_leakyrelu_mix(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                           GM_ADDR workspace, uint32_t m,
                                                           uint32_t n, uint32_t k) {
  const MixShape s{m, n, k};
  if ASCEND_IS_AIC {
    CubeSide op;
    op.Init(a, b, workspace, s);
    op.Process();
  } else {
    VectorSide op;
    op.Init(workspace, c, s);
    op.Process();
  }
}

// ---- host side ----
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tikicpulib.h"

int main(int argc, char** argv) {
  // Any M and N; K a multiple of 64.
  const uint32_t m = argc > 3 ? std::atoi(argv[1]) : 520;
  const uint32_t n = argc > 3 ? std::atoi(argv[2]) : 390;
  const uint32_t k = argc > 3 ? std::atoi(argv[3]) : 256;
  const uint32_t groups = argc > 4 ? std::atoi(argv[4]) : 8;  // AI Cores: 1 AIC + 2 AIV each
  if (m == 0 || n == 0 || k % kBaseK) {
    std::fprintf(stderr, "matmul_leakyrelu_mix: K must be a multiple of 64\n");
    return 2;
  }
  auto* a = static_cast<half*>(AscendC::GmAlloc(size_t{m} * k * sizeof(half)));
  auto* b = static_cast<half*>(AscendC::GmAlloc(size_t{k} * n * sizeof(half)));
  auto* c = static_cast<float*>(AscendC::GmAlloc(size_t{m} * n * sizeof(float)));
  auto* ws = static_cast<float*>(
      AscendC::GmAlloc(size_t{groups} * kSlots * kBase * kBase * sizeof(float)));
  // Quarter-integers: products and sums are exact in float, and so is the slope 1/8.
  for (size_t i = 0; i < size_t{m} * k; ++i) a[i] = half(0.25f * int((i * 7) % 17) - 2.0f);
  for (size_t i = 0; i < size_t{k} * n; ++i) b[i] = half(0.25f * int((i * 5) % 13) - 1.5f);
  AscendC::SetKernelMode(KernelMode::MIX_MODE);
  const auto t0 = std::chrono::steady_clock::now();
  ICPU_RUN_KF(matmul_leakyrelu_mix, groups, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, (uint8_t*)ws, m,
              n, k);
  const auto t1 = std::chrono::steady_clock::now();
  size_t bad = 0;
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      double acc = 0;
      for (uint32_t p = 0; p < k; ++p) acc += double(float(a[i * k + p])) * float(b[p * n + j]);
      const float want = acc >= 0 ? float(acc) : float(acc) * kAlpha;
      if (c[size_t{i} * n + j] != want && bad++ == 0) {
        std::printf("first mismatch: C[%u][%u] = %g, want %g\n", i, j, c[size_t{i} * n + j], want);
      }
    }
  }
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  std::printf(
      "matmul_leakyrelu_mix: groups=%u (AIC+2 AIV) shape=%ux%ux%u check=%s "
      "host_time=%.3f ms host_gflops=%.2f\n",
      groups, m, n, k, bad == 0 ? "pass" : "FAIL", ms, 2.0 * m * n * k / (ms * 1e6));
  AscendC::GmFree(a);
  AscendC::GmFree(b);
  AscendC::GmFree(c);
  AscendC::GmFree(ws);
  return bad == 0 ? 0 : 1;
}
