#include "tools/chunkproof/live_cli.h"

#include <iostream>

#include "invariants/expect.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {

void add_live_options(CLI::App& app, LiveArgs& a, bool with_version) {
  auto* cmd =
      app.add_option("--planner-cmd", a.planner_cmd,
                     "an external planner: a shell command that reads one case per line and writes one plan per "
                     "line (docs/live.md), started once")
          ->type_name("CMD");
  app.add_option("--planner-timeout", a.timeout,
                 "seconds a reply of --planner-cmd may take (the first: 120 s at least)")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str()
      ->needs(cmd);
  if (with_version)
    app.add_option("--version", a.version,
                   "with --planner-cmd: the version the external planner implements; its plans are diffed field by "
                   "field against chunkproof's model of it (the cases' version is set to it)")
        ->needs(cmd);
}

bool diffing(const LiveArgs& a) { return !a.version.empty(); }

std::unique_ptr<live::ExternalPlanner> start_planner(const LiveArgs& a) {
  if (!a.active()) return nullptr;
  if (diffing(a) && !parse_version(a.version))
    throw UsageError("--version: unknown version '" + a.version + "' (see chunkproof versions)");
  try {
    return std::make_unique<live::ExternalPlanner>(
        live::PlannerOptions{.command = a.planner_cmd, .timeout_s = a.timeout});
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

Case live_case(const LiveArgs& a, Case c) {
  if (diffing(a)) c.version = *parse_version(a.version);
  return c;
}

Json live_json(const live::LiveResult& r) {
  Json lj{{"schema", "chunkproof.live/1"},
          {"case", print_case(r.c)},
          {"exchange", name(r.exchange.kind)},
          {"seconds", r.exchange.seconds},
          {"finding", r.finding()},
          {"signature", r.signature},
          {"detail", r.detail}};
  if (!r.exchange.message.empty()) lj["message"] = r.exchange.message;
  if (!r.exchange.stderr_tail.empty()) lj["stderr_tail"] = r.exchange.stderr_tail;
  if (r.exchange.reply.error) {
    const auto& e = *r.exchange.reply.error;
    lj["error"] = Json{{"kind", e.kind}, {"type", e.type}, {"message", e.message}, {"location", e.location}};
  }
  if (!r.outcome_disagreement.empty()) lj["outcome_disagreement"] = r.outcome_disagreement;
  lj["diff_total"] = r.diff.total;
  lj["diff"] = Json::array();
  for (const auto& d : r.diff.diffs)
    lj["diff"].push_back(Json{{"field", d.field}, {"ours", d.ours}, {"theirs", d.theirs}});
  lj["plan"] = r.ev ? plan_json(*r.ev) : Json(nullptr);
  return lj;
}

void print_live_text(std::ostream& os, const live::LiveResult& r, std::size_t rows) {
  if (r.ev) print_plan_text(os, *r.ev, rows);
  os << "planner   " << name(r.exchange.kind) << " in " << r.exchange.seconds * 1e3 << " ms";
  if (!r.exchange.message.empty()) os << ": " << r.exchange.message;
  os << "\n";
  if (const auto& e = r.exchange.reply.error)
    os << "error     " << e->kind << " " << e->type << " '" << e->message << "' at " << e->location << "\n";
  if (!r.exchange.stderr_tail.empty()) os << "stderr    " << r.exchange.stderr_tail << "\n";
  if (!r.outcome_disagreement.empty()) os << "diff      outcome: " << r.outcome_disagreement << "\n";
  if (r.diff.total) {
    os << "diff      " << r.diff.total << " field(s) differ from chunkproof's model of " << name(r.model.version)
       << ":\n";
    for (const auto& d : r.diff.diffs)
      os << "            " << d.field << ": ours " << d.ours << ", theirs " << d.theirs << "\n";
    if (r.diff.total > r.diff.diffs.size()) os << "            ... " << r.diff.total - r.diff.diffs.size() << " more\n";
  }
  os << "live      " << (r.finding() ? "FINDING " + r.signature : std::string("ok")) << "\n";
}

std::string live_line(const live::LiveResult& r, const std::string& origin) {
  if (!r.finding()) return origin + "  ok";
  return origin + "  FINDING " + r.signature + " — " + r.detail;
}

int run_jobs_live(const std::vector<CaseJob>& jobs, const LiveArgs& a, const LiveRunOptions& o) {
  const auto planner = start_planner(a);
  int rc = kExitOk, findings = 0, skipped = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const CaseJob& job = jobs[i];
    // An expect line of another version says nothing about a planner of --version's.
    if (diffing(a) && job.expect && job.c.version != *parse_version(a.version)) {
      ++skipped;
      continue;
    }
    const Case c = live_case(a, job.c);
    const live::LiveResult r = live::run_live(*planner, c, {.diff = diffing(a)});
    bool bad = r.finding();
    if (job.expect) bad = !r.ev || !meets(*r.ev, *job.expect);
    rc = worst(rc, bad ? kExitFinding : kExitOk);
    findings += bad;
    if (o.json) {
      Json j = live_json(r);
      j["origin"] = job.origin;
      if (job.expect) j["expect"] = Json{{"expected", verdict_text(*job.expect)}, {"met", !bad}};
      print_json(std::cout, j);
    } else if (o.summary || o.quiet) {
      if (!o.quiet || bad) std::cout << live_line(r, job.origin) << "\n";
      if (bad)
        std::cout << "      replay: chunkproof plan --planner-cmd '" << a.planner_cmd << "' --case '" << print_case(c)
                  << "'\n";
    } else {
      if (jobs.size() > 1) std::cout << (i ? "\n" : "") << "== " << job.origin << "\n";
      print_live_text(std::cout, r, o.rows);
    }
  }
  if (!o.json)
    std::cout << jobs.size() - static_cast<std::size_t>(skipped) << " case(s) through the planner ("
              << planner->starts() << " start(s)): " << findings << " finding(s)"
              << (skipped ? ", " + std::to_string(skipped) + " expect line(s) of other versions skipped" : "")
              << "; exit " << rc << "\n";
  return rc;
}

}  // namespace cp::cli
