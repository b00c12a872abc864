// chunkproof check: the chunked MLA pipeline of a plan against the unchunked reference, bit for
// bit (exact path), and the vLLM-style LSE-merge path against a float64 oracle (reference/mla).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "invariants/expect.h"
#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/progress.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"
#include "tools/chunkproof/live_cli.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {
namespace cmd_check {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Runs the MLA chunked-context prefill of each case on the CPU (or the GPU, --device gpu),
following the version's plan literally: per chunk, each DCP rank gathers its local rows from its
shard of a paged bf16 latent cache (random permuted block tables), all-gather, reorg,
up-projection (W_UK, W_UV), attention, then the merge with the causal new-token suffix. Inputs
come from the case's seed.)";

constexpr const char* kFooter =
    R"(exact path  chunk-invariant arithmetic (docs/numerics.md): global row max, exp on basic IEEE
            operations, numerator and denominator summed exactly as fixed-point integers, one
            normalization. The chunked output must equal the unchunked reference BIT FOR BIT.
            On a difference: the first differing (token, head, dim), how many differ, and from
            the DCP simulation which context positions each request missed or received twice
            and which foreign / new-token / stale rows it attended.
vllm path   per chunk an fp32 softmax -> (out, lse), merged with merge_attn_states in both the
            Triton and the CUDA flavour (spec §4), against a float64 oracle over the true keys:
            max abs / rel error, bf16 ULPs, NaN/inf. The verdict uses the flavour the case's
            platform dispatches to (cuda: CUDA kernel; rocm: Triton).

Cases: --case (repeatable), --cases FILE|- (a case with '# expect' lines must meet them; an
expected ok must also check clean), or --random N: N random small cases (dcp 1..8, interleave
> 1 included) cycling over --version x --platform, stopping at the first failing case. Numerics
keys of a case: dims, heads, kv_lora_rank, rope_dim, nope_dim, v_dim, seed (see `chunkproof plan
--help`). If the version's own assert fires (asserts=on, the default) check reports it like
`plan` does; append asserts=off to the case line to see what the plan does to the numbers.
--device gpu runs the same cases on the GPU backend and compares every element with the CPU.
--sample-heads K: sampled verification, both paths for K heads drawn from the case seed (every
token and v dim of those heads, the same bits as a full run); on --device gpu the GPU still
compares chunked vs unchunked on every element.

Progress goes to stderr on a terminal or with --progress: cases of --random, or per case the rows
through the pipeline, its chunk, pass and heads, with an estimate. Ctrl-C or SIGTERM stops within
a sub-batch of rows: the cases checked so far stay printed (--random: a summary), exit 3. JSON (--json): chunkproof.check/1 per case (JSON lines), or one
chunkproof.check-random/1 object (docs/json.md).

exit: 0 bits identical (and the vLLM path within its bound), 1 a finding (assert, bits differ,
NaN or out of bound), 2 bad input, 3 inconclusive (exact accumulator overflow; --random
interrupted or out of --max-time before N cases), 4 --device gpu without a GPU. The worst case
decides.
--planner-cmd CMD: the numerics follow an external planner's plan of each --case (docs/live.md),
checked with the catalogue first; a plan that breaks I-3 (coverage) is a finding and is not run.
)";

std::string hex32(std::uint32_t b) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(8) << std::setfill('0') << b;
  return os.str();
}

std::string fmt(double v) {
  std::ostringstream os;
  os << std::setprecision(3) << std::scientific << v;
  return os.str();
}

std::string where(const mla::ElementAt& e) {
  return "token " + std::to_string(e.token) + " (request " + std::to_string(e.request) + ", new token " +
         std::to_string(e.token_in_request) + ") head " + std::to_string(e.head) + " dim " + std::to_string(e.dim);
}

const char* flavour_name(mla::MergeFlavour f) { return f == mla::MergeFlavour::triton ? "triton" : "cuda"; }

