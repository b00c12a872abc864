// live_judgement (live_judge.h): the case goes through live::run_live and its LiveResult
// becomes a Judgement, so the engines, the minimizer and the records' replay treat an external
// planner's findings exactly as the model's.
#include "campaign/live_judge.h"

#include "live/live.h"

namespace cp::fuzz {

Judgement live_judgement(live::ExternalPlanner& planner, const Case& c, bool diff) {
  Judgement j;
  if (!within_fuzz_bounds(c)) return j;
  live::LiveResult r;
  try {
    r = live::run_live(planner, c, {.diff = diff, .level = Level::interval});
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
