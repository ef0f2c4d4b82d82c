// The streaming GM write path of DataCopy UB -> GM (see Note [Streaming GM writes] in
// copy_common.cc): long back-to-back write runs switch to non-temporal stores, which must write
// exactly the same bytes as ordinary stores for every destination alignment, tile length and
// interleaving of blocks, and must leave strided and atomic writes alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "aicore/runtime/gm.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/scheduler.h"
#include "kernel_operator.h"

namespace {

using namespace AscendC;

// The expected byte at position i of the output: a pattern no two nearby bytes share.
uint8_t Pattern(uint64_t i, uint32_t seed) {
  return static_cast<uint8_t>((i * 131 + (i >> 8) * 7 + seed) & 0xff);
}

struct StreamCase {
  uint64_t total_bytes;    // bytes each block writes
  uint32_t tile_bytes;     // bytes per DataCopy (multiple of 32)
  uint64_t gm_offset;      // byte offset of block 0's output from a 512-byte aligned start
  uint32_t block_dim;
  int threads;
};

// Each block fills a UB tile with the pattern for its next output range and copies it out, tile
// after tile, far past the streaming threshold.
void RunStreamCase(const StreamCase& c) {
  SCOPED_TRACE(::testing::Message() << "total " << c.total_bytes << " tile " << c.tile_bytes
                                    << " offset " << c.gm_offset << " blocks " << c.block_dim
                                    << " threads " << c.threads);
  const uint64_t gm_bytes = c.gm_offset + c.total_bytes * c.block_dim + 64;
  auto* gm = static_cast<uint8_t*>(aicore::GmAlloc(gm_bytes));
  std::memset(gm, 0xee, gm_bytes);
  aicore::sim::SetWorkerThreads(c.threads);
  const aicore::Status st = aicore::RunKernel("stream", c.block_dim, aicore::LaunchOptions{}, [&] {
    TPipe pipe;
    TBuf<QuePosition::VECOUT> buf;
    pipe.InitBuffer(buf, c.tile_bytes);
    LocalTensor<uint8_t> ub = buf.Get<uint8_t>();  // (tile_bytes)
    const uint64_t start = c.gm_offset + c.total_bytes * GetBlockIdx();
    GlobalTensor<uint8_t> out;
    out.SetGlobalBuffer(gm + start, c.total_bytes);
    for (uint64_t done = 0; done < c.total_bytes; done += c.tile_bytes) {
      const uint32_t len = static_cast<uint32_t>(
          std::min<uint64_t>(c.tile_bytes, c.total_bytes - done));
      for (uint32_t i = 0; i < len; ++i) ub.SetValue(i, Pattern(start + done + i, 3));
      DataCopy(out[done], ub, len);
    }
  });
  aicore::sim::SetWorkerThreads(0);
  ASSERT_TRUE(st.ok()) << st.ToString();
  uint64_t bad = 0;
  uint64_t first_bad = 0;
  const uint64_t end = c.gm_offset + c.total_bytes * c.block_dim;
  for (uint64_t i = 0; i < gm_bytes; ++i) {
    const uint8_t want = i >= c.gm_offset && i < end ? Pattern(i, 3) : uint8_t{0xee};
    if (gm[i] != want && bad++ == 0) first_bad = i;
  }
  EXPECT_EQ(bad, 0u) << "first wrong byte at " << first_bad;
  aicore::GmFree(gm);
}

TEST(GmWriteStream, LongRunsWriteExactBytesForEveryAlignment) {
  // Past the 4 MiB run threshold, with aligned, 16-byte-misaligned and odd destinations.
  for (uint64_t offset : {0u, 8u, 32u, 100u}) {
    RunStreamCase({6u << 20, 8192, offset, 1, 1});
  }
}

TEST(GmWriteStream, TileLengthsAroundTheStreamingMinimum) {
  for (uint32_t tile : {32u, 992u, 1024u, 1056u, 4096u + 32u, 65536u}) {
    RunStreamCase({5u << 20, tile, 16, 1, 1});
  }
}

TEST(GmWriteStream, InterleavedBlocksOnOneAndTwoThreads) {
  RunStreamCase({5u << 20, 4096, 0, 3, 1});
  RunStreamCase({5u << 20, 4096, 48, 4, 2});
}

TEST(GmWriteStream, ShortOutputsAreExact) {
  RunStreamCase({4096, 4096, 0, 2, 1});
  RunStreamCase({96, 32, 8, 3, 2});
}

// Strided writes (DataCopyParams with a destination gap) after a long contiguous run keep the
// gaps untouched.
TEST(GmWriteStream, StridedWriteAfterLongRunKeepsGaps) {
  constexpr uint32_t kTile = 8192;
  constexpr uint64_t kRun = 5u << 20;
  constexpr uint32_t kBlocks = 64;                  // DataBlocks per strided copy
  const uint64_t strided_span = uint64_t{kBlocks} * 64;  // each 32-byte block then a 32-byte gap
  const uint64_t gm_bytes = kRun + strided_span;
  auto* gm = static_cast<uint8_t*>(aicore::GmAlloc(gm_bytes));
  std::memset(gm, 0xee, gm_bytes);
  const aicore::Status st = aicore::RunKernel("strided", 1, aicore::LaunchOptions{}, [&] {
    TPipe pipe;
    TBuf<QuePosition::VECOUT> buf;
    pipe.InitBuffer(buf, kTile);
    LocalTensor<uint8_t> ub = buf.Get<uint8_t>();  // (kTile)
    for (uint32_t i = 0; i < kTile; ++i) ub.SetValue(i, static_cast<uint8_t>(i % 251));
    GlobalTensor<uint8_t> out;
    out.SetGlobalBuffer(gm, gm_bytes);
    for (uint64_t done = 0; done < kRun; done += kTile) DataCopy(out[done], ub, kTile);
    DataCopyParams params;
    params.blockCount = kBlocks;
    params.blockLen = 1;
    params.srcStride = 0;
    params.dstStride = 1;
    DataCopy(out[kRun], ub, params);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  uint64_t bad = 0;
  for (uint64_t i = 0; i < kRun; ++i) bad += gm[i] != static_cast<uint8_t>(i % kTile % 251);
  for (uint64_t i = 0; i < strided_span; ++i) {
    const uint64_t block = i / 64;
    const uint64_t in_block = i % 64;
    const uint8_t want =
        in_block < 32 ? static_cast<uint8_t>((block * 32 + in_block) % 251) : uint8_t{0xee};
    bad += gm[kRun + i] != want;
  }
  EXPECT_EQ(bad, 0u);
  aicore::GmFree(gm);
}

// Atomic accumulation never takes the streaming path: a long SetAtomicAdd run adds.
TEST(GmWriteStream, AtomicAddAfterLongRunAccumulates) {
  constexpr uint32_t kTile = 2048;                     // floats per copy (8 KiB)
  constexpr uint64_t kElems = (6u << 20) / sizeof(float);
  auto* gm = static_cast<float*>(aicore::GmAlloc(kElems * sizeof(float)));
  for (uint64_t i = 0; i < kElems; ++i) gm[i] = static_cast<float>(i % 1000);
  const aicore::Status st = aicore::RunKernel("atomic", 1, aicore::LaunchOptions{}, [&] {
    TPipe pipe;
    TBuf<QuePosition::VECOUT> buf;
    pipe.InitBuffer(buf, kTile * sizeof(float));
    LocalTensor<float> ub = buf.Get<float>();  // (kTile)
    Duplicate(ub, 0.5f, kTile);
    GlobalTensor<float> out;
    out.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(gm), kElems);
    SetAtomicAdd<float>();
    for (uint64_t done = 0; done < kElems; done += kTile) DataCopy(out[done], ub, kTile);
    SetAtomicNone();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  uint64_t bad = 0;
  for (uint64_t i = 0; i < kElems; ++i) bad += gm[i] != static_cast<float>(i % 1000) + 0.5f;
  EXPECT_EQ(bad, 0u);
  aicore::GmFree(gm);
}

}  // namespace
