// A plan's own verdict (reference/io/plan_corruption.h): its exact chunked reference against
// the unchunked one bit for bit, which requests and tokens, merge NaN; and the token owners a
// manifest gives.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/io/export.h"
#include "reference/io/plan_corruption.h"

namespace cp::io {
namespace {

// Request 1 has 3 new tokens, request 2 has 2 (request 0 a decode): 5 prefill tokens x 2.
const std::vector<TokenOwner> kOwners{{1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}};
const std::vector<float> kRef{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

TEST(PlanCorruption, IdenticalBitsAreExact) {
  const auto p = diff_plan_outputs(kRef, kRef, kRef, kOwners, 2);
  EXPECT_TRUE(p.checked);
  EXPECT_EQ(p.elements, 10);
  EXPECT_FALSE(p.corrupts());
  EXPECT_TRUE(p.requests.empty());
}

TEST(PlanCorruption, NamesTheRequestsAndTokensThatDiffer) {
  auto chunked = kRef;
  chunked[3] = std::nextafter(chunked[3], 100.0f);  // request 1 token 1: one ulp is a difference
  chunked[6] = -chunked[6];                         // request 2 token 0
  chunked[9] = 0.0f;                                // request 2 token 1
  const auto p = diff_plan_outputs(kRef, chunked, {}, kOwners, 2);
  EXPECT_TRUE(p.corrupts());
  EXPECT_EQ(p.differing, 3);
  ASSERT_EQ(p.requests.size(), 2u);
  EXPECT_EQ(p.requests[0].request, 1);
  EXPECT_EQ(p.requests[0].tokens, (std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 2}}));
  EXPECT_EQ(p.requests[1].request, 2);
  EXPECT_EQ(p.requests[1].differing, 2);
  EXPECT_EQ(p.requests[1].tokens, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 2}}));
  const auto s = p.summary();
  EXPECT_NE(s.find("3 of 10 elements differ"), std::string::npos) << s;
  EXPECT_NE(s.find("request 1 tokens 1,"), std::string::npos) << s;
  EXPECT_NE(s.find("request 2 tokens 0-1"), std::string::npos) << s;
}

TEST(PlanCorruption, SignedZeroIsABitDifference) {
  std::vector<float> ref(10, 0.0f), chunked = ref;
  chunked[0] = -0.0f;
  EXPECT_EQ(diff_plan_outputs(ref, chunked, {}, kOwners, 2).differing, 1);
}

TEST(PlanCorruption, MergeNaNWithAnExactDataPathStillCorrupts) {
  auto vllm = kRef;
  vllm[8] = std::numeric_limits<float>::quiet_NaN();  // the Triton empty + empty merge (I-12)
  const auto p = diff_plan_outputs(kRef, kRef, vllm, kOwners, 2);
  EXPECT_EQ(p.differing, 0);
  EXPECT_EQ(p.merge_nan, 1);
  EXPECT_TRUE(p.corrupts());
  EXPECT_NE(p.summary().find("1 NaN elements in the vLLM-style merge path: request 2 tokens 1"), std::string::npos)
      << p.summary();
}

TEST(PlanCorruption, RejectsTensorsOfTheWrongSize) {
  EXPECT_THROW(diff_plan_outputs(kRef, std::vector<float>(9), {}, kOwners, 2), IoError);
  EXPECT_THROW(diff_plan_outputs(kRef, kRef, std::vector<float>(4), kOwners, 2), IoError);
}

TEST(TokenOwners, FollowTheManifestsPrefillOrder) {
  const auto m = manifest_of(
      parse_case("version=v6-current platform=cuda workspace=256 block=16 ctx=50,300,77 q=1,3,4"), PlanVerdict{});
  const auto owners = token_owners(nlohmann::json::parse(m.dump()));
  ASSERT_EQ(owners.size(), 7u);  // request 0 is a decode: not a prefill token
  EXPECT_EQ(owners[0].request, 1);
  EXPECT_EQ(owners[2].token_in_request, 2);
  EXPECT_EQ(owners[3].request, 2);
  EXPECT_EQ(owners[6].token_in_request, 3);
}

TEST(TokenOwners, MalformedManifestsAreIoErrors) {
  auto m = nlohmann::json::parse(
      manifest_of(parse_case("version=v6-current platform=cuda workspace=256 block=16 ctx=50,77 q=3,4"), PlanVerdict{})
          .dump());
  auto no_prefills = m;
  no_prefills.erase("prefills");
  EXPECT_THROW(token_owners(no_prefills), IoError);
  auto overlap = m;
  overlap["requests"][1]["token0"] = 1;  // overlaps request 0's tokens
  EXPECT_THROW(token_owners(overlap), IoError);
  auto short_t = m;
  short_t["prefill_tokens"] = 9;  // nobody owns tokens 7, 8
  EXPECT_THROW(token_owners(short_t), IoError);
}

}  // namespace
}  // namespace cp::io
