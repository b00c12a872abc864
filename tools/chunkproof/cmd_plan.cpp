// chunkproof plan: the workspace size, the chunk plan, the DCP local plan and every
// invariant's verdict for one case line.
#include <iostream>

#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {
namespace {

constexpr const char* kHelp = R"(usage: chunkproof plan --case '<case line>' [--json] [--rows N]

Runs a planner version on one case: workspace sizing, the per-step chunk plan (global
starts/lengths, cu_seq_lens), the DCP local plan (local starts, padded local lengths,
per-rank local context lengths, reorg's kept rows), the version's own asserts, and every
invariant of the catalogue (`chunkproof invariants`) with an explanation of each violation.

  --case LINE   the case (keys: see below), e.g.
                'version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1
                 ctx=30000,30000,30000 q=16,16,16'
  --json        machine-readable output (schema in docs/plan-json.md)
  --rows N      rows of the chunk table before it is summarised (default 40)

exit: 0 every invariant holds and no assert fires, 1 an assert fires or an invariant is
violated, 2 bad input.

case keys:
)";

int run(Args args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    for (const auto& k : case_keys()) std::cout << "  " << k.key << std::string(16 - k.key.size(), ' ') << k.help << "\n";
    return kExitOk;
  }
  Options o(args, {"--json"}, {"--case", "--rows"});
  auto line = o.get("--case");
  if (!line && !o.positional().empty()) line = o.positional().front();
  if (!line) throw UsageError("missing --case '<case line>'");
  const auto rows = static_cast<std::size_t>(o.get_int("--rows", 40, 8, 1000000));
  const Evaluation ev = evaluate(parse_case(*line));
  if (o.has("--json")) print_plan_json(std::cout, ev);
  else print_plan_text(std::cout, ev, rows);
  return ev.exit_code();
}

const RegisterCommand reg{"plan", "plan one case and check every invariant", run};

}  // namespace
}  // namespace cp::cli
