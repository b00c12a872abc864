// chunkproof audit: the user's deployment in the user's words (vLLM serve flags, the MLA backend,
// the platform or GPU, the vLLM release or commit) pinned to one configuration, then: a verdict
// for every batch (a bounded search over batches with the geometry fixed, and Z3 with the
// deployment's values pinned where the build has it), the worst batch found as a case line, and
// "fixed in": the first version row, in release order, on which the same deployment holds.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "campaign/heatmap.h"
#include "reference/caseio/deployment.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/progress.h"
#include "tools/chunkproof/audit_live.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/html_page.h"
#include "tools/chunkproof/json.h"
#include "tools/chunkproof/report.h"
#ifdef CHUNKPROOF_HAVE_Z3
#include "invariants/smt/prover.h"
#endif

namespace cp::cli {
namespace cmd_audit {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Audits a vLLM deployment as you run it. The serve flags, the backend and the vLLM release or
commit are mapped to one pinned configuration (documented tables: `chunkproof audit --tables`,
docs/plan.md "vLLM release or commit -> version"), and the batch is left free:
  search     every batch shape of a deterministic sweep (1..N prefills, context lengths at the
             workspace's edges), then random batches until --max-time, geometry fixed;
  prove      (Z3 builds) every invariant with block, dcp, interleave and the workspace (or
             max_model_len and max_num_seqs) pinned exactly, only when the search found nothing;
  worst      the most severe finding with the fewest requests, as a case line, with the numbers
             that decide it;
  fixed in   the first version row after the deployment's, in release order, on which that batch
             and the deployment hold (the same search and proof).)";

constexpr const char* kFooter =
    R"(Example (the 8xMI300X crash of #41229):
  chunkproof audit --serve '--decode-context-parallel-size 8 --block-size 64 --max-num-seqs 256
    --max-model-len 163840' --backend TRITON_MLA --platform MI300X --vllm v1-dcp --workspace 65536
The case-line form gives the same keys: --deployment 'platform=rocm workspace=65536 block=64 dcp=8'.
Serve flags read: --decode-context-parallel-size (-dcp), --block-size, --max-num-seqs,
--max-model-len (128k/128K accepted), --cp-kv-cache-interleave-size, --tensor-parallel-size (-tp;
must be a multiple of the DCP size), --max-num-batched-tokens (bounds a step's new tokens),
--prefill-context-parallel-size (1 only), --attention-backend; VLLM_ATTENTION_BACKEND=X too.
Other flags do not reach the planner and are listed as ignored.
--planner-cmd CMD (docs/live.md): the search's batches are planned by your planner instead of
chunkproof's model, checked with the invariants and, with --version V, diffed against the model
of V (V is then the deployment's version); each kind of finding comes with a case line and a
replay command. The proof stays on chunkproof's model (so the verdict is at best exit 3), and
"fixed in" is not looked for.
JSON (--json): one chunkproof.audit/1 object (docs/json.md).

exit: 0 every batch holds (proved with the values pinned), 1 a batch breaks the deployment,
2 bad input (the message names the flag and the accepted values), 3 no finding but not proved
(solver unknown, budget spent, interrupted, or a build without Z3).
Progress (search, proof) goes to stderr on a terminal or with --progress. Ctrl-C or SIGTERM stops
the search and the proof: the results so far are printed, exit 3 (1 if a batch already broke it).
)";

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---- the batch search --------------------------------------------------------------------------

int severity(Outcome o) {
  switch (o) {
    case Outcome::crashed: return 3;
    case Outcome::assert_fired: return 2;
    case Outcome::violation: return 1;
    default: return 0;
  }
}

std::string signature(const Evaluation& ev) {
  std::string s(name(ev.outcome));
  if (const AssertFailure* a = ev.first_assert()) s += ": " + a->which;
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) s += " " + std::string(info(r.id).tag);
  return s;
}

struct Search {
  long long batches = 0, findings = 0;
  double seconds = 0;
  std::optional<Evaluation> worst;
  std::map<std::string, long long> signatures;  // finding kind -> batches
  bool out_of_time = false;
  AuditLive* live = nullptr;  // --planner-cmd: the batches go through the user's planner
  bool interrupted = false;   // SIGINT/SIGTERM: the batches so far
};

struct Bounds {
  std::int64_t requests = 64;  // requests of a step
  std::int64_t ctx = 0;        // per request, ctx + q <= max_model_len
  std::int64_t tokens = 0;     // new tokens of a step (0: no bound)
  std::int64_t workspace = 0;  // S of the version (for the sweep's edges)
};

Bounds bounds_of(const Deployment& d, const Case& base, std::int64_t max_requests) {
  Bounds b;
  b.requests = std::min<std::int64_t>(d.max_num_seqs.value_or(max_requests), max_requests);
  Case probe = base;
  probe.ctx = {1};
  probe.q = {2};
  b.workspace = make_plan(probe).workspace;
  b.ctx = d.max_model_len ? *d.max_model_len - 2 : 4 * b.workspace;
  b.tokens = d.max_num_batched_tokens.value_or(0);
  return b;
}

// Evaluates one batch; false when the batch is not a valid case of the deployment.
bool try_batch(const Case& base, std::vector<std::int64_t> ctx, std::vector<std::int64_t> q, Search& s) {
  Case c = base;
  c.ctx = std::move(ctx);
  c.q = std::move(q);
  try {
    validate_case(c);
    if (s.live) {  // the user's planner plans the batch (audit_live.h)
      ++s.batches;
      if (const auto sig = audit_live_batch(*s.live, c)) ++s.findings, ++s.signatures[*sig];
      return true;
    }
    // Interval level: the same verdicts as `plan` (the violation maps use it), without the
    // token-level simulation of up to max_num_seqs x max_model_len positions.
    Evaluation ev = evaluate(c, Level::interval);
    ++s.batches;
    if (ev.outcome == Outcome::ok) return true;
    ++s.findings;
    ++s.signatures[signature(ev)];
    const bool better = !s.worst || severity(ev.outcome) > severity(s.worst->outcome) ||
                        (severity(ev.outcome) == severity(s.worst->outcome) && smaller_batch(ev.c, s.worst->c));
    if (better) s.worst = std::move(ev);
  } catch (const CaseError&) {
    return false;
  } catch (const ArithmeticError&) {
    return false;
  }
  return true;
}

Search search(const Case& base, const Bounds& b, double budget, long long random_batches, std::uint64_t seed,
              AuditLive* live, proc::Progress& progress) {
  Search s;
  s.live = live;
  const auto t0 = Clock::now();
  // Time left and no signal: the sweep and the random batches both stop on either.
  auto go_on = [&] {
    progress.set(s.batches);
    s.interrupted = s.interrupted || proc::interrupted();
    return !s.interrupted && since(t0) < budget;
  };
  auto q_for = [&](std::int64_t n) -> std::int64_t {
    std::int64_t q = 16;
    if (b.tokens > 0) q = std::min<std::int64_t>(q, b.tokens / n);
    return q;
  };
  // 1. The sweep: n prefills of one length, at the edges the planners divide by; then one long
  // request among short ones. Fewest requests first, so the first finding is the smallest.
  for (std::int64_t n = 1; n <= b.requests && go_on(); ++n) {
    const std::int64_t q = q_for(n);
    if (q < 2) break;
    const std::int64_t S = b.workspace;
    std::vector<std::int64_t> lens{
        b.ctx - q, S / n, S / n + 1, S / n - 1, S, 2 * S, base.block, 1, base.block * base.dcp + 1};
    for (std::int64_t len : lens) {
      len = std::clamp<std::int64_t>(len, 1, b.ctx - q + 2);
      try_batch(base, std::vector<std::int64_t>(static_cast<std::size_t>(n), len),
                std::vector<std::int64_t>(static_cast<std::size_t>(n), q), s);
    }
    if (n >= 2) {
      std::vector<std::int64_t> ctx(static_cast<std::size_t>(n), 100);
      ctx[0] = std::max<std::int64_t>(1, b.ctx - q);
      try_batch(base, ctx, std::vector<std::int64_t>(static_cast<std::size_t>(n), q), s);
      // Context-free prefills among prefills with context (a new request between continuations).
      for (std::size_t i = 0; i < ctx.size(); ++i) ctx[i] = i % 2 ? 0 : std::max<std::int64_t>(1, S / n);
      try_batch(base, ctx, std::vector<std::int64_t>(static_cast<std::size_t>(n), q), s);
    }
  }
  // 2. Random batches until the budget: leading decodes, prefills of any length, any q.
  std::mt19937_64 rng(seed);
  auto uni = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (long long k = 0; k < random_batches && !s.findings && go_on(); ++k) {
    const std::int64_t n = uni(1, b.requests);
    const std::int64_t decodes = uni(0, 3) == 0 ? uni(0, n - 1) : 0;
    std::vector<std::int64_t> ctx, q;
    std::int64_t tokens = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const bool decode = i < decodes;
      std::int64_t qi = decode ? 1 : uni(2, 64);
      if (b.tokens > 0 && tokens + qi > b.tokens) break;
      tokens += qi;
      std::int64_t cmax = std::max<std::int64_t>(0, b.ctx - qi + 2);
      const int shape = static_cast<int>(uni(0, 3));
      std::int64_t ci =
          shape == 0   ? uni(0, cmax)
          : shape == 1 ? uni(0, std::min<std::int64_t>(cmax, 4 * base.block * base.dcp))
          : shape == 2 ? std::min<std::int64_t>(cmax, b.workspace / std::max<std::int64_t>(1, n - decodes) + uni(-2, 2))
                       : 0;
      ctx.push_back(std::max<std::int64_t>(0, ci));
      q.push_back(qi);
    }
    if (!ctx.empty()) try_batch(base, ctx, q, s);
  }
  s.out_of_time = since(t0) >= budget;
  if (s.worst) s.worst = evaluate(s.worst->c);  // the report's level (token level where it fits)
  s.seconds = since(t0);
  return s;
}

// The numbers that decide a finding, in one paragraph.
std::string explain(const Evaluation& ev) {
  const Plan& p = ev.plan;
  const Case& c = ev.c;
  std::ostringstream o;
  o << "S=" << p.workspace << " rows, " << p.num_with_context << " prefill(s) with context";
  if (p.num_decodes) o << " (" << p.num_decodes << " leading decode(s) not planned)";
  const VersionInfo& vi = info(c.version);
  if (!p.packed) {
    o << ": the floor-divide planner gives each prefill M = S // n";
    if (p.num_with_context > 0)
      o << " = " << p.workspace << " // " << p.num_with_context << " = " << p.workspace / p.num_with_context;
    if (p.align > 1)
      o << ", rounded down to " << p.align << ": M = " << p.chunk_width;
    else if (vi.family == &floor_divide_family && vi.floor_divide.rounding == RoundingRule::block_if_aot &&
             !aot_schedule(c.platform))
      o << " (platform " << name(c.platform) << " has no aot_schedule, so M is not rounded to block " << c.block << ")";
    else
      o << " (not rounded)";
    if (c.dcp > 1 && p.chunk_width > 0)
      o << "; M mod W = " << p.chunk_width << " mod " << c.dcp << " = " << p.chunk_width % c.dcp;
  } else {
    o << ": the packed planner, chunk width " << p.chunk_width << ", alignment " << p.align << ", row budget "
      << p.row_budget;
  }
  o << ". " << one_line_verdict(ev) << ".";
  return o.str();
}

// ---- the proof -----------------------------------------------------------------------------------

struct Proof {
  std::string status = "not run";  // PROVED, COUNTEREXAMPLE, UNKNOWN, not run
  std::string why;                 // not run: why; else the domain
  std::string counterexample;      // a case line inside the deployment
  Json rows = Json::array();
  double seconds = 0;
};

#ifdef CHUNKPROOF_HAVE_Z3
Proof prove_pinned(const Deployment& d, const Case& base, const Bounds& b, double budget, int jobs, bool shown) {
  Proof out;
  if (!info(base.version).family->smt_encoded) {
    out.why = "the prover does not encode the " + std::string(info(base.version).family->name) + " family";
    return out;
  }
  smt::ProveOptions po;
  proc::Progress progress("audit " + std::string(name(base.version)) + ": prove", 0, "case(s) of the proof",
                          show_progress(shown), budget);
  po.progress = [&](const std::string&) { progress.add(); };
  po.versions = {base.version};
  po.platforms = {base.platform};
  for (const auto& i : all_invariants()) po.invariants.push_back(i.id);
  auto& dom = po.domain;
  dom.pin("block=" + std::to_string(base.block));
  dom.pin("dcp=" + std::to_string(base.dcp));
  dom.pin("interleave=" + std::to_string(base.interleave));
  if (base.workspace) {
    dom.pin("workspace=" + std::to_string(*base.workspace));
  } else {
    dom.pin("mml=" + std::to_string(*base.max_model_len));
    dom.pin("mns=" + std::to_string(*base.max_num_seqs));
  }
  dom.apply("ctx=" + std::to_string(std::max<std::int64_t>(1, b.ctx)));
  dom.apply("prefills=" + std::to_string(std::clamp<std::int64_t>(b.requests, 1, 256)));
  po.jobs = jobs;
  po.timeout_s = std::max(1.0, std::min(30.0, budget / 2));
  std::string warning;
  po.cache_dir = default_cache_dir("smt", &warning);
  (void)d;
  // The budget: the prover's deadline stops its workers (rows UNKNOWN); Ctrl-C stops them too.
  proc::InterruptGuard guard;
  const auto t0 = Clock::now();
  po.deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget));
  const auto rows = smt::prove(po);
  out.seconds = since(t0);
  bool ce = false, unknown = false;
  for (const auto& r : rows) {
    if (r.status == smt::Status::counterexample && !r.encoding_disagrees) {
      ce = true;
      if (out.counterexample.empty()) out.counterexample = r.case_line;
    }
    unknown = unknown || r.status == smt::Status::unknown || r.encoding_disagrees;
    out.rows.push_back(Json{{"invariant", info(r.invariant).tag},
                            {"verdict", smt::name(r.status)},
                            {"detail", r.status == smt::Status::counterexample ? r.case_line : r.detail}});
  }
  out.status = ce ? "COUNTEREXAMPLE" : unknown ? "UNKNOWN" : "PROVED";
  out.why = po.domain.describe();
  if (unknown && proc::interrupted())
    out.why = "interrupted after " + std::to_string(static_cast<int>(out.seconds)) + " s; " + out.why;
  else if (unknown && out.seconds >= budget)
    out.why = "out of --prove-time after " + std::to_string(static_cast<int>(out.seconds)) + " s; " + out.why;
  return out;
}
#else
Proof prove_pinned(const Deployment&, const Case&, const Bounds&, double, int, bool) {
  Proof out;
  out.why = "built without Z3 (configure with CHUNKPROOF_WITH_Z3=ON)";
  return out;
}
#endif

