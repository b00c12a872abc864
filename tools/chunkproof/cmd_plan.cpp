// chunkproof plan: the workspace size, the chunk plan, the DCP local plan and every
// invariant's verdict for each case.
#include <iomanip>
#include <iostream>

#include "invariants/expect.h"
#include "reference/planner/families/registry.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/live_cli.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {
namespace cmd_plan {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Runs a planner version on each case: workspace sizing, the per-step chunk plan (global
starts/lengths, cu_seq_lens), the DCP local plan (local starts, padded local lengths,
per-rank local context lengths, reorg's kept rows), the version's own asserts, and every
invariant of the catalogue (`chunkproof invariants`) with an explanation of each violation.
Example case: 'version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1
ctx=30000,30000,30000 q=16,16,16')";

std::string footer() {
  std::string s =
      "A case with '# expect <version>: ok|assert|violation I-x,...' lines (from --cases) runs once\n"
      "per expectation and counts as a finding when it does not meet it.\n"
      "JSON (--json): one chunkproof.plan/3 object per case and line (docs/plan-json.md); with\n"
      "--across-engines one chunkproof.across/1 object per case (an \"engines\" row per version).\n"
      "--planner-cmd CMD: the plans come from an external planner (docs/live.md) and are checked the same way;\n"
      "with --version V they are also diffed against chunkproof's model of V (JSON: chunkproof.live/1).\n\n"
      "exit: 0 every invariant holds and no assert fires (every expectation met), 1 an assert\n"
      "fires or an invariant is violated (an expectation is not met), 2 bad input. The worst case decides.\n\n"
      "case keys:\n";
  for (const auto& k : case_keys())
    s += "  " + std::string(k.key) + std::string(k.key.size() < 18 ? 18 - k.key.size() : 1, ' ') + std::string(k.help) +
         "\n";
  return s;
}

// --across-engines: one row per version of every family of the registry, in registry order.
struct EngineRow {
  const FamilyInfo* family = nullptr;
  const VersionInfo* version = nullptr;
  std::optional<Evaluation> ev;  // empty: the version refuses the case (refusal says why)
  std::string refusal;
};

std::vector<EngineRow> across_engines(const Case& base) {
  std::vector<EngineRow> rows;
  for (const FamilyInfo* f : kFamilies)
    for (const VersionInfo& v : all_versions()) {
      if (v.family != f) continue;
      EngineRow row{.family = f, .version = &v};
      Case c = base;
      c.version = v.version;
      try {
        row.ev = evaluate(c);
      } catch (const std::exception& e) {
        row.refusal = e.what();
      }
      rows.push_back(std::move(row));
    }
  return rows;
}

std::string violated_tags(const Evaluation& ev) {
  std::string tags;
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) tags += (tags.empty() ? "" : ",") + std::string(info(r.id).tag);
  return tags.empty() ? "-" : tags;
}

std::int64_t max_chunk_rows(const Plan& p) {
  std::int64_t m = 0;
  for (const auto& ch : p.chunks) m = std::max(m, ch.total_tokens());
  return m;
}

Json across_json(const Case& base, const std::vector<EngineRow>& rows) {
  Json out{{"schema", "chunkproof.across/1"}, {"case", print_case(base)}, {"engines", Json::array()}};
  for (const auto& r : rows) {
    Json j{{"family", r.family->name}, {"version", r.version->name}, {"expected_correct", r.version->expected_correct}};
    if (!r.ev) {
      j["refused"] = r.refusal;
    } else {
      j["outcome"] = name(r.ev->outcome);
      Json v = Json::array();
      for (const auto& res : r.ev->results)
        if (res.verdict == Verdict::violated) v.push_back(info(res.id).tag);
      j["violated"] = v;
      j["workspace"] = r.ev->plan.workspace;
      j["chunks"] = r.ev->plan.chunks.size();
      j["max_chunk_rows"] = max_chunk_rows(r.ev->plan);
      j["verdict"] = one_line_verdict(*r.ev);
    }
    out["engines"].push_back(std::move(j));
  }
  return out;
}

void print_across_text(std::ostream& os, const Case& base, const std::vector<EngineRow>& rows) {
  os << "case      " << print_case(base) << " (version= replaced per row)\n";
  os << std::left << std::setw(13) << "family" << std::setw(25) << "version" << std::setw(10) << "outcome"
     << std::setw(22) << "violated" << std::setw(8) << "S" << std::setw(8) << "chunks" << std::setw(10) << "max rows"
     << "verdict\n";
  for (const auto& r : rows) {
    os << std::setw(13) << r.family->name << std::setw(25) << r.version->name;
    if (!r.ev) {
      os << std::setw(10) << "refused" << r.refusal << "\n";
      continue;
    }
    const Plan& p = r.ev->plan;
    os << std::setw(10) << name(r.ev->outcome) << std::setw(22) << violated_tags(*r.ev) << std::setw(8) << p.workspace
       << std::setw(8) << p.chunks.size() << std::setw(10) << max_chunk_rows(p) << one_line_verdict(*r.ev) << "\n";
  }
  os << std::right;
}

// --across-engines replaces version= row by row, so a line may leave it out: it is parsed with
// the first expected-correct version that takes DCP and interleave (the widest input domain).
void add_base_version(std::vector<CaseInput>& inputs) {
  const VersionInfo* base = nullptr;
  for (const VersionInfo& v : all_versions())
    if (!base && v.expected_correct && v.supports_dcp && v.supports_interleave) base = &v;
  for (auto& in : inputs)
    if (base && in.line.find("version=") == std::string::npos)
      in.line = "version=" + std::string(base->name) + " " + in.line;
}

// Exit: 1 when any engine's verdict is a finding, else 0 (a version that refuses the case, e.g.
// one without DCP, is shown and does not count).
int run_across(const std::vector<CaseJob>& jobs, bool json) {
  int rc = kExitOk;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto rows = across_engines(jobs[i].c);
    for (const auto& r : rows)
      if (r.ev) rc = worst(rc, r.ev->exit_code());
    if (json) {
      Json j = across_json(jobs[i].c, rows);
      if (jobs.size() > 1) j["origin"] = jobs[i].origin;
      print_json(std::cout, j);
      continue;
    }
    if (jobs.size() > 1) std::cout << (i ? "\n" : "") << "== " << jobs[i].origin << "\n";
    print_across_text(std::cout, jobs[i].c, rows);
  }
  return rc;
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof plan"};
  configure(app, footer());
  CaseArgs ca;
  bool json = false, summary = false, across = false;
  std::size_t rows = 40;
  std::uint64_t max_memory = 0;
  add_case_options(app, ca);
  auto* json_opt = app.add_flag("--json", json, "machine-readable output (schema in docs/plan-json.md)");
  app.add_flag("--summary", summary, "one line per case: version, case id, outcome, violated invariants, first assert")
      ->excludes(json_opt);
  app.add_option("--rows", rows, "rows of the chunk table before it is summarised")
      ->check(CLI::Range(8, 1000000))
      ->capture_default_str();
  app.add_flag("--across-engines,--across-versions", across,
               "every version of every planner family (the registry's order) on each case, one verdict line each: "
               "where it broke and where it was fixed (--across-versions: the same)")
      ->excludes("--summary");
  add_max_memory(app, max_memory);
  LiveArgs live;
  add_live_options(app, live);
  if (!parse(app, args)) return kExitOk;
  auto inputs = collect_cases(ca);
  if (across) add_base_version(inputs);
  const auto jobs = parse_jobs(inputs);
  for (const auto& j : jobs) check_memory(j.c, false, max_memory);
  if (across && live.active()) throw UsageError("--across-engines runs chunkproof's models: not with --planner-cmd");
  if (live.active()) return run_jobs_live(jobs, live, {.json = json, .summary = summary, .rows = rows});
  if (across) return run_across(jobs, json);

