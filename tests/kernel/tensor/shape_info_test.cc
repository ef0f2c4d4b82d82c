// ShapeInfo: its constructors, GetShapeSize, SetShapeInfo/GetShapeInfo on both tensor kinds, and
// the K_MAX_SHAPE_DIM limit.
#include "aicore/kernel/tensor/shape_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/kernel/ascendc/kernel_operator.h"
#include "aicore/runtime/launch.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

TEST(ShapeInfoTest, ConstructorsAndShapeSize) {
  const uint32_t shape[] = {2, 3, 4};
  const uint32_t original[] = {2, 3, 3};
  ShapeInfo nd(3, shape);
  EXPECT_EQ(nd.shapeDim, 3);
  EXPECT_EQ(nd.originalShapeDim, 3);
  EXPECT_EQ(nd.originalShape[2], 4u);
  EXPECT_EQ(nd.dataFormat, DataFormat::ND);
  EXPECT_EQ(GetShapeSize(nd), 24u);
  ShapeInfo nz(2, shape, DataFormat::NZ);
  EXPECT_EQ(nz.dataFormat, DataFormat::NZ);
  EXPECT_EQ(GetShapeSize(nz), 6u);
  ShapeInfo padded(3, shape, 3, original, DataFormat::ND);
  EXPECT_EQ(padded.originalShape[2], 3u);
  EXPECT_EQ(GetShapeSize(padded), 24u);
  EXPECT_EQ(GetShapeSize(ShapeInfo()), 1u);
  static_assert(K_MAX_SHAPE_DIM == 8);
  static_assert(static_cast<int>(DataFormat::FRACTAL_Z_3D) == 7);
}

TEST(ShapeInfoTest, TensorsCarryTheirShape) {
  std::vector<float> gm(24);
  auto st = aicore::RunKernel("shape", 1, aicore::LaunchOptions{}, [&] {
    const uint32_t shape[] = {4, 6};
    LocalMemAllocator<Hardware::UB> ub;
    auto t = ub.Alloc<float>(24);
    EXPECT_EQ(t.GetShapeInfo().shapeDim, 0);
    t.SetShapeInfo(ShapeInfo(2, shape));
    EXPECT_EQ(t[8].GetShapeInfo().shape[1], 6u);  // views keep it
    EXPECT_EQ(GetShapeSize(t.GetShapeInfo()), 24u);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    g.SetShapeInfo(ShapeInfo(2, shape, DataFormat::NZ));
    EXPECT_EQ(g.GetShapeInfo().dataFormat, DataFormat::NZ);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(ShapeInfoTest, MoreDimensionsThanTheLimitIsAnError) {
  auto st = aicore::RunKernel("shape", 1, aicore::LaunchOptions{}, [&] {
    const uint32_t shape[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    ShapeInfo s(9, shape);
  });
  EXPECT_THAT(st.message(), HasSubstr("ShapeInfo: dim 9 exceeds K_MAX_SHAPE_DIM (8)"));
}

}  // namespace
