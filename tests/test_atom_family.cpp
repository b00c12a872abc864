// The ATOM family (other-engines.md §1): its DCP window and non-DCP packing as the spec restates
// them from ROCm/ATOM's aiter_mla.py, its bug A-B1 (a DCP chunk holds more rows than S exactly
// when S < n*W*B), and the house's promise that a new family gets the universal invariants
// (coverage, budgets, rows received) with no new check.
#include <gtest/gtest.h>

#include <string>

#include "invariants/catalogue.h"

namespace cp {
namespace {

// `n` requests with `ctx` cached and 16 new tokens each, as a case-line sweep.
std::string batch(int n, std::int64_t ctx) {
  return " ctx=" + std::to_string(ctx) + "*" + std::to_string(n) + " q=16*" + std::to_string(n);
}

Evaluation atom(const std::string& rest) { return evaluate(parse_case("version=atom-current platform=rocm " + rest)); }

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

// Bug pinned: ATOM A-B1 (other-engines.md §1.6), S=16384, W=8, B=64, 33 prefills of 512 cached
// tokens: window max(64, round_down(16384 // 264, 64)) = 64, one chunk of 33*512 = 16896 rows
// > S, and 33*64 = 2112 local rows per rank > S/W. Every position still arrives exactly once.
TEST(AtomFamily, DcpChunkOverrunsTheWorkspaceWhenSBelowNWB) {
  const Evaluation ev = atom("workspace=16384 block=64 dcp=8 interleave=1" + batch(33, 512));
  EXPECT_EQ(ev.plan.chunk_width, 64);
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 16896);
  EXPECT_EQ(ev.plan.chunks[0].local_tokens(), 2112);
  EXPECT_EQ(ev.outcome, Outcome::violation);
  EXPECT_EQ(result(ev, InvariantId::I4_global_row_budget).verdict, Verdict::violated);
  // ATOM's send buffers are allocated per chunk (no S/W slice): its window promise A-7 says it.
  EXPECT_EQ(result(ev, InvariantId::I7_local_row_budget).verdict, Verdict::not_applicable);
  EXPECT_EQ(result(ev, InvariantId::A7_atom_window_budget).verdict, Verdict::violated);
  EXPECT_EQ(result(ev, InvariantId::I3_coverage).verdict, Verdict::ok);
  EXPECT_EQ(result(ev, InvariantId::I9_reorg_exact).verdict, Verdict::ok);
}

// The threshold: with 32 prefills S // (n*W) = 64 = B and the chunk is exactly S rows.
TEST(AtomFamily, DcpChunkFitsAtTheThreshold) {
  const Evaluation ev = atom("workspace=16384 block=64 dcp=8 interleave=1" + batch(32, 512));
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 16384);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// with I | B, chunk c of request i is [c*ch*W, (c+1)*ch*W) of its context, and the rows
// every rank gathers, all-gathers and keeps deliver each position once (token level).
TEST(AtomFamily, DcpWindowsDeliverEveryPositionOnce) {
  for (const char* geometry : {"block=16 dcp=2 interleave=1", "block=16 dcp=4 interleave=4",
                               "block=32 dcp=8 interleave=2", "block=64 dcp=4 interleave=64"})
    for (const char* ctx : {"ctx=1000,0,37,4096 q=3,4,5,6", "ctx=70000 q=9", "ctx=1,2,3 q=2,2,2"}) {
      const Evaluation ev =
          evaluate(parse_case(std::string("version=atom-current platform=rocm workspace=2048 ") + geometry + " " + ctx),
                   Level::token);
      EXPECT_EQ(ev.outcome, Outcome::ok) << geometry << " " << ctx;
      EXPECT_EQ(result(ev, InvariantId::I9_reorg_exact).verdict, Verdict::ok) << geometry << " " << ctx;
      for (const auto& ch : ev.plan.chunks) EXPECT_LE(ch.total_tokens(), 2048) << geometry << " " << ctx;
    }
}

// _build_mla_chunk_meta: the concatenated contexts in chunks of S tokens, every prefill in every
// chunk (zero-length where it has nothing), a request split at any token.
TEST(AtomFamily, PackingSplitsTheConcatenatedAxisAtAnyToken) {
  const Evaluation ev = atom("workspace=100 block=16 dcp=1 ctx=70,50,0,30 q=2,2,2,2");
  ASSERT_EQ(ev.plan.chunks.size(), 2u);
  const auto& c0 = ev.plan.chunks[0].entries;
  const auto& c1 = ev.plan.chunks[1].entries;
  ASSERT_EQ(c0.size(), 4u);
  ASSERT_EQ(c1.size(), 4u);
  EXPECT_EQ(c0[0].len, 70);
  EXPECT_EQ(c0[1].len, 30);
  EXPECT_EQ(c1[0].len, 0);
  EXPECT_EQ(c1[1].start, 30);
  EXPECT_EQ(c1[1].len, 20);
  EXPECT_EQ(c1[3].len, 30);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 100);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// #1938: the packing planner runs only when the cached tokens exceed S; else one pass.
TEST(AtomFamily, NoChunkingWhenTheContextFits) {
  const Evaluation ev = atom("workspace=100 block=16 dcp=1 ctx=60,40 q=2,2");
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 100);
}

// ATOM's config asserts interleave > 1 only with DCP (I <= B and B mod I == 0 the case
// format already requires); vLLM's rules are not ATOM's (n/a, named).
TEST(AtomFamily, ConfigAssertAndOtherFamiliesRules) {
  const Evaluation bad = atom("workspace=4096 block=16 dcp=1 interleave=2 ctx=100 q=2");
  ASSERT_FALSE(bad.plan.asserts.empty());
  EXPECT_EQ(bad.plan.asserts.front().stage, "init");
  EXPECT_EQ(bad.outcome, Outcome::assert_fired);
  const Evaluation ok = atom("workspace=4095 block=16 dcp=2 ctx=100 q=2");  // S odd: no vLLM init assert
  EXPECT_TRUE(ok.plan.asserts.empty());
  const InvariantResult& i1 = result(ok, InvariantId::I1_workspace_div_dcp);
  EXPECT_EQ(i1.verdict, Verdict::not_applicable);
  EXPECT_NE(i1.note.find("not of atom"), std::string::npos) << i1.note;
}

// The sizing without workspace=: ATOM's attn_prefill_chunk_size default, 16384.
TEST(AtomFamily, DefaultChunkSize) {
  const Evaluation ev = atom("max_model_len=163840 max_num_seqs=256 block=64 dcp=1 ctx=100 q=2");
  EXPECT_EQ(ev.plan.workspace, 16384);
}

}  // namespace
}  // namespace cp