// The CLI combines the two verdicts: the plan's invariants (ev) and the numerics (r).
void print_text(std::ostream& os, const mla::CheckResult& r, const Evaluation& ev) {
  const Case& c = r.c;
  os << "case: " << print_case(c) << "\n";
  os << "plan: " << one_line_verdict(ev) << " (" << r.plan.chunks.size() << " chunk(s), S=" << r.plan.workspace
     << ")\n";
  if (r.assert_fired) {
    os << "check: the version's assert fires, the step dies before attention: " << r.assert_text << "\n";
    if (c.asserts) os << "       (append asserts=off to the case line to run the plan as `python -O` would)\n";
    os << "verdict: " << r.one_line() << "\n";
    return;
  }
  const auto s = mla::shape_of(c);
  os << "inputs: L=" << s.L << " Rr=" << s.Rr << " Pn=" << s.Pn << " Vd=" << s.Vd << " heads=" << s.N
     << " seed=" << c.seed << "; " << r.prefill_tokens << " prefill tokens, " << r.context_rows << " context rows, "
     << r.attended_rows << " rows attended by the chunked pipeline\n";
  if (r.exact.ran) {
    const auto& ex = r.exact;
    os << "exact path: ";
    if (ex.differing == 0 && !ex.overflow)
      os << "chunked == unchunked, bit for bit (" << ex.elements << " elements)\n";
    else if (ex.differing == 0)
      os << "INCONCLUSIVE: an exact accumulator overflowed\n";
    else {
      os << "BITS DIFFER in " << ex.differing << " of " << ex.elements << " elements\n";
      os << "  first difference: " << where(*ex.first) << ": reference " << hex32(ex.ref_bits) << " ("
         << mla::float_of(ex.ref_bits) << "), chunked " << hex32(ex.got_bits) << " (" << mla::float_of(ex.got_bits)
         << ")\n";
    }
    bool any = false;
    for (const auto& rt : ex.routing) {
      if (rt.exact()) continue;
      if (!any) os << "  routing (DCP simulation of the plan):\n";
      any = true;
      os << "    request " << rt.request << " (ctx " << rt.ctx << ", " << rt.rows << " rows attended):";
      if (rt.n_missing) os << " missing " << rt.n_missing << " positions " << mla::ranges_text(rt.missing) << ";";
      if (rt.n_twice) os << " received twice " << rt.n_twice << " positions " << mla::ranges_text(rt.twice) << ";";
      if (rt.foreign_context) {
        os << " " << rt.foreign_context << " context rows of request(s)";
        for (int q : rt.from_requests) os << " " << q;
        os << ";";
      }
      if (rt.new_token_rows) os << " " << rt.new_token_rows << " new-token rows;";
      if (rt.stale_rows) os << " " << rt.stale_rows << " stale rows;";
      os << "\n";
    }
    if (!any && ex.differing == 0)
      os << "  routing: every request received each of its context positions exactly once\n";
  }
  if (r.vllm.ran) {
    const auto& v = r.vllm;
    os << "vllm path (fp32 chunks + merge_attn_states) vs float64 oracle; production flavour on " << name(c.platform)
       << ": " << flavour_name(v.production) << "\n";
    for (const auto& f : v.flavours) {
      os << "  " << std::left << std::setw(7) << flavour_name(f.flavour) << std::right << " max abs " << fmt(f.max_abs)
         << ", max rel " << fmt(f.max_rel) << ", " << f.max_ulp << " bf16 ulp";
      if (f.nan) os << ", " << f.nan << " NaN (first at " << where(*f.first_nan) << ")";
      if (f.inf) os << ", " << f.inf << " inf";
      os << (f.within_bound ? "  within bound" : "  OUT OF BOUND") << "\n";
    }
    os << "  bound: |out - oracle| <= " << fmt(v.bound_abs) << " and <= " << fmt(v.bound_rel)
       << " x max |oracle| of the (token, head); no NaN/inf\n";
  }
  os << "time: " << std::fixed << std::setprecision(3) << r.seconds << " s\n" << std::defaultfloat;
  os << "verdict: " << r.one_line() << "\n";
}

