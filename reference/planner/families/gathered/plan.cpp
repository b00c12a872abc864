// vLLM's FlashMLA sparse PCP x DCP gathered prefill (vllm-pcp-and-sparse.md §4.2-§4.3; #56157,
// flashmla_sparse.py plan_gathered_prefill, code-index 66430773948). Every prefill request is one
// region (the region plan depends only on the region list, extents, W and mml: PCP rows of one
// request form one region, §4.2) of extent e = ctx + q, the whole sequence with this step's new
// tokens already in the cache. The plan value: one chunk per greedy region chunk; an entry per
// region with span [0, e), padded_local_len = rpr (rows each rank contributes: the shard rows
// [ws, ws + rpr), padded_local_cu = ws) and kept[d] = the rows of rank d's share that fit rpr.
// plan.local_ctx[region][d] = rank d's share of the extent. plan.workspace = max_gathered_rows
// = 5 * mml, so I-7's S/W is the shard budget (D-6).
#include <algorithm>

#include "reference/dcp/ownership.h"
#include "reference/planner/families/gathered/family.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {
namespace {

void plan_gathered(const Case& c, Plan& plan) {
  const Int W = plan.dcp, I = plan.interleave;
  const Int budget = steps::gathered_shard_budget(Int(plan.workspace), W);
  const GatheredRowsPerRank rule = plan.version_info().gathered.rows_per_rank;
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  plan.row_budget = budget.get();
  Chunk ch = take_chunk();
  Int used = 0;
  for (int r : plan.prefills) {
    const auto ri = static_cast<std::size_t>(r);
    const Int e = Int(c.ctx[ri]) + c.q[ri];
    auto& local = plan.local_ctx[ri];
    local.clear();
    for (Int d = 0; d < W; d = d + 1) local.push_back(dcp_local_len(e, W, d, I).get());
    const Int rpr = steps::gathered_rows_per_rank(rule, e, W, I);
    if (rpr > budget) {
      add_assert(plan, "plan", "rows_per_rank <= max_gathered_rows // dcp_world_size (contiguous KV rows)", [&] {
        return "request " + std::to_string(r) + ": extent " + std::to_string(e.get()) + " needs " +
               std::to_string(rpr.get()) + " rows per rank > floor(" + std::to_string(plan.workspace) + "/" +
               std::to_string(W.get()) + ") = " + std::to_string(budget.get());
      });
      return_chunk(std::move(ch));
      return;
    }
    if (!ch.entries.empty() && used + rpr > budget) {  // split_prefill_chunks: close the chunk
      finish_chunk(ch, true, qsl, base);
      plan.chunks.push_back(std::move(ch));
      ch = take_chunk();
      used = 0;
    }
    ChunkEntry en{.request = r, .start = 0, .len = e.get(), .local_start = 0, .padded_local_len = rpr.get()};
    en.kept = take_rows();
    for (auto l : local) en.kept.push_back(std::min(l, rpr.get()));
    ch.entries.push_back(std::move(en));
    used = used + rpr;
  }
  if (!ch.entries.empty()) {
    finish_chunk(ch, true, qsl, base);
    plan.chunks.push_back(std::move(ch));
  } else {
    return_chunk(std::move(ch));
  }
  plan.chunk_width = budget.get();
  plan.built = true;
}

// plan_gathered_prefill asserts W > 1: the gathered path exists only under DCP.
void gathered_init(const Case& c, Plan& plan) {
  if (c.dcp < 2)
    throw CaseError("dcp", std::string(info(c.version).name) +
                               " is the PCP x DCP gathered prefill: plan_gathered_prefill asserts "
                               "dcp_world_size > 1, so dcp must be at least 2");
  if (c.max_model_len)
    for (std::size_t i = 0; i < c.ctx.size(); ++i)
      if (c.ctx[i] + c.q[i] > *c.max_model_len)
        throw CaseError("ctx", "request " + std::to_string(i) + " has ctx+q = " + std::to_string(c.ctx[i] + c.q[i]) +
                                   " tokens > max_model_len=" + std::to_string(*c.max_model_len) +
                                   " (the scheduler never builds it)");
  plan.workspace_rows = plan.workspace;
}

}  // namespace
}  // namespace cp::detail

namespace cp {
const FamilyInfo gathered_family{
    .name = "sparse-gathered",
    .summary =
        "vLLM FlashMLA sparse under PCP x DCP: regions of whole sequences, rows per rank into a rank-major "
        "all-gathered workspace, chunks within floor(5*mml/W) shard rows",
    .models = "vLLM v1/attention/backends/mla/flashmla_sparse.py plan_gathered_prefill (#56157)",
    .init = &detail::gathered_init,
    .plan = &detail::plan_gathered,
    .movement = &vllm_chunk_movement,  // gather rpr rows per region, rank-major all-gather, kept rows per rank
    .interval_level = true,            // vLLM's movement: I-9's closed form (invariants/interval/) is its exact walk
    .spans_are_context = false,
    .smt_encoded = true,  // invariants/smt/encode_sparse.cpp
};
}  // namespace cp
