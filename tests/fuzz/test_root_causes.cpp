// Issue 24 item 2: findings of one root cause are one entry of the fuzz report. The raw signatures
// below are the MI300X family's as a v1-dcp/rocm campaign records them: the same unrounded chunk
// width M breaks I-6 alone, I-5 with it, or I-4/I-7 too, and the assert fires in two stages.
#include <gtest/gtest.h>

#include "campaign/campaign.h"

namespace cp::fuzz {
namespace {

CampaignFinding finding(std::string sig, std::string invariant, std::string line) {
  CampaignFinding f;
  f.signature = std::move(sig);
  f.invariant = std::move(invariant);
  f.case_line = std::move(line);
  return f;
}

TEST(RootCauses, AssertStagesAndCoViolationsCollapse) {
  const std::vector<CampaignFinding> fs{
      finding("v1-dcp/rocm violation: I-5,I-6", "I-5", "version=v1-dcp ctx=5,6 q=2,2"),
      finding("v1-dcp/rocm assert[chunk]: max_context_chunk % dcp_world_size == 0", "assert",
              "version=v1-dcp ctx=9 q=2"),
      finding("v1-dcp/rocm violation: I-5,I-6,I-7", "I-5", "version=v1-dcp ctx=5 q=2"),
      finding("v1-dcp/rocm assert[forward]: max_context_chunk % dcp_world_size == 0", "assert",
              "version=v1-dcp ctx=1,2,3 q=2,2,2"),
      finding("v1-dcp/cuda violation: I-5,I-6", "I-5", "version=v1-dcp platform=cuda ctx=5 q=2"),
      finding("v1-dcp/rocm violation: I-6", "I-6", "version=v1-dcp ctx=5 q=2"),
  };
  const auto groups = group_findings(fs);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].root_cause, "v1-dcp/rocm violation: I-5");
  // The representative has the fewest requests: finding 2 (ctx=5), not finding 0 (ctx=5,6).
  EXPECT_EQ(groups[0].members, (std::vector<std::size_t>{2, 0}));
  EXPECT_EQ(groups[1].root_cause, "v1-dcp/rocm assert: max_context_chunk % dcp_world_size == 0");
  EXPECT_EQ(groups[1].members, (std::vector<std::size_t>{1, 3}));
  // Another platform is another root cause (its rounding rule differs), and so is another
  // first invariant.
  EXPECT_EQ(groups[2].root_cause, "v1-dcp/cuda violation: I-5");
  EXPECT_EQ(groups[3].root_cause, "v1-dcp/rocm violation: I-6");
}

TEST(RootCauses, ACrashAndASlowUnitKeepTheirSignature) {
  const auto crash = finding("v6-current/cuda crash: out of memory", "crash", "");
  EXPECT_EQ(root_cause(crash), "v6-current/cuda crash: out of memory");
  auto slow = finding("slow-unit", "", "");
  slow.kind = "slow";
  EXPECT_EQ(root_cause(slow), "slow-unit");
}

}  // namespace
}  // namespace cp::fuzz
