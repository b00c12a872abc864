// The main job (`chunkproof demo`): stages register themselves (stage_*.cpp), each returns
// rows of the summary table with the expected and the observed verdict.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cp::cli {

struct StageRow {
  std::string item;      // what was checked (a case name, a target, ...)
  std::string expected;  // the verdict the spec predicts
  std::string got;       // what chunkproof observed
  bool as_expected = true;
  bool skipped = false;  // the stage could not run here (no GPU, ...): says why in `got`
  std::string detail;    // a case line or a command to reproduce

  // A stage that cannot run on this machine: one row saying why.
  static StageRow skipped_because(std::string item, std::string expected, std::string why) {
    StageRow r;
    r.item = std::move(item), r.expected = std::move(expected), r.got = std::move(why), r.skipped = true;
    return r;
  }
};

struct DemoOptions {
  bool quick = false;    // shorter budgets (CI smoke test of the demo itself)
  std::string work_dir;  // scratch space for stages that write files
};

struct DemoStage {
  int order;
  std::string_view name;
  std::function<std::vector<StageRow>(const DemoOptions&)> run;
};
std::vector<DemoStage>& demo_stages();
struct RegisterDemoStage {
  RegisterDemoStage(int order, std::string_view name, std::function<std::vector<StageRow>(const DemoOptions&)> run) {
    demo_stages().push_back({order, name, std::move(run)});
  }
};

}  // namespace cp::cli
