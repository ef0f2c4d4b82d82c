// TPipe/TQue/TBuf and SetFlag/WaitFlag: capacity and buffer limits, the queue state machine
// (Note [Queue state machine]), use after FreeTensor, event IDs — each misuse with its message.
#include "aicore/kernel/pipe/tpipe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aicore/runtime/launch.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;  // NOLINT: kernels are written this way
using ::testing::HasSubstr;

aicore::Status RunOne(std::function<void()> body, aicore::KernelMode mode = aicore::KernelMode::kAiv) {
  aicore::LaunchOptions o;
  o.mode = mode;
  return aicore::RunKernel("pipe_test", 1, o, std::move(body));
}

TEST(TPipeTest, InitBufferRoundsTo32AndPlacesBuffersApart) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(q, 2, 40);  // 40 B -> 64 B per buffer
    pipe.InitBuffer(buf, 100);  // -> 128 B
    EXPECT_EQ(pipe.Used(aicore::arch::Buffer::kUb), 2 * 64u + 128u);
    auto a = q.AllocTensor<half>();
    auto b = q.AllocTensor<half>();
    EXPECT_EQ(a.GetSize(), 32u);
    EXPECT_EQ(reinterpret_cast<uint8_t*>(b.data()) - reinterpret_cast<uint8_t*>(a.data()), 64);
    EXPECT_EQ(buf.Get<float>().GetSize(), 32u);
    q.FreeTensor(a);
    q.FreeTensor(b);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(TPipeTest, InitBufferOverCapacityNamesPositionSizeAndWhatIsLeft) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> a, b;
    pipe.InitBuffer(a, 2, 64 * 1024);
    pipe.InitBuffer(b, 2, 64 * 1024);  // 256 KB > 192 KB UB
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), aicore::StatusCode::kResourceExhausted);
  EXPECT_THAT(st.message(), HasSubstr("InitBuffer: VECIN buffer of 131072 B does not fit in UB"));
  EXPECT_THAT(st.message(), HasSubstr("65536 B of 196608 B are left on ascend910b1"));
  EXPECT_THAT(st.message(), HasSubstr("tpipe_test.cc:"));
}

TEST(TPipeTest, MoreThan64BuffersIsAnError) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufs[65];
    for (auto& b : bufs) pipe.InitBuffer(b, 32);
  });
  EXPECT_THAT(st.message(), HasSubstr("TPipe would hold 65 buffers; the limit is 64"));
}

TEST(TPipeTest, PositionWithoutBufferOnThisCoreType) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::A1, 1> q;  // L1 lives on the AIC of a split chip
    pipe.InitBuffer(q, 1, 1024);
  });
  EXPECT_THAT(st.message(), HasSubstr("position A1 lives in L1, which AIV 0 does not have"));
}

TEST(TQueTest, DeQueOnEmptyQueueIsReportedAsAHang) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    q.DeQue<half>();
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("DeQue: the VECIN queue is empty"));
}

TEST(TQueTest, AllocTensorPastBufferCountIsReportedAsAHang) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECOUT, 2> q;
    pipe.InitBuffer(q, 2, 256);
    q.AllocTensor<float>();
    q.AllocTensor<float>();
    q.AllocTensor<float>();
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(st.message(), HasSubstr("all 2 buffers of the VECOUT queue are allocated"));
}

TEST(TQueTest, EnQuePastDepth) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 2, 256);
    q.EnQue(q.AllocTensor<half>());
    q.EnQue(q.AllocTensor<half>());
  });
  EXPECT_THAT(st.message(), HasSubstr("the VECIN queue already holds 1 tensors, its depth is 1"));
}

TEST(TQueTest, DequeuedTensorMayBeEnqueuedAgainButNotTwice) {
  // CANN's softmax sample computes in place in a VECIN buffer and enqueues it again for CopyOut.
  auto again = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    q.EnQue(q.AllocTensor<half>());
    auto t = q.DeQue<half>();
    q.EnQue(t);
    auto u = q.DeQue<half>();
    EXPECT_EQ(u.GetPhyAddr(), t.GetPhyAddr());
    q.FreeTensor(u);
  });
  EXPECT_TRUE(again.ok()) << again.ToString();
  auto twice = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 1, 256);
    auto t = q.AllocTensor<half>();
    q.EnQue(t);
    q.EnQue(t);
  });
  EXPECT_THAT(twice.message(), HasSubstr("is enqueued; only a tensor from AllocTensor or DeQue"));
}

