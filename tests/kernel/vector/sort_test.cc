// The sort APIs (sort.h) against tests/reference/sort_ref.h: Sort32, MrgSort (2-4 lists, repeats,
// suspension with GetMrgSortResult), MrgSort4 and RpSort16 on proposals, ProposalConcat/Extract,
// Extract, on half and float with many ties; plus the errors.
#include "aicore/kernel/vector/sort.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tests/kernel/vector/ub_test_util.h"
#include "tests/reference/sort_ref.h"

namespace {

using aicore::testing::RandomValues;
using aicore::testing::RunOnUb;
using aicore::testing::UbArena;
using ::testing::HasSubstr;

template <typename T>
class SortTest : public ::testing::Test {};
using SortTypes = ::testing::Types<aicore::half, float>;
TYPED_TEST_SUITE(SortTest, SortTypes);

// (score, index) pairs as Note [Sort layouts] lays them out.
template <typename T>
std::vector<uint8_t> Pairs(const std::vector<T>& score, const std::vector<uint32_t>& index) {
  std::vector<uint8_t> p(score.size() * 8, 0);
  for (size_t i = 0; i < score.size(); ++i) {
    std::memcpy(p.data() + i * 8, &score[i], sizeof(T));
    std::memcpy(p.data() + i * 8 + 4, &index[i], 4);
  }
  return p;
}

template <typename T>
std::vector<uint8_t> Bytes(const AscendC::LocalTensor<T>& t, size_t n) {
  std::vector<uint8_t> v(n);
  std::memcpy(v.data(), t.data(), n);
  return v;
}

TYPED_TEST(SortTest, Sort32MatchesReference) {
  using T = TypeParam;
  for (int repeat : {0, 1, 2, 7}) {
    const size_t n = size_t(repeat) * 32 + 32;
    auto score = RandomValues<T>(n, 50 + repeat, 8);  // a narrow range: many ties
    std::vector<uint32_t> index(n);
    for (size_t i = 0; i < n; ++i) index[i] = static_cast<uint32_t>(1000 + i);
    std::vector<uint8_t> got;
    auto st = RunOnUb([&](UbArena& ub) {
      auto s0 = ub.Load(score);
      auto s1 = ub.Load(index);
      auto d = ub.Get<T>(static_cast<uint32_t>(n * 8 / sizeof(T)));
      std::memset(d.data(), 0x5a, n * 8);
      AscendC::Sort32(d, s0, s1, repeat);
      got = Bytes(d, n * 8);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    const auto all = Pairs(score, index);
    for (int r = 0; r < repeat; ++r) {
      std::vector<uint8_t> group(all.begin() + r * 256, all.begin() + (r + 1) * 256);
      const auto want = aicore::ref::SortRecords<T>(group, 8, 0);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin() + r * 256)) << "repeat " << r;
    }
    EXPECT_EQ(got[repeat * 256], 0x5a) << "wrote past the last repeat";
  }
}

// Builds `lists` sorted pair lists of the given lengths, back to back.
template <typename T>
std::vector<std::vector<uint8_t>> SortedLists(const std::vector<uint16_t>& lens, uint32_t seed) {
  std::vector<std::vector<uint8_t>> out;
  uint32_t next = 0;
  for (size_t k = 0; k < lens.size(); ++k) {
    auto score = RandomValues<T>(lens[k], seed + k, 6);
    std::vector<uint32_t> index(lens[k]);
    for (auto& i : index) i = next++;
    out.push_back(aicore::ref::SortRecords<T>(Pairs(score, index), 8, 0));
  }
  return out;
}

TYPED_TEST(SortTest, MrgSortMatchesReference) {
  using T = TypeParam;
  struct Case {
    std::vector<uint16_t> lens;
    uint16_t valid;
  };
  const std::vector<Case> cases = {{{32, 32}, 3},       {{32, 32, 32}, 7}, {{32, 32, 32, 32}, 15},
                                   {{5, 0, 17, 1}, 15}, {{100, 3, 64}, 7}, {{1, 1}, 3}};
  for (const Case& c : cases) {
    auto lists = SortedLists<T>(c.lens, 7 * c.lens[0]);
    std::vector<uint8_t> concat;
    for (auto& l : lists) concat.insert(concat.end(), l.begin(), l.end());
    const auto want = aicore::ref::SortRecords<T>(concat, 8, 0);
    std::vector<uint8_t> got;
    uint16_t res[4];
    auto st = RunOnUb([&](UbArena& ub) {
      AscendC::LocalTensor<T> src[4];
      for (size_t k = 0; k < 4; ++k) {
        const size_t bytes = k < lists.size() ? lists[k].size() : 0;
        src[k] = ub.Get<T>(static_cast<uint32_t>(bytes / sizeof(T) + 16));
        if (bytes) std::memcpy(src[k].data(), lists[k].data(), bytes);
      }
      auto d = ub.Get<T>(static_cast<uint32_t>(want.size() / sizeof(T) + 16));
      AscendC::MrgSort4Info p;
      for (size_t k = 0; k < c.lens.size(); ++k) p.elementLengths[k] = c.lens[k];
      p.validBit = c.valid;
      AscendC::MrgSort(d, AscendC::MrgSortSrcList<T>(src[0], src[1], src[2], src[3]), p);
      got = Bytes(d, want.size());
      AscendC::GetMrgSortResult(res[0], res[1], res[2], res[3]);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(got == want) << "lists " << c.lens.size();
    for (size_t k = 0; k < c.lens.size(); ++k) EXPECT_EQ(res[k], c.lens[k]);
  }
}

// repeatTimes > 1: four equal lists back to back per repeat, as the docs' three-round sample.
TYPED_TEST(SortTest, MrgSortRepeats) {
  using T = TypeParam;
  const uint16_t len = 32;
  const int repeats = 3;
  std::vector<uint8_t> all;
  std::vector<uint8_t> want;
  for (int r = 0; r < repeats; ++r) {
    auto lists = SortedLists<T>({len, len, len, len}, 100 + r);
    std::vector<uint8_t> concat;
    for (auto& l : lists) concat.insert(concat.end(), l.begin(), l.end());
    all.insert(all.end(), concat.begin(), concat.end());
    const auto w = aicore::ref::SortRecords<T>(concat, 8, 0);
    want.insert(want.end(), w.begin(), w.end());
  }
  std::vector<uint8_t> got;
  auto st = RunOnUb([&](UbArena& ub) {
    auto s = ub.Get<T>(static_cast<uint32_t>(all.size() / sizeof(T)));
    std::memcpy(s.data(), all.data(), all.size());
    auto d = ub.Get<T>(static_cast<uint32_t>(all.size() / sizeof(T)));
    const uint16_t lens[4] = {len, len, len, len};
    const uint32_t step = len * 8 / sizeof(T);
    AscendC::MrgSort(d, {s[0], s[step], s[2 * step], s[3 * step]},
                     AscendC::MrgSort4Info(lens, false, 15, repeats));
    got = Bytes(d, all.size());
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(got == want);
}

TEST(MrgSort, SuspensionStopsAtTheFirstExhaustedList) {
  // List 1: scores 9, 1; list 2: 8, 7, 6. Merged: 9 (l1), 8, 7, 6 (l2) - then l2 is empty.
  std::vector<uint16_t> res(4);
  std::vector<float> got;
  auto st = RunOnUb([&](UbArena& ub) {
    auto a = ub.Get<float>(8), b = ub.Get<float>(8), d = ub.Get<float>(16);
    const float sa[] = {9, 1}, sb[] = {8, 7, 6};
    for (int i = 0; i < 2; ++i) a.SetValue(2 * i, sa[i]);
    for (int i = 0; i < 3; ++i) b.SetValue(2 * i, sb[i]);
    const uint16_t lens[4] = {2, 3, 0, 0};
    AscendC::MrgSort(d, {a, b, a, a}, AscendC::MrgSort4Info(lens, true, 3, 1));
    AscendC::GetMrgSortResult(res[0], res[1], res[2], res[3]);
    for (int i = 0; i < 4; ++i) got.push_back(d.GetValue(2 * i));
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(res[0], 1);
  EXPECT_EQ(res[1], 3);
  EXPECT_EQ(got, (std::vector<float>{9, 8, 7, 6}));
}

// Proposals: 8 elements each, score at field 4.
TYPED_TEST(SortTest, RpSort16AndMrgSort4MatchReference) {
  using T = TypeParam;
  constexpr uint32_t kItem = 8 * sizeof(T);
  const int repeat = 4;
  const size_t n = size_t(repeat) * 16;
  auto vals = RandomValues<T>(n * 8, 77, 5);
  std::vector<uint8_t> props(n * kItem);
  std::memcpy(props.data(), vals.data(), props.size());
  std::vector<uint8_t> sorted, merged;
  auto st = RunOnUb([&](UbArena& ub) {
    auto s = ub.Load(vals);
    auto d = ub.Get<T>(static_cast<uint32_t>(n * 8));
    auto m = ub.Get<T>(static_cast<uint32_t>(n * 8));
    AscendC::RpSort16(d, s, repeat);
    sorted = Bytes(d, props.size());
    const uint16_t lens[4] = {16, 16, 16, 16};
    AscendC::MrgSort4(m, {d[0], d[128], d[256], d[384]}, AscendC::MrgSort4Info(lens, false, 15, 1));
    merged = Bytes(m, props.size());
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<uint8_t> want_sorted;
  for (int r = 0; r < repeat; ++r) {
    std::vector<uint8_t> g(props.begin() + r * 16 * kItem, props.begin() + (r + 1) * 16 * kItem);
    const auto w = aicore::ref::SortRecords<T>(g, kItem, 4 * sizeof(T));
    want_sorted.insert(want_sorted.end(), w.begin(), w.end());
  }
  EXPECT_TRUE(sorted == want_sorted);
  EXPECT_TRUE(merged == aicore::ref::SortRecords<T>(want_sorted, kItem, 4 * sizeof(T)));
}

TYPED_TEST(SortTest, ProposalConcatExtractAndExtract) {
  using T = TypeParam;
  const int repeat = 3;
  const size_t n = size_t(repeat) * 16;
  auto field = RandomValues<T>(n, 5);
  auto base = RandomValues<T>(n * 8, 6);
  std::vector<T> props_got, back;
  std::vector<T> values;
  std::vector<uint32_t> indices;
  std::vector<uint32_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = static_cast<uint32_t>(3 * i + 1);
  auto st = RunOnUb([&](UbArena& ub) {
    auto f = ub.Load(field);
    auto p = ub.Load(base);
    auto e = ub.Get<T>(static_cast<uint32_t>(n));
    AscendC::ProposalConcat(p, f, repeat, 2);
    AscendC::ProposalExtract(e, p, repeat, 2);
    props_got.assign(p.data(), p.data() + n * 8);
    back.assign(e.data(), e.data() + n);
    // Extract splits (score, index) pairs.
    auto pairs = ub.Get<T>(static_cast<uint32_t>(n * 8 / sizeof(T)));
    const auto raw = Pairs(field, idx);
    std::memcpy(pairs.data(), raw.data(), raw.size());
    auto dv = ub.Get<T>(static_cast<uint32_t>(n));
    auto di = ub.Get<uint32_t>(static_cast<uint32_t>(n));
    AscendC::Extract(dv, di, pairs, static_cast<int32_t>(n / 32));
    values.assign(dv.data(), dv.data() + n / 32 * 32);
    indices.assign(di.data(), di.data() + n / 32 * 32);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 8; ++k) {
      const T want = k == 2 ? field[i] : base[i * 8 + k];
      EXPECT_EQ(std::memcmp(&props_got[i * 8 + k], &want, sizeof(T)), 0) << i << " " << k;
    }
    EXPECT_EQ(std::memcmp(&back[i], &field[i], sizeof(T)), 0) << i;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::memcmp(&values[i], &field[i], sizeof(T)), 0) << i;
    EXPECT_EQ(indices[i], idx[i]);
  }
}

std::string ErrorOf(const std::function<void(UbArena&)>& body) {
  auto st = RunOnUb(body);
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(SortErrors, Messages) {
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto d = ub.Get<float>(64);
                auto s = ub.Get<float>(32);
                auto i = ub.Get<uint32_t>(32);
                AscendC::Sort32(d, s, i, 2);
              }),
              HasSubstr("Sort32: dst holds 256 B but the call uses 512 B"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto d = ub.Get<float>(64), s = ub.Get<float>(64);
                AscendC::MrgSort4Info p;
                p.validBit = 5;
                AscendC::MrgSort(d, {s, s, s, s}, p);
              }),
              HasSubstr("MrgSort: validBit 5 is not 3, 7 or 15"));
  EXPECT_THAT(
      ErrorOf([](UbArena& ub) {
        auto d = ub.Get<float>(512), s = ub.Get<float>(512);
        const uint16_t lens[4] = {8, 8, 8, 8};
        AscendC::MrgSort(d, {s, s[16], s[32], s[48]}, AscendC::MrgSort4Info(lens, true, 15, 2));
      }),
      HasSubstr("repeatTimes 2 > 1 needs four equal-length lists stored back to back"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto d = ub.Get<float>(128), s = ub.Get<float>(128);
                AscendC::ProposalConcat(d, s, 1, 6);
              }),
              HasSubstr("ProposalConcat: modeNumber 6 is outside [0, 5]"));
  EXPECT_THAT(ErrorOf([](UbArena& ub) {
                auto s = ub.Get<float>(256);
                const uint16_t lens[4] = {8, 8, 0, 0};
                AscendC::MrgSort(s, {s, s[16], s, s}, AscendC::MrgSort4Info(lens, false, 3, 1));
              }),
              HasSubstr("overlaps dst"));
}

}  // namespace