Json element_json(const std::optional<mla::ElementAt>& e) {
  if (!e) return nullptr;
  return Json{{"token", e->token},
              {"request", e->request},
              {"token_in_request", e->token_in_request},
              {"head", e->head},
              {"dim", e->dim}};
}

Json ranges_json(const std::vector<std::pair<std::int64_t, std::int64_t>>& r) {
  Json j = Json::array();
  for (const auto& [lo, hi] : r) j.push_back(Json::array({lo, hi}));
  return j;
}

Json check_json(const mla::CheckResult& r, const Evaluation& ev) {
  Json j{{"schema", "chunkproof.check/1"},       {"case", print_case(r.c)},    {"outcome", name(ev.outcome)},
         {"plan_verdict", one_line_verdict(ev)}, {"exit_code", r.exit_code()}, {"verdict", r.one_line()},
         {"assert_fired", r.assert_fired}};
  if (r.assert_fired) j["assert"] = r.assert_text;
  j["chunks"] = r.plan.chunks.size();
  j["prefill_tokens"] = r.prefill_tokens;
  j["context_rows"] = r.context_rows;
  j["attended_rows"] = r.attended_rows;
  j["seconds"] = r.seconds;
  if (r.exact.ran) {
    const auto& ex = r.exact;
    Json e{{"identical", ex.identical()},
           {"elements", ex.elements},
           {"differing", ex.differing},
           {"overflow", ex.overflow},
           {"first", element_json(ex.first)}};
    if (ex.first) {
      e["reference_bits"] = hex32(ex.ref_bits);
      e["chunked_bits"] = hex32(ex.got_bits);
    }
    e["routing"] = Json::array();
    for (const auto& rt : ex.routing)
      e["routing"].push_back(Json{{"request", rt.request},
                                  {"ctx", rt.ctx},
                                  {"rows", rt.rows},
                                  {"n_missing", rt.n_missing},
                                  {"n_twice", rt.n_twice},
                                  {"missing", ranges_json(rt.missing)},
                                  {"twice", ranges_json(rt.twice)},
                                  {"foreign_context", rt.foreign_context},
                                  {"new_token_rows", rt.new_token_rows},
                                  {"stale_rows", rt.stale_rows},
                                  {"from_requests", rt.from_requests}});
    j["exact"] = std::move(e);
  }
  if (r.vllm.ran) {
    const auto& v = r.vllm;
    Json vj{{"production", flavour_name(v.production)},
            {"bound_abs", v.bound_abs},
            {"bound_rel", v.bound_rel},
            {"ok", v.ok()}};
    for (const auto& f : v.flavours)
      vj[flavour_name(f.flavour)] = Json{{"max_abs", f.max_abs},
                                         {"max_rel", f.max_rel},
                                         {"max_ulp", f.max_ulp},
                                         {"nan", f.nan},
                                         {"inf", f.inf},
                                         {"within_bound", f.within_bound},
                                         {"first_nan", element_json(f.first_nan)},
                                         {"worst", element_json(f.worst)}};
    j["vllm"] = std::move(vj);
  }
  return j;
}

// The worst-verdict exit code of one case, with its expectation if it has one: the plan must
// meet it, and an expected ok must also check clean.
int case_exit(const mla::CheckResult& r, const Evaluation& ev, const std::optional<Expectation>& expect) {
  if (!expect) return r.exit_code();
  if (!meets(ev, *expect)) return kExitFinding;
  return expect->outcome == ExpectedOutcome::ok ? r.exit_code() : kExitOk;
}

