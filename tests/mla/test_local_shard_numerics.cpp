// The local-shard family's plans (vllm-pcp-and-sparse.md §3, mla_pcp.py at vllm-project/vllm@b4a0027c)
// through the CPU numerics: each rank attends its own rows, folds its chunk partials, and the ranks
// combine once (reference/mla/check.cpp, Plan::local_attention). The exact path equals the unchunked
// reference bit for bit (exact sums do not depend on the partition into ranks); CB-1's empty+empty
// merge on rank 1 shows as NaN on ROCm's Triton merge and not on CUDA's kernel.
#include <gtest/gtest.h>

#include "reference/mla/check.h"

namespace cp::mla {
namespace {

TEST(LocalShardNumerics, RandomCasesBitForBit) {
  int ran = 0;
  for (Platform p : {Platform::cuda, Platform::rocm})
    for (std::uint64_t i = 0; i < 12; ++i) {
      const Case c = random_case(Version::pcp_local_shard, p, 9, i);
      const CheckResult r = run_check(c, {});
      if (r.assert_fired) continue;  // the old planner's per-step assert M % W == 0
      EXPECT_TRUE(r.exact.identical()) << print_case(c);
      EXPECT_EQ(r.attended_rows, r.context_rows) << print_case(c);
      ++ran;
    }
  EXPECT_GE(ran, 12);
}

// Hazard pinned: CB-1 (§3.5), at small shapes: W = P = 2, ctx [700, 1], S = 512 (3 chunks): rank 1
// has no row of request 1, so its chunk 0 and chunk 1 partials are both (0, -inf).
TEST(LocalShardNumerics, CB1NaNOnTritonOnly) {
  const std::string line = "version=pcp-local-shard workspace=512 block=16 dcp=2 pcp=2 ctx=700,1 q=4,4";
  const CheckResult rocm = run_check(parse_case(line + " platform=rocm"), {});
  EXPECT_TRUE(rocm.exact.identical());
  ASSERT_TRUE(rocm.vllm.ran);
  EXPECT_GT(rocm.vllm.flavours[0].nan, 0);  // triton: request 1's tokens
  ASSERT_TRUE(rocm.vllm.flavours[0].first_nan);
  EXPECT_EQ(rocm.vllm.flavours[0].first_nan->request, 1);
  EXPECT_FALSE(rocm.vllm.ok());
  EXPECT_EQ(rocm.vllm.flavours[1].nan, 0);  // cuda: prefix copy
  const CheckResult cuda = run_check(parse_case(line + " platform=cuda"), {});
  EXPECT_TRUE(cuda.vllm.ok());
  // The same batch with request 1's token on both ranks' shards (ctx 2): no empty rank, no NaN.
  const CheckResult two = run_check(parse_case("version=pcp-local-shard workspace=512 block=16 dcp=2 pcp=2 "
                                               "ctx=700,2 q=4,4 platform=rocm"),
                                    {});
  EXPECT_EQ(two.vllm.flavours[0].nan, 0);
}

}  // namespace
}  // namespace cp::mla
