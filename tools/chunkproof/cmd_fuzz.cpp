// chunkproof fuzz: the campaign runner (campaign/campaign.h). Start it, leave it, resume it,
// read report.md in the morning.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <thread>

#include "campaign/campaign.h"
#include "reference/caseio/pins.h"
#include "reference/planner/versions.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/live_cli.h"

namespace cp::cli {
namespace cmd_fuzz {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Runs a fuzz campaign: libFuzzer in fork mode (--jobs processes) on a fuzz target, keeping the
corpus and the findings on disk so that running the same command again resumes it. Each
distinct finding (version, platform, invariant and cause) is minimized to a short case line,
checked by replaying it, and written as a regression-format file; report.md and report.json
(executions, exec/s, coverage, findings with their case lines and replay commands) are written
atomically at the end, also after Ctrl-C or kill (a second Ctrl-C skips minimization).)";

constexpr const char* kFooter =
    R"(Folders: --findings-dir (the campaign folder: report.md, maps/, state, lock) defaults to
$CHUNKPROOF_FUZZ_HOME/<target>-<versions>-<platform>[-pinned-<pins>], else the same under the
user's data folder ($XDG_DATA_HOME/chunkproof/fuzz, ~/.local/share/chunkproof/fuzz), never the
source checkout, so the same command resumes from any directory; --corpus-dir defaults to <findings dir>/corpus and
must differ from the findings folder. Given folders are checked before any work. The state is
checkpointed every 15 s; libFuzzer and its jobs die with the runner (SIGKILL included); a second
runner on the same campaign folder exits 2 naming the holder.
--fuzzer-bin: the libFuzzer build of the target, or its directory (default: $CHUNKPROOF_FUZZ_BIN_DIR,
then fuzz/ beside this binary, then build/fuzz/fuzz). Build it with `cmake --preset fuzz &&
cmake --build --preset fuzz` (clang, libclang-rt-14-dev); --engine builtin is an in-process random
search, planner only, no coverage guidance, no sanitizers, for machines without the clang build.
--stop-on: stop at the first finding whose tags contain all '&'-separated parts, e.g.
'I-6&interleave>1' or 'max_context_chunk % dcp_world_size'.
JSON (--json): report.json (chunkproof.fuzz-report/1, docs/json.md) on stdout at the end.
--planner-cmd CMD (docs/live.md): every case goes to an external planner and its plan is checked;
with --version V each plan is also diffed against chunkproof's model of V, every disagreement a
finding with its case line. The built-in engine by default; --engine libfuzzer runs
live_planner_fuzz (the libFuzzer build; one persistent planner child per job, --jobs of them).
The campaign folder defaults to live-<versions>-<platform>.

exit: 0 no finding, 1 findings (see report.md), 2 usage, 3 nothing ran, 4 no libFuzzer build of
the target on this machine.
)";

