// Differential mode (Note [Differential execution]): kernels with a missing sync compute wrong
// numbers on the CPU, as they would on hardware; their correctly synchronised twins compute the
// right ones under every seed.
#include <gtest/gtest.h>

#include <vector>

#include "aicore/runtime/launch.h"
#include "aicore/sim/core.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way

constexpr uint32_t kN = 256;

class DifferentialTest : public ::testing::Test {
 protected:
  void TearDown() override { aicore::sim::SetDifferentialSeed(0); }
};

// GM -> UB then Add without waiting for MTE2: y = x + x only if the copy landed first.
std::vector<float> MissingMte2ToV(bool fixed) {
  std::vector<float> x(kN, 1.f), y(kN, 0.f);
  aicore::Status st = aicore::RunKernel("missing_mte2_v", 1, {}, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * kN * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> b = a[kN];
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(x.data(), kN);
    gy.SetGlobalBuffer(y.data(), kN);
    Duplicate(a, -1.f, kN);
    SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
    DataCopy(a, gx, kN);
    if (fixed) {
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    Add(b, a, a, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, b, kN);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return y;
}

// A tile copied out on MTE3 and overwritten by V with no MTE3 -> V wait: the copy may see the new
// values.
std::vector<float> MissingMte3ToV(bool fixed) {
  std::vector<float> y(kN, 0.f), z(kN, 0.f);
  aicore::Status st = aicore::RunKernel("missing_mte3_v", 1, {}, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> gy, gz;
    gy.SetGlobalBuffer(y.data(), kN);
    gz.SetGlobalBuffer(z.data(), kN);
    Duplicate(t, 1.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, t, kN);
    if (fixed) {
      SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
    }
    Duplicate(t, 2.f, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    DataCopy(gz, t, kN);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return y;
}

bool AllEqual(const std::vector<float>& v, float want) {
  for (float x : v) {
    if (x != want) return false;
  }
  return true;
}

TEST_F(DifferentialTest, ProgramOrderHidesTheMissingSyncs) {
  EXPECT_TRUE(AllEqual(MissingMte2ToV(false), 2.f));
  EXPECT_TRUE(AllEqual(MissingMte3ToV(false), 1.f));
}

TEST_F(DifferentialTest, MissingSyncsGiveWrongNumbersCorrectKernelsDoNot) {
  int wrong_raw = 0, wrong_war = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    aicore::sim::SetDifferentialSeed(seed);
    wrong_raw += !AllEqual(MissingMte2ToV(false), 2.f);
    wrong_war += !AllEqual(MissingMte3ToV(false), 1.f);
    EXPECT_TRUE(AllEqual(MissingMte2ToV(true), 2.f)) << "seed " << seed;
    EXPECT_TRUE(AllEqual(MissingMte3ToV(true), 1.f)) << "seed " << seed;
  }
  // Each seed may complete a transfer early (a legal schedule); most must expose the bug.
  EXPECT_GE(wrong_raw, 4);
  EXPECT_GE(wrong_war, 4);
}

TEST_F(DifferentialTest, QueuesCarryTheirSyncs) {
  // add_custom's queue pattern (EnQue/DeQue, FreeTensor/AllocTensor) is correct under every seed.
  constexpr uint32_t kTiles = 8;
  std::vector<float> x(kN * kTiles), y(kN * kTiles, 0.f);
  for (uint32_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    aicore::sim::SetDifferentialSeed(seed);
    aicore::Status st = aicore::RunKernel("queues", 1, {}, [&] {
      TPipe pipe;
      TQue<TPosition::VECIN, 2> in;
      TQue<TPosition::VECOUT, 2> out;
      pipe.InitBuffer(in, 2, kN * sizeof(float));
      pipe.InitBuffer(out, 2, kN * sizeof(float));
      GlobalTensor<float> gx, gy;
      gx.SetGlobalBuffer(x.data(), x.size());
      gy.SetGlobalBuffer(y.data(), y.size());
      for (uint32_t t = 0; t < kTiles; ++t) {
        auto a = in.AllocTensor<float>();
        DataCopy(a, gx[t * kN], kN);
        in.EnQue(a);
        auto b = in.DeQue<float>();
        auto c = out.AllocTensor<float>();
        Muls(c, b, 3.f, kN);
        out.EnQue(c);
        in.FreeTensor(b);
        auto d = out.DeQue<float>();
        DataCopy(gy[t * kN], d, kN);
        out.FreeTensor(d);
      }
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    for (uint32_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 3.f * x[i]) << "seed " << seed;
  }
}

}  // namespace
