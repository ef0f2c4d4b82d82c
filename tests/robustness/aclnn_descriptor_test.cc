// aclCreateTensor's validation at the int64 limits, as the aclnn fuzzer found them: a view that
// reaches outside its storage is rejected with 161002 also when the arithmetic would wrap, and
// shapes whose dims multiply past int64 (even an empty one, whose product is 0) are rejected
// rather than overflowing in the code that multiplies them later (docs/errors.md section 8).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t k2e40 = int64_t{1} << 40;
constexpr int64_t k2e62 = int64_t{1} << 62;
constexpr int64_t kMaxFloats = INT64_MAX / 4;  // the most floats a storage may hold

struct Desc {
  std::vector<int64_t> view;
  std::vector<int64_t> strides;  // empty: contiguous (nullptr)
  int64_t offset = 0;
  std::vector<int64_t> storage;
};

aclTensor* Create(const Desc& d) {
  return aclCreateTensor(d.view.data(), d.view.size(), ACL_FLOAT,
                         d.strides.empty() ? nullptr : d.strides.data(), d.offset, ACL_FORMAT_ND,
                         d.storage.data(), d.storage.size(), nullptr);
}

// Expects `d` rejected with 161002 and a message containing `why`.
void ExpectRejected(const Desc& d, const std::string& why) {
  aclTensor* t = Create(d);
  EXPECT_EQ(t, nullptr);
  aclDestroyTensor(t);
  EXPECT_THAT(std::string(aclGetRecentErrMsg()),
              AllOf(HasSubstr("aclCreateTensor: "), HasSubstr(why),
                    HasSubstr("[aclnnStatus 161002]")));
}

TEST(AclnnDescriptorTest, ViewPastTheStorageIsRejected) {
  ExpectRejected({{4, 4}, {4, 1}, 1, {16}}, "the view [4, 4] with strides [4, 1] and offset 1 "
                                            "reaches element 16, past the storage shape [16] (16 "
                                            "elements)");
}

TEST(AclnnDescriptorTest, StridedSpanThatWrapsInt64IsRejected) {
  // (3 - 1) * 2^62 = 2^63: wrapped to a negative "last element" before.
  ExpectRejected({{3}, {k2e62}, 0, {16}}, "reaches element beyond INT64_MAX");
  // offset + span past INT64_MAX.
  ExpectRejected({{2}, {8}, INT64_MAX - 4, {16}}, "reaches element beyond INT64_MAX");
}

TEST(AclnnDescriptorTest, ShapesWhoseDimsMultiplyPastInt64AreRejected) {
  ExpectRejected({{k2e40, k2e40}, {0, 0}, 0, {1}},
                 "viewDims [1099511627776, 1099511627776] of ACL_FLOAT hold more than");
  ExpectRejected({{1}, {}, 0, {k2e40, k2e40}}, "storageDims [1099511627776, 1099511627776]");
  // Empty (a zero dim) but the other dims overflow any product taken without the zero.
  ExpectRejected({{k2e40, k2e40, 0}, {}, 0, {0}}, "(counting the non-zero dims)");
  // Bytes, not elements: 2^61 floats are 2^63 bytes.
  ExpectRejected({{int64_t{1} << 61}, {0}, 0, {1}}, "hold more than 9223372036854775807 bytes");
}

TEST(AclnnDescriptorTest, EdgesInsideTheLimitsAreAccepted) {
  for (const Desc& d : std::vector<Desc>{
           {{0}, {}, 0, {0}},                      // empty over empty storage
           {{k2e40, 0}, {}, 5, {0}},               // empty: touches nothing
           {{4, 8}, {0, 0}, 0, {1}},               // broadcast of one element
           {{int64_t{1} << 60}, {0}, 0, {1}},      // 2^62 bytes of view
           {{2}, {kMaxFloats - 1}, 0, {kMaxFloats}},  // the last float of the largest storage
           {{}, {}, 15, {16}},                      // a scalar view at the last element
       }) {
    aclTensor* t = Create(d);
    EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
    aclDestroyTensor(t);
  }
}

TEST(AclnnDescriptorTest, InitTensorRejectsTheSameAndKeepsTheTensor) {
  const int64_t dims[] = {8};
  aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  ASSERT_NE(t, nullptr);
  const int64_t huge[] = {k2e40, k2e40, 0};
  EXPECT_EQ(aclInitTensor(t, huge, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, huge, 3, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  int64_t* shape = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &shape, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(shape[0], 8);
  delete[] shape;
  aclDestroyTensor(t);
}

}  // namespace
