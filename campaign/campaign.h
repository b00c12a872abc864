// The fuzz campaign runner behind `chunkproof fuzz` and the demo's fuzz stage: runs a target
// under libFuzzer (fork mode) or the built-in in-process engine, keeps corpus and findings on
// disk so a killed campaign resumes, de-duplicates findings by signature (version, platform,
// invariant and cause), minimizes each to a short case line, and writes report.md and
// report.json atomically.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "reference/planner/versions.h"

namespace cp::fuzz {

struct CampaignOptions {
  std::string target = "planner";     // planner | dcp_index | case_parser | merge
  std::vector<std::string> versions;  // empty: every version
  std::string platform = "both";      // cuda | rocm | both
  double max_time = 3600;             // seconds of fuzzing (minimization and the report come after)
  int jobs = 1;
  std::string corpus_dir;            // default <findings dir>/corpus
  std::string findings_dir;          // the campaign folder; default default_campaign_dir()
  std::string fuzzer_bin;            // a binary or a directory holding <target>_fuzz
  std::string engine = "libfuzzer";  // libfuzzer | builtin (in-process random search, planner only)
  std::string expect_correct = joined_names(expected_correct_versions());  // the rows' expected_correct
  std::string stop_on;                                                     // CHUNKPROOF_FUZZ_STOP_ON
  std::string pins;  // "block=64,dcp=8" (reference/caseio/pins.h): CHUNKPROOF_FUZZ_PINS; minimization keeps them
  bool differential = false;
  std::uint64_t seed = 0;        // 0: libFuzzer picks / time-based
  double minimize_seconds = 20;  // per finding
  bool status_line = true;       // live status line on stderr
  std::string command_line;      // for the report
  // --planner-cmd (docs/live.md): the built-in engine sends every case to this external planner
  // and judges its plan (live/live.h) instead of chunkproof's model; with planner_diff, every
  // plan is also diffed against the model of the case's version. The campaign folder defaults
  // to live-<versions>-<platform>, apart from the model's campaigns.
  std::string planner_cmd;
  bool planner_diff = false;
  double planner_timeout = 10;
};

struct CampaignFinding {
  std::string signature;
  std::string invariant;  // I-x, "assert", or "crash"
  std::string kind;       // finding | crash
  std::string case_line;  // minimized
  std::string original_line;
  std::string detail;
  std::string replay;  // a command that reproduces it
  std::string file;    // minimized record on disk
  bool reproduced = false;
  bool is_new = false;  // first seen in this run
  int minimize_evaluations = 0;
};

// Findings of one root cause (issue 24): the version and platform, and the assert's condition (its
// stage aside), the crash, or the first invariant violated in catalogue order (the record's
// `# invariant:`). Raw signatures that differ only in the other invariants a bad chunk width
// breaks along with it ("I-6" / "I-5,I-6" / "I-4,I-6,I-7") are one bug in the report.
std::string root_cause(const CampaignFinding& f);
struct FindingGroup {
  std::string root_cause;
  // Indices into the findings, the representative first: fewest requests, then the shortest
  // case line (a record without a case line last).
  std::vector<std::size_t> members;
};
// Groups in the order of their representatives' first appearance.
std::vector<FindingGroup> group_findings(const std::vector<CampaignFinding>& findings);

struct CampaignStats {
  std::int64_t executions = 0;
  double seconds = 0;
  double exec_per_s = 0;
  std::int64_t coverage = 0;  // libFuzzer cov: (edges)
  std::int64_t features = 0;  // ft:
  std::int64_t corpus = 0;    // files in the corpus dir
  std::int64_t crashes = 0;
};

struct CampaignResult {
  int exit_code = 0;  // 0 no finding, 1 findings, 2 usage/setup error, 3 nothing executed
  bool interrupted = false;
  std::string engine;
  std::string fuzzer;
  CampaignStats run;         // this run
  CampaignStats cumulative;  // every run of this campaign directory
  int runs = 0;
  std::vector<CampaignFinding> findings;
  std::string report_md, report_json;
  int pending_artifacts = 0;      // crash artifacts left for the next run (interrupted)
  std::vector<std::string> maps;  // violation maps (SVG, beside them PNG when drawn) linked from report.md
  std::string error;              // with exit_code 2
};

// Where the libFuzzer build of `<target>_fuzz` is; "" with `searched` listing where it looked.
std::string locate_fuzzer(const std::string& target, const std::string& hint, std::vector<std::string>& searched);
// Configures the `fuzz` preset in the source tree this chunkproof was built from and builds
// `<target>_fuzz` (its progress on stderr): the binary's path, or "" with `why`.
std::string build_fuzzer_on_demand(const std::string& target, std::string& why);

// The default campaign folder: $CHUNKPROOF_FUZZ_HOME (else the user's data folder,
// $XDG_DATA_HOME/chunkproof/fuzz or ~/.local/share/chunkproof/fuzz) /
// <target>-<versions>-<platform>[-pinned-<pins>]; "" when no such folder can be named.
// Independent of the current directory, so the same command resumes the same campaign from anywhere.
std::string default_campaign_dir(const std::string& target, const std::string& versions, const std::string& platform,
                                 const std::string& pins = "");

// Runs one campaign. Exit 2 (with `error`) on a bad setup: no fuzzer build, corpus and findings
// folders that overlap, or a campaign folder another runner holds (named in the message).
// libFuzzer and every process it starts end with the caller, even when it is SIGKILLed.
CampaignResult run_campaign(const CampaignOptions& opt, std::ostream& log);

}  // namespace cp::fuzz
