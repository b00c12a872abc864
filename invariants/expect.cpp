#include "invariants/expect.h"

namespace cp {

Expectation expectation_of(const Evaluation& ev) {
  Expectation e{ev.c.version, ExpectedOutcome::ok, {}};
  if (ev.outcome == Outcome::assert_fired) e.outcome = ExpectedOutcome::assert_fired;
  if (ev.outcome == Outcome::crashed) e.outcome = ExpectedOutcome::crashed;
  if (ev.outcome != Outcome::violation) return e;
  e.outcome = ExpectedOutcome::violation;
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) e.invariants.emplace_back(info(r.id).tag);
  return e;
}

bool meets(const Evaluation& ev, const Expectation& e) {
  switch (e.outcome) {
    case ExpectedOutcome::ok: return ev.outcome == Outcome::ok;
    case ExpectedOutcome::assert_fired: return ev.outcome == Outcome::assert_fired;
    case ExpectedOutcome::crashed: return ev.outcome == Outcome::crashed;
    case ExpectedOutcome::violation: break;
  }
  bool ok = ev.outcome == Outcome::violation;
  for (const auto& tag : e.invariants) {
    InvariantId id{};
    if (!parse_invariant(tag, id)) throw CaseError("expect", "unknown invariant '" + tag + "'");
    ok = ok && ev.violated(id);
  }
  return ok;
}

std::string verdict_text(const Expectation& e) {
  const std::string line = print_expect_line(e);
  return line.substr(line.find(':') + 2);
}

}  // namespace cp
