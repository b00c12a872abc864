// The prover on vLLM main's new families (issue 25 item 4): the sparse indexer chunker, the
// FlashMLA sparse gathered prefill, the sparse builder's profile reservation and the PCP rows.
// Per row: a true rule PROVED UNBOUNDED (no upper bound of the domain assumed), and each bug of
// vllm-pcp-and-sparse.md (#51252, DB-2, ZB-2 / #57170, PB-1, PB-2, pcp-c's rank-local chunks)
// a counterexample whose case line replays through the planner to a violation of the same
// invariant. A removed encoding reads "not encoded" and fails these; so does an encoding that
// stops matching the planner (ENCODING DISAGREES).
#include "tests/smt/prove_rows.h"

namespace cp::smt {
namespace {

using enum InvariantId;

using namespace prove_test;

// #51252: the V4 consumer's floor(WS/rho) K rows against the chunker's WS; V3.2's consumer has WS.
TEST(SmtVllmSparse, IndexerConsumerBufferRefutedOnV4AndProvedOnV32) {
  const Case c = expect_counterexample(Version::indexer_dsv4, E3_indexer_consumer_rows);
  if (!c.ctx.empty()) {
    // The one slice holds more than floor(40*mml/rho) K rows, so rho > 1 and > 40 rows.
    EXPECT_GT(c.compress_ratio, 1) << print_case(c);
    EXPECT_GT(c.ctx.size(), 40u) << print_case(c);
  }
  expect_proved_unbounded(Version::indexer_dsv32, E3_indexer_consumer_rows);
}

// E-1 (I-4 on the indexer's plans), E-2, E-4, E-5, E-6 hold on both versions for any batch.
TEST(SmtVllmSparse, IndexerBudgetsTilingAndKeyRangesProved) {
  for (Version v : {Version::indexer_dsv32, Version::indexer_dsv4})
    for (InvariantId id : {I4_global_row_budget, E2_indexer_logits_budget, E4_indexer_shared_gather,
                           E5_indexer_token_cover, E6_indexer_key_ranges})
      expect_proved_unbounded(v, id);
}

// DB-2: cdiv(e, W) rows per rank miss the busiest rank's share once I > 1; cdiv(e, I*W)*I proves.
TEST(SmtVllmSparse, GatheredRowsPerRankRefutedForInterleaveAndVblockProves) {
  for (InvariantId id : {D5_gathered_shard_cover, D7_gathered_layout}) {
    const Case c = expect_counterexample(Version::gathered_pr56157, id);
    if (!c.ctx.empty()) {
      EXPECT_GT(c.interleave, 1) << print_case(c);  // for I = 1, cdiv(e, W) is exact
    }
    expect_proved_unbounded(Version::gathered_vblock, id);
  }
}

// ZB-2 (#57170): the profile run's dense-formula reservation falls below S_sparse for some
// deployment; the dense builders have no separate reservation (n/a).
TEST(SmtVllmSparse, ProfileReservationRefutedOnTheSparseBuilder) {
  const Case c = expect_counterexample(Version::v6_sparse, Z1_profile_reservation);
  if (!c.ctx.empty()) {
    ASSERT_TRUE(c.max_num_seqs.has_value());
    // S_sparse's floor mns*B exceeds the dense size only with many sequences.
    EXPECT_GT(*c.max_num_seqs * c.block, 65536) << print_case(c);
  }
  EXPECT_EQ(row(one(Version::v6_current, Z1_profile_reservation)).status, Status::not_applicable);
}

// P-1 and P-2: the DualChunkSwap pieces tile each prefill's new tokens, at most two per rank.
TEST(SmtVllmSparse, PcpPiecesTileAndTwoPerRankProved) {
  for (Version v : {Version::pcp_a, Version::pcp_b, Version::pcp_c})
    for (InvariantId id : {P1_pcp_row_coverage, P2_pcp_row_shape}) expect_proved_unbounded(v, id);
}

// PB-2: PCP-B keeps generation order, so a prefill listed before a decode leaves the decode behind
// the first prefilling row; PCP-A's sort key and PCP-C's decodes-first order prove.
TEST(SmtVllmSparse, PcpDecodesFirstRefutedOnPcpB) {
  const Case c = expect_counterexample(Version::pcp_b, P9_pcp_decodes_first);
  if (!c.ctx.empty()) {
    ASSERT_EQ(c.q.size(), 2u);
    EXPECT_GE(c.q[0], 1) << print_case(c);
    EXPECT_EQ(c.q[1], 1) << print_case(c);  // the decode comes second
  }
  expect_proved_unbounded(Version::pcp_a, P9_pcp_decodes_first);
  expect_proved_unbounded(Version::pcp_c, P9_pcp_decodes_first);
}

// P-13 (#53573): every version's ranks can disagree under DCP. On PCP-A/B the short-prompt
// family (PB-1) is one of them; PCP-C replicates short prompts, so its counterexample is a split
// prefill whose rank-local rows v6 packs into different first chunks. The encoding is bounded
// (one prefill, P = DCP = 2, block 16, interleave 1, the first chunk): a search, not a proof.
TEST(SmtVllmSparse, PcpCollectiveSymmetryRefutedOnEveryVersion) {
  for (Version v : {Version::pcp_a, Version::pcp_b, Version::pcp_c}) {
    const Case c = expect_counterexample(v, P13_pcp_collective_symmetry);
    if (v == Version::pcp_c && !c.q.empty()) {
      // Not a replicated short prefill: (C - 1) * cdiv(q, C) < q with C = 4.
      EXPECT_LT(3 * ((c.q[0] + 3) / 4), c.q[0]) << print_case(c);
    }
  }
}

}  // namespace
}  // namespace cp::smt
