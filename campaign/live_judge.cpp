// The campaign's verdict on a case when the plans come from an external planner (--planner-cmd,
// docs/live.md): the case goes through live::run_live and its LiveResult becomes a Judgement,
// so the engine, the minimizer and the records' replay treat an external planner's findings
// exactly as the model's. Every finding is a "finding" (never a crash): an external planner is
// under investigation by definition.
#include "campaign/campaign_run.h"
#include "fuzz/common/judge.h"
#include "live/live.h"

namespace cp::fuzz {

Judgement live_judge(CampaignRun& run, const Case& c) {
  Judgement j;
  if (!within_fuzz_bounds(c)) return j;
  live::LiveResult r;
  try {
    r = live::run_live(*run.planner, c, {.diff = run.opt.planner_diff, .level = Level::interval});
  } catch (const CaseError&) {
    return j;  // the model refuses the case (too large to plan): not the planner's business
  } catch (const ArithmeticError&) {
    return j;
  }
  if (r.ev) j.outcome = r.ev->outcome;
  if (!r.finding()) {
    j.kind = Judgement::ok;
    return j;
  }
  j.kind = Judgement::finding;
  j.signature = r.signature;
  j.tags = r.signature;
  j.tags += geometry_tags(c);
  j.invariant = r.signature.substr(r.signature.find(' ', 5) + 1);
  j.invariant = j.invariant.substr(0, j.invariant.find(':'));  // diff | violation | assert | protocol | ...
  j.detail = r.detail;
  j.case_line = print_case(c);
  return j;
}

}  // namespace cp::fuzz
