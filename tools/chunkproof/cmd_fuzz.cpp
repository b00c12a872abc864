// chunkproof fuzz: the campaign runner (fuzz/runner/campaign.h). Start it, leave it, resume it,
// read report.md in the morning.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <thread>

#include "fuzz/runner/campaign.h"
#include "reference/planner/versions.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {
namespace {

constexpr const char* kHelp = R"(usage: chunkproof fuzz [--version V[,V...]] [--platform cuda|rocm|both] [--target T]
                       [--max-time SECONDS] [--jobs N] [--corpus-dir DIR] [--findings-dir DIR]
                       [--fuzzer-bin PATH] [--engine libfuzzer|builtin] [--expect-correct V,...|none]
                       [--stop-on TAGS] [--differential] [--seed N] [--minimize-time S] [--no-status] [--json]

Runs a fuzz campaign: libFuzzer in fork mode (--jobs processes) on a fuzz target, keeping the
corpus and the findings on disk so that running the same command again resumes it. Each
distinct finding (version, platform, invariant and cause) is minimized to a short case line,
checked by replaying it, and written as a regression-format file; report.md and report.json
(executions, exec/s, coverage, findings with their case lines and replay commands) are written
atomically at the end, also after Ctrl-C or SIGTERM (within about 2 s: no minimization then).
The state is checkpointed every 15 s; libFuzzer and its jobs die with the runner, even when it
is SIGKILLed; a second runner on the same campaign folder exits 2 naming the holder.

  --version V,...     planner versions the inputs select from (default: all; see `chunkproof versions`)
  --platform P        cuda, rocm or both (default both)
  --target T          planner (default), dcp_index, case_parser, merge
  --max-time S        seconds of fuzzing (default 3600); minimization and the report follow
  --jobs N            libFuzzer fork-mode jobs (default: the number of cores)
  --findings-dir DIR  the campaign folder (report.md, maps/, state, lock); default
                      $CHUNKPROOF_FUZZ_HOME/<target>-<versions>-<platform>, else the same under
                      <source>/chunkproof-fuzz: the same command resumes from any directory
  --corpus-dir DIR    default <findings dir>/corpus; must differ from the findings folder
  --fuzzer-bin PATH   the libFuzzer build of the target, or its directory (default: $CHUNKPROOF_FUZZ_BIN_DIR,
                      then fuzz/ beside this binary, then build/fuzz/fuzz). Build it with
                      `cmake --preset fuzz && cmake --build --preset fuzz` (clang, libclang-rt-14-dev).
  --engine E          libfuzzer (default) or builtin: an in-process random search, planner only, no
                      coverage guidance, no sanitizers — for machines without the clang build
  --expect-correct L  versions whose findings are crashes (default v5-packed,v6-current; none)
  --stop-on TAGS      stop at the first finding whose tags contain all '&'-separated parts, e.g.
                      'I-6&interleave>1' or 'max_context_chunk % dcp_world_size'
  --differential      also run every expected-correct version on each input
  --seed N            libFuzzer / builtin seed
  --minimize-time S   seconds of minimization per new finding (default 20)
  --no-status         no live status line
  --json              print report.json to stdout at the end

exit: 0 no finding, 1 findings (see report.md), 2 usage, no fuzzer binary or folder in use, 3 nothing ran.
)";

