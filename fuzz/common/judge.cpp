#include "fuzz/common/judge.h"

#include <cstdlib>
#include <sstream>
#include <unordered_set>

#include "fuzz/common/case_codec.h"
#include "invariants/catalogue.h"
#include "reference/arith/checked_int.h"

namespace cp::fuzz {
namespace {

std::string detail_of(const Evaluation& ev) {
  if (const AssertFailure* a = ev.first_assert()) return a->which + " (" + a->detail + ")";
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated && !r.violations.empty()) {
      const Violation& v = r.violations.front();
      std::ostringstream os;
      os << info(r.id).tag;  // the places that apply (-1 is "none": never printed)
      if (v.chunk >= 0) os << " chunk " << v.chunk;
      if (v.request >= 0) os << " request " << v.request;
      if (v.rank >= 0) os << " rank " << v.rank;
      if (v.row >= 0) os << " row " << v.row;
      os << ": expected " << v.expected << ", got " << v.got << " (" << v.reason << ")";
      return os.str();
    }
  return {};
}

// What signature() depends on, hashed without building text: version, platform, outcome, and
// the first assert's stage and condition or the set of violated invariants.
std::uint64_t signature_key(const Case& c, const Evaluation& ev) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<std::uint64_t>(c.version));
  mix(static_cast<std::uint64_t>(c.platform));
  mix(static_cast<std::uint64_t>(ev.outcome));
  if (const AssertFailure* a = ev.first_assert(); a && ev.outcome != Outcome::violation) {
    mix(fnv1a(a->stage));
    mix(fnv1a(a->which));
  } else {
    std::uint64_t violated = 0;
    for (const auto& r : ev.results)
      if (r.verdict == Verdict::violated) violated |= std::uint64_t{1} << static_cast<int>(r.id);
    mix(violated);
  }
  return h;
}

// Keys of the signatures `sink` has recorded, as judge() has met them (one sink per process in
// practice; another sink starts a new set).
std::unordered_set<std::uint64_t>& known_keys(const FindingSink* sink) {
  thread_local const FindingSink* owner = nullptr;
  thread_local std::unordered_set<std::uint64_t> keys;
  if (owner != sink) {
    owner = sink;
    keys.clear();
  }
  return keys;
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

std::int64_t max_fuzz_token_rows() {
  static const std::int64_t bound = [] {
    const char* e = std::getenv("CHUNKPROOF_FUZZ_MAX_TOKEN_ROWS");
    const long long v = e ? std::atoll(e) : 0;
    return v > 0 ? static_cast<std::int64_t>(v) : kMaxFuzzTokenRows;
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

bool within_fuzz_bounds(const Case& c) {
  try {
    validate_case(c);
  } catch (const CaseError&) {
    return false;
  }
  return estimated_plan_work(c) <= max_fuzz_work();
}

std::string geometry_tags(const Case& c) {
  std::string tags;
  if (c.interleave > 1) tags += " interleave>1";
  if (c.dcp > 1) tags += " dcp>1";
  return tags;
}

Judgement judge(const Case& c, const TargetConfig& cfg, const FindingSink* known) {
  Judgement j;
  if (!within_fuzz_bounds(c)) return j;
  if (token_level_rows(c) > max_fuzz_token_rows()) return j;
  const bool expect_ok = cfg.expected_correct(c.version);
  if (expect_ok && !in_sizing_domain(c)) return j;  // an explicit S its own sizing never produces
  // Interval level: the verdicts and counts of the token-level checks (fuzz_interval_diff.cpp
  // holds the two together) at a cost independent of context length. The hot path allocates
  // nothing once warm: the plan is built into reused storage (make_plan_into) and the checks run
  // verdict-only (no violation text); the text is made below only for a judgement that needs it.
  thread_local Evaluation ev;
  try {
    const PlanTextOffScope no_text;  // assert records without their values' text (plan.h)
    make_plan_into(c, ev.plan);
  } catch (const CaseError&) {
    return j;  // refused as too large to plan
  } catch (const ArithmeticError&) {
    return j;  // out of int64: an error, never a wrapped value
  }
  {
    const VerdictOnlyScope verdicts;
    evaluate_plan(c, ev.plan, ev.results, ev.outcome, Level::interval);
  }
  j.outcome = ev.outcome;
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) j.violated |= std::uint64_t{1} << static_cast<int>(r.id);
  if (const AssertFailure* a = ev.first_assert()) {
    j.assert_stage = a->stage == "init" ? 0 : a->stage == "plan" ? 1 : a->stage == "forward" ? 2 : 3;
    if (a->kind == FailureKind::crash) j.assert_stage = 3;
  }
  if (ev.outcome == Outcome::ok) {
    j.kind = Judgement::ok;
    if (cfg.print_case) j.case_line = print_case(c);
    return j;
  }
  const bool model_bug = ev.violated(InvariantId::I3_coverage) || ev.violated(InvariantId::I11_config_validity);
  const bool may_skip = known && !expect_ok && !model_bug;
  // A finding whose signature the sink already holds (and, with --stop-on, whose tags did not
  // match): no text at all once its key is cached. The tags add the violated set and the
  // geometry to the signature, so with --stop-on they are part of the key.
  std::uint64_t key = 0;
  if (may_skip) {
    key = signature_key(c, ev);
    if (!cfg.stop_on.empty()) key ^= (j.violated << 8 | (c.dcp > 1) << 1 | (c.interleave > 1)) * 0x9e3779b97f4a7c15ull;
    if (known_keys(known).count(key)) {
      j.kind = Judgement::finding;
      j.known = true;
      return j;
    }
  }
  ev.c = c;
  j.signature = signature(ev);
  j.tags = j.signature + " violated:";
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) j.tags += std::string(info(r.id).tag) + ",";
  j.tags += geometry_tags(c);
  if (may_skip && known->seen(j.signature) && !stop_on_matches(cfg.stop_on, j.tags)) {
    known_keys(known).insert(key);
    j.kind = Judgement::finding;
    j.known = true;
    j.signature.clear();
    j.tags.clear();
    return j;
  }
  // The full evaluation: the same plan and verdicts, now with the asserts' and the violations'
  // text (the plan made again with text: it cannot throw where the first one did not).
  make_plan_into(c, ev.plan);
  evaluate_plan(c, ev.plan, ev.results, ev.outcome, Level::interval);
  j.case_line = print_case(c);
  j.invariant = primary_invariant(ev);
  j.detail = detail_of(ev);
  // By construction in every version (spec §6): a violation is a bug of the model itself.
  if (model_bug)
    j.detail = "model bug: " + j.detail;
  else if (expect_ok)
    j.detail = "expected-correct version: " + j.detail;
  j.kind = model_bug || expect_ok ? Judgement::crash : Judgement::finding;
  return j;
}

}  // namespace cp::fuzz
