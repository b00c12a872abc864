// chunkproof replay: runs case files (regression files, fuzz findings, prover counterexamples,
// --cases lists) and checks every `# expect` line against the planner's verdict.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "invariants/expect.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/live_cli.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {
namespace cmd_replay {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Replays case files: every record ('#' header lines, then one case line) runs through the planner
and the invariant catalogue once per '# expect <version>: ok|assert|violation I-x,...' line, with
version= replaced, and must give that verdict. A record without expect lines reports its verdict
as `plan` would. A folder stands for its *.case files; - reads stdin.)";

constexpr const char* kFooter = R"(Example: chunkproof replay corpus/regressions
JSON (--json): one chunkproof.replay/1 object per run, one per line (docs/json.md).
exit: 0 every expectation met (and every record without one holds), 1 an expectation not met
(or a finding), 2 bad input (unreadable file, malformed line).
--planner-cmd CMD: the records' plans come from an external planner (docs/live.md); each expect line
is checked on its plan; with --version V every plan is also diffed against chunkproof's model of V.
)";

std::vector<std::string> expand(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (p != "-" && std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(p, ec))
        if (e.path().extension() == ".case") in_dir.push_back(e.path().string());
      if (in_dir.empty()) throw UsageError("no .case file in folder '" + p + "'");
      std::sort(in_dir.begin(), in_dir.end());
      out.insert(out.end(), in_dir.begin(), in_dir.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof replay"};
  configure(app, kFooter);
  std::vector<std::string> files;
  bool json = false, quiet = false, summary = false;
  std::uint64_t max_memory = 0;
  app.add_option("files", files, "case files or folders of them, - for stdin")->required()->type_name("FILE...");
  auto* json_opt = app.add_flag("--json", json, "machine-readable output");
  app.add_flag("--summary", summary,
               "one line per run: version, case id, outcome, violated invariants, first assert, expectation")
      ->excludes(json_opt);
  app.add_flag("--quiet", quiet, "print only the runs that do not meet their expectation");
  add_max_memory(app, max_memory);
  LiveArgs live;
  add_live_options(app, live);
  if (!parse(app, args)) return kExitOk;

  // Read and parse everything first: bad input exits 2 before any work.
  std::vector<CaseInput> inputs;
  for (const auto& f : expand(files)) {
    const auto records = read_case_file(f);
    if (records.empty()) throw UsageError("no case line in '" + f + "'");
    for (const auto& r : records) inputs.push_back({r.line, r.origin, r.expects});
  }
  const auto jobs = parse_jobs(inputs);
  for (const auto& j : jobs) check_memory(j.c, false, max_memory);
  if (live.active()) return run_jobs_live(jobs, live, {.json = json, .summary = summary, .quiet = quiet});

  int rc = kExitOk, met = 0, failed = 0;
  for (const auto& job : jobs) {
    const Evaluation ev = evaluate(job.c);
    const std::string got = verdict_text(expectation_of(ev));
    const bool ok = job.expect ? meets(ev, *job.expect) : ev.exit_code() == kExitOk;
    const int code = ok ? kExitOk : kExitFinding;
    rc = worst(rc, code);
    ok ? ++met : ++failed;
    if (json) {
      print_json(std::cout, Json{{"schema", "chunkproof.replay/1"},
                                 {"origin", job.origin},
                                 {"version", name(job.c.version)},
                                 {"case", print_case(job.c)},
                                 {"expected", job.expect ? Json(verdict_text(*job.expect)) : Json(nullptr)},
                                 {"got", got},
                                 {"met", ok},
                                 {"exit_code", code}});
      continue;
    }
    if (quiet && ok) continue;
    if (summary) {
      std::cout << summary_line(ev, job.origin,
                                "expect=" + (job.expect ? verdict_text(*job.expect) : std::string("none")) +
                                    (ok ? ":met" : ":NOT-MET"))
                << "\n";
      continue;
    }
    std::cout << (ok ? "ok    " : "FAIL  ") << job.origin << "  " << std::left << std::setw(15) << name(job.c.version)
              << std::right;
    if (job.expect) std::cout << "expected " << verdict_text(*job.expect) << ", ";
    std::cout << "got " << got << "\n";
    if (!ok) std::cout << "      replay: chunkproof plan --case '" << print_case(job.c) << "'\n";
  }
  if (!json) std::cout << jobs.size() << " run(s): " << met << " as expected, " << failed << " not\n";
  return rc;
}

const RegisterCommand reg{"replay", "replay case files and check their '# expect' lines", run};

}  // namespace
}  // namespace cmd_replay
}  // namespace cp::cli
