// `chunkproof check --device gpu` and `bench --device gpu`, and the demo's "gpu" stage.
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/runtime.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

namespace {

constexpr const char* kCheckHelp =
    R"(usage: chunkproof check --device gpu (--case '<line>' | --random N [--seed S]) [--quiet]

Runs the GPU pipeline (kernels/) on each case and compares, bit for bit:
  (a) GPU chunked vs GPU unchunked (exact path),
  (b) GPU vs the CPU reference (reference/mla run_check): the same verdict, the same number of
      differing elements, the same first differing element and bits; and the vLLM-style path's
      NaN/inf counts per merge flavour;
  (c) poison: the pipeline runs twice with different poison bytes in every stage output and the
      results must be identical (no element read before it is written).
--random N draws N v6-current cases with random_case (DCP 1..8, interleave > 1 among them).
exit: 0 all agree, 1 a disagreement (printed with its case line), 2 no GPU / bad input.
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

Outcome check_one(const Case& c, bool poison_twice) {
  Outcome out;
  std::ostringstream os;
  const mla::CheckResult cpu = mla::run_check(c, mla::CheckOptions{});
  if (cpu.assert_fired) {
    out.line = "assert fired on the CPU plan (nothing to run): " + cpu.assert_text;
    return out;
  }
  const Plan& plan = cpu.ev.plan;
  const mla::Inputs in = mla::make_inputs(c);
  PipelineOptions po;
  const PipelineResult chunked = run_pipeline(c, plan, in, po);
  po.chunked = false;
  po.vllm = false;
  const PipelineResult unchunked = run_pipeline(c, plan, in, po);
  std::int64_t first = -1;
  const std::int64_t diff = count_diff(unchunked.exact, chunked.exact, &first);
  os << "gpu exact: " << (diff == 0 ? "chunked == unchunked" : std::to_string(diff) + " elements differ");
  // (b) against the CPU's verdict.
  const auto& ex = cpu.exact;
  bool agree = ex.differing == diff && ex.overflow == (chunked.overflow || unchunked.overflow);
  if (agree && diff > 0 && ex.first) {
    const mla::Shape& s = in.s;
    const std::int64_t per_token = static_cast<std::int64_t>(s.N) * s.Vd;
    const std::int64_t cpu_idx = ex.first->token * per_token + ex.first->head * s.Vd + ex.first->dim;
    agree = cpu_idx == first && ex.ref_bits == mla::bits_of(unchunked.exact[static_cast<std::size_t>(first)]) &&
            ex.got_bits == mla::bits_of(chunked.exact[static_cast<std::size_t>(first)]);
    os << " (first at element " << first << ")";
  }
  for (int f = 0; f < 2; ++f) {
    std::int64_t nan = 0, inf = 0;
    for (float x : chunked.vllm[f]) {
      nan += mla::is_nan(x) ? 1 : 0;
      inf += mla::is_inf(x) ? 1 : 0;
    }
    const auto& fr = cpu.vllm.flavours[f];
    if (nan != fr.nan || inf != fr.inf) {
      agree = false;
      os << "; vllm " << (f ? "cuda" : "triton") << " NaN/inf " << nan << "/" << inf << " vs CPU " << fr.nan << "/"
         << fr.inf;
    }
  }
  // (c) a second run with another poison byte must give the same bits.
  if (poison_twice) {
    PipelineOptions p2;
    p2.poison = false;  // buffers then hold whatever the allocator gives: must not matter either
    const PipelineResult again = run_pipeline(c, plan, in, p2);
    const std::int64_t d2 = count_diff(chunked.exact, again.exact, nullptr);
    const std::int64_t d3 = count_diff(chunked.vllm[1], again.vllm[1], nullptr);
    if (d2 != 0 || (d3 != 0 && cpu.vllm.flavours[1].nan == 0)) {
      agree = false;
      os << "; output depends on unwritten memory (" << d2 << " exact, " << d3 << " vllm elements)";
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
  cli::Options o(a, {"--quiet"}, {"--case", "--random", "--seed"});
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
    const Outcome r = check_one(cases[i], i < 50);
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

int bench_main(cli::Args args) {
  const auto a = strip_device(args);
  cli::Options o(a, {}, {"--case", "--reps"});
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
  std::printf("device: %s (%s, %s)\ncase: %s\nchunks: %zu\n", dev->name.c_str(), dev->arch.c_str(),
              dev->backend.c_str(), print_case(c).c_str(), plan.chunks.size());
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
  PipelineResult res[2];
  for (int p = 0; p < 2; ++p) {
    PipelineOptions po;
    po.exact = p == 0;
    po.vllm = p == 1;
    po.poison = false;
    po.time_stages = true;
    res[p] = run_pipeline(c, plan, in, po);
  }
  std::printf("\n| stage | exact ms | vLLM-style ms | GFLOP | GB | ceiling | exact: fraction of ceiling |\n");
  std::printf("|---|---:|---:|---:|---:|---|---:|\n");
  for (const auto& [stage, wk] : work) {
    const double e = res[0].stage_ms.count(stage) ? res[0].stage_ms.at(stage) : 0;
    const double v = res[1].stage_ms.count(stage) ? res[1].stage_ms.at(stage) : 0;
    const double t = e > 0 ? e : v;
    if (t <= 0) continue;
    const double f_flop = wk.first / (t * 1e-3) / ce.fp32_flops_per_s;
    const double f_byte = wk.second / (t * 1e-3) / ce.copy_bytes_per_s;
    const bool arith = f_flop >= f_byte;
    std::printf("| %s | %.2f | %.2f | %.1f | %.2f | %s | %.3f |\n", stage.c_str(), e, v, wk.first * 1e-9,
                wk.second * 1e-9, arith ? "fp32 FMA" : "copy", arith ? f_flop : f_byte);
  }
  std::printf("| total | %.2f | %.2f | | | | |\n", res[0].total_ms, res[1].total_ms);
  std::printf("\nexact / vLLM-style: %.2fx (goal <= 2x)\n", res[0].total_ms / res[1].total_ms);
  std::printf("exact overflow flag: %s\n", res[0].overflow ? "SET" : "clear");
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
