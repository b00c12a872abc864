// One case through an external planner (docs/live.md): the request, the reply read back into
// a Plan, every invariant that applies checked on it, and — with a version to diff against —
// the comparison with chunkproof's model of that version. Every consumer (plan, check, replay,
// map, audit, the campaign) calls this one function and reports what it says.
#pragma once

#include <optional>
#include <string>

#include "invariants/catalogue.h"
#include "live/client.h"
#include "live/diff.h"

namespace cp::live {

struct LiveOptions {
  bool diff = false;  // compare with the model of the case's version (`--version V` sets the case's version)
  Level level = Level::automatic;
};

struct LiveResult {
  Case c;                            // the case as sent
  Exchange exchange;                 // what the planner answered (kind, message, stderr tail, seconds)
  Plan model;                        // make_plan(c): the defaults, and the diff's other side
  std::optional<Evaluation> ev;      // the external plan checked (a plan or an error record came)
  PlanDiff diff;                     // with LiveOptions::diff
  std::string outcome_disagreement;  // "ours: assert ..., theirs: plan" when one side stops and the other plans
  // Empty when nothing is wrong; else what the finding is keyed by, e.g.
  // "live v6-current/cuda diff: chunks[].requests[].len" or "live v6-current/cuda protocol: timeout".
  std::string signature;
  std::string detail;  // one line: the first disagreement, violation, error record or protocol failure
  bool finding() const { return !signature.empty(); }
};

// Throws CaseError / ArithmeticError when the model cannot plan `c` (bad input, exit 2); every
// answer of the planner, however wrong, is a result.
LiveResult run_live(ExternalPlanner& planner, const Case& c, const LiveOptions& opt = {});

// An error record as the assert list of a plan: stage "plan", `which` the message (or the
// exception's type), `detail` the location; kind crash for an exception that is no assert.
AssertFailure as_assert(const ErrorRecord& e);

}  // namespace cp::live
