// The other engines' own rules as named checks (invariants/engine_checks.cpp; other-engines.md
// §1.5, §2.5, §3.2, §4.4): each fires on the engine's bug case, holds on the fixed row or the
// clean case, and — where the engine's planner keeps it by construction — fires on a plan value
// broken by hand, so a check that looks at the wrong thing fails here.
#include <gtest/gtest.h>

#include <string>

#include "invariants/catalogue.h"

namespace cp {
namespace {

using enum InvariantId;

// `n` requests with `ctx` cached and 16 new tokens each, as a case-line sweep.
std::string batch(int n, std::int64_t ctx) {
  return " ctx=" + std::to_string(ctx) + "*" + std::to_string(n) + " q=16*" + std::to_string(n);
}

Evaluation eval(const std::string& line) { return evaluate(parse_case(line)); }
Verdict verdict(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)].verdict; }
InvariantResult recheck(InvariantId id, const Evaluation& ev, const Plan& p) { return check(id, Batch(ev.c), p); }

// ---- ATOM ----------------------------------------------------------------------------------

const std::string kAtomB1 = "platform=rocm workspace=16384 block=64 dcp=8 interleave=1" + batch(33, 512);

// Bug pinned: ATOM A-B1. The planner's promise A-7 (n*W*ch <= S) fails exactly when S < n*W*B:
// 33 prefills give 33*8*64 = 16896 > 16384; 32 give exactly S. The fixed row groups the prefills
// (g = S // (W*I) = 2048 here, so one group) and rounds the window to I: ch = 62, 16368 rows.
TEST(EngineRules, A7WindowPromiseFailsExactlyBelowNWB) {
  const Evaluation bug = eval("version=atom-current " + kAtomB1);
  EXPECT_EQ(verdict(bug, A7_atom_window_budget), Verdict::violated);
  EXPECT_EQ(verdict(bug, I7_local_row_budget), Verdict::not_applicable);  // send buffers per chunk
  const Evaluation at = eval("version=atom-current platform=rocm workspace=16384 block=64 dcp=8" + batch(32, 512));
  EXPECT_EQ(verdict(at, A7_atom_window_budget), Verdict::ok);
  // Short contexts: the chunk's real rows fit S (I-4 holds), the promise still does not.
  const Evaluation short_ctx = eval("version=atom-current platform=rocm workspace=16384 block=64 dcp=8" + batch(33, 8));
  EXPECT_EQ(verdict(short_ctx, I4_global_row_budget), Verdict::ok);
  EXPECT_EQ(verdict(short_ctx, A7_atom_window_budget), Verdict::violated);
  const Evaluation fixed = eval("version=atom-fixed " + kAtomB1);
  EXPECT_EQ(fixed.plan.local_chunk, 62);
  EXPECT_EQ(fixed.outcome, Outcome::ok);
  for (const auto& ch : fixed.plan.chunks) EXPECT_LE(ch.total_tokens(), 16384);
}

// The fix with more prefills than a group holds: S = 1024, W = 8, I = 1 -> groups of 128; 300
// prefills of 100 tokens make three groups, every chunk <= S, every position once.
TEST(EngineRules, AtomFixedGroupsPrefills) {
  const Evaluation ev = eval("version=atom-fixed platform=rocm workspace=1024 block=16 dcp=8" + batch(300, 100));
  EXPECT_EQ(ev.outcome, Outcome::ok);
  EXPECT_EQ(verdict(ev, I9_reorg_exact), Verdict::ok);
  EXPECT_EQ(verdict(ev, I3_coverage), Verdict::ok);
  EXPECT_GE(ev.plan.chunks.size(), 3u);
  for (const auto& ch : ev.plan.chunks) EXPECT_LE(ch.total_tokens(), 1024);
  // The fix's startup check: S < W*I is refused as input (exit 2), not planned.
  EXPECT_THROW(eval("version=atom-fixed platform=rocm workspace=4 block=16 dcp=8 ctx=100 q=4"), CaseError);
  // A-1's config rule is a startup refusal on the fixed row, an init assert on ATOM's own rows.
  EXPECT_THROW(eval("version=atom-fixed platform=rocm workspace=4096 block=16 interleave=2 ctx=100 q=4"), CaseError);
  EXPECT_EQ(eval("version=atom-current platform=rocm workspace=4096 block=16 interleave=2 ctx=100 q=4").outcome,
            Outcome::assert_fired);
}

