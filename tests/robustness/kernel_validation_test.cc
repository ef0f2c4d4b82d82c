// Kernel-side misuse that used to pass silently or crash: two live TPipes, SetSize past the
// buffer, InitBuffer lengths near 2^32, ReinterpretCast extents, and LocalTensors that outlive
// their launch or leave their block. Each case asserts the error class and the message fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "aicore/check/sanitizer.h"
#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

aicore::Status RunOne(std::function<void()> body, uint32_t blocks = 1) {
  return aicore::RunKernel("validation", blocks, aicore::LaunchOptions{}, std::move(body));
}

// --- one TPipe per kernel at a time ---

TEST(OneTPipeTest, SecondLiveTPipeIsAnError) {
  int line = 0;
  auto st = RunOne([&] {
    TPipe first;
    TQue<TPosition::VECIN, 1> a;
    first.InitBuffer(a, 1, 256);
    line = __LINE__ + 1;
    TPipe second;  // would carve UB from offset 0 again: a aliases b
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("validation AIV 0: TPipe: a TPipe is already live"));
  EXPECT_THAT(st.message(), HasSubstr("one TPipe per kernel at a time"));
  EXPECT_THAT(st.message(), HasSubstr("kernel_validation_test.cc:" + std::to_string(line)));
}

TEST(OneTPipeTest, NewTPipeAfterTheOldOneIsDestroyedIsFine) {
  auto st = RunOne([] {
    {
      TPipe first;
      TQue<TPosition::VECIN, 1> a;
      first.InitBuffer(a, 1, 256);
    }
    TPipe second;
    TQue<TPosition::VECIN, 1> b;
    second.InitBuffer(b, 1, 256);
    EXPECT_EQ(GetTPipePtr(), &second);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(OneTPipeTest, DestroyEndsTheTPipeSoAnotherMayBeMade) {
  auto st = RunOne([] {
    TPipe first;
    TQue<TPosition::VECIN, 1> a;
    first.InitBuffer(a, 1, 256);
    first.Destroy();
    EXPECT_EQ(GetTPipePtr(), nullptr);
    TPipe second;
    second.InitBuffer(a, 1, 256);  // the queue may be given buffers again by the new pipe
    auto t = a.AllocTensor<float>();
    a.FreeTensor(t);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(OneTPipeTest, QueueOfADestroyedTPipeIsAnError) {
  auto st = RunOne([] {
    TQue<TPosition::VECIN, 1> a;
    {
      TPipe first;
      first.InitBuffer(a, 1, 256);
    }
    TPipe second;
    TBuf<TPosition::VECCALC> b;
    second.InitBuffer(b, 256);  // takes the bytes `a` had
    a.AllocTensor<float>();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("AllocTensor: the queue's buffers came from a TPipe that "
                                      "was destroyed or Reset"));
}

TEST(OneTPipeTest, InitBufferOnADestroyedTPipeIsAnError) {
  auto st = RunOne([] {
    TPipe pipe;
    pipe.Destroy();
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("InitBuffer: this TPipe was destroyed"));
}

TEST(OneTPipeTest, ResetLetsQueuesBeInitialisedAgain) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> a;
    pipe.InitBuffer(a, 1, 256);
    pipe.Reset();
    pipe.InitBuffer(a, 1, 512);
    EXPECT_EQ(a.AllocTensor<float>().GetSize(), 128u);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(OneTPipeTest, TensorOfAQueueBeforeResetIsStaleAfterInitBufferAgain) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> a;
    pipe.InitBuffer(a, 1, 256);
    auto old = a.AllocTensor<float>();
    pipe.Reset();
    pipe.InitBuffer(a, 1, 256);
    Duplicate(old, 1.0f, 64);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("Duplicate: LocalTensor used after FreeTensor"));
}

// --- SetSize and InitBuffer overflow ---

TEST(SetSizeTest, PastTheQueueBufferIsAnError) {
  int line = 0;
  auto st = RunOne([&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 256);  // 64 floats each, the second right behind the first
    auto t = q.AllocTensor<float>();
    t.SetSize(32);  // shrinking is fine
    t.SetSize(64);  // and back up to the buffer
    line = __LINE__ + 1;
    t.SetSize(65);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("LocalTensor::SetSize: size 65 elements (260 B) exceeds "
                                      "the tensor's buffer: 64 elements (256 B)"));
  EXPECT_THAT(st.message(), HasSubstr("kernel_validation_test.cc:" + std::to_string(line)));
}

TEST(SetSizeTest, PastUbEndIsAnErrorNotACrash) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    auto t = buf.Get<float>();
    t.SetSize(1u << 30);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("exceeds the tensor's buffer: 256 elements"));
}

TEST(SetSizeTest, TBufGetOfFewerElementsMayGrowToTheBuffer) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    auto t = buf.Get<float>(16);
    t.SetSize(256);
    auto u = buf.GetWithOffset<float>(8, 512);
    u.SetSize(128);
    EXPECT_EQ(u.GetSize(), 128u);
    auto v = t[200];  // an offset view keeps the rest of the buffer
    v.SetSize(56);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    buf.Get<float>()[200].SetSize(57);
  });
  EXPECT_THAT(st.message(), HasSubstr("size 57 elements (228 B) exceeds the tensor's buffer: 56"));
}

TEST(SetSizeTest, SanitizerSeesTheTensorsExtentOnly) {
  aicore::check::SanitizerOptions so;
  aicore::check::Sanitizer sanitizer(so);
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    auto ta = a.Get<float>(32);
    ta.SetSize(64);
    Duplicate(ta, 1.0f, 64);  // exactly the buffer: no report
    ta.SetSize(65);           // would overwrite b
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_TRUE(sanitizer.reports().empty()) << sanitizer.reports().front().ToString();
}

TEST(InitBufferTest, LengthNear4GiBDoesNotWrapToZero) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 0xFFFFFFF0u);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
  EXPECT_THAT(st.message(), HasSubstr("InitBuffer: VECIN buffer of 4294967296 B does not fit"));

  st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 0xFFFFFFFFu);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
  EXPECT_THAT(st.message(), HasSubstr("VECCALC buffer of 4294967296 B does not fit in UB"));

  st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 0x80000000u);  // 2 x 2 GiB: the product must not wrap either
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
  EXPECT_THAT(st.message(), HasSubstr("VECIN buffer of 4294967296 B does not fit"));
}