int run(Args args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return kExitOk;
  }
  Options o(args, {"--differential", "--no-status", "--json"},
            {"--version", "--platform", "--target", "--max-time", "--jobs", "--corpus-dir", "--findings-dir",
             "--fuzzer-bin", "--engine", "--expect-correct", "--stop-on", "--seed", "--minimize-time"});
  if (!o.positional().empty()) throw UsageError("unexpected argument '" + o.positional().front() + "'");
  fuzz::CampaignOptions opt;
  opt.target = o.get_or("--target", "planner");
  if (opt.target != "planner" && opt.target != "dcp_index" && opt.target != "case_parser" && opt.target != "merge")
    throw UsageError("unknown target '" + opt.target + "' (planner, dcp_index, case_parser, merge)");
  if (auto v = o.get("--version")) {
    std::string s = *v;
    for (std::size_t pos = 0; pos <= s.size();) {
      auto comma = s.find(',', pos);
      if (comma == std::string::npos) comma = s.size();
      const std::string n = s.substr(pos, comma - pos);
      if (!parse_version(n)) throw UsageError("unknown version '" + n + "' (see chunkproof versions)");
      opt.versions.push_back(n);
      pos = comma + 1;
    }
  }
  opt.platform = o.get_or("--platform", "both");
  if (opt.platform != "cuda" && opt.platform != "rocm" && opt.platform != "both")
    throw UsageError("--platform must be cuda, rocm or both");
  opt.max_time = static_cast<double>(o.get_int("--max-time", 3600, 1, 100LL * 24 * 3600));
  const long long cores = std::max(1u, std::thread::hardware_concurrency());
  opt.jobs = static_cast<int>(o.get_int("--jobs", cores, 1, 1024));
  opt.corpus_dir = o.get_or("--corpus-dir", "");
  opt.findings_dir = o.get_or("--findings-dir", "");
  opt.fuzzer_bin = o.get_or("--fuzzer-bin", "");
  opt.engine = o.get_or("--engine", "libfuzzer");
  if (opt.engine != "libfuzzer" && opt.engine != "builtin") throw UsageError("--engine must be libfuzzer or builtin");
  opt.expect_correct = o.get_or("--expect-correct", "v5-packed,v6-current");
  if (opt.expect_correct == "none") opt.expect_correct.clear();
  for (std::size_t pos = 0; pos < opt.expect_correct.size();) {
    auto comma = opt.expect_correct.find(',', pos);
    if (comma == std::string::npos) comma = opt.expect_correct.size();
    const std::string n = opt.expect_correct.substr(pos, comma - pos);
    if (!parse_version(n)) throw UsageError("--expect-correct: unknown version '" + n + "'");
    pos = comma + 1;
  }
  opt.stop_on = o.get_or("--stop-on", "");
  opt.differential = o.has("--differential");
  opt.seed = static_cast<std::uint64_t>(o.get_int("--seed", 0, 0, (1LL << 31) - 1));
  opt.minimize_seconds = static_cast<double>(o.get_int("--minimize-time", 20, 0, 3600));
  opt.status_line = !o.has("--no-status");
  opt.command_line = "chunkproof fuzz";
  for (const auto& a : args) opt.command_line += " " + a;

  const fuzz::CampaignResult r = fuzz::run_campaign(opt, std::cerr);
  if (r.exit_code == kExitUsage) {
    std::cerr << "chunkproof fuzz: " << r.error << "\n";
    return kExitUsage;
  }
  if (o.has("--json")) {
    std::ifstream in(r.report_json);
    std::cout << in.rdbuf();
  } else {
    std::cout << (r.interrupted ? "interrupted; " : "") << r.run.executions << " executions in " << std::fixed
              << std::setprecision(1) << r.run.seconds << " s (" << std::setprecision(0) << r.run.exec_per_s
              << "/s), coverage " << r.run.coverage << ", corpus " << r.run.corpus << "\n"
              << r.findings.size() << " distinct finding(s):\n";
    for (const auto& f : r.findings) {
      std::cout << "  " << (f.is_new ? "new  " : "known") << " " << f.signature << "\n";
      if (!f.case_line.empty()) std::cout << "        " << f.case_line << "\n";
    }
    std::cout << "report: " << r.report_md << "\n        " << r.report_json << "\n";
  }
  return r.exit_code;
}

const RegisterCommand reg{"fuzz", "run a fuzz campaign (libFuzzer) and write a morning report", run};

}  // namespace
}  // namespace cp::cli
