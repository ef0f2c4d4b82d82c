// Fixpipe L0C -> UB (Note [L0C to UB] in aicore/sim/core.h): on ascend950 (arch 3510, the
// fixpipe_to_ub capability) the AIC of a 1:1 mix launch writes its AIV's UB, NZ -> ND over tails
// with a row pitch and with F322F16; the record is a FIX write to that UB, timed at the preset's
// L0C -> UB rate; the sanitizer orders it by the cross-core flags and reports the AIV's read
// without its wait; the errors: on arch 2201 (no such path), from a 1:2 group (dual destination
// not modelled) and another API using the AIC's view of the UB.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "aicore/check/sanitizer.h"
#include "aicore/perf/model.h"
#include "aicore/perf/recorder.h"
#include "aicore/sim/scheduler.h"
#include "tests/kernel/cube/cube_test_util.h"

namespace {

using aicore::testing::Carve;
using aicore::testing::Fill;
using aicore::testing::InstrLog;
using aicore::testing::Read;
using AscendC::TPosition;
using ::testing::HasSubstr;

constexpr uint32_t kM = 20, kN = 40;   // a tile with M and N tails
constexpr uint32_t kSrcStride = 32;    // ceil(20/16)*16 fractal rows per column
constexpr uint32_t kPitch = 48;        // ND row pitch in UB, above N
constexpr uint32_t kL0cElems = 3 * kSrcStride * 16;
constexpr uint32_t kUbElems = kM * kPitch;
constexpr uint16_t kReady = 1, kFree = 2;

const aicore::arch::Chip& Ascend950() {
  static const aicore::arch::Chip chip = aicore::arch::LoadChip("ascend950");
  return chip;
}
const aicore::arch::Chip& Ascend910b1() {
  static const aicore::arch::Chip chip = aicore::arch::LoadChip("ascend910b1");
  return chip;
}

aicore::LaunchOptions Mix(const aicore::arch::Chip& chip, bool one_to_one = true) {
  aicore::LaunchOptions o;
  o.mode = one_to_one ? aicore::KernelMode::kMix1To1 : aicore::KernelMode::kMix;
  o.chip = &chip;
  return o;
}

std::vector<float> L0cValues(uint32_t group) {
  std::vector<float> v(kL0cElems);
  for (uint32_t i = 0; i < kL0cElems; ++i) v[i] = static_cast<float>(i % 97) * 0.5f - 20.0f + group;
  return v;
}

// L0C element (m, n) of Note [Fixpipe layouts].
float At(const std::vector<float>& l0c, uint32_t m, uint32_t n) {
  return l0c[(n / 16) * kSrcStride * 16 + m * 16 + n % 16];
}

AscendC::FixpipeParamsV220 Params(QuantMode_t q) {
  AscendC::FixpipeParamsV220 p;
  p.nSize = kN;
  p.mSize = kM;
  p.srcStride = kSrcStride;
  p.dstStride = kPitch;
  p.quantPre = q;
  return p;
}

// The AIC's side: fills L0C (test-side) and Fixpipes it into the AIV's UB slot at offset 0.
template <typename D>
void CubeSide(QuantMode_t q, bool signal) {
  using namespace AscendC;
  TPipe pipe;
  TBuf<TPosition::VECCALC> slot;  // the AIV's UB, offset 0
  TBuf<TPosition::CO1> acc;
  const LocalTensor<D> ub = Carve<D>(pipe, slot, kUbElems);
  const LocalTensor<float> l0c = Carve<float>(pipe, acc, kL0cElems);
  Fill(l0c, L0cValues(static_cast<uint32_t>(GetBlockIdx())));
  Fixpipe<D, float, CFG_ROW_MAJOR>(ub, l0c, Params(q));
  if (signal) CrossCoreSetFlag<2, PIPE_FIX>(kReady);
}

TEST(FixpipeToUb, LandsInThePairedAivsUbAtTheTensorsOffset) {
  std::vector<std::vector<float>> got(3);
  std::vector<std::vector<aicore::half>> got16(3);
  InstrLog log;
  const aicore::Status s = aicore::RunKernel("fixpipe_ub", 3, Mix(Ascend950()), [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      CubeSide<float>(NoQuant, true);
      CrossCoreWaitFlag<2, PIPE_FIX>(kFree);
      CubeSide<half>(F322F16, true);
    } else {
      TPipe pipe;
      TBuf<TPosition::VECCALC> slot;
      const LocalTensor<float> ub = Carve<float>(pipe, slot, kUbElems);
      CrossCoreWaitFlag<2, PIPE_V>(kReady);
      got[GetBlockIdx()] = Read(ub, kUbElems);
      CrossCoreSetFlag<2, PIPE_V>(kFree);
      CrossCoreWaitFlag<2, PIPE_V>(kReady);
      got16[GetBlockIdx()] = Read(ub.ReinterpretCast<half>(), kUbElems);
    }
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (uint32_t g = 0; g < 3; ++g) {
    const std::vector<float> l0c = L0cValues(g);
    for (uint32_t m = 0; m < kM; ++m) {
      for (uint32_t n = 0; n < kN; ++n) {
        ASSERT_EQ(got[g][m * kPitch + n], At(l0c, m, n)) << "group " << g << " (" << m << ", "
                                                         << n << ")";
        ASSERT_EQ(static_cast<float>(got16[g][m * kPitch + n]),
                  static_cast<float>(aicore::half(At(l0c, m, n))))
            << "group " << g << " (" << m << ", " << n << ")";
      }
    }
  }
  const std::vector<aicore::sim::Instr> recs = log.Of("Fixpipe");
  ASSERT_EQ(recs.size(), 6u);
  for (const auto& in : recs) {
    EXPECT_EQ(in.pipe, aicore::sim::Pipe::kFix);
    EXPECT_EQ(in.dst.buffer, aicore::arch::Buffer::kUb);
    EXPECT_TRUE(in.dst_in_peer_ub);
    EXPECT_EQ(in.dst.offset, 0u);
    EXPECT_EQ(in.src[0].buffer, aicore::arch::Buffer::kL0C);
  }
}

TEST(FixpipeToUb, IsTimedAtThePresetsL0cToUbRate) {
  const aicore::perf::CostModel model(Ascend950());
  const double fix_ub = Ascend950().pipes["fix_ub_bytes_per_cycle"].get<double>();
  const double fix_gm = Ascend950().pipes["fix_bytes_per_cycle"].get<double>();
  const double head = Ascend950().pipes["fix_head_cycles"].get<double>();
  ASSERT_EQ(fix_ub, 128);
  aicore::perf::Record r;
  r.op = aicore::perf::Op::kCopy;
  r.pipe = aicore::sim::Pipe::kFix;
  r.src = aicore::arch::Buffer::kL0C;
  r.dst = aicore::arch::Buffer::kUb;
  r.bytes = 65536;
  EXPECT_DOUBLE_EQ(model.Cost(r, 1e9, 0, 0), head + 65536 / fix_ub);
  r.dst = aicore::arch::Buffer::kGm;
  EXPECT_DOUBLE_EQ(model.Cost(r, 1e9, 0, 0), head + 65536 / fix_gm);
}

TEST(FixpipeToUb, IsAnErrorOnArch2201NamingTheChipAndItsPaths) {
  const aicore::Status s = aicore::RunKernel("fixpipe_ub_2201", 1, Mix(Ascend910b1()), [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      TPipe pipe;
      TBuf<TPosition::A1> l1;
      TBuf<TPosition::CO1> acc;
      const LocalTensor<float> l1_t = Carve<float>(pipe, l1, kUbElems);
      const LocalTensor<float> l0c = Carve<float>(pipe, acc, kL0cElems);
      // The AIC of a 2201 chip has no UB: a VECIN tensor is what a kernel written for 3510
      // would hand Fixpipe.
      const LocalTensor<float> ub(l1_t.data(), kUbElems, TPosition::VECIN);
      Fixpipe<float, float, CFG_ROW_MAJOR>(ub, l0c, Params(NoQuant));
    }
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("Fixpipe: dst is a VECIN tensor in UB"));
  EXPECT_THAT(s.message(), HasSubstr("ascend910b1 (NPU arch 2201) has no L0C -> UB path"));
  EXPECT_THAT(s.message(), HasSubstr("GM (GlobalTensor) or L1 (A1, B1, C1, TSCM)"));
  EXPECT_THAT(s.message(), HasSubstr("fixpipe_to_ub capability (ascend950, arch 3510)"));
  EXPECT_THAT(s.message(), HasSubstr("fixpipe_ub_test.cc"));
}

TEST(FixpipeToUb, NeedsAOneToOneGroup) {
  const aicore::Status s = aicore::RunKernel("fixpipe_ub_1to2", 1, Mix(Ascend950(), false), [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      TPipe pipe;
      TBuf<TPosition::A1> l1;
      TBuf<TPosition::CO1> acc;
      const LocalTensor<float> l1_t = Carve<float>(pipe, l1, kUbElems);
      const LocalTensor<float> l0c = Carve<float>(pipe, acc, kL0cElems);
      const LocalTensor<float> ub(l1_t.data(), kUbElems, TPosition::VECCALC);
      Fixpipe<float, float, CFG_ROW_MAJOR>(ub, l0c, Params(NoQuant));
    }
  });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("AIC 0"));
  EXPECT_THAT(s.message(), HasSubstr("1:1 mix launch (KernelMode::kMix1To1"));
  EXPECT_THAT(s.message(), HasSubstr("dual-destination mode"));
}

