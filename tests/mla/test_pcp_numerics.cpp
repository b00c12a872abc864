// PCP plans through the numerics (issue 25 item 5; vllm-pcp-and-sparse.md §1.7): every PCP rank's
// v6 plan over its rows runs the chunked pipeline, a row's context is its start (other ranks' new
// tokens of the step included), the rows of a request on one rank attend overlapping contexts, and
// every row token is compared bit for bit with the unchunked reference of its whole global
// request. Each test fails if only pcp_rank's rows ran (the element count), if a row attended the
// wrong keys (a dropped row below), or if the pcp family were refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "reference/caseio/regression.h"
#include "reference/dcp/movement.h"
#include "reference/mla/check.h"
#include "reference/planner/families/pcp/family.h"

namespace cp::mla {
namespace {

// Output elements of every rank's prefill rows: what a check of every rank compares.
std::int64_t every_rank_elements(const Case& c) {
  const Inputs in = make_inputs(c);
  std::int64_t tokens = 0;
  for (const PcpRankView& v : pcp_rank_views(c, in))
    for (int i : v.plan.prefills) tokens += v.rows.q[static_cast<std::size_t>(i)];
  return tokens * in.s.N * in.s.Vd;
}

TEST(PcpNumerics, RandomCasesEveryRankBitIdenticalToTheGlobalReference) {
  int several_ranks = 0;
  for (Version v : {Version::pcp_a, Version::pcp_b, Version::pcp_c})
    for (std::uint64_t i = 0; i < 24; ++i) {
      const Case c = random_case(v, i % 2 ? Platform::rocm : Platform::cuda, 1, i);
      const CheckResult r = run_check(c, {});
      SCOPED_TRACE(print_case(c) + "\n  " + r.one_line());
      if (r.assert_fired) continue;
      EXPECT_EQ(r.exit_code(), 0);
      EXPECT_TRUE(r.exact.identical());
      EXPECT_EQ(r.exact.elements, every_rank_elements(c));
      const Plan p = make_plan(c);
      std::int64_t mine = 0;  // the selected rank's prefill tokens alone
      for (int k : p.prefills) mine += p.pcp->batch_q[static_cast<std::size_t>(k)];
      if (r.prefill_tokens > mine) ++several_ranks;
    }
  EXPECT_GT(several_ranks, 10);  // rows of ranks other than pcp_rank were run and compared
}

// P = 2, one request of 64 new tokens after 1000 cached: rank 0 rows (1000, 16) and (1048, 16),
// rank 1 rows (1016, 16) and (1032, 16) (§1.7's example). Rank 1's row (1032, 16) attends 1032
// context keys, 32 of them rank 0's and its own new tokens; every one of the 64 tokens is
// compared with the global request's reference.
TEST(PcpNumerics, RowsAttendOtherRanksNewTokens) {
  const Case c = parse_case(
      "version=pcp-b platform=cuda workspace=512 block=16 pcp=2 ctx=1000 q=64 heads=2 kv_lora_rank=8 rope_dim=4 "
      "nope_dim=4 v_dim=4");
  CheckOptions o;
  o.keep_outputs = true;
  const CheckResult r = run_check(c, o);
  EXPECT_TRUE(r.exact.identical()) << r.one_line();
  EXPECT_EQ(r.prefill_tokens, 64);
  EXPECT_EQ(r.context_rows, 1000 + 1048 + 1016 + 1032);  // four rows' contexts, overlapping
  EXPECT_EQ(r.exact.elements, 64 * 2 * 4);
  EXPECT_EQ(r.reference_out.size(), r.chunked_out.size());
}

// A movement that drops each gather run's last row: the rows attend one key fewer, and the
// comparison with the global reference names it.
ChunkMovement drop_last_row(const Plan& p, const Chunk& ch) {
  ChunkMovement m = chunk_movement(p, ch);
  for (CopyRun& g : m.gather)
    if (g.len > 0) --g.len;
  return m;
}

TEST(PcpNumerics, AMissingKeyOnAnyRankIsABitDifference) {
  const Case c = parse_case(
      "version=pcp-c platform=cuda workspace=512 block=16 pcp=2 ctx=300,0 q=40,30 heads=2 kv_lora_rank=8 rope_dim=4 "
      "nope_dim=4 v_dim=4");
  CheckOptions o;
  o.movement = &drop_last_row;
  const CheckResult r = run_check(c, o);
  EXPECT_GT(r.exact.differing, 0) << r.one_line();
  EXPECT_EQ(r.exit_code(), 1);
}

// The corpus's PCP cases through the numbers: each rank's rows bit-identical (P-13 and PB-2 are
// collective and order hazards, not wrong keys); under ctx_reuse=on the merged rows too, except the
// reversed pair's hazard, which the numbers show as a finding.
TEST(PcpNumerics, CorpusPcpCasesBitIdentical) {
  const std::filesystem::path dir = std::filesystem::path(CHUNKPROOF_SOURCE_DIR) / "corpus" / "regressions";
  int ran = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("pcp-", 0) != 0) continue;
    const CaseRecord rf = read_regression_file(e.path().string());
    for (const auto& ex : rf.expects) {
      const Case c = rf.case_for(ex.version);
      const CheckResult r = run_check(c, {});
      SCOPED_TRACE(e.path().filename().string() + ": " + print_case(c));
      if (r.assert_fired) continue;
      if (e.path().filename() == "pcp-reuse-reversed-pair.case" && ex.version != Version::pcp_c) {
        // CR-1's hazard on pcp-a/pcp-b (row a after row b): piece 0's tokens attend later positions
        EXPECT_EQ(r.exit_code(), 1) << r.one_line();
        continue;
      }
      EXPECT_TRUE(r.exact.identical()) << r.one_line();
      EXPECT_TRUE(r.vllm.ok()) << r.one_line();
      ++ran;
    }
  }
  EXPECT_GE(ran, 8);
}

}  // namespace
}  // namespace cp::mla
