// chunkproof prove: for each planner version x platform x invariant, PROVED over the declared
// domain, a COUNTEREXAMPLE (a case line replayed through the executable planner) or UNKNOWN.
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"
#ifdef CHUNKPROOF_HAVE_Z3
#include "invariants/smt/prover.h"
#endif

namespace cp::cli {
namespace {

constexpr const char* kHelp = R"(usage: chunkproof prove [--version V[,V..]|all] [--platform cuda|rocm|both]
                       [--invariant I-x[,I-y..]] [--domain key=value]... [--jobs N]
                       [--timeout SECONDS] [--rlimit N] [--seed N] [--json] [--emit-smt2 DIR]
                       [--cache DIR | --no-cache] [--save-regression [DIR]]

Asks Z3 (through the z3::expr instantiation of the planner's own arithmetic templates)
whether each invariant holds for every input of the declared domain. Each row is
  PROVED          for the whole domain (the domain is printed; "unbounded" when the proof
                  holds for every integer of S, ctx, start, rows, mml, mns),
  COUNTEREXAMPLE  with a case line that was replayed through the executable planner
                  (`chunkproof plan --case '<line>'` reproduces it); a model the planner does
                  not confirm is reported as ENCODING DISAGREES,
  UNKNOWN         with the split cases / lemmas that did not finish within the limits.

  --version LIST     planner versions (default v6-current); "all" for every version
  --platform P       cuda, rocm or both (default both)
  --invariant LIST   I-1,I-6,... (default: every invariant but I-9, which runs only when
                     named; unencoded ones are listed as such)
  --domain K=V       override the domain (repeatable): block=MAX dcp=MAX interleave=MAX
                     mml=MAX mns=MAX workspace=MAX|sized ctx=MAX prefills=MAX
                     blocks=B1,B2,.. (split grid) packed=auto|split|symbolic (packed
                     planner: auto = closed lemma chains, unbounded, where encoded and the
                     split grid for the rest; split = the concrete grid, a cross-check)
  --jobs N           worker processes (default 2)
  --timeout S        per query, seconds (default 30); --rlimit N sets Z3's resource limit
                     (default 4e6 per second of timeout), --seed the solver seed (default 1)
  --emit-smt2 DIR    write every query as commented SMT-LIB2 (re-check with `z3 FILE`)
  --cache DIR        reuse proved queries (content-hashed) from DIR (default
                     .cache/chunkproof-smt); --no-cache disables it
  --save-regression [DIR]  write replayed counterexamples as .case files
                     (default corpus/regressions)
  --json             machine-readable result

progress goes to stderr. exit: 0 all encoded invariants PROVED, 1 a counterexample,
2 usage, 3 something UNKNOWN (and no counterexample).
)";

#ifdef CHUNKPROOF_HAVE_Z3

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string fmt_secs(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return o.str();
}

int run(Args args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return kExitOk;
  }
  // --save-regression takes an optional directory: normalise "--save-regression" alone.
  std::vector<std::string> a(args.begin(), args.end());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] == "--save-regression" && (i + 1 == a.size() || a[i + 1].rfind("--", 0) == 0))
      a[i] = "--save-regression=corpus/regressions";
  std::vector<std::string> domain_kv;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == "--domain") {
      if (i + 1 == a.size()) throw UsageError("--domain needs key=value");
      domain_kv.push_back(a[++i]);
    } else if (a[i].rfind("--domain=", 0) == 0) {
      domain_kv.push_back(a[i].substr(9));
    } else {
      rest.push_back(a[i]);
    }
  }
  Options o(rest, {"--json", "--no-cache"},
            {"--version", "--platform", "--invariant", "--jobs", "--timeout", "--rlimit", "--seed", "--emit-smt2",
             "--cache", "--save-regression"});
  if (!o.positional().empty()) throw UsageError("unexpected argument '" + o.positional().front() + "'");
  smt::ProveOptions po;
  const std::string vs = o.get_or("--version", "v6-current");
  if (vs == "all") {
    for (const auto& v : all_versions()) po.versions.push_back(v.version);
  } else {
    for (const auto& n : split_list(vs)) {
      auto v = parse_version(n);
      if (!v) throw UsageError("unknown version '" + n + "' (see `chunkproof versions`)");
      po.versions.push_back(*v);
    }
  }
  const std::string ps = o.get_or("--platform", "both");
  if (ps == "both")
    po.platforms = {Platform::cuda, Platform::rocm};
  else if (auto p = parse_platform(ps))
    po.platforms = {*p};
  else
    throw UsageError("unknown platform '" + ps + "' (cuda, rocm, both)");
  if (auto is = o.get("--invariant"))
    for (const auto& n : split_list(*is)) {
      InvariantId id{};
      if (!parse_invariant(n, id)) throw UsageError("unknown invariant '" + n + "' (see `chunkproof invariants`)");
      po.invariants.push_back(id);
    }
  else  // default: every invariant but I-9 (its count-level chain, ~13 s a row, runs on request)
    for (const auto& i : all_invariants())
      if (i.id != InvariantId::I9_reorg_exact) po.invariants.push_back(i.id);
  for (const auto& kv : domain_kv) {
    try {
      po.domain.apply(kv);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  po.jobs = static_cast<int>(o.get_int("--jobs", 2, 1, 256));
  po.timeout_s = static_cast<double>(o.get_int("--timeout", 30, 1, 86400));
  po.rlimit = static_cast<std::uint64_t>(o.get_int("--rlimit", 0, 0, 4000000000LL));
  po.seed = static_cast<unsigned>(o.get_int("--seed", 1, 0, 1 << 30));
  po.emit_smt2_dir = o.get_or("--emit-smt2", "");
  po.cache_dir = o.has("--no-cache") ? "" : o.get_or("--cache", ".cache/chunkproof-smt");
  po.save_regression_dir = o.get_or("--save-regression", "");
  const bool json = o.has("--json");
  po.progress = [](const std::string& line) { std::cerr << "  " << line << "\n" << std::flush; };

  std::cerr << "chunkproof prove: domain " << po.domain.describe() << "; " << po.jobs << " job(s), " << po.timeout_s
            << " s per query\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto rows = smt::prove(po);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  bool any_ce = false, any_unknown = false, any_disagree = false;
  for (const auto& r : rows) {
    any_ce = any_ce || r.status == smt::Status::counterexample;
    any_unknown = any_unknown || r.status == smt::Status::unknown;
    any_disagree = any_disagree || r.encoding_disagrees;
  }
  if (json) {
    Json j(std::cout);
    j.begin_object();
    j.field("domain", po.domain.describe());
    j.field("wall_seconds", wall);
    j.key("results").begin_array();
    for (const auto& r : rows) {
      j.begin_object();
      j.field("version", std::string(name(r.version)));
      j.field("platform", std::string(name(r.platform)));
      j.field("invariant", std::string(info(r.invariant).tag));
      j.field("status", std::string(smt::name(r.status)));
      j.field("seconds", r.seconds);
      j.field("cases", r.cases);
      j.field("cases_proved", r.cases_proved);
      j.field("queries", r.queries);
      j.field("cache_hits", r.cache_hits);
      j.field("unbounded", r.unbounded);
      j.field("domain", r.domain);
      j.field("method", r.method);
      if (!r.case_line.empty()) j.field("case", r.case_line);
      if (!r.replay.empty()) j.field("replay", r.replay);
      j.field("encoding_disagrees", r.encoding_disagrees);
      j.field("detail", r.detail);
      j.key("unknown_cases").begin_array();
      for (const auto& u : r.unknown_cases) j.value(u);
      j.end_array();
      if (!r.saved_to.empty()) j.field("saved_to", r.saved_to);
      j.end_object();
    }
    j.end_array();
    j.end_object();
    std::cout << "\n";
  } else {
    std::cout << "domain: " << po.domain.describe() << "\n\n";
    std::cout << std::left << std::setw(15) << "version" << std::setw(6) << "plat" << std::setw(6) << "inv"
              << std::setw(16) << "verdict" << std::setw(10) << "time"
              << "detail\n";
    for (const auto& r : rows) {
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
      if (r.status == smt::Status::counterexample) {
        std::cout << std::setw(43) << ""
                  << "replay: " << r.replay << "\n";
        if (r.encoding_disagrees)
          std::cout << std::setw(43) << ""
                    << "ENCODING DISAGREES: the planner does not confirm the solver's model\n";
        std::cout << std::setw(43) << ""
                  << "reproduce: chunkproof plan --case '" << r.case_line << "'\n";
        if (!r.saved_to.empty())
          std::cout << std::setw(43) << ""
                    << "saved: " << r.saved_to << "\n";
      }
      for (const auto& u : r.unknown_cases)
        std::cout << std::setw(43) << ""
                  << "undecided " << u << "\n";
    }
    std::cout << std::right << "\nwall " << fmt_secs(wall) << "\n";
  }
  if (any_disagree) std::cerr << "chunkproof prove: ENCODING DISAGREES with the executable planner (see above)\n";
  if (any_ce || any_disagree) return kExitFinding;
  if (any_unknown) return kExitInconclusive;
  return kExitOk;
}

#else

int run(Args args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return kExitOk;
  }
  std::cerr << "chunkproof prove: this build has no SMT prover (configured with -DCHUNKPROOF_WITH_Z3=OFF or "
               "without libz3-dev); rebuild with CHUNKPROOF_WITH_Z3=ON\n";
  return kExitUsage;
}

#endif

const RegisterCommand reg{"prove", "prove invariants per planner version with Z3, or give a counterexample", run};

}  // namespace
}  // namespace cp::cli
