// `chunkproof diff`'s comparison: an external plan against chunkproof's model of the same
// version and case, field by field, in the plan schema's own field names and indices
// (docs/plan-json.md), so each disagreement names what a reader of both JSON documents sees.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reference/planner/plan.h"

namespace cp::live {

struct FieldDiff {
  std::string field;   // "chunks[1].requests[0].len"
  std::string ours;    // the model's value
  std::string theirs;  // the external plan's value
};
// The field with its indices dropped ("chunks[].requests[].len"): what a finding is keyed by.
std::string generic_field(const std::string& field);

struct PlanDiff {
  std::vector<FieldDiff> diffs;  // the first `max` disagreements, in schema order
  std::size_t total = 0;
};
// Compares the planner's decisions: sizing, batch split, planner parameters, every chunk and
// span (DCP local plan and kept rows included), the merge bookkeeping, and under PCP every
// rank's rows and collectives (pcp.ranks[]). Asserts are compared by
// the caller (live.h), which knows how the external planner reported them.
PlanDiff diff_plans(const Plan& ours, const Plan& theirs, std::size_t max = 16);

}  // namespace cp::live
