// chunkproof check: the chunked MLA pipeline of a plan against the unchunked reference, bit for
// bit (exact path), and the vLLM-style LSE-merge path against a float64 oracle (reference/mla).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: chunkproof check --case '<case line>' [--path exact|vllm|both] [--json] [--threads T]
       chunkproof check --random N --version V [--platform P] [--seed S] [--path ...] [--threads T]
       chunkproof check --device gpu ...   (forwarded to the GPU backend when one is built)

Runs the MLA chunked-context prefill of a case on the CPU, following the version's plan
literally: per chunk, each DCP rank gathers its local rows from its shard of a paged bf16
latent cache (random permuted block tables), all-gather, reorg, up-projection (W_UK, W_UV),
attention, then the merge with the causal new-token suffix. Inputs come from the case's seed.

exact path  chunk-invariant arithmetic (docs/numerics.md): global row max, exp on basic IEEE
            operations, numerator and denominator summed exactly as fixed-point integers, one
            normalization. The chunked output must equal the unchunked reference BIT FOR BIT.
            On a difference: the first differing (token, head, dim), how many differ, and from
            the DCP simulation which context positions each request missed or received twice
            and which foreign / new-token / stale rows it attended.
vllm path   per chunk an fp32 softmax -> (out, lse), merged with merge_attn_states in both the
            Triton and the CUDA flavour (spec §4), against a float64 oracle over the true keys:
            max abs / rel error, bf16 ULPs, NaN/inf. The verdict uses the flavour the case's
            platform dispatches to (cuda: CUDA kernel; rocm: Triton).

  --case LINE     the case (see `chunkproof plan --help` for keys; numerics keys: dims, heads,
                  kv_lora_rank, rope_dim, nope_dim, v_dim, seed)
  --path P        exact | vllm | both (default both)
  --json          machine-readable output
  --threads T     worker threads (default 1): heads of one case, or cases of --random
  --random N      N random small cases of --version (dcp 1..8, interleave > 1 included);
                  stops at the first failing case and prints its line
  --version V     planner version for --random (see `chunkproof versions`)
  --platform P    cuda | rocm for --random (default cuda)
  --seed S        seed of the random cases (default 1)
  --device D      cpu (default) | gpu
  --sample-heads K  sampled verification: both paths for K heads drawn from the case seed
                  (every token and v dim of those heads, the same bits as a full run)

If the version's own assert fires (asserts=on, the default) check reports it like `plan` does;
append asserts=off to the case line to see what the plan does to the numbers.

exit: 0 bits identical (and the vLLM path within its bound), 1 a finding (assert, bits differ,
NaN or out of bound), 2 bad input, 3 inconclusive (exact accumulator overflow).
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