TEST(FixpipeToUb, OtherApisMayNotUseTheAicsViewOfTheUb) {
  const aicore::Status s = aicore::RunKernel("fixpipe_ub_dup", 1, Mix(Ascend950()), [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      TPipe pipe;
      TBuf<TPosition::VECCALC> slot;
      const LocalTensor<float> ub = Carve<float>(pipe, slot, 64);
      Duplicate(ub, 0.0f, 64);
    }
  });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("Duplicate: dst is a UB tensor on AIC 0, which has no UB"));
  EXPECT_THAT(s.message(), HasSubstr("only Fixpipe (L0C -> UB)"));
}

// The AIC's Fixpipe of the test tile into `dst_at(ub, l1)`, a VECCALC tensor the AIC builds from
// its view of the AIV's UB (`ub`, the whole UB from offset 0) or from an A1 tensor at L1 offset 0.
template <typename MakeDst>
aicore::Status FixpipeInto(const char* kernel, MakeDst dst_at) {
  return aicore::RunKernel(kernel, 1, Mix(Ascend950()), [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      TPipe pipe;
      TBuf<TPosition::VECCALC> slot;
      TBuf<TPosition::CO1> acc;
      TBuf<TPosition::A1> l1;
      const uint32_t ub_elems =
          static_cast<uint32_t>(Ascend950().spec(aicore::arch::Buffer::kUb).bytes / 4);
      const LocalTensor<float> ub = Carve<float>(pipe, slot, ub_elems);
      const LocalTensor<float> l0c = Carve<float>(pipe, acc, kL0cElems);
      const LocalTensor<float> l1_t = Carve<float>(pipe, l1, kUbElems);
      Fixpipe<float, float, CFG_ROW_MAJOR>(dst_at(ub, l1_t), l0c, Params(NoQuant));
    }
  });
}

