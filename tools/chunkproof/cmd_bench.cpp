// chunkproof bench: throughput of the CPU numerics check (reference/mla), exact vs vLLM path,
// single-threaded and with more threads. `--device gpu` goes to the GPU backend.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <thread>

#include "reference/mla/check.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {
namespace cmd_bench {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(Times `chunkproof check` on the CPU for each case: the exact path alone, the vLLM-style path
alone, and both, with 1 thread and with --jobs threads (heads split across std::threads). Prints
seconds per case and context tokens per second (context rows of the case / wall time).
--device gpu goes to the GPU backend (its own options: chunkproof bench --device gpu --help).)";

constexpr const char* kFooter = R"(Default case: the small test shape,
  'version=v6-current platform=cuda workspace=2048 block=16 dcp=4 interleave=4 ctx=8000,2000,500 q=4,4,4'
--deepseek adds dims=deepseek-v3 (L=512, Rr=64, Pn=128, Vd=128, 128 heads) with a 64K context
(minutes on 2 cores). Results and commands for this machine are recorded in docs/numerics.md.
JSON (--json): one chunkproof.bench/1 object (docs/json.md).
exit: 0, 1 if a timed case does not check clean, 2 bad input, 4 --device gpu without a GPU.
)";

constexpr const char* kSmall =
    "version=v6-current platform=cuda workspace=2048 block=16 dcp=4 interleave=4 ctx=8000,2000,500 q=4,4,4";
constexpr const char* kDeepseek =
    "version=v6-current platform=cuda workspace=65536 block=64 dcp=8 interleave=1 ctx=65536 q=4 dims=deepseek-v3";

int run(Args args) {
  // The GPU backend has its own options: hand it everything.
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool gpu =
        args[i] == "--device=gpu" || (args[i] == "--device" && i + 1 < args.size() && args[i + 1] == "gpu");
    if (!gpu) continue;
    if (!gpu_hooks().bench) no_gpu_backend("bench");
    return gpu_hooks().bench(args);
  }
  CLI::App app{kDescription, "chunkproof bench"};
  configure(app, kFooter);
  CaseArgs ca;
  bool deepseek = false, json = false;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int repeat = 1;
  std::string device = "cpu";
  std::uint64_t max_memory = 0;
  add_case_options(app, ca);
  app.add_flag("--deepseek", deepseek, "add the DeepSeek-V3 64K-context case");
  add_jobs(app, threads, "the multi-threaded column (default: hardware threads)");
  app.add_option("--repeat", repeat, "runs per measurement, the fastest is kept")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--device", device, "cpu | gpu")->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_flag("--json", json, "machine-readable output");
  add_max_memory(app, max_memory);
  if (!parse(app, args)) return kExitOk;
  std::vector<CaseJob> cases = parse_jobs(collect_cases(ca, false));
  if (cases.empty()) cases.push_back({parse_case(kSmall), "default", std::nullopt});
  if (deepseek) cases.push_back({parse_case(kDeepseek), "--deepseek", std::nullopt});
  for (const auto& j : cases) check_memory(j.c, true, max_memory);

  int rc = kExitOk;
  Json out{{"schema", "chunkproof.bench/1"}, {"cases", Json::array()}};
  if (!json)
    std::cout << std::left << std::setw(8) << "path" << std::setw(9) << "threads" << std::right << std::setw(12)
              << "s/case" << std::setw(16) << "ctx tokens/s"
              << "\n";
  for (const auto& job : cases) {
    const Case& c = job.c;
    Json cj{{"case", print_case(c)}, {"runs", Json::array()}};
    if (!json) std::cout << "case: " << print_case(c) << "\n";
    for (const char* path : {"exact", "vllm", "both"}) {
      const std::vector<int> columns = threads == 1 ? std::vector<int>{1} : std::vector<int>{1, threads};
      for (int t : columns) {
        mla::CheckOptions opts;
        opts.exact = std::string(path) != "vllm";
        opts.vllm = std::string(path) != "exact";
        opts.threads = t;
        double best = 1e300;
        mla::CheckResult last;
        for (int k = 0; k < repeat; ++k) {
          const auto t0 = std::chrono::steady_clock::now();
          last = mla::run_check(c, opts);
          best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        const bool clean = last.exit_code() == 0;
        if (!clean) rc = kExitFinding;
        const double tps = static_cast<double>(last.context_rows) / best;
        cj["runs"].push_back(Json{{"path", path},
                                  {"threads", t},
                                  {"seconds", best},
                                  {"context_tokens_per_second", tps},
                                  {"clean", clean},
                                  {"verdict", last.one_line()}});
        if (json) continue;
        if (!clean) std::cout << "  (not clean: " << last.one_line() << ")\n";
        std::cout << std::left << std::setw(8) << path << std::setw(9) << t << std::right << std::fixed
                  << std::setprecision(4) << std::setw(12) << best << std::setprecision(0) << std::setw(16) << tps
                  << "\n"
                  << std::flush;
      }
    }
    out["cases"].push_back(std::move(cj));
  }
  if (json) {
    out["repeat"] = repeat;
    out["exit_code"] = rc;
    print_json(std::cout, out);
  }
  return rc;
}

const RegisterCommand reg{"bench", "throughput of the CPU numerics check (exact vs vLLM path, threads)", run};

}  // namespace
}  // namespace cmd_bench
}  // namespace cp::cli
