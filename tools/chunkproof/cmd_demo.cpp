// chunkproof demo: the README's main job. Runs every registered stage on built-in
// defaults and prints one summary table of expected vs observed verdicts.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/demo.h"

namespace cp::cli {

std::vector<DemoStage>& demo_stages() {
  static std::vector<DemoStage> stages;
  return stages;
}

namespace {

constexpr const char* kHelp = R"(usage: chunkproof demo [--quick] [--stage NAME] [--work-dir DIR]

The built-in tour: every stage (plan verdicts on the notable cases, fuzzing, CPU bit-for-bit
numerics, proofs, GPU when present) on built-in defaults, then one summary table of what the
spec predicts against what chunkproof observed.

  --quick         shorter budgets
  --stage NAME    run one stage only
  --work-dir DIR  scratch directory (default: ./chunkproof-demo)

exit: 0 every row as expected, 1 some row differs from the prediction, 2 usage.
)";

int run(Args args) {
  if (wants_help(args)) { std::cout << kHelp; return kExitOk; }
  Options o(args, {"--quick"}, {"--stage", "--work-dir"});
  DemoOptions opts;
  opts.quick = o.has("--quick");
  opts.work_dir = o.get_or("--work-dir", "chunkproof-demo");
  std::filesystem::create_directories(opts.work_dir);
  auto stages = demo_stages();
  std::sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  const auto only = o.get("--stage");
  if (only && std::none_of(stages.begin(), stages.end(), [&](const auto& s) { return s.name == *only; }))
    throw UsageError("no stage named '" + *only + "'");

  struct Done { std::string_view stage; StageRow row; };
  std::vector<Done> all;
  for (const auto& st : stages) {
    if (only && st.name != *only) continue;
    std::cout << "== stage " << st.name << "\n" << std::flush;
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& r : st.run(opts)) {
      std::cout << "  " << (r.skipped ? "skip" : r.as_expected ? " ok " : "DIFF") << "  " << r.item << ": " << r.got << "\n";
      if (!r.detail.empty()) std::cout << "        " << r.detail << "\n";
      all.push_back({st.name, std::move(r)});
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "  (" << std::fixed << std::setprecision(1) << s << " s)\n" << std::flush;
  }

  std::cout << "\nsummary\n";
  std::cout << "  " << std::left << std::setw(8) << "stage" << std::setw(44) << "item" << std::setw(34) << "expected"
            << "observed\n";
  int bad = 0;
  for (const auto& d : all) {
    const std::string mark = d.row.skipped ? "SKIPPED " : d.row.as_expected ? "" : "UNEXPECTED ";
    std::cout << "  " << std::setw(8) << d.stage << std::setw(44) << d.row.item.substr(0, 43) << std::setw(34)
              << d.row.expected.substr(0, 33) << mark << d.row.got << "\n";
    if (!d.row.as_expected && !d.row.skipped) ++bad;
  }
  std::cout << std::right << "\n" << all.size() << " row(s), " << bad << " unexpected\n";
  return bad ? kExitFinding : kExitOk;
}

const RegisterCommand reg{"demo", "the built-in tour: every stage on defaults, one summary table", run};

}  // namespace
}  // namespace cp::cli
