// The GPU backend's wiring into the CLI: `check --device gpu` (the same options as the CPU
// check, parsed by cmd_check.cpp), `bench --device gpu` and the demo stage "gpu". Without a GPU
// backend (CHUNKPROOF_GPU=OFF) the stage says so and the hooks stay empty: `--device gpu` then
// exits 4. The kernels' entry layer (kernels/harness/) knows nothing of the CLI.
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/demo.h"
#include "tools/chunkproof/gpu_cases.h"

#if defined(CHUNKPROOF_HAVE_GPU)
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/mla_launch.h"
#include "kernels/multi/multi_rank.h"
#include "kernels/runtime.h"
#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#endif

namespace cp::cli {
namespace stage_gpu {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kGpuItem = "GPU bit-for-bit (chunked == unchunked == CPU)";

#if defined(CHUNKPROOF_HAVE_GPU)

gpu::DeviceInfo require_gpu(const char* what) {
  std::string why;
  const auto dev = gpu::probe(why);
  if (!dev)
    throw CannotRun(std::string("--device gpu: ") + why + " (nothing was run; `chunkproof " + what +
                    "` without --device gpu runs on the CPU)");
  return *dev;
}

// --mode fast needs the bf16 matrix units (kernels/mla_launch.h): exit 4 where there are none.
void require_fast_mode() {
  std::string why;
  if (!gpu::fast_mode_supported(why)) throw CannotRun(why);
}

// Every case on the GPU against the CPU; the first 50 also run a second time unpoisoned.
int check_gpu(const GpuCheckOptions& o) {
  if (o.ranks > 0) {  // real DCP over o.ranks GPUs (kernels/multi/multi_rank.h); cases with dcp != ranks are n/a
    gpu::multi::RankOptions ro;
    ro.ranks = o.ranks;
    ro.timeout_s = o.rank_timeout;
    ro.quiet = o.quiet;
    std::vector<Case> cs = o.cases;
    if (o.random > 0) {
      cs.clear();  // random cases with dcp = ranks instead of the single-GPU draw
      for (long long i = 0; i < o.random; ++i)
        cs.push_back(gpu::multi::random_case_for_ranks(o.seed, static_cast<std::uint64_t>(i), o.ranks));
    }
    if (cs.empty()) throw UsageError("check --device gpu --ranks: give --case, --cases or --random N");
    return gpu::multi::check_ranks(cs, ro, std::cout, std::cerr);
  }
  if (o.cases.empty()) throw UsageError("check --device gpu: give --case, --cases or --random N");
  const gpu::DeviceInfo dev = require_gpu("check");
  if (o.fast) require_fast_mode();
  // The loop, the report and the interrupt poll are host code (gpu_cases.cpp, tested without a GPU).
  return run_gpu_cases(
      o, {dev.name, dev.arch, dev.backend},
      [&](const Case& c, std::size_t i) {
        const gpu::CheckOutcome r = gpu::check_one(c, i < 50, o.sample_heads, o.fast);
        return GpuCaseOutcome{r.agree, r.line};
      },
      std::cout);
}

constexpr const char* kBenchDescription =
    R"(Times the GPU pipeline per stage with device events, for the exact path and the vLLM-style
path separately: W warm-up runs (default 1), then N timed runs (default 5, at least 5); prints
the median and the spread (min..max) per stage and in total, against ceilings measured in the
same run (a 2 GiB device-to-device copy: bytes read + written per second; an fp32 FMA loop: 2
flops per FMA; for the up-projections and the scores, whose multiply and add the contract keeps
apart, the same loop with an unfused multiply + add; for the exact accumulation, a register-only
loop of its per-term integer work, mla::ExactWin::add_short: terms per second), the fraction of
its ceiling each stage reaches (median time), and exact / vLLM-style. --mode fast: the
up-projections on the bf16 matrix units (their ceiling is not measured). Default case: DeepSeek-V3 dims (128 heads, 512/64/128/128), 4 prefills of
64K context and 16 new tokens each, a 64K workspace:
  version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 dims=deepseek-v3
  ctx=65536,65536,65536,65536 q=16,16,16,16
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

int bench_main(Args args) {
  CLI::App app{kBenchDescription, "chunkproof bench --device gpu"};
  configure(app, "exit: 0, 2 bad input, 4 no GPU\n");
  std::string device, line =
                          "version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 "
                          "dims=deepseek-v3 ctx=65536,65536,65536,65536 q=16,16,16,16";
  std::string mode = "portable";
  int reps = 5, warmup = 1, ranks = 0;
  double rank_timeout = 60;
  app.add_option("--device", device, "gpu");
  app.add_option("--ranks", ranks,
                 "DCP over N GPUs: all-gather bandwidth, per-stage medians on every rank (default "
                 "case: dcp = N)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--rank-timeout", rank_timeout, "--ranks: seconds before a silent rank ends the run")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--case", line, "the case to time")->capture_default_str();
  app.add_option("--mode", mode, "portable | fast (the up-projections on the bf16 matrix units)")
      ->check(CLI::IsMember({"portable", "fast"}))
      ->capture_default_str();
  app.add_option("--reps", reps, "timed runs per path")->check(CLI::Range(5, 1000))->capture_default_str();
  app.add_option("--warmup", warmup, "warm-up runs per path")->check(CLI::Range(0, 100))->capture_default_str();
  if (!parse(app, args)) return kExitOk;
  if (ranks > 0 && mode == "fast") throw UsageError("bench --mode fast: one GPU (no --ranks)");
  if (ranks > 0) {  // kernels/multi/multi_rank.h; the default case with dcp = ranks
    gpu::multi::RankOptions ro;
    ro.ranks = ranks;
    ro.timeout_s = rank_timeout;
    if (app.count("--case") == 0)
      line = "version=v6-current platform=cuda workspace=65536 block=64 dcp=" + std::to_string(ranks) +
             " interleave=1 dims=deepseek-v3 ctx=65536,65536,65536,65536 q=16,16,16,16";
    return gpu::multi::bench_ranks(parse_case(line), reps, warmup, ro, std::cout, std::cerr);
  }
  const Case c = parse_case(line);
  const Plan plan = make_plan(c);
  if (!plan.built || (!plan.asserts.empty() && c.asserts)) throw UsageError("bench: the case does not plan");
  const gpu::DeviceInfo dev = require_gpu("bench");
  const bool fast = mode == "fast";
  if (fast) require_fast_mode();
  std::printf("device: %s (%s, %s)\ncase: %s\nchunks: %zu\nwarm-up runs: %d, timed runs: %d per path\n",
              dev.name.c_str(), dev.arch.c_str(), dev.backend.c_str(), print_case(c).c_str(), plan.chunks.size(),
              warmup, reps);
  const gpu::Ceilings ce = gpu::measure_ceilings();
  std::printf(
      "ceilings: copy %.0f GB/s (read+write), fp32 FMA %.1f TFLOP/s, fp32 mul+add unfused %.1f TFLOP/s, "
      "exact terms (ExactWin loop) %.1f G/s\n",
      ce.copy_bytes_per_s * 1e-9, ce.fp32_flops_per_s * 1e-12, ce.fp32_mul_add_flops_per_s * 1e-12,
      ce.exact_terms_per_s * 1e-9);
  std::printf("scores kernel: %s\n", gpu::scores_kernel_choice() == gpu::ScoresKernel::reg4x4
                                         ? "reg4x4 (16 tokens x 128 keys per block, 4x4 per thread)"
                                         : "tiled32 (CHUNKPROOF_GPU_SCORES=tiled32)");
  std::printf("up-projection kernel: %s\n",
              fast ? "fast: bf16 matrix units (128x128 per block, wmma 16x16x16, fp32 accumulation; --mode fast)"
              : gpu::up_project_kernel_choice() == gpu::UpKernel::tiled ? "tiled (128x128 per block, 8x8 per thread)"
                                                                        : "rows8 (CHUNKPROOF_GPU_UPPROJ=rows8)");
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
    gpu::PipelineOptions po;
    po.exact = p == 0;
    po.vllm = p == 1;
    po.poison = false;
    po.time_stages = true;
    po.fast = fast;
    for (int k = 0; k < warmup + reps; ++k) {
      const gpu::PipelineResult r = gpu::run_pipeline(c, plan, in, po);
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
  // Ceilings: the up-projections and the scores run unfused mul+add chains (the contract forbids
  // FMA there); the exact accumulation's terms (2 "flops" each in `work`) against the ExactWin
  // term loop; the vLLM partial against the FMA loop.
  auto unfused = [](const std::string& stage) { return stage.rfind("up-project", 0) == 0 || stage == "scores + max"; };
  auto ceiling_of = [&](const std::string& stage) {
    if (stage == "exact accumulate") return 2.0 * ce.exact_terms_per_s;
    if (fast && stage.rfind("up-project", 0) == 0) return 0.0;  // the matrix units' ceiling is not measured
    return unfused(stage) ? ce.fp32_mul_add_flops_per_s : ce.fp32_flops_per_s;
  };
  auto frac = [&](const std::pair<double, double>& wk, double t, bool arith, double flops_ceiling) {
    if (t <= 0 || (arith && flops_ceiling <= 0)) return std::string("–");
    char b[32];
    std::snprintf(b, sizeof b, "%.3f",
                  arith ? wk.first / (t * 1e-3) / flops_ceiling : wk.second / (t * 1e-3) / ce.copy_bytes_per_s);
    return std::string(b);
  };
  auto ceiling_name = [&](const std::string& stage, bool arith) {
    if (!arith) return "copy";
    if (stage == "exact accumulate") return "exact terms";
    if (fast && stage.rfind("up-project", 0) == 0) return "bf16 MMA (not measured)";
    return unfused(stage) ? "fp32 mul+add" : "fp32 FMA";
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
                wk.first * 1e-9, wk.second * 1e-9, ceiling_name(stage, arith),
                frac(wk, e.median, arith, ceiling_of(stage)).c_str(),
                frac(wk, v.median, arith, ceiling_of(stage)).c_str());
  }
  const Spread sc = med(0, "scores + max");
  if (sc.median > 0)
    std::printf("\nscores + max (exact path) against the fp32 FMA ceiling instead: %s\n",
                frac(work.at("scores + max"), sc.median, true, ce.fp32_flops_per_s).c_str());
  const Spread te = med(0, "total"), tv = med(1, "total");
  std::printf("| **total** | **%s** | **%s** | | | | |\n", cell(te).c_str(), cell(tv).c_str());
  std::printf("exact / vLLM-style (medians): %.2fx (goal <= %s)\n", te.median / tv.median, fast ? "1.1x" : "1.2x");
  std::printf("exact overflow flag: %s\n", overflow ? "SET" : "clear");
  return kExitOk;
}

std::vector<StageRow> demo_rows(const DemoOptions& o) {
  std::string why;
  if (!gpu::probe(why)) return {StageRow::skipped_because(kGpuItem, "bit-identical", "skipped: " + why)};
  StageRow r;
  r.item = kGpuItem;
  r.expected = "bit-identical";
  const int n = o.quick ? 20 : 200;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const Case c = mla::random_case(Version::v6_current, Platform::rocm, 7, static_cast<std::uint64_t>(i));
    if (!gpu::check_one(c, false).agree) ++bad;
  }
  r.as_expected = bad == 0;
  r.got = bad ? std::to_string(bad) + "/" + std::to_string(n) + " cases disagree"
              : std::to_string(n) + " random cases agree";
  r.detail = "chunkproof check --device gpu --random " + std::to_string(n) + " --seed 7";
  return {r};
}

GpuExport export_reference(const Case& c, int threads, int sample_heads) {
  const gpu::DeviceInfo dev = require_gpu("export");
  gpu::ExportReference er = gpu::export_reference(c, threads, sample_heads);
  GpuExport g;
  g.agree = er.agree;
  g.line = std::move(er.line);
  g.device = dev.name + " (" + dev.arch + ", " + dev.backend + ")";
  g.result = std::move(er.result);
  g.checked_heads = std::move(er.checked_heads);
  g.compared = er.compared;
  g.cpu_seconds = er.cpu_seconds;
  g.gpu_seconds = er.gpu_seconds;
  return g;
}

[[maybe_unused]] const bool installed = [] {
  gpu_hooks().export_reference = export_reference;
  gpu_hooks().available = [](std::string* why) {
    std::string w;
    const bool ok = gpu::probe(w).has_value();
    if (why) *why = w;
    return ok;
  };
  gpu_hooks().check = check_gpu;
  gpu_hooks().bench = bench_main;
  gpu_hooks().backend = CHUNKPROOF_GPU_BACKEND;
  return true;
}();

std::vector<StageRow> run(const DemoOptions& o) { return demo_rows(o); }
#else
std::vector<StageRow> run(const DemoOptions&) {
  return {StageRow::skipped_because(
      kGpuItem, "bit-identical", "skipped: built without a GPU backend (configure with -DCHUNKPROOF_GPU=CUDA or HIP)")};
}
#endif

const RegisterDemoStage reg{50, "gpu", run};

}  // namespace
}  // namespace stage_gpu
}  // namespace cp::cli
