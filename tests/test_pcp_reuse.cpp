// vLLM's PCP context reuse (vllm-pcp-and-sparse.md §2, #57668, open) and the PCP manager's gathered
// layout (§1.5, P-5..P-8). The reuse Fidelity tests reproduce the five cases of #57668's unit test
// (code-index 68287493100: builder S=128, page 16, DCP 1, request 7 twice), calling the model's
// planner on the rows that test hands _build_pcp_context_reuse; the Unknowns tests pin what the
// model does where that test is silent (§2.5); the Layout tests reproduce vLLM's manager tests
// (tests/v1/worker/test_gpu_pcp_manager.py: code-index 56716784735, vllm-project/vllm@07e1fce5)
// with the formulas of vllm-project/vllm@0036d38d vllm/v1/worker/gpu/pcp_manager.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "invariants/catalogue.h"
#include "reference/planner/families/pcp/reuse.h"

namespace cp {
namespace {

using V = std::vector<std::int64_t>;
const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

// _build_pcp_context_reuse(builder(S=128, page 16), metadata(req_idx), context_lens, query starts).
struct Reuse {
  Plan plan;
  PcpRank rank;
  Case rc;
  V lead_ctx, lead_q;
  bool built = false;
  std::vector<std::int64_t> qsl() const {  // the returned query_start_loc over the prefill rows
    V out{0};
    for (std::size_t i = static_cast<std::size_t>(rank.num_decodes); i < rc.q.size(); ++i)
      out.push_back(out.back() + rc.q[i]);
    return out;
  }
};
Reuse reuse(std::vector<int> req_idx, V ctx, V qs, int num_decodes = 0, std::int64_t dcp = 1) {
  Reuse r;
  Case c = parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=0 q=1 ctx_reuse=on");
  r.plan.block = 16, r.plan.workspace = 128, r.plan.dcp = dcp, r.plan.builder = Builder::dense;
  for (int i = 0; i < num_decodes; ++i) r.rank.rows.push_back({req_idx[i], 50, 1, false, true});
  for (std::size_t i = 0; i < ctx.size(); ++i)
    r.rank.rows.push_back({req_idx[i + num_decodes], ctx[i], qs[i + 1] - qs[i], true});
  r.rank.num_decodes = num_decodes;
  r.plan.num_decodes = num_decodes;
  if (detail::reuse_refusal(c, r.rank, r.plan)) return r;
  r.built = detail::plan_reuse(c, r.rank, r.plan, r.rc, r.lead_ctx, r.lead_q);
  return r;
}

TEST(ReuseFidelity, SharedAndTailChunks) {  // test_pcp_context_reuse_builds_shared_and_tail_chunks
  const Reuse r = reuse({7, 7}, {64, 112}, {0, 16, 32});
  ASSERT_TRUE(r.built);
  EXPECT_EQ(r.qsl(), (V{0, 32}));
  EXPECT_EQ(r.rc.q, (V{32}));  // query_lens, max_query_len 32
  ASSERT_EQ(r.plan.chunks.size(), 2u);
  const Chunk &shared = r.plan.chunks[0], &tail = r.plan.chunks[1];
  EXPECT_EQ(shared.request_start, 0);
  EXPECT_EQ(shared.request_end, 1);
  EXPECT_EQ(shared.token_start, 0);
  EXPECT_EQ(shared.token_end, 32);
  EXPECT_EQ(shared.entries[0].start, 0);
  EXPECT_FALSE(shared.is_continuation);
  EXPECT_EQ(tail.token_start, 16);
  EXPECT_EQ(tail.token_end, 32);
  EXPECT_EQ(tail.entries[0].start, 80);
  EXPECT_TRUE(tail.is_continuation);
  // Derived (§2.6): tail length 32, rows gathered 96 instead of 176.
  EXPECT_EQ(tail.entries[0].len, 32);
  EXPECT_EQ(steps::reuse_rows_gathered(Int(64), Int(16), Int(112)).get(), 96);
}

TEST(ReuseFidelity, UnalignedCachedGap) {  // test_pcp_context_reuse_supports_unaligned_cached_gap
  const Reuse r = reuse({7, 7}, {70, 100}, {0, 8, 24});
  ASSERT_TRUE(r.built);
  EXPECT_EQ(r.qsl(), (V{0, 24}));
  ASSERT_EQ(r.plan.chunks.size(), 2u);
  EXPECT_EQ(r.plan.chunks[0].entries[0].start, 0);
  EXPECT_EQ(r.plan.chunks[1].entries[0].start, 78);  // not page-aligned
  EXPECT_EQ(r.plan.chunks[1].token_start, 8);
  EXPECT_EQ(r.plan.chunks[1].token_end, 24);
  EXPECT_TRUE(r.plan.chunks[1].is_continuation);
  EXPECT_EQ(r.plan.chunks[1].entries[0].len, 22);  // derived: 92 rows instead of 170
}

TEST(ReuseFidelity, MixedDecodeBatch) {  // test_pcp_context_reuse_supports_mixed_decode_batch
  const Reuse r = reuse({99, 7, 7}, {64, 112}, {0, 16, 32}, 1);
  ASSERT_TRUE(r.built);
  EXPECT_EQ(r.qsl(), (V{0, 32}));
  EXPECT_EQ(V(r.rc.q.begin() + 1, r.rc.q.end()), (V{32}));
}

TEST(ReuseFidelity, SingletonsAroundPairs) {  // test_pcp_context_reuse_keeps_singletons_around_pairs
  const Reuse r = reuse({10, 20, 20}, {32, 64, 112}, {0, 8, 24, 40});
  ASSERT_TRUE(r.built);
  EXPECT_EQ(r.qsl(), (V{0, 8, 40}));
  EXPECT_EQ(r.rc.q, (V{8, 32}));
  std::vector<std::pair<int, int>> slices;
  for (const auto& ch : r.plan.chunks) slices.emplace_back(ch.request_start, ch.request_end);
  EXPECT_EQ(slices, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {1, 2}}));  // 32 + 64 <= 128: not packed
}

