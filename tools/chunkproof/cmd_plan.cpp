// chunkproof plan: the workspace size, the chunk plan, the DCP local plan and every
// invariant's verdict for each case.
#include <iostream>

#include "invariants/expect.h"
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
      "JSON (--json): one chunkproof.plan/3 object per case and line (docs/plan-json.md).\n"
      "--planner-cmd CMD: the plans come from an external planner (docs/live.md) and are checked the same way;\n"
      "with --version V they are also diffed against chunkproof's model of V (JSON: chunkproof.live/1).\n\n"
      "exit: 0 every invariant holds and no assert fires (every expectation met), 1 an assert\n"
      "fires or an invariant is violated (an expectation is not met), 2 bad input. The worst case decides.\n\n"
      "case keys:\n";
  for (const auto& k : case_keys())
    s += "  " + std::string(k.key) + std::string(16 - k.key.size(), ' ') + std::string(k.help) + "\n";
  return s;
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof plan"};
  configure(app, footer());
  CaseArgs ca;
  bool json = false, summary = false;
  std::size_t rows = 40;
  std::uint64_t max_memory = 0;
  add_case_options(app, ca);
  auto* json_opt = app.add_flag("--json", json, "machine-readable output (schema in docs/plan-json.md)");
  app.add_flag("--summary", summary, "one line per case: version, case id, outcome, violated invariants, first assert")
      ->excludes(json_opt);
  app.add_option("--rows", rows, "rows of the chunk table before it is summarised")
      ->check(CLI::Range(8, 1000000))
      ->capture_default_str();
  add_max_memory(app, max_memory);
  LiveArgs live;
  add_live_options(app, live);
  if (!parse(app, args)) return kExitOk;
  const auto jobs = parse_jobs(collect_cases(ca));
  for (const auto& j : jobs) check_memory(j.c, false, max_memory);
  if (live.active()) return run_jobs_live(jobs, live, {.json = json, .summary = summary, .rows = rows});

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