constexpr uint64_t kUbBytes = 262144;                          // ascend950's UB
constexpr uint64_t kTileBytes = ((kM - 1) * kPitch + kN) * 4;  // what Params() writes

// A dst `before_end` bytes before the UB's end that claims the tile's size (kUbElems).
auto PastTheEnd(uint64_t before_end) {
  return [before_end](const auto& ub, const auto& /*l1*/) {
    return AscendC::LocalTensor<float>(ub.data() + (kUbBytes - before_end) / 4, kUbElems,
                                       TPosition::VECCALC);
  };
}

TEST(FixpipeToUb, ADstRunningPastTheUbsEndIsAnErrorNamingTheRange) {
  ASSERT_EQ(Ascend950().spec(aicore::arch::Buffer::kUb).bytes, kUbBytes);
  const aicore::Status s = FixpipeInto("fixpipe_ub_past_end", PastTheEnd(1024));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("fixpipe_ub_past_end"));
  EXPECT_THAT(s.message(), HasSubstr("AIC 0"));
  EXPECT_THAT(s.message(), HasSubstr("Fixpipe: dst: the copy writes UB bytes [261120, " +
                                     std::to_string(261120 + kTileBytes) +
                                     ") but the paired AIV's UB is [0, 262144) on ascend950"));
  EXPECT_THAT(s.message(), HasSubstr("at most 1024 B fit there"));
  EXPECT_THAT(s.message(), HasSubstr("fixpipe_ub_test.cc"));
}