TEST(ReuseFidelity, FallsBackForDcp) {  // test_pcp_context_reuse_falls_back_for_dcp
  EXPECT_FALSE(reuse({7, 7}, {64, 112}, {0, 16, 32}, 0, 2).built);
  // Through a case: pcp=2 dcp=2 ctx_reuse=on plans v6 per row (the note says why).
  const Plan p = make_plan(parse_case("version=pcp-c workspace=128 block=16 pcp=2 dcp=2 ctx=64 q=64 ctx_reuse=on"));
  EXPECT_FALSE(p.pcp->ranks[0].reused);
  EXPECT_TRUE(p.pcp->batch_lead_q.empty() ||
              std::all_of(p.pcp->batch_lead_q.begin(), p.pcp->batch_lead_q.end(), [](auto x) { return x == 0; }));
}

// The Q7 first case end to end (pcp=2 N=64 q=64: rank 0 is exactly that layout): every check holds,
// and I-3 is decided over the merged row (the causal part covers [64, 80)).
TEST(ReuseFidelity, RankZeroLayoutChecksHold) {
  const Evaluation ev = evaluate(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=64 q=64 ctx_reuse=on"));
  EXPECT_EQ(ev.outcome, Outcome::ok);
  for (auto id : {InvariantId::I3_coverage, InvariantId::I9_reorg_exact, InvariantId::CR1_reuse_tail_nonnegative,
                  InvariantId::CR2_reuse_rows_preserved, InvariantId::CR3_reuse_causal_merge,
                  InvariantId::CR4_reuse_cache_ready, InvariantId::CR6_reuse_saving})
    EXPECT_EQ(result(ev, id).verdict, Verdict::ok) << info(id).name;
}

// §2.5's unknowns, what the model does (docs/plan.md "PCP context reuse"):
// r = P-1: the tail is empty and gets no chunk (v6's rule: no chunk holds an empty span).
TEST(ReuseUnknowns, EmptyTailAtLastRank) {
  const Evaluation ev =
      evaluate(parse_case("version=pcp-c workspace=128 block=16 pcp=2 pcp_rank=1 ctx=64 q=64 ctx_reuse=on"));
  ASSERT_EQ(ev.plan.pcp->ranks[1].merges.size(), 1u);
  EXPECT_EQ(ev.plan.pcp->ranks[1].merges[0].tail_len, 0);
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].entries[0].len, 80);  // the shared [0, 80); b sees [80, 96) causally
  EXPECT_EQ(ev.outcome, Outcome::ok);
}
// ctx_a = 0 (PCP-C, a fresh prefill on rank 0): no shared chunk; the tail [16, 48) serves b's tokens;
// a's tokens attend no chunk, so they get an empty token range (0, -inf), as v6's context-free rows.
TEST(ReuseUnknowns, EmptySharedPart) {
  const Evaluation ev = evaluate(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=0 q=64 ctx_reuse=on"));
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].entries[0].start, 16);
  EXPECT_EQ(ev.plan.chunks[0].entries[0].len, 32);
  EXPECT_EQ(ev.plan.chunks[0].token_start, 16);
  EXPECT_EQ(ev.plan.empty_token_ranges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 16}}));
  EXPECT_EQ(ev.outcome, Outcome::ok);
}
// ctx_a > S: the shared range is cut into pieces of round_down(S, B) rows (as the PR author's earlier
// planner does), continuations after the first; coverage and budgets hold.
TEST(ReuseUnknowns, SharedPartLongerThanWorkspace) {
  const Evaluation ev = evaluate(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=300 q=64 ctx_reuse=on"));
  std::vector<std::int64_t> lens;
  for (const auto& ch : ev.plan.chunks) lens.push_back(ch.entries[0].len);
  EXPECT_EQ(lens, (V{128, 128, 44, 32}));  // shared [0, 300) in three, tail [316, 348)
  EXPECT_TRUE(ev.plan.chunks[1].is_continuation);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}
// Several singletons: one chunk each, never packed (Q7's test 4 generalised).
TEST(ReuseUnknowns, SeveralSingletonsStayApart) {
  const Evaluation ev =
      evaluate(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=20,30,64 q=2,2,64 ctx_reuse=on"));
  ASSERT_TRUE(ev.plan.pcp->ranks[0].reused);
  EXPECT_EQ(ev.plan.chunks.size(), 4u);  // (20), (30), shared, tail
  for (const auto& ch : ev.plan.chunks) EXPECT_EQ(ch.entries.size(), 1u);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}
// The hazard (a cross-version composition, as PB-4): PCP-B moves a fresh prefill's piece 0 last, so
// rank 0's pair is (piece C-1, piece 0): the tail is negative and the causal part lets piece 0's
// tokens attend piece C-1's, future positions. CR-1 and I-3 report it; pcp-c's order does not.
TEST(ReuseHazard, ReversedPairOnPcpB) {
  const Evaluation b = evaluate(parse_case("version=pcp-b workspace=128 block=16 pcp=2 ctx=0 q=64 ctx_reuse=on"));
  EXPECT_EQ(result(b, InvariantId::CR1_reuse_tail_nonnegative).verdict, Verdict::violated);
  EXPECT_EQ(result(b, InvariantId::I3_coverage).verdict, Verdict::violated);
  EXPECT_EQ(b.plan.pcp->ranks[0].merges[0].tail_len, -64);
  const Evaluation c = evaluate(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=0 q=64 ctx_reuse=on"));
  EXPECT_EQ(result(c, InvariantId::CR1_reuse_tail_nonnegative).verdict, Verdict::ok);
}
// The checks fail on bent plans: a tail chunk that gathers [t_s - 8, ctx_b) attends 8 positions
// twice (I-3 and CR-6); a tail that serves all tokens breaks the causal merge (CR-3).
TEST(ReuseChecks, FailOnBentPlans) {
  const Case c = parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=64 q=64 ctx_reuse=on");
  Plan p = make_plan(c);
  p.chunks[1].entries[0].start -= 8, p.chunks[1].entries[0].len += 8;
  EXPECT_EQ(check(InvariantId::I3_coverage, c, p).verdict, Verdict::violated);
  EXPECT_EQ(check(InvariantId::CR6_reuse_saving, c, p).verdict, Verdict::violated);
  Plan q = make_plan(c);
  q.chunks[1].token_start = 0;
  EXPECT_EQ(check(InvariantId::CR3_reuse_causal_merge, c, q).verdict, Verdict::violated);
  EXPECT_EQ(check(InvariantId::I3_coverage, c, q).verdict, Verdict::violated);
  Plan w = make_plan(c);
  w.pcp->gathered.write_mask[2] = 0;  // rank 0's token of position 66 is never written
  EXPECT_EQ(check(InvariantId::P5_pcp_single_write, c, w).verdict, Verdict::violated);
  Plan x = make_plan(c);
  x.pcp->batch_q[0] = 31;
  EXPECT_EQ(check(InvariantId::CR2_reuse_rows_preserved, c, x).verdict, Verdict::violated);
}
TEST(ReuseKeys, BelongToThePcpFamily) {
  EXPECT_THROW(parse_case("version=v6-current workspace=128 block=16 ctx=64 q=64 ctx_reuse=on"), CaseError);
  EXPECT_THROW(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=64 q=64 causal=off"), CaseError);
  EXPECT_THROW(parse_case("version=pcp-a workspace=128 block=16 pcp=2 ctx=64 q=64 padded_num_tokens=64"), CaseError);
  EXPECT_THROW(parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx=64 q=64 ctx_reuse=maybe"), CaseError);
  for (const char* off : {"causal=off", "sliding_window=4096", "builder=sparse"}) {
    const Plan p = make_plan(
        parse_case(std::string("version=pcp-c workspace=128 block=16 pcp=2 ctx=64 q=64 ctx_reuse=on ") + off));
    EXPECT_FALSE(p.pcp->ranks[0].reused) << off;
  }
}

// ---- The gathered layout (§1.5) ----
const PcpGathered& layout(const Plan& p) { return p.pcp->gathered; }
Plan plan(const std::string& tail) { return make_plan(parse_case("workspace=4096 block=16 " + tail)); }

// test_hidden_restore_indices_reconstruct_physical_order (both managers), _drop_duplicate_decode_rows.
TEST(LayoutFidelity, RestoreIndices) {
  for (const char* v : {"pcp-a", "pcp-b"}) {
    EXPECT_EQ(layout(plan(std::string("version=") + v + " pcp=2 ctx=0 q=8")).restore, (V{2, 3, 4, 5, 6, 7, 0, 1})) << v;
    const Plan d = plan(std::string("version=") + v + " pcp=2 ctx=8,0 q=1,8");
    EXPECT_EQ(layout(d).restore, (V{0, 3, 4, 6, 7, 8, 9, 1, 2})) << v;
  }
  // test_hidden_restore_uses_compacted_padded_allgather (PCP-A, q=5): restore [1,2,3,4,0]; with the
  // test's fake all-gather (rank 1 = rank 0's hidden + 1000) the restored states [11,12,1010,1011,10].
  const Plan a = plan("version=pcp-a pcp=2 ctx=0 q=5");
  EXPECT_EQ(layout(a).restore, (V{1, 2, 3, 4, 0}));
  const V rank0{10, 11, 12};
  V gathered = rank0;
  for (auto h : rank0) gathered.push_back(h + 1000);
  V restored;
  for (auto k : layout(a).restore) restored.push_back(gathered[static_cast<std::size_t>(k)]);
  EXPECT_EQ(restored, (V{11, 12, 1010, 1011, 10}));
  EXPECT_EQ(layout(plan("version=pcp-b pcp=2 ctx=0 q=5")).restore, (V{0, 1, 3, 4, 5}));  // spec §1.10: PCP-B
}

// test_cache_slot_mapping_is_computed_for_gathered_layout: rows [[(0,10,2)], [(1,20,1)]], T [2, 1].
TEST(LayoutFidelity, GatheredSlotMapping) {
  const std::vector<std::vector<PcpRow>> rows{{{0, 10, 2, true}}, {{1, 20, 1, true}}};
  const V ctx{10, 20}, q{2, 1};
  const PcpGathered g = pcp_gathered_layout(rows, ctx, q, PcpGather::rank_padded, std::nullopt);
  EXPECT_EQ(g.t_pad, 2);
  EXPECT_EQ(g.position, (V{10, 11, 20, 0}));
  // compute_slot_mappings' inputs: one gathered request per run of slots (rank rows, then the
  // padding request 0): idx_mapping [7, 8, 0], query_start_loc [0, 2, 3, 4].
  const V idx_mapping{7, 8};
  V idx, qsl{0};
  for (std::size_t k = 0; k < g.request.size(); ++k) {
    if (k == 0 || g.request[k] != g.request[k - 1]) {
      idx.push_back(g.request[k] < 0 ? 0 : idx_mapping[static_cast<std::size_t>(g.request[k])]);
      if (k > 0) qsl.push_back(static_cast<std::int64_t>(k));
    }
  }
  qsl.push_back(static_cast<std::int64_t>(g.request.size()));
  EXPECT_EQ(idx, (V{7, 8, 0}));
  EXPECT_EQ(qsl, (V{0, 2, 3, 4}));
  V global_slots;  // the test's fake compute_slot_mappings: position + 100
  for (auto pos : g.global_position) global_slots.push_back(pos + 100);
  EXPECT_EQ(pcp_gathered_slot_mapping(g, global_slots), (V{110, 111, 120, -1}));
}

// Q4 (vllm 07e1fce5) graph padding: 3 decodes, padded_num_tokens=4; =2 is a ValueError (a crash record).
TEST(LayoutFidelity, GraphPadding) {
  const Plan p = plan("version=pcp-b pcp=2 ctx=8,8,8 q=1,1,1 padded_num_tokens=4");
  EXPECT_EQ(p.pcp->ranks[0].tokens, 3);
  EXPECT_EQ(p.pcp->ranks[1].tokens, 3);
  EXPECT_EQ(layout(p).restore, (V{0, 1, 2}));
  EXPECT_EQ(layout(p).gather_idx, (V{0, 1, 2, 0, 0, 1, 2, 0}));
  EXPECT_EQ(layout(p).write_mask, (std::vector<char>{1, 1, 1, 0, 0, 0, 0, 0}));
  const Evaluation bad =
      evaluate(parse_case("workspace=4096 block=16 version=pcp-b pcp=2 ctx=8,8,8 q=1,1,1 padded_num_tokens=2"));
  ASSERT_FALSE(bad.plan.asserts.empty());
  EXPECT_EQ(bad.plan.asserts[0].kind, FailureKind::crash);
  EXPECT_NE(bad.plan.asserts[0].which.find("ValueError"), std::string::npos);
  EXPECT_EQ(bad.outcome, Outcome::crashed);
  EXPECT_EQ(result(bad, InvariantId::P7_pcp_padding).verdict, Verdict::violated);
}

// test_virtual_request_padding_uses_pcp_multiple (PCP-A, P=4): pad(1)=4, pad(4)=4, pad(5)=8 — the
// step and the plan (n decodes = n rows on every rank); the bound 2*mns + P - 1 (P-8).
TEST(LayoutFidelity, PcpARequestPadding) {
  EXPECT_EQ(steps::pcp_padded_reqs(PcpGather::compacted, Int(1), Int(4)).get(), 4);
  EXPECT_EQ(steps::pcp_padded_reqs(PcpGather::compacted, Int(4), Int(4)).get(), 4);
  EXPECT_EQ(steps::pcp_padded_reqs(PcpGather::compacted, Int(5), Int(4)).get(), 8);
  EXPECT_EQ(plan("version=pcp-a pcp=4 ctx=8 q=1").pcp->ranks[0].padded_reqs, 4);
  EXPECT_EQ(plan("version=pcp-a pcp=4 ctx=8*5 q=1*5").pcp->ranks[0].padded_reqs, 8);
  EXPECT_EQ(plan("version=pcp-b pcp=4 ctx=8*5 q=1*5").pcp->ranks[0].padded_reqs, 5);
  const Evaluation ok =
      evaluate(parse_case("version=pcp-a max_model_len=4096 max_num_seqs=4 block=16 pcp=4 ctx=8*4 q=1*4"));
  EXPECT_EQ(result(ok, InvariantId::P8_pcp_limits).verdict, Verdict::ok);
  for (auto id : {InvariantId::P5_pcp_single_write, InvariantId::P6_pcp_restore_bijection, InvariantId::P7_pcp_padding})
    EXPECT_EQ(result(ok, id).verdict, Verdict::ok) << info(id).name;
}

}  // namespace
}  // namespace cp
