#include "live/live.h"

#include "live/plan_read.h"

namespace cp::live {
namespace {

std::string where(const Case& c) {
  return "live " + std::string(name(c.version)) + "/" + std::string(name(c.platform));
}

// The first assert the model's planner raises before any kernel runs (init or plan stage): what
// the engine's Python would stop at. Forward-stage asserts are the attention code's, which no
// adapter runs.
const AssertFailure* planning_assert(const Plan& p) {
  for (const auto& a : p.asserts)
    if (a.stage != "forward") return &a;
  return nullptr;
}

std::string describe(const ErrorRecord& e) {
  std::string s = e.kind + " " + (e.type.empty() ? "" : e.type + " ");
  s += e.message.empty() ? "(no message)" : "'" + e.message + "'";
  if (!e.location.empty()) s += " at " + e.location;
  return s;
}

// Both sides stop, or both plan: the outcomes agree. Else the disagreement in one line.
std::string compare_outcomes(const Plan& model, const Exchange& ex) {
  const AssertFailure* ours = planning_assert(model);
  const bool theirs_stop = ex.kind == Exchange::error;
  if (ours && !theirs_stop) return "ours: assert " + ours->which + " (" + ours->detail + "); theirs: a plan";
  if (!ours && theirs_stop) return "ours: a plan; theirs: " + describe(*ex.reply.error);
  return {};
}

void judge_plan(LiveResult& r, const Case& c) {
  const Evaluation& ev = *r.ev;
  std::string violated;
  for (const auto& res : ev.results)
    if (res.verdict == Verdict::violated) violated += (violated.empty() ? "" : ",") + std::string(info(res.id).tag);
  if (!r.outcome_disagreement.empty()) {
    r.signature = where(c) + " diff: outcome";
    r.detail = r.outcome_disagreement;
  } else if (!r.diff.diffs.empty()) {
    std::string fields;
    for (const auto& d : r.diff.diffs) {
      const std::string g = generic_field(d.field);
      if (fields.find(g) == std::string::npos && fields.size() < 120) fields += (fields.empty() ? "" : ",") + g;
    }
    const auto& d0 = r.diff.diffs.front();
    r.signature = where(c) + " diff: " + fields;
    r.detail = std::to_string(r.diff.total) + " field(s) differ; first " + d0.field + ": ours " + d0.ours +
               ", theirs " + d0.theirs;
  } else if (r.exchange.kind == Exchange::error) {
    if (r.outcome_disagreement.empty() && planning_assert(r.model)) return;  // both stop: agreement
    const ErrorRecord& e = *r.exchange.reply.error;
    r.signature = where(c) + " " + e.kind + ": " + (e.message.empty() ? e.type + " at " + e.location : e.message);
    r.detail = describe(e);
  } else if (!violated.empty()) {
    r.signature = where(c) + " violation: " + violated;
    for (const auto& res : ev.results)
      if (res.verdict == Verdict::violated && !res.violations.empty()) {
        const auto& v = res.violations.front();
        r.detail = std::string(info(res.id).tag) + ": expected " + v.expected + ", got " + v.got +
                   (v.reason.empty() ? "" : " — " + v.reason);
        break;
      }
  }
}

}  // namespace

AssertFailure as_assert(const ErrorRecord& e) {
  AssertFailure a;
  a.stage = "plan";
  a.which = e.message.empty() ? e.type : e.message;
  a.detail = e.location;
  a.kind = e.kind == "assert" ? FailureKind::assert_fired : FailureKind::crash;
  return a;
}

LiveResult run_live(ExternalPlanner& planner, const Case& c, const LiveOptions& opt) {
  LiveResult r;
  r.c = c;
  r.model = make_plan(c);
  r.exchange = planner.ask(c);
  Plan theirs;
  switch (r.exchange.kind) {
    case Exchange::plan: try { theirs = plan_from_json(*r.exchange.reply.plan, c, r.model);
      } catch (const SchemaError& e) {
        r.exchange.kind = Exchange::schema;
        r.exchange.message = e.what();
        r.signature = where(c) + " protocol: schema " + generic_field(e.path);
        r.detail = std::string("schema: ") + e.what();
        return r;
      }
      break;
    case Exchange::error:
      theirs = r.model;  // the geometry; no chunks: the planner stopped
      theirs.chunks.clear();
      theirs.built = false;
      theirs.asserts.assign(1, as_assert(*r.exchange.reply.error));
      break;
    default:
      r.signature = where(c) + " protocol: " + std::string(name(r.exchange.kind));
      r.detail = std::string(name(r.exchange.kind)) + ": " + r.exchange.message;
      return r;
  }
  r.ev.emplace();
  r.ev->c = c;
  r.ev->plan = std::move(theirs);
  evaluate_plan(c, r.ev->plan, r.ev->results, r.ev->outcome, opt.level);
  if (opt.diff) {
    r.outcome_disagreement = compare_outcomes(r.model, r.exchange);
    if (r.outcome_disagreement.empty() && r.exchange.kind == Exchange::plan) r.diff = diff_plans(r.model, r.ev->plan);
  }
  judge_plan(r, c);
  return r;
}

}  // namespace cp::live
