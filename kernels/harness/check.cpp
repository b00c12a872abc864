// `chunkproof check --device gpu` and `bench --device gpu`, and the demo's "gpu" stage.
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/multi/multi_rank.h"
#include "kernels/runtime.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

namespace {

constexpr const char* kCheckHelp =
    R"(usage: chunkproof check --device gpu (--case '<line>' | --random N [--seed S]) [--quiet]

Runs the GPU pipeline (kernels/) on each case and compares, bit for bit:
  (a) GPU chunked vs GPU unchunked (exact path),
  (b) GPU vs the CPU reference (reference/mla run_check, keep_outputs): EVERY element of the
      unchunked reference and of the chunked output, raw bits (a NaN equals only the same bits),
      and the same verdict (count of differing elements, overflow flag);
  (c) GPU vs CPU, every element's raw bits of the vLLM-style outputs of both merge flavours
      (Triton, CUDA) and the lse of their final merge;
  and (first 50 cases) a second run without poisoning must give the same bits (every stage
  output is poisoned with 0xFF before its kernel in the first run: no element read unwritten).
Mismatches are reported with the count and the first one as (token, head, dim): GPU vs CPU bits.
--random N draws N v6-current cases with random_case (DCP 1..8, interleave > 1 among them).
--ranks N [--rank-timeout S]: DCP over N GPUs, one process per GPU, the all-gather through
  NCCL/RCCL; every rank's outputs and step digests vs the single-GPU emulation, and the
  emulation vs the CPU (cases with dcp != N are listed as not applicable; --random draws
  cases with dcp = N). See docs/gpu.md.
--sample-heads K: sampled verification for production shapes: the CPU computes both paths for
  K heads drawn from the case seed (every token and dim of them; (b) and (c) compare every
  element of those heads), while (a) still compares every element of every head on the GPU.
exit: 0 all agree, 1 a disagreement (printed with its case line), 2 no GPU / bad input,
  3 (--ranks) a rank died or hung, 4 (--ranks) more ranks than GPUs / no NCCL in this build.
)";

struct Outcome {
  bool agree = true;
  std::string line;
};

std::int64_t count_diff(const std::vector<float>& a, const std::vector<float>& b, std::int64_t* first) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (mla::bits_of(a[i]) != mla::bits_of(b[i]) || mla::is_nan(a[i]) || mla::is_nan(b[i])) {
      if (n++ == 0 && first) *first = static_cast<std::int64_t>(i);
    }
  return n;
}

// Every element's raw bits: equal only when the 32 bits are equal (a NaN equals only the same
// NaN bits). `inner` is the element count per token (N * Vd for outputs, N for lse), `vd` the
// innermost extent (Vd, or 1 for lse).
struct BitDiff {
  std::int64_t elements = 0, differing = 0, nan_payload = 0;  // nan_payload: both NaN, other bits
  bool size_mismatch = false;
  std::int64_t first = -1;
  std::uint32_t a_bits = 0, b_bits = 0;
};

