// chunkproof diff: an external planner's plans against chunkproof's model of the same version,
// field by field (docs/live.md). The throughput it prints is the protocol's (bench/live_bench.sh).
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>

#include "reference/mla/check.h"
#include "reference/proc/interrupt.h"
#include "tools/chunkproof/live_cli.h"

namespace cp::cli {
namespace {

constexpr const char* kDescription =
    R"(Sends cases to an external planner (--planner-cmd, docs/live.md), reads its plans back, checks
each with every invariant that applies and compares it field by field with chunkproof's model of
--version: workspace sizing, batch split, planner parameters, every chunk and span, the DCP local
plan and kept rows, the merge bookkeeping, and whether the planner stops at an assert. Each
disagreement is a finding with its case line.)";

constexpr const char* kFooter = R"(Cases: --case / --cases, or --random N small random cases of --version on --platform
(the generator of `check --random`, seeded by --seed), until --max-time.
Output: one line per finding, then a summary with the cases per second through the protocol;
--verbose prints each finding's plan and every differing field; --json one chunkproof.live/1
object per case (docs/live.md).

exit: 0 every plan agrees with the model and holds every invariant, 1 a finding (disagreement,
violation, assert or protocol failure), 2 usage, 3 interrupted before any case.
)";

struct Tally {
  std::int64_t cases = 0, findings = 0;
  std::map<std::string, std::pair<std::int64_t, std::string>> by_signature;  // count, first case line
};

void report(const Tally& t, double seconds, const live::ExternalPlanner& p, std::ostream& os) {
  os << t.cases << " case(s) in " << std::fixed << std::setprecision(2) << seconds << " s (" << std::setprecision(0)
     << (seconds > 0 ? static_cast<double>(t.cases) / seconds : 0.0) << " cases/s), " << p.starts()
     << " planner start(s); " << t.findings << " finding(s), " << t.by_signature.size() << " distinct\n";
  for (const auto& [sig, v] : t.by_signature)
    os << "  " << std::setw(7) << v.first << "  " << sig << "\n           " << v.second << "\n";
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof diff"};
  configure(app, kFooter);
  CaseArgs ca;
  LiveArgs la;
  long long random = 0;
  long long seed = 1;
  double max_time = 1e9;
  std::string platform = "cuda";
  bool json = false, verbose = false;
  add_case_options(app, ca);
  add_live_options(app, la);
  app.get_option("--planner-cmd")->required();
  app.get_option("--version")->required();
  app.add_option("--random", random, "N random cases of --version")->check(CLI::Range(1LL, 1LL << 40));
  app.add_option("--platform", platform, "cuda or rocm (--random)")
      ->check(CLI::IsMember({"cuda", "rocm"}))
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of --random")->capture_default_str();
  app.add_option("--max-time", max_time, "stop after this many seconds")->check(CLI::Range(0.1, 1e9));
  app.add_flag("--json", json, "one chunkproof.live/1 object per case");
  app.add_flag("--verbose", verbose, "each finding's plan and every differing field");
  if (!parse(app, args)) return kExitOk;
  if (random == 0 && ca.cases.empty() && ca.cases_file.empty()) throw UsageError("give --case, --cases or --random N");
  std::vector<CaseJob> jobs;
  if (random == 0) jobs = parse_jobs(collect_cases(ca));
  const auto planner = start_planner(la);
  const Version v = *parse_version(la.version);
  const Platform p = *parse_platform(platform);
  const proc::InterruptGuard guard;
  Tally t;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const std::int64_t n = random ? random : static_cast<std::int64_t>(jobs.size());
  for (std::int64_t i = 0; i < n && elapsed() < max_time && !proc::interrupted(); ++i) {
    const Case c =
        live_case(la, random ? mla::random_case(v, p, static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(i))
                             : jobs[static_cast<std::size_t>(i)].c);
    const live::LiveResult r = live::run_live(*planner, c, {.diff = true});
    ++t.cases;
    if (json) print_json(std::cout, live_json(r));
    if (!r.finding()) continue;
    ++t.findings;
    auto& slot = t.by_signature[r.signature];
    if (slot.first++ == 0) slot.second = print_case(c);
    if (json) continue;
    if (verbose)
      print_live_text(std::cout, r, 40);
    else
      std::cout << live_line(r, random ? "random " + std::to_string(i) : jobs[static_cast<std::size_t>(i)].origin)
                << "\n"
                << "      case: " << print_case(c) << "\n";
  }
  const double secs = elapsed();
  report(t, secs, *planner, json ? std::cerr : std::cout);
  if (t.cases == 0) return kExitInconclusive;
  return t.findings ? kExitFinding : kExitOk;
}

const RegisterCommand reg{"diff", "diff an external planner's plans (--planner-cmd) against chunkproof's model", run};

}  // namespace
}  // namespace cp::cli
