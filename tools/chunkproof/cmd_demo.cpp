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

namespace cmd_demo {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kDescription =
    R"(The built-in tour: every stage (plan verdicts on the notable cases, fuzzing, CPU bit-for-bit
numerics, proofs, GPU when present) on built-in defaults, then one summary table of what the
spec predicts against what chunkproof observed.)";

constexpr const char* kFooter = R"(JSON (--json): one chunkproof.demo/1 object with every row (docs/json.md); the stage
progress then stays off stdout.
exit: 0 every row as expected, 1 some row differs from the prediction, 2 usage.
)";

int run(Args args) {
  CLI::App app{kDescription, "chunkproof demo"};
  configure(app, kFooter);
  DemoOptions opts;
  std::string only;
  bool json = false;
  opts.work_dir = "chunkproof-demo";
  app.add_flag("--quick", opts.quick, "shorter budgets");
  app.add_option("--stage", only, "run one stage only");
  app.add_option("--work-dir", opts.work_dir, "scratch directory")->capture_default_str();
  app.add_flag("--json", json, "machine-readable output");
  if (!parse(app, args)) return kExitOk;
  auto stages = demo_stages();
  std::sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  if (!only.empty() && std::none_of(stages.begin(), stages.end(), [&](const auto& s) { return s.name == only; }))
    throw UsageError("no stage named '" + only + "'");
  require_writable_dir(opts.work_dir, "--work-dir");

  struct Done {
    std::string_view stage;
    StageRow row;
  };
  std::vector<Done> all;
  std::ostream& log = json ? std::cerr : std::cout;
  for (const auto& st : stages) {
    if (!only.empty() && st.name != only) continue;
    log << "== stage " << st.name << "\n" << std::flush;
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& r : st.run(opts)) {
      log << "  " << (r.skipped ? "skip" : r.as_expected ? " ok " : "DIFF") << "  " << r.item << ": " << r.got << "\n";
      if (!r.detail.empty()) log << "        " << r.detail << "\n";
      all.push_back({st.name, std::move(r)});
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    log << "  (" << std::fixed << std::setprecision(1) << s << " s)\n" << std::flush;
  }
  int bad = 0;
  for (const auto& d : all)
    if (!d.row.as_expected && !d.row.skipped) ++bad;
  const int rc = bad ? kExitFinding : kExitOk;
  if (json) {
    Json j{{"schema", "chunkproof.demo/1"}, {"rows", Json::array()}, {"unexpected", bad}, {"exit_code", rc}};
    for (const auto& d : all)
      j["rows"].push_back(Json{{"stage", d.stage},
                               {"item", d.row.item},
                               {"expected", d.row.expected},
                               {"observed", d.row.got},
                               {"as_expected", d.row.as_expected},
                               {"skipped", d.row.skipped},
                               {"detail", d.row.detail}});
    print_json(std::cout, j);
    return rc;
  }
  std::cout << "\nsummary\n";
  std::cout << "  " << std::left << std::setw(8) << "stage" << std::setw(44) << "item" << std::setw(34) << "expected"
            << "observed\n";
  for (const auto& d : all) {
    const std::string mark = d.row.skipped ? "SKIPPED " : d.row.as_expected ? "" : "UNEXPECTED ";
    std::cout << "  " << std::setw(8) << d.stage << std::setw(44) << d.row.item.substr(0, 43) << std::setw(34)
              << d.row.expected.substr(0, 33) << mark << d.row.got << "\n";
  }
  std::cout << std::right << "\n" << all.size() << " row(s), " << bad << " unexpected\n";
  return rc;
}

const RegisterCommand reg{"demo", "the built-in tour: every stage on defaults, one summary table", run};

}  // namespace
}  // namespace cmd_demo
}  // namespace cp::cli