// hold by construction on ATOM's planner: a plan broken by hand must fail them.
TEST(EngineRules, A3A4FireOnABrokenWindow) {
  const Evaluation ev = eval("version=atom-current platform=rocm workspace=4096 block=16 dcp=4 ctx=5000,300 q=4,4");
  ASSERT_EQ(ev.outcome, Outcome::ok);
  EXPECT_EQ(verdict(ev, A3_atom_window_coverage), Verdict::ok);
  EXPECT_EQ(verdict(ev, A4_atom_map_in_bounds), Verdict::ok);
  Plan p = ev.plan;
  p.chunks[0].entries[0].len -= 1;  // one row short of the window's span
  EXPECT_EQ(recheck(A3_atom_window_coverage, ev, p).verdict, Verdict::violated);
  p = ev.plan;
  p.chunks[0].entries[1].kept[0] = p.chunks[0].entries[1].padded_local_len + 1;
  EXPECT_EQ(recheck(A4_atom_map_in_bounds, ev, p).verdict, Verdict::violated);
  p = ev.plan;
  p.chunks.back().entries[1].padded_local_len += 16;  // past request 1's cdiv(300, 64) blocks
  EXPECT_EQ(recheck(A4_atom_map_in_bounds, ev, p).verdict, Verdict::violated);
}

// ---- SGLang --------------------------------------------------------------------------------

// Bug pinned: SGLang G-B1 (#22291, fixed by #22688): C = 131072, prefixes [70000, 1000]: chunk 1
// gives request 1 kv_len 0 with q_len 8. G-4 flags it before the fix, not after.
TEST(EngineRules, G4ZeroKvRowBeforeTheFix) {
  const std::string rest = " workspace=131072 block=64 ctx=70000,1000 q=8,8";
  const Evaluation pre = eval("version=sglang-pre22688" + rest);
  ASSERT_EQ(verdict(pre, G4_sglang_zero_kv_rows), Verdict::violated);
  const auto& v = pre.results[static_cast<std::size_t>(G4_sglang_zero_kv_rows)].violations;
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].chunk, 1);
  EXPECT_EQ(v[0].request, 1);
  EXPECT_EQ(verdict(eval("version=sglang-current" + rest), G4_sglang_zero_kv_rows), Verdict::not_applicable);
  EXPECT_EQ(verdict(eval("version=sglang-pre22688 workspace=131072 block=64 ctx=70000 q=8"), G4_sglang_zero_kv_rows),
            Verdict::ok);  // bs = 1: no row can be empty
}

// Bug pinned: SGLang G-10 / G-B4: W = 2, prefixes [3, 1] — request 1 (odd) starts at offset 3.
// G-10 names the request; G-7 sees rank 0's rows of request 1 come from request 0's segment.
// [3, 4] keeps the premise and both hold.
TEST(EngineRules, G10AndG7OnTheOneShotPath) {
  const Evaluation bad = eval("version=sglang-oneshot-dcp workspace=131072 block=16 dcp=2 ctx=3,1 q=2,2");
  ASSERT_EQ(verdict(bad, G10_sglang_strided_premise), Verdict::violated);
  EXPECT_EQ(bad.results[static_cast<std::size_t>(G10_sglang_strided_premise)].violations[0].request, 1);
  EXPECT_EQ(verdict(bad, G7_sglang_rank_counts), Verdict::violated);
  const Evaluation good = eval("version=sglang-oneshot-dcp workspace=131072 block=16 dcp=2 ctx=3,4 q=2,2");
  EXPECT_EQ(verdict(good, G10_sglang_strided_premise), Verdict::ok);
  EXPECT_EQ(verdict(good, G7_sglang_rank_counts), Verdict::ok);
  const Evaluation chunked = eval("version=sglang-current workspace=1000 block=16 dcp=4 ctx=700,0,1200,37 q=3,3,3,3");
  EXPECT_EQ(verdict(chunked, G7_sglang_rank_counts), Verdict::ok);
  EXPECT_EQ(verdict(chunked, G10_sglang_strided_premise), Verdict::not_applicable);
  Plan p = chunked.plan;  // a padded send one row short: the slice takes a row nobody read
  p.chunks[1].entries[0].padded_local_len -= 1;
  EXPECT_EQ(recheck(G7_sglang_rank_counts, chunked, p).verdict, Verdict::violated);
}

// SGLang plans every request of the extend batch (chunk_len = C // batch_size, G2): a request
// with q = 1 counts in bs, where vLLM's split would call it a decode.
TEST(EngineRules, SGLangCountsSingleTokenExtendsInBs) {
  const Evaluation ev = eval("version=sglang-current workspace=1200 block=16 ctx=5000,700,900 q=1,8,8");
  EXPECT_EQ(ev.plan.num_decodes, 0);
  EXPECT_EQ(ev.plan.prefills.size(), 3u);
  EXPECT_EQ(ev.plan.chunk_width, 400);
  EXPECT_EQ(eval("version=v6-current workspace=1200 block=16 ctx=5000,700,900 q=1,8,8").plan.num_decodes, 1);
}