// ---- one version: search, then the proof -----------------------------------------------------

struct AuditArgs {
  DeploymentInput in;
  std::string serve_file;
  std::int64_t workspace = 0;
  double max_time = 10, prove_time = 60, fixed_in_prove_time = 20;
  bool no_prove = false, json = false, tables = false, no_fixed_in = false, progress = false;
  std::uint64_t seed = 1;
  std::string html;  // --html FILE
  std::int64_t max_requests = 64;
  long long batches = 2000;  // random batches after the sweep, per version
  int jobs = 2;
  AuditLive* live = nullptr;  // --planner-cmd
};

struct VersionVerdict {
  Version version{};
  Search s;
  Proof proof;
  std::string verdict;  // "FINDING", "PROVED", "NO FINDING (not proved)"
  int exit_code = kExitInconclusive;
};

// --planner-cmd: the proof is of chunkproof's model, never of the user's planner, so no finding is
// at best "not proved"; a counterexample of the model is one more batch for the planner.
void live_verdict(VersionVerdict& out, const AuditArgs& a) {
  out.verdict = "NO FINDING (not proved: the proof is of chunkproof's model)";
  out.exit_code = kExitInconclusive;
  if (out.proof.status != "COUNTEREXAMPLE") return;
  try {
    if (const auto sig = audit_live_batch(*a.live, parse_case(out.proof.counterexample))) {
      ++out.s.batches, ++out.s.findings, ++out.s.signatures[*sig];
      out.verdict = "FINDING";
      out.exit_code = kExitFinding;
    }
  } catch (const CaseError&) {
  } catch (const ArithmeticError&) {
  }
}