struct CheckArgs {
  CaseArgs cases;
  std::string path = "both";
  bool json = false, progress = false, quiet = false, summary = false;
  int jobs = 1;
  long long random = 0;
  std::vector<std::string> versions, platforms;
  std::uint64_t seed = 1;
  int ranks = 0;
  double rank_timeout = 60;
  int sample_heads = 0;
  double max_time = 0;
  std::string device = "cpu";
  std::string mode = "portable";
  std::uint64_t max_memory = 0;
};

mla::CheckOptions path_options(const CheckArgs& a) {
  mla::CheckOptions opts;
  if (a.path == "exact")
    opts.vllm = false;
  else if (a.path == "vllm")
    opts.exact = false;
  opts.threads = a.jobs;
  opts.sample_heads = a.sample_heads;
  return opts;
}

// The random cases: case i runs combination i mod (versions x platforms), index i.
struct RandomPlan {
  std::vector<std::pair<Version, Platform>> combos;
  Case at(std::uint64_t seed, long long i) const {
    const auto& [v, p] = combos[static_cast<std::size_t>(i) % combos.size()];
    return mla::random_case(v, p, seed, static_cast<std::uint64_t>(i));
  }
  std::string label() const {
    std::string s;
    for (const auto& [v, p] : combos) s += (s.empty() ? "" : ",") + std::string(name(v)) + "/" + std::string(name(p));
    return s;
  }
};

RandomPlan random_plan(const CheckArgs& a) {
  RandomPlan rp;
  for (Version v :
       parse_versions(a.versions.empty() ? std::vector<std::string>{"v6-current"} : a.versions, "--version")) {
    // Refused here, before any worker runs (a worker's exception would end the process); `all`
    // leaves them out.
    if (!info(v).family->spans_are_context) {
      if (std::find(a.versions.begin(), a.versions.end(), "all") != a.versions.end()) continue;
      throw UsageError("--version " + std::string(name(v)) + ": the " + std::string(info(v).family->name) +
                       " family's spans are not context positions; the numerics run the versions of the other "
                       "families (chunkproof versions)");
    }
    for (Platform p :
         parse_platforms(a.platforms.empty() ? std::vector<std::string>{"both"} : a.platforms, "--platform"))
      rp.combos.emplace_back(v, p);
  }
  return rp;
}

