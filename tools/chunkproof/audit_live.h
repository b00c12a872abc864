// audit --planner-cmd (docs/live.md): the audit's batch search sent through the user's planner
// instead of chunkproof's model. Each batch the search builds goes through live::run_live (the
// plan checked with the invariants and, with --version, diffed against the model of that
// version); what the planner gets wrong is kept by kind, each with the first and the smallest
// case line. The Z3 part of the audit stays on the model (cmd_audit.cpp says so in its output).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "tools/chunkproof/live_cli.h"

namespace cp::cli {

struct AuditLive {
  LiveArgs args;
  std::unique_ptr<live::ExternalPlanner> planner;
  struct Kind {
    long long batches = 0;
    std::string first;  // the case line of the first batch of this kind
  };
  std::map<std::string, Kind> kinds;      // finding signature -> batches
  std::optional<live::LiveResult> worst;  // fewest requests, then least context
  long long cases = 0;                    // batches sent to the planner
};

// Starts the planner of `args` (nullptr without --planner-cmd; UsageError as start_planner).
std::unique_ptr<AuditLive> start_audit_live(const LiveArgs& args);
// One batch through the planner, judged at the interval level (as the model's search); the
// finding's signature, or nothing when the planner's plan holds. Throws CaseError /
// ArithmeticError when the model cannot plan the batch (the search skips it).
// The audit's order of witnesses: the smaller batch is the better one (fewer requests, then less
// context), for the model's search and the planner's alike.
bool smaller_batch(const Case& a, const Case& b);

std::optional<std::string> audit_live_batch(AuditLive& l, const Case& c);
// "chunkproof plan --planner-cmd '...' [--version V] --case '...'": the replay of a case line.
std::string audit_live_replay(const AuditLive& l, const Case& c);
// The "live" object of chunkproof.audit/1: the command, the version diffed against, the cases
// sent, the planner's (re)starts, every kind with its count and first case line, the worst.
Json audit_live_json(const AuditLive& l);
// Text: "through" (the command), then the worst batch, its finding and its replay line.
void print_audit_live_text(std::ostream& os, const AuditLive& l);

}  // namespace cp::cli