void print_text(std::ostream& os, const mla::CheckResult& r) {
  const Case& c = r.ev.c;
  os << "case: " << print_case(c) << "\n";
  os << "plan: " << one_line_verdict(r.ev) << " (" << r.ev.plan.chunks.size() << " chunk(s), S=" << r.ev.plan.workspace
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

void json_element(Json& j, std::string_view key, const std::optional<mla::ElementAt>& e) {
  j.key(key);
  if (!e) {
    j.null();
    return;
  }
  j.begin_object()
      .field("token", e->token)
      .field("request", e->request)
      .field("token_in_request", e->token_in_request)
      .field("head", e->head)
      .field("dim", e->dim)
      .end_object();
}

void json_ranges(Json& j, std::string_view key, const std::vector<std::pair<std::int64_t, std::int64_t>>& r) {
  j.key(key).begin_array();
  for (const auto& [lo, hi] : r) j.begin_array().value(lo).value(hi).end_array();
  j.end_array();
}

void print_json(std::ostream& os, const mla::CheckResult& r) {
  Json j(os);
  j.begin_object();
  j.field("case", print_case(r.ev.c));
  j.field("outcome", std::string_view(name(r.ev.outcome)));
  j.field("exit_code", r.exit_code());
  j.field("verdict", r.one_line());
  j.field("assert_fired", r.assert_fired);
  if (r.assert_fired) j.field("assert", r.assert_text);
  j.field("chunks", static_cast<std::int64_t>(r.ev.plan.chunks.size()));
  j.field("prefill_tokens", r.prefill_tokens);
  j.field("context_rows", r.context_rows);
  j.field("attended_rows", r.attended_rows);
  j.field("seconds", r.seconds);
  if (r.exact.ran) {
    const auto& ex = r.exact;
    j.key("exact").begin_object();
    j.field("identical", ex.identical());
    j.field("elements", ex.elements);
    j.field("differing", ex.differing);
    j.field("overflow", ex.overflow);
    json_element(j, "first", ex.first);
    if (ex.first) j.field("reference_bits", hex32(ex.ref_bits)).field("chunked_bits", hex32(ex.got_bits));
    j.key("routing").begin_array();
    for (const auto& rt : ex.routing) {
      j.begin_object().field("request", rt.request).field("ctx", rt.ctx).field("rows", rt.rows);
      j.field("n_missing", rt.n_missing).field("n_twice", rt.n_twice);
      json_ranges(j, "missing", rt.missing);
      json_ranges(j, "twice", rt.twice);
      j.field("foreign_context", rt.foreign_context).field("new_token_rows", rt.new_token_rows);
      j.field("stale_rows", rt.stale_rows);
      j.key("from_requests").begin_array();
      for (int q : rt.from_requests) j.value(q);
      j.end_array().end_object();
    }
    j.end_array().end_object();
  }
  if (r.vllm.ran) {
    const auto& v = r.vllm;
    j.key("vllm").begin_object();
    j.field("production", flavour_name(v.production));
    j.field("bound_abs", v.bound_abs).field("bound_rel", v.bound_rel).field("ok", v.ok());
    for (const auto& f : v.flavours) {
      j.key(flavour_name(f.flavour)).begin_object();
      j.field("max_abs", f.max_abs).field("max_rel", f.max_rel).field("max_ulp", f.max_ulp);
      j.field("nan", f.nan).field("inf", f.inf).field("within_bound", f.within_bound);
      json_element(j, "first_nan", f.first_nan);
      json_element(j, "worst", f.worst);
      j.end_object();
    }
    j.end_object();
  }
  j.end_object();
  os << "\n";
}

mla::CheckOptions path_options(const Options& o) {
  mla::CheckOptions opts;
  const std::string path = o.get_or("--path", "both");
  if (path == "exact")
    opts.vllm = false;
  else if (path == "vllm")
    opts.exact = false;
  else if (path != "both")
    throw UsageError("--path expects exact, vllm or both, got '" + path + "'");
  opts.threads = static_cast<int>(o.get_int("--threads", 1, 1, 256));
  opts.sample_heads = static_cast<int>(o.get_int("--sample-heads", 0, 0, 1 << 20));
  return opts;
}

int run_random(const Options& o, mla::CheckOptions opts) {
  const auto n = o.get_int("--random", 0, 1, 100000000);
  const auto vs = o.get("--version");
  if (!vs) throw UsageError("--random needs --version");
  const auto v = parse_version(*vs);
  if (!v) throw UsageError("unknown version '" + *vs + "' (see chunkproof versions)");
  const auto ps = o.get_or("--platform", "cuda");
  const auto p = parse_platform(ps);
  if (!p) throw UsageError("--platform expects cuda or rocm, got '" + ps + "'");
  const auto seed = static_cast<std::uint64_t>(o.get_int("--seed", 1, 0, std::numeric_limits<long long>::max()));
  const int threads = opts.threads;
  opts.threads = 1;  // parallel over cases

  std::atomic<long long> next{0}, done{0}, first_fail{n};
  std::mutex mu;
  std::optional<mla::CheckResult> fail;
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (;;) {
      const long long i = next++;
      if (i >= first_fail.load()) return;
      const Case c = mla::random_case(*v, *p, seed, static_cast<std::uint64_t>(i));
      auto r = mla::run_check(c, opts);
      ++done;
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
  std::thread progress([&] {
    if (n < 200) return;
    while (done.load() < n && first_fail.load() == n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      std::cerr << "\rcheck --random: " << done.load() << "/" << n << " cases" << std::flush;
    }
    std::cerr << "\n";
  });
  worker();
  for (auto& th : pool) th.join();
  // Let the progress line finish (it exits when done or a failure is recorded).
  if (first_fail.load() == n) done = n;
  progress.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (fail) {
    std::cout << "case " << first_fail.load() << " of " << n << " fails:\n";
    print_text(std::cout, *fail);
    std::cout << "\nreplay: chunkproof check --case '" << print_case(fail->ev.c) << "'\n";
    return fail->exit_code();
  }
  std::cout << n << " random " << *vs << "/" << ps << " cases (seed " << seed
            << "): chunked == unchunked bit for bit, vLLM path within its bound (" << std::fixed << std::setprecision(2)
            << secs << " s)\n";
  return kExitOk;
}

int run(Args args) {
  // The GPU backend takes the whole argument list, whatever else it holds.
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool gpu =
        args[i] == "--device=gpu" || (args[i] == "--device" && i + 1 < args.size() && args[i + 1] == "gpu");
    if (!gpu) continue;
    if (gpu_hooks().check) return gpu_hooks().check(args);
    std::cerr << "chunkproof check: no GPU backend in this build (configure with a CUDA or HIP compiler; "
                 "see kernels/CMakeLists.txt)\n";
    return kExitUsage;
  }
  if (wants_help(args)) {
    std::cout << kHelp;
    return kExitOk;
  }
  Options o(
      args, {"--json"},
      {"--case", "--path", "--threads", "--random", "--version", "--platform", "--seed", "--device", "--sample-heads"});
  const auto dev = o.get_or("--device", "cpu");
  if (dev != "cpu") throw UsageError("--device expects cpu or gpu, got '" + dev + "'");
  const mla::CheckOptions opts = path_options(o);
  if (o.get("--random")) {
    if (o.get("--case")) throw UsageError("give either --case or --random, not both");
    return run_random(o, opts);
  }
  auto line = o.get("--case");
  if (!line && !o.positional().empty()) line = o.positional().front();
  if (!line) throw UsageError("missing --case '<case line>' (or --random N --version V)");
  const auto r = mla::run_check(parse_case(*line), opts);
  if (o.has("--json"))
    print_json(std::cout, r);
  else
    print_text(std::cout, r);
  return r.exit_code();
}

const RegisterCommand reg{"check", "CPU numerics: chunked == unchunked bit for bit; vLLM merge path vs float64", run};

}  // namespace
}  // namespace cp::cli
