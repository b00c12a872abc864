// What evaluating a case costs, roughly, before anything is planned: the fuzzers skip inputs
// above a bound (valid, only slow) and the violation maps leave such cells out. No
// FuzzedDataProvider here, so `chunkproof map` builds on machines without clang's fuzzer headers.
#pragma once

#include <cstdint>

#include "reference/caseio/case.h"

namespace cp::fuzz {

// The unit a packed plan aligns splits to: lcm(B, I*W) with DCP, B without.
std::int64_t alignment_unit(const Case& c);

// Rough count of chunk entries the version's planner would build: inputs above a bound are
// skipped by the fuzzers (they are valid, only slow). Never throws.
std::int64_t estimated_plan_entries(const Case& c);
// What one interval-level evaluation costs, roughly: estimated entries x W (the planner's and
// the checks' per-rank work per entry). Never throws.
std::int64_t estimated_plan_work(const Case& c);
// Rows the token-level simulation touches, roughly: sum over requests with context of (ctx + I*W) x W.
std::int64_t simulated_rows(const Case& c);
// Slots of the PCP manager's gathered layout a plan materialises (rows.h: PcpGathered, one per
// token of every rank plus one restore entry per global token), at most P x max(T_pad, sum q) +
// sum q (T_r is at most every new token: PCP-C replicates short prefills on every rank); 0 for a
// case without a manager (the pcp family, or the local shard with pcp_rows). Never throws.
std::int64_t pcp_layout_slots(const Case& c);
// What one judgement costs token by token, whatever the plan's size: the PCP layout's slots, plus
// the simulated rows of a family without an interval level (FamilyInfo::interval_level: SGLang,
// TokenSpeed), whose I-9 walks every row. Never throws.
std::int64_t token_level_rows(const Case& c);

}  // namespace cp::fuzz