VersionVerdict audit_version(const Deployment& d, Version v, const AuditArgs& a, double search_time,
                             double prove_time) {
  VersionVerdict out;
  out.version = v;
  Case base = d.base;
  base.version = v;
  const Bounds b = bounds_of(d, base, a.max_requests);
  {
    proc::Progress progress("audit " + std::string(name(v)) + ": search", 0, "batches", show_progress(a.progress),
                            search_time);
    out.s = search(base, b, search_time, a.batches, a.seed, a.live, progress);
  }
  if (out.s.findings) {
    out.verdict = "FINDING";
    out.exit_code = kExitFinding;
    return out;
  }
  if (out.s.interrupted) {
    out.verdict = "NO FINDING (interrupted)";
    return out;
  }
  if (!a.no_prove) out.proof = prove_pinned(d, base, b, prove_time, a.jobs, a.progress);
  if (a.live) {
    live_verdict(out, a);
  } else if (out.proof.status == "PROVED") {
    out.verdict = "PROVED";
    out.exit_code = kExitOk;
  } else if (out.proof.status == "COUNTEREXAMPLE") {
    Case c = parse_case(out.proof.counterexample);
    out.s.worst = evaluate(c);
    ++out.s.findings;
    out.verdict = "FINDING";
    out.exit_code = kExitFinding;
  } else {
    out.verdict = "NO FINDING (not proved)";
    out.exit_code = kExitInconclusive;
  }
  return out;
}

