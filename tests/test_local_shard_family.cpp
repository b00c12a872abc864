// vLLM's dense PCP x DCP local-shard context path (vllm-pcp-and-sparse.md §3; vllm-project/vllm@b4a0027c
// vllm/model_executor/layers/attention/mla_pcp.py and mla_attention.py, same rules at 0268d827) as
// the local-shard family: the local lengths l (§3.2) on worked cases, C-3's sums, the dispatch on
// dcp / pcp (§3.1), the keys, the universal checks on its plans (I-3, I-9 over every rank's rows;
// the span rules n/a by C-4) and the hazards CB-1 (C-5) and CB-2 (C-1, C-2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "invariants/catalogue.h"
#include "reference/dcp/movement.h"

namespace cp {
namespace {

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }
Evaluation eval(const std::string& tail) { return evaluate(parse_case("version=pcp-local-shard " + tail)); }
std::vector<std::vector<std::int64_t>> kept(const Plan& p, int request) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& ch : p.chunks)
    for (const auto& e : ch.entries)
      if (e.request == request) out.push_back(e.kept);
  return out;
}
std::string key_of(const std::string& tail) {
  try {
    (void)make_plan(parse_case(tail));
  } catch (const CaseError& e) {
    return e.key;
  }
  return "";
}

// §3.5's numbers for CB-1's batch: M = round_down(65536 // 2, 64) = 32768, PL = cdiv(M, 2) = 16384,
// 3 chunks; request 0's shares 35000 per rank end with 2232 rows in chunk 2, request 1's one
// context token lives on rank 0 only (L = [1, 0]).
TEST(LocalShardFamily, LocalLengthsOfCB1) {
  const Plan p = make_plan(
      parse_case("version=pcp-local-shard platform=rocm workspace=65536 block=64 dcp=2 pcp=2 ctx=70000,1 q=4,4"));
  EXPECT_EQ(p.chunk_width, 32768);
  EXPECT_EQ(p.local_chunk, 16384);
  ASSERT_EQ(p.chunks.size(), 3u);
  EXPECT_EQ(kept(p, 0), (std::vector<std::vector<std::int64_t>>{{16384, 16384}, {16384, 16384}, {2232, 2232}}));
  EXPECT_EQ(kept(p, 1), (std::vector<std::vector<std::int64_t>>{{1, 0}, {0, 0}, {0, 0}}));
  EXPECT_TRUE(p.local_attention);
}

// Interleave 2, W = 2 (V = 4), S = 8, B = 4, ctx = 10: M = 8, PL = cdiv(8, 4) * 2 = 4, two chunks.
// Rank 0 owns positions 0,1,4,5,8,9 (L = 6), rank 1 owns 2,3,6,7 (L = 4): chunk 0 takes local rows
// [0, 4) of both, chunk 1 rows [4, 6) of rank 0 and none of rank 1. The ranks' rows of chunk c are
// the positions [c*PL*W, (c+1)*PL*W): spans [0, 8) and [8, 10); L comes from ctx, never ctx + q (C-6).
TEST(LocalShardFamily, LocalLengthsUnderInterleave) {
  const Plan p =
      make_plan(parse_case("version=pcp-local-shard workspace=8 block=4 dcp=2 interleave=2 pcp=2 ctx=10 q=7"));
  ASSERT_EQ(p.chunks.size(), 2u);
  EXPECT_EQ(p.local_ctx[0], (std::vector<std::int64_t>{6, 4}));
  EXPECT_EQ(kept(p, 0), (std::vector<std::vector<std::int64_t>>{{4, 4}, {2, 0}}));
  EXPECT_EQ(p.chunks[0].entries[0].start, 0);
  EXPECT_EQ(p.chunks[0].entries[0].len, 8);
  EXPECT_EQ(p.chunks[1].entries[0].start, 8);
  EXPECT_EQ(p.chunks[1].entries[0].len, 2);
  // Rank 0's chunk-1 run: local slots 4, 5 = positions 8, 9.
  const ChunkMovement m = chunk_movement(p, p.chunks[1]);
  EXPECT_EQ(m.exchange, Exchange::local_attend);
  ASSERT_EQ(m.gather.size(), 1u);
  EXPECT_EQ(m.gather[0].rank, 0);
  EXPECT_EQ(m.gather[0].src, 4);
  EXPECT_EQ(m.gather[0].len, 2);
}

