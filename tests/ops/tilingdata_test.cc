// The tiling-data macros (register/tilingdata_base.h): set_/get_, SaveToBuffer's layout and
// padding against hand-computed bytes, arrays, nested macro structs and TCubeTiling,
// SetDataPtr, a short buffer, copies, and the class factory.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayoutInner)
  TILING_DATA_FIELD_DEF(uint16_t, a);
  TILING_DATA_FIELD_DEF(uint32_t, b);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(LayoutTiling)
  TILING_DATA_FIELD_DEF(uint8_t, flag);
  TILING_DATA_FIELD_DEF(uint32_t, n);
  TILING_DATA_FIELD_DEF(uint16_t, h);
  TILING_DATA_FIELD_DEF(int64_t, big);
  TILING_DATA_FIELD_DEF_ARR(int16_t, 3, arr);
  TILING_DATA_FIELD_DEF(float, f);
  TILING_DATA_FIELD_DEF_STRUCT(LayoutInner, inner);
  TILING_DATA_FIELD_DEF(uint8_t, last);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayoutOp, LayoutTiling)
REGISTER_TILING_DATA_CLASS(LayoutOp_7, LayoutInner)

BEGIN_TILING_DATA_DEF(WithCube)
  TILING_DATA_FIELD_DEF(uint32_t, k);
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cube);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace {

template <typename T>
void Put(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}

optiling::LayoutTiling Filled() {
  optiling::LayoutTiling t;
  t.set_flag(0xAB);
  t.set_n(0x01020304u);
  t.set_h(0xBEEF);
  t.set_big(-5);
  const int16_t arr[3] = {7, -8, 9};
  t.set_arr(arr);
  t.set_f(1.5f);
  t.inner.set_a(0x1234);
  t.inner.set_b(0xCAFEF00Du);
  t.set_last(0x5A);
  return t;
}

TEST(TilingDataTest, LayoutAndPaddingMatchHandComputedBytes) {
  // flag@0, n@4, h@8, big@16, arr@24..29, f@32, inner@40 (8-aligned, 8 bytes: a@0, b@4),
  // last@48; the size is 49 rounded up to 8.
  optiling::LayoutTiling t = Filled();
  ASSERT_EQ(t.GetDataSize(), 56u);
  std::vector<uint8_t> want(56, 0);
  Put<uint8_t>(want, 0, 0xAB);
  Put<uint32_t>(want, 4, 0x01020304u);
  Put<uint16_t>(want, 8, 0xBEEF);
  Put<int64_t>(want, 16, -5);
  Put<int16_t>(want, 24, 7);
  Put<int16_t>(want, 26, -8);
  Put<int16_t>(want, 28, 9);
  Put<float>(want, 32, 1.5f);
  Put<uint16_t>(want, 40, 0x1234);
  Put<uint32_t>(want, 44, 0xCAFEF00Du);
  Put<uint8_t>(want, 48, 0x5A);
  std::vector<uint8_t> got(64, 0xEE);
  t.SaveToBuffer(got.data(), got.size());
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.begin() + 56), want);
  EXPECT_EQ(got[56], 0xEE) << "SaveToBuffer wrote past GetDataSize()";

  const auto& fields = t.GetFieldInfo();
  ASSERT_EQ(fields.size(), 8u);
  EXPECT_EQ(fields[3].name, "big");
  EXPECT_EQ(fields[3].offset, 16u);
  EXPECT_EQ(fields[4].kind, optiling::TilingFieldInfo::Kind::kArray);
  EXPECT_EQ(fields[4].count, 3u);
  EXPECT_EQ(fields[6].kind, optiling::TilingFieldInfo::Kind::kStruct);
  EXPECT_EQ(fields[6].offset, 40u);
  EXPECT_STREQ(t.GetTilingClassName(), "LayoutTiling");
}

TEST(TilingDataTest, GettersReadBackAndArraysPointIntoTheBuffer) {
  optiling::LayoutTiling t = Filled();
  EXPECT_EQ(t.get_flag(), 0xAB);
  EXPECT_EQ(t.get_n(), 0x01020304u);
  EXPECT_EQ(t.get_big(), -5);
  EXPECT_EQ(t.get_arr()[1], -8);
  t.get_arr()[1] = 42;
  EXPECT_EQ(t.get_arr()[1], 42);
  EXPECT_EQ(t.inner.get_b(), 0xCAFEF00Du);
  EXPECT_FLOAT_EQ(t.get_f(), 1.5f);
}

TEST(TilingDataTest, ShortBufferWritesNothing) {
  optiling::LayoutTiling t = Filled();
  std::vector<uint8_t> buf(55, 0xEE);
  t.SaveToBuffer(buf.data(), buf.size());
  EXPECT_EQ(buf, std::vector<uint8_t>(55, 0xEE));
  t.SaveToBuffer(nullptr, 1024);  // logged, no crash
}

TEST(TilingDataTest, SetDataPtrBindsExternalMemory) {
  alignas(8) uint8_t mem[56] = {};
  optiling::LayoutTiling t(mem);
  t.set_n(77);
  uint32_t n = 0;
  std::memcpy(&n, mem + 4, 4);
  EXPECT_EQ(n, 77u);
  t.SetDataPtr(nullptr);  // back to the own buffer
  EXPECT_EQ(t.get_n(), 0u);
}

TEST(TilingDataTest, CopiesAreIndependent) {
  optiling::LayoutTiling a = Filled();
  optiling::LayoutTiling b = a;
  b.set_n(1);
  b.inner.set_a(2);
  EXPECT_EQ(a.get_n(), 0x01020304u);
  EXPECT_EQ(a.inner.get_a(), 0x1234);
  std::vector<uint8_t> buf(56);
  b.SaveToBuffer(buf.data(), buf.size());
  uint16_t inner_a = 0;
  std::memcpy(&inner_a, buf.data() + 40, 2);
  EXPECT_EQ(inner_a, 2) << "a copy saves its own nested struct";
}

TEST(TilingDataTest, NestedTCubeTilingIsSavedAsTheKernelStruct) {
  optiling::WithCube t;
  t.set_k(3);
  t.cube.set_M(128);
  t.cube.set_baseN(64);
  ASSERT_EQ(t.GetDataSize(), (8 + sizeof(AscendC::tiling::TCubeTiling) + 7) / 8 * 8);
  std::vector<uint8_t> buf(t.GetDataSize());
  t.SaveToBuffer(buf.data(), buf.size());
  AscendC::tiling::TCubeTiling cube;
  std::memcpy(&cube, buf.data() + 8, sizeof(cube));
  EXPECT_EQ(cube.M, 128);
  EXPECT_EQ(cube.baseN, 64);
}

TEST(TilingDataTest, FactoryCreatesRegisteredClasses) {
  auto& f = optiling::CTilingDataClassFactory::GetInstance();
  auto t = f.CreateTilingDataInstance("LayoutOp");
  ASSERT_NE(t, nullptr);
  EXPECT_STREQ(t->GetTilingClassName(), "LayoutTiling");
  EXPECT_EQ(t->GetDataSize(), 56u);
  auto k = f.CreateTilingDataInstance("LayoutOp_7");
  ASSERT_NE(k, nullptr);
  EXPECT_STREQ(k->GetTilingClassName(), "LayoutInner");
  EXPECT_EQ(f.CreateTilingDataInstance("NoSuchOp"), nullptr);
}

}  // namespace
