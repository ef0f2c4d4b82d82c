// DataCopyPad (GM -> UB with padding, UB -> GM exact) against tests/reference/data_copy_pad_ref.h
// over block lengths that are not multiples of 32 B, strides, paddings, every element size, the
// older DataCopyParams overloads, atomic accumulation, and the extent errors.
#include "aicore/kernel/copy/data_copy_pad.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>

#include "aicore/kernel/copy/atomic.h"
#include "aicore/sim/funnel.h"
#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/data_copy_pad_ref.h"

namespace {

using aicore::testing::FromTensor;
using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class DataCopyPadTest : public ::testing::Test {};
using PadTypes =
    ::testing::Types<aicore::half, float, int8_t, int16_t, int32_t, uint8_t, aicore::bfloat16>;
TYPED_TEST_SUITE(DataCopyPadTest, PadTypes);

struct PadCase {
  uint32_t count, elems, src_gap_elems, dst_gap_blocks, left, right;
  bool is_pad;
};

template <typename T>
std::vector<PadCase> Cases() {
  const uint32_t max_pad = 32 / sizeof(T);
  return {{1, 1, 0, 0, 0, 0, false},   {1, 7, 0, 0, 0, 0, true},
          {3, 11, 0, 0, 0, 0, true},   {4, 11, 5, 1, 0, 0, false},
          {5, 33, 2, 0, 1, 2, true},   {2, 40, 0, 2, max_pad, max_pad, true},
          {7, 64, 64, 0, 0, 0, false}, {16, 3, 1, 1, 2, 0, false},
          {1, 1000, 0, 0, 0, 3, true}, {100, 9, 3, 0, 0, 0, true}};
}

TYPED_TEST(DataCopyPadTest, GmToUbMatchesReference) {
  using T = TypeParam;
  for (const PadCase& c : Cases<T>()) {
    const uint32_t len = c.elems * sizeof(T);
    const size_t gm_n = size_t{c.count} * (c.elems + c.src_gap_elems);
    std::vector<T> gm = RandomValues<T>(gm_n, c.count * 7 + c.elems, 60);
    const uint64_t row = aicore::ref::RoundUp32((c.left + c.right) * sizeof(T) + len);
    const size_t ub_n = (c.count * (row + c.dst_gap_blocks * 32)) / sizeof(T);
    std::vector<T> ub0(ub_n, static_cast<T>(9));
    const T pad = static_cast<T>(-5);
    for (int form = 0; form < 2; ++form) {
      std::vector<T> got;
      auto st = RunOnUb([&](UbArena& ub) {
        AscendC::GlobalTensor<T> g;
        g.SetGlobalBuffer(gm.data(), gm.size());
        auto u = ub.Load(ub0);
        if (form == 0) {
          AscendC::DataCopyPad(u, g,
                               AscendC::DataCopyExtParams(c.count, len, c.src_gap_elems * sizeof(T),
                                                          c.dst_gap_blocks, 0),
                               AscendC::DataCopyPadExtParams<T>(c.is_pad, c.left, c.right, pad));
        } else {
          AscendC::DataCopyPad(
              u, g,
              AscendC::DataCopyParams(c.count, len, c.src_gap_elems * sizeof(T), c.dst_gap_blocks),
              AscendC::DataCopyPadParams(c.is_pad, c.left, c.right, 0));
        }
        got = FromTensor(u, ub_n);
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto want = aicore::ref::PadGmToUb(ub0, gm, c.count, len, c.src_gap_elems * sizeof(T),
                                               c.dst_gap_blocks, c.is_pad, c.left, c.right,
                                               form == 0 ? pad : static_cast<T>(0));
      EXPECT_EQ(std::memcmp(got.data(), want.data(), ub_n * sizeof(T)), 0)
          << "form " << form << " count " << c.count << " elems " << c.elems << " left " << c.left
          << " right " << c.right;
    }
  }
}

TYPED_TEST(DataCopyPadTest, UbToGmWritesExactlyBlockLen) {
  using T = TypeParam;
  for (const PadCase& c : Cases<T>()) {
    const uint32_t len = c.elems * sizeof(T);
    const uint32_t dst_gap = c.src_gap_elems * sizeof(T);
    const size_t ub_n = c.count * (aicore::ref::RoundUp32(len) + c.dst_gap_blocks * 32) / sizeof(T);
    std::vector<T> ub_data = RandomValues<T>(ub_n, c.count + 3 * c.elems, 60);
    const size_t gm_n = size_t{c.count} * (c.elems + c.src_gap_elems) + 5;
    std::vector<T> gm0(gm_n, static_cast<T>(4));
    for (int form = 0; form < 2; ++form) {
      std::vector<T> gm = gm0;
      auto st = RunOnUb([&](UbArena& ub) {
        AscendC::GlobalTensor<T> g;
        g.SetGlobalBuffer(gm.data(), gm.size());
        auto u = ub.Load(ub_data);
        if (form == 0) {
          AscendC::DataCopyPad(
              g, u, AscendC::DataCopyExtParams(c.count, len, c.dst_gap_blocks, dst_gap, 0));
        } else {
          AscendC::DataCopyPad(g, u,
                               AscendC::DataCopyParams(c.count, len, c.dst_gap_blocks, dst_gap));
        }
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto want =
          aicore::ref::PadUbToGm(gm0, ub_data, c.count, len, c.dst_gap_blocks, dst_gap);
      EXPECT_EQ(std::memcmp(gm.data(), want.data(), gm_n * sizeof(T)), 0)
          << "form " << form << " count " << c.count << " elems " << c.elems;
    }
  }
}

TEST(DataCopyPad, UbToGmHonoursAtomicAdd) {
  std::vector<float> gm(7, 1.0f);
  auto st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Load(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    AscendC::SetAtomicAdd<float>();
    AscendC::DataCopyPad(g, u, AscendC::DataCopyExtParams(1, 7 * sizeof(float), 0, 0, 0));
    AscendC::SetAtomicNone();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(gm, (std::vector<float>{2, 3, 4, 5, 6, 7, 8}));
}

// Collects the DataCopyPad records a launch issues.
class PadRecorder : public aicore::sim::Observer {
 public:
  void OnInstr(aicore::sim::Core&, const aicore::sim::Instr& in) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (std::string(in.api) == "DataCopyPad") records.push_back(in);
  }
  std::vector<aicore::sim::Instr> records;

 private:
  std::mutex mu_;
};

TEST(DataCopyPad, RecordsMte2AndMte3WithTheirExtents) {
  PadRecorder rec;
  aicore::sim::AttachObserver(&rec);
  std::vector<aicore::half> gm(64);
  auto st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<aicore::half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Get<aicore::half>(64);
    // 3 rows of 11 halves, 2 halves apart on GM: UB rows of 32 B.
    AscendC::DataCopyPad(u, g, AscendC::DataCopyExtParams(3, 22, 4, 0, 0),
                         AscendC::DataCopyPadExtParams<aicore::half>(false, 0, 0, 0.0f));
    AscendC::DataCopyPad(g, u, AscendC::DataCopyExtParams(3, 22, 0, 4, 0));
  });
  aicore::sim::DetachObserver(&rec);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(rec.records.size(), 2u);
  const auto& in = rec.records[0];
  EXPECT_EQ(in.pipe, aicore::sim::Pipe::kMte2);
  EXPECT_EQ(in.dst.buffer, aicore::arch::Buffer::kUb);
  EXPECT_EQ(in.dst.bytes, 96u);     // 3 rows of 32 B
  EXPECT_EQ(in.src[0].bytes, 74u);  // 2 * (22 + 4) + 22
  EXPECT_EQ(in.elements, 33u);
  EXPECT_EQ(in.dst_stride.blocks, 3u);
  EXPECT_EQ(in.dst_stride.block_bytes, 32u);
  EXPECT_EQ(in.src_stride[0].stride_bytes, 26u);
  const auto& out = rec.records[1];
  EXPECT_EQ(out.pipe, aicore::sim::Pipe::kMte3);
  EXPECT_EQ(out.dst.buffer, aicore::arch::Buffer::kGm);
  EXPECT_EQ(out.dst.bytes, 74u);
  EXPECT_EQ(out.src[0].bytes, 86u);  // 2 * 32 + 22
  EXPECT_EQ(out.elements, 33u);
}

TEST(DataCopyPadErrors, GmExtent) {
  std::vector<float> gm(20);
  auto st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Get<float>(64);
    // 3 blocks of 7 floats, 0 gap: 84 bytes of an 80-byte tensor.
    AscendC::DataCopyPad(u, g, AscendC::DataCopyExtParams(3, 28, 0, 0, 0),
                         AscendC::DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("DataCopyPad"), HasSubstr("src GlobalTensor"),
                                  HasSubstr("reaches byte 84"), HasSubstr("80 bytes")));
  st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Get<float>(64);
    AscendC::DataCopyPad(g, u, AscendC::DataCopyExtParams(2, 40, 0, 4, 0));  // 84 bytes
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("dst GlobalTensor"), HasSubstr("reaches byte 84")));
}

