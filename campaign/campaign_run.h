// The campaign runner's inside (campaign.h is its outside): one CampaignRun, the state every
// stage of run_campaign reads and writes, and the stages in the order they run —
//   prepare       (campaign.cpp)    folders, the lock, the targets' configuration, the totals so far
//   run engine    (supervise.cpp)   libFuzzer under supervision, or the built-in random search
//   collect       (collect.cpp)     the targets' records and libFuzzer's artifacts, minimized
//   draw maps     (collect.cpp)     the violation maps of every selected version and platform
//   write report  (report.cpp)      the totals checkpointed, report.md and report.json
// Each stage returns false where the campaign ends with res.exit_code 2 (res.error says why).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "campaign/campaign.h"
#include "fuzz/common/case_codec.h"
#include "fuzz/common/findings.h"
#include "fuzz/common/judge.h"
#include "live/client.h"
#include "reference/proc/subprocess.h"

namespace cp::fuzz {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The totals of every earlier run of a campaign folder (<findings>/campaign.state).
struct CampaignTotals {
  int runs = 0;
  std::int64_t executions = 0;
  double seconds = 0;
  std::int64_t coverage = 0, features = 0;
  // Executions of the targets' log (findings/.execs) already in `executions`: a run killed after
  // its last checkpoint leaves the log behind, and the next run adds what it holds beyond this.
  std::int64_t execs_log_counted = 0;
};
CampaignTotals load_totals(const fs::path& p);
void save_totals(const fs::path& p, const CampaignTotals& s);

// An exclusive lock on a campaign folder (flock on <dir>/.lock, released by the kernel when the
// holder dies). The file names the holder.
class FolderLock {
 public:
  FolderLock() = default;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();
  bool acquire(const fs::path& dir, const std::string& command, std::string& holder);

 private:
  int fd_ = -1;
};

struct CampaignRun {
  CampaignRun(const CampaignOptions& o, std::ostream& l) : opt(o), log(l) {}
  const CampaignOptions& opt;
  std::ostream& log;
  CampaignResult res;

  // prepare
  std::string vers;  // the versions as named in folder names and the report ("all" for every one)
  fs::path findings, corpus, raw, crashes, minimized, corpus_root, state_file, exec_log;
  FolderLock lock;
  TargetConfig cfg;  // the same configuration the target reads from its environment
  proc::Env env;     // that environment
  Selection sel = Selection::all();
  // The verdict on one case, for every stage (the engine, minimization, the records' replay):
  // judge() with cfg, or with --planner-cmd the external planner's (live_judge.h).
  std::function<Judgement(const Case&, const FindingSink*)> judge_case;
  std::unique_ptr<live::ExternalPlanner> planner;
  std::set<std::string> known_before;  // minimized records before this run
  CampaignTotals base, totals;         // every earlier run; with this one (checkpointed)

  // run engine
  std::string fuzzer;  // the libFuzzer binary, "" for the built-in engine
  Clock::time_point t0;
  double last_checkpoint = 0, checkpoint_every = 15;
  std::int64_t exec_log_total = 0;  // executions the targets logged in .execs
  std::streamoff exec_log_offset = 0;
  bool tty = false;
  double last_plain = 0;
  std::int64_t crashes_at_signal = -1;  // fork mode counts the job a Ctrl-C stops as a crash

  // collect, draw maps
  double minimize_budget = 0;                          // per finding; 0 after Ctrl-C
  std::vector<std::pair<std::string, fs::path>> maps;  // label, SVG
  std::string png_note;                                // why a map has no PNG ("" when every one has)

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0).count(); }
};

// Stages (see above), in the order run_campaign calls them.
bool prepare_folders(CampaignRun& run);
bool prepare_config(CampaignRun& run);
bool run_engine(CampaignRun& run);
void collect_findings(CampaignRun& run);
void draw_maps(CampaignRun& run);
void list_findings(CampaignRun& run);
void write_reports(CampaignRun& run);

// This run's totals into the state file (also every checkpoint_every seconds while fuzzing).
void checkpoint(CampaignRun& run, const CampaignStats& stats, double seconds);

// Supervision (supervise.cpp): a child's output read until it closes, on_output given each
// chunk and on_tick called after every poll (at least every 200 ms); the caller reaps it.
void pump_output(proc::Child& child, const std::function<void(const char*, std::size_t)>& on_output,
                 const std::function<void()>& on_tick);
// Runs a command to completion (with a time limit) and returns its exit status and output
// (-1: it did not start).
int run_capture(const std::vector<std::string>& argv, const proc::Env& env, double timeout_s, std::string& out);

// The replay command of a finding's case line: `chunkproof plan` (with --planner-cmd's options).
std::string replay_command(const CampaignRun& run, const std::string& case_line);

// Small helpers shared by the stages.
std::string now_iso();
std::string join(const std::vector<std::string>& v, const std::string& sep);
std::int64_t count_files(const fs::path& dir);
bool stop_requested();

}  // namespace cp::fuzz
