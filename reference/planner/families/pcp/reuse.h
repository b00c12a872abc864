// PCP context reuse (vllm-pcp-and-sparse.md §2; vLLM #57668, open): the builder-side plan that
// merges a rank's two adjacent rows of one request into one row (reuse.cpp). Internal to the pcp
// family.
#pragma once

#include <vector>

#include "reference/planner/plan.h"

namespace cp::detail {

// Why ctx_reuse's plan does not run on this rank (§2.2), or nullptr when it does: the v6
// fallback then plans the unmerged rows.
const char* reuse_refusal(const Case& c, const PcpRank& rk, const Plan& plan);

// The merged plan of rank rk into `plan` (its geometry, workspace, decodes set): rk.merges, the
// merged batch (rc: ctx = ctx_b, q = q_a + q_b per merged row; lead_*: Batch::lead_ctx/lead_q)
// and the chunks. false: a range longer than S and no block fits S (the caller falls back).
bool plan_reuse(const Case& c, PcpRank& rk, Plan& plan, Case& rc, std::vector<std::int64_t>& lead_ctx,
                std::vector<std::int64_t>& lead_q);

}  // namespace cp::detail