// Spec §3.2: l equals the rows reorg_kvcache keeps for that rank (v3-pr46114's plan of the same
// batch: the same old planner metadata), because L <= cdiv(ctx, V) * I.
TEST(LocalShardFamily, LocalRowsEqualReorgsKeptRows) {
  for (const char* batch : {"ctx=70000,1 q=4,4", "ctx=30000,100,0 q=16,16,16", "ctx=5000,4999,1,64 q=2,2,2,2"}) {
    const std::string geo = " platform=rocm workspace=16384 block=64 dcp=8 interleave=16 ";
    const Plan ls = make_plan(parse_case(std::string("version=pcp-local-shard pcp=8") + geo + batch));
    const Plan v3 = make_plan(parse_case(std::string("version=v3-pr46114") + geo + batch));
    ASSERT_EQ(ls.chunks.size(), v3.chunks.size()) << batch;
    for (std::size_t c = 0; c < ls.chunks.size(); ++c)
      for (std::size_t b = 0; b < ls.chunks[c].entries.size(); ++b)
        EXPECT_EQ(ls.chunks[c].entries[b].kept, v3.chunks[c].entries[b].kept) << batch << " chunk " << c;
  }
}

// C-3 on a spread of batches: sum over chunks of l = L per rank, sum over ranks of L = ctx; the
// universal I-3 and I-9 (exactly once, over every rank's local rows) decide and hold.
TEST(LocalShardFamily, CoverageSumsAndUniversalChecks) {
  int checked = 0;
  for (std::int64_t W : {2, 3, 4, 8})
    for (std::int64_t I : {1, 2, 16})
      for (const char* batch : {"ctx=1000,999,1 q=3,3,3", "ctx=4096,0 q=8,8", "ctx=12345 q=2"}) {
        const std::string line = "version=pcp-local-shard workspace=" + std::to_string(960 * W) +
                                 " block=16 dcp=" + std::to_string(W) + " interleave=" + std::to_string(I) +
                                 " pcp=" + std::to_string(W) + " " + batch;
        const Evaluation ev = evaluate(parse_case(line));
        for (InvariantId id : {InvariantId::C3_local_coverage, InvariantId::I3_coverage, InvariantId::I9_reorg_exact,
                               InvariantId::C6_local_lengths_from_context, InvariantId::C4_local_workspace_rows})
          EXPECT_EQ(result(ev, id).verdict, Verdict::ok) << line << " " << info(id).tag;
        for (int r : ev.plan.prefills) {
          std::int64_t shares = 0;
          for (std::int64_t d = 0; d < W; ++d) {
            std::int64_t rows = 0;
            for (const auto& row : kept(ev.plan, r)) rows += row[static_cast<std::size_t>(d)];
            EXPECT_EQ(rows, ev.plan.local_ctx[static_cast<std::size_t>(r)][static_cast<std::size_t>(d)]) << line;
            shares += rows;
          }
          EXPECT_EQ(shares, ev.c.ctx[static_cast<std::size_t>(r)]) << line;
        }
        ++checked;
      }
  EXPECT_EQ(checked, 36);
}

// A plan broken by hand must fail the checks that read it: a rank's local row dropped (C-3, and
// I-9 token by token: a position never attended) or a length taken from ctx + q (C-6).
TEST(LocalShardFamily, ChecksFailOnABrokenPlan) {
  const Case c = parse_case("version=pcp-local-shard workspace=8 block=4 dcp=2 interleave=2 pcp=2 ctx=10 q=7");
  Plan p = make_plan(c);
  p.chunks[1].entries[0].kept[0] = 1;
  EXPECT_EQ(check(InvariantId::C3_local_coverage, c, p).verdict, Verdict::violated);
  EXPECT_EQ(check(InvariantId::I9_reorg_exact, c, p, Level::token).verdict, Verdict::violated);
  EXPECT_EQ(check(InvariantId::C6_local_lengths_from_context, c, p).verdict, Verdict::violated);
  Plan q = make_plan(c);
  q.local_ctx[0][0] = 6 + 7;  // L from ctx + q
  EXPECT_EQ(check(InvariantId::C6_local_lengths_from_context, c, q).verdict, Verdict::violated);
}