// --- ReinterpretCast extents ---

TEST(ReinterpretCastTest, GlobalViewSmallerThanOneElementIsEmptyNotUnbounded) {
  std::vector<half> host(1);
  auto st = RunOne([&] {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(host.data(), 1);
    GlobalTensor<float> f = g.ReinterpretCast<float>();
    EXPECT_TRUE(f.bounded());
    EXPECT_EQ(f.GetSize(), 0u);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 32);
    DataCopy(buf.Get<float>(), f, 8);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("src GlobalTensor: the copy reaches byte 32 but the tensor "
                                      "holds 0 elements"));
}

TEST(ReinterpretCastTest, GlobalExtentRoundsDownToWholeElements) {
  std::vector<half> host(5);
  auto st = RunOne([&] {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(host.data(), 5);  // 10 B
    GlobalTensor<float> f = g.ReinterpretCast<float>();
    EXPECT_EQ(f.GetSize(), 2u);
    EXPECT_EQ(f.extent_bytes(), 8u);
    f.SetValue(1, 1.0f);
    f.GetValue(2);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("GlobalTensor::GetValue: GlobalTensor: offset 2 but the "
                                      "tensor holds 2 elements (8 bytes)"));
}

TEST(ReinterpretCastTest, LocalViewKeepsTheBufferCapacity) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    auto h = buf.Get<half>(4);             // 8 B of a 64 B buffer
    auto f = h.ReinterpretCast<float>();  // 2 floats, capacity 16
    EXPECT_EQ(f.GetSize(), 2u);
    EXPECT_EQ(f.capacity(), 16u);
    f.SetSize(16);
    f.SetSize(17);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kOutOfRange);
  EXPECT_THAT(st.message(), HasSubstr("size 17 elements (68 B) exceeds the tensor's buffer: 16"));
}

// --- LocalTensor identity ---

LocalTensor<float> g_kept;  // a tensor kept across launches: the misuse under test

TEST(LocalTensorIdentityTest, TensorKeptFromAnEarlierLaunchIsAnError) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    g_kept = buf.Get<float>();
    Duplicate(g_kept, 1.0f, 64);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  int line = 0;
  st = RunOne([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    line = __LINE__ + 1;
    Duplicate(g_kept, 2.0f, 64);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("Duplicate: LocalTensor belongs to another block or to an "
                                      "earlier launch"));
  EXPECT_THAT(st.message(), HasSubstr("kernel_validation_test.cc:" + std::to_string(line)));
  g_kept = LocalTensor<float>();
}

TEST(LocalTensorIdentityTest, TensorOfAnotherBlockIsAnError) {
  static LocalTensor<float> shared;  // block 0 publishes its tensor, block 1 uses it
  static std::atomic<bool> published{false};
  published = false;
  auto st = RunOne(
      [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        if (GetBlockIdx() == 0) {
          shared = buf.Get<float>();
          published = true;
        }
        SyncAll();
        if (GetBlockIdx() == 1 && published) shared.SetValue(0, 1.0f);
        SyncAll();
      },
      2);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("AIV 1: SetValue: LocalTensor belongs to another block"));
}

}  // namespace