TEST(TQueTest, UseAfterFreeTensorIsCaught) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    auto t = q.AllocTensor<half>();
    auto view = t[16];
    q.FreeTensor(t);
    Duplicate(view, half(1.0f), 16);
  });
  EXPECT_EQ(st.code(), aicore::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("Duplicate: LocalTensor used after FreeTensor"));
}

TEST(TQueTest, DoubleFreeAndFreeWhileEnqueued) {
  auto twice = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    auto t = q.AllocTensor<half>();
    LocalTensor<half> copy = t;
    q.FreeTensor(t);
    q.FreeTensor(copy);
  });
  EXPECT_THAT(twice.message(), HasSubstr("FreeTensor"));
  auto enqueued = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    auto t = q.AllocTensor<half>();
    q.EnQue(t);
    q.FreeTensor(t);
  });
  EXPECT_THAT(enqueued.message(), HasSubstr("still enqueued"));
}

TEST(TQueTest, FifoOrderAndQueries) {
  auto st = RunOne([] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 64);
    EXPECT_FALSE(q.HasTensorInQue());
    auto a = q.AllocTensor<int32_t>();
    auto b = q.AllocTensor<int32_t>();
    a.SetValue(0, 11);
    b.SetValue(0, 22);
    EXPECT_FALSE(q.HasIdleBuffer());
    q.EnQue(a);
    q.EnQue(b);
    EXPECT_FALSE(q.VacantInQue());
    EXPECT_EQ(q.GetTensorCountInQue(), 2);
    auto x = q.DeQue<int32_t>();
    auto y = q.DeQue<int32_t>();
    EXPECT_EQ(x.GetValue(0), 11);
    EXPECT_EQ(y.GetValue(0), 22);
    q.FreeTensor(x);
    q.FreeTensor(y);
    EXPECT_TRUE(q.HasIdleBuffer());
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(TBufTest, GetBeyondBufferIsAnError) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    buf.Get<float>(17);
  });
  EXPECT_THAT(st.message(), HasSubstr("17 elements of 4 B exceed the buffer's 64 B"));
}

TEST(LocalTensorTest, IndexAndOffsetChecks) {
  auto st = RunOne([] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    auto t = buf.Get<half>();
    t.GetValue(32);
  });
  EXPECT_THAT(st.message(), HasSubstr("GetValue: index 32 is past the tensor's 32 elements"));
}

TEST(FlagTest, SetWaitPairsAndMisuse) {
  auto ok = RunOne([] {
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    PipeBarrier<PIPE_V>();
  });
  EXPECT_TRUE(ok.ok()) << ok.ToString();
  auto wait = RunOne([] { WaitFlag<HardEvent::V_MTE3>(3); });
  EXPECT_EQ(wait.code(), aicore::StatusCode::kDeadlock);
  EXPECT_THAT(wait.message(), HasSubstr("WaitFlag: flag V_MTE3 ID 3 was never set"));
  auto twice = RunOne([] {
    SetFlag<HardEvent::MTE2_V>(1);
    SetFlag<HardEvent::MTE2_V>(1);
  });
  EXPECT_THAT(twice.message(), HasSubstr("already set and not yet waited on"));
  auto range = RunOne([] { SetFlag<HardEvent::MTE2_V>(8); });
  EXPECT_THAT(range.message(), HasSubstr("event ID 8 for MTE2_V is outside [0, 7]"));
}

TEST(FlagTest, EventIdAllocation) {
  auto st = RunOne([] {
    TPipe pipe;
    event_t a = pipe.AllocEventID<HardEvent::V_MTE3>();
    event_t b = pipe.AllocEventID<HardEvent::V_MTE3>();
    EXPECT_NE(a, b);
    EXPECT_EQ(GetTPipePtr(), &pipe);
    pipe.ReleaseEventID<HardEvent::V_MTE3>(a);
    EXPECT_EQ(pipe.FetchEventID<HardEvent::V_MTE3>(), a);
    for (int i = 0; i < 8; ++i) pipe.AllocEventID<HardEvent::V_MTE3>();  // 1 in use + 8 > 8
  });
  EXPECT_THAT(st.message(), HasSubstr("all 8 event IDs of V_MTE3 are allocated"));
}

}  // namespace