int run(Args args) {
  CLI::App app{kDescription, "chunkproof fuzz"};
  configure(app, kFooter);
  fuzz::CampaignOptions opt;
  std::vector<std::string> versions, platforms{"both"}, expect_correct{joined_names(expected_correct_versions())};
  bool no_status = false, json = false;
  double max_time = 3600, minimize = 20;
  long long seed = 0;
  opt.target = "planner";
  opt.engine = "libfuzzer";
  opt.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  add_list(app, "--version", versions, "planner versions the inputs select from: comma list or all (default all)");
  add_list(app, "--platform", platforms, "cuda, rocm or both")->capture_default_str();
  app.add_option("--target", opt.target, "fuzz target")
      ->check(CLI::IsMember({"planner", "dcp_index", "case_parser", "merge"}))
      ->capture_default_str();
  app.add_option("--max-time", max_time, "seconds of fuzzing; minimization and the report follow")
      ->check(CLI::Range(1.0, 100.0 * 24 * 3600))
      ->capture_default_str();
  add_jobs(app, opt.jobs, "libFuzzer fork-mode jobs (default: the number of cores)");
  app.add_option("--corpus-dir", opt.corpus_dir, "the corpus folder")->type_name("DIR");
  app.add_option("--findings-dir", opt.findings_dir, "the findings folder (report.md is here)")->type_name("DIR");
  app.add_option("--fuzzer-bin", opt.fuzzer_bin, "the libFuzzer build of the target, or its directory")
      ->type_name("PATH");
  app.add_option("--engine", opt.engine, "libfuzzer or builtin")
      ->check(CLI::IsMember({"libfuzzer", "builtin"}))
      ->capture_default_str();
  add_list(app, "--expect-correct", expect_correct, "versions whose findings are crashes: comma list, all or none")

      ->capture_default_str();
  app.add_option("--stop-on", opt.stop_on, "stop at the first finding with these '&'-separated tags");
  std::vector<std::string> pins;
  add_list(app, "--pin", pins,
           "fix values exactly, K=V[,K=V...] (block, dcp, interleave, workspace, mml, mns; repeatable): every input "
           "has them, minimization keeps them; the batch stays free");
  app.add_flag("--differential", opt.differential, "also run every expected-correct version on each input");
  app.add_option("--seed", seed, "libFuzzer / builtin seed")->check(CLI::Range(0LL, (1LL << 31) - 1));
  app.add_option("--minimize-time", minimize, "seconds of minimization per new finding")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_flag("--no-status", no_status, "no live status line");
  app.add_flag("--json", json, "print report.json to stdout at the end");
  LiveArgs live;
  add_live_options(app, live, false);  // --version is this command's list
  if (!parse(app, args)) return kExitOk;
  if (live.active()) {
    // The built-in engine unless --engine libfuzzer: then live_planner_fuzz, one persistent
    // planner child per libFuzzer job (campaign/fuzz_live_planner.cpp).
    if (!app.count("--engine")) opt.engine = "builtin";
    if (opt.engine == "libfuzzer") {
      if (app.count("--target") && opt.target != "planner")
        throw UsageError("--planner-cmd fuzzes the planner (--target planner), not --target " + opt.target);
      opt.target = "live_planner";
    }
    opt.planner_cmd = live.planner_cmd;
    opt.planner_timeout = live.timeout;
    opt.planner_diff = !versions.empty();
  }
  if (!versions.empty()) {
    const auto vs = parse_versions(versions, "--version");
    if (vs.size() < all_versions().size())  // every version is the runner's default (empty list)
      for (Version v : vs) opt.versions.emplace_back(name(v));
  }
  const auto ps = parse_platforms(platforms, "--platform");
  opt.platform = ps.size() == 2 ? "both" : std::string(name(ps.front()));
  opt.expect_correct.clear();  // the list given (or this command's default), not appended to the runner's
  if (expect_correct.size() != 1 || expect_correct.front() != "none")
    for (Version v : parse_versions(expect_correct, "--expect-correct"))
      opt.expect_correct += (opt.expect_correct.empty() ? "" : ",") + std::string(name(v));
  Pins pinned;
  for (const auto& p : pins) parse_pins(p, pinned);  // a bad pin is exit 2 naming its key (CaseError)
  for (const auto& p : pins) opt.pins += (opt.pins.empty() || p.empty() ? "" : ",") + p;
  opt.max_time = max_time;
  opt.minimize_seconds = minimize;
  opt.seed = static_cast<std::uint64_t>(seed);
  opt.status_line = !no_status;
  if (!opt.corpus_dir.empty()) require_writable_dir(opt.corpus_dir, "--corpus-dir");
  if (!opt.findings_dir.empty()) require_writable_dir(opt.findings_dir, "--findings-dir");
  opt.command_line = "chunkproof fuzz";
  for (const auto& a : args) opt.command_line += " " + a;

  const fuzz::CampaignResult r = fuzz::run_campaign(opt, std::cerr);
  if (r.exit_code == kExitUsage) {
    // A missing libFuzzer build is this machine's limit, not bad input.
    if (r.error.rfind("no libFuzzer build", 0) == 0) throw CannotRun(r.error);
    throw UsageError(r.error);
  }
  if (json) {
    std::ifstream in(r.report_json);
    std::cout << in.rdbuf();
  } else {
    const auto groups = fuzz::group_findings(r.findings);
    std::cout << (r.interrupted ? "interrupted; " : "") << r.run.executions << " executions in " << std::fixed
              << std::setprecision(1) << r.run.seconds << " s (" << std::setprecision(0) << r.run.exec_per_s
              << "/s), coverage " << r.run.coverage << ", corpus " << r.run.corpus << "\n"
              << r.findings.size() << " distinct finding(s), " << groups.size() << " root cause(s):\n";
    for (const auto& g : groups) {
      const auto& f = r.findings[g.members.front()];
      std::cout << "  " << (f.is_new ? "new  " : "known") << " " << g.root_cause << "  (" << g.members.size()
                << " raw signature" << (g.members.size() == 1 ? "" : "s") << ")\n";
      if (!f.case_line.empty()) std::cout << "        " << f.case_line << "\n";
      for (std::size_t k = 1; k < g.members.size(); ++k)
        std::cout << "        same cause: " << r.findings[g.members[k]].signature << "\n";
    }
    std::cout << "report: " << r.report_md << "\n        " << r.report_json << "\n";
  }
  return r.exit_code;
}

const RegisterCommand reg{"fuzz", "run a fuzz campaign (libFuzzer) and write a morning report", run};

}  // namespace
}  // namespace cmd_fuzz
}  // namespace cp::cli
