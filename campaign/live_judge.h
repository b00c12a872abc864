// The campaign's verdict on a case whose plan comes from an external planner (--planner-cmd,
// docs/live.md), for both engines that drive one: the built-in engine and the campaign runner's
// minimizer (campaign.cpp), and libFuzzer through the persistent child of live_planner_fuzz
// (fuzz_live_planner.cpp). One function, so the two engines' findings are the same findings.
#pragma once

#include "fuzz/common/judge.h"
#include "live/client.h"

namespace cp::fuzz {

// The case through `planner` (live::run_live), its plan checked at interval level and, with
// `diff`, compared with the model of the case's version. Rejected: outside the fuzz bounds, or
// a case the model cannot plan. Every finding is a "finding" (never a crash): an external
// planner is under investigation by definition; its signature is the LiveResult's.
Judgement live_judgement(live::ExternalPlanner& planner, const Case& c, bool diff);

}  // namespace cp::fuzz