BitDiff bit_diff(const std::vector<float>& a, const std::vector<float>& b) {
  BitDiff d;
  d.elements = static_cast<std::int64_t>(a.size());
  if (a.size() != b.size()) {
    d.size_mismatch = true;
    return d;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint32_t x = mla::bits_of(a[i]), y = mla::bits_of(b[i]);
    if (x == y) continue;
    if (mla::is_nan(a[i]) && mla::is_nan(b[i])) ++d.nan_payload;
    if (d.differing++ == 0) {
      d.first = static_cast<std::int64_t>(i);
      d.a_bits = x;
      d.b_bits = y;
    }
  }
  return d;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// "name: 0 of E differ" or "name: K of E differ, first at (token t, head h, dim d): A vs B".
std::string describe(const char* name, const BitDiff& d, std::int64_t N, std::int64_t vd) {
  std::ostringstream os;
  os << name << ": ";
  if (d.size_mismatch) return os.str() + "SIZE MISMATCH";
  os << d.differing << " of " << d.elements << " differ";
  if (d.differing == 0) return os.str();
  const std::int64_t per_token = N * vd;
  os << ", first at (token " << d.first / per_token << ", head " << (d.first % per_token) / vd;
  if (vd > 1) os << ", dim " << d.first % vd;
  os << "): " << hex32(d.a_bits) << " vs " << hex32(d.b_bits);
  if (d.nan_payload) os << " (" << d.nan_payload << " are NaN vs NaN with other bits)";
  return os.str();
}

// The elements of `heads` of a [token][N][vd] tensor, as [token][heads][vd].
std::vector<float> pick_heads(const std::vector<float>& v, const std::vector<int>& heads, std::int64_t N,
                              std::int64_t vd) {
  if (static_cast<std::int64_t>(heads.size()) == N) return v;
  const std::int64_t T = static_cast<std::int64_t>(v.size()) / (N * vd), K = static_cast<std::int64_t>(heads.size());
  std::vector<float> out(static_cast<std::size_t>(T * K * vd));
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t k = 0; k < K; ++k)
      std::copy_n(v.begin() + (t * N + heads[static_cast<std::size_t>(k)]) * vd, vd, out.begin() + (t * K + k) * vd);
  return out;
}

