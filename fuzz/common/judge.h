// The planner target's verdict on one case, shared by planner_fuzz and the campaign runner's
// built-in engine and minimizer, so all three classify a case the same way.
#pragma once

#include <string>

#include "fuzz/common/findings.h"
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
};

// Bound on estimated_plan_work() (chunk entries x W) above which a case is skipped as too slow.
// The checks are interval level (invariants/interval/): an execution costs O(chunks x requests
// x W) whatever the context lengths, so this bounds the size of the plan, never a context.
// CHUNKPROOF_FUZZ_MAX_WORK overrides it (for measurements: bench/fuzz_execs.sh).
inline constexpr std::int64_t kMaxFuzzWork = std::int64_t{1} << 12;
std::int64_t max_fuzz_work();

// With `known` (the signatures a FindingSink already recorded), a finding of a known signature
// comes back with only its kind and signature: the case line, tags and detail are text the
// caller would throw away (the hot path of a legacy version, where most inputs are findings).
// Crashes and --stop-on always get the full judgement.
Judgement judge(const Case& c, const TargetConfig& cfg, const FindingSink* known = nullptr);

// CHUNKPROOF_FUZZ_STOP_ON: '&'-separated substrings that must all occur in Judgement::tags;
// a matching finding becomes a crash (libFuzzer stops there). Used to time the first finding
// of one family. Empty: never.
bool stop_on_matches(const std::string& stop_on, const std::string& tags);

}  // namespace cp::fuzz