TEST(FixpipeToUb, ADstOutsideTheUbIsAnErrorNotAWriteElsewhere) {
  const aicore::Status s = FixpipeInto("fixpipe_ub_in_l1", [](const auto& /*ub*/, const auto& l1) {
    // A VECCALC tensor over L1 memory: no byte of L1 may be written as if it were UB.
    return AscendC::LocalTensor<float>(l1.data(), kUbElems, TPosition::VECCALC);
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("Fixpipe: dst (a UB tensor) starts at L1 offset 0, not in "
                                     "the paired AIV's UB: allowed dst offsets are [0, 262144)"));
}

TEST(FixpipeToUb, ADstSmallerThanTheTileIsAnError) {
  const aicore::Status s = FixpipeInto("fixpipe_ub_small", [](const auto& ub, const auto& /*l1*/) {
    return ub[static_cast<uint32_t>(kUbBytes / 4 - 64)];  // the UB's last 64 floats
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("Fixpipe: dst LocalTensor: the copy reaches byte " +
                                     std::to_string(kTileBytes) +
                                     " but the tensor holds 64 elements (256 bytes)"));
}

// Planted races are real host data races across threads; run the fibers on one worker.
class OneWorkerThread {
 public:
  OneWorkerThread() { aicore::sim::SetWorkerThreads(1); }
  ~OneWorkerThread() { aicore::sim::SetWorkerThreads(0); }
  OneWorkerThread(const OneWorkerThread&) = delete;
  OneWorkerThread& operator=(const OneWorkerThread&) = delete;
};

// Runs the AIC's Fixpipe and the AIV's read of the slot under the sanitizer (racecheck and
// memcheck; L0C is filled test-side, so initcheck would see it unwritten); `wait`: the AIV waits
// for the AIC's flag before it reads.
std::vector<aicore::check::Report> Sanitized(bool wait) {
  const OneWorkerThread one;
  aicore::check::SanitizerOptions so;
  so.tools = aicore::check::kRacecheck | aicore::check::kMemcheck | aicore::check::kSynccheck;
  aicore::check::Sanitizer sanitizer(so);
  std::vector<float> gm(kUbElems);
  const aicore::Status s = aicore::RunKernel("fixpipe_ub_check", 2, Mix(Ascend950()), [&] {
    using namespace AscendC;
    if ASCEND_IS_AIC {
      CubeSide<float>(NoQuant, wait);
    } else {
      TPipe pipe;
      TBuf<TPosition::VECCALC> slot;
      TBuf<TPosition::VECCALC> copy;
      const LocalTensor<float> ub = Carve<float>(pipe, slot, kUbElems);
      const LocalTensor<float> out = Carve<float>(pipe, copy, kUbElems);
      if (wait) CrossCoreWaitFlag<2, PIPE_V>(kReady);
      Adds(out, ub, 1.0f, kUbElems);
    }
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return sanitizer.reports();
}

TEST(FixpipeToUb, TheSanitizerOrdersItByTheCrossCoreFlags) {
  const std::vector<aicore::check::Report> clean = Sanitized(true);
  std::string text;
  for (const auto& r : clean) text += r.ToString() + "\n";
  EXPECT_TRUE(clean.empty()) << text;
  const std::vector<aicore::check::Report> racy = Sanitized(false);
  ASSERT_FALSE(racy.empty());
  for (const auto& r : racy) {
    EXPECT_EQ(r.kind, aicore::check::DefectKind::kCrossCoreRace) << r.ToString();
    EXPECT_EQ(r.buffer, aicore::arch::Buffer::kUb) << r.ToString();
    ASSERT_TRUE(r.has_prev);
    EXPECT_TRUE((r.site.api == "Fixpipe" && r.prev.api == "Adds") ||
                (r.site.api == "Adds" && r.prev.api == "Fixpipe"))
        << r.ToString();
    EXPECT_LT(r.begin, r.end);
    EXPECT_LE(r.end, uint64_t{kUbElems} * 4) << r.ToString();
  }
}

TEST(FixpipeToUb, ADstPastTheUbsEndIsTheSameErrorUnderTheSanitizer) {
  const OneWorkerThread one;
  aicore::check::Sanitizer sanitizer;  // every tool, as `aicore check` runs
  const aicore::Status s = FixpipeInto("fixpipe_ub_past_end_check", PastTheEnd(512));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("fixpipe_ub_past_end_check"));
  EXPECT_THAT(s.message(), HasSubstr("Fixpipe: dst: the copy writes UB bytes [261632, "));
  EXPECT_THAT(s.message(), HasSubstr("[0, 262144)"));
}

}  // namespace