// §3.1: dcp_tp_size = dcp / pcp == 1 takes the local shard; dcp = tp * pcp the all-gather path,
// where vLLM's span rules apply again and C-1/C-4..C-6 say n/a.
TEST(LocalShardFamily, DispatchOnDcpOverPcp) {
  const Evaluation local = eval("workspace=4096 block=16 dcp=2 pcp=2 ctx=3000,100 q=4,4");
  EXPECT_TRUE(local.plan.local_attention);
  EXPECT_EQ(chunk_movement(local.plan, local.plan.chunks[0]).exchange, Exchange::local_attend);
  for (InvariantId id : {InvariantId::I4_global_row_budget, InvariantId::I6_virtual_block_alignment,
                         InvariantId::I7_local_row_budget, InvariantId::I10_gather_start_semantics}) {
    EXPECT_EQ(result(local, id).verdict, Verdict::not_applicable) << info(id).tag;
    EXPECT_NE(result(local, id).note.find("C-4"), std::string::npos) << info(id).tag;
  }
  const Evaluation reorg = eval("workspace=4096 block=16 dcp=4 pcp=2 tp=2 ctx=3000,100 q=4,4");
  EXPECT_FALSE(reorg.plan.local_attention);
  EXPECT_EQ(chunk_movement(reorg.plan, reorg.plan.chunks[0]).exchange, Exchange::all_gather);
  for (InvariantId id : {InvariantId::I4_global_row_budget, InvariantId::I6_virtual_block_alignment,
                         InvariantId::I7_local_row_budget, InvariantId::I9_reorg_exact})
    EXPECT_EQ(result(reorg, id).verdict, Verdict::ok) << info(id).tag;
  EXPECT_EQ(result(reorg, InvariantId::C4_local_workspace_rows).verdict, Verdict::not_applicable);
  EXPECT_EQ(reorg.outcome, Outcome::ok);
  // The path as the user names it must be the one the dispatch takes.
  EXPECT_NO_THROW(eval("workspace=4096 block=16 dcp=4 pcp=2 tp=2 mla_pcp_path=gather_reorg ctx=3000 q=4"));
  EXPECT_EQ(key_of("version=pcp-local-shard workspace=4096 block=16 dcp=2 pcp=2 mla_pcp_path=gather_reorg ctx=1 q=4"),
            "mla_pcp_path");
}

// Bad input names the key and the rule (exit 2).
TEST(LocalShardFamily, KeyErrors) {
  const std::string ls = "version=pcp-local-shard workspace=4096 block=16 ";
  EXPECT_EQ(key_of(ls + "dcp=2 ctx=1 q=4"), "pcp");        // P is required
  EXPECT_EQ(key_of(ls + "dcp=2 pcp=1 ctx=1 q=4"), "pcp");  // P >= 2
  EXPECT_EQ(key_of(ls + "dcp=3 pcp=2 ctx=1 q=4"), "dcp");  // dcp in {P, TP*P}
  EXPECT_EQ(key_of(ls + "dcp=1 pcp=2 ctx=1 q=4"), "dcp");  // mla_pcp.py runs under DCP only
  EXPECT_EQ(key_of(ls + "dcp=2 pcp=2 pcp_rows=pcp-z ctx=1 q=4"), "pcp_rows");
  EXPECT_EQ(key_of(ls + "dcp=2 pcp=2 mla_pcp_path=local ctx=1 q=4"), "mla_pcp_path");
  EXPECT_EQ(key_of(ls + "dcp=2 pcp=2 pcp_rank=1 ctx=1 q=4"), "pcp_rank");      // replicated rows: no rank to pick
  EXPECT_EQ(key_of(ls + "dcp=2 pcp=2 ctx=1,1 q=4,1"), "q");                    // replicated: vLLM's decodes-first order
  EXPECT_EQ(key_of(ls + "dcp=4 pcp=2 tp=2 pcp_rows=pcp-a ctx=1 q=4"), "dcp");  // PCP-A's manager: dcp = P only
  EXPECT_EQ(key_of("version=v6-current workspace=4096 block=16 pcp_rows=pcp-b ctx=1 q=4"), "pcp_rows");
  EXPECT_EQ(key_of("version=v6-current workspace=4096 block=16 mla_pcp_path=local_shard ctx=1 q=4"), "mla_pcp_path");
  // The canonical line round-trips with the new keys.
  const Case c = parse_case(ls + "dcp=2 pcp=2 pcp_rows=PCP-B pcp_rank=1 mla_pcp_path=local_shard ctx=0 q=2");
  EXPECT_EQ(parse_case(print_case(c)), c);
}