TEST(DataCopyPadErrors, UbExtentCountsThePaddedRows) {
  std::vector<aicore::half> gm(100);
  auto st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<aicore::half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Get<aicore::half>(32);  // 64 bytes: two padded rows of 11 halves, not three
    AscendC::DataCopyPad(u, g, AscendC::DataCopyExtParams(3, 22, 0, 0, 0),
                         AscendC::DataCopyPadExtParams<aicore::half>(true, 0, 5, 0.0f));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("dst LocalTensor"), HasSubstr("reaches byte 96"),
                                  HasSubstr("64 bytes")));
}

TEST(DataCopyPadErrors, BadPaddingAndPartialElement) {
  std::vector<float> gm(100);
  auto st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Get<float>(64);
    AscendC::DataCopyPad(u, g, AscendC::DataCopyExtParams(1, 16, 0, 0, 0),
                         AscendC::DataCopyPadExtParams<float>(true, 9, 0, 0.0f));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("leftPadding 9"), HasSubstr("32 B")));
  st = RunOnUb([&](UbArena& ub) {
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    auto u = ub.Get<float>(64);
    AscendC::DataCopyPad(g, u, AscendC::DataCopyExtParams(1, 10, 0, 0, 0));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("blockLen 10 B is not a whole number of 4-byte"));
}

}  // namespace
