// --planner-cmd on the CLI (docs/live.md): the option block every command that plans cases
// adds, and the one runner that sends a command's cases through the external planner and
// reports each result (plan, replay, diff). One place, so the commands' own files change by a
// line or two.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "live/live.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {

struct LiveArgs {
  std::string planner_cmd;  // --planner-cmd
  std::string version;      // --version: diff against chunkproof's model of it
  double timeout = 10;      // --planner-timeout
  bool active() const { return !planner_cmd.empty(); }
};
// --planner-cmd, --planner-timeout and, with `with_version`, --version (only with --planner-cmd).
void add_live_options(CLI::App& app, LiveArgs& a, bool with_version = true);
// The planner, started on its first case; UsageError for --version without --planner-cmd or an
// unknown version.
std::unique_ptr<live::ExternalPlanner> start_planner(const LiveArgs& a);
// The case as sent: with --version, its version replaced.
Case live_case(const LiveArgs& a, Case c);
bool diffing(const LiveArgs& a);

// One chunkproof.live/1 object (docs/live.md): the case, the exchange, the finding's signature
// and detail, the diff, and "plan": the external plan as `plan --json` prints it (null when no
// plan came).
Json live_json(const live::LiveResult& r);
// Text: the external plan as `plan` prints it, then the planner's answer and every disagreement.
void print_live_text(std::ostream& os, const live::LiveResult& r, std::size_t rows);
// One line: "<origin>  ok|FINDING <signature> — <detail>".
std::string live_line(const live::LiveResult& r, const std::string& origin);

// How a command shows its results.
struct LiveRunOptions {
  bool json = false, summary = false, quiet = false;
  std::size_t rows = 40;
};
// Every job through the planner; exit 1 when any is a finding (or misses its expectation).
int run_jobs_live(const std::vector<CaseJob>& jobs, const LiveArgs& a, const LiveRunOptions& o);

}  // namespace cp::cli