// sample_heads > 0 (sampled verification): the CPU runs both paths for that many heads (every
// token and dim of them); the GPU runs every head and still compares chunked vs unchunked on
// every element; GPU vs CPU is compared, bit for bit, on every element of the chosen heads.
Outcome check_one(const Case& c, bool poison_twice, int sample_heads = 0) {
  Outcome out;
  std::ostringstream os;
  mla::CheckOptions co;
  co.keep_outputs = true;
  co.sample_heads = sample_heads;
  co.threads = sample_heads > 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : 1;
  const auto cpu_t0 = std::chrono::steady_clock::now();
  const mla::CheckResult cpu = mla::run_check(c, co);
  const double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cpu_t0).count();
  if (cpu.assert_fired) {
    out.line = "assert fired on the CPU plan (nothing to run): " + cpu.assert_text;
    return out;
  }
  const Plan& plan = cpu.ev.plan;
  const mla::Inputs in = mla::make_inputs(c);
  const mla::Shape& s = in.s;
  const auto gpu_t0 = std::chrono::steady_clock::now();
  PipelineOptions po;
  const PipelineResult chunked = run_pipeline(c, plan, in, po);
  po.chunked = false;
  po.vllm = false;
  const PipelineResult unchunked = run_pipeline(c, plan, in, po);
  const double gpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - gpu_t0).count();
  std::int64_t first = -1;
  const std::int64_t diff = count_diff(unchunked.exact, chunked.exact, &first);
  os << "gpu exact: " << (diff == 0 ? "chunked == unchunked" : std::to_string(diff) + " elements differ");
  const std::vector<int>& hs = cpu.heads;
  const bool sampled = static_cast<int>(hs.size()) < s.N;
  if (sampled)
    os << " (every element); sampled heads " << hs.size() << " of " << s.N << " [CPU " << std::fixed
       << std::setprecision(1) << cpu_s << " s, GPU " << gpu_s << " s" << std::defaultfloat << "]";
  const std::int64_t sampled_diff = sampled ? count_diff(pick_heads(unchunked.exact, hs, s.N, s.Vd),
                                                         pick_heads(chunked.exact, hs, s.N, s.Vd), nullptr)
                                            : diff;
  // The CPU's verdict: the same count (NaN never equal, as the CPU counts) and overflow flag.
  const auto& ex = cpu.exact;
  bool agree = ex.differing == sampled_diff && ex.overflow == (chunked.overflow || unchunked.overflow);
  if (!agree)
    os << " [CPU: " << ex.differing << " differ" << (ex.overflow ? ", overflow" : "") << "; GPU overflow "
       << (chunked.overflow || unchunked.overflow) << "]";
  // Every element, raw bits: (a) GPU chunked vs GPU unchunked (reported; equal to the CPU's
  // difference by (b)), (b) GPU exact outputs vs CPU, (c) GPU vLLM-style outputs + lse vs CPU.
  const std::int64_t N = s.N, Vd = s.Vd;
  os << "; " << describe("(a) gpu chunked vs unchunked", bit_diff(unchunked.exact, chunked.exact), N, Vd);
  struct Pair {
    const char* name;
    std::vector<float> gpu;  // the chosen heads' elements (every element unless sampled)
    const std::vector<float>* cpu;
    std::int64_t vd;
  };
  // Positions in (b)/(c) reports are (token, index among the chosen heads, dim) when sampled.
  const Pair pairs[] = {
      {"(b) reference", pick_heads(unchunked.exact, hs, N, Vd), &cpu.reference_out, Vd},
      {"(b) chunked", pick_heads(chunked.exact, hs, N, Vd), &cpu.chunked_out, Vd},
      {"(c) vllm triton out", pick_heads(chunked.vllm[0], hs, N, Vd), &cpu.vllm_out[0], Vd},
      {"(c) vllm cuda out", pick_heads(chunked.vllm[1], hs, N, Vd), &cpu.vllm_out[1], Vd},
      {"(c) vllm triton lse", pick_heads(chunked.vllm_lse[0], hs, N, 1), &cpu.vllm_lse[0], 1},
      {"(c) vllm cuda lse", pick_heads(chunked.vllm_lse[1], hs, N, 1), &cpu.vllm_lse[1], 1},
  };
  const std::int64_t NK = static_cast<std::int64_t>(hs.size());
  std::int64_t compared = 0;
  bool all_equal = true;
  for (const Pair& p : pairs) {
    const BitDiff d = bit_diff(p.gpu, *p.cpu);
    compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) continue;
    all_equal = false;
    os << "; GPU vs CPU " << describe(p.name, d, NK, p.vd);
  }
  agree = agree && all_equal;
  if (all_equal)
    os << "; GPU vs CPU: all " << compared << " elements bit-identical (exact ref + chunked, vllm out + lse x2)";
  // A second run without poisoning (whatever the allocator gives) must give the same bits.
  if (poison_twice) {
    PipelineOptions p2;
    p2.poison = false;
    const PipelineResult again = run_pipeline(c, plan, in, p2);
    const BitDiff d2 = bit_diff(chunked.exact, again.exact);
    const BitDiff d3 = bit_diff(chunked.vllm[0], again.vllm[0]);
    const BitDiff d4 = bit_diff(chunked.vllm[1], again.vllm[1]);
    if (d2.differing || d3.differing || d4.differing) {
      agree = false;
      os << "; output depends on unwritten memory (" << d2.differing << " exact, " << d3.differing + d4.differing
         << " vllm elements)";
    }
  }
  os << (agree ? "; agrees with the CPU (" : "; DISAGREES with the CPU (") << cpu.one_line() << ")";
  out.agree = agree;
  out.line = os.str();
  return out;
}

bool require_gpu(const char* what) {
  std::string why;
  if (!probe(why)) {
    std::cerr << "chunkproof " << what << " --device gpu: " << why << "\n";
    return false;
  }
  return true;
}

std::vector<std::string> strip_device(cli::Args args) {
  std::vector<std::string> a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--device") {
      ++i;
      continue;
    }
    if (args[i].rfind("--device=", 0) == 0) continue;
    a.push_back(args[i]);
  }
  return a;
}

}  // namespace

