#include "fuzz/common/judge.h"

#include <cstdlib>
#include <sstream>

#include "fuzz/common/case_codec.h"
#include "invariants/catalogue.h"
#include "invariants/interval/interval.h"
#include "reference/arith/checked_int.h"

namespace cp::fuzz {
namespace {

std::string detail_of(const Evaluation& ev) {
  if (const AssertFailure* a = ev.first_assert()) return a->which + " (" + a->detail + ")";
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated && !r.violations.empty()) {
      const Violation& v = r.violations.front();
      std::ostringstream os;
      os << info(r.id).tag << " chunk " << v.chunk << " request " << v.request << " rank " << v.rank << " row " << v.row
         << ": expected " << v.expected << ", got " << v.got << " (" << v.reason << ")";
      return os.str();
    }
  return {};
}

}  // namespace

std::int64_t max_fuzz_work() {
  static const std::int64_t bound = [] {
    const char* e = std::getenv("CHUNKPROOF_FUZZ_MAX_WORK");
    const long long v = e ? std::atoll(e) : 0;
    return v > 0 ? static_cast<std::int64_t>(v) : kMaxFuzzWork;
  }();
  return bound;
}

bool stop_on_matches(const std::string& stop_on, const std::string& tags) {
  if (stop_on.empty()) return false;
  std::size_t pos = 0;
  while (pos <= stop_on.size()) {
    auto amp = stop_on.find('&', pos);
    if (amp == std::string::npos) amp = stop_on.size();
    const std::string part = stop_on.substr(pos, amp - pos);
    if (!part.empty() && tags.find(part) == std::string::npos) return false;
    pos = amp + 1;
  }
  return true;
}

Judgement judge(const Case& c, const TargetConfig& cfg, const FindingSink* known) {
  Judgement j;
  try {
    validate_case(c);
  } catch (const CaseError&) {
    return j;
  }
  if (estimated_plan_work(c) > max_fuzz_work()) return j;
  const bool expect_ok = cfg.expected_correct(c.version);
  if (expect_ok && !in_sizing_domain(c)) return j;  // an explicit S its own sizing never produces
  // Interval level: the verdicts and counts of the token-level checks (fuzz_interval_diff.cpp
  // holds the two together) at a cost independent of context length. The evaluation's storage
  // is reused: an execution that holds allocates only inside the planner.
  thread_local Evaluation ev;
  try {
    ev.plan = make_plan(c);
  } catch (const CaseError&) {
    return j;  // refused as too large to plan
  } catch (const ArithmeticError&) {
    return j;  // out of int64: an error, never a wrapped value
  }
  interval::evaluate_plan(c, ev.plan, ev.results, ev.outcome);
  if (ev.outcome == Outcome::ok) {
    j.kind = Judgement::ok;
    if (cfg.print_case) j.case_line = print_case(c);
    return j;
  }
  ev.c = c;
  j.signature = signature(ev);
  if (known && !expect_ok && cfg.stop_on.empty() && known->seen(j.signature) &&
      !ev.violated(InvariantId::I3_coverage) && !ev.violated(InvariantId::I11_config_validity)) {
    j.kind = Judgement::finding;
    return j;
  }
  j.case_line = print_case(c);
  j.invariant = primary_invariant(ev);
  j.detail = detail_of(ev);
  j.tags = j.signature + " violated:";
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) j.tags += std::string(info(r.id).tag) + ",";
  if (c.interleave > 1) j.tags += " interleave>1";
  if (c.dcp > 1) j.tags += " dcp>1";
  // By construction in every version (spec §6): a violation is a bug of the model itself.
  const bool model_bug = ev.violated(InvariantId::I3_coverage) || ev.violated(InvariantId::I11_config_validity);
  if (model_bug)
    j.detail = "model bug: " + j.detail;
  else if (expect_ok)
    j.detail = "expected-correct version: " + j.detail;
  j.kind = model_bug || expect_ok ? Judgement::crash : Judgement::finding;
  return j;
}

}  // namespace cp::fuzz
