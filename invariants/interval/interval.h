// Interval-level evaluation of the invariant catalogue (issue 11): every invariant decided in
// O(chunks x requests x W) from the plan's intervals, independent of context length.
//
// The token-level checks (invariants/*.cpp on reference/dcp/simulate.*) stay the oracle. Only
// two of them walk tokens: I-9 (reorg exactness, through simulate_chunk) and I-11 (the slot
// mapping compared with the ownership formula position by position). Here I-9 is computed from
// the closed-form ownership and local-length formulas of reference/dcp/ownership.h: a rank's
// gathered rows are the positions it owns with local index in an interval, so "how many of a
// request's positions does this run of rows hold" is a difference of two dcp_local_len() values.
// I-11 reduces to its precondition (I | B), under which the identity is a theorem (see
// interval.cpp). Every other check is already interval level and is shared unchanged.
//
// fuzz_interval_diff.cpp asserts that both levels give the same verdicts, counts and violation
// records on inputs small enough to enumerate.
#pragma once

#include <cstdint>
#include <vector>

#include "invariants/catalogue.h"

namespace cp::interval {

// What one chunk entry received (I-9), as counts: the quantities behind the verdict.
struct EntryCounts {
  int chunk = -1;
  int entry = -1;
  int request = -1;
  std::int64_t foreign = 0;    // rows that are not one of its own context positions of the span
  std::int64_t duplicate = 0;  // own positions received more than once (every extra copy)
  std::int64_t missing = 0;    // span positions never received
  std::int64_t first_bad_row = -1;
  friend bool operator==(const EntryCounts&, const EntryCounts&) = default;
};

// I-9 at interval level. Allocation-free after the first calls (thread-local scratch) unless a
// violation is recorded (its text is built then).
InvariantResult check_I9(const Case& c, const Plan& p);
// I-11 at interval level: O(1).
InvariantResult check_I11(const Case& c, const Plan& p);
// Any invariant: I-9 and I-11 from this file, the others from the catalogue's own checks.
InvariantResult check(InvariantId id, const Case& c, const Plan& p);

// Per-entry I-9 counts of every chunk, interval level and token level (simulate_chunk).
std::vector<EntryCounts> reorg_counts(const Case& c, const Plan& p);
std::vector<EntryCounts> reorg_counts_token(const Case& c, const Plan& p);

// Like cp::evaluate() (make_plan, every check, the outcome), at interval level.
Evaluation evaluate(const Case& c);
// The same on a plan already made (evaluate()'s outcome rule); `out` is reused.
void evaluate_plan(const Case& c, const Plan& p, std::vector<InvariantResult>& out, Outcome& outcome);

}  // namespace cp::interval
