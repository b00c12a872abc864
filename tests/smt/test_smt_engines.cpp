// The prover on the other engines' families (issue 27 item 3): per family, the true rule proves
// (unbounded: no upper bound of the domain assumed) on the fixed row, and each bug of
// other-engines.md comes back as a counterexample whose case line replays through the planner
// to a violation of the same invariant. A removed encoding reads "not encoded" and fails these.
#include "tests/smt/prove_rows.h"

namespace cp::smt {
namespace {

using namespace prove_test;

TEST(SmtEngines, AtomWindowBudgetRefutedAndFixProves) {
  for (Version v : {Version::atom_pre2113, Version::atom_current}) {
    const Case c = expect_counterexample(v, InvariantId::A7_atom_window_budget);
    if (c.ctx.empty()) continue;
    // A-B1: the promise fails exactly when S < n*W*B (the window is floored at B).
    EXPECT_LT(*c.workspace, static_cast<std::int64_t>(c.ctx.size()) * c.dcp * c.block) << print_case(c);
  }
  expect_proved_unbounded(Version::atom_fixed, InvariantId::A7_atom_window_budget);
}

TEST(SmtEngines, TokenSpeedTruncatingModuloRefutedAndFloorProves) {
  const Case c = expect_counterexample(Version::tokenspeed_compact, InvariantId::T3_tokenspeed_first_owned);
  if (!c.ctx.empty()) {
    // T-B1 needs a span that starts off the rank grid: s mod W != 0 (chunk 1 starts at C).
    EXPECT_NE(*c.workspace % c.dcp, 0) << print_case(c);
  }
  expect_proved_unbounded(Version::tokenspeed_compact_fixed, InvariantId::T3_tokenspeed_first_owned);
  expect_proved_unbounded(Version::tokenspeed_pr1162, InvariantId::T3_tokenspeed_first_owned);
}

TEST(SmtEngines, SGLangStridedPremiseAndZeroKvRowsRefuted) {
  const Case c = expect_counterexample(Version::sglang_oneshot_dcp, InvariantId::G10_sglang_strided_premise);
  if (!c.ctx.empty()) {
    // The one-shot path (sum of prefixes <= C) with two or more requests: rank 0 crashes.
    EXPECT_GE(c.ctx.size(), 2u);
    const Evaluation ev = evaluate(c);
    ASSERT_NE(ev.first_assert(), nullptr) << print_case(c);
    EXPECT_NE(ev.first_assert()->which.find("shape mismatch"), std::string::npos) << ev.first_assert()->which;
  }
  expect_counterexample(Version::sglang_pre22688, InvariantId::G4_sglang_zero_kv_rows);
  // The chunked path's owner-mask read has no premise; #22688's flag guards the zero-KV rows.
  EXPECT_EQ(row(one(Version::sglang_current, InvariantId::G10_sglang_strided_premise)).status, Status::not_applicable);
  EXPECT_EQ(row(one(Version::sglang_current, InvariantId::G4_sglang_zero_kv_rows)).status, Status::not_applicable);
}

TEST(SmtEngines, TrtllmLoopBudgetRefutedBeforePackingAndProvedWithIt) {
  // per-request columns of S/4 rows overflow S only with more than 4 contexts in a loop:
  // n = 1..4 proves (the bounded batch is honest), n = 5 refutes.
  EXPECT_EQ(row(one(Version::trtllm_pre7477, InvariantId::I4_global_row_budget, 4)).status, Status::proved);
  const Case cols = expect_counterexample(Version::trtllm_pre7477, InvariantId::I4_global_row_budget, 6);
  if (!cols.ctx.empty()) {
    EXPECT_GE(cols.ctx.size(), 5u) << print_case(cols);
  }
  expect_counterexample(Version::trtllm_sm90_pre19269, InvariantId::I4_global_row_budget);
  expect_proved_unbounded(Version::trtllm_current, InvariantId::I4_global_row_budget);
}

// The rectangular split both engines plan with tiles and covers every prefix (I-3, any batch)
// and keeps a chunk's rows within C (I-4, per batch size: the lemma-piece chain), on every row.
TEST(SmtEngines, RectangularSplitCoversAndFitsTheCapacity) {
  for (Version v : {Version::sglang_pre22688, Version::sglang_current, Version::tokenspeed_compact,
                    Version::tokenspeed_compact_fixed}) {
    expect_proved_unbounded(v, InvariantId::I3_coverage);
    expect_proved_unbounded(v, InvariantId::I4_global_row_budget);
  }
  // The one-shot path (sum of prefixes <= C) is one chunk: I-4 by the dispatch's own test.
  expect_proved_unbounded(Version::sglang_oneshot_dcp, InvariantId::I4_global_row_budget);
}

TEST(SmtEngines, UnencodedRulesSayWhy) {
  const ProveResult r = row(one(Version::atom_fixed, InvariantId::I3_coverage));
  EXPECT_EQ(r.status, Status::not_encoded);
  EXPECT_NE(r.detail.find("atom"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace cp::smt
