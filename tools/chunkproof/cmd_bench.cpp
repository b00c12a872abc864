// chunkproof bench: throughput of the CPU numerics check (reference/mla), exact vs vLLM path,
// single-threaded and with more threads. `--device gpu` goes to the GPU backend.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <thread>

#include "reference/mla/check.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {
namespace {

constexpr const char* kHelp = R"(usage: chunkproof bench [--case LINE]... [--deepseek] [--threads T] [--repeat N]
       chunkproof bench --device gpu ...   (forwarded to the GPU backend when one is built)

Times `chunkproof check` on the CPU for each case: the exact path alone, the vLLM-style path
alone, and both, with 1 thread and with T threads (heads split across std::threads). Prints
seconds per case and context tokens per second (context rows of the case / wall time).

  --case LINE   a case to time (repeatable). Default: the small test shape,
                'version=v6-current platform=cuda workspace=2048 block=16 dcp=4 interleave=4
                 ctx=8000,2000,500 q=4,4,4'
  --deepseek    add dims=deepseek-v3 (L=512, Rr=64, Pn=128, Vd=128, 128 heads) with a 64K
                context: 'version=v6-current platform=cuda workspace=65536 block=64 dcp=8
                interleave=1 ctx=65536 q=4 dims=deepseek-v3' (minutes on 2 cores)
  --threads T   the multi-threaded column (default: hardware threads)
  --repeat N    runs per measurement, the fastest is kept (default 1)

Results and commands for this machine are recorded in docs/numerics.md.
exit: 0, or 1 if a timed case does not check clean.
)";

constexpr const char* kSmall =
    "version=v6-current platform=cuda workspace=2048 block=16 dcp=4 interleave=4 ctx=8000,2000,500 q=4,4,4";
constexpr const char* kDeepseek =
    "version=v6-current platform=cuda workspace=65536 block=64 dcp=8 interleave=1 ctx=65536 q=4 dims=deepseek-v3";

int run(Args args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool gpu =
        args[i] == "--device=gpu" || (args[i] == "--device" && i + 1 < args.size() && args[i + 1] == "gpu");
    if (!gpu) continue;
    if (gpu_hooks().bench) return gpu_hooks().bench(args);
    std::cerr << "chunkproof bench: no GPU backend in this build (configure with a CUDA or HIP compiler; "
                 "see kernels/CMakeLists.txt)\n";
    return kExitUsage;
  }
  if (wants_help(args)) {
    std::cout << kHelp;
    return kExitOk;
  }
  // Options keeps the last --case; collect every one by hand first.
  std::vector<std::string> cases;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--case" && i + 1 < args.size())
      cases.push_back(args[i + 1]);
    else if (args[i].rfind("--case=", 0) == 0)
      cases.push_back(args[i].substr(7));
  }
  Options o(args, {"--deepseek"}, {"--case", "--threads", "--repeat", "--device"});
  if (o.get_or("--device", "cpu") != "cpu") throw UsageError("--device expects cpu or gpu");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const int threads = static_cast<int>(o.get_int("--threads", hw, 1, 256));
  const int repeat = static_cast<int>(o.get_int("--repeat", 1, 1, 1000));
  if (cases.empty()) cases.push_back(kSmall);
  if (o.has("--deepseek")) cases.push_back(kDeepseek);

  int rc = kExitOk;
  std::cout << std::left << std::setw(8) << "path" << std::setw(9) << "threads" << std::right << std::setw(12)
            << "s/case" << std::setw(16) << "ctx tokens/s"
            << "\n";
  for (const auto& line : cases) {
    const Case c = parse_case(line);
    std::cout << "case: " << print_case(c) << "\n";
    for (const char* path : {"exact", "vllm", "both"}) {
      for (int t : {1, threads}) {
        if (t == threads && threads == 1) continue;
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
        if (last.exit_code() != 0) {
          rc = kExitFinding;
          std::cout << "  (not clean: " << last.one_line() << ")\n";
        }
        std::cout << std::left << std::setw(8) << path << std::setw(9) << t << std::right << std::fixed
                  << std::setprecision(4) << std::setw(12) << best << std::setprecision(0) << std::setw(16)
                  << static_cast<double>(last.context_rows) / best << "\n"
                  << std::flush;
      }
    }
  }
  return rc;
}

const RegisterCommand reg{"bench", "throughput of the CPU numerics check (exact vs vLLM path, threads)", run};

}  // namespace
}  // namespace cp::cli