bool valid_for(Case c, Version v) {
  c.version = v;
  try {
    validate_case(c);
  } catch (const CaseError&) {
    return false;
  }
  return true;
}

// ---- output ------------------------------------------------------------------------------------

Json search_json(const Search& s) {
  Json sig = Json::array();
  for (const auto& [k, n] : s.signatures) sig.push_back(Json{{"finding", k}, {"batches", n}});
  return Json{{"batches", s.batches}, {"findings", s.findings}, {"seconds", s.seconds}, {"kinds", sig}};
}

int print_tables() {
  std::cout << "backend                 platform  builder  what\n";
  for (const auto& b : backend_rows())
    std::cout << std::left << std::setw(24) << b.name << std::setw(10)
              << (b.platform ? std::string(name(*b.platform)) : std::string("either")) << std::setw(9)
              << name(b.builder) << b.note << "\n";
  std::cout << "\nvLLM release or commit (release order)      version        what\n";
  for (const auto& r : release_rows())
    std::cout << std::left << std::setw(44) << r.key << std::setw(15) << name(r.version) << r.what << "\n";
  std::cout << std::right << "\nVersion names (v1-dcp, ...) are accepted as themselves.\n";
  return kExitOk;
}

struct LaterRow {
  Version version{};
  std::string verdict, how;
};
struct AuditResult {
  VersionVerdict main;
  std::vector<LaterRow> later;       // every later row tried, in release order
  std::optional<std::size_t> fixed;  // index into later: the first that holds
  double seconds = 0;
};

