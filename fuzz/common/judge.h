// The planner target's verdict on one case, shared by planner_fuzz and the campaign runner's
// built-in engine and minimizer, so all three classify a case the same way.
#pragma once

#include <cstdint>
#include <string>

#include "fuzz/common/findings.h"
#include "invariants/catalogue.h"
#include "reference/caseio/case.h"

namespace cp::fuzz {

struct Judgement {
  enum Kind {
    rejected,  // bad input, a plan over kMaxFuzzWork, or an explicit S outside an expected-correct version's sizing
               // domain
    ok,
    finding,  // a version under investigation asserts or violates an invariant
    crash,    // an expected-correct version does, or an invariant every version keeps is violated
  } kind = rejected;
  std::string signature;  // fuzz::signature() of the evaluation
  std::string tags;       // signature + " violated:I-x,..." + " interleave>1" / " dcp>1" (for --stop-on)
  std::string invariant;  // primary_invariant()
  std::string detail;     // the assert and its values, or the first violation
  std::string case_line;
  bool known = false;  // a finding of a signature the `known` sink holds: only kind and the verdict below are set
  // The verdict in numbers, for every judged case (not `rejected`): the planner target turns it
  // into libFuzzer features.
  Outcome outcome = Outcome::ok;
  std::uint64_t violated =
      0;  // bit i: invariant InvariantId(i) violated (35 rows since the pcp checks: 32 bits overflowed)
  static_assert(kNumInvariants <= 56, "violated << 8 in the known-finding key must fit 64 bits");
  int assert_stage = 0;  // first assert's stage: 0 init, 1 plan, 2 forward, 3 other (or a crash)
};

// Bound on estimated_plan_work() (chunk entries x W) above which a case is skipped as too slow.
// The checks are interval level (invariants/interval/): an execution costs O(chunks x requests
// x W) whatever the context lengths, so this bounds the size of the plan, never a context.
// CHUNKPROOF_FUZZ_MAX_WORK overrides it (for measurements: bench/fuzz_execs.sh).
// 2^10 admits 1024 prefills in one chunk without DCP, or 16 entries at W = 64; an execution then
// costs ~20 us at most in our code (-O2). libFuzzer drifts to the bound (larger plans reach
// more counter buckets), so the bound sets the mean cost: 2^12 gave 4x fewer executions
// (docs/fuzzing.md).
inline constexpr std::int64_t kMaxFuzzWork = std::int64_t{1} << 10;
std::int64_t max_fuzz_work();
// What a judgement walks token by token whatever the plan's size (plan_cost.h: token_level_rows:
// the PCP manager's gathered layout, and the rows of SGLang and TokenSpeed, the families without
// an interval level) is bounded too: a case above it is skipped as too slow. At 2^17 a PCP case
// with padded_num_tokens near 2^16 cost 1.6 ms and such inputs set the mean; at 2^12 the
// engines' and the spec's bug cases are still found within a second (docs/measurements.md,
// 2026-12-03-planner-fuzz-all-families). Without any bound 1 case in 10 had millions of rows.
inline constexpr std::int64_t kMaxFuzzTokenRows = std::int64_t{1} << 12;
// The bound on token_level_rows(); CHUNKPROOF_FUZZ_MAX_TOKEN_ROWS overrides it (measurements).
std::int64_t max_fuzz_token_rows();

// With `known` (the signatures a FindingSink already recorded), a finding of a known signature
// comes back with only its kind and `known` set: the signature, case line, tags and detail are
// text the caller would throw away (the hot path of a legacy version, where most inputs are
// findings); there is nothing to record. Crashes and --stop-on matches always get the full
// judgement.
// The plan is made without text (plan.h: PlanTextOffScope) and the checks run verdict-only
// (catalogue.h: VerdictOnlyScope); a judgement that reports a finding plans and checks again
// with text. Allocation-free once warm for ok and known inputs.
Judgement judge(const Case& c, const TargetConfig& cfg, const FindingSink* known = nullptr);

// The gate every judge passes a case through first (the planner target's and the campaign's
// judge of an external planner, campaign/live_judge.cpp): a valid case whose plan is within
// max_fuzz_work(). False: the judgement is `rejected`.
bool within_fuzz_bounds(const Case& c);
// The geometry part of Judgement::tags (" interleave>1", " dcp>1"), for --stop-on.
std::string geometry_tags(const Case& c);

// CHUNKPROOF_FUZZ_STOP_ON: '&'-separated substrings that must all occur in Judgement::tags;
// a matching finding becomes a crash (libFuzzer stops there). Used to time the first finding
// of one family. Empty: never.
bool stop_on_matches(const std::string& stop_on, const std::string& tags);

}  // namespace cp::fuzz
