// Case-level minimization of a planner finding: fewer requests, smaller numbers, while the
// finding's signature (version, platform, kind and cause) stays the same. Works on the case,
// not the bytes, so the result is a short, readable case line.
#pragma once

#include <functional>
#include <string>

#include "fuzz/common/findings.h"
#include "fuzz/common/judge.h"
#include "reference/caseio/case.h"
#include "reference/caseio/pins.h"

namespace cp::fuzz {

struct MinimizeResult {
  Case c;
  int evaluations = 0;
  bool changed = false;
};

// Shrinks `c` while judge(c).signature == signature; stops after `seconds`, or as soon as
// `stop` (when given) returns true (the campaign runner's Ctrl-C). Pinned values stay as they are.
MinimizeResult minimize_case(const Case& c, const std::string& signature, const TargetConfig& cfg, double seconds,
                             bool (*stop)() = nullptr, const Pins& pins = {});
// The same with any judge (the campaign's live judge: an external planner's verdict).
MinimizeResult minimize_case(const Case& c, const std::string& signature,
                             const std::function<Judgement(const Case&)>& judge_fn, double seconds,
                             bool (*stop)() = nullptr, const Pins& pins = {});

}  // namespace cp::fuzz