// "Fixed in": the later rows in release order, the worst batch first (cheap), then the search and
// the proof of the whole deployment; the first row with no finding is the fix.
void find_fixed_in(const Deployment& d, const AuditArgs& a, AuditResult& r) {
  const auto order = release_order();
  auto it = std::find(order.begin(), order.end(), d.base.version);
  for (it = it == order.end() ? order.end() : it + 1; it != order.end() && !proc::interrupted(); ++it) {
    const Version v = *it;
    if (!valid_for(r.main.s.worst->c, v)) {
      r.later.push_back({v, "n/a", "the deployment is not a valid case of this version"});
      continue;
    }
    Case c = r.main.s.worst->c;
    c.version = v;
    const Evaluation ev = evaluate(c);
    if (ev.outcome != Outcome::ok) {
      r.later.push_back({v, "FINDING", "the worst batch still fails: " + one_line_verdict(ev)});
      continue;
    }
    const VersionVerdict vv = audit_version(d, v, a, std::max(1.0, a.max_time / 2), a.fixed_in_prove_time);
    std::string how = "the worst batch holds; search: " + std::to_string(vv.s.batches) + " batches, " +
                      std::to_string(vv.s.findings) + " finding(s)";
    if (vv.s.worst) how += " (" + print_case(vv.s.worst->c) + ": " + one_line_verdict(*vv.s.worst) + ")";
    if (vv.proof.status != "not run")
      how += "; proof: " + vv.proof.status + (vv.proof.status == "UNKNOWN" ? " within --fixed-in-prove-time" : "");
    else if (!vv.s.worst)
      how += "; proof: not run (" + (a.no_prove ? std::string("--no-prove") : vv.proof.why) + ")";
    r.later.push_back({v, vv.verdict, how});
    if (vv.exit_code == kExitFinding) continue;
    r.fixed = r.later.size() - 1;
    break;
  }
}

