// The PCP virtual-row family (pcp-a, pcp-b, pcp-c): its registration (plan.cpp defines it), its
// steps (steps.h), what its plans carry (rows.h), and the manager's gathered token layout
// (layout.cpp), callable on rows given by hand as vLLM's own tests do.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "reference/planner/families/pcp/rows.h"
#include "reference/planner/families/pcp/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo pcp_family;
struct Plan;

// Every PCP rank but L.rank planned by plan_one(rank, plan): each into a scratch plan with
// `plan`'s geometry, workspace and planner flags. An assert on any rank stops every rank, so
// theirs join `plan`'s (prefixed "pcp rank r: "); their chunks go back to the pool. Shared by the
// families whose plans are one rank's of a PCP group (pcp, local-shard with pcp_rows).
void plan_other_pcp_ranks(PcpLayout& L, Plan& plan, const std::function<void(PcpRank&, Plan&)>& plan_one);

// The step's all-gathered token layout for every rank's rows (§1.5; vLLM 0036d38d
// PCPManager._build_batch_layout): global tokens in query_start_loc order of the global batch
// (ctx = num_computed_tokens, q = num_scheduled_tokens), T_pad = max_r T_r or `padded` (the
// caller checks padded >= max_r T_r, Q4's ValueError). A rank's rows of 0 tokens (the dummy row)
// hold no slot.
PcpGathered pcp_gathered_layout(std::span<const std::vector<PcpRow>> rows_by_rank, std::span<const std::int64_t> ctx,
                                std::span<const std::int64_t> q, PcpGather gather, std::optional<std::int64_t> padded);
// _convert_to_gathered_slot_mappings: the global slot mapping (one slot per global token, PAD
// where this DCP rank does not own it) re-indexed through gather_idx, PAD (-1) where the write
// mask is false.
inline constexpr std::int64_t kPadSlot = -1;
std::vector<std::int64_t> pcp_gathered_slot_mapping(const PcpGathered& g, std::span<const std::int64_t> global_slots);
}  // namespace cp
