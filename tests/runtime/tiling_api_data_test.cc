// The optiling:: classes of the high-level APIs' tiling structs (runtime/tiling/api_tiling_data.h)
// as fields of a host tiling-data macro class: accessors, SaveToBuffer's layout against the
// kernel struct that embeds the POD, and the whole path a .asc sample takes: host tiling function
// on the nested field -> SaveToBuffer -> kernel GET_TILING_DATA_WITH_STRUCT -> SoftMax on two
// blocks, checked against tests/reference/softmax_ref.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"
#include "tests/reference/softmax_ref.h"
#include "tikicpulib.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowSoftMaxTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock);
  TILING_DATA_FIELD_DEF(uint32_t, cols);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
  TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmax);
  TILING_DATA_FIELD_DEF(float, scale);
  TILING_DATA_FIELD_DEF_STRUCT(LayerNormGradTiling, grad);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowSoftMaxProbe, RowSoftMaxTilingData)
}  // namespace optiling

namespace {

// What the kernel declares for the same data: the POD where the host has the class.
struct RowSoftMaxKernelTiling {
  uint32_t rowsPerBlock;
  uint32_t cols;
  uint32_t tmpBytes;
  uint32_t pad;  // the host places a nested struct at a multiple of 8
  SoftMaxTiling softmax;
  float scale;
  uint32_t pad2;
  LayerNormGradTiling grad;
};

TEST(ApiTilingData, AccessorsReadAndWriteThePod) {
  optiling::SoftMaxTiling t;
  t.set_srcM(7);
  t.set_tailReduceSize(9);
  EXPECT_EQ(t.get_srcM(), 7u);
  EXPECT_EQ(t.srcM, 7u);
  EXPECT_EQ(t.get_tailReduceSize(), 9u);
  EXPECT_EQ(t.GetDataSize(), sizeof(AscendC::tiling::SoftMaxTiling));
  optiling::LayerNormTiling ln;
  ln.set_lastDimValueBack(0.25f);
  EXPECT_EQ(ln.get_lastDimValueBack(), 0.25f);
  optiling::RmsNormTiling rms;
  rms.set_reciprocalOfHLength(0.5f);
  EXPECT_EQ(rms.reciprocalOfHLength, 0.5f);
  optiling::LayerNormGradBetaTiling gb;
  gb.set_bsCurLength(3);
  EXPECT_EQ(gb.get_bsCurLength(), 3u);
  // A short buffer gets nothing.
  std::vector<uint8_t> small(8, 0xEE);
  t.SaveToBuffer(small.data(), small.size());
  EXPECT_EQ(small, std::vector<uint8_t>(8, 0xEE));
}

TEST(ApiTilingData, NestedStructsAreSavedWhereTheKernelStructReadsThem) {
  optiling::RowSoftMaxTilingData t;
  ASSERT_EQ(t.GetDataSize(), sizeof(RowSoftMaxKernelTiling));
  t.set_rowsPerBlock(5);
  t.set_scale(1.5f);
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({5, 40}), 4, 4096, t.softmax);
  AscendC::GetLayerNormGradNDTilingInfo(AscendC::TensorShape({1, 5, 48, 40}), 1 << 16, 4, false,
                                        t.grad);
  std::vector<uint8_t> buf(t.GetDataSize());
  t.SaveToBuffer(buf.data(), buf.size());
  RowSoftMaxKernelTiling k;
  std::memcpy(&k, buf.data(), sizeof(k));
  EXPECT_EQ(k.rowsPerBlock, 5u);
  EXPECT_EQ(k.scale, 1.5f);
  EXPECT_EQ(offsetof(RowSoftMaxKernelTiling, softmax), 16u);
  EXPECT_EQ(std::memcmp(&k.softmax, static_cast<const AscendC::tiling::SoftMaxTiling*>(&t.softmax),
                        sizeof(k.softmax)),
            0);
  EXPECT_EQ(k.softmax.srcM, 5u);
  EXPECT_EQ(k.softmax.srcK, 40u);
  EXPECT_EQ(k.grad.hLength, 48u);
  EXPECT_EQ(k.grad.originalHLength, 40u);
  EXPECT_EQ(k.grad.oneCalSize, 5u);
}

