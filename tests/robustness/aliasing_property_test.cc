// The memory-sharing test every operator's output check uses (aicore/ops/framework/aliasing.h)
// against brute force: random small views (up to 4 dims, strides 0..9, offsets, 1-, 2- and
// 4-byte elements) whose bytes are enumerated; and large views of the layouts the operators
// meet (packed q/k/v slices, even/odd interleaves) that the search must decide without giving up.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "aicore/ops/framework/aliasing.h"

namespace aicore::ops {
namespace {

alignas(64) uint8_t g_storage[1 << 16];

// Returns the byte offsets (from g_storage) of every byte of `t`.
std::set<int64_t> Bytes(const TensorRef& t) {
  std::set<int64_t> out;
  const int64_t n = t.NumElements();
  const std::vector<int64_t> s = t.Strides();
  const int64_t e = static_cast<int64_t>(DTypeSize(t.dtype));
  const int64_t base = static_cast<uint8_t*>(t.data) - g_storage;
  std::vector<int64_t> idx(t.shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = t.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * s[d];
    for (int64_t j = 0; j < e; ++j) out.insert(base + off * e + j);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// True when two distinct elements of `t` share a byte.
bool RepeatsBrute(const TensorRef& t) {
  const int64_t e = static_cast<int64_t>(DTypeSize(t.dtype));
  return static_cast<int64_t>(Bytes(t).size()) != t.NumElements() * e;
}

TensorRef Random(std::mt19937& rng) {
  const DType dts[] = {DType::kU8, DType::kF16, DType::kF32};
  TensorRef t;
  t.dtype = dts[rng() % 3];
  t.data = g_storage + (rng() % 4) * 64;
  const int rank = 1 + static_cast<int>(rng() % 4);
  for (int d = 0; d < rank; ++d) {
    t.shape.push_back(1 + static_cast<int64_t>(rng() % 4));
    t.strides.push_back(static_cast<int64_t>(rng() % 10));
  }
  t.offset = static_cast<int64_t>(rng() % 16);
  return t;
}

TEST(AliasingPropertyTest, OverlapAndRepeatsMatchBruteForce) {
  std::mt19937 rng(7);
  int partial = 0, none = 0, repeats = 0;
  for (int i = 0; i < 4000; ++i) {
    const TensorRef a = Random(rng), b = Random(rng);
    std::set<int64_t> ba = Bytes(a), bb = Bytes(b);
    bool shared = false;
    for (int64_t x : ba) shared = shared || bb.count(x) > 0;
    const Overlap got = OverlapOf(a, b);
    if (got == Overlap::kSame) {
      EXPECT_EQ(ba, bb) << i;
    } else {
      EXPECT_EQ(got == Overlap::kPartial, shared) << "case " << i;
    }
    partial += got == Overlap::kPartial;
    none += got == Overlap::kNone;
    EXPECT_EQ(HasInternalOverlap(a), RepeatsBrute(a)) << "case " << i;
    repeats += RepeatsBrute(a);
  }
  // The cases cover both answers of both questions.
  EXPECT_GT(partial, 100);
  EXPECT_GT(none, 100);
  EXPECT_GT(repeats, 100);
  EXPECT_LT(repeats, 3900);
}

TEST(AliasingPropertyTest, LargeOperatorLayoutsAreDecided) {
  // dq, dk, dv as [B, S, H] slices of one [B, S, 3H] fp32 buffer (B 64, S 4096, H 4096): apart;
  // dk one element early overlaps dq.
  const int64_t b = 64, s = 4096, h = 4096;
  TensorRef q;
  q.data = g_storage;
  q.dtype = DType::kF32;
  q.shape = {b, s, h};
  q.strides = {s * 3 * h, 3 * h, 1};
  TensorRef k = q, v = q;
  k.offset = h;
  v.offset = 2 * h;
  EXPECT_EQ(OverlapOf(q, k), Overlap::kNone);
  EXPECT_EQ(OverlapOf(k, v), Overlap::kNone);
  EXPECT_FALSE(HasInternalOverlap(q));
  k.offset = h - 1;
  EXPECT_EQ(OverlapOf(q, k), Overlap::kPartial);
  // Even and odd elements of 2^40 floats: apart; a stride of 2 over 2^40 + 1 elements is fine.
  TensorRef even;
  even.data = g_storage;
  even.dtype = DType::kF32;
  even.shape = {int64_t{1} << 40};
  even.strides = {2};
  TensorRef odd = even;
  odd.offset = 1;
  EXPECT_EQ(OverlapOf(even, odd), Overlap::kNone);
  EXPECT_FALSE(HasInternalOverlap(even));
  // fp16 pairs read as fp32 elements overlap both halves.
  TensorRef wide = even;
  wide.dtype = DType::kF16;
  wide.shape = {8};
  wide.strides = {1};
  TensorRef narrow = wide;
  narrow.dtype = DType::kF32;
  narrow.shape = {2};
  narrow.offset = 3;  // bytes 12..19 of a view of bytes 0..15
  EXPECT_EQ(OverlapOf(wide, narrow), Overlap::kPartial);
  // A transposed dense matrix is its own set of bytes, the same ones as the original.
  TensorRef m;
  m.data = g_storage;
  m.dtype = DType::kF32;
  m.shape = {1000, 3000};
  TensorRef mt = m;
  mt.shape = {3000, 1000};
  mt.strides = {1, 3000};
  EXPECT_FALSE(HasInternalOverlap(mt));
  EXPECT_EQ(OverlapOf(m, mt), Overlap::kPartial);
  // An empty view overlaps nothing.
  TensorRef empty = m;
  empty.shape = {0, 3000};
  EXPECT_EQ(OverlapOf(m, empty), Overlap::kNone);
}

}  // namespace
}  // namespace aicore::ops
