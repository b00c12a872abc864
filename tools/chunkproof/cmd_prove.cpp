// chunkproof prove: for each planner version x platform x invariant, PROVED over the declared
// domain, a COUNTEREXAMPLE (a case line replayed through the executable planner) or UNKNOWN.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "reference/io/user_dirs.h"
#include "tools/chunkproof/cli.h"
#ifdef CHUNKPROOF_HAVE_Z3
#include <unistd.h>

#include <csignal>

#include "invariants/smt/prover.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/progress.h"
#endif

namespace cp::cli {
namespace cmd_prove {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Asks Z3 (through the z3::expr instantiation of the planner's own arithmetic templates)
whether each invariant holds for every input of the declared domain. Each row is
  PROVED          for the whole domain (the domain is printed; "unbounded" when the proof
                  holds for every integer of S, ctx, start, rows, mml, mns),
  COUNTEREXAMPLE  with a case line that was replayed through the executable planner
                  (`chunkproof plan --case '<line>'` reproduces it); a model the planner does
                  not confirm is reported as ENCODING DISAGREES,
  UNKNOWN         with the split cases / lemmas that did not finish within the limits.)";

constexpr const char* kFooter = R"(--domain K=V (repeatable): block=MAX dcp=MAX interleave=MAX mml=MAX mns=MAX
  workspace=MAX|sized ctx=MAX prefills=MAX blocks=B1,B2,.. (split grid) packed=auto|split|symbolic
  (packed planner: auto = closed lemma chains, unbounded, where encoded and the split grid for the
  rest; split = the concrete grid, a cross-check).
The default invariant list is every invariant (= all; I-9 includes its token-level bijection).
Folders are checked before any query runs: --emit-smt2 and --save-regression must be writable
(else exit 2); an unwritable cache falls back to no cache with one warning. Results are printed
before any regression file is written. Progress goes to stderr: on a terminal (or with --progress)
one line "prove: 12/40 cases (30%), 9.1 s, about 21 s left; <the last case>", the estimate the rate
so far, capped by --max-time; on a pipe without --progress one line per finished case.
JSON (--json): one chunkproof.prove/1 object (docs/json.md).
Ctrl-C or SIGTERM, or the end of --max-time (the whole command's budget; --query-timeout is each
query's): the workers are stopped, the rows so far are printed and saved as usual, the unfinished
ones UNKNOWN ("interrupted: N of M case(s) not run" / "the run's time budget ran out: ...").

exit: 0 all encoded invariants PROVED, 1 a counterexample, 2 usage, 3 something UNKNOWN or
interrupted (and no counterexample), 4 built without the solver.
)";

#ifdef CHUNKPROOF_HAVE_Z3

std::string fmt_secs(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return o.str();
}

struct ProveArgs {
  std::vector<std::string> versions{"v6-current"}, platforms{"both"}, invariants, domain, pins;
  int jobs = 2;
  int timeout = 30;     // per query
  double max_time = 0;  // the whole command; 0: no limit
  long long rlimit = 0;
  unsigned seed = 1;
  std::string emit_smt2, cache, save_regression;
  bool no_cache = false, json = false, emit_only = false, progress = false;
};

// The versions whose family the prover encodes (FamilyInfo::smt_encoded): `all` means those; a
// version of another family by name is a usage error that says so.
std::vector<Version> encoded_versions(const std::vector<Version>& asked, const std::vector<std::string>& words) {
  const bool all = std::find(words.begin(), words.end(), "all") != words.end();
  std::vector<Version> out;
  for (Version v : asked) {
    if (info(v).family->smt_encoded) {
      out.push_back(v);
    } else if (!all) {
      throw UsageError("--version " + std::string(name(v)) + ": the prover does not encode the " +
                       std::string(info(v).family->name) + " family yet (plan, check, fuzz and map cover it)");
    }
  }
  return out;
}

// `--save-regression` without a folder: the user's data folder, never the checkout (the suite's
// corpus/regressions is the developers' to curate: copy a file there to keep it).
constexpr const char* kDefaultRegressionDir = "<the user's data folder>";
std::string default_regression_dir() {
  const auto tries = io::user_dir_candidates("XDG_DATA_HOME", ".local/share", "regressions");
  for (const auto& p : tries)
    if (writable_dir(p.string())) return p.string();
  throw UsageError(
      "--save-regression: no writable data folder ($XDG_DATA_HOME/chunkproof/regressions or "
      "~/.local/share/chunkproof/regressions); give --save-regression DIR (nothing was run)");
}

smt::ProveOptions prove_options(const ProveArgs& a) {
  smt::ProveOptions po;
  po.versions = encoded_versions(parse_versions(a.versions, "--version"), a.versions);
  po.platforms = parse_platforms(a.platforms, "--platform");
  if (!a.invariants.empty())
    po.invariants = parse_invariants(a.invariants, "--invariant");
  else  // default: every invariant (I-9's count- and token-level chain included)
    for (const auto& i : all_invariants()) po.invariants.push_back(i.id);
  for (const auto& kv : a.domain) {
    try {
      po.domain.apply(kv);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  for (const auto& list : a.pins) {  // after --domain: a pin is exact whatever bound was given
    std::stringstream ss(list);
    for (std::string kv; std::getline(ss, kv, ',');) {
      try {
        if (!kv.empty()) po.domain.pin(kv);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
  }
  po.jobs = a.jobs;
  po.timeout_s = static_cast<double>(a.timeout);
  if (a.max_time > 0)
    po.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(a.max_time));
  po.rlimit = static_cast<std::uint64_t>(a.rlimit);
  po.seed = a.seed;
  // Folders first: nothing runs when an output folder cannot be written.
  if (!a.emit_smt2.empty()) require_writable_dir(a.emit_smt2, "--emit-smt2");
  const std::string save = a.save_regression == kDefaultRegressionDir ? default_regression_dir() : a.save_regression;
  if (!save.empty()) require_writable_dir(save, "--save-regression");
  po.emit_smt2_dir = a.emit_smt2;
  if (a.emit_only && a.emit_smt2.empty()) throw UsageError("--emit-only needs --emit-smt2 DIR");
  po.emit_only = a.emit_only;
  po.save_regression_dir = save;
  if (!a.no_cache) {
    std::string warning;
    if (a.cache.empty())
      po.cache_dir = default_cache_dir("smt", &warning);
    else if (writable_dir(a.cache))
      po.cache_dir = a.cache;
    else
      warning = "no cache: cannot write --cache " + a.cache + " (results are not reused)";
    if (!warning.empty()) std::cerr << "chunkproof prove: warning: " << warning << "\n";
  }
  return po;
}

// Cases an interrupt left unfinished, and the line that says so ("" when none).
int cases_not_run(const std::vector<smt::ProveResult>& rows) {
  int n = 0;
  for (const auto& r : rows) n += r.cases_not_run;
  return n;
}
std::string interrupted_line(const std::vector<smt::ProveResult>& rows, double wall) {
  const int n = cases_not_run(rows);
  if (n == 0) return "";
  int row_count = 0;
  for (const auto& r : rows) row_count += r.cases_not_run > 0 ? 1 : 0;
  const int sig = proc::interrupt_signal();
  const char* sig_name = sig == SIGTERM ? "SIGTERM" : "SIGINT";  // the guard catches only these two
  const std::string why = proc::interrupted() ? std::string("interrupted (") + sig_name + ")" : "--max-time reached";
  return why + " after " + fmt_secs(wall) + ": " + std::to_string(n) + " case(s) of " + std::to_string(row_count) +
         " row(s) not run; those rows are UNKNOWN";
}

void print_table(const smt::ProveOptions& po, const std::vector<smt::ProveResult>& rows,
                 const std::vector<std::string>& saved, double wall) {
  std::cout << "domain: " << po.domain.describe() << "\n\n";
  std::cout << std::left << std::setw(15) << "version" << std::setw(6) << "plat" << std::setw(6) << "inv"
            << std::setw(16) << "verdict" << std::setw(10) << "time"
            << "detail\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& r = rows[k];
    std::string detail;
    if (r.status == smt::Status::proved) {
      detail = (r.unbounded ? "UNBOUNDED (any B >= 1, W, I | B, S, ctx, start, rows: no upper bound assumed); "
                            : "on the domain; ") +
               std::to_string(r.queries) + " queries" +
               (r.cache_hits ? " (" + std::to_string(r.cache_hits) + " cached)" : "") + ", " + r.method;
      if (!r.detail.empty()) detail += "; " + r.detail;
    } else if (r.status == smt::Status::counterexample) {
      detail = r.case_line;
    } else {
      detail = r.detail;
    }
    std::cout << std::setw(15) << name(r.version) << std::setw(6) << name(r.platform) << std::setw(6)
              << info(r.invariant).tag << std::setw(16) << smt::name(r.status) << std::setw(10)
              << (r.cases ? fmt_secs(r.seconds) : "") << detail << "\n";
    const std::string pad(43, ' ');
    if (r.status == smt::Status::counterexample) {
      std::cout << pad << "replay: " << r.replay << "\n";
      if (r.encoding_disagrees)
        std::cout << pad << "ENCODING DISAGREES: the planner does not confirm the solver's model\n";
      std::cout << pad << "reproduce: chunkproof plan --case '" << r.case_line << "'\n";
      if (!saved[k].empty()) std::cout << pad << "saving: " << saved[k] << "\n";
    }
    for (const auto& u : r.unknown_cases) std::cout << pad << "undecided " << u << "\n";
  }
  const std::string stopped = interrupted_line(rows, wall);
  if (!stopped.empty()) std::cout << "\n" << stopped << "\n";
  std::cout << std::right << "\nwall " << fmt_secs(wall) << "\n" << std::flush;
}

Json prove_json(const smt::ProveOptions& po, const std::vector<smt::ProveResult>& rows,
                const std::vector<std::string>& saved, double wall, int rc) {
  Json j{{"schema", "chunkproof.prove/1"},
         {"domain", po.domain.describe()},
         {"wall_seconds", wall},
         {"exit_code", rc},
         {"interrupted", cases_not_run(rows) > 0},
         {"results", Json::array()}};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& r = rows[k];
    Json rj{{"version", name(r.version)},     {"platform", name(r.platform)}, {"invariant", info(r.invariant).tag},
            {"status", smt::name(r.status)},  {"seconds", r.seconds},         {"cases", r.cases},
            {"cases_proved", r.cases_proved}, {"queries", r.queries},         {"cache_hits", r.cache_hits},
            {"unbounded", r.unbounded},       {"domain", r.domain},           {"method", r.method}};
    rj["cases_not_run"] = r.cases_not_run;
    if (!r.case_line.empty()) rj["case"] = r.case_line;
    if (!r.replay.empty()) rj["replay"] = r.replay;
    rj["encoding_disagrees"] = r.encoding_disagrees;
    rj["detail"] = r.detail;
    rj["unknown_cases"] = r.unknown_cases;
    if (!saved[k].empty()) rj["saved_to"] = saved[k];
    j["results"].push_back(std::move(rj));
  }
  return j;
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof prove"};
  configure(app, kFooter);
  ProveArgs a;
  // --save-regression takes an optional folder: normalise "--save-regression" alone.
  std::vector<std::string> argv(args.begin(), args.end());
  for (std::size_t i = 0; i < argv.size(); ++i)
    if (argv[i] == "--save-regression" && (i + 1 == argv.size() || argv[i + 1].rfind("--", 0) == 0))
      argv[i] = std::string("--save-regression=") + kDefaultRegressionDir;
  add_list(app, "--version", a.versions, "planner versions: comma list or all")

      ->capture_default_str();
  add_list(app, "--platform", a.platforms, "cuda, rocm or both")->capture_default_str();
  add_list(app, "--invariant", a.invariants, "I-1,I-6,... or all (default: all)");
  add_list(app, "--domain", a.domain, "override the domain, K=V (repeatable; below)");
  add_list(app, "--pin", a.pins,
           "fix values exactly, K=V[,K=V...] (block, dcp, interleave, workspace, mml, mns; repeatable): the batch "
           "stays free");
  add_jobs(app, a.jobs, "worker processes");
  app.add_option("--max-time", a.max_time,
                 "seconds for the whole command: then running queries stop and the rows not finished are "
                 "UNKNOWN (default: no limit)")
      ->check(CLI::Range(1.0, 30.0 * 86400));
  app.add_option("--query-timeout,--timeout", a.timeout, "seconds per query (--timeout: the same)")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--rlimit", a.rlimit, "Z3 resource limit (default 4e6 per second of --query-timeout)")
      ->check(CLI::Range(0LL, 4000000000LL));
  app.add_option("--seed", a.seed, "solver seed")->check(CLI::Range(0, 1 << 30))->capture_default_str();
  app.add_option("--emit-smt2", a.emit_smt2, "write every query as commented SMT-LIB2 (re-check with `z3 FILE`)")
      ->type_name("DIR");
  app.add_flag("--emit-only", a.emit_only,
               "with --emit-smt2: write every query, solve none (rows UNKNOWN; re-check the files with z3)");
  app.add_option("--cache", a.cache, "reuse proved queries from DIR (default $XDG_CACHE_HOME/chunkproof/smt)")
      ->type_name("DIR");
  app.add_flag("--no-cache", a.no_cache, "no cache");
  app.add_option("--save-regression", a.save_regression,
                 "write replayed counterexamples as .case files (DIR optional, default "
                 "$XDG_DATA_HOME/chunkproof/regressions, else ~/.local/share/chunkproof/regressions)")
      ->type_name("[DIR]");
  app.add_flag("--json", a.json, "machine-readable result");
  app.add_flag("--progress", a.progress, "the progress line with an estimate also when stderr is not a terminal");
  if (!parse(app, argv)) return kExitOk;
  if (a.no_cache && !a.cache.empty()) throw UsageError("give --cache DIR or --no-cache, not both");
  smt::ProveOptions po = prove_options(a);
  std::cerr << "chunkproof prove: domain " << po.domain.describe() << "; " << po.jobs << " job(s), " << po.timeout_s
            << " s per query" << (a.max_time > 0 ? ", " + fmt_secs(a.max_time) + " in all" : std::string())
            << "; cache " << (po.cache_dir.empty() ? "off" : po.cache_dir) << "\n";
  // The meter (reference/proc/progress.h) counts the cases; its note is the last one. A terminal
  // gets only the meter (redrawn in place); a pipe keeps one line per case.
  proc::Progress meter("prove", smt::count_cases(po), "cases", show_progress(a.progress), a.max_time);
  const bool case_lines = !::isatty(STDERR_FILENO);
  po.progress = [&](const std::string& line) {
    meter.add();
    meter.note(line);
    if (case_lines) std::cerr << "  " << line << "\n" << std::flush;
  };

  // Up to the last saved file: Ctrl-C / SIGTERM stop the workers (the rows so far are printed
  // and saved, exit 3), and a second one cannot cut a regression file short.
  proc::InterruptGuard guard;
  const auto t0 = std::chrono::steady_clock::now();
  const auto rows = smt::prove(po);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  meter.finish();

  bool any_ce = false, any_unknown = false, any_disagree = false;
  std::vector<std::string> saved(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& r = rows[k];
    any_ce = any_ce || r.status == smt::Status::counterexample;
    any_unknown = any_unknown || r.status == smt::Status::unknown;
    any_disagree = any_disagree || r.encoding_disagrees;
    if (!r.regression.empty()) saved[k] = (std::filesystem::path(po.save_regression_dir) / r.regression_file).string();
  }
  int rc = any_ce || any_disagree ? kExitFinding : any_unknown ? kExitInconclusive : kExitOk;
  // Print first, then save.
  if (a.json)
    print_json(std::cout, prove_json(po, rows, saved, wall, rc));
  else
    print_table(po, rows, saved, wall);
  if (any_disagree) std::cerr << "chunkproof prove: ENCODING DISAGREES with the executable planner (see above)\n";
  if (const std::string stopped = interrupted_line(rows, wall); !stopped.empty())
    std::cerr << "chunkproof prove: " << stopped << "\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (saved[k].empty()) continue;
    std::ofstream f(saved[k]);
    if (!(f << rows[k].regression) || !f.flush()) {
      std::cerr << "chunkproof prove: cannot write " << saved[k] << "\n";
      rc = worst(rc, kExitUsage);
    } else if (!a.json) {
      std::cout << "saved: " << saved[k] << "\n";
    }
  }
  return rc;
}

#else

int run(Args args) {
  CLI::App app{kDescription, "chunkproof prove"};
  configure(app, kFooter);
  app.allow_extras();
  if (!parse(app, args)) return kExitOk;
  throw CannotRun(
      "this build has no SMT prover (configured with -DCHUNKPROOF_WITH_Z3=OFF or without libz3-dev); rebuild with "
      "CHUNKPROOF_WITH_Z3=ON");
}

#endif

const RegisterCommand reg{"prove", "prove invariants per planner version with Z3, or give a counterexample", run};

}  // namespace
}  // namespace cmd_prove
}  // namespace cp::cli