// Each block applies SoftMax to its rows with the tiling the host computed for one block's rows,
// then scales the result by the tiling's `scale`.
void RowSoftMaxKernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(RowSoftMaxKernelTiling, td, tiling);
  const uint32_t n = td.rowsPerBlock * td.cols;
  AscendC::GlobalTensor<float> gm_x, gm_y;
  gm_x.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + AscendC::GetBlockIdx() * n, n);
  gm_y.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + AscendC::GetBlockIdx() * n, n);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> in_q;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> out_q;
  AscendC::TBuf<AscendC::TPosition::VECCALC> stat_buf, tmp_buf;
  pipe.InitBuffer(in_q, 1, n * sizeof(float));
  pipe.InitBuffer(out_q, 1, n * sizeof(float));
  pipe.InitBuffer(stat_buf, 2 * td.rowsPerBlock * 32);
  pipe.InitBuffer(tmp_buf, td.tmpBytes);
  AscendC::LocalTensor<float> ub_x = in_q.AllocTensor<float>();  // (rows, cols)
  AscendC::DataCopy(ub_x, gm_x, n);
  in_q.EnQue(ub_x);
  ub_x = in_q.DeQue<float>();
  AscendC::LocalTensor<float> ub_y = out_q.AllocTensor<float>();  // (rows, cols)
  AscendC::LocalTensor<float> ub_sum = stat_buf.Get<float>();     // (rows, 8)
  AscendC::LocalTensor<float> ub_max = ub_sum[td.rowsPerBlock * 8];
  AscendC::SoftMaxShapeInfo shape{td.rowsPerBlock, td.cols, td.rowsPerBlock, td.cols};
  AscendC::SoftMax<float>(ub_y, ub_sum, ub_max, ub_x, tmp_buf.Get<uint8_t>(), td.softmax, shape);
  AscendC::Muls(ub_y, ub_y, td.scale, static_cast<int32_t>(n));
  in_q.FreeTensor(ub_x);
  out_q.EnQue(ub_y);
  ub_y = out_q.DeQue<float>();
  AscendC::DataCopy(gm_y, ub_y, n);
  out_q.FreeTensor(ub_y);
}

TEST(ApiTilingData, HostMacroClassToKernelGetTilingDataToSoftMax) {
  constexpr uint32_t kBlocks = 2, kRows = 12, kCols = 72;
  optiling::RowSoftMaxTilingData t;
  const AscendC::TensorShape shape({kRows, kCols});
  const uint32_t tmp = AscendC::GetSoftMaxMinTmpSize(shape, sizeof(float), false);
  t.set_rowsPerBlock(kRows);
  t.set_cols(kCols);
  t.set_tmpBytes(tmp);
  t.set_scale(2.0f);
  AscendC::SoftMaxTilingFunc(shape, sizeof(float), tmp, t.softmax);
  ASSERT_GT(t.softmax.get_splitM(), 0u);

  const size_t n = size_t{kBlocks} * kRows * kCols;
  auto* x = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
  auto* y = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(t.GetDataSize()));
  std::vector<double> xd(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(std::sin(0.37 * i) * 4.0);
  for (size_t i = 0; i < n; ++i) xd[i] = x[i];
  t.SaveToBuffer(tiling, t.GetDataSize());
  const aicore::Status st = aicore::LaunchSync("row_softmax", RowSoftMaxKernel, kBlocks,
                                               aicore::LaunchOptions{}, reinterpret_cast<GM_ADDR>(x),
                                               reinterpret_cast<GM_ADDR>(y), tiling);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto ref = aicore::ref::SoftMaxRows(xd, kBlocks * kRows, kCols, kCols);
  for (uint32_t i = 0; i < kBlocks * kRows; ++i) {
    for (uint32_t j = 0; j < kCols; ++j) {
      const double want = 2.0 * ref.exp[i * kCols + j] / ref.sum[i];
      ASSERT_NEAR(y[i * kCols + j], want, 1e-5 * (1 + want)) << i << "," << j;
    }
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(tiling);
}

}  // namespace