void print_audit_json(const Deployment& d, const AuditArgs& a, const AuditResult& r) {
  const VersionVerdict& m = r.main;
  Json dep{{"pinned", d.pinned()},
           {"backend", d.backend},
           {"platform", name(d.base.platform)},
           {"builder", name(d.base.builder)},
           {"vllm", d.vllm},
           {"vllm_row", d.vllm_row},
           {"mapped", d.mapped},
           {"ignored", d.ignored},
           {"notes", d.notes}};
  Json worst = nullptr;
  if (m.s.worst)
    worst = Json{{"case", print_case(m.s.worst->c)},
                 {"verdict", one_line_verdict(*m.s.worst)},
                 {"explanation", explain(*m.s.worst)}};
  if (a.live && a.live->worst)  // --planner-cmd: the planner's smallest finding
    worst = Json{{"case", print_case(a.live->worst->c)},
                 {"verdict", a.live->worst->signature},
                 {"explanation", a.live->worst->detail}};
  Json later = Json::array();
  for (const auto& l : r.later)
    later.push_back(Json{{"version", name(l.version)}, {"verdict", l.verdict}, {"how", l.how}});
  Json fixed_in = nullptr;
  if (r.fixed) {
    const auto& f = r.later[*r.fixed];
    fixed_in = Json{{"version", name(f.version)}, {"verdict", f.verdict}, {"how", f.how}};
  }
  print_json(std::cout,
             Json{{"schema", "chunkproof.audit/1"},
                  {"deployment", dep},
                  {"version", name(d.base.version)},
                  {"verdict", m.verdict},
                  {"search", search_json(m.s)},
                  {"proof", Json{{"status", m.proof.status}, {"domain", m.proof.why}, {"rows", m.proof.rows}}},
                  {"worst", worst},
                  {"fixed_in", fixed_in},
                  {"later_versions", later},
                  {"live", a.live ? audit_live_json(*a.live) : Json(nullptr)},
                  {"seconds", r.seconds},
                  {"interrupted", proc::interrupted()},
                  {"exit_code", m.exit_code}});
}

