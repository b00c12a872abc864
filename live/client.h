// The external planner as one persistent child (docs/live.md): started once with /bin/sh -c
// CMD, fed one request line per case, read one reply line per request, under a watchdog. A
// child that exits, hangs past its timeout or prints a line that is not JSON is killed (its
// whole process group) and started again on the next request, so a campaign goes on; the
// exchange says what happened. The child's stderr goes to a file whose tail comes with a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "live/protocol.h"

namespace cp::live {

struct PlannerOptions {
  std::string command;           // a shell command line
  double timeout_s = 10;         // per reply
  double start_timeout_s = 120;  // the first reply after a (re)start: the planner's imports
  std::size_t max_line = std::size_t{64} << 20;
};

// One request and its reply.
struct Exchange {
  enum Kind {
    plan,     // a chunkproof.plan/3 object (`reply.plan`)
    error,    // the planner's own assert or exception (`reply.error`)
    schema,   // JSON, but not the protocol's (`message` names the field); the child is kept
    garbage,  // a line that is not JSON, or over max_line; the child is restarted
    timeout,  // no reply within the timeout; the child is killed and restarted
    exited,   // the child exited or was killed before replying; restarted on the next request
  } kind = plan;
  Reply reply;
  std::string message;      // for every kind but plan and error: what went wrong, in one line
  std::string stderr_tail;  // timeout / exited / garbage: the last lines the child wrote to stderr
  double seconds = 0;       // wall time of the exchange
};
std::string_view name(Exchange::Kind k);

// The planner said it cannot run on this machine: it exited 4 (docs/live.md; an adapter whose
// engine functions are missing) before its first reply. Not a finding: the command exits 4.
struct PlannerCannotRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ExternalPlanner {
 public:
  explicit ExternalPlanner(PlannerOptions opt);
  ~ExternalPlanner();
  ExternalPlanner(const ExternalPlanner&) = delete;
  ExternalPlanner& operator=(const ExternalPlanner&) = delete;

  // Sends case `c` (starting the child if it is not running) and reads its reply. Throws
  // PlannerCannotRun when a freshly started planner exits 4 without replying.
  Exchange ask(const Case& c);
  // The command line as given, the number of (re)starts and of requests so far.
  const std::string& command() const;
  int starts() const;
  std::int64_t requests() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cp::live