// Hazard pinned: CB-1 (§3.5). On DCP rank 1 request 1 holds no row in any chunk: chunks 0 and 1 of
// rank 1 merge (-inf, -inf): NaN through ROCm's Triton merge (C-5 names rank 1, request 1); the CUDA
// kernel copies the prefix. The global spans are fine (I-12 ok): the NaN is a rank's.
TEST(LocalShardFamily, CB1RankOneMergesTwoEmptyPartials) {
  const Evaluation rocm = eval("platform=rocm workspace=65536 block=64 dcp=2 pcp=2 ctx=70000,1 q=4,4");
  const InvariantResult& c5 = result(rocm, InvariantId::C5_local_empty_rows);
  ASSERT_EQ(c5.verdict, Verdict::violated);
  EXPECT_EQ(c5.total_violations, 1);
  EXPECT_EQ(c5.violations[0].rank, 1);
  EXPECT_EQ(c5.violations[0].request, 1);
  EXPECT_EQ(result(rocm, InvariantId::I12_merge_preconditions).verdict, Verdict::ok);
  EXPECT_EQ(rocm.outcome, Outcome::violation);
  const Evaluation cuda = eval("platform=cuda workspace=65536 block=64 dcp=2 pcp=2 ctx=70000,1 q=4,4");
  EXPECT_EQ(result(cuda, InvariantId::C5_local_empty_rows).verdict, Verdict::ok);
  EXPECT_EQ(cuda.outcome, Outcome::ok);
}

// Hazard pinned: CB-2 (§3.5; PB-1 / #53573's case). With rank-local metadata (pcp_rows=pcp-b) rank
// 0's row (0, 0, 1) has no context and skips the context path, rank 1's (0, 1, 1) enters it and its
// DCP combine alone (C-2); their query rows differ (C-1). PCP-C replicates the prompt: ok.
TEST(LocalShardFamily, CB2RankLocalMetadataSplitsTheCombine) {
  const Evaluation b = eval("workspace=1024 block=16 dcp=2 pcp=2 pcp_rows=pcp-b ctx=0 q=2");
  ASSERT_TRUE(b.plan.pcp);
  EXPECT_FALSE(b.plan.pcp->ranks[0].context_path);
  EXPECT_TRUE(b.plan.pcp->ranks[1].context_path);
  EXPECT_EQ(result(b, InvariantId::C2_local_collective_symmetry).verdict, Verdict::violated);
  EXPECT_EQ(result(b, InvariantId::C2_local_collective_symmetry).violations[0].rank, 1);
  EXPECT_EQ(result(b, InvariantId::C1_local_replicated_queries).verdict, Verdict::violated);
  const Evaluation c = eval("workspace=1024 block=16 dcp=2 pcp=2 pcp_rows=pcp-c ctx=0 q=2");
  EXPECT_EQ(c.outcome, Outcome::ok);
  // Replicated metadata: the same batch on every rank, nothing to disagree on.
  EXPECT_EQ(eval("workspace=1024 block=16 dcp=2 pcp=2 ctx=1 q=2").outcome, Outcome::ok);
  // On the gather_reorg path rank-local rows make the per-chunk all-gathers differ (C-2).
  const Evaluation g = eval("workspace=4096 block=16 dcp=4 pcp=2 tp=2 pcp_rows=pcp-b ctx=3000,100 q=4,4");
  EXPECT_EQ(result(g, InvariantId::C2_local_collective_symmetry).verdict, Verdict::violated);
  EXPECT_EQ(result(g, InvariantId::C1_local_replicated_queries).verdict, Verdict::not_applicable);
}

}  // namespace
}  // namespace cp
