// RapidCheck properties over generated engine configurations and batches.
//  - v5-packed and v6-current: every invariant holds, no assert fires (block 1..2^14 incl.
//    non-powers of two, dcp 1..64, interleave dividing block, contexts 0..2^20, <= 64 prefills).
//  - legacy versions: RapidCheck must FIND a counterexample (to I-6 or the per-step assert),
//    and the shrunk counterexample is printed as a case line that replays.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <iostream>

#include "generators.h"
#include "invariants/catalogue.h"
#include "reference/planner/arith.h"

namespace cp {
namespace {

void holds_everywhere(Version v, Platform p) {
  const Case c = *testgen::any_case(v, p, /*engine_sized_only=*/true);
  const Evaluation ev = evaluate(c);
  RC_TAG(c.dcp > 1 ? "dcp" : "no-dcp", ev.plan.chunks.size() > 1 ? "multi-chunk" : "single-chunk");
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated)
      RC_FAIL(std::string(info(r.id).tag) + " violated: " + (r.violations.empty() ? "" : r.violations[0].got));
  if (!ev.plan.asserts.empty()) RC_FAIL("assert fired: " + ev.plan.asserts[0].which + " " + ev.plan.asserts[0].detail);
}

RC_GTEST_PROP(I_all_v6_current, HoldsOnCuda, ()) { holds_everywhere(Version::v6_current, Platform::cuda); }
RC_GTEST_PROP(I_all_v6_current, HoldsOnRocm, ()) { holds_everywhere(Version::v6_current, Platform::rocm); }
RC_GTEST_PROP(I_all_v5_packed, HoldsOnCuda, ()) { holds_everywhere(Version::v5_packed, Platform::cuda); }
RC_GTEST_PROP(I_all_v5_packed, HoldsOnRocm, ()) { holds_everywhere(Version::v5_packed, Platform::rocm); }

// The packed planner with an arbitrary workspace that satisfies the version's own sizing
// postcondition (a multiple of its alignment) — not only the sizes the engine would pick.
RC_GTEST_PROP(I_all_v6_current, HoldsForAnyAlignedWorkspace, ()) {
  Case c = *testgen::any_case(Version::v6_current, *rc::gen::element(Platform::cuda, Platform::rocm), true);
  const std::int64_t A = arith::packed_alignment(Int(c.block), Int(c.dcp), Int(c.interleave)).get();
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, std::max<std::int64_t>(2, (1 << 22) / A));
  c.max_model_len.reset();
  c.max_num_seqs.reset();
  c.workspace = std::min<std::int64_t>(A * k, CaseLimits::max_workspace / A * A);
  const Evaluation ev = evaluate(c);
  RC_ASSERT(ev.outcome == Outcome::ok);
}

// Legacy: the property "never violates I-6 and never fires the per-step assert" is false;
// RapidCheck must find a case and shrink it. Returns the shrunk case line.
std::string find_counterexample(Version v, Platform p) {
  static std::string last_failure;
  last_failure.clear();
  const bool held = rc::check(std::string(name(v)) + "/" + std::string(name(p)) + " keeps chunks V-aligned", [v, p] {
    const Case c = *testgen::any_case(v, p, true);
    const Evaluation ev = evaluate(c);
    const bool bad = ev.violated(InvariantId::I6_virtual_block_alignment) ||
                     (ev.first_assert() && ev.first_assert()->which == "max_context_chunk % dcp_world_size == 0");
    if (bad) last_failure = print_case(c);  // the last failing call is the shrunk counterexample
    RC_ASSERT(!bad);
  });
  EXPECT_FALSE(held) << "RapidCheck found no counterexample for " << name(v);
  std::cout << "shrunk counterexample (" << name(v) << "/" << name(p) << "): " << last_failure << "\n";
  return last_failure;
}

TEST(LegacyCounterexamples, V1DcpOnRocmIsFoundAndReplays) {
  const std::string line = find_counterexample(Version::v1_dcp, Platform::rocm);
  ASSERT_FALSE(line.empty());
  const Evaluation ev = evaluate(parse_case(line));
  EXPECT_NE(ev.outcome, Outcome::ok) << line;
}

TEST(LegacyCounterexamples, V2InterleaveOnCudaIsFoundAndReplays) {
  const std::string line = find_counterexample(Version::v2_interleave, Platform::cuda);
  ASSERT_FALSE(line.empty());
  EXPECT_NE(evaluate(parse_case(line)).outcome, Outcome::ok) << line;
}

TEST(LegacyCounterexamples, V4Pr47327IsFoundAndReplays) {
  const std::string line = find_counterexample(Version::v4_pr47327, Platform::cuda);
  ASSERT_FALSE(line.empty());
  EXPECT_TRUE(evaluate(parse_case(line)).violated(InvariantId::I6_virtual_block_alignment)) << line;
}

}  // namespace
}  // namespace cp