void print_audit_text(std::ostream& os, const Deployment& d, const AuditArgs& a, const AuditResult& r) {
  const VersionVerdict& m = r.main;
  os << "deployment  vLLM " << d.vllm << " (" << d.vllm_row << ")\n";
  for (const auto& x : d.mapped) os << "            " << x << "\n";
  for (const auto& n : d.notes) os << "            " << n << "\n";
  if (!d.ignored.empty()) {
    os << "ignored     ";
    for (std::size_t i = 0; i < d.ignored.size(); ++i) os << (i ? ", " : "") << d.ignored[i];
    os << " (they do not reach the planner)\n";
  }
  os << "pinned      " << d.pinned() << " (the batch free)\n";
  os << "search      " << m.s.batches << " batches in " << std::fixed << std::setprecision(1) << m.s.seconds
     << " s: " << m.s.findings << " finding(s)" << std::defaultfloat << "\n";
  for (const auto& [k, n] : m.s.signatures) os << "            " << n << " x " << k << "\n";
  if (m.s.worst) {
    os << "worst batch " << print_case(m.s.worst->c) << "\n"
       << "            " << one_line_verdict(*m.s.worst) << "\n"
       << "why         " << explain(*m.s.worst) << "\n"
       << "replay      chunkproof plan --case '" << print_case(m.s.worst->c) << "'\n";
  }
  if (a.live) print_audit_live_text(os, *a.live);
  if (m.proof.status != "not run")
    os << "prove       " << m.proof.status << " (" << (a.live ? "of chunkproof's model, not of --planner-cmd; " : "")
       << m.proof.why << ")\n";
  else if (!m.s.findings)
    os << "prove       not run: " << (a.no_prove ? std::string("--no-prove") : m.proof.why) << "\n";
  if (m.s.worst && !a.no_fixed_in) {
    if (r.fixed)
      os << "fixed in    " << name(r.later[*r.fixed].version) << ": " << r.later[*r.fixed].how << "\n";
    else
      os << "fixed in    no later version row holds (" << r.later.size() << " tried)\n";
    for (const auto& l : r.later) os << "            " << name(l.version) << ": " << l.verdict << ": " << l.how << "\n";
  }
  if (proc::interrupted())
    os << "interrupted " << (proc::interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT")
       << ": the results above are those so far\n";
  os << "verdict     " << m.verdict << " on " << name(d.base.version) << " (exit " << m.exit_code << ", " << std::fixed
     << std::setprecision(1) << r.seconds << " s)" << std::defaultfloat << "\n";
}

// --html FILE: the text report on one page with violation maps of the deployment inline: its
// version over prefills x ctx with the geometry pinned, and the fixing version's beside it.
void write_audit_html(const Deployment& d, const AuditArgs& a, const AuditResult& r, const std::string& text) {
  std::vector<fuzz::MapSpec> maps;
  std::vector<Version> versions{d.base.version};
  if (r.fixed) versions.push_back(r.later[*r.fixed].version);
  for (Version v : versions) {
    fuzz::MapSpec m;
    m.version = v;
    m.platform = d.base.platform;
    m.x = "prefills";
    m.y = "ctx";
    m.x_values = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16};
    m.fix = {{"block", d.base.block}, {"dcp", d.base.dcp}, {"interleave", d.base.interleave}};
    if (d.base.workspace)
      m.fix.emplace_back("workspace", *d.base.workspace);
    else
      m.fix.insert(m.fix.end(), {{"max_model_len", *d.base.max_model_len}, {"max_num_seqs", *d.base.max_num_seqs}});
    maps.push_back(std::move(m));
  }
  write_text_report_html(a.html, "--html", "chunkproof audit",
                         r.main.verdict + " on " + std::string(name(d.base.version)) + ": " + d.pinned(), text, maps);
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof audit"};
  configure(app, kFooter);
  AuditArgs a;
  app.add_option("--serve", a.in.serve, "the vLLM serve flags, one string (`vllm serve MODEL ...` accepted)")
      ->type_name("'FLAGS'");
  app.add_option("--serve-file", a.serve_file, "the serve command line from a file")->type_name("FILE");
  app.add_option("--backend", a.in.backend, "the MLA attention backend (TRITON_MLA, ROCM_AITER_MLA, FLASHMLA, ...)");
  app.add_option("--platform", a.in.platform, "cuda, rocm, or the GPU (MI300X, H100, ...)");
  app.add_option("--vllm", a.in.vllm, "the vLLM release or commit (`--tables`), or a version name");
  app.add_option("--deployment", a.in.keys, "the same keys as a case line without ctx/q")->type_name("'KEYS'");
  app.add_option("--workspace", a.workspace, "the workspace rows S, used as is (else the version sizes it)")
      ->check(CLI::Range(std::int64_t{1}, CaseLimits::max_workspace));
  app.add_option("--max-time", a.max_time, "seconds of batch search per version")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  app.add_option("--prove-time", a.prove_time, "seconds of Z3 per version (its workers stop then: UNKNOWN)")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_option("--fixed-in-prove-time", a.fixed_in_prove_time,
                 "seconds of Z3 per later version tried for \"fixed in\"")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_flag("--no-prove", a.no_prove, "search only (the verdict is then at best 'no finding', exit 3)");
  app.add_flag("--no-fixed-in", a.no_fixed_in, "do not look for the version that fixes a finding");
  app.add_option("--max-requests", a.max_requests, "requests per batch in the search (and the proof's prefills)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--batches", a.batches, "random batches per version after the sweep (within --max-time)")
      ->check(CLI::Range(0LL, 1000000000LL))
      ->capture_default_str();
  app.add_option("--seed", a.seed, "seed of the random batches")->capture_default_str();
  add_jobs(app, a.jobs, "solver worker processes");
  LiveArgs live;
  add_live_options(app, live);
  app.add_flag("--tables", a.tables, "print the backend and release tables and exit");
  app.add_flag("--json", a.json, "machine-readable output (chunkproof.audit/1)");
  app.add_flag("--progress", a.progress, "progress on stderr even when it is not a terminal");
  app.add_option("--html", a.html, "also write the report as one self-contained HTML page, maps inline")
      ->type_name("FILE");
  if (!parse(app, args)) return kExitOk;
  if (a.tables) return print_tables();
  if (!a.html.empty()) {  // the output first: nothing runs for a page that cannot be written
    const std::filesystem::path dir = std::filesystem::path(a.html).parent_path();
    if (!writable_dir(dir.empty() ? std::string(".") : dir.string()))
      throw UsageError("--html: cannot create or write the folder of '" + a.html + "' (nothing was run)");
  }
  if (!a.serve_file.empty()) {
    if (!a.in.serve.empty()) throw UsageError("give --serve or --serve-file, not both");
    std::ifstream f(a.serve_file);
    if (!f) throw UsageError("--serve-file: cannot read '" + a.serve_file + "'");
    std::ostringstream ss;
    ss << f.rdbuf();
    a.in.serve = ss.str();
  }
  if (a.workspace > 0) a.in.workspace = a.workspace;
  Deployment d;
  try {
    if (diffing(live) && !parse_version(live.version))
      throw UsageError("--version: unknown version '" + live.version + "' (see chunkproof versions)");
    if (diffing(live) && a.in.vllm.empty()) a.in.vllm = live.version;  // version names stand for themselves
    d = parse_deployment(a.in);
  } catch (const DeploymentError& e) {
    throw UsageError(e.what());
  }

  if (diffing(live) && name(d.base.version) != live.version)
    throw UsageError("--version " + live.version + ": the deployment's --vllm is " + std::string(name(d.base.version)) +
                     " (give one of them, or both the same)");
  const auto through = start_audit_live(live);
  a.live = through.get();
  // Ctrl-C / SIGTERM: the search and the proof stop, what was found so far is printed (exit 3
  // when nothing was found yet, 1 when a batch already broke the deployment).
  proc::InterruptGuard guard;
  const auto t0 = Clock::now();
  AuditResult r;
  r.main = audit_version(d, d.base.version, a, a.max_time, a.prove_time);
  if (r.main.s.worst && !a.no_fixed_in) find_fixed_in(d, a, r);
  r.seconds = since(t0);
  if (a.json) print_audit_json(d, a, r);
  std::ostringstream text;
  if (!a.json || !a.html.empty()) print_audit_text(text, d, a, r);
  if (!a.json) std::cout << text.str();
  if (!a.html.empty()) {
    write_audit_html(d, a, r, text.str());
    if (!a.json) std::cout << "html        " << a.html << "\n";
  }
  return r.main.exit_code;
}

const RegisterCommand reg{"audit", "audit a vLLM deployment (serve flags, backend, release): every batch, fixed in",
                          run};

}  // namespace
}  // namespace cmd_audit
}  // namespace cp::cli
