// The TokenSpeed family (other-engines.md §3): the rectangular split C // bs and the compact DCP
// movement of build_dcp_compact_reconstruction_plan, with its kernel-level bug T-B1 (the index
// kernel's first owned position computed with Triton's truncating `%`) reported by the universal
// I-9 with no new check, and the earlier masked variant (PR #1162's head) clean on the same case.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "invariants/catalogue.h"
#include "reference/dcp/simulate.h"

namespace cp {
namespace {

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

// The spec's case (§3.3), defaults: C = 8192 * 4, prefixes [20000, 100, 100], W = 4.
const char* kSpecCase = " workspace=32768 block=64 dcp=4 ctx=20000,100,100 q=16,16,16";

Evaluation tokenspeed(const char* version, const std::string& rest, Level level = Level::automatic) {
  return evaluate(parse_case(std::string("version=") + version + rest), level);
}

// How often each context position of `request` reaches attention over all chunks.
std::vector<int> receipts(const Evaluation& ev, int request) {
  const Batch b(ev.c.ctx, ev.c.q);
  std::vector<int> n(static_cast<std::size_t>(ev.c.ctx[static_cast<std::size_t>(request)]), 0);
  for (const auto& ch : ev.plan.chunks)
    for (const auto& row : simulate_chunk(b, ev.plan, ch))
      if (row.request == request && row.kind == RowKind::context) ++n[static_cast<std::size_t>(row.position)];
  return n;
}

// Planner (§3.1): chunk_len = 32768 // 3 = 10922, two chunks; chunk 1 starts at 10922 for every
// request, lengths [9078, 0, 0]; counts of request 0 in chunk 1 = [2269, 2269, 2270, 2270].
TEST(TokenSpeedFamily, RectangularSplitAndCompactCounts) {
  const Evaluation ev = tokenspeed("tokenspeed-pr1162", kSpecCase);
  EXPECT_EQ(ev.plan.chunk_width, 10922);
  ASSERT_EQ(ev.plan.chunks.size(), 2u);
  const auto& e = ev.plan.chunks[1].entries;
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].start, 10922);
  EXPECT_EQ(e[0].len, 9078);
  EXPECT_EQ(e[1].len, 0);
  EXPECT_EQ(e[0].kept, (std::vector<std::int64_t>{2269, 2269, 2270, 2270}));
  // P = max_r sum_i count[r][i]: chunk 0 = 2731 + 25 + 25.
  EXPECT_EQ(ev.plan.chunks[0].local_tokens(), 2781);
}

// Bug pinned: TokenSpeed T-B1 (other-engines.md §3.3). With Triton's truncating % ranks 0 and 1
// start one stride early in chunk 1 (10920, 10921 instead of 10924, 10925): keys 10920 and
// 10921 are attended twice (also in chunk 0), 19996 and 19997 never. I-9 says so with no new
// check; the spans themselves (I-3) and the budgets are fine.
TEST(TokenSpeedFamily, TruncatingFirstOwnedDuplicatesAndDropsKeys) {
  const Evaluation ev = tokenspeed("tokenspeed-compact", kSpecCase, Level::token);
  EXPECT_EQ(ev.outcome, Outcome::violation);
  EXPECT_EQ(result(ev, InvariantId::I9_reorg_exact).verdict, Verdict::violated);
  EXPECT_EQ(result(ev, InvariantId::I3_coverage).verdict, Verdict::ok);
  EXPECT_EQ(result(ev, InvariantId::I4_global_row_budget).verdict, Verdict::ok);
  // TokenSpeed's all-gather buffer is allocated per chunk (no S/W slice per rank): I-7 is not its rule.
  EXPECT_EQ(result(ev, InvariantId::I7_local_row_budget).verdict, Verdict::not_applicable);
  const auto n = receipts(ev, 0);
  EXPECT_EQ(n[10920], 2);
  EXPECT_EQ(n[10921], 2);
  EXPECT_EQ(n[19996], 0);
  EXPECT_EQ(n[19997], 0);
  EXPECT_EQ(std::count(n.begin(), n.end(), 2), 2);
  EXPECT_EQ(std::count(n.begin(), n.end(), 0), 2);
  // Requests 1 and 2 lie in chunk 0 (s = 0): no unaligned start, no bug (T-4).
  for (int r : {1, 2}) {
    const auto m = receipts(ev, r);
    EXPECT_TRUE(std::all_of(m.begin(), m.end(), [](int k) { return k == 1; })) << r;
  }
}

// The masked variant has no truncating term: every key once, the same case ok.
TEST(TokenSpeedFamily, MaskedVariantDeliversEveryKeyOnce) {
  const Evaluation ev = tokenspeed("tokenspeed-pr1162", kSpecCase, Level::token);
  EXPECT_EQ(ev.outcome, Outcome::ok);
  const auto n = receipts(ev, 0);
  EXPECT_TRUE(std::all_of(n.begin(), n.end(), [](int k) { return k == 1; }));
}

// T-4: only chunks with an unaligned start (chunk_len mod W != 0) can go wrong; with
// chunk_len = 32768 // 4 = 8192 every start is a multiple of W and the compact kernel is right.
TEST(TokenSpeedFamily, AlignedStartsHideTheBug) {
  const Evaluation ev =
      tokenspeed("tokenspeed-compact", " workspace=32768 block=64 dcp=4 ctx=20000,100,100,9 q=2,2,2,2", Level::token);
  EXPECT_EQ(ev.plan.chunk_width, 8192);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// Without DCP (T3's planner) one gather per request; both versions plan the same.
TEST(TokenSpeedFamily, WithoutDcpOneGatherPerRequest) {
  for (const char* v : {"tokenspeed-pr1162", "tokenspeed-compact"}) {
    const Evaluation ev = tokenspeed(v, " workspace=1000 block=16 ctx=700,0,1200 q=3,3,3", Level::token);
    EXPECT_EQ(ev.plan.chunk_width, 333) << v;
    EXPECT_EQ(ev.plan.chunks.size(), 4u) << v;
    EXPECT_EQ(ev.outcome, Outcome::ok) << v;
  }
}

// G-1 (the same split): bs > C gives chunk_len 0 and cdiv(max prefix, 0) raises.
TEST(TokenSpeedFamily, MoreRequestsThanCapacityCrashes) {
  const Evaluation ev = tokenspeed("tokenspeed-pr1162", " workspace=2 block=16 ctx=5,5,5 q=2,2,2");
  ASSERT_EQ(ev.plan.asserts.size(), 1u);
  EXPECT_EQ(ev.plan.asserts[0].kind, FailureKind::crash);
  EXPECT_EQ(ev.outcome, Outcome::crashed);
}

// The sizing without workspace=: chunked_prefill_size * mla_chunk_multiplier = 8192 * 4; vLLM's
// own rules (I-1, I-6, I-10) are not TokenSpeed's.
TEST(TokenSpeedFamily, DefaultCapacityAndOtherFamiliesRules) {
  const Evaluation ev =
      tokenspeed("tokenspeed-compact", " max_model_len=163840 max_num_seqs=256 block=64 dcp=4 ctx=100 q=2");
  EXPECT_EQ(ev.plan.workspace, 32768);
  for (InvariantId id : {InvariantId::I1_workspace_div_dcp, InvariantId::I6_virtual_block_alignment,
                         InvariantId::I10_gather_start_semantics}) {
    EXPECT_EQ(result(ev, id).verdict, Verdict::not_applicable) << info(id).tag;
    EXPECT_NE(result(ev, id).note.find("not of tokenspeed"), std::string::npos) << result(ev, id).note;
  }
}

}  // namespace
}  // namespace cp