  int rc = kExitOk;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& job = jobs[i];
    const Evaluation ev = evaluate(job.c);
    int code = ev.exit_code();
    if (job.expect) code = meets(ev, *job.expect) ? kExitOk : kExitFinding;
    rc = worst(rc, code);
    if (json) {
      Json j = plan_json(ev);
      if (jobs.size() > 1) j["origin"] = job.origin;
      if (job.expect) j["expect"] = Json{{"expected", verdict_text(*job.expect)}, {"met", code == kExitOk}};
      print_json(std::cout, j);
      continue;
    }
    if (summary) {
      std::cout << summary_line(ev, job.origin,
                                job.expect
                                    ? "expect=" + verdict_text(*job.expect) + (code == kExitOk ? ":met" : ":NOT-MET")
                                    : std::string())
                << "\n";
      continue;
    }
    if (jobs.size() > 1) std::cout << (i ? "\n" : "") << "== " << job.origin << "\n";
    print_plan_text(std::cout, ev, rows);
    if (job.expect)
      std::cout << "expect    " << verdict_text(*job.expect) << ": " << (code == kExitOk ? "met" : "NOT MET") << "\n";
  }
  if (jobs.size() > 1 && !json) std::cout << "\n" << jobs.size() << " case(s); exit " << rc << " (the worst verdict)\n";
  return rc;
}

const RegisterCommand reg{"plan", "plan cases and check every invariant", run};

}  // namespace
}  // namespace cmd_plan
}  // namespace cp::cli