int run_random(const CheckArgs& a, mla::CheckOptions opts) {
  const long long n = a.random;
  const RandomPlan rp = random_plan(a);
  const int threads = a.jobs;
  opts.threads = 1;            // parallel over cases
  proc::InterruptGuard guard;  // SIGINT/SIGTERM: the cases so far, summarised (exit 3)

  std::atomic<long long> next{0}, done{0}, first_fail{n};
  std::atomic<bool> out_of_time{false};
  std::mutex mu;
  std::optional<mla::CheckResult> fail;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  proc::Progress ticker("check --random", n, "cases", show_progress(a.progress), a.max_time);
  auto worker = [&] {
    for (;;) {
      if (proc::interrupted()) return;
      if (a.max_time > 0 && elapsed() > a.max_time) {
        out_of_time = true;
        return;
      }
      const long long i = next++;
      if (i >= first_fail.load()) return;
      auto r = mla::run_check(rp.at(a.seed, i), opts);
      ++done;
      ticker.add();
      if (r.exit_code() != 0) {
        std::lock_guard<std::mutex> lk(mu);
        if (i < first_fail.load()) {
          first_fail = i;
          fail = std::move(r);
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < threads; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  const double secs = elapsed();
  ticker.finish();
  const bool interrupted = proc::interrupted();
  const long long checked = done.load();

  int rc = kExitOk;
  if (fail)
    rc = fail->exit_code();
  else if (interrupted || out_of_time || checked < n)
    rc = kExitInconclusive;
  std::optional<Evaluation> ev;
  if (fail) ev = evaluate(fail->c);
  if (a.json) {
    Json j{{"schema", "chunkproof.check-random/1"},
           {"cases", n},
           {"checked", checked},
           {"combinations", rp.label()},
           {"seed", a.seed},
           {"interrupted", interrupted},
           {"out_of_time", out_of_time.load()},
           {"seconds", secs},
           {"exit_code", rc},
           {"failing_index", fail ? Json(first_fail.load()) : Json(nullptr)},
           {"failure", fail ? check_json(*fail, *ev) : Json(nullptr)}};
    print_json(std::cout, j);
    return rc;
  }
  if (fail) {
    std::cout << "case " << first_fail.load() << " of " << n << " fails:\n";
    print_text(std::cout, *fail, *ev);
    std::cout << "\nreplay: chunkproof check --case '" << print_case(fail->c) << "'\n";
    return rc;
  }
  if (rc == kExitInconclusive) {
    std::cout << (interrupted ? "interrupted" : "out of --max-time") << " after " << checked << " of " << n
              << " random " << rp.label() << " cases (seed " << a.seed << ", " << std::fixed << std::setprecision(2)
              << secs << " s): no finding in the cases checked; the rest is unchecked\n";
    return rc;
  }
  std::cout << n << " random " << rp.label() << " cases (seed " << a.seed
            << "): chunked == unchunked bit for bit, vLLM path within its bound (" << std::fixed << std::setprecision(2)
            << secs << " s)\n";
  return kExitOk;
}

std::vector<Case> gpu_cases(const CheckArgs& a) {
  std::vector<Case> out;
  for (const auto& j : parse_jobs(collect_cases(a.cases, a.random == 0))) out.push_back(j.c);
  if (a.random > 0) {
    const RandomPlan rp = random_plan(a);
    for (long long i = 0; i < a.random; ++i) out.push_back(rp.at(a.seed, i));
  }
  return out;
}

// --planner-cmd: the numerics follow the external planner's plan (docs/live.md). A plan that does
// not cover every context position exactly once (I-3) is reported, not run: the gather would
// read past the cached context.
int run_live_numerics(const std::vector<CaseJob>& jobs, const LiveArgs& la, const mla::CheckOptions& base,
                      const CheckArgs& a) {
  const auto planner = start_planner(la);
  int rc = kExitOk;
  for (const auto& job : jobs) {
    const live::LiveResult lr = live::run_live(*planner, job.c);
    if (!lr.ev || lr.ev->violated(InvariantId::I3_coverage)) {
      rc = worst(rc, kExitFinding);
      if (a.json)
        print_json(std::cout, live_json(lr));
      else
        std::cout << live_line(lr, job.origin)
                  << "\n      numerics not run: " << (lr.ev ? "the plan violates I-3 (coverage)" : "no plan came")
                  << "\n";
      continue;
    }
    mla::CheckOptions opts = base;
    opts.plan = &lr.ev->plan;
    const auto r = mla::run_check(job.c, opts);
    const int code = worst(case_exit(r, *lr.ev, job.expect), lr.finding() ? kExitFinding : kExitOk);
    rc = worst(rc, code);
    if (a.json) {
      Json j = check_json(r, *lr.ev);
      j["origin"] = job.origin;
      j["live"] = live_json(lr);
      print_json(std::cout, j);
    } else {
      std::cout << "== " << job.origin << " (plan from --planner-cmd: " << live_line(lr, "").substr(2) << ")\n";
      print_text(std::cout, r, *lr.ev);
    }
  }
  return rc;
}

// The progress line's phrase for one case: where the pipeline is, and the faster way when every
// head of a wide model is computed.
std::string where_text(const mla::CheckProgress& at) {
  std::string s = "chunk " + std::to_string(at.chunk + 1) + "/" + std::to_string(at.chunks) + ", pass " +
                  std::to_string(at.pass + 1) + "/" + std::to_string(at.passes) + ", " + std::to_string(at.heads) +
                  " of " + std::to_string(at.all_heads) + " heads";
  if (at.heads == at.all_heads && at.all_heads > 8)
    s += " (--sample-heads 2 checks 2 heads with the same bits, about " + std::to_string(at.all_heads / 2) +
         "x less work)";
  return s;
}

// --case/--cases, one after the other, with a progress line per case (rows through the
// pipeline). SIGINT/SIGTERM end the case under way (the pipeline and the reference poll it):
// the cases before it were printed, the rest is unchecked, exit 3 at least.
int run_cases(const std::vector<CaseJob>& jobs, mla::CheckOptions opts, const CheckArgs& a) {
  proc::InterruptGuard guard;
  opts.stop = [] { return proc::interrupted(); };
  int rc = kExitOk;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& job = jobs[i];
    std::optional<mla::CheckResult> done;
    mla::CheckProgress last;
    {
      proc::Progress progress("check " + job.origin, 0, "rows", show_progress(a.progress));
      opts.progress = [&](const mla::CheckProgress& at) {
        last = at;
        progress.set_total(at.rows_total);
        progress.set(at.rows_done);
        progress.note(where_text(at));
      };
      try {
        if (!proc::interrupted()) done = mla::run_check(job.c, opts);
      } catch (const mla::CheckStopped&) {
      }
    }
    if (!done) {
      rc = worst(rc, kExitInconclusive);
      const std::string what = "interrupted (" +
                               std::string(proc::interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT") + ") in case " +
                               std::to_string(i + 1) + " of " + std::to_string(jobs.size()) + " (" + job.origin +
                               ") after " + std::to_string(last.rows_done) + " of " + std::to_string(last.rows_total) +
                               " rows; " + std::to_string(i) + " case(s) checked, the rest unchecked";
      if (a.json)
        print_json(std::cout, Json{{"schema", "chunkproof.check/1"},
                                   {"case", print_case(job.c)},
                                   {"origin", job.origin},
                                   {"interrupted", true},
                                   {"verdict", what},
                                   {"exit_code", kExitInconclusive}});
      else
        std::cout << (i ? "\n" : "") << what << "\n";
      break;
    }
    const auto& r = *done;
    const Evaluation ev = evaluate(job.c);
    const int code = case_exit(r, ev, job.expect);
    rc = worst(rc, code);
    if (a.json) {
      Json j = check_json(r, ev);
      if (jobs.size() > 1) j["origin"] = job.origin;
      if (job.expect) j["expect"] = Json{{"expected", verdict_text(*job.expect)}, {"met", code == kExitOk}};
      print_json(std::cout, j);
      continue;
    }
    if (a.summary) {
      std::string extra = "check=" + r.one_line();
      if (job.expect) extra += "  expect=" + verdict_text(*job.expect) + (code == kExitOk ? ":met" : ":NOT-MET");
      std::cout << summary_line(ev, job.origin, extra) << "\n";
      continue;
    }
    if (jobs.size() > 1) std::cout << (i ? "\n" : "") << "== " << job.origin << "\n";
    print_text(std::cout, r, ev);
    if (job.expect)
      std::cout << "expect: " << verdict_text(*job.expect) << ": " << (code == kExitOk ? "met" : "NOT MET") << "\n";
  }
  if (jobs.size() > 1 && !a.json)
    std::cout << "\n" << jobs.size() << " case(s); exit " << rc << " (the worst verdict)\n";
  return rc;
}

int run(Args args) {
  CLI::App app{kDescription, "chunkproof check"};
  configure(app, kFooter);
  CheckArgs a;
  add_case_options(app, a.cases);
  app.add_option("--path", a.path, "exact | vllm | both")
      ->check(CLI::IsMember({"exact", "vllm", "both"}))
      ->capture_default_str();
  auto* json_opt = app.add_flag("--json", a.json, "machine-readable output");
  app.add_flag("--summary", a.summary,
               "one line per case: version, case id, outcome, violated invariants, first assert, numerics verdict")
      ->excludes(json_opt);
  add_jobs(app, a.jobs, "worker threads: heads of one case, or cases of --random");
  app.add_option("--random", a.random, "N random small cases")->check(CLI::Range(1LL, 100000000LL));
  add_list(app, "--version", a.versions, "versions for --random: comma list or all (default v6-current)");
  add_list(app, "--platform", a.platforms, "platforms for --random: cuda, rocm, both (default both)");
  app.add_option("--seed", a.seed, "seed of the random cases")->capture_default_str();
  app.add_option("--max-time", a.max_time, "--random: stop after this many seconds (exit 3 if cases remain)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--progress", a.progress, "progress on stderr even when it is not a terminal");
  app.add_option("--device", a.device, "cpu | gpu")->check(CLI::IsMember({"cpu", "gpu"}))->capture_default_str();
  app.add_flag("--quiet", a.quiet, "--device gpu: print only disagreeing cases");
  app.add_option("--mode", a.mode,
                 "--device gpu: portable (every element bit for bit with the CPU) | fast (up-projection on the "
                 "matrix units: chunked == unchunked bit for bit, the CPU within a stated bound)")
      ->check(CLI::IsMember({"portable", "fast"}))
      ->capture_default_str();
  app.add_option("--sample-heads", a.sample_heads, "sampled verification: the CPU reference for K heads")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--ranks", a.ranks, "--device gpu: DCP over N GPUs, one process per GPU, NCCL/RCCL all-gather")
      ->check(CLI::Range(1, 4096));
  app.add_option("--rank-timeout", a.rank_timeout, "--ranks: seconds before a silent rank ends the run")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  add_max_memory(app, a.max_memory);
  LiveArgs live;
  add_live_options(app, live, false);  // this command's --version selects random cases
  if (!parse(app, args)) return kExitOk;
  if (live.active() && (a.random > 0 || a.device != "cpu"))
    throw UsageError("--planner-cmd checks --case/--cases on the CPU (no --random, no --device gpu)");
  if (a.random == 0 && (!a.versions.empty() || !a.platforms.empty()))
    throw UsageError("--version and --platform select random cases: give --random N (a case line names its own)");
  if (a.random > 0 && (!a.cases.cases.empty() || !a.cases.cases_file.empty()) && a.device == "cpu")
    throw UsageError("give either --case/--cases or --random, not both");

  if (a.ranks > 0 && a.device != "gpu") throw UsageError("--ranks needs --device gpu");
  if (a.mode == "fast" && (a.device != "gpu" || a.ranks > 0))
    throw UsageError("--mode fast needs --device gpu (one GPU; the CPU has no matrix units to match)");
  if (a.device == "gpu") {
    if (!gpu_hooks().check) no_gpu_backend("check");
    GpuCheckOptions g;
    g.cases = gpu_cases(a);
    for (const auto& c : g.cases) check_memory(c, true, a.max_memory);
    g.quiet = a.quiet;
    g.json = a.json;
    g.ranks = a.ranks;
    g.rank_timeout = a.rank_timeout;
    g.random = a.random;
    g.seed = a.seed;
    g.sample_heads = a.sample_heads;
    g.fast = a.mode == "fast";
    return gpu_hooks().check(g);
  }
  const mla::CheckOptions opts = path_options(a);
  if (a.random > 0) return run_random(a, opts);
  const auto jobs = parse_jobs(collect_cases(a.cases));
  for (const auto& j : jobs) check_memory(j.c, true, a.max_memory);
  if (live.active()) return run_live_numerics(jobs, live, opts, a);
  return run_cases(jobs, opts, a);
}

const RegisterCommand reg{"check", "CPU numerics: chunked == unchunked bit for bit; vLLM merge path vs float64", run};

}  // namespace
}  // namespace cmd_check
}  // namespace cp::cli