int check_main(cli::Args args) {
  if (cli::wants_help(args)) {
    std::cout << kCheckHelp;
    return cli::kExitOk;
  }
  const auto a = strip_device(args);
  cli::Options o(a, {"--quiet"}, {"--case", "--random", "--seed", "--ranks", "--rank-timeout", "--sample-heads"});
  const int sample = static_cast<int>(o.get_int("--sample-heads", 0, 0, 1 << 20));
  if (o.get("--ranks")) {  // multi-GPU: kernels/multi/multi_rank.h (one process per GPU)
    multi::RankOptions ro;
    ro.ranks = static_cast<int>(o.get_int("--ranks", 2, 1, 4096));
    ro.timeout_s = static_cast<double>(o.get_int("--rank-timeout", 60, 1, 86400));
    ro.quiet = o.has("--quiet");
    std::vector<Case> cs;
    if (auto line = o.get("--case")) cs.push_back(parse_case(*line));
    const auto seed = static_cast<std::uint64_t>(o.get_int("--seed", 1, 0, (1LL << 62)));
    for (long long i = 0; i < o.get_int("--random", 0, 0, 1000000); ++i)
      cs.push_back(multi::random_case_for_ranks(seed, static_cast<std::uint64_t>(i), ro.ranks));
    if (cs.empty()) throw cli::UsageError("check --device gpu --ranks: give --case or --random N");
    return multi::check_ranks(cs, ro, std::cout, std::cerr);
  }
  if (!require_gpu("check")) return cli::kExitUsage;
  std::vector<Case> cases;
  if (auto line = o.get("--case")) cases.push_back(parse_case(*line));
  const auto n = o.get_int("--random", 0, 0, 1000000);
  const auto seed = static_cast<std::uint64_t>(o.get_int("--seed", 1, 0, (1LL << 62)));
  for (long long i = 0; i < n; ++i)
    cases.push_back(mla::random_case(Version::v6_current, i % 2 ? Platform::rocm : Platform::cuda, seed,
                                     static_cast<std::uint64_t>(i)));
  if (cases.empty()) throw cli::UsageError("check --device gpu: give --case or --random N");
  std::string why;
  const auto dev = probe(why);
  std::cout << "device: " << dev->name << " (" << dev->arch << ", " << dev->backend << ")\n";
  int bad = 0, identical = 0, differing = 0, asserts = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Outcome r = check_one(cases[i], i < 50, sample);
    if (!r.agree) ++bad;
    if (r.line.rfind("assert", 0) == 0)
      ++asserts;
    else if (r.line.find("chunked == unchunked") != std::string::npos)
      ++identical;
    else
      ++differing;
    if (!r.agree || !o.has("--quiet") || cases.size() == 1)
      std::cout << (r.agree ? "ok   " : "FAIL ") << r.line << "\n     case: " << print_case(cases[i]) << "\n";
  }
  std::cout << "gpu check: " << cases.size() << " cases, " << identical << " chunked == unchunked, " << differing
            << " differ (as on the CPU when agreeing), " << asserts << " assert, " << bad
            << " disagreements with the CPU\n";
  return bad ? cli::kExitFinding : cli::kExitOk;
}

namespace {

constexpr const char* kBenchHelp =
    R"(usage: chunkproof bench --device gpu [--case '<line>'] [--reps N] [--warmup W]

Times the GPU pipeline per stage with device events, for the exact path and the vLLM-style
path separately: W warm-up runs (default 1), then N timed runs (default 5, at least 5); prints
the median and the spread (min..max) per stage and in total, against two ceilings measured in
the same run (a 2 GiB device-to-device copy: bytes read + written per second; an fp32 FMA
loop: 2 flops per FMA), the fraction of its ceiling each stage reaches (median time), and
exact / vLLM-style. Default case: DeepSeek-V3 dims (128 heads, 512/64/128/128), 4 prefills of
64K context and 16 new tokens each, a 64K workspace:
  version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 dims=deepseek-v3
  ctx=65536,65536,65536,65536 q=16,16,16,16
--ranks N [--rank-timeout S]: the same case with dcp=N over N GPUs (one process per GPU,
  the all-gather through NCCL/RCCL): per-stage medians on every rank, and every chunk's
  all-gather time and bytes against the library's large-message bandwidth measured first.
)";

struct Spread {
  double median = 0, min = 0, max = 0;
};
Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

}  // namespace

