// Demo stage "fuzz": two short campaigns (campaign/campaign.h) — a legacy version, where a
// finding and its case line appear within seconds, and v6-current, where none is expected.
// Uses the libFuzzer build when one is found (chunkproof fuzz --help: where it looks), else the
// built-in in-process random search, and says which.
#include <filesystem>
#include <sstream>
#include <streambuf>

#include "campaign/campaign.h"
#include "tools/chunkproof/demo.h"

namespace cp::cli {
namespace stage_fuzz {  // one per file: the unity build puts several files in one TU
namespace {

struct NullBuf : std::streambuf {
  int overflow(int c) override { return c; }
};

struct Campaign {
  const char* item;
  std::vector<std::string> versions;
  const char* platform;
  const char* expected;
  const char* want;  // a signature substring that must appear; "" = no finding expected
};

std::vector<StageRow> run(const DemoOptions& d) {
  const Campaign campaigns[] = {
      {"v1-dcp/rocm (MI300X family)",
       {"v1-dcp"},
       "rocm",
       "finding: per-step assert M % W",
       "assert[plan]: max_context_chunk % dcp_world_size == 0"},
      {"v6-current/cuda+rocm", {"v6-current"}, "both", "no finding", ""},
  };
  std::vector<std::string> searched;
  const bool have_libfuzzer = !fuzz::locate_fuzzer("planner", "", searched).empty();
  std::vector<StageRow> rows;
  for (const auto& c : campaigns) {
    fuzz::CampaignOptions opt;
    opt.versions = c.versions;
    opt.platform = c.platform;
    // The MI300X campaign stops at its finding (a fraction of a second); the clean one searches
    // for a few seconds: the tour shows both outcomes, overnight runs are `chunkproof fuzz`'s.
    opt.max_time = *c.want ? 15 : (d.quick ? 2 : 5);
    opt.stop_on = c.want;
    opt.jobs = 1;
    opt.engine = have_libfuzzer ? "libfuzzer" : "builtin";
    opt.seed = 1;
    opt.minimize_seconds = 2;  // per finding: the MI300X one shrinks in well under a second
    const std::filesystem::path dir =
        std::filesystem::path(d.work_dir.empty() ? "chunkproof-demo" : d.work_dir) / "fuzz" / c.versions.front();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);  // a fresh campaign: the finding appears in front of the user
    opt.corpus_dir = (dir / "corpus").string();
    opt.findings_dir = (dir / "findings").string();
    opt.command_line = "chunkproof fuzz --version " + c.versions.front() + " --platform " + c.platform +
                       " --max-time " + std::to_string(static_cast<int>(opt.max_time)) + " --jobs 1 --seed 1" +
                       (*c.want ? " --stop-on '" + std::string(c.want) + "'" : std::string()) +
                       (have_libfuzzer ? "" : " --engine builtin");
    NullBuf nb;
    std::ostream quiet(&nb);
    const fuzz::CampaignResult r = fuzz::run_campaign(opt, quiet);
    StageRow row;
    row.item = std::string(c.item) + (have_libfuzzer ? ", libFuzzer" : ", built-in search") +
               (*c.want ? ", to the finding" : " " + std::to_string(static_cast<int>(opt.max_time)) + " s");
    row.expected = c.expected;
    if (r.exit_code == 2) {
      row.got = "could not run: " + r.error;
      row.as_expected = false;
      rows.push_back(row);
      continue;
    }
    const fuzz::CampaignFinding* hit = nullptr;
    for (const auto& f : r.findings)
      if (*c.want && f.signature.find(c.want) != std::string::npos) hit = &f;
    std::ostringstream got;
    got << r.findings.size() << " finding(s) in " << r.run.executions << " execs";
    if (*c.want) {
      row.as_expected = hit != nullptr;
      got << (hit ? ", incl. the per-step assert" : ", per-step assert NOT found");
      if (hit) row.detail = "chunkproof plan --case '" + hit->case_line + "'";
    } else {
      row.as_expected = r.findings.empty();
      if (!r.findings.empty()) row.detail = r.findings.front().signature + ": " + r.findings.front().case_line;
    }
    if (row.detail.empty())
      row.detail = "report: " + r.report_md;
    else
      row.detail += "\n        report: " + r.report_md;
    if (!have_libfuzzer)
      row.detail += "\n        (libFuzzer targets not built yet: `chunkproof fuzz` builds them on first use)";
    row.got = got.str();
    rows.push_back(std::move(row));
  }
  return rows;
}

const RegisterDemoStage reg{20, "fuzz", run};

}  // namespace
}  // namespace stage_fuzz
}  // namespace cp::cli