// ---- TokenSpeed ----------------------------------------------------------------------------

const char* kTsB1 = " workspace=32768 block=64 dcp=4 ctx=20000,100,100 q=16,16,16";

// Bug pinned: TokenSpeed T-B1. T-3 names the two ranks whose kernel first_owned is one stride
// early in chunk 1 (10920, 10921 against the host's 10924, 10925); the fixed kernel agrees.
TEST(EngineRules, T3KernelFirstOwnedAgainstTheHost) {
  const Evaluation bug = eval(std::string("version=tokenspeed-compact") + kTsB1);
  const auto& r = bug.results[static_cast<std::size_t>(T3_tokenspeed_first_owned)];
  ASSERT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.total_violations, 2);
  EXPECT_EQ(r.violations[0].chunk, 1);
  EXPECT_EQ(r.violations[0].rank, 0);
  EXPECT_NE(r.violations[0].got.find("10920"), std::string::npos) << r.violations[0].got;
  EXPECT_NE(r.violations[0].expected.find("10924"), std::string::npos) << r.violations[0].expected;
  EXPECT_EQ(verdict(bug, T1_tokenspeed_counts), Verdict::ok);  // the counts are right, the start is not
  const Evaluation fixed = eval(std::string("version=tokenspeed-compact-fixed") + kTsB1);
  EXPECT_EQ(fixed.outcome, Outcome::ok);
  EXPECT_EQ(verdict(fixed, T3_tokenspeed_first_owned), Verdict::ok);
  EXPECT_EQ(verdict(fixed, I9_reorg_exact), Verdict::ok);
  EXPECT_EQ(verdict(fixed, I7_local_row_budget), Verdict::not_applicable);
}

// T-1 holds by construction: counts broken by hand must fail it.
TEST(EngineRules, T1FiresOnBrokenCounts) {
  const Evaluation ev = eval(std::string("version=tokenspeed-compact-fixed") + kTsB1);
  Plan p = ev.plan;
  p.chunks[1].entries[0].kept[2] -= 1;
  EXPECT_EQ(recheck(T1_tokenspeed_counts, ev, p).verdict, Verdict::violated);
}

// ---- TensorRT-LLM --------------------------------------------------------------------------

// R-1 on the spec's case (T = 32768, [70000, 1000, 0, 30000]) holds; a gap or a wrong
// chunked_global_offset fails it; not the packed split -> n/a.
TEST(EngineRules, R1PackedLoops) {
  const Evaluation ev = eval("version=trtllm-current workspace=32768 block=64 ctx=70000,1000,0,30000 q=4,4,4,4");
  ASSERT_EQ(verdict(ev, R1_trtllm_packed_loops), Verdict::ok);
  Plan p = ev.plan;
  p.chunks[3].entries[3].start += 1;
  EXPECT_EQ(recheck(R1_trtllm_packed_loops, ev, p).verdict, Verdict::violated);
  p = ev.plan;
  p.chunks[1].entries[0].len -= 1;  // loop 1 short of T, request 0 short of its context
  EXPECT_EQ(recheck(R1_trtllm_packed_loops, ev, p).total_violations, 3);  // the loop, the next offset, the sum
  EXPECT_EQ(verdict(eval("version=trtllm-pre7477 workspace=32768 block=64 ctx=70000 q=4"), R1_trtllm_packed_loops),
            Verdict::not_applicable);
}

// Each engine rule is the rule of exactly one family and says n/a elsewhere.
TEST(EngineRules, RowsNameOneFamily) {
  const Evaluation v6 = eval("version=v6-current workspace=4096 block=16 dcp=4 ctx=5000,300 q=4,4");
  for (InvariantId id : {A3_atom_window_coverage, A4_atom_map_in_bounds, A7_atom_window_budget, G4_sglang_zero_kv_rows,
                         G7_sglang_rank_counts, G10_sglang_strided_premise, T1_tokenspeed_counts,
                         T3_tokenspeed_first_owned, R1_trtllm_packed_loops}) {
    EXPECT_EQ(info(id).scope, Scope::family) << info(id).tag;
    EXPECT_EQ(info(id).families.find(','), std::string_view::npos) << info(id).tag;
    EXPECT_EQ(verdict(v6, id), Verdict::not_applicable) << info(id).tag;
    InvariantId parsed{};
    EXPECT_TRUE(parse_invariant(info(id).tag, parsed));
    EXPECT_EQ(parsed, id);
  }
}

}  // namespace
}  // namespace cp
