// Bad input to the element-wise vector APIs fails with a message naming the value given and what
// is allowed: positions outside UB, counts past the tensor, misaligned operands, masks out of
// range, strides that overrun, use after FreeTensor and dtypes an op does not define.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "tests/kernel/vector/vector_test_util.h"

namespace aicore::testing {
namespace {

using AscendC::BinaryRepeatParams;
using AscendC::TPosition;
using AscendC::UnaryRepeatParams;
using ::testing::HasSubstr;

void ExpectError(const std::function<void(UbArena&)>& body, const std::string& text,
                 const arch::Chip* chip = nullptr) {
  Status st = RunVectorKernel(
      [&] {
        AscendC::TPipe pipe;
        UbArena ub(pipe);
        body(ub);
      },
      chip);
  EXPECT_FALSE(st.ok()) << "expected an error containing: " << text;
  EXPECT_THAT(st.message(), HasSubstr(text));
}

TEST(ElementwiseErrors, VecinIsFineButL1Fails) {
  // VECIN and VECOUT tensors live in UB.
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::VECIN, 1> in;
    AscendC::TQue<TPosition::VECOUT, 1> out;
    pipe.InitBuffer(in, 1, 512);
    pipe.InitBuffer(out, 1, 512);
    auto a = in.AllocTensor<float>();
    auto d = out.AllocTensor<float>();
    AscendC::Duplicate(a, 2.0f, 128);
    AscendC::Add(d, a, a, 128);
    EXPECT_EQ(d.GetValue(127), 4.0f);
    in.FreeTensor(a);
    out.FreeTensor(d);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  // A1 is L1: on a coupled chip one core has both UB and L1.
  const arch::Chip chip = arch::LoadChip("ascend310p");
  Status l1 = RunVectorKernel(
      [] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> ub;
        AscendC::TBuf<TPosition::A1> l1;
        pipe.InitBuffer(ub, 1024);
        pipe.InitBuffer(l1, 1024);
        auto u = ub.Get<half>();
        auto a = l1.Get<half>();
        AscendC::Add(u, u, a, 256);
      },
      &chip);
  EXPECT_FALSE(l1.ok());
  EXPECT_THAT(l1.message(), HasSubstr("src1 is a A1 tensor in L1"));
  EXPECT_THAT(l1.message(), HasSubstr("vector instructions read and write UB only"));
}

TEST(ElementwiseErrors, CountPastTheTensor) {
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<half>(128), b = ub.Get<half>(256);
        AscendC::Add(b, a, b, 129);
      },
      "count 129 is outside [0, 128]");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64);
        AscendC::Exp(a, a, -1);
      },
      "count -1 is outside [0, 64]");
}

TEST(ElementwiseErrors, UnalignedOperand) {
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<half>(256);
        AscendC::Add(a, a[3], a, 64);
      },
      "src0 starts at UB offset 6, not on a 32-byte boundary");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256);
        AscendC::Muls(a[1], a, 2.0f, uint64_t{64}, 1, UnaryRepeatParams{});
      },
      "dst starts at UB offset 4, not on a 32-byte boundary");
}

TEST(ElementwiseErrors, ContinuousMaskOutOfRange) {
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<half>(256);
        AscendC::Add(a, a, a, uint64_t{129}, 1, BinaryRepeatParams{});
      },
      "continuous mask 129 is outside [1, 128]");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256);
        AscendC::Abs(a, a, uint64_t{65}, 1, UnaryRepeatParams{});
      },
      "continuous mask 65 is outside [1, 64]");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256);
        AscendC::Abs(a, a, uint64_t{0}, 1, UnaryRepeatParams{});
      },
      "continuous mask 0 is outside [1, 64]");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256);
        const uint64_t mask[2] = {0, ~0ull};  // only bits a 32-bit repeat does not have
        AscendC::Abs(a, a, mask, 1, UnaryRepeatParams{});
      },
      "the mask selects no element");
}

TEST(ElementwiseErrors, StridesOverrunTheTensor) {
  // Regression (level0_fuzzer): with blkStride 0 the farthest byte is the active element with the
  // highest offset in its DataBlock (element 7 of 9 floats here), not the last element.
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256), b = ub.Get<float>(4);
        AscendC::Abs(a, b, uint64_t{9}, 1, UnaryRepeatParams(1, 0, 8, 8));
      },
      "blkStride 0 and repStride 8 reach byte 32 but the tensor holds 16 bytes");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<half>(1024), b = ub.Get<half>(512);
        AscendC::Add(a, a, b, uint64_t{128}, 4, BinaryRepeatParams(1, 1, 2, 8, 8, 8));
      },
      "src1: 4 repeats with blkStride 2 and repStride 8 reach byte 1248 but the tensor holds "
      "1024 bytes");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64 * 10);
        AscendC::Relu(a, a, uint64_t{64}, 6, UnaryRepeatParams(1, 1, 16, 8));
      },
      "dst: 6 repeats with blkStride 1 and repStride 16");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64 * 300);
        AscendC::SetMaskCount();
        AscendC::Adds(a, a, 1.0f, uint64_t{64 * 256}, 1, UnaryRepeatParams{});
      },
      "repeatTimes 256 exceeds 255");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(256);
        AscendC::Adds(a, a, 1.0f, uint64_t{64}, 2, UnaryRepeatParams(0, 1, 8, 8));
      },
      "dst block stride 0 is undefined");
}

TEST(ElementwiseErrors, UseAfterFreeTensor) {
  Status st = RunVectorKernel([] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 512);
    auto t = q.AllocTensor<float>();
    q.FreeTensor(t);
    AscendC::Exp(t, t, 64);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("LocalTensor used after FreeTensor"));
}

TEST(ElementwiseErrors, UnsupportedDtype) {
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<float>(64);
        AscendC::And(a, a, a, 64);
      },
      "And is not defined for float");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<int32_t>(64);
        AscendC::Exp(a, a, 64);
      },
      "Exp is not defined for int32_t");
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<half>(128);
        AscendC::ShiftLeft(a, a, half(1.0f), 128);
      },
      "ShiftLeft is not defined for half");
}

TEST(ElementwiseErrors, ErrorsNameTheCallSite) {
  ExpectError(
      [](UbArena& ub) {
        auto a = ub.Get<half>(16);
        AscendC::Sub(a, a, a, 17);
      },
      "elementwise_errors_test.cc:");
}

}  // namespace
}  // namespace aicore::testing
