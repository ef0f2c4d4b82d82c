// SoftMax inside a multi-block TQue pipeline over GM, as user kernels call it: tiles of rows with a
// tail tile (its shape differs from the tiling's, so the split is recomputed on the device), the
// tiling computed on the host, and the result against tests/reference/softmax_ref.h.
#include <gtest/gtest.h>

#include "aicore/check/sanitizer.h"
#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/ascendc/tiling/tiling_api.h"
#include "aicore/runtime/launch.h"
#include "tests/kernel/lib/lib_test_util.h"
#include "tests/reference/softmax_ref.h"

namespace {

using aicore::testing::ToDouble;
using aicore::testing::Tol;
using aicore::testing::Uniform;

struct Plan {
  uint32_t rows, cols, tile_rows, tmp_bytes;
  AscendC::SoftMaxTiling tiling;
};

// Each block takes ceil(rows / blocks) rows (the last fewer) in tiles of tile_rows.
template <typename T>
void SoftMaxRows(const Plan& p, T* gm_x, T* gm_y, T* gm_max) {
  using namespace AscendC;
  constexpr uint32_t blk = 32 / sizeof(T);
  const uint32_t per_block = (p.rows + GetBlockNum() - 1) / GetBlockNum();
  const uint32_t first = per_block * GetBlockIdx();
  if (first >= p.rows) return;
  const uint32_t mine = std::min(per_block, p.rows - first);
  GlobalTensor<T> x, y, mx;  // (mine, cols), (mine, cols), (mine, blk)
  x.SetGlobalBuffer(gm_x + uint64_t{first} * p.cols, mine * p.cols);
  y.SetGlobalBuffer(gm_y + uint64_t{first} * p.cols, mine * p.cols);
  mx.SetGlobalBuffer(gm_max + uint64_t{first} * blk, mine * blk);
  TPipe pipe;
  TQue<QuePosition::VECIN, 2> que_x;
  TQue<QuePosition::VECOUT, 2> que_y, que_max;
  TBuf<TPosition::VECCALC> tmp_buf, sum_buf;
  pipe.InitBuffer(que_x, 2, p.tile_rows * p.cols * sizeof(T));
  pipe.InitBuffer(que_y, 2, p.tile_rows * p.cols * sizeof(T));
  pipe.InitBuffer(que_max, 2, p.tile_rows * 32);
  pipe.InitBuffer(sum_buf, p.tile_rows * 32);
  pipe.InitBuffer(tmp_buf, p.tmp_bytes);
  for (uint32_t r0 = 0; r0 < mine; r0 += p.tile_rows) {
    const uint32_t r = std::min(p.tile_rows, mine - r0);
    LocalTensor<T> ub_x = que_x.AllocTensor<T>();  // (r, cols)
    DataCopy(ub_x, x[r0 * p.cols], r * p.cols);
    que_x.EnQue(ub_x);
    ub_x = que_x.DeQue<T>();
    LocalTensor<T> ub_y = que_y.AllocTensor<T>();
    LocalTensor<T> ub_max = que_max.AllocTensor<T>();  // (r, blk)
    const SoftMaxShapeInfo info = {r, p.cols, r, p.cols};
    SoftMax<T>(ub_y, sum_buf.Get<T>(), ub_max, ub_x, tmp_buf.Get<uint8_t>(), p.tiling, info);
    que_x.FreeTensor(ub_x);
    que_y.EnQue(ub_y);
    que_max.EnQue(ub_max);
    ub_y = que_y.DeQue<T>();
    ub_max = que_max.DeQue<T>();
    DataCopy(y[r0 * p.cols], ub_y, r * p.cols);
    DataCopy(mx[r0 * blk], ub_max, r * blk);
    que_y.FreeTensor(ub_y);
    que_max.FreeTensor(ub_max);
  }
}

template <typename T>
class SoftMaxPipelineTest : public ::testing::Test {};
using Types = ::testing::Types<float, half>;
TYPED_TEST_SUITE(SoftMaxPipelineTest, Types);

TYPED_TEST(SoftMaxPipelineTest, TilesWithTailsOverBlocksMatchReference) {
  using T = TypeParam;
  constexpr uint32_t blk = 32 / sizeof(T);
  struct Case { uint32_t rows, cols, tile_rows, blocks; };
  for (const Case& c : {Case{997, 96, 16, 5}, Case{61, 512, 8, 7}, Case{3, 32, 16, 4}}) {
    Plan p{c.rows, c.cols, c.tile_rows, 0, {}};
    const AscendC::TensorShape shape({c.tile_rows, c.cols});
    p.tmp_bytes = AscendC::GetSoftMaxMinTmpSize(shape, sizeof(T), false);
    AscendC::SoftMaxTilingFunc(shape, sizeof(T), p.tmp_bytes, p.tiling);
    const auto x = Uniform<T>(uint64_t{c.rows} * c.cols, c.rows, -20, 20);
    std::vector<T> y(x.size()), max(c.rows * blk);
    auto gx = x;
    const auto st = aicore::RunKernel("softmax_rows", c.blocks, aicore::LaunchOptions{},
                                      [&] { SoftMaxRows<T>(p, gx.data(), y.data(), max.data()); });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto ref = aicore::ref::SoftMaxRows(ToDouble(x), c.rows, c.cols, c.cols);
    for (uint32_t i = 0; i < c.rows; ++i) {
      ASSERT_EQ(static_cast<float>(max[i * blk]), ref.max[i]) << i;
      for (uint32_t j = 0; j < c.cols; ++j)
        ASSERT_NEAR(static_cast<float>(y[i * c.cols + j]), ref.exp[i * c.cols + j] / ref.sum[i],
                    Tol<T>())
            << "row " << i << " col " << j;
    }
  }
}

// Every instruction SoftMax issues is visible to the sanitizer, and the pipeline runs clean
// (no race, sync, bounds or uninitialised-read report) with every tool on.
TYPED_TEST(SoftMaxPipelineTest, RunsCleanUnderTheSanitizer) {
  using T = TypeParam;
  constexpr uint32_t blk = 32 / sizeof(T);
  Plan p{203, 64, 16, 0, {}};
  const AscendC::TensorShape shape({p.tile_rows, p.cols});
  p.tmp_bytes = AscendC::GetSoftMaxMinTmpSize(shape, sizeof(T), false);
  AscendC::SoftMaxTilingFunc(shape, sizeof(T), p.tmp_bytes, p.tiling);
  auto x = Uniform<T>(p.rows * p.cols, 4, -3, 3);
  std::vector<T> y(x.size()), max(p.rows * blk);
  aicore::check::SanitizerOptions options;
  options.tools = aicore::check::kAllTools;
  aicore::check::Sanitizer sanitizer(options);
  const auto st = aicore::RunKernel("softmax_rows", 3, aicore::LaunchOptions{},
                                    [&] { SoftMaxRows<T>(p, x.data(), y.data(), max.data()); });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const auto& r : sanitizer.reports()) ADD_FAILURE() << r.ToString();
}

}  // namespace
