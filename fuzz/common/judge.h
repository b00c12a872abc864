// The planner target's verdict on one case, shared by planner_fuzz and the campaign runner's
// built-in engine and minimizer, so all three classify a case the same way.
#pragma once

#include <string>

#include "fuzz/common/findings.h"
#include "reference/caseio/case.h"

namespace cp::fuzz {

struct Judgement {
  enum Kind {
    rejected,  // bad input, too slow to simulate, or an explicit S outside an expected-correct version's sizing domain
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

// Bound on the planner's estimated chunk entries above which a case is skipped as too slow.
inline constexpr std::int64_t kMaxFuzzEntries = std::int64_t{1} << 16;
// Bound on simulated_rows() (sum of (ctx + I*W) x W). Above it one execution takes tens of ms under
// ASan and startup on the spec-scale seeds dominates a campaign; every bug family of the spec
// also shows at smaller scale (the decoder makes small values as likely as large ones), and the
// spec-scale cases replay in CTest through corpus/regressions.
inline constexpr std::int64_t kMaxFuzzRows = std::int64_t{1} << 18;

Judgement judge(const Case& c, const TargetConfig& cfg);

// CHUNKPROOF_FUZZ_STOP_ON: '&'-separated substrings that must all occur in Judgement::tags;
// a matching finding becomes a crash (libFuzzer stops there). Used to time the first finding
// of one family. Empty: never.
bool stop_on_matches(const std::string& stop_on, const std::string& tags);

}  // namespace cp::fuzz