int bench_main(cli::Args args) {
  if (cli::wants_help(args)) {
    std::cout << kBenchHelp;
    return cli::kExitOk;
  }
  const auto a = strip_device(args);
  cli::Options o(a, {}, {"--case", "--reps", "--warmup", "--ranks", "--rank-timeout"});
  const int reps = static_cast<int>(o.get_int("--reps", 5, 5, 1000));
  const int warmup = static_cast<int>(o.get_int("--warmup", 1, 0, 100));
  if (o.get("--ranks")) {  // multi-GPU: kernels/multi/multi_rank.h; default case with dcp = ranks
    multi::RankOptions ro;
    ro.ranks = static_cast<int>(o.get_int("--ranks", 2, 1, 4096));
    ro.timeout_s = static_cast<double>(o.get_int("--rank-timeout", 60, 1, 86400));
    const Case c = parse_case(
        o.get_or("--case", "version=v6-current platform=cuda workspace=65536 block=64 dcp=" + std::to_string(ro.ranks) +
                               " interleave=1 dims=deepseek-v3 ctx=65536,65536,65536,65536 q=16,16,16,16"));
    return multi::bench_ranks(c, reps, warmup, ro, std::cout, std::cerr);
  }
  if (!require_gpu("bench")) return cli::kExitUsage;
  const std::string line =
      o.get_or("--case",
               "version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 dims=deepseek-v3 "
               "ctx=65536,65536,65536,65536 q=16,16,16,16");
  const Case c = parse_case(line);
  const Plan plan = make_plan(c);
  if (!plan.built || (!plan.asserts.empty() && c.asserts)) throw cli::UsageError("bench: the case does not plan");
  std::string why;
  const auto dev = probe(why);
  std::printf("device: %s (%s, %s)\ncase: %s\nchunks: %zu\nwarm-up runs: %d, timed runs: %d per path\n",
              dev->name.c_str(), dev->arch.c_str(), dev->backend.c_str(), print_case(c).c_str(), plan.chunks.size(),
              warmup, reps);
  const Ceilings ce = measure_ceilings();
  std::printf("ceilings: copy %.0f GB/s (read+write), fp32 FMA %.1f TFLOP/s\n", ce.copy_bytes_per_s * 1e-9,
              ce.fp32_flops_per_s * 1e-12);
  const mla::Inputs in = mla::make_inputs(c);
  const mla::Shape& s = in.s;
  std::int64_t keys = 0, T = 0;
  for (int r : plan.prefills) {
    keys += c.ctx[static_cast<std::size_t>(r)] + c.q[static_cast<std::size_t>(r)];
    T += c.q[static_cast<std::size_t>(r)];
  }
  const double qkeys = static_cast<double>(keys) * static_cast<double>(T) / static_cast<double>(plan.prefills.size());
  // Work per stage (flops: a mul and an add are 2; bytes: what the stage must move at least).
  std::map<std::string, std::pair<double, double>> work;  // stage -> (flops, bytes)
  work["gather"] = {0, 2.0 * static_cast<double>(keys) * s.row() * 2};
  work["up-project K"] = {2.0 * static_cast<double>(keys) * s.L * s.N * s.Pn,
                          static_cast<double>(keys) * s.N * s.Pn * 4};
  work["up-project V"] = {2.0 * static_cast<double>(keys) * s.L * s.N * s.Vd,
                          static_cast<double>(keys) * s.N * s.Vd * 4};
  work["scores + max"] = {2.0 * qkeys * s.N * s.qk(), qkeys * s.N * 4};
  work["exact accumulate"] = {2.0 * qkeys * s.N * s.Vd, qkeys * s.N * 4};
  work["vllm partial"] = {2.0 * qkeys * s.N * s.Vd, qkeys * s.N * 4};
  work["normalize"] = {0, static_cast<double>(T) * s.N * s.Vd * 4};
  work["merge"] = {0, static_cast<double>(T) * s.N * s.Vd * 12};
  // Per path: stage -> the timed runs' milliseconds ("total": the whole pipeline).
  std::map<std::string, std::vector<double>> ms[2];
  bool overflow = false;
  for (int p = 0; p < 2; ++p) {
    PipelineOptions po;
    po.exact = p == 0;
    po.vllm = p == 1;
    po.poison = false;
    po.time_stages = true;
    for (int k = 0; k < warmup + reps; ++k) {
      const PipelineResult r = run_pipeline(c, plan, in, po);
      if (k < warmup) continue;
      for (const auto& [stage, t] : r.stage_ms) ms[p][stage].push_back(t);
      ms[p]["total"].push_back(r.total_ms);
      overflow = overflow || r.overflow;
    }
  }
  auto med = [&](int p, const std::string& stage) {
    return ms[p].count(stage) ? spread_of(ms[p].at(stage)) : Spread{};
  };
  std::printf("\nmedian of %d runs [min..max], ms; fraction of ceiling from the median\n", reps);
  std::printf("| stage | exact ms | vLLM-style ms | GFLOP | GB | ceiling | fraction of ceiling (exact / vLLM) |\n");
  std::printf("|---|---:|---:|---:|---:|---|---:|\n");
  auto frac = [&](const std::pair<double, double>& wk, double t, bool arith) {
    if (t <= 0) return std::string("–");
    char b[32];
    std::snprintf(b, sizeof b, "%.3f",
                  arith ? wk.first / (t * 1e-3) / ce.fp32_flops_per_s : wk.second / (t * 1e-3) / ce.copy_bytes_per_s);
    return std::string(b);
  };
  auto cell = [](const Spread& x) {
    if (x.median <= 0) return std::string("–");
    char b[64];
    std::snprintf(b, sizeof b, "%.2f [%.2f..%.2f]", x.median, x.min, x.max);
    return std::string(b);
  };
  for (const char* stage : {"gather", "up-project K", "up-project V", "scores + max", "exact accumulate",
                            "vllm partial", "merge", "normalize"}) {
    const auto& wk = work.at(stage);
    const Spread e = med(0, stage), v = med(1, stage);
    if (e.median <= 0 && v.median <= 0) continue;
    const bool arith = wk.first > 0;
    std::printf("| %s | %s | %s | %.1f | %.2f | %s | %s / %s |\n", stage, cell(e).c_str(), cell(v).c_str(),
                wk.first * 1e-9, wk.second * 1e-9, arith ? "fp32 FMA" : "copy", frac(wk, e.median, arith).c_str(),
                frac(wk, v.median, arith).c_str());
  }
  const Spread te = med(0, "total"), tv = med(1, "total");
  std::printf("| **total** | **%s** | **%s** | | | | |\n", cell(te).c_str(), cell(tv).c_str());
  std::printf("\nexact / vLLM-style (medians): %.2fx (goal <= 2x)\n", te.median / tv.median);
  std::printf("exact overflow flag: %s\n", overflow ? "SET" : "clear");
  return cli::kExitOk;
}

std::vector<cli::StageRow> demo_rows(const cli::DemoOptions& o) {
  cli::StageRow r;
  r.item = "GPU bit-for-bit (chunked == unchunked == CPU)";
  r.expected = "bit-identical";
  std::string why;
  if (!probe(why)) {
    r.skipped = true;
    r.got = "skipped: " + why;
    return {r};
  }
  const int n = o.quick ? 20 : 200;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const Case c = mla::random_case(Version::v6_current, Platform::rocm, 7, static_cast<std::uint64_t>(i));
    if (!check_one(c, false).agree) ++bad;
  }
  r.as_expected = bad == 0;
  r.got = bad ? std::to_string(bad) + "/" + std::to_string(n) + " cases disagree"
              : std::to_string(n) + " random cases agree";
  r.detail = "chunkproof check --device gpu --random " + std::to_string(n) + " --seed 7";
  return {r};
}

}  // namespace cp::gpu
